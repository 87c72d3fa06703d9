"""The tensor element types specgen knows, by canonical name, with their numpy types.

bfloat16 comes from ml_dtypes. Each standard's own spelling of a type (FLOAT32, tensor(float),
f32) lives in specs/_standards.yaml, not here.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class DType:
    name: str
    kind: str  # "float" | "int" | "uint"
    bits: int
    numpy: np.dtype

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def uint_view(self) -> np.dtype:
        """Unsigned integer type of the same width, for bit-level views."""
        return np.dtype(f"uint{self.bits}")


def _d(name: str, kind: str, bits: int, np_type) -> DType:
    return DType(name, kind, bits, np.dtype(np_type))


DTYPES: dict[str, DType] = {
    d.name: d
    for d in [
        _d("float64", "float", 64, np.float64),
        _d("float32", "float", 32, np.float32),
        _d("float16", "float", 16, np.float16),
        _d("bfloat16", "float", 16, ml_dtypes.bfloat16),
        _d("int64", "int", 64, np.int64),
        _d("int32", "int", 32, np.int32),
        _d("int16", "int", 16, np.int16),
        _d("int8", "int", 8, np.int8),
        _d("uint64", "uint", 64, np.uint64),
        _d("uint32", "uint", 32, np.uint32),
        _d("uint16", "uint", 16, np.uint16),
        _d("uint8", "uint", 8, np.uint8),
    ]
}

FLOAT_DTYPES = tuple(n for n, d in DTYPES.items() if d.is_float)


def get(name: str) -> DType:
    try:
        return DTYPES[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r}; known: {', '.join(DTYPES)}") from None


def by_numpy(dtype) -> DType:
    dt = np.dtype(dtype)
    for d in DTYPES.values():
        if d.numpy == dt:
            return d
    raise KeyError(f"numpy dtype {dt} is not a specgen dtype")
