"""Input values and attribute sets designed from the spec: breakpoints with their ULP neighbours,
seeded samples per region of the piecewise formula, special values and dtype extremes, and the
threshold crossings of the formula's function calls (specgen.formula.thresholds) with their
neighbours and stratified samples of every region between them.

Randomness comes only from PCG64's raw 64-bit stream seeded by sha256 of the case id, mapped to
values with integer arithmetic here, so the same spec gives the same bytes on any machine and
numpy version.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from specgen import dtypes as dt
from specgen.formula.breakpoints import analyse
from specgen.formula.thresholds import Crossing, crossings
from specgen.numerics.ulp import FORMATS, from_ordered, int_range, round_fraction, step
from specgen.numerics.ulp import ordered as to_ordered
from specgen.vectors import case_seed


class Stream:
    """Deterministic random stream for one case (raw PCG64 output, seeded from the case id)."""

    def __init__(self, case_id: str):
        self._bits = np.random.PCG64(case_seed(case_id))

    def raw(self, count: int) -> np.ndarray:
        return self._bits.random_raw(count).astype(np.uint64)

    def unit(self, count: int) -> np.ndarray:
        """Uniform float64 in [0, 1): 53 random bits each."""
        return (self.raw(count) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53

    def below(self, span: int, count: int) -> np.ndarray:
        """Integers in [0, span) as int64 (span <= 2**62; modulo bias below 2**-2)."""
        span = max(int(span), 1)
        return (self.raw(count) % np.uint64(span)).astype(np.int64)


# ----------------------------------------------------------------------------- value sets

def specials(dtype: str) -> np.ndarray:
    """±0, ±inf, NaN, smallest and largest subnormals, smallest normal, largest finite, ±1."""
    d = dt.get(dtype)
    if not d.is_float:
        lo, hi = int_range(dtype)
        vals = sorted({lo, lo + 1, hi - 1, hi, 0, 1} | ({-1} if lo < 0 else set()))
        return np.array(vals, dtype=object).astype(d.numpy)
    f = FORMATS[dtype]
    mags = [f.min_subnormal, f.min_normal - f.min_subnormal, f.min_normal, f.max_finite, 1.0]
    # a format without infinities or -0 (float8 e4m3fn, the fnuz formats) holds only the values it has
    vals = [0.0] + ([-0.0] if f.signed_zero else []) + ([np.inf, -np.inf] if f.has_inf else []) + [np.nan] \
        + [s * float(m) for m in mags for s in (1.0, -1.0)]
    return np.array(vals, dtype=np.float64).astype(d.numpy)


def neighbourhood(root: Fraction, dtype: str, width: int = 1) -> np.ndarray:
    """The dtype values either side of ``root`` (the root itself when representable) and ``width``
    ULPs beyond them."""
    d = dt.get(dtype)
    if d.is_float:
        f = FORMATS[dtype]
        if abs(root) > Fraction(f.max_finite):
            return np.array([], dtype=d.numpy)
        near = np.array([round_fraction(root, dtype)]).astype(d.numpy)
        nv = Fraction(float(near[0]))
        if nv == root:
            lo = hi = near
        elif nv < root:
            lo, hi = near, step(near, 1, dtype)
        else:
            lo, hi = step(near, -1, dtype), near
        vals = [step(lo, -k, dtype) for k in range(width, 0, -1)] + [lo, hi] + [step(hi, k, dtype) for k in range(1, width + 1)]
        out = np.concatenate(vals)
        if root == 0:
            out = np.concatenate([out, np.array([-0.0]).astype(d.numpy)])
        return out[np.isfinite(out.astype(np.float64))]
    lo_r, hi_r = int_range(dtype)
    fl, ce = math.floor(root), math.ceil(root)
    vals = sorted({v for v in range(fl - width, ce + width + 1) if lo_r <= v <= hi_r})
    return np.array(vals, dtype=object).astype(d.numpy)


def regions(bounds: list[Fraction], dtype: str) -> list[tuple[Fraction | None, Fraction | None]]:
    """Open intervals between sorted breakpoints; None = unbounded."""
    pts = sorted(set(bounds))
    edges = [None] + pts + [None]
    return list(zip(edges[:-1], edges[1:]))


def _dtype_limits(dtype: str) -> tuple[Fraction, Fraction]:
    d = dt.get(dtype)
    if d.is_float:
        m = Fraction(FORMATS[dtype].max_finite)
        return -m, m
    lo, hi = int_range(dtype)
    return Fraction(lo), Fraction(hi)


def region_samples(region, bounds: list[Fraction], dtype: str, count: int, stream: Stream) -> np.ndarray:
    """``count`` values strictly inside ``region``: half spread uniformly over nearby values, half
    uniformly over the dtype's value order (all magnitudes up to the region's far end)."""
    d = dt.get(dtype)
    lo_lim, hi_lim = _dtype_limits(dtype)
    scale = max([Fraction(1)] + [abs(b) for b in bounds])
    lo, hi = region
    near_lo = lo if lo is not None else (hi - 4 * scale if hi is not None else -4 * scale)
    near_hi = hi if hi is not None else (lo + 4 * scale if lo is not None else 4 * scale)
    near_lo, near_hi = max(near_lo, lo_lim), min(near_hi, hi_lim)
    far_lo = lo if lo is not None else lo_lim
    far_hi = hi if hi is not None else hi_lim
    far_lo, far_hi = max(far_lo, lo_lim), min(far_hi, hi_lim)
    n_near = count - count // 2
    out = []
    if d.is_float:
        u = stream.unit(n_near)
        if far_lo > hi_lim or far_hi < lo_lim:  # beyond the dtype's range (a huge attribute): none
            stream.raw(count - n_near)  # drawn all the same, so later draws do not depend on it
            return np.array([], dtype=d.numpy)
        a, b = float(near_lo), float(near_hi)
        with np.errstate(over="ignore"):  # a region reaching the largest finite value: inf, dropped below
            out.append((a + u * (b - a)).astype(d.numpy))
        o_lo = int(to_ordered(np.array([float(far_lo)]).astype(d.numpy), dtype)[0])
        o_hi = int(to_ordered(np.array([float(far_hi)]).astype(d.numpy), dtype)[0])
        o = o_lo + stream.below(o_hi - o_lo + 1, count - n_near)
        out.append(from_ordered(o, dtype))
        vals = np.concatenate(out)
        v64 = vals.astype(np.float64)
        inside = np.ones(len(vals), dtype=bool)
        if lo is not None:
            inside &= v64 > float(lo) if Fraction(float(lo)) == lo else v64 >= float(lo)
        if hi is not None:
            inside &= v64 < float(hi) if Fraction(float(hi)) == hi else v64 <= float(hi)
        return vals[inside & np.isfinite(v64)]
    i_lo = math.floor(near_lo) + (1 if lo is not None and Fraction(math.floor(near_lo)) == lo else 0)
    i_hi = math.ceil(near_hi) - (1 if hi is not None and Fraction(math.ceil(near_hi)) == hi else 0)
    f_lo = math.floor(far_lo) + (1 if lo is not None and Fraction(math.floor(far_lo)) == lo else 0)
    f_hi = math.ceil(far_hi) - (1 if hi is not None and Fraction(math.ceil(far_hi)) == hi else 0)
    f_lo, f_hi = max(f_lo, int(lo_lim)), min(f_hi, int(hi_lim))
    i_lo, i_hi = max(i_lo, f_lo), min(i_hi, f_hi)
    if i_lo > i_hi:
        return np.array([], dtype=d.numpy)
    near = [i_lo + _spread(k, i_hi - i_lo + 1) for k in stream.below(1 << 62, n_near)] if i_hi - i_lo + 1 > 1 << 62 \
        else [i_lo + int(k) for k in stream.below(i_hi - i_lo + 1, n_near)]
    far = [f_lo + _spread(k, f_hi - f_lo + 1) for k in stream.below(1 << 62, count - n_near)]
    vals = [v for v in near + far if (lo is None or v > lo) and (hi is None or v < hi)]
    return np.array(vals, dtype=object).astype(d.numpy)


def _spread(k, span: int) -> int:
    """A 62-bit random integer ``k`` mapped onto [0, span) (spans beyond 2**62: a 64-bit type's range)."""
    return (int(k) * span) // (1 << 62)


# ----------------------------------------------------------------------------- per-case value designs

@dataclass
class Design:
    breakpoints: list  # Breakpoint
    unsolved: list[str]
    bounds: list[Fraction]


def analyse_formula(spec, values: dict, var: str | None = None) -> Design:
    """Breakpoints of the operator's formula in input ``var`` (default: the first), every other
    name (attributes, other inputs) held at ``values``."""
    var = var or spec.inputs[0].name
    a = analyse(spec.formula, var, values)
    return Design(a.breakpoints, a.unsolved, a.values)


def breakpoint_values(design: Design, dtype: str) -> np.ndarray:
    d = dt.get(dtype)
    parts = [neighbourhood(b.value, dtype) for b in design.breakpoints]
    parts.append(neighbourhood(Fraction(0), dtype))
    return np.concatenate(parts).astype(d.numpy) if parts else np.array([], dtype=d.numpy)


def region_values(design: Design, dtype: str, per_region: int, stream: Stream) -> np.ndarray:
    """Samples from every region; bounded regions (the formula's interesting middle) get twice as many."""
    parts = []
    for region in regions(design.bounds, dtype):
        bounded = region[0] is not None and region[1] is not None
        parts.append(region_samples(region, design.bounds, dtype, per_region * (2 if bounded else 1), stream))
    return np.concatenate(parts) if parts else np.array([], dtype=dt.get(dtype).numpy)


def region_index(values: np.ndarray, bounds: list[Fraction]) -> np.ndarray:
    """Which region each finite value falls in: 2k for the open region k, 2k+1 for breakpoint k."""
    exact = [Fraction(int(v)) if values.dtype.kind in "iu" else Fraction(float(v)) for v in values]
    out = np.zeros(len(values), dtype=np.int64)
    for i, q in enumerate(exact):
        below = sum(1 for b in bounds if b < q)
        out[i] = 2 * below + (1 if q in bounds else 0)
    return out


# ----------------------------------------------------------------------------- threshold crossings

THRESHOLD_WIDTH = 1  # ULPs beyond the two values either side of a crossing
THRESHOLD_STRATA = 16  # value-uniform strata of a region between two crossings (one seeded sample each)
THRESHOLD_ORDER_STRATA = 4  # strata of every region in the type's value order (log-spaced samples)


def threshold_crossings(spec, standard: str, values: dict, dtype: str, var: str | None = None) -> list[Crossing]:
    """The crossings of the (resolved) operator's formula as ``standard`` defines it, in input
    ``var`` (default: the first) for inputs of ``dtype``, the other names held at ``values``, that
    lie within the type's range."""
    var = var or spec.inputs[0].name
    if not dt.get(dtype).is_float:
        return []
    top = Fraction(FORMATS[dtype].max_finite)
    return [c for c in crossings(spec.formula_for(standard), var, values, dtype) if abs(c.value) <= top]


def threshold_values(found: list[Crossing], dtype: str, stream: Stream) -> np.ndarray:
    """The values either side of every crossing (and THRESHOLD_WIDTH beyond), then per region
    between consecutive crossings (and beyond the outermost, to the type's largest finite value)
    one seeded sample in each of THRESHOLD_STRATA equal slices of a bounded region's values and in
    each of THRESHOLD_ORDER_STRATA equal slices of its span in the type's value order, so every
    stretch of a region wider than 2/THRESHOLD_STRATA of it holds an input (a shortcut's own
    threshold inside a region is caught) and so do its small magnitudes."""
    d = dt.get(dtype)
    parts = [_crossing_neighbours(c.value, dtype) for c in found]
    bounds = sorted({c.value for c in found})
    lo_lim, hi_lim = _dtype_limits(dtype)
    for lo, hi in regions(bounds, dtype):
        parts.append(_stratified(lo if lo is not None else lo_lim, hi if hi is not None else hi_lim,
                                 lo is not None and hi is not None, dtype, stream))
    return np.concatenate(parts).astype(d.numpy) if parts else np.array([], dtype=d.numpy)


@functools.lru_cache(maxsize=8192)
def _crossing_neighbours(value: Fraction, dtype: str) -> np.ndarray:
    """neighbourhood() of a crossing (the same crossings recur in every version of a table)."""
    out = neighbourhood(value, dtype, THRESHOLD_WIDTH)
    out.flags.writeable = False
    return out


def _stratified(lo: Fraction, hi: Fraction, bounded: bool, dtype: str, stream: Stream) -> np.ndarray:
    d = dt.get(dtype)
    a, b = float(lo), float(hi)
    out = []
    if bounded:
        k = np.arange(THRESHOLD_STRATA, dtype=np.float64)
        u = stream.unit(THRESHOLD_STRATA)
        out.append((a + (b - a) * (k + u) / THRESHOLD_STRATA).astype(d.numpy))
    o_lo = int(to_ordered(np.array([a]).astype(d.numpy), dtype)[0])
    o_hi = int(to_ordered(np.array([b]).astype(d.numpy), dtype)[0])
    span = o_hi - o_lo
    picks = [o_lo + (span * j + int(r) % max(span, 1)) // THRESHOLD_ORDER_STRATA
             for j, r in enumerate(stream.below(1 << 62, THRESHOLD_ORDER_STRATA))]
    out.append(from_ordered(np.array(picks, dtype=np.int64), dtype))
    vals = np.concatenate(out)
    v64 = vals.astype(np.float64)
    # strictly inside (lo, hi): a value equal to float(lo) is inside only when lo rounded down to it
    inside = np.isfinite(v64) & ((v64 > a) | ((v64 == a) & (Fraction(a) > lo)))
    inside &= (v64 < b) | ((v64 == b) & (Fraction(b) < hi))
    return vals[inside]


def conversion_values(in_dtype: str, out_dtype: str) -> np.ndarray:
    """Values of ``in_dtype`` at the boundaries of a conversion to ``out_dtype`` (an output whose type
    an attribute names: Cast), each with its ``in_dtype`` neighbours: a float target's largest finite
    and the midpoint past it (where rounding overflows), its smallest normal and subnormal and the
    ties between subnormals, ties next to 1 and past 2**precision (an integer input rounding to even);
    an integer target's limits and one past them, 2**bits (wraps to 0) and halves and fractions near
    zero (truncation, -0.9 to an unsigned type); a bool target's small nonzero values and 256 (nonzero,
    not its low bits). Only values ``in_dtype`` holds; both signs."""
    out = dt.get(out_dtype)
    roots: list[Fraction] = []
    half = Fraction(1, 2)
    if out.is_float:
        f = FORMATS[out_dtype]
        big = Fraction(f.max_finite)
        ulp_max = Fraction(2) ** (f.emax - f.precision + 1)
        sub = Fraction(f.min_subnormal)
        eps = Fraction(2) ** (1 - f.precision)
        roots += [big, big + ulp_max / 2, Fraction(f.min_normal), sub, sub / 2, 3 * sub / 2,
                  Fraction(f.min_normal) - sub / 2, 1 + eps / 2, 1 + 3 * eps / 2,
                  Fraction(2) ** f.precision + 1, Fraction(2) ** f.precision + 3]
    elif out.kind == "bool":
        roots += [half, Fraction(2), Fraction(256), Fraction(1, 1 << 30)]
    else:
        lo, hi = int_range(out_dtype)
        roots += [Fraction(lo), Fraction(hi), Fraction(lo - 1), Fraction(hi + 1), Fraction(hi) + half,
                  Fraction(1 << out.bits), Fraction((1 << out.bits) + 5), half, 9 * half / 5, 3 * half, 5 * half]
    vals = []
    for r in roots:
        for s in (1, -1):
            vals.append(neighbourhood(s * r, in_dtype, 1 if out.is_float else 0).astype(np.float64)
                        if dt.get(in_dtype).is_float else neighbourhood(s * r, in_dtype, 0))
    d = dt.get(in_dtype)
    if not vals:
        return np.array([], dtype=d.numpy)
    return np.concatenate([np.asarray(v, dtype=object if not d.is_float else np.float64) for v in vals]).astype(d.numpy)
