"""What the loaded model says about the seed operators: per-standard formulas, test attribute
sets, standard layout rules, defaults as stored float32 values."""
import numpy as np

from specgen.formula.numpy_eval import evaluate
from specgen.spec.loader import load_all, load_standards

SPECS = load_all()


def test_onnx_shrink_has_its_own_test_order_and_directml_keeps_the_operators():
    shrink = SPECS["shrink"]
    assert shrink.formula_for("directml") is shrink.formula
    assert shrink.formula_for("onnx") is not shrink.formula
    assert "x < -lambd" in shrink.standards["onnx"].formula_reason
    # The orders agree for a non-negative threshold and differ inside (t, -t) for a negative one.
    x = np.linspace(-2, 2, 41)
    for threshold, same in ((0.5, True), (-0.65, False)):
        env = {"x": x, "bias": 0.35, "threshold": threshold}
        onnx, dml = evaluate(shrink.formula_for("onnx"), env), evaluate(shrink.formula_for("directml"), env)
        assert np.array_equal(onnx, dml) == same
    inside = np.array([0.0])
    env = {"x": inside, "bias": 0.35, "threshold": -0.65}
    assert evaluate(shrink.formula_for("onnx"), env)[0] == 0.35  # x < 0.65: x + bias
    assert evaluate(shrink.formula_for("directml"), env)[0] == -0.35  # x > -0.65: x - bias


def test_operators_without_an_override_use_one_formula_everywhere():
    for op in ("hard_sigmoid", "softsign"):
        spec = SPECS[op]
        assert all(spec.formula_for(k) is spec.formula for k in spec.standards)


def test_test_attribute_sets_are_loaded_with_their_reasons():
    hs = {t.name: t for t in SPECS["hard_sigmoid"].test_attributes}
    assert hs["pytorch_hardsigmoid"].values == {"alpha": 1 / 6, "beta": 0.5}
    assert "hardsigmoid" in hs["pytorch_hardsigmoid"].reason
    sh = {t.name: t for t in SPECS["shrink"].test_attributes}
    assert sh["softshrink"].values == {"bias": 0.5, "threshold": 0.5}


def test_standard_layout_rules_come_from_the_standards_file():
    std = load_standards()
    assert (std["directml"].strides, std["directml"].zero_sizes) == (True, False)
    assert (std["onnx"].strides, std["onnx"].zero_sizes) == (False, True)
    assert std["onednn"].strides and "strides" in std["onednn"].layout_source


def test_defaults_are_the_stored_float32_values():
    hs = SPECS["hard_sigmoid"]
    assert hs.standards["onnx"].defaults() == {"alpha": 0.20000000298023224, "beta": 0.5}
    assert hs.standards["directml"].defaults() == hs.standards["onnx"].defaults()  # typical 0.2 as FLOAT
    assert hs.standards["onednn"].defaults() == {"alpha": None, "beta": None}
    assert all(b.required for b in hs.standards["onednn"].attributes.values())
