"""Input spaces of a sweep: which value the i-th element of the space is, computed on demand.

A space is a mapping from an index range to input values, so a chunk is generated from its
(lo, hi) alone and nothing the size of the space is ever held:

- ``BitsSpace``: every bit pattern in [lo, hi] of a dtype (the index *is* the bit pattern). All
  2**16 values of float16/bfloat16, all 2**32 of float32, or a small range of float64 bits.
- ``SampleSpace``: a stratified, seeded sample of float64 (or any float dtype too wide to sweep):
  ``per_binade`` values in every (sign, exponent field) stratum, exponents 0 (zero and subnormals)
  and the all-ones exponent (inf and NaN) included. In each stratum element 0 has the smallest
  significand (a power of two, a zero, an infinity), element 1 the largest, the rest are
  splitmix64(seed, index). The sample starts with the formula's breakpoints and their neighbours
  ``neighbours`` ULPs either side (where a kernel that computes in a narrower type takes the
  wrong branch), so that they lead the list of first failures. Same seed, same values, on any
  machine.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specgen import dtypes as dt
from specgen.numerics import ulp as U

_MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _splitmix64(z: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, vectorised over uint64 (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = (z + np.uint64(0x9E3779B97F4A7C15)) & _MASK64
        z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _MASK64
        z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _MASK64
        return z ^ (z >> np.uint64(31))


@dataclass(frozen=True)
class Layout:
    """Bit layout of a float dtype."""

    bits: int
    mant: int  # stored significand bits

    @property
    def exp_bits(self) -> int:
        return self.bits - 1 - self.mant

    @property
    def exp_max(self) -> int:
        return (1 << self.exp_bits) - 1


def layout(dtype: str) -> Layout:
    f = U.fmt(dtype)
    return Layout(f.bits, f.precision - 1)


class BitsSpace:
    """Every bit pattern of ``dtype`` in [start, stop] (inclusive); index = bit pattern."""

    kind = "bits"

    def __init__(self, dtype: str, ranges: list[tuple[int, int]] | None = None):
        self.dtype = dtype
        self.layout = layout(dtype)
        top = (1 << self.layout.bits) - 1
        self.ranges = [(int(a), int(b)) for a, b in (ranges or [(0, top)])]
        for a, b in self.ranges:
            if not 0 <= a <= b <= top:
                raise ValueError(f"range 0x{a:x}:0x{b:x} is not within 0:0x{top:x} for {dtype}")

    def describe(self) -> dict:
        return {"kind": "bits", "dtype": self.dtype,
                "ranges": [[hex(a), hex(b)] for a, b in self.ranges]}

    @property
    def size(self) -> int:
        return sum(b - a + 1 for a, b in self.ranges)

    def bits(self, lo: int, hi: int) -> np.ndarray:
        """Bit patterns (unsigned ints of the dtype's width) of indices lo..hi inclusive."""
        u = np.dtype(f"uint{self.layout.bits}")
        if self.layout.bits == 64:
            return np.arange(lo, hi + 1, dtype=np.uint64)
        return np.arange(lo, hi + 1, dtype=np.int64).astype(u)

    def values(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """(bits, values) of indices lo..hi inclusive."""
        b = self.bits(lo, hi)
        return b, b.view(dt.get(self.dtype).numpy)


class SampleSpace:
    """A stratified seeded sample of a float dtype: first the breakpoints' neighbourhoods
    (``extra``, sorted bit patterns), then ``per_binade`` values in each of the 2 * 2**exp_bits
    (sign, exponent) strata: index len(extra) + j is in stratum j // per_binade."""

    kind = "sample"

    def __init__(self, dtype: str, per_binade: int, seed: int, extra: list[int] | None = None):
        if per_binade < 2:
            raise ValueError("--samples must be at least 2 per binade (the smallest and largest significand)")
        self.dtype = dtype
        self.layout = layout(dtype)
        self.per_binade = int(per_binade)
        self.seed = int(seed)
        self.extra = sorted(set(int(b) for b in (extra or [])))
        self.strata = 2 * (self.layout.exp_max + 1)
        self.ranges = [(0, self.size - 1)]

    def describe(self) -> dict:
        return {"kind": "sample", "dtype": self.dtype, "per_binade": self.per_binade, "seed": self.seed,
                "strata": self.strata, "breakpoint_values": len(self.extra)}

    @property
    def size(self) -> int:
        return self.strata * self.per_binade + len(self.extra)

    def bits(self, lo: int, hi: int) -> np.ndarray:
        L = self.layout
        u = np.dtype(f"uint{L.bits}")
        idx = np.arange(lo, hi + 1, dtype=np.int64)
        n_extra = len(self.extra)
        head = idx[idx < n_extra]
        main = idx[idx >= n_extra] - n_extra
        stratum = main // self.per_binade
        k = main % self.per_binade
        sign = (stratum // (L.exp_max + 1)).astype(np.uint64)
        expo = (stratum % (L.exp_max + 1)).astype(np.uint64)
        mmask = np.uint64((1 << L.mant) - 1)
        rnd = _splitmix64(main.astype(np.uint64) ^ np.uint64(self.seed & 0xFFFFFFFFFFFFFFFF)) & mmask
        mant = np.where(k == 0, np.uint64(0), np.where(k == 1, mmask, rnd))
        out = (sign << np.uint64(L.bits - 1)) | (expo << np.uint64(L.mant)) | mant
        if head.size:
            out = np.concatenate([np.array([self.extra[i] for i in head], dtype=np.uint64), out])
        return out.astype(u)

    def values(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        b = self.bits(lo, hi)
        return b, b.view(dt.get(self.dtype).numpy)


def breakpoint_bits(spec, standard: str, dtype: str, attributes: dict, neighbours: int = 4) -> list[int]:
    """Bit patterns of the formula's breakpoints (HardSigmoid alpha*x+beta = 0 and 1, Shrink
    x = +-threshold) rounded to ``dtype``, with ``neighbours`` ULPs either side."""
    from specgen.formula.breakpoints import analyse

    name = spec.inputs[0].name
    try:
        found = analyse(spec.formula_for(standard), name, attributes).breakpoints
    except Exception:  # noqa: BLE001 - a formula the analysis cannot solve has no breakpoint part
        return []
    npd = dt.get(dtype).numpy
    out: set[int] = set()
    for bp in found:
        centre = np.array([float(bp.value)], dtype=np.float64).astype(npd)
        vals = [centre]
        up = down = centre
        for _ in range(neighbours):
            up, down = U.next_up(up, dtype), U.next_down(down, dtype)
            vals += [up, down]
        for v in vals:
            v = np.asarray(v, dtype=npd)
            if np.all(np.isfinite(v)):
                out.add(int(v.view(f"uint{U.fmt(dtype).bits}")[0]))
    return sorted(out)
