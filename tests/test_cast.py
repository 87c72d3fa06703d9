"""Issue 23, Cast: deliberately wrong kernels run through the runner on the committed corpus are each
caught where their defect shows (NaN to bool false, rounding where the standards truncate, saturating
where they wrap, float64 to 16 bits rounded twice), a kernel that gives INT_MIN for NaN (the standards:
undefined) passes, and the correct kernel passes the same cases. A sample of designed cases; and the
corpus checks of the capability: outputs of the type `to` names, every (input, output) pair designed."""
from __future__ import annotations

import numpy as np
import pytest

from specgen.adapters.registry import load_object
from specgen.numerics.compare import compare as COMPARE
from specgen.runner.cases import Filters, load_cases, select
from specgen.runner.core import FAIL, PASS, Runner
from specgen.spec.loader import load_all

SPECS = load_all()
ALL = load_cases()
LATEST = SPECS["cast"].standards["onnx"].versions[-1].version  # designed_at_ends: the full product is here


def _cases(version, dtypes, targets, standard="onnx", kinds=("/breakpoints",)):
    return [c for c in select(ALL, Filters(ops=("cast",), kinds=("positive",), dtypes=dtypes))
            if (c.standard, c.version) == (standard, version) and any(k in c.id for k in kinds)
            and c.attributes["to"] in targets]


FLOAT_TO_INT = _cases(LATEST, ("float32", "float64", "float16"), ("int8", "uint8", "int32", "uint64"))
FLOAT_TO_BOOL = _cases(LATEST, ("float32", "float16", "bfloat16"), ("bool",))
INT_NARROWING = _cases(LATEST, ("int16", "int32", "int64", "uint16"), ("int8", "uint8", "int16"))
WEBNN_NARROWING = _cases("2026-06-26", ("int32", "int64"), ("int8", "uint8"), standard="webnn")
DOUBLE_TO_HALF = _cases(LATEST, ("float64",), ("float16", "bfloat16", "float32"))


def run(name, cases):
    assert cases
    adapter = load_object(name, f"fake_adapters.cast:{name}", specs=SPECS)
    return Runner(adapter, SPECS, probe=False, compare=COMPARE).run(cases).results


def _worst(result) -> float:
    return float(result.detail["worst"]["input"]["decimal"])


def test_the_correct_kernel_passes():
    cases = FLOAT_TO_INT + FLOAT_TO_BOOL + INT_NARROWING + WEBNN_NARROWING + DOUBLE_TO_HALF
    bad = [(r.case_id, r.reason) for r in run("CorrectCast", cases) if r.verdict != PASS]
    assert bad == []


def test_nan_and_out_of_range_to_an_integer_may_be_any_value():
    results = run("NaNToIntMin", FLOAT_TO_INT)
    assert [(r.case_id, r.reason) for r in results if r.verdict != PASS] == []
    assert any("unspecified" in n for r in results for n in r.detail.get("notes", []) or ())


def test_nan_to_bool_false_fails_at_nan():
    failed = [r for r in run("NaNToBoolFalse", FLOAT_TO_BOOL) if r.verdict == FAIL]
    assert len(failed) == len(FLOAT_TO_BOOL)
    for r in failed:
        assert np.isnan(_worst(r)), (r.case_id, _worst(r))


def test_rounding_instead_of_truncating_fails_at_fractions():
    results = run("RoundingToInt", FLOAT_TO_INT)
    failed = [r for r in results if r.verdict == FAIL]
    assert len(failed) == len(FLOAT_TO_INT)  # every pair holds +-0.5 .. 2.5 and -0.9
    for r in failed:
        x = _worst(r)
        assert x != np.trunc(x) and np.trunc(x) != np.rint(x), (r.case_id, x)


@pytest.mark.parametrize("cases", [INT_NARROWING, WEBNN_NARROWING], ids=["onnx", "webnn"])
def test_saturating_where_the_standards_wrap_fails_past_the_limits(cases):
    results = run("SaturatingIntNarrowing", cases)
    failed = [r for r in results if r.verdict == FAIL]
    assert failed and {r.verdict for r in results} <= {PASS, FAIL}
    for r in failed:
        to = r.case_id.split("to=")[1].rstrip("]")
        info = np.iinfo(to)
        assert not info.min <= _worst(r) <= info.max, (r.case_id, _worst(r))
    # a pair that cannot overflow (int16 -> int16 is the identity) passes
    assert all(r.verdict == PASS for r in results if "/int16/" in r.case_id and r.case_id.endswith("to=int16]"))


def test_double_rounding_from_float64_fails_for_16_bit_targets_only():
    results = run("DoubleRounding", DOUBLE_TO_HALF)
    by_target = {r.case_id.split("to=")[1].rstrip("]"): r.verdict for r in results}
    assert by_target == {"float16": FAIL, "bfloat16": FAIL, "float32": PASS}, by_target


def test_outputs_have_the_type_to_names_and_every_pair_is_designed():
    cases = select(ALL, Filters(ops=("cast",), kinds=("positive",)))
    pairs = {}
    for c in cases:
        assert c.dtypes["y"] == c.attributes["to"] and c.dtypes["x"] == c.dtype, c.id
        if "/breakpoints" in c.id:
            pairs.setdefault((c.standard, c.version), set()).add((c.dtype, c.attributes["to"]))
    onnx = SPECS["cast"].standards["onnx"]
    latest = onnx.versions[-1]
    assert pairs[("onnx", latest.version)] == {(a, b) for a in latest.dtypes("x") for b in latest.dtypes("y")}
    # designed_at_ends: the versions inside the run of equal rows have no designed cases of their own
    assert ("onnx", "19") not in pairs and ("onnx", "6") in pairs and ("onnx", "13") in pairs


def test_designed_values_sit_at_the_target_types_boundaries():
    case = next(c for c in DOUBLE_TO_HALF if c.attributes["to"] == "float16")
    t = case.load()
    x = t["x"].astype(np.float64).ravel()
    for v in (65504.0, 65520.0, 2.0 ** -24, 2.0 ** -25, 1 + 2.0 ** -11):  # max, overflow tie, subnormal ties, tie at 1
        assert v in x and -v in x, v
    case = next(c for c in INT_NARROWING if c.dtype == "int16" and c.attributes["to"] == "int8")
    x = case.load()["x"].astype(np.int64).ravel()
    assert {127, 128, -128, -129, 256}.issubset(set(x.tolist()))
    y = case.load()["y"].astype(np.int64).ravel()
    assert y[list(x).index(128)] == -128 and y[list(x).index(256)] == 0  # wrapped, as ONNX's 200 -> -56
