"""The one table of tensor element types: canonical name, kind, width, numpy type and, for floats,
the format (precision, exponent range) every numeric module derives its facts from.

bfloat16 and the four float8 formats (ONNX FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ)
come from ml_dtypes. Where a format departs from IEEE 754's pattern the row says so: no infinity
(``has_inf``: e4m3fn and the fnuz formats; the exponent field's top value holds numbers there), no
-0 (``signed_zero``: fnuz, whose 0x80 is its single NaN), a largest finite value below the IEEE
formula's (``max_value``: e4m3fn's 448 = S.1111.110, since S.1111.111 is its NaN), and the NaN
pattern a golden value stores (``nan_bits``). Each standard's own spelling of a type (FLOAT32, tensor(float),
f32) lives in specs/_standards.yaml, not here. Rounding, ULPs, ordering and stepping over these
formats live in one module, specgen.numerics.ulp.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class DType:
    name: str
    kind: str  # "float" | "int" | "uint" | "bool"
    bits: int
    numpy: np.dtype
    precision: int | None = None  # floats: significand bits including the implicit one
    emin: int | None = None  # floats: exponent of the smallest normal
    emax: int | None = None  # floats: exponent of the largest binade
    has_inf: bool = True  # floats: the format has infinities (an overflow rounds to one); else NaN
    signed_zero: bool = True  # floats: -0 exists (fnuz: no, 0x80 is NaN; -0 converts to +0)
    max_value: float | None = None  # floats: the largest finite where it is not IEEE's (e4m3fn: 448)
    nan_bits: int | None = None  # floats: the stored NaN's bits where a format fixes them (float8)

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def uint_view(self) -> np.dtype:
        """Unsigned integer type of the same width, for bit-level views."""
        return np.dtype(f"uint{self.bits}")

    uint = uint_view

    # -- float format facts (exact as Python floats for every format here)
    @property
    def min_normal(self) -> float:
        return math.ldexp(1.0, self.emin)

    @property
    def min_subnormal(self) -> float:
        return math.ldexp(1.0, self.emin - self.precision + 1)

    @property
    def max_finite(self) -> float:
        if self.max_value is not None:
            return self.max_value
        return math.ldexp(2.0 - math.ldexp(1.0, 1 - self.precision), self.emax)

    @property
    def eps(self) -> float:
        """Spacing just above 1."""
        return math.ldexp(1.0, 1 - self.precision)

    # -- integer range
    @property
    def int_range(self) -> tuple[int, int]:
        if self.kind == "bool":
            return 0, 1
        if self.kind == "uint":
            return 0, (1 << self.bits) - 1
        return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1


def _float(name: str, bits: int, np_type, precision: int, emin: int, emax: int, **facts) -> DType:
    return DType(name, "float", bits, np.dtype(np_type), precision, emin, emax, **facts)


def _int(name: str, kind: str, bits: int, np_type) -> DType:
    return DType(name, kind, bits, np.dtype(np_type))


DTYPES: dict[str, DType] = {
    d.name: d
    for d in [
        _float("float64", 64, np.float64, 53, -1022, 1023),
        _float("float32", 32, np.float32, 24, -126, 127),
        _float("float16", 16, np.float16, 11, -14, 15),
        _float("bfloat16", 16, ml_dtypes.bfloat16, 8, -126, 127),
        # float8 (OCP 8-bit floating point, ONNX 1.14+; ml_dtypes.finfo gives the same limits): e4m3fn has no
        # infinity, S.1111.111 is NaN and S.1111.110 = 448 the largest; e5m2 is IEEE-like (inf, NaN, max
        # 57344); the fnuz ("finite, no negative zero") formats have no infinity and no -0, one NaN 0x80,
        # and their exponent bias one more (smallest normal 2**-7 and 2**-15)
        _float("float8e4m3fn", 8, ml_dtypes.float8_e4m3fn, 4, -6, 8, has_inf=False, max_value=448.0, nan_bits=0x7F),
        _float("float8e4m3fnuz", 8, ml_dtypes.float8_e4m3fnuz, 4, -7, 7, has_inf=False, signed_zero=False,
               nan_bits=0x80),
        _float("float8e5m2", 8, ml_dtypes.float8_e5m2, 3, -14, 15, nan_bits=0x7E),
        _float("float8e5m2fnuz", 8, ml_dtypes.float8_e5m2fnuz, 3, -15, 15, has_inf=False, signed_zero=False,
               nan_bits=0x80),
        _int("int64", "int", 64, np.int64),
        _int("int32", "int", 32, np.int32),
        _int("int16", "int", 16, np.int16),
        _int("int8", "int", 8, np.int8),
        _int("uint64", "uint", 64, np.uint64),
        _int("uint32", "uint", 32, np.uint32),
        _int("uint16", "uint", 16, np.uint16),
        _int("uint8", "uint", 8, np.uint8),
        # a truth value (ONNX tensor(bool)): one byte holding 0 or 1; numerics treat it as the
        # integers 0 and 1, its only values
        _int("bool", "bool", 8, np.bool_),
    ]
}

FLOAT_DTYPES = tuple(n for n, d in DTYPES.items() if d.is_float)


# numpy names of the float formats numpy itself does not have (ml_dtypes': kind "V", not "f")
ML_FLOAT_NAMES = frozenset(d.numpy.name for d in DTYPES.values() if d.is_float and d.numpy.kind != "f")


def is_float_numpy(dtype) -> bool:
    """Whether a numpy dtype is a float format: numpy's own (kind "f") or ml_dtypes' (bfloat16, float8)."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype.name in ML_FLOAT_NAMES


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


def cast_value(value: float, dtype: str) -> float:
    """``value`` as a tensor of ``dtype`` holds it: rounded once to nearest even for a float type
    (overflowing to an infinity), truncated towards zero for an integer type (ONNX's CastLike)."""
    d = get(dtype)
    if d.is_float:
        with np.errstate(over="ignore"):
            return float(np.asarray(value, dtype=np.float64).astype(d.numpy))
    return float(math.trunc(value)) if math.isfinite(value) else float(value)
