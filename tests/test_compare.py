"""specgen.numerics.compare: the contract of docs/ARCHITECTURE.md, special values, integers, speed."""
from __future__ import annotations

import dataclasses
import json
import re
import warnings

import ml_dtypes
import numpy as np
import pytest

from specgen.numerics import ulp as U
from specgen.numerics.compare import MAX_FIRST, compare, resolve_attributes
from specgen.spec.loader import load_all
from specgen.spec.model import Tolerance

SPECS = load_all()
HS, SS, SH = SPECS["hard_sigmoid"], SPECS["softsign"], SPECS["shrink"]
F32 = np.float32


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def hs(x, a=0.2, b=0.5, dtype=np.float32):
    a, b = float(F32(a)), float(F32(b))
    return U.round_to(np.maximum(0, np.minimum(a * np.asarray(x, np.float64) + b, 1)), U.fmt(dtype).name)


def ss(x, dtype=np.float32):
    x = np.asarray(x).astype(np.float64)
    return U.round_to(x / (1 + np.abs(x)), U.fmt(dtype).name)


def with_special(spec, category, *outcomes):
    sv = dataclasses.replace(spec.special_values[category], default=tuple(outcomes), per_standard={})
    return dataclasses.replace(spec, special_values={**spec.special_values, category: sv})


def with_tolerance(spec, dtype, metric, value=None):
    tol = Tolerance(dtype, metric, value, None, "test")
    return dataclasses.replace(spec, tolerance={**spec.tolerance, dtype: tol})


# ----------------------------------------------------------------------------- the contract

def test_a_passing_comparison():
    x = np.linspace(-4, 4, 24, dtype=np.float32).reshape(2, 3, 4)
    y = hs(x)
    c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.2, "beta": 0.5}, y, y.copy(), fast=False)
    assert c.ok and c.total == 24 and c.mismatches == 0 and c.kind is None and c.first == []
    assert c.worst is not None and c.worst.error_ulps <= c.worst.bound_ulps
    assert "24 elements within the model bound" in c.summary()
    assert c.summary().endswith("[hard_sigmoid(alpha=0.200000003, beta=0.5) float32 (2, 3, 4)]")
    # the fast path: every element is the golden value, nothing else to judge
    c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.2, "beta": 0.5}, y, y.copy())
    assert c.ok and c.total == 24 and c.golden_equal == 24 and c.worst is None
    assert c.summary() == ("24 elements equal to the correctly rounded golden value "
                           "[hard_sigmoid(alpha=0.200000003, beta=0.5) float32 (2, 3, 4)]")
    other = y.copy()
    other.reshape(-1)[5] = U.next_up(other.reshape(-1)[5:6])[0]  # one ULP off: judged by the model
    c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.2, "beta": 0.5}, y, other)
    assert c.golden_equal == 23 and c.total == 24
    assert c.ok == compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.2, "beta": 0.5}, y, other, fast=False).ok


def test_a_failing_comparison_names_the_worst_element_in_decimal_and_hex():
    x = np.linspace(-2, 2, 4000, dtype=np.float32)
    y = hs(x)
    bad = y.copy()
    bad[[2605, 2617, 3000]] = U.next_up(U.next_up(U.next_up(y[[2605, 2617, 3000]])))  # three ULP up
    bad[2500] = np.float32(0.9)  # far off
    c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.2, "beta": 0.5}, y, bad)
    assert not c.ok and c.mismatches == 4 and c.kind == "value" and c.kinds == {"value": 4}
    w = c.worst
    assert w.index == (2500,)
    assert w.input == {"decimal": U.decimal(x[2500], "float32"), "hex": U.hex_bits(x[2500], "float32")}
    assert w.actual == {"decimal": "0.9", "hex": "0x3f666666"}
    assert w.expected["hex"] == U.hex_bits(y[2500], "float32")
    assert w.error_ulps > w.bound_ulps
    assert [e.index for e in c.first] == [(2500,), (2605,), (2617,), (3000,)]
    s = c.summary()
    assert "\n" not in s
    assert re.search(r"got 0\.9 \(0x3f666666\), expected \S+ \(0x[0-9a-f]{8}\), error [\d,.e+]+ ULP > bound", s), s
    assert s.endswith("[hard_sigmoid(alpha=0.200000003, beta=0.5) float32 (4000,)]")
    data = c.to_json()
    json.dumps(data, allow_nan=False)
    assert data["worst"]["index"] == [2500] and len(data["first"]) == 4 and data["summary"] == s


def test_first_is_capped_and_in_index_order():
    x = np.linspace(0.1, 3, 500, dtype=np.float32)
    y = ss(x)
    c = compare(SS, "onnx", "float32", {"x": x}, {}, y, -y)
    assert c.mismatches == 500 and len(c.first) == MAX_FIRST
    assert [e.index[0] for e in c.first] == list(range(MAX_FIRST))


@pytest.mark.parametrize("actual, kind", [
    (np.zeros((3, 4), np.float32), "shape"),
    (np.zeros((2, 3, 4), np.float16), "dtype"),
    (np.zeros((2, 3, 4), np.float64), "dtype"),
])
def test_wrong_shape_or_dtype_is_an_error_kind_not_a_crash(actual, kind):
    x = np.zeros((2, 3, 4), np.float32)
    c = compare(HS, "onnx", "float32", {"x": x}, {}, hs(x), actual)
    assert not c.ok and c.kind == kind and c.mismatches == 24
    assert kind in c.summary() and "hard_sigmoid" in c.summary()
    json.dumps(c.to_json(), allow_nan=False)


def test_more_than_65536_elements_compare_in_one_vectorised_call():
    # Correctness at size only; speed is measured in benchmarks/bench_compare.py, never asserted here.
    x = np.random.default_rng(0).uniform(-6, 6, 1 << 18).astype(np.float32)
    y = hs(x)
    c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.2, "beta": 0.5}, y, y)
    s = ss(x)
    c2 = compare(SS, "onnx", "float32", {"x": x}, {}, s, s)
    assert c.ok and c2.ok and c.total == c2.total == 1 << 18
    bad = s.copy()
    bad[200_000] = np.nextafter(np.nextafter(np.nextafter(bad[200_000], np.float32(2)), np.float32(2)), np.float32(2))
    c3 = compare(SS, "onnx", "float32", {"x": x}, {}, s, bad)
    assert not c3.ok and c3.mismatches == 1


def test_rank0_and_bfloat16():
    x = np.array(-1.5, dtype=ml_dtypes.bfloat16)
    y = ss(x, ml_dtypes.bfloat16)
    assert y.shape == () and float(y) == -0.6015625
    c = compare(SS, "onnx", "bfloat16", {"x": x}, {}, y, y)
    assert c.ok and c.total == 1
    off = U.next_down(U.next_down(y, "bfloat16"), "bfloat16")
    c = compare(SS, "onnx", "bfloat16", {"x": x}, {}, y, off)
    assert not c.ok and c.worst.actual["hex"] == U.hex_bits(off, "bfloat16") and len(c.worst.actual["hex"]) == 6


def test_a_failure_where_the_bound_is_unbounded_does_not_read_inf_greater_than_inf():
    # Selu with gamma = FLT_MAX overflows at x = 2: the accepted interval runs to +inf, so there is no
    # finite ULP bound; -inf used to read "error inf ULP > bound inf ULP" (issue 24 item 8)
    sel, big = SPECS["selu"], float(np.finfo(np.float32).max)
    c = compare(sel, "onnx", "float32", {"x": np.array([2.0], F32)}, {"alpha": 1.67, "gamma": big},
                np.array([np.inf], F32), np.array([-np.inf], F32), fast=False)
    assert not c.ok and c.kind == "value"
    assert "bound inf" not in c.summary()
    assert "error inf ULP, outside the accepted interval, which is unbounded on one side" in c.summary()


# ----------------------------------------------------------------------------- attributes

def test_attributes_by_either_name_and_defaults():
    assert resolve_attributes(SH, "onnx", {"lambd": 0.7, "bias": 0.25}) == {"threshold": float(F32(0.7)), "bias": 0.25}
    assert resolve_attributes(SH, "onnx", {}) == {"bias": 0.0, "threshold": 0.5}
    assert resolve_attributes(HS, "onnx", {"consumed_inputs": [1], "beta": 0.25}) == {"alpha": float(F32(0.2)), "beta": 0.25}
    assert resolve_attributes(HS, "onnx", {}) == {"alpha": float(F32(0.2)), "beta": 0.5}
    assert resolve_attributes(HS, "directml", {"alpha": 0.25}) == {"alpha": 0.25, "beta": 0.5}
    with pytest.raises(KeyError, match="alpha"):
        resolve_attributes(HS, "onednn", {"beta": 0.5})


# ----------------------------------------------------------------------------- special values

def test_hard_sigmoid_nan_is_unspecified_and_only_noted():
    x = np.array([np.nan, 1.0], np.float32)
    for got in (np.nan, 1.0, 0.0):
        c = compare(HS, "onnx", "float32", {"x": x}, {}, hs(x), np.array([got, hs(x)[1]], np.float32))
        assert c.ok
        assert any("NaN input" in n and "unspecified" in n for n in c.notes)


def test_infinite_inputs_formula_or_limit():
    x = np.array([np.inf, -np.inf], np.float32)
    c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.2, "beta": 0.5}, np.array([1, 0], np.float32),
                np.array([1, 0], np.float32))
    assert c.ok
    # alpha = 0: the literal formula gives 0*inf = NaN, the limit clamp(beta, 0, 1); both accepted
    for got in ([np.nan, np.nan], [0.5, 0.5], [np.nan, 0.5]):
        c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.0, "beta": 0.5}, np.array([0.5, 0.5], np.float32),
                    np.array(got, np.float32))
        assert c.ok, (got, c.summary())
    c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.0, "beta": 0.5}, np.array([0.5, 0.5], np.float32),
                np.array([0.7, 0.5], np.float32))
    assert not c.ok and c.kind == "value"
    # Softsign(+-inf): the limit +-1 or the literal inf/inf = NaN
    for got in ([1, -1], [np.nan, np.nan]):
        c = compare(SS, "onnx", "float16", {"x": x.astype(np.float16)}, {}, np.array([1, -1], np.float16),
                    np.array(got, np.float16))
        assert c.ok
    c = compare(SS, "onnx", "float16", {"x": x.astype(np.float16)}, {}, np.array([1, -1], np.float16),
                np.array([np.inf, -1], np.float16))
    assert not c.ok and c.kind == "inf-mismatch"


def test_nan_against_number_is_its_own_kind():
    x = np.array([0.5, 2.0], np.float32)
    y = ss(x)
    c = compare(SS, "onnx", "float32", {"x": x}, {}, y, np.array([np.nan, y[1]], np.float32))
    assert not c.ok and c.kind == "nan-mismatch" and c.mismatches == 1
    # NaN where NaN is the only outcome (Softsign's NaN input is 'formula') passes, any NaN payload
    x = np.array([np.nan], np.float32)
    quiet_other = np.array([0xFFC00001], np.uint32).view(np.float32)
    c = compare(SS, "onnx", "float32", {"x": x}, {}, x.copy(), quiet_other)
    assert c.ok
    c = compare(SS, "onnx", "float32", {"x": x}, {}, x.copy(), np.array([0.0], np.float32))
    assert not c.ok and c.kind == "nan-mismatch"


def test_shrink_infinities_and_nan():
    x = np.array([np.inf, -np.inf, np.nan], np.float32)
    want = np.array([np.inf, -np.inf, 0.0], np.float32)
    assert compare(SH, "onnx", "float32", {"x": x}, {"bias": 0.5, "lambd": 1.0}, want, want).ok
    c = compare(SH, "onnx", "float32", {"x": x}, {}, want, np.array([np.inf, -np.inf, np.nan], np.float32))
    assert not c.ok and c.kind == "nan-mismatch"


# ----------------------------------------------------------------------------- signed zero and flush

def test_signed_zero_unspecified_is_noted_formula_is_checked_any_is_ignored():
    x = np.array([-0.0, 0.0, -3.0], np.float32)
    want = ss(x)
    assert np.signbit(want[0])
    plus = np.array([0.0, 0.0, want[2]], np.float32)
    c = compare(SS, "onnx", "float32", {"x": x}, {}, want, plus)
    assert c.ok and any("signed zero" in n for n in c.notes)
    strict = with_special(SS, "signed_zero", "formula")
    c = compare(strict, "onnx", "float32", {"x": x}, {}, want, plus)
    assert not c.ok and c.kind == "signed-zero" and c.mismatches == 1
    assert compare(strict, "onnx", "float32", {"x": x}, {}, want, want).ok
    anyzero = with_special(SS, "signed_zero", "any")
    c = compare(anyzero, "onnx", "float32", {"x": x}, {}, want, plus)
    assert c.ok and not c.notes


def test_flush_allowed_and_preserve():
    tiny = np.array([1e-40, -3e-39, 2.0 ** -126], np.float32)  # two subnormals and the smallest normal
    want = ss(tiny)
    flushed = np.where(np.abs(tiny) < 2.0 ** -126, np.copysign(0, tiny), want).astype(np.float32)
    c = compare(SS, "onnx", "float32", {"x": tiny}, {}, want, flushed)
    assert c.ok, c.summary()
    preserve = with_special(SS, "subnormal", "preserve")
    c = compare(preserve, "onnx", "float32", {"x": tiny}, {}, want, flushed)
    assert not c.ok and c.kind == "flush" and c.mismatches == 2
    # a subnormal input acting as zero: HardSigmoid gives exactly beta instead of alpha * 1e-41 + beta
    x = np.array([1e-41], np.float32)
    want = hs(x, 1e36, 0.125)
    assert want[0] > 0.125
    assert compare(HS, "onnx", "float32", {"x": x}, {"alpha": 1e36, "beta": 0.125}, want,
                   np.array([0.125], np.float32)).ok
    assert not compare(with_special(HS, "subnormal", "preserve"), "onnx", "float32", {"x": x},
                       {"alpha": 1e36, "beta": 0.125}, want, np.array([0.125], np.float32)).ok


# ----------------------------------------------------------------------------- metrics

def test_metrics_exact_ulp_abs():
    x = np.linspace(0.5, 3, 100, dtype=np.float32)
    y = ss(x)
    up2 = U.next_up(U.next_up(y))
    exact = with_tolerance(SS, "float32", "exact")
    assert compare(exact, "onnx", "float32", {"x": x}, {}, y, y).ok
    assert not compare(exact, "onnx", "float32", {"x": x}, {}, y, U.next_up(y)).ok
    assert compare(with_tolerance(SS, "float32", "ulp", 3), "onnx", "float32", {"x": x}, {}, y, up2).ok
    c = compare(with_tolerance(SS, "float32", "ulp", 1), "onnx", "float32", {"x": x}, {}, y, up2)
    assert not c.ok and c.metric == "ulp"
    assert compare(with_tolerance(SS, "float32", "abs", 1e-6), "onnx", "float32", {"x": x}, {}, y, up2).ok
    assert not compare(with_tolerance(SS, "float32", "abs", 1e-8), "onnx", "float32", {"x": x}, {}, y, up2).ok


def test_a_golden_value_outside_the_model_is_noted_and_still_passes():
    x = np.array([1.0], np.float32)
    wrong_golden = np.array([0.75], np.float32)  # Softsign(1) is 0.5
    c = compare(SS, "onnx", "float32", {"x": x}, {}, wrong_golden, wrong_golden, fast=False)
    assert c.ok and any("golden value lies outside" in n for n in c.notes)
    assert compare(SS, "onnx", "float32", {"x": x}, {}, wrong_golden, np.array([0.5], np.float32)).ok


# ----------------------------------------------------------------------------- integers

def test_integer_shrink_truncation_and_rounding_pass():
    x = np.arange(-128, 128, dtype=np.int8)
    bias, thr = 0.5, 1.5
    exact = np.where(x > thr, x - bias, np.where(x < -thr, x + bias, 0.0))
    trunc = np.trunc(exact).astype(np.int8)
    rint = np.rint(exact).astype(np.int8)
    for got in (trunc, rint):
        c = compare(SH, "onnx", "int8", {"x": x}, {"bias": bias, "lambd": thr}, trunc, got)
        assert c.ok, c.summary()
    off = trunc.copy()
    off[200] += 2
    c = compare(SH, "onnx", "int8", {"x": x}, {"bias": bias, "lambd": thr}, trunc, off)
    assert not c.ok and c.mismatches == 1 and c.worst.index == (200,)
    assert c.worst.actual["hex"] == f"0x{int(off[200]) & 0xff:02x}"


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_integer_results_are_exactly_the_listed_roundings(dtype):
    """8 - 3.5 = 4.5: truncation and round-to-nearest-even both give 4, so 5 (half away from zero)
    fails though it is within 1; 9 - 3.5 = 5.5 accepts 5 (truncation) and 6 (nearest even) only."""
    x = np.array([8, 9, -8, -9, 0], dtype)
    attrs = {"bias": 3.5, "threshold": 1.0}
    trunc = np.array([4, 5, -4, -5, 0], dtype)
    rne = np.array([4, 6, -4, -6, 0], dtype)
    for got in (trunc, rne):
        assert compare(SH, "onnx", dtype, {"x": x}, attrs, trunc, got).ok
    for i, wrong in ((0, 5), (1, 4), (1, 7), (2, -5), (3, -4)):
        got = trunc.copy()
        got[i] = wrong
        c = compare(SH, "directml", dtype, {"x": x}, attrs, trunc, got)
        assert not c.ok and c.mismatches == 1 and c.worst.index == (i,), (i, wrong, c.summary())


def test_integer_fast_path_gives_the_full_judgements_verdicts():
    x = np.arange(-128, 128, dtype=np.int8)
    attrs = {"bias": 3.5, "threshold": 1.0}
    trunc = np.trunc(np.where(x > 1, x - 3.5, np.where(x < -1, x + 3.5, 0.0))).astype(np.int8)
    rng = np.random.default_rng(7)
    for trial in range(4):
        got = trunc.copy()
        hit = rng.choice(x.size, size=20, replace=False)
        got[hit] += rng.integers(-2, 3, size=20).astype(np.int8)
        fast = compare(SH, "onnx", "int8", {"x": x}, attrs, trunc, got)
        full = compare(SH, "onnx", "int8", {"x": x}, attrs, trunc, got, fast=False)
        assert (fast.ok, fast.mismatches, fast.kinds) == (full.ok, full.mismatches, full.kinds)
        assert [e.index for e in fast.first] == [e.index for e in full.first]
        assert fast.worst.index == full.worst.index or full.ok


def test_integer_rounding_is_decided_exactly_where_float64_cannot():
    """int64 2**62 + 1 - 0.25: float64 holds neither the input nor the result; truncation gives
    2**62, nearest-even 2**62 + 1; 2**62 - 1 (what a float64 path gives after its own rounding,
    2**62, minus one) is neither."""
    x = np.array([2 ** 62 + 1], np.int64)
    attrs = {"bias": 0.25, "threshold": 0.5}
    for ok in (2 ** 62, 2 ** 62 + 1):
        assert compare(SH, "onnx", "int64", {"x": x}, attrs, x, np.array([ok], np.int64)).ok
    assert not compare(SH, "onnx", "int64", {"x": x}, attrs, x, np.array([2 ** 62 - 1], np.int64)).ok


def test_integer_overflow_is_unspecified_and_noted():
    x = np.array([0, 1, 2, 255], np.uint8)
    c = compare(SH, "onnx", "uint8", {"x": x}, {"bias": 3.0, "threshold": 0.5}, np.zeros(4, np.uint8),
                np.array([0, 254, 255, 252], np.uint8))
    assert c.ok and any("integer overflow" in n for n in c.notes)


def test_int64_beyond_2_53_is_judged_exactly():
    x = np.array([2 ** 62 + 3, -(2 ** 62) - 3, 5], np.int64)
    exact = x.copy()  # bias 0: Shrink is the identity beyond 0.5
    assert compare(SH, "onnx", "int64", {"x": x}, {}, exact, exact.copy()).ok
    via_float64 = x.astype(np.float64).astype(np.int64)  # loses the low bits
    c = compare(SH, "onnx", "int64", {"x": x}, {}, exact, via_float64)
    assert not c.ok and c.mismatches == 2


def test_the_standards_own_formula_is_used():
    """Negative threshold: ONNX tests x < -lambd first (x + bias), DirectML x > threshold first (x - bias)."""
    x = np.array([0.25, -0.25], np.float32)
    attrs = {"bias": 0.5, "threshold": -0.5}
    onnx_y = np.array([0.75, 0.25], np.float32)
    dml_y = np.array([-0.25, -0.75], np.float32)
    assert compare(SH, "onnx", "float32", {"x": x}, attrs, onnx_y, onnx_y).ok
    assert not compare(SH, "onnx", "float32", {"x": x}, attrs, onnx_y, dml_y).ok
    assert compare(SH, "directml", "float32", {"x": x}, attrs, dml_y, dml_y).ok
    assert not compare(SH, "directml", "float32", {"x": x}, attrs, dml_y, onnx_y).ok


@pytest.mark.parametrize("dtype, tiny", [(np.float16, 1e-7), (np.float32, 1e-41)])
def test_rank0_subnormal_input(dtype, tiny):
    x = np.array(tiny, dtype)
    want = ss(x, dtype)
    for got in (want, np.array(0.0, dtype), np.array(-0.0, dtype)):
        c = compare(SS, "onnx", np.dtype(dtype).name, {"x": x}, {}, want, got)
        assert c.ok and (c.worst is None or c.worst.index == ())
    c = compare(SS, "onnx", np.dtype(dtype).name, {"x": x}, {}, want, -want)
    assert not c.ok and c.worst.index == () and c.first[0].index == ()
    c = compare(SH, "onnx", "int8", {"x": np.array(5, np.int8)}, {}, np.array(5, np.int8), np.array(9, np.int8))
    assert not c.ok and c.worst.index == ()


# ----------------------------------------------------------------------------- the error measure

def test_the_error_counts_from_the_golden_value_where_float64_cancels():
    """softplus = log(1 + exp(x)) is 0 in float64 below x = -37, where the exact value is e**x: the
    correctly rounded result measured 1e+16 ULP from that cancelled reference. The measure counts
    from the golden value there, and from the finer float64 evaluation where it is accurate."""
    from specgen.numerics.compare import judge_elements
    from specgen.numerics.exact import golden

    sp = SPECS["softplus"]
    x = np.array([-50.0, -40.0, 0.5, 3.0], dtype=np.float32)
    y = golden(sp, {"x": x}, resolve_attributes(sp, "onnx", {}, "float32"), "float32", "onnx").y
    one_up = U.next_up(y)
    for actual, most in ((y, 0.5), (one_up, 1.5)):
        v = judge_elements(sp, "onnx", "float32", {"x": x}, {}, y, actual)
        assert (v.error <= most).all() and (v.error[:2] >= most - 1).all(), v.error
        c = compare(sp, "onnx", "float32", {"x": x}, {}, y, actual, fast=False)
        assert c.max_error_ulps <= most, c.max_error_ulps
    # where float64 is accurate the measure keeps its finer origin: a result one ULP up measures
    # its distance from the exact value, not exactly 1
    v = judge_elements(sp, "onnx", "float32", {"x": x}, {}, y, one_up)
    assert 0.5 <= v.error[2] <= 1.5 and v.error[2] != 1.0
