"""Generated-on-the-fly cases: a manifest entry that describes its tensors by a recipe instead of
stored bytes (docs/vectors.md, "Recipes"), so that cases of many or large sizes cost no
repository space.

One recipe, ``gather``: element ``i`` of every tensor of a member with ``count`` elements is
element ``index(seed, i) mod n`` of the same tensor of the ``source`` case (a stored case whose
tensors all have ``n`` elements), in row-major order, where ``index`` is SplitMix64 of
``seed + (i + 1) * 0x9E3779B97F4A7C15`` (mod 2**64). A family entry lists several ``counts``;
each is one case, ``<id>-<count>``, of shape ``[1, ..., 1, count]`` with the recipe's ``rank``.
``sha256`` is of every member's bytes in ``counts`` order, each member's tensors in ``stored``
order, as for a stored case. Implemented in a few lines of C from this description.
"""
from __future__ import annotations

import hashlib

import numpy as np

from specgen import dtypes as dt
from specgen.vectors.codec import case_seed, to_bytes

GENERATOR = "gather"
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
CHUNK = 1 << 22  # elements materialised at a time
WRAPS = (2**16,)  # index widths whose wrap-around the seed is chosen to expose


def indices(seed: int, start: int, stop: int, n: int) -> np.ndarray:
    """index(seed, i) mod n for i in [start, stop) (SplitMix64; uint64 arithmetic wraps)."""
    i = np.arange(start, stop, dtype=np.uint64) + np.uint64(1)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + i * GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(n)).astype(np.int64)


def shape_of(count: int, rank: int) -> list[int]:
    return [1] * (rank - 1) + [count] if rank else []


def member(source: dict[str, np.ndarray], seed: int, count: int, rank: int) -> dict[str, np.ndarray]:
    """The tensors of one member, gathered from the source's tensors (same names)."""
    flat = {k: np.ravel(v) for k, v in source.items()}
    n = len(next(iter(flat.values())))
    if any(len(v) != n for v in flat.values()):
        raise ValueError("a gather recipe's source tensors must all have the same number of elements")
    out = {k: np.empty(count, dtype=v.dtype) for k, v in flat.items()}
    for start in range(0, count, CHUNK):
        stop = min(count, start + CHUNK)
        idx = indices(seed, start, stop, n)
        for k, v in flat.items():
            out[k][start:stop] = v[idx]
    return {k: v.reshape(shape_of(count, rank)) for k, v in out.items()}


def digest(source: dict[str, np.ndarray], seed: int, counts, rank: int, dtypes: dict[str, str],
           keep: int | None = None) -> tuple[str, int, dict | None]:
    """(sha256 hex, total bytes) of every member in order, and the tensors of member ``keep``."""
    h = hashlib.sha256()
    total = 0
    kept = None
    for count in counts:
        tensors = member(source, seed, count, rank)
        for name, arr in tensors.items():
            raw = to_bytes(arr, dtypes[name])
            h.update(raw)
            total += len(raw)
        if count == keep:
            kept = tensors
    return h.hexdigest(), total, kept


def exposes_wraps(source: dict[str, np.ndarray], seed: int, counts, output: str, dtype: str) -> bool:
    """Every element past a wrap width W (2**16) differs from element i - W in the output, so a
    kernel whose element index wraps at W gives a wrong element."""
    y = np.ravel(source[output])
    for w in WRAPS:
        for count in counts:
            if count > w:
                hi = y[indices(seed, w, count, len(y))]
                lo = y[indices(seed, 0, count - w, len(y))]
                if not _different(hi, lo).all():
                    return False
    return True


def _different(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise: different values (bits; any NaN equals any NaN)."""
    bits = a.view(np.uint8).reshape(len(a), -1) != b.view(np.uint8).reshape(len(b), -1)
    diff = bits.any(axis=1)
    if dt.is_float_numpy(a.dtype):
        na, nb = np.isnan(a.astype(np.float64)), np.isnan(b.astype(np.float64))
        diff = np.where(na | nb, na != nb, diff)
    return diff


def choose_seed(case_id: str, source: dict[str, np.ndarray], counts, dtypes: dict[str, str], output: str):
    """(seed, sha256, total bytes) for a family: the first seed from the case id's that exposes
    every index wrap its counts cross."""
    seed = case_seed(case_id, "recipe")
    dtype = dtypes[output]
    for _ in range(1000):
        if exposes_wraps(source, seed, counts, output, dtype):
            break
        seed = (seed + 1) % 2**64
    else:
        raise AssertionError(f"{case_id}: no seed in 1000 exposes the index wraps (the source has too few distinct outputs)")
    sha, total, _ = digest(source, seed, counts, len(next(iter(source.values())).shape), dtypes)
    return seed, sha, total
