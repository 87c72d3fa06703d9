"""The generated validation modules: every rule of the spec tables, with clear messages."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from specgen.generate.tree import import_generated

GEN = Path(__file__).resolve().parent.parent / "generated"
hs = import_generated(GEN, "validate", "hard_sigmoid").validate
shrink = import_generated(GEN, "validate", "shrink").validate
ref_hs = import_generated(GEN, "reference", "hard_sigmoid")
ref_shrink = import_generated(GEN, "reference", "shrink")
ref_softsign = import_generated(GEN, "reference", "softsign")


def t(dtype, sizes, strides=None):
    return {"dtype": dtype, "sizes": list(sizes), "strides": strides}


def call(dtype="float32", sizes=(2, 3, 4, 5), ydtype=None, ysizes=None, **kw):
    return {"x": t(dtype, sizes, kw.get("xst")), "y": t(ydtype or dtype, ysizes or sizes, kw.get("yst"))}


def test_legal_calls_have_no_violations():
    assert hs("directml", "1_0", call(), {"alpha": 0.2, "beta": 0.5}) == []
    assert hs("onnx", "22", call("bfloat16", [7]), {}) == []
    assert hs("onednn", "current", call("bfloat16", [7]), {"alpha": 0.2, "beta": 0.5}) == []
    assert shrink("directml", "5_1", call("uint8", [3, 1]), {"bias": 1.0, "threshold": 2.0}) == []


def test_standard_names_are_accepted():
    assert hs("onnx", "22", {"X": t("float16", [2]), "Y": t("float16", [2])}, {"alpha": 0.5}) == []
    assert shrink("onnx", "9", call("int8", [2]), {"lambd": 1.0}) == []
    assert hs("directml", "3_0", {"InputTensor": t("float32", [2]), "OutputTensor": t("float32", [2])},
              {"Alpha": 1.0, "Beta": 0.0}) == []


def test_dtype_not_at_this_level():
    msgs = shrink("directml", "3_0", call("int8", [2, 3]), {})
    assert msgs == ["x: dtype int8 is not allowed by DirectML DML_ACTIVATION_SHRINK_OPERATOR_DESC "
                    "DML_FEATURE_LEVEL_3_0 (allowed: float32, float16)",
                    "y: dtype int8 is not allowed by DirectML DML_ACTIVATION_SHRINK_OPERATOR_DESC "
                    "DML_FEATURE_LEVEL_3_0 (allowed: float32, float16)"]


def test_rank_outside_the_range():
    assert any("rank 9 is outside the range 1 to 8" in m for m in hs("directml", "3_0", call(sizes=[1] * 9), {}))
    assert any("rank 5 is outside the range 4" in m for m in hs("directml", "1_0", call(sizes=[1] * 5), {}))
    assert hs("onnx", "22", call(sizes=[1] * 9), {}) == []  # ONNX ranks are unbounded


def test_constraints_between_input_and_output():
    assert hs("onnx", "22", call(ydtype="float16"), {}) == [
        "y: dtype float16 differs from x's float32; ONNX HardSigmoid opset 22 requires the same data type"]
    assert any("differ from x's" in m for m in hs("onnx", "22", call(ysizes=[2, 3, 4, 6]), {}))
    assert any("rank 3 differs" in m for m in hs("onnx", "22", call(ysizes=[2, 3, 4]), {}))


def test_attributes():
    assert hs("onednn", "current", call(), {"alpha": 0.2}) == [
        "attribute 'beta' is required by HardSigmoid in oneDNN Graph (current) and was not given"]
    assert hs("onnx", "1", call(), {"consumed_inputs": [0]}) == []
    assert hs("onnx", "6", call(), {"consumed_inputs": [0]}) == [
        "attribute 'consumed_inputs' does not exist in ONNX HardSigmoid opset 6 (only in opset version 1)"]
    assert "is not an attribute" in hs("onnx", "22", call(), {"gamma": 1.0})[0]


def test_sizes_and_strides():
    assert any("contain a zero" in m for m in hs("directml", "3_0", call(sizes=[2, 0]), {}))
    assert hs("onnx", "22", call(sizes=[2, 0]), {}) == []
    assert any("non-negative" in m for m in hs("directml", "3_0", call(sizes=[2, 3], xst=[-3, 1]), {}))
    assert any("overlap" in m for m in hs("directml", "3_0", call(sizes=[2, 3], yst=[1, 1]), {}))
    assert any("1 strides for a rank-2" in m for m in hs("directml", "3_0", call(sizes=[2, 3], xst=[1]), {}))
    assert hs("directml", "3_0", call(sizes=[2, 3], xst=[4, 1], yst=[1, 2]), {}) == []
    short = call(sizes=[2, 3], xst=[4, 1])
    short["x"]["buffer_elements"] = 6
    assert hs("directml", "3_0", short, {}) == ["x: strides [4, 1] over sizes [2, 3] reach element 6, but the buffer holds 6"]
    short["x"]["buffer_elements"] = 7
    assert hs("directml", "3_0", short, {}) == []
    assert hs("directml", "3_0", call(sizes=[2, 3], xst=[0, 1]), {}) == []  # an input may broadcast
    assert any("dense" in m for m in hs("onnx", "22", call(sizes=[2, 3], xst=[4, 1]), {}))


def test_unknown_standard_and_version():
    assert "no standard 'coreml'" in hs("coreml", "1", call(), {})[0]
    assert "no opset version '7'" in hs("onnx", "7", call(), {})[0]


# ---------------------------------------------------------------- reference modules

def test_reference_defaults_per_standard():
    x = np.array([-3.0, 0.0, 1.0], dtype=np.float32)
    assert list(ref_hs.hard_sigmoid(x)) == list(ref_hs.hard_sigmoid(x, 0.2, 0.5, standard="directml"))
    assert ref_hs.DEFAULTS["onnx"]["alpha"] == float(np.float32(0.2))
    with pytest.raises(TypeError, match="requires attribute 'alpha'"):
        ref_hs.hard_sigmoid(x, standard="onednn")
    assert list(ref_hs.hard_sigmoid(x, 0.5, 0.5, standard="onednn")) == [0.0, 0.5, 1.0]


def test_reference_dtypes():
    with pytest.raises(TypeError, match="does not take int32"):
        ref_hs.hard_sigmoid(np.array([1], dtype=np.int32))
    with pytest.raises(TypeError, match="bfloat16"):
        ref_hs.hard_sigmoid(np.array([1], dtype=ml_dtypes.bfloat16), version="6")
    y = ref_softsign.softsign(np.array([3.0, np.inf, -np.inf], dtype=ml_dtypes.bfloat16))
    assert y.dtype == ml_dtypes.bfloat16 and list(y.astype(np.float64)) == [0.75, 1.0, -1.0]
    y = ref_shrink.shrink(np.array([-128, 5, 127], dtype=np.int8), 0.5, 1.0)
    assert y.dtype == np.int8 and list(y) == [-127, 4, 126]
    big = ref_shrink.shrink(np.array([2 ** 62 + 1], dtype=np.int64), 0.5, 1.0)
    assert int(big[0]) == 2 ** 62
