"""The fixed table of functions a formula may call, with a numpy and an mpmath meaning for each.

Adding a function is adding a row here; nothing else in the grammar changes. The table covers
the DirectML activation family (ELU, CELU, GELU, softplus, swish, scaled tanh, mish, ...).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import math

import mpmath
import numpy as np


@dataclass(frozen=True)
class Function:
    name: str
    min_args: int
    max_args: int  # -1: any number >= min_args
    numpy: Callable
    numpy_source: str  # how the reference emitter spells it; {0}, {1}, ... are the arguments
    mpmath: Callable | None
    doc: str
    piecewise: bool = False  # min/max/abs/clamp/where: introduce breakpoints


def _np_min(*a):
    out = a[0]
    for b in a[1:]:
        out = np.minimum(out, b)
    return out


def _np_max(*a):
    out = a[0]
    for b in a[1:]:
        out = np.maximum(out, b)
    return out


_erf_vec = np.vectorize(math.erf, otypes=[np.float64])


def np_erf(x):
    """erf for numpy arrays (numpy has none): math.erf per element in float64, cast back."""
    arr = np.asarray(x)
    out = _erf_vec(arr.astype(np.float64))
    return out.astype(arr.dtype) if arr.dtype.kind == "f" else out


def _mp_where(c, a, b):
    return a if c else b


def _mp_min(*a):
    if any(mpmath.isnan(v) for v in a):
        return mpmath.nan
    return min(a)


def _mp_max(*a):
    if any(mpmath.isnan(v) for v in a):
        return mpmath.nan
    return max(a)


FUNCTIONS: dict[str, Function] = {f.name: f for f in [
    Function("abs", 1, 1, np.abs, "np.abs({0})", abs, "absolute value", piecewise=True),
    Function("min", 2, -1, _np_min, "np.minimum({0}, {1})", _mp_min, "smallest argument; NaN if any is NaN", piecewise=True),
    Function("max", 2, -1, _np_max, "np.maximum({0}, {1})", _mp_max, "largest argument; NaN if any is NaN", piecewise=True),
    Function("clamp", 3, 3, lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
             "np.minimum(np.maximum({0}, {1}), {2})", lambda x, lo, hi: _mp_min(_mp_max(x, lo), hi),
             "clamp(x, lo, hi) = min(max(x, lo), hi)", piecewise=True),
    Function("where", 3, 3, np.where, "np.where({0}, {1}, {2})", _mp_where, "where(cond, a, b): a where cond holds, else b", piecewise=True),
    Function("select", 3, 3, np.where, "np.where({0}, {1}, {2})", _mp_where, "alias of where", piecewise=True),
    Function("exp", 1, 1, np.exp, "np.exp({0})", mpmath.exp, "e to the x"),
    Function("expm1", 1, 1, np.expm1, "np.expm1({0})", mpmath.expm1, "exp(x) - 1 without cancellation"),
    Function("log", 1, 1, np.log, "np.log({0})", mpmath.log, "natural logarithm"),
    Function("log1p", 1, 1, np.log1p, "np.log1p({0})", mpmath.log1p, "log(1 + x) without cancellation"),
    Function("sqrt", 1, 1, np.sqrt, "np.sqrt({0})", mpmath.sqrt, "square root"),
    Function("pow", 2, 2, np.power, "np.power({0}, {1})", mpmath.power, "x to the y"),
    Function("tanh", 1, 1, np.tanh, "np.tanh({0})", mpmath.tanh, "hyperbolic tangent"),
    Function("erf", 1, 1, np_erf, "np_erf({0})", mpmath.erf, "error function"),
    Function("sign", 1, 1, np.sign, "np.sign({0})", mpmath.sign, "-1, 0 or 1", piecewise=True),
]}

CONSTANTS = {"inf": (np.inf, mpmath.inf), "pi": (np.pi, mpmath.pi), "e": (np.e, mpmath.e)}
