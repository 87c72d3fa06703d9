"""``sum over S of A * B`` for arrays over an index space, through one batched matmul instead of
the product over the whole space (a 1,024 x 1,024 x 1,024 space is 8 GiB in float64)."""
from __future__ import annotations

import numpy as np


def contract(a: np.ndarray, b: np.ndarray, axes) -> np.ndarray:
    """``np.sum(a * b, axis=axes, keepdims=True)`` (a and b broadcast against each other) computed
    as batch x rows x cols matmul; the summation order is BLAS's."""
    ndim = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (ndim - a.ndim) + a.shape)
    b = b.reshape((1,) * (ndim - b.ndim) + b.shape)
    axes = tuple(sorted(ax % ndim for ax in axes))
    k_shape = tuple(max(a.shape[i], b.shape[i]) for i in axes)
    batch, rows, cols = [], [], []
    for i in range(ndim):
        if i in axes:
            continue
        if a.shape[i] > 1 and b.shape[i] == 1:
            rows.append(i)
        elif b.shape[i] > 1 and a.shape[i] == 1:
            cols.append(i)
        else:
            batch.append(i)
    full_k = lambda x: np.broadcast_to(x, tuple(k_shape[axes.index(i)] if i in axes else x.shape[i] for i in range(ndim)))
    a, b = full_k(a), full_k(b)
    bshape = [max(a.shape[i], b.shape[i]) for i in batch]
    kn = int(np.prod(k_shape, dtype=np.int64))
    rn = int(np.prod([a.shape[i] for i in rows], dtype=np.int64))
    cn = int(np.prod([b.shape[i] for i in cols], dtype=np.int64))
    a2 = np.transpose(a, batch + rows + list(axes) + cols).reshape([a.shape[i] for i in batch] + [rn, kn])
    b2 = np.transpose(b, batch + list(axes) + rows + cols).reshape([b.shape[i] for i in batch] + [kn, cn])
    out = np.matmul(a2, b2)  # batch..., rn, cn
    out = out.reshape(bshape + [a.shape[i] for i in rows] + [b.shape[i] for i in cols])
    order = batch + rows + cols
    # back to the space's axis order, the summed axes kept with size 1
    out = np.transpose(out, [order.index(i) for i in sorted(order)])
    shape = [1 if i in axes else out.shape[sorted(order).index(i)] for i in range(ndim)]
    return out.reshape(shape)
