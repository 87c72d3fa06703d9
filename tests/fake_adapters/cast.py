"""Fake adapters for Cast (issue 23): the conversion computed the way a backend would, each class wrong
in exactly one way or deliberately correct. The target type is the case's output dtype (the call's
``to``), so the kernels name no type table of their own."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from specgen.adapters.base import Adapter, Claim

from specgen import dtypes as dt
from specgen.numerics import ulp as U

FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")
FLOATS = ("float64", "float32", "float16", "bfloat16") + FLOAT8


def _odd32(w: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounded to odd: one more rounding to a type of 16 bits or fewer is then one rounding."""
    t = w.astype(np.float32)
    back = t.astype(np.float64)
    inexact = (back != w) & np.isfinite(w)
    t = np.where(inexact & (np.abs(back) > np.abs(w)), np.nextafter(t, np.float32(0)), t)
    bits = np.where(inexact, t.view(np.uint32) | np.uint32(1), t.view(np.uint32)).astype(np.uint32)
    return bits.view(np.float32)


def _odd64(v: float | int) -> float:
    """v rounded toward zero to float64 with the last bit set where inexact (round to odd): one more
    rounding to a narrower type is then the single correct rounding of v."""
    q = Fraction(v)
    f = float(q)
    if Fraction(f) == q:
        return f
    if abs(Fraction(f)) > abs(q):
        f = math.nextafter(f, 0.0)
    return float(np.array([f]).view(np.uint64)[0:1].__or__(np.uint64(1)).view(np.float64)[0])


class CorrectCast(Adapter):
    """Correct: one rounding to nearest even to a float type, truncation toward zero to an integer type
    (any value where the standard leaves it undefined: 0 here), integers wrapped modulo 2**bits, bool
    as nonzero (NaN is nonzero)."""

    description = "fake: Cast, correct"

    def claims(self):
        return [Claim(op="cast", standard="*")] if "cast" in self.specs else []

    saturating = True  # the call's saturate (ONNX 19+, float8 targets only; 1, the default, where not given)

    # -- the parts a wrong kernel replaces
    def saturate(self, w: np.ndarray, out: np.dtype) -> np.ndarray:
        """ONNX saturate = 1 (the default): a float8 target's out-of-range values, +-inf included, to +-max;
        saturate = 0: unchanged (the one rounding then overflows as the format does: NaN, e5m2 +-inf)."""
        if not self.saturating:
            return w
        big = dt.by_numpy(out).max_finite
        return np.clip(w, -big, big)

    def to_float8(self, w: np.ndarray, out: np.dtype) -> np.ndarray:
        """float64 (exact, or rounded to odd) -> float8: saturated, then one rounding to nearest even."""
        return _odd32(self.saturate(w, out)).astype(out)

    def to_float(self, x: np.ndarray, out: np.dtype) -> np.ndarray:
        float8 = dt.by_numpy(out).bits == 8
        if x.dtype.kind in "iub":
            vals = [int(v) for v in x.ravel()]
            if out == np.float64:
                return np.array([float(v) for v in vals], dtype=out).reshape(x.shape)
            w = np.array([_odd64(v) for v in vals], dtype=np.float64).reshape(x.shape)
            return self.to_float8(w, out) if float8 else w.astype(out)
        w = x.astype(np.float64)
        if float8:
            return self.to_float8(w, out)
        if out in (np.float64, np.float32, np.float16) or w.dtype == out:
            return w.astype(out)  # numpy's float64 -> float32 / float16 is one correct rounding
        # bfloat16: round to odd into float32 (ml_dtypes' float64 -> bfloat16 goes through float32 by nearest)
        t = w.astype(np.float32)
        back = t.astype(np.float64)
        inexact = (back != w) & np.isfinite(w)
        t = np.where(inexact & (np.abs(back) > np.abs(w)), np.nextafter(t, np.float32(0)), t)
        bits = np.where(inexact, t.view(np.uint32) | np.uint32(1), t.view(np.uint32)).astype(np.uint32)
        return bits.view(np.float32).astype(out)

    def float_to_int(self, w: np.ndarray) -> np.ndarray:
        return np.trunc(w)

    def int_to_int(self, v: int, lo: int, hi: int) -> int:
        return (v - lo) % (hi - lo + 1) + lo

    def to_bool(self, x: np.ndarray) -> np.ndarray:
        return x != 0

    def run(self, call):
        x = np.asarray(next(iter(call.inputs.values())))
        out = next(iter(call.outputs.values()))
        dtype = dt.get(out.dtype).numpy
        self.saturating = bool(call.attributes.get("saturate", 1))
        with np.errstate(all="ignore"):
            if out.dtype == "bool":
                return self.to_bool(x.astype(np.float64) if x.dtype.kind not in "iub" else x)
            if out.dtype in FLOATS:
                return self.to_float(x, dtype)
            info = np.iinfo(dtype)
            lo, hi = int(info.min), int(info.max)
            if x.dtype.kind in "iub":
                return np.array([self.int_to_int(int(v), lo, hi) for v in x.ravel()], dtype=object) \
                    .astype(dtype).reshape(x.shape)
            t = self.float_to_int(x.astype(np.float64))
            ints = [int(v) if math.isfinite(v) else None for v in t.ravel()]
            vals = [v if v is not None and lo <= v <= hi else 0 for v in ints]  # undefined: any value
            return np.array(vals, dtype=object).astype(dtype).reshape(x.shape)


class NaNToIntMin(CorrectCast):
    """NaN (and every other out-of-range float) to INT_MIN, as x86's cvttss2si gives: ONNX says undefined,
    WebNN implementation-defined, so this passes (the judge accepts any value there)."""

    def run(self, call):
        y = super().run(call)
        x = np.asarray(next(iter(call.inputs.values())))
        out = next(iter(call.outputs.values()))
        if dt.is_float_numpy(x.dtype):
            if out.dtype not in FLOATS and out.dtype != "bool":
                info = np.iinfo(y.dtype)
                out_of_range = [not math.isfinite(v) or not int(info.min) <= int(v) <= int(info.max)
                                for v in np.trunc(x.astype(np.float64)).ravel()]
                y = np.where(np.array(out_of_range).reshape(y.shape), np.array(info.min, dtype=y.dtype), y)
        return y


class NaNToBoolFalse(CorrectCast):
    """To bool as (x < 0) | (x > 0): NaN gives False where ONNX says 'all else to True'."""

    def to_bool(self, x):
        return (x < 0) | (x > 0)


class RoundingToInt(CorrectCast):
    """Float to integer rounded to nearest even (np.rint) where the standards truncate."""

    def float_to_int(self, w):
        return np.rint(w)


class SaturatingIntNarrowing(CorrectCast):
    """Integer narrowing clamped to the target's range where ONNX and WebNN keep the low bits."""

    def int_to_int(self, v, lo, hi):
        return min(max(v, lo), hi)


class DoubleRounding(CorrectCast):
    """Float64 to a 16-bit float through float32: rounded twice (what onnxruntime, torch and
    onnx.reference do, baselines/*.yaml)."""

    def to_float(self, x, out):
        if x.dtype == np.float64 and out != np.float64:
            return x.astype(np.float32).astype(out)
        return super().to_float(x, out)


class IgnoresSaturate(CorrectCast):
    """Float8 targets without ONNX's saturate = 1: an out-of-range value and +-inf overflow as the format
    does (ml_dtypes' non-saturating conversion: e4m3fn and the fnuz types NaN, e5m2 +-inf) where the
    standard gives +-max (right for saturate = 0 only)."""

    def saturate(self, w, out):
        return w


class AlwaysSaturates(CorrectCast):
    """Float8 targets saturated whatever saturate says (a backend without a non-saturating conversion):
    with saturate = 0 an out-of-range value and +-inf give +-max where the standard gives NaN (e5m2 +-inf)
    (right for saturate = 1 only)."""

    def saturate(self, w, out):
        big = dt.by_numpy(out).max_finite
        return np.clip(w, -big, big)


class TruncatingFloat8(CorrectCast):
    """Float8 targets rounded toward zero instead of to nearest even (the result of the correct rounding
    stepped one value toward zero wherever it lies farther from zero than the input)."""

    def to_float8(self, w, out):
        r = super().to_float8(w, out)
        name = dt.by_numpy(out).name
        r64 = r.astype(np.float64)
        s = self.saturate(w, out)
        away = np.isfinite(r64) & np.isfinite(s) & (np.abs(r64) > np.abs(s))
        toward = np.where(r64 > 0, U.next_down(r, name), U.next_up(r, name))
        return np.where(away, toward, r).astype(out)


class Float8ThroughFloat32(CorrectCast):
    """Float64 to a float8 type through float32 by nearest (ml_dtypes' own float64 -> float8 cast): rounded
    twice."""

    def to_float8(self, w, out):
        return self.saturate(w, out).astype(np.float32).astype(out)
