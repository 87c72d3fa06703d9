"""Fake adapters for the binary arithmetic family (issue 23): Div, Mod and Pow computed the way a
backend would, each class wrong in exactly one way or deliberately correct. The kernel comes from
the case's own formula (the spec resolved with the call's attributes: Mod's sign_of picks fmod or
floor_mod), so the kernels name no operator."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from specgen.adapters.base import Adapter, Claim

OPS = ("div", "mod", "power")


def _formula(call) -> str:
    """The formula this call computes ('a / b', 'fmod(a, b)', 'floor_mod(a, b)', 'pow(a, b)')."""
    plain, _ = call.spec.resolve(call.attributes, call.standard)
    return plain.formula_text


def _objects(a, b):
    shape = np.broadcast_shapes(a.shape, b.shape)
    return (np.broadcast_to(a, shape).astype(object), np.broadcast_to(b, shape).astype(object))


def _integer(f, a, b, dtype):
    """An integer kernel on Python ints (no overflow of its own), cast back to the tensor type."""
    x, y = _objects(a, b)
    return np.frompyfunc(f, 2, 1)(x, y).astype(dtype)


def _trunc_div(x, y):
    return int(Fraction(int(x), int(y)))  # int() truncates toward zero


class CorrectArith(Adapter):
    """Correct: integer Div truncates, Mod's two remainders as numpy's fmod (the dividend's sign) and
    mod (the divisor's), Pow in float64 rounded once (C99 Annex F: pow(0, 0) = 1)."""

    description = "fake: binary arithmetic, correct"

    def claims(self):
        return [Claim(op=op, standard="onnx", dtypes=("float32", "float16", "int32", "int64"))
                for op in OPS if op in self.specs]

    def integer_div(self, x, y):
        return _trunc_div(x, y)

    def remainder(self, formula: str):
        return np.fmod if formula.startswith("fmod") else np.mod

    def power(self, a, b):
        return np.power(a, b)

    def run(self, call):
        a, b = (np.asarray(v) for v in call.inputs.values())
        formula = _formula(call)
        dtype = a.dtype
        with np.errstate(all="ignore"):
            if formula == "a / b":
                if dtype.kind in "iu":
                    return _integer(self.integer_div, a, b, dtype)
                return (a / b).astype(dtype)
            if formula.startswith(("fmod", "floor_mod")):
                return self.remainder(formula)(a, b).astype(dtype)
            if formula.startswith("pow"):
                if dtype.kind in "iu":
                    return _integer(lambda x, y: int(Fraction(int(x)) ** int(y)), a, b, dtype)
                return self.power(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
        raise NotImplementedError(formula)  # pragma: no cover


class FlooringIntegerDiv(CorrectArith):
    """Integer Div as Python's and numpy's //: floors (-1 / 3 = -1) where ONNX truncates (0)."""

    def integer_div(self, x, y):
        return int(x) // int(y)


class ModWithTheWrongSign(CorrectArith):
    """Mod's remainders swapped: fmod's (the dividend's sign) for fmod = 0, Python's % for fmod = 1."""

    def remainder(self, formula: str):
        return np.mod if formula.startswith("fmod") else np.fmod


class PowZeroToZeroIsNaN(CorrectArith):
    """pow(0, 0) = NaN (0 ** 0 read as 0 ** 0 = exp(0 * log 0)), where C99 Annex F says 1."""

    def power(self, a, b):
        return np.where((a == 0) & (b == 0), np.nan, np.power(a, b))
