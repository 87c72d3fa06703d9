"""Golden values of transcendental formulas: correctly rounded (against mpmath at 2600 bits), decided
by the float64/long double enclosures for all but a few elements, and bounded."""
from __future__ import annotations

import math
from types import SimpleNamespace
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from specgen import dtypes as dt
from specgen.errors import SpecError
from specgen.formula.parser import parse_formula
from specgen.numerics.exact import golden, rewrite
from specgen.numerics.ulp import from_ordered, round_fraction
from specgen.numerics.ulp import ordered as to_ordered
from specgen.numerics import ziv
from specgen.spec.loader import load_all

SPECS = load_all()
ORACLE = {
    "elu": lambda x, a: x if x >= 0 else a["alpha"] * mpmath.expm1(x),
    "softplus": lambda x, a: mpmath.log1p(mpmath.exp(a["steepness"] * x)) / a["steepness"],
    "celu": lambda x, a: max(0, x) + min(0, a["alpha"] * mpmath.expm1(x / a["alpha"])),
    "selu": lambda x, a: a["gamma"] * x if x > 0 else a["gamma"] * a["alpha"] * mpmath.expm1(x),
    # independent spellings of the activation family (the specs write 1 / (1 + exp(-x)), tanh(x), ...)
    "sigmoid": lambda x, a: mpmath.exp(x) / (mpmath.exp(x) + 1) if x < 0 else 1 / (1 + mpmath.exp(-x)),
    "tanh": lambda x, a: mpmath.tanh(x),
    "scaled_tanh": lambda x, a: a["alpha"] * mpmath.tanh(a["beta"] * x),
    "swish": lambda x, a: x / (1 + mpmath.exp(-a["alpha"] * x)),
    "parametric_softplus": lambda x, a: a["alpha"] * mpmath.log1p(mpmath.exp(a["beta"] * x)),
}


def _listed(op) -> set[str]:
    """The dtypes some standard lists for the operator."""
    return {d for s in SPECS[op].standards.values() for v in s.versions for t in v.tensors.values() for d in t.dtypes}


def _oracle(op, x: float, attrs, dtype) -> float:
    with mpmath.workprec(2600):
        v = ORACLE[op](mpmath.mpf(x), {k: mpmath.mpf(v) for k, v in attrs.items()})
        sign, man, exp, bc = mpmath.mpf(v)._mpf_ if v != 0 else (0, 0, 0, 0)
        if not man:
            return 0.0
        if exp + bc > 1100:
            return -math.inf if sign else math.inf
        if exp + bc < -1200:
            return -0.0 if sign else 0.0
        return float(round_fraction((-1) ** sign * Fraction(man) * Fraction(2) ** exp, dtype))


def _values(dtype, count, seed):
    npd = dt.get(dtype).numpy
    rng = np.random.default_rng(seed)
    import ml_dtypes
    big = float(ml_dtypes.finfo(npd).max) if dtype == "bfloat16" else float(np.finfo(npd).max)
    top = int(to_ordered(np.array([big]).astype(npd), dtype)[0])
    return np.concatenate([rng.uniform(-40, 40, count // 2).astype(npd),
                           from_ordered(rng.integers(-top, top, count - count // 2), dtype)])


@pytest.mark.parametrize("op,attrs", [("elu", {"alpha": 1.0}), ("elu", {"alpha": float(np.float32(0.35))}),
                                      ("softplus", {"steepness": 1.0}), ("softplus", {"steepness": -2.0}),
                                      ("celu", {"alpha": float(np.float32(0.35))}),
                                      ("selu", {"alpha": float(np.float32(1.6732632)), "gamma": float(np.float32(1.050701))}),
                                      ("sigmoid", {}), ("tanh", {}), ("swish", {"alpha": 1.0}),
                                      ("swish", {"alpha": float(np.float32(-1.702))}),
                                      ("scaled_tanh", {"alpha": float(np.float32(1.7159)), "beta": float(np.float32(2 / 3))}),
                                      ("parametric_softplus", {"alpha": 2.0, "beta": float(np.float32(-0.3))})])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_correctly_rounded_against_mpmath(op, attrs, dtype):
    if dtype not in _listed(op):
        pytest.skip(f"no standard lists {dtype} for {op}")
    x = _values(dtype, 200, 11)
    g = golden(SPECS[op], {"x": x}, attrs, dtype, "directml")
    for xi, yi in zip(x.astype(np.float64), g.y.astype(np.float64)):
        want = _oracle(op, float(xi), attrs, dtype)
        assert yi == want and (want != 0 or math.copysign(1, yi) == math.copysign(1, want) or xi == 0), (op, xi, yi, want)


@pytest.mark.parametrize("op,attrs", [("elu", {"alpha": 1.0}), ("softplus", {"steepness": 1.0})])
def test_narrow_outputs_need_no_mpmath(op, attrs):
    for dtype in ("float32", "float16", "bfloat16"):
        x = _values(dtype, 30_000, 5)
        g = golden(SPECS[op], {"x": x}, attrs, dtype, "directml")
        assert g.exact <= 20, (op, dtype, g.exact)  # tiny arguments near 0 at most


def test_float64_outputs_go_to_mpmath_only_near_rounding_boundaries():
    x = _values("float64", 30_000, 5)
    g = golden(SPECS["elu"], {"x": x}, {"alpha": 1.0}, "float64", "onnx")
    assert g.exact < 0.01 * x.size  # long double decides ~99% of the inexact ones


def test_rewrites_are_the_exact_identities():
    f = parse_formula("alpha * (exp(x) - 1) + log(1 + exp(x)) - log(exp(x) + 1)", ["x"], ["alpha"])
    text = repr(rewrite(f))
    assert "expm1" in text and "log1p" in text and "'max'" in text and "'abs'" in text


def test_an_undecidable_element_is_a_spec_error_naming_the_formula():
    spec = SPECS["elu"]
    node = parse_formula("exp(x) - exp(x) + 1.000000059604644775390625", ["x"], [])  # 1 + 2^-24: a float32 midpoint

    class Fake:
        id, path, formula = "fake", "specs/fake.yaml", node
        special_values = {}

        def formula_for(self, standard):
            return node
    with pytest.raises(SpecError) as exc:
        golden(Fake(), {"x": np.array([0.5], dtype=np.float32)}, {}, "float32")
    assert "specs/fake.yaml" in str(exc.value) and "np.exp(x) - np.exp(x)" in str(exc.value)
    assert "4096 bits" in str(exc.value)
    del spec


def test_mpmath_rounding_never_builds_huge_rationals():
    huge = mpmath.mpf(2) ** (2 ** 200)
    assert ziv.round_mpf(huge._mpf_, "float32") == math.inf
    assert ziv.round_mpf((1 / huge)._mpf_, "float16") == 0.0


def test_the_mpmath_fallback_keeps_the_sign():
    # mpf.man_exp drops the sign; the old 256-bit tier made every negative transcendental value positive
    from specgen.numerics.exact import exact_value
    node = parse_formula("where(x >= 0, x, alpha * (exp(x) - 1))", ["x"], ["alpha"])
    assert exact_value(node, {"x": -1.0, "alpha": 1.0}) < 0


def test_a_nonzero_value_that_rounds_to_a_zero_is_signed_by_itself():
    """DirectML's Selu gamma * (alpha * exp(x) - alpha) with alpha = 2^-149 at x = -1e-28 is about
    -1.5e-73: float32 -0.0. The 96-bit enclosure still contains 0 and both its ends round to a
    zero, so Ziv used to stop there and take the literal IEEE sign (exp(x) = 1 in float64: +0);
    the precision now rises until the enclosure leaves 0."""
    x = np.array([-9.9927044e-29, -1e-20, -1e-40, -1.4e-45], dtype=np.float32)
    attrs = {"alpha": float(np.float32(1e-45)), "gamma": float(np.float32(1.0507))}
    for std in ("directml", "onnx"):
        y = golden(SPECS["selu"], {"x": x}, attrs, "float32", std).y
        assert (y == 0).all() and np.signbit(y).all(), (std, y)
    node = parse_formula("alpha * exp(x) - alpha", ["x"], ["alpha"])
    val, exact_zero = ziv.decide(node, {"x": -1e-28, "alpha": 2.0 ** -149}, "float32")
    assert val == 0 and math.copysign(1, val) == -1 and not exact_zero
    # an exact zero reached through inexact terms never leaves 0: signed like an exact zero (IEEE's +0)
    node = parse_formula("exp(x) - exp(x)", ["x"], [])
    assert ziv.decide(node, {"x": 0.5}, "float32") == (0.0, True)
    y = golden(SimpleNamespace(id="fake", path="specs/fake.yaml", special_values={}, formula_for=lambda s: node),
               {"x": np.array([0.5], dtype=np.float32)}, {}, "float32").y
    assert y[0] == 0 and not np.signbit(y[0])


def test_a_positive_base_to_an_integer_exponent_is_exact_at_a_midpoint():
    """pow(scale * a + bias, b) with scale = 0.35f and bias = 0.65f at a = b = 1 is 1 - 2^-25 exactly, the
    float32 midpoint between 1 - 2^-24 and 1: the widened enclosure of a transcendental pow straddled it
    at every precision; the directed integer powers make it a point, rounded to even (1.0)."""
    node = parse_formula("pow(scale * a + bias, b)", ["a", "b"], ["scale", "bias"])
    env = {"a": 1.0, "b": 1.0, "scale": float(np.float32(0.35)), "bias": float(np.float32(0.65))}
    assert env["scale"] + env["bias"] == 1 - 2.0 ** -25
    assert ziv.decide(node, env, "float32") == (1.0, False)
    assert ziv.decide(node, {**env, "b": 2.0}, "float32")[0] == float(np.float32((1 - 2.0 ** -25) ** 2))
    assert ziv.decide(node, {**env, "b": -1.0}, "float32")[0] == float(np.float32(1 / (1 - 2.0 ** -25)))


def test_an_exact_power_is_decided_even_on_a_midpoint():
    """pow(a, m / 2**k) is exact when a**m is a perfect 2**k-th power; (2**-60) ** 2.5 = 2**-150 is
    half the smallest float32 subnormal, a tie (to even: +0) no enclosure decides: the sweep of
    Pow with b = 2.5 stopped there ('undecided at 4096 bits'). Inexact neighbours still go through
    the enclosures."""
    from fractions import Fraction

    from specgen.formula.parser import parse_formula
    from specgen.numerics import ziv
    from specgen.numerics.ulp import round_fraction

    node = parse_formula("pow(a, b)", ["a", "b"], [])
    assert ziv.decide(node, {"a": 2.0 ** -60, "b": 2.5}, "float32") == (0.0, False)
    assert ziv.decide(node, {"a": 2.0 ** -60, "b": 2.5}, "float64") == (2.0 ** -150, False)
    assert ziv.decide(node, {"a": 2.25, "b": 1.5}, "float32") == (3.375, False)
    assert ziv.decide(node, {"a": 9.0 * 2.0 ** -148, "b": 0.5}, "float32") == (3.0 * 2.0 ** -74, False)
    # (3 * 2**-101) ** 1.5: 3 ** 3 is no perfect square, so no exact value; the enclosure decides
    x = 3.0 * 2.0 ** -101
    want = round_fraction(Fraction(x) ** 3, "float64") ** 0.5
    got, _ = ziv.decide(node, {"a": x, "b": 1.5}, "float32")
    assert got == float(np.float32(want)) and got > 0
