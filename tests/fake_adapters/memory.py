"""Fake adapters that compute like a C kernel over raw memory (issue 14): each tensor is the flat
allocation it lies in plus element strides, and each fake is wrong in exactly one way a kernel
gets layouts, aliasing or sizes wrong. The corpus's layout, in-place and size-boundary cases must
catch each; :class:`RawCorrect` must pass them all."""
from __future__ import annotations

import numpy as np

from fake_adapters import Correct, _kernel, _legal
from specgen.adapters.base import Rejected

READABLE = 64  # elements past a tensor's last one a fake may read (the runner's guard holds them)


def _strides(arr) -> list[int]:
    return [s // arr.itemsize for s in arr.strides]


def _flat(arr, extra: int = READABLE) -> np.ndarray:
    """The memory from ``arr``'s first element to ``extra`` past its last (non-negative strides)."""
    extent = 1 + sum((d - 1) * s for d, s in zip(arr.shape, _strides(arr)) if d > 0)
    return np.lib.stride_tricks.as_strided(arr, shape=(extent + extra,), strides=(arr.itemsize,))


def offsets(shape, strides) -> np.ndarray:
    """Element offsets of every logical index, in row-major logical order."""
    idx = np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), dtype=np.int64)
    return (np.asarray(strides, dtype=np.int64)[:, None] * idx).sum(axis=0) if len(shape) else np.zeros(1, np.int64)


class RawCorrect(Correct):
    """Correct: reads x at its strides, writes y at its strides, in place or not."""

    description = "fake: raw-memory kernel, correct"

    def x_offsets(self, call, x) -> np.ndarray:
        return offsets(x.shape, _strides(x))

    def y_offsets(self, call, y) -> np.ndarray:
        return offsets(y.shape, _strides(y))

    def values(self, call, flat_x, offs) -> np.ndarray:
        limit = len(flat_x)
        got = np.full(len(offs), np.nan, dtype=flat_x.dtype)  # past the readable memory: garbage
        ok = (offs >= 0) & (offs < limit)
        got[ok] = flat_x[offs[ok]]
        return got

    def kernel(self, call, xv):
        with np.errstate(all="ignore"):
            return _kernel(call.op, xv, call.attributes, standard=call.standard)

    def store(self, call, flat_y, offs, yv) -> None:
        flat_y[offs] = yv

    def run(self, call):
        if self.validates and not _legal(call):
            raise Rejected("illegal call")
        x = call.x
        y = next(iter(call.out.values()))
        flat_x, flat_y = _flat(x), _flat(y)
        xv = self.values(call, flat_x, self.x_offsets(call, x))
        self.store(call, flat_y, self.y_offsets(call, y), self.kernel(call, xv))
        return None


class WalksMemoryOrder(RawCorrect):
    """Pairs the k-th element of x in memory order with the k-th of y in memory order: right
    whenever x and y are laid out in the same order (dense, padded), wrong when they differ."""

    def x_offsets(self, call, x):
        return np.sort(super().x_offsets(call, x))

    def y_offsets(self, call, y):
        return np.sort(super().y_offsets(call, y))


class IgnoresOuterStride(RawCorrect):
    """Derives dimension 0's stride of x from dimension 1's (stride * size): right when only the
    inner rows are padded, wrong when the outermost dimension is padded too."""

    def x_offsets(self, call, x):
        st = _strides(x)
        if x.ndim >= 2:
            st[0] = st[1] * x.shape[1]
        return offsets(x.shape, st)


class IgnoresZeroStride(RawCorrect):
    """Treats a zero stride of x as "dense" (the row-major stride): reads past a broadcast input."""

    def x_offsets(self, call, x):
        st = _strides(x)
        dense = [int(np.prod(x.shape[i + 1:], dtype=np.int64)) for i in range(x.ndim)]
        return offsets(x.shape, [d if s == 0 else s for s, d in zip(st, dense)])


class InPlaceSkipsFirst(RawCorrect):
    """In place, leaves the first element as it was (a loop that starts at 1)."""

    def store(self, call, flat_y, offs, yv):
        if call.in_place:
            offs, yv = offs[1:], yv[1:]
        super().store(call, flat_y, offs, yv)


class InPlaceSkipsLast(RawCorrect):
    """In place, leaves the last element as it was (a loop that stops one short)."""

    def store(self, call, flat_y, offs, yv):
        if call.in_place:
            offs, yv = offs[:-1], yv[:-1]
        super().store(call, flat_y, offs, yv)


class InPlaceRereadsChunkStarts(RawCorrect):
    """In place with 16-element chunks, the first element of every chunk is read after the
    previous chunk's store has overwritten it (it gets f(f(x)))."""

    def store(self, call, flat_y, offs, yv):
        super().store(call, flat_y, offs, yv)
        if call.in_place:
            starts = offs[::16][1:]
            flat_y[starts] = self.kernel(call, flat_y[starts].copy())


class SkipsTail(RawCorrect):
    """16-element vectors only: the last n % 16 elements are never written."""

    def store(self, call, flat_y, offs, yv):
        n = len(offs) - len(offs) % 16
        super().store(call, flat_y, offs[:n], yv[:n])


class OverrunsTail(RawCorrect):
    """Right values, but the tail is stored as a whole 16-element vector: writes past the end."""

    def store(self, call, flat_y, offs, yv):
        super().store(call, flat_y, offs, yv)
        rest = len(offs) % 16
        if rest and len(offs) >= 2:
            step = offs[-1] - offs[-2]
            past = offs[-1] + step * np.arange(1, 16 - rest + 1)
            flat_y[past] = yv[-1]


class Index16(RawCorrect):
    """Element indices are 16 bits: element i reads x[i mod 2**16]."""

    def x_offsets(self, call, x):
        offs = super().x_offsets(call, x)
        return offs[np.arange(len(offs)) % 2**16]


class IgnoresOutputStrides(RawCorrect):
    """Writes y densely from its first element, whatever its strides (over its gaps)."""

    def y_offsets(self, call, y):
        return np.arange(y.size)


class ScribblesOnInput(RawCorrect):
    """Right output, but uses the input's buffer as scratch space afterwards (not an in-place call)."""

    def run(self, call):
        super().run(call)
        if not call.in_place:
            _flat(call.x, 0)[:] = 0
