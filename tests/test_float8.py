"""The float8 dtypes (ONNX FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ; ml_dtypes' formats): their
facts where IEEE 754's pattern does not hold, one correct rounding from float64 (ml_dtypes' own float64 -> float8
cast rounds twice), stepping and ordering in formats without infinity or -0."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from specgen import dtypes as dt
from specgen.numerics import ulp as U

FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")


@pytest.mark.parametrize("name", FLOAT8)
def test_the_formats_facts_are_ml_dtypes_limits(name):
    d = dt.get(name)
    info = ml_dtypes.finfo(d.numpy)
    assert d.bits == 8 and d.is_float
    assert d.max_finite == float(info.max)
    assert d.min_normal == float(info.smallest_normal)
    assert d.min_subnormal == float(info.smallest_subnormal)
    assert d.precision == info.nmant + 1
    every = np.arange(256, dtype=np.uint8).view(d.numpy).astype(np.float64)
    assert d.has_inf == bool(np.isinf(every).any())
    assert d.signed_zero == bool(np.signbit(every[every == 0]).any())
    assert int(np.isnan(every).sum()) == {"float8e4m3fn": 2, "float8e5m2": 6}.get(name, 1)
    assert np.isnan(np.array([d.nan_bits], dtype=np.uint8).view(d.numpy).astype(np.float64)[0])


def test_e4m3fn_max_is_not_the_ieee_formula():
    d = dt.get("float8e4m3fn")
    assert d.max_finite == 448.0 and math.ldexp(2 - 2 ** -3, d.emax) == 480.0  # S.1111.111 is its NaN


def _same(a, b) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


def _candidates(d) -> np.ndarray:
    """Every float8 value, every midpoint between neighbours (subnormal ties included), the overflow point,
    each with its float64 and float32 neighbours, and random values of every scale."""
    every = np.arange(256, dtype=np.uint8).view(d.numpy).astype(np.float64)
    fin = np.unique(every[np.isfinite(every)])
    top = d.max_finite + 2.0 ** (d.emax - d.precision + 1) / 2  # where rounding passes the largest finite
    base = np.concatenate([fin, (fin[:-1] + fin[1:]) / 2, [top, -top, 1e300, -1e300, 5e-324, -5e-324, 1e39]])
    with np.errstate(over="ignore"):
        b32 = base.astype(np.float32)
    rng = np.random.default_rng(8)
    return np.concatenate([base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf),
                           np.nextafter(b32, np.float32(np.inf)).astype(np.float64),
                           np.nextafter(b32, np.float32(-np.inf)).astype(np.float64),
                           np.ldexp(rng.random(4000) * 2 - 1, rng.integers(-24, 20, 4000)),
                           [np.nan, np.inf, -np.inf, 0.0, -0.0]])


@pytest.mark.parametrize("name", FLOAT8)
def test_round_to_is_one_correct_rounding(name):
    d = dt.get(name)
    cand = _candidates(d)
    got = U.round_to(cand, name).astype(np.float64)
    bad = [(v, g, U.round_fraction(float(v), name)) for v, g in zip(cand, got)
           if not _same(g, U.round_fraction(float(v), name))]
    assert bad == []


def test_ml_dtypes_float64_to_float8_rounds_twice():
    """Why round_to takes a round-to-odd float32 step: just below the midpoint 432 of e4m3fn's 416 and 448,
    ml_dtypes' cast goes through float32 (432 exactly) and ties to even (448); one rounding gives 416."""
    v = np.nextafter(432.0, 0.0)
    assert float(np.array([v]).astype(ml_dtypes.float8_e4m3fn)[0]) == 448.0  # ml_dtypes 0.6.0
    assert U.round_fraction(v, "float8e4m3fn") == 416.0
    assert float(U.round_to(np.array([v]), "float8e4m3fn")[0]) == 416.0


@pytest.mark.parametrize("name, big, overflow", [("float8e4m3fn", 464.0, math.nan), ("float8e4m3fnuz", 240.0, math.nan),
                                                 ("float8e5m2", 57344.0, math.inf), ("float8e5m2fnuz", 57344.0, math.nan)])
def test_overflow_is_the_formats_own(name, big, overflow):
    """A value rounding past the largest finite is inf where the format has one, else NaN; e4m3fn's 464 (the
    midpoint of 448 and the 480 it does not have) ties to 448, the even one."""
    assert U.round_fraction(big, name) == dt.get(name).max_finite
    assert _same(U.round_fraction(1e6, name), overflow) and _same(U.round_fraction(-1e6, name), -overflow)
    assert _same(U.round_fraction(math.inf, name), math.inf if dt.get(name).has_inf else math.nan)


@pytest.mark.parametrize("name", FLOAT8)
def test_zero_and_stepping(name):
    d = dt.get(name)
    z = U.round_fraction(-0.0, name)
    assert z == 0 and math.copysign(1, z) == (-1.0 if d.signed_zero else 1.0)
    assert U.round_fraction(-d.min_subnormal / 4, name) == 0
    top = np.array([d.max_finite]).astype(d.numpy)
    end = math.inf if d.has_inf else d.max_finite  # a format without infinity stops at its largest finite
    assert float(U.step(top, 3, name)[0]) == end and float(U.step(-top, -3, name)[0]) == -end
    assert float(U.next_up(np.array([0.0]).astype(d.numpy), name)[0]) == d.min_subnormal
    assert float(U.next_down(np.array([0.0]).astype(d.numpy), name)[0]) == -d.min_subnormal
    assert U.hex_bits(1.0, name) == "0x%02x" % int(np.array([1.0]).astype(d.numpy).view(np.uint8)[0])
    assert U.decimal(d.min_subnormal, name) == repr(d.min_subnormal)


@pytest.mark.parametrize("name", FLOAT8)
def test_ulp_and_ordered(name):
    d = dt.get(name)
    every = np.arange(256, dtype=np.uint8).view(d.numpy)
    f = every.astype(np.float64)
    fin = np.isfinite(f)
    o = U.ordered(every[fin], name)
    order = np.argsort(f[fin], kind="stable")
    assert np.all(np.diff(o[order]) >= 0)  # value order (-0 and +0 the same)
    assert float(U.ulp(1.0, name)) == 2.0 ** (1 - d.precision)
    assert float(U.ulp(0.0, name)) == d.min_subnormal


# ONNX Cast's float8 targets through specgen's golden path (the spec's formulas, resolved by `to` and judged
# with saturate): at every float8 value, the midpoints and the overflow points (with their float64 and
# float32 neighbours), saturate = 0 is the one rounding of x and saturate = 1 the one rounding of x clamped
# to +-max, each against exact rational rounding (round_fraction).
def _cast_golden(x: np.ndarray, to: str, saturate: int) -> np.ndarray:
    from specgen.numerics.exact import golden
    from specgen.spec.loader import load_all

    spec, attrs = load_all()["cast"].resolve({"to": to, "saturate": float(saturate)}, "onnx")
    return golden(spec, {"x": x}, attrs, to, "onnx").y.astype(np.float64)


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("saturate", [0, 1])
def test_cast_golden_values_are_one_correct_rounding(name, saturate):
    d = dt.get(name)
    cand = _candidates(d)
    got = _cast_golden(cand, name, saturate)
    big = d.max_finite
    want = [U.round_fraction(float(v) if saturate == 0 or math.isnan(v) else min(max(float(v), -big), big), name)
            for v in cand]
    bad = [(v, g, w) for v, g, w in zip(cand, got, want) if not _same(g, w)]
    assert bad == []


# saturate = 0's overflow points, from the saturate = 0 table ("[x] > FLT_MAX -> NaN", E5M2 "Inf"): the first
# |x| whose rounding to the target's mantissa width passes the largest finite, and whether it is reached at the
# midpoint itself (the midpoint ties to the even one: to FLT_MAX for e4m3fn, whose 448 = 1.110b x 2^8 is even;
# past it for the others, whose largest finite ends in a 1)
@pytest.mark.parametrize("name, midpoint, tie_overflows, overflow",
                         [("float8e4m3fn", 464.0, False, math.nan), ("float8e4m3fnuz", 248.0, True, math.nan),
                          ("float8e5m2", 61440.0, True, math.inf), ("float8e5m2fnuz", 61440.0, True, math.nan)])
def test_saturate_0_overflow_points_are_exact(name, midpoint, tie_overflows, overflow):
    from fractions import Fraction

    d = dt.get(name)
    assert Fraction(midpoint) == Fraction(d.max_finite) + Fraction(2) ** (d.emax - d.precision + 1) / 2
    below, above = math.nextafter(midpoint, 0.0), math.nextafter(midpoint, math.inf)
    x = np.array([below, midpoint, above, -midpoint, math.inf, -math.inf, 1e300])
    got = _cast_golden(x, name, 0)
    at_tie = overflow if tie_overflows else d.max_finite
    want = [d.max_finite, at_tie, overflow, -at_tie if not math.isnan(at_tie) else at_tie,
            overflow, -overflow, overflow]
    assert all(_same(g, w) for g, w in zip(got, want)), (got, want)
    # saturate = 1 gives the largest finite at each of them
    sat = _cast_golden(x, name, 1)
    assert all(_same(g, w) for g, w in zip(sat, [big * s for big, s in [(d.max_finite, 1)] * 3 + [(d.max_finite, -1),
                                                 (d.max_finite, 1), (d.max_finite, -1), (d.max_finite, 1)]])), sat
