"""Issue 23, the comparison and logical family: deliberately wrong kernels run through the runner on
the committed corpus are each caught where their defect shows (NaN == NaN true, +0 == -0 false, Where
broadcasting its condition wrongly or selecting by arithmetic, WebNN's logicalAnd as a bitwise and),
and the correct kernel passes the same cases. A sample of designed cases per defect, not the whole
corpus; and the corpus checks of the capabilities: truth-value outputs of their own type, inputs of
their own dtype (Where's condition), every special pair of a comparison."""
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
DESIGNED = ("/breakpoints", "/regions", "/specials")


def _cases(op, standard, version, dtypes, kinds=DESIGNED):
    return [c for c in select(ALL, Filters(ops=(op,), kinds=("positive",), dtypes=dtypes))
            if (c.standard, c.version) == (standard, version) and any(k in c.id for k in kinds)]


EQUAL = _cases("equal", "onnx", "19", ("float32", "float16"))
NOT_EQUAL = _cases("not_equal", "webnn", "2026-06-26", ("float32",))
WHERE_BROADCAST = _cases("where", "onnx", "9", ("float32",), ("/broadcast-",))  # broadcast_once: 16 repeats 9
WHERE_SPECIALS = _cases("where", "onnx", "16", ("float32",))
AND_UINT8 = _cases("logical_and", "webnn", "2026-06-26", ("uint8",))
IS_INF = _cases("is_inf", "onnx", "20", ("float32",))


def run(name, cases):
    assert cases
    adapter = load_object(name, f"fake_adapters.logical:{name}", specs=SPECS)
    return Runner(adapter, SPECS, probe=False, compare=COMPARE).run(cases).results


def _worst(result):
    return {k: v["decimal"] for k, v in result.detail["worst"]["inputs"].items()}


def test_the_correct_kernel_passes():
    cases = EQUAL + NOT_EQUAL + WHERE_BROADCAST + WHERE_SPECIALS + AND_UINT8 + IS_INF
    bad = [(r.case_id, r.reason) for r in run("CorrectLogical", cases) if r.verdict != PASS]
    assert bad == []


@pytest.mark.parametrize("cases", [EQUAL, NOT_EQUAL], ids=["equal", "notEqual"])
def test_nan_equal_to_itself_fails_at_the_nan_pairs(cases):
    results = run("NaNEqualsItself", cases)
    failed = [r for r in results if r.verdict == FAIL]
    assert failed and {r.verdict for r in results} <= {PASS, FAIL}
    for r in failed:
        assert set(_worst(r).values()) == {"nan"}, (r.case_id, _worst(r))


def test_zeros_compared_by_their_bits_fail():
    failed = [r for r in run("ZerosCompareByBits", EQUAL) if r.verdict == FAIL]
    assert failed
    for r in failed:
        assert {float(v) for v in _worst(r).values()} == {0.0}, (r.case_id, _worst(r))


def test_where_with_its_condition_resized_fails_where_the_condition_broadcasts():
    results = run("WhereConditionResized", WHERE_BROADCAST)
    failed = {r.case_id.split("/")[-1] for r in results if r.verdict == FAIL}
    assert "broadcast-condition-channel" in failed and "broadcast-two-way" not in {
        r.case_id.split("/")[-1] for r in results if r.verdict == PASS and "condition" in r.case_id}
    assert not any(f.startswith(("broadcast-condition-scalar", "broadcast-condition-one")) for f in failed)


def test_where_by_arithmetic_fails_at_the_specials_not_selected():
    results = run("WhereByArithmetic", WHERE_SPECIALS)
    kinds = {r.case_id.split("/")[-1] for r in results if r.verdict == FAIL}
    assert {"specials-x", "specials-y"} <= kinds, kinds


def test_logical_and_as_a_bitwise_and_fails_on_webnn_non_zero_bytes():
    failed = [r for r in run("LogicalAndBitwise", AND_UINT8) if r.verdict == FAIL]
    assert failed
    for r in failed:
        a, b = (int(v) for v in _worst(r).values())
        assert a != 0 and b != 0 and a & b != 1, (r.case_id, a, b)  # 2 & 1 = 0, 255 & 3 = 3: neither is 1


def test_is_inf_ignoring_detect_negative_fails_where_the_call_sets_it_to_zero():
    results = run("IsInfIgnoringDetectNegative", IS_INF)
    failed = [r for r in results if r.verdict == FAIL]
    assert failed
    for r in failed:
        worst = r.detail["worst"]["input"]["decimal"]  # one input: reported as "input"
        assert "detect_negative=0" in r.case_id and worst == "-inf", (r.case_id, worst)
    assert all(r.verdict == PASS for r in results if "detect_negative=0" not in r.case_id)


def test_truth_values_have_their_own_type_and_the_condition_its_own():
    # DirectML: UINT32 truth values for comparisons and IS_NAN (the type every feature level lists); its
    # LOGICAL_NOT keeps the input's UINT32 / UINT8; IF's condition is UINT8
    for case in select(ALL, Filters(ops=("equal", "is_nan", "logical_not"), kinds=("positive",))):
        out = case.dtypes[[t for t in case.dtypes][-1]]
        if case.standard == "directml":
            assert out == (case.dtypes["a"] if case.op == "logical_not" else "uint32"), case.id
        else:
            assert out == ("uint8" if case.standard == "webnn" else "bool"), case.id
    for case in select(ALL, Filters(ops=("where",), kinds=("positive",))):
        assert case.dtypes["condition"] == ("uint8" if case.standard in ("webnn", "directml") else "bool"), case.id
        assert case.dtypes["z"] == case.dtypes["x"] == case.dtypes["y"], case.id


def test_comparison_special_pairs_hold_nan_and_both_zeros():
    case = next(c for c in EQUAL if c.id.endswith("/specials-b") and c.dtype == "float32")
    t = case.load()
    a, b, c = (t[k].astype(np.float64).ravel() for k in ("a", "b", "c"))
    nan = np.isnan(a) & np.isnan(b)
    zeros = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
    assert nan.any() and (c[nan] == 0).all()
    assert zeros.any() and (c[zeros] == 1).all()
