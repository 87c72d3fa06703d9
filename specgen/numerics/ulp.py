"""The one home of float arithmetic facts: ULPs, ordering and stepping, and every correct rounding
(exact values and float64 arrays to any dtype, integers by a named mode), vectorised where it can be.
The formats themselves (precision, exponent range, numpy type) are the float rows of
specgen.dtypes.DTYPES; the generator, the error model, compare and the sweeps all use this module.

Definitions (docs/error-model.md; the OpenCL CTS convention):
- ``ulp(r, dtype)``: the spacing of ``dtype`` in the binade of ``|r|`` (``r`` an exact reference
  value, given as float64). Below the normal range it is the subnormal spacing (the "normal ULP
  below the normal range": 2**(emin - precision + 1), the same spacing as the lowest normal binade).
  ``ulp(2**k)`` is the spacing *above* 2**k.
- ``ulp_error(actual, reference, dtype)``: (actual - reference) / ulp(reference), a signed fraction.
- ``ordered(bits)``: float bit patterns mapped to integers in value order (-0 and +0 both 0), so
  that the difference of two ordered values is the number of representable steps between them.
- Rounding exact values to a dtype is done once, round-to-nearest-even: numpy's float64 -> float32
  and float64 -> float16 casts round once (correct); ml_dtypes' float64 -> bfloat16 cast goes
  through float32 and rounds twice (1.00390625 + 2**-40 becomes 1.0, not 1.0078125), so bfloat16
  goes through a round-to-odd float32 step, which makes the second rounding exact (Boldo-Melquiond:
  round-to-odd to >= p + 2 bits, then round-to-nearest, equals one rounding). ml_dtypes' float64 ->
  float8 casts (0.6.0: e4m3fn, e4m3fnuz, e5m2, e5m2fnuz) go through float32 as well and round twice
  (float64 431.99999999999994, just below the midpoint 432 of e4m3fn's 416 and 448, becomes 448, not
  416), so float8 takes the same round-to-odd float32 step; its float32 -> float8 cast rounds once
  (checked against round_fraction on every float8 midpoint and its float32 and float64 neighbours,
  subnormal ties included, and on random values: tests/test_float8.py). An overflow gives the format's own result: inf (e5m2)
  or NaN (formats without infinity: `has_inf`), -0 gives +0 in the fnuz formats (`signed_zero`).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from specgen.dtypes import DTYPES, DType


Format = DType  # a float entry of specgen.dtypes.DTYPES: name, precision, emin, emax, bits, numpy

FORMATS: dict[str, DType] = {name: d for name, d in DTYPES.items() if d.is_float}

INTEGER_ROUNDINGS = ("toward_zero", "nearest_even", "nearest_away", "floor")


def fmt(dtype) -> Format:
    """The Format of a dtype given by canonical name or numpy dtype."""
    if isinstance(dtype, Format):
        return dtype
    if isinstance(dtype, str) and dtype in FORMATS:
        return FORMATS[dtype]
    nd = np.dtype(dtype)
    for f in FORMATS.values():
        if f.numpy == nd:
            return f
    raise KeyError(f"{dtype!r} is not a float dtype specgen knows ({', '.join(FORMATS)})")


def is_float(dtype) -> bool:
    try:
        fmt(dtype)
        return True
    except (KeyError, TypeError):
        return False


# ----------------------------------------------------------------------------- spacing

def ulp(r, dtype) -> np.ndarray:
    """Spacing of ``dtype`` in the binade of ``|r|`` (float64 array); subnormal spacing below the
    normal range and at zero; inf for infinite or NaN ``r``."""
    f = fmt(dtype)
    if f.emin - f.precision + 1 >= -1022:  # every spacing is a normal float64: build it from the bits
        a = np.asarray(r, dtype=np.float64)
        e = (np.array(a, copy=not a.flags.c_contiguous).view(np.uint64) >> np.uint64(52)) & np.uint64(0x7FF)
        biased = np.maximum(e, np.uint64(f.emin + 1023)) - np.uint64(f.precision - 1)
        return np.where(e == 0x7FF, np.inf, (biased << np.uint64(52)).view(np.float64))
    a = np.abs(np.asarray(r, dtype=np.float64))
    with np.errstate(all="ignore"):
        _, e = np.frexp(a)  # a = m * 2**e, m in [0.5, 1)
        exp = np.where(a == 0, f.emin, np.maximum(e.astype(np.int64) - 1, f.emin))
        out = np.ldexp(1.0, (exp - f.precision + 1).astype(np.int32))
    return np.where(np.isfinite(a), out, np.inf)


def half_ulp(r, dtype) -> np.ndarray:
    """Largest round-to-nearest error of any real number whose magnitude is at most ``|r|``
    (0 for r == 0: zero is exact)."""
    a = np.abs(np.asarray(r, dtype=np.float64))
    return np.where(a == 0, 0.0, 0.5 * ulp(a, dtype))


def ulp_error(actual, reference, dtype) -> np.ndarray:
    """Signed fractional error (actual - reference) / ulp(reference) in ULPs of ``dtype``."""
    a = np.asarray(actual).astype(np.float64)
    r = np.asarray(reference, dtype=np.float64)
    with np.errstate(all="ignore"):
        return (a - r) / ulp(r, dtype)


def ulp_error_exact(actual, reference, dtype) -> float:
    """(actual - reference) / ulp(reference) for one element with an exact reference (Fraction,
    mpmath mpf, int or float), computed exactly and rounded to a float at the end. For float64
    outputs, where a float64 reference is not exact enough."""
    f = fmt(dtype)
    ref = reference
    if not isinstance(ref, (int, Fraction, float)):
        ref = _mpf_to_fraction(ref)
    if isinstance(ref, float):
        if not math.isfinite(ref):
            return math.nan
        ref = Fraction(ref)
    a = float(np.asarray(actual).astype(np.float64))
    if not math.isfinite(a):
        return math.copysign(math.inf, a) if not math.isnan(a) else math.nan
    mag = abs(ref)
    e = max(floor_log2(mag), f.emin) if mag != 0 else f.emin
    spacing = Fraction(2) ** (e - f.precision + 1)
    return float((Fraction(a) - ref) / spacing)


# ----------------------------------------------------------------------------- bits and order

def to_bits(values, dtype=None) -> np.ndarray:
    """The bit patterns (unsigned integers) of values of a float dtype."""
    arr = np.asarray(values)
    f = fmt(dtype if dtype is not None else arr.dtype)
    return np.array(arr, dtype=f.numpy, copy=True).view(f.uint)


def from_bits(bits, dtype) -> np.ndarray:
    f = fmt(dtype)
    return np.array(bits, dtype=f.uint, copy=True).view(f.numpy)


def ordered(values, dtype=None) -> np.ndarray:
    """Values mapped to int64 in value order: consecutive representable values differ by 1, -0 and
    +0 both map to 0. NaN maps somewhere beyond inf (callers mask NaN)."""
    arr = np.asarray(values)
    f = fmt(dtype if dtype is not None else arr.dtype)
    bits = to_bits(arr, f)
    sign = np.uint64(1) << np.uint64(f.bits - 1)
    b = bits.astype(np.uint64)
    mag = (b & (sign - np.uint64(1))).astype(np.int64)
    return np.where((b & sign) != 0, -mag, mag)


def ulp_distance(a, b, dtype=None) -> np.ndarray:
    """Number of representable steps between a and b (float64 array; exact below 2**53)."""
    oa = ordered(a, dtype)
    ob = ordered(b, dtype)
    return np.abs(oa.astype(np.float64) - ob.astype(np.float64)) if fmt(
        dtype if dtype is not None else np.asarray(a).dtype).bits == 64 else np.abs(oa - ob).astype(np.float64)


def from_ordered(o, dtype) -> np.ndarray:
    """The inverse of ``ordered`` (0 maps to +0)."""
    f = fmt(dtype)
    o = np.asarray(o, dtype=np.int64)
    if f.bits < 64:
        bits = np.where(o < 0, (-o) | (1 << (f.bits - 1)), o).astype(f.uint)
    else:
        bits = np.where(o < 0, (-o).view(np.uint64) | np.uint64(1 << 63), o.view(np.uint64)).astype(np.uint64)
    return bits.view(f.numpy)


def step(values, k: int, dtype: str) -> np.ndarray:
    """Values moved by k ULPs in ``dtype`` (floats: through the value order, stopping at ±inf;
    integers: k, clipped to the type's range)."""
    d = DTYPES[dtype]
    if not d.is_float:
        lo, hi = d.int_range
        return np.array([min(max(int(v) + k, lo), hi) for v in np.asarray(values).ravel()], dtype=object).astype(d.numpy)
    top = np.inf if d.has_inf else d.max_finite  # a format without infinity stops at its largest finite
    inf_o = int(ordered(np.array([top]).astype(d.numpy), d)[0])
    o = np.clip(ordered(np.asarray(values).astype(d.numpy), d) + k, -inf_o, inf_o)
    return from_ordered(o, d)


def next_up(values, dtype=None) -> np.ndarray:
    """The next representable value of the dtype towards +inf (nextafter), vectorised."""
    return _step(values, dtype, +1)


def next_down(values, dtype=None) -> np.ndarray:
    return _step(values, dtype, -1)


def _step(values, dtype, direction):
    arr = np.asarray(values)
    f = fmt(dtype if dtype is not None else arr.dtype)
    arr = arr.astype(f.numpy)
    if f.name in ("float64", "float32", "float16"):
        with np.errstate(all="ignore"):
            return np.nextafter(arr, f.numpy.type(np.inf * direction))
    o = ordered(arr, f) + direction
    sign = np.int64(1) << np.int64(f.bits - 1)
    bits = np.where(o < 0, (-o) | sign, o).astype(f.uint)
    out = from_bits(bits, f)
    # -0 steps up to the smallest subnormal, like nextafter; inf and NaN stay
    a64 = arr.astype(np.float64)
    fixed = np.where(np.isnan(a64) | (np.isinf(a64) & ((a64 > 0) == (direction > 0))), arr, out)
    return fixed.astype(f.numpy)


def hex_bits(value, dtype) -> str:
    """'0x3c00' for float16 1.0, '0x332ccccd' for float32 4.0163e-08: the bits, zero-padded."""
    f = fmt(dtype)
    b = int(to_bits(np.asarray([value]), f)[0])
    return f"0x{b:0{f.bits // 4}x}"


def decimal(value, dtype) -> str:
    """The value as decimal text: for 16-bit types the exact value (65504, 0.0999755859375), for
    float32/float64 the shortest text that round-trips in the dtype (0.2 for float32 0.2)."""
    f = fmt(dtype)
    with np.errstate(all="ignore"):
        v = np.asarray([value]).astype(f.numpy)[0]
    x = float(v)
    if not math.isfinite(x):
        return str(x)
    if f.bits <= 16:
        text = repr(x)
        return text.removesuffix(".0")
    if x != 0 and not 1e-4 <= abs(x) < 1e16:
        return np.format_float_scientific(v, unique=True, trim="-")
    return np.format_float_positional(v, unique=True, trim="-")


# ----------------------------------------------------------------------------- correct rounding

def _round_to_odd_float32(v: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounded to odd: exact values pass, inexact ones get a sticky last bit."""
    with np.errstate(all="ignore"):
        t = v.astype(np.float32)
        back = t.astype(np.float64)
        inexact = (back != v) & np.isfinite(v) & np.isfinite(back)
        away = inexact & (np.abs(back) > np.abs(v))
        t = np.where(away, np.nextafter(t, np.float32(0)), t).astype(np.float32)
        bits = t.view(np.uint32)
        bits = np.where(inexact, bits | np.uint32(1), bits).astype(np.uint32)
    return bits.view(np.float32)


def canonical_nan(values: np.ndarray) -> np.ndarray:
    """``values`` (a float array, changed in place and returned) with every NaN the dtype's canonical
    quiet NaN (0x7e00, 0x7fc0, 0x7fc00000, 0x7ff8...). A NaN's sign and payload carry no meaning for
    the judge, but they are whatever the libm or the CPU gave (acos(inf) is -NaN with AVX-512 SVML,
    +NaN with glibc; x86 arithmetic gives -NaN for inf - inf): golden values store one NaN so the
    corpus has the same bytes on every machine."""
    with np.errstate(all="ignore"):
        values[np.isnan(values.astype(np.float64))] = np.nan
    return values


def round_to(values, dtype) -> np.ndarray:
    """float64 values (taken as exact) rounded once, to nearest even, to a float dtype (float8: an
    overflow is the format's inf or NaN, has_inf; no -0 in the fnuz formats)."""
    f = fmt(dtype)
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        if f.name == "bfloat16" or f.bits == 8:
            # overflow: float32 round-to-odd keeps huge values finite; bfloat16 RN then overflows
            # exactly where one rounding would (max_finite + half ulp and beyond)
            return _round_to_odd_float32(v).astype(f.numpy)
        return v.astype(f.numpy)


def round_fraction(q, dtype, mode: str = "nearest_even"):
    """An exact value (int, Fraction, float, or mpmath mpf) rounded once to ``dtype``.

    Floats: round-to-nearest-even with gradual underflow and overflow to inf (NaN in a format
    without infinity: float8 e4m3fn and the fnuz formats), returned as a Python float (exact for
    every float dtype); zeros keep the sign of ``q`` (an exact zero gives +0.0: the caller decides
    the sign of exact zeros; a format without -0 gives +0.0). Integers: ``mode`` (INTEGER_ROUNDINGS), an
    int, no saturation here (see ``int_range``)."""
    d = DTYPES[dtype] if isinstance(dtype, str) and dtype in DTYPES else fmt(dtype)
    if not isinstance(q, (int, Fraction, float)):
        q = _mpf_to_fraction(q)
        if isinstance(q, float):  # nan / inf
            return q
    if not d.is_float:
        return round_integer(Fraction(q), mode)
    if isinstance(q, float):
        if math.isinf(q) and not d.has_inf:
            return math.nan
        if not math.isfinite(q) or q == 0:
            return 0.0 if q == 0 and not d.signed_zero else q
        q = Fraction(q)
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    a = abs(q)
    e = max(floor_log2(a), d.emin)
    shift = d.precision - 1 - e  # a * 2**shift has `precision` integer bits (fewer when subnormal)
    num, den = (a.numerator << shift, a.denominator) if shift >= 0 else (a.numerator, a.denominator << -shift)
    m, rem = divmod(num, den)
    if 2 * rem > den or (2 * rem == den and m & 1):
        m += 1
    result = Fraction(m) / Fraction(2) ** shift if shift >= 0 else Fraction(m) * Fraction(2) ** -shift
    if result > Fraction(d.max_finite):
        return sign * math.inf if d.has_inf else math.nan
    if result == 0 and not d.signed_zero:
        return 0.0
    return math.copysign(float(result), sign)


def floor_log2(a: Fraction) -> int:
    """floor(log2(a)) of a positive rational, exactly."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    return e


def round_integer(q: Fraction, mode: str) -> int:
    """An exact value rounded to an integer by ``mode`` (one of INTEGER_ROUNDINGS)."""
    if mode == "toward_zero":
        return int(q)
    if mode == "nearest_even":
        return round(q)
    if mode == "floor":
        return math.floor(q)
    if mode == "nearest_away":
        return int(math.copysign(math.floor(abs(q) + Fraction(1, 2)), q)) if q else 0
    raise ValueError(f"unknown integer rounding mode {mode!r}")


def round_float64_int(v: np.ndarray, mode: str) -> np.ndarray:
    """float64 values rounded to integers (still float64) by ``mode``; monotone non-decreasing."""
    if mode == "toward_zero":
        return np.trunc(v)
    if mode == "nearest_even":
        return np.rint(v)
    if mode == "floor":
        return np.floor(v)
    if mode == "nearest_away":
        big = np.abs(v) >= 2.0 ** 52
        return np.where(big, v, np.copysign(np.floor(np.abs(v) + 0.5), v))
    raise ValueError(f"unknown integer rounding mode {mode!r}")


def int_range(dtype: str) -> tuple[int, int]:
    return DTYPES[dtype].int_range


def _mpf_to_fraction(x):
    """An mpmath number as an exact Fraction (float nan/inf when not finite). Reads mpmath's
    (sign, mantissa, exponent, bits) tuple: ``man_exp`` drops the sign. Values beyond every dtype's
    range are capped at 2**+-1100 (they round to inf or to a zero of their sign anyway), so no
    rational of unbounded size is built."""
    import mpmath

    x = mpmath.mpf(x)
    if mpmath.isnan(x) or mpmath.isinf(x):
        return float(x)
    sign, man, exp, bc = x._mpf_
    if not man:
        return Fraction(0)
    s = -1 if sign else 1
    if exp + bc > 1100:
        return s * Fraction(2) ** 1100
    if exp + bc < -1200:
        return s * Fraction(1, 2 ** 1200)
    return s * (Fraction(int(man)) * Fraction(2) ** int(exp))
