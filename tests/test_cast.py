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
    """The designed cases of these pairs at the default saturate = 1 (a float8 target's saturate = 0 cases
    are SATURATE_0's)."""
    return [c for c in select(ALL, Filters(ops=("cast",), kinds=("positive",), dtypes=dtypes))
            if (c.standard, c.version) == (standard, version) and any(k in c.id for k in kinds)
            and c.attributes["to"] in targets and c.attributes.get("saturate", 1) == 1]


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
    # designed_at_ends: the versions inside the run of equal rows have no designed cases of their own; 19 is the
    # first listing the float8 types, whose runs start there
    assert ("onnx", "21") not in pairs and ("onnx", "6") in pairs and ("onnx", "13") in pairs
    assert {a for a, _ in pairs[("onnx", "19")]} == set(FLOAT8)


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


# float8 targets (ONNX 19+, saturate = 1, the default): from the wider float types in the latest version, and
# from each float8 type in the first version listing them
FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")
TO_FLOAT8 = _cases(LATEST, ("float32", "float16", "bfloat16", "float64"), FLOAT8)
FROM_FLOAT8 = _cases("19", FLOAT8, ("float32", "float16", "int8", "uint8", "bool") + FLOAT8)


def _beyond(case) -> bool:
    """Whether a case's input holds a value whose rounding to the target passes its largest finite (+-inf too)."""
    from specgen import dtypes as dt

    d = dt.get(case.attributes["to"])
    if d.name not in FLOAT8:
        return False  # saturate applies to float8 targets only
    x = case.load()["x"].astype(np.float64).ravel()
    top = d.max_finite + 2.0 ** (d.emax - d.precision + 1) / 2  # ties at the midpoint go to max (even)
    return bool(np.any(np.abs(x[~np.isnan(x)]) > top) or np.any(np.abs(x[~np.isnan(x)]) == np.inf))


def test_the_correct_float8_kernel_passes():
    bad = [(r.case_id, r.reason) for r in run("CorrectCast", TO_FLOAT8 + FROM_FLOAT8) if r.verdict != PASS]
    assert bad == []


def test_ignoring_saturate_fails_past_the_largest_finite():
    """inf (e5m2) or NaN (the others) where saturate = 1 gives +-max: each case whose inputs pass the target's
    range fails there (a NaN for e4m3fn's 1e6 is a failure of its own kind), the others pass."""
    results = run("IgnoresSaturate", TO_FLOAT8 + FROM_FLOAT8)
    cases = {c.id: c for c in TO_FLOAT8 + FROM_FLOAT8}
    for r in results:
        c = cases[r.case_id]
        assert r.verdict == (FAIL if _beyond(c) else PASS), (r.case_id, r.verdict, r.reason)
        if r.verdict == FAIL:
            x = _worst(r)
            assert abs(x) > dt_max(c.attributes["to"]), (r.case_id, x)
    assert sum(r.verdict == FAIL for r in results) >= len(TO_FLOAT8)  # every wider type holds values past them


def dt_max(name: str) -> float:
    from specgen import dtypes as dt

    return dt.get(name).max_finite


def test_rounding_toward_zero_fails_at_ties_and_between_values():
    results = run("TruncatingFloat8", TO_FLOAT8)
    assert {r.verdict for r in results} == {FAIL}, [(r.case_id, r.verdict) for r in results if r.verdict != FAIL]


def test_float64_to_float8_through_float32_fails_for_float64_only():
    results = run("Float8ThroughFloat32", TO_FLOAT8)
    by = {(r.case_id.split("/")[2], r.case_id.split("to=")[1].rstrip("]")): r.verdict for r in results}
    assert {k: v for k, v in by.items() if k[0] == "float64"} == {("float64", t): FAIL for t in FLOAT8}
    assert {v for k, v in by.items() if k[0] != "float64"} == {PASS}


def test_float8_designed_values():
    """float32 -> e4m3fn holds 448, the tie 464 (to 448, even) and the float32 values either side of it,
    e4m3fn's subnormal ties, +-inf (to +-448); the golden values say so."""
    case = next(c for c in TO_FLOAT8 if c.dtype == "float32" and c.attributes["to"] == "float8e4m3fn")
    t = case.load()
    x, y = t["x"].astype(np.float64).ravel(), t["y"].astype(np.float64).ravel()
    got = dict(zip(x.tolist(), y.tolist()))
    assert got[448.0] == 448.0 and got[464.0] == 448.0 and got[float(np.nextafter(np.float32(464), np.float32(500)))] == 448.0
    assert got[np.inf] == 448.0 and got[-np.inf] == -448.0
    sub = 2.0 ** -9
    assert got[sub / 2] == 0.0 and got[3 * sub / 2] == 2 * sub  # ties between subnormals to even
    assert np.isnan(y[np.isnan(x)]).all()


# saturate (ONNX 19+, float8 targets only: the attribute's applies_when): the float8 targets' cases at
# saturate = 0 (given) beside those at the default 1 (not given); the other targets have no saturate
SATURATE_0 = [c for c in select(ALL, Filters(ops=("cast",), kinds=("positive",)))
              if c.attributes.get("saturate") == 0 and ("/breakpoints" in c.id or "/regions" in c.id)]


def _overflows(case) -> bool:
    """Whether a case's input holds +-inf or a value whose one rounding to the target passes its largest finite."""
    from specgen.numerics import ulp as U

    x = case.load()["x"].astype(np.float64).ravel()
    to = case.attributes["to"]
    return any(np.isinf(v) or (np.isfinite(v) and not np.isfinite(U.round_fraction(float(v), to))) for v in x)


def test_saturate_exists_for_float8_targets_only_and_doubles_only_them():
    cases = select(ALL, Filters(ops=("cast",), kinds=("positive",)))
    for c in cases:
        if c.attributes["to"] in FLOAT8:
            assert c.attributes["saturate"] in (0, 1), c.id
            # the default is left out of the call and of the case id; 0 is given
            assert ("saturate" in c.attributes_given) == (c.attributes["saturate"] == 0), c.id
            assert ("saturate=0" in c.id) == (c.attributes["saturate"] == 0), c.id
        else:
            assert "saturate" not in c.attributes and "saturate" not in c.id, c.id
    pairs = {}
    for c in cases:
        if c.version == LATEST and "/breakpoints" in c.id:
            pairs.setdefault(c.attributes.get("saturate"), set()).add((c.dtype, c.attributes["to"]))
    latest = SPECS["cast"].standards["onnx"].versions[-1]
    assert pairs[0] == {(a, b) for a in latest.dtypes("x") for b in FLOAT8}
    assert pairs[1] == pairs[0]
    assert pairs[None] == {(a, b) for a in latest.dtypes("x") for b in latest.dtypes("y") if b not in FLOAT8}
    # none before 19 (no float8 type there), none in WebNN (no saturate, no float8)
    assert all(int(c.version) >= 19 for c in cases if "saturate" in c.attributes and c.standard == "onnx")
    assert not any("saturate" in c.attributes for c in cases if c.standard == "webnn")


def test_the_correct_kernel_passes_at_saturate_0():
    bad = [(r.case_id, r.reason) for r in run("CorrectCast", SATURATE_0) if r.verdict != PASS]
    assert bad == []


def test_saturating_at_saturate_0_fails_past_the_largest_finite():
    """+-max where saturate = 0 gives NaN (e5m2 +-inf): every saturate = 0 case whose inputs pass the target's
    range (+-inf included) fails, at such an input; the others pass."""
    results = run("AlwaysSaturates", SATURATE_0)
    cases = {c.id: c for c in SATURATE_0}
    for r in results:
        c = cases[r.case_id]
        assert r.verdict == (FAIL if _overflows(c) else PASS), (r.case_id, r.verdict, r.reason)
        if r.verdict == FAIL:
            x = _worst(r)
            assert abs(x) > dt_max(c.attributes["to"]), (r.case_id, x)
    assert sum(r.verdict == FAIL for r in results) >= len(SATURATE_0) // 2


def test_overflowing_at_saturate_1_fails_and_passes_at_saturate_0():
    """The kernel that never saturates (NaN, e5m2 +-inf, past the range) is right at saturate = 0 only."""
    assert [(r.case_id, r.reason) for r in run("IgnoresSaturate", SATURATE_0) if r.verdict != PASS] == []
    at_1 = [c for c in TO_FLOAT8 if _overflows(c)]
    assert at_1 and {r.verdict for r in run("IgnoresSaturate", at_1)} == {FAIL}


def test_saturate_0_designed_values():
    """float32 -> e4m3fn at saturate = 0: the tie 464 to 448 (even), the float32 value past it and +-inf to NaN;
    float32 -> e5m2: 61440 (the tie, to 65536) and +-inf to +-inf."""
    def values(to):
        case = next(c for c in SATURATE_0 if c.dtype == "float32" and c.attributes["to"] == to
                    and c.version == LATEST and "/breakpoints" in c.id)
        t = case.load()
        return dict(zip(t["x"].astype(np.float64).ravel().tolist(), t["y"].astype(np.float64).ravel().tolist()))
    got = values("float8e4m3fn")
    assert got[464.0] == 448.0 and np.isnan(got[float(np.nextafter(np.float32(464), np.float32(500)))])
    assert np.isnan(got[np.inf]) and np.isnan(got[-np.inf])
    got = values("float8e5m2")
    assert got[61440.0] == np.inf and got[-61440.0] == -np.inf and got[np.inf] == np.inf
    assert got[float(np.nextafter(np.float32(61440), np.float32(0)))] == 57344.0


# ONNX Cast-1: `to` a STRING, the TensorProto DataType's name (the version's attribute_values), 6 and later the
# enum's integer. Its row is its own (the calls differ): the designed product and a rank sweep there too.
def test_cast_1_is_designed_and_spells_to_by_name():
    from onnx import AttributeProto, TensorProto, checker

    from specgen.adapters.onnx_common import model_for_call
    from specgen.runner.call import build_call

    spec = SPECS["cast"]
    v1 = spec.standards["onnx"].version("1")
    cases = select(ALL, Filters(ops=("cast",), kinds=("positive",)))
    pairs = {(c.dtype, c.attributes["to"]) for c in cases if (c.standard, c.version) == ("onnx", "1")
             and "/breakpoints" in c.id}
    assert pairs == {(a, b) for a in v1.dtypes("x") for b in v1.dtypes("y")}
    assert any(c.version == "1" and "/sweep" in c.id for c in cases)
    for version, kind in (("1", AttributeProto.STRING), ("6", AttributeProto.INT)):
        case = next(c for c in cases if (c.standard, c.version) == ("onnx", version) and "/breakpoints" in c.id
                    and c.dtype == "float32" and c.attributes["to"] == "float16")
        call = build_call(case, case.load(), spec, ["x"], ["y"])
        model, _, _ = model_for_call(call, concrete=True)
        (attr,) = model.graph.node[0].attribute
        assert attr.name == "to" and attr.type == kind
        value = attr.s.decode() if kind == AttributeProto.STRING else attr.i
        assert value == ("FLOAT16" if version == "1" else TensorProto.FLOAT16)
        checker.check_model(model, full_check=version != "1")  # Cast-1 has no shape inference to check with


def test_cast_1_validation_takes_its_own_spelling():
    from pathlib import Path

    from specgen.generate.tree import import_generated

    validate = import_generated(Path(__file__).resolve().parent.parent / "generated", "validate", "cast").validate
    tensors = {"x": {"dtype": "float32", "sizes": [2]}, "y": {"dtype": "int32", "sizes": [2]}}
    assert validate("onnx", "1", tensors, {"to": "INT32"}) == []
    assert validate("onnx", "6", tensors, {"to": 6}) == []
    assert validate("onnx", "1", tensors, {"to": 6}) != []  # the integer is 6's spelling, not 1's
