"""Bit-level facts about the dtypes: formats, ULP stepping, and correctly rounded conversions.

Everything here is exact: ``round_fraction`` rounds a rational once (round-to-nearest-even for
floats, the named mode for integers); ``round_float64`` rounds exact float64 values once to a
narrower float dtype (bfloat16 through a round-to-odd float32 step, because ml_dtypes' own
float64 -> bfloat16 cast rounds twice, through float32).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from specgen import dtypes as dt


@dataclass(frozen=True)
class FloatFormat:
    precision: int  # significand bits including the implicit one
    emin: int  # exponent of the smallest normal
    emax: int  # exponent of the largest finite

    @property
    def max_finite(self) -> Fraction:
        return Fraction((1 << self.precision) - 1) * Fraction(2) ** (self.emax - self.precision + 1)

    @property
    def min_normal(self) -> Fraction:
        return Fraction(2) ** self.emin

    @property
    def min_subnormal(self) -> Fraction:
        return Fraction(2) ** (self.emin - self.precision + 1)


FORMATS = {
    "float64": FloatFormat(53, -1022, 1023),
    "float32": FloatFormat(24, -126, 127),
    "float16": FloatFormat(11, -14, 15),
    "bfloat16": FloatFormat(8, -126, 127),
}

INTEGER_MODES = ("toward_zero", "nearest_even", "nearest_away", "floor")


def int_range(dtype: str) -> tuple[int, int]:
    d = dt.get(dtype)
    if d.kind == "uint":
        return 0, (1 << d.bits) - 1
    return -(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1


# ----------------------------------------------------------------------------- exact rounding

def _floor_log2(a: Fraction) -> int:
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if (Fraction(2) ** e) > a:
        e -= 1
    return e


def round_fraction(q: Fraction, dtype: str, mode: str = "nearest_even"):
    """``q`` rounded once to ``dtype``: a Python float (exactly representable) or int.

    Floats: round-to-nearest-even with gradual underflow and overflow to inf. Zero results keep
    the sign of ``q`` (an exact zero gives +0.0; the caller decides the sign of exact zeros).
    Integers: ``mode`` (toward_zero, nearest_even, nearest_away, floor); no saturation here.
    """
    if dtype in FORMATS:
        return _round_float(q, FORMATS[dtype])
    return round_integer(q, mode)


def round_integer(q: Fraction, mode: str) -> int:
    if mode == "toward_zero":
        return int(q)
    if mode == "nearest_even":
        return round(q)
    if mode == "floor":
        return math.floor(q)
    if mode == "nearest_away":
        return int(math.copysign(math.floor(abs(q) + Fraction(1, 2)), q)) if q else 0
    raise ValueError(f"unknown integer rounding mode {mode!r}")


def _round_float(q: Fraction, f: FloatFormat) -> float:
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    a = abs(q)
    e = max(_floor_log2(a), f.emin)
    shift = f.precision - 1 - e  # a * 2**shift has `precision` integer bits (fewer when subnormal)
    num, den = (a.numerator << shift, a.denominator) if shift >= 0 else (a.numerator, a.denominator << -shift)
    m, rem = divmod(num, den)
    if 2 * rem > den or (2 * rem == den and m & 1):
        m += 1
    result = Fraction(m) / Fraction(2) ** shift if shift >= 0 else Fraction(m) * Fraction(2) ** -shift
    if result > f.max_finite:
        return sign * math.inf
    return math.copysign(float(result), sign)


# ----------------------------------------------------------------------------- float64 -> narrower, once

def _round_to_odd_float32(v: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounded to odd: exact values pass, inexact ones get a sticky last bit."""
    with np.errstate(all="ignore"):
        t = v.astype(np.float32)
        back = t.astype(np.float64)
        inexact = (back != v) & np.isfinite(v)
        # truncate toward zero where round-to-nearest went away from zero
        away = inexact & (np.abs(back) > np.abs(v))
        t = np.where(away, np.nextafter(t, np.float32(0)), t)
        bits = t.view(np.uint32)
        bits = np.where(inexact, bits | np.uint32(1), bits)
    return bits.astype(np.uint32).view(np.float32)


def round_float64(v, dtype: str) -> np.ndarray:
    """Exact float64 values rounded once (nearest-even) to a float dtype."""
    v = np.asarray(v, dtype=np.float64)
    target = dt.get(dtype).numpy
    with np.errstate(all="ignore"):
        if dtype == "bfloat16":
            return _round_to_odd_float32(v).astype(target)
        return v.astype(target)


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


# ----------------------------------------------------------------------------- ULP stepping

def _ordered(bits: np.ndarray, nbits: int) -> np.ndarray:
    """Float bit patterns -> signed integers in the order of the values (-0 and +0 both 0)."""
    b = bits.astype(np.int64) if nbits < 64 else bits.view(np.int64)
    if nbits < 64:
        sign = (b >> (nbits - 1)) & 1
        mag = b & ((1 << (nbits - 1)) - 1)
        return np.where(sign == 1, -mag, mag)
    neg = b < 0
    mag = b & np.int64(0x7FFFFFFFFFFFFFFF)
    return np.where(neg, -mag, mag)


def _unordered(o: np.ndarray, nbits: int, udtype) -> np.ndarray:
    o = np.asarray(o, dtype=np.int64)
    if nbits < 64:
        out = np.where(o < 0, (-o) | (1 << (nbits - 1)), o)
        return out.astype(udtype)
    out = np.where(o < 0, (-o).view(np.uint64) | np.uint64(1 << 63), o.view(np.uint64))
    return out.astype(np.uint64)


def to_ordered(values, dtype: str) -> np.ndarray:
    d = dt.get(dtype)
    arr = np.asarray(values, dtype=d.numpy)
    return _ordered(arr.view(d.uint_view), d.bits)


def from_ordered(o, dtype: str) -> np.ndarray:
    d = dt.get(dtype)
    return _unordered(o, d.bits, d.uint_view).view(d.numpy)


def step(values, k: int, dtype: str) -> np.ndarray:
    """Values moved by k ULPs in ``dtype`` (floats: through the value order, stopping at ±inf;
    integers: k, clipped to the range)."""
    d = dt.get(dtype)
    if not d.is_float:
        lo, hi = int_range(dtype)
        return np.array([min(max(int(v) + k, lo), hi) for v in np.asarray(values).ravel()], dtype=object).astype(d.numpy)
    o = to_ordered(values, dtype) + k
    inf_o = int(to_ordered(np.array([np.inf]).astype(d.numpy), dtype)[0])
    o = np.clip(o, -inf_o, inf_o)
    return from_ordered(o, dtype)
