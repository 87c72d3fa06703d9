"""Case bytes: dtype values to and from the corpus's little-endian bytes, and case-id seeds.
Shared by the format module and the recipes (specgen.vectors.recipe) without importing either."""
from __future__ import annotations

import hashlib

import numpy as np

from specgen import dtypes as dt


def case_seed(case_id: str, salt: str = "") -> int:
    """A 64-bit seed derived from a case id (sha256; never Python's salted hash())."""
    return int.from_bytes(hashlib.sha256(f"{salt}{case_id}".encode()).digest()[:8], "little")


def _le(dtype: np.dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    return dtype.newbyteorder("<") if dtype.itemsize > 1 and dtype.kind in "iuf" else dtype


def to_bytes(array: np.ndarray, dtype_name: str) -> bytes:
    d = dt.get(dtype_name)
    arr = np.ascontiguousarray(np.asarray(array, dtype=d.numpy))
    return arr.view(d.uint_view).astype(_le(d.uint_view), copy=False).tobytes()


def from_bytes(data: bytes, dtype_name: str, shape) -> np.ndarray:
    d = dt.get(dtype_name)
    raw = np.frombuffer(data, dtype=_le(d.uint_view)).astype(d.uint_view)
    return raw.view(d.numpy).reshape(tuple(shape))
