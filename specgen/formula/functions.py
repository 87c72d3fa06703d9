"""The fixed table of functions a formula may call: one row per function holds everything every
consumer needs, so adding a function is adding a row here (tests/test_function_table.py adds one
and generates, runs and judges an operator that uses it).

A row gives:
- ``numpy``: evaluation on numpy arrays (any float dtype; the reference and compare use it);
- ``numpy_source``: how the generated reference module spells it (``{0}``, ``{1}``: the
  arguments), and ``helper_source``: Python source that spelling needs in that module;
- ``mpmath``: the exact/multi-precision meaning (golden values that float64 cannot settle);
- ``exact``: the rational meaning on Fractions, for functions whose value is rational (min, abs, ...);
- ``interval``: the image of argument intervals [(lo, hi), ...] for the error model, when the
  generic rule does not apply; the generic rule is ``monotone`` ("increasing"/"decreasing" on
  ``domain``; outside it the value is NaN): the image of the endpoints;
- ``ulps``: the error a kernel's implementation may have, in ULPs of the type it computes in, per
  float type (``budget(dtype)``; one number stands for every type; None: exact), see ``BUDGETS``;
  ``libm_rel``: a bound on numpy's own float64 error, relative;
- ``piecewise``: the function switches between branches (breakpoint analysis looks at it);
- ``libm``: the fast path of golden values (specgen.numerics.libm): numpy's implementation per float
  type with the error bound assumed for it (tests/test_libm.py checks every row's bound against
  mpmath), exact points, the range of values, the known sign, and ``slope``, a bound on the
  derivative over an interval that lets tier 0 (specgen.numerics.fast64) carry an argument's error
  through the function at the cost of a few array operations; a function without ``libm`` is settled
  per element in mpmath (slow), one without ``slope`` skips tier 0;
- ``critical``: the arguments where the function's behaviour in a float type changes (exp
  overflows or stops mattering next to 1, tanh saturates, ...), each a predicate on the exact value
  rounded to the type (``Critical``); specgen.formula.critical locates them per type and the corpus
  puts inputs either side of each and in every region between (docs/vectors.md, "thresholds");
- ``rewrites``: identities of real numbers that the golden-value enclosures use instead of a
  cancelling spelling (``1 + erf(u)`` -> ``erfc(-u)``), in the formula language with pattern
  variables u and v; the exact value is the same, the enclosure of the rewritten form is tight.
The printed form is the function's name with its arguments (specgen.render.formula_text).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Callable, Mapping

import mpmath
import numpy as np

from specgen.formula.nodes import Call, walk
from specgen.numerics import erf_ld  # erf and erfc in long double (numpy has neither)

# A bound on numpy's float64 exp/log/tanh/... error relative to the result: numpy's (and glibc's)
# float64 functions are within 1 ULP (2**-52 relative); 2**-50 leaves room for 4 ULP.
LIBM_REL = 2.0 ** -50


@dataclass(frozen=True)
class Libm:
    """The fast golden-value path of a function (specgen.numerics.libm): numpy evaluates it and the
    enclosure widens each value by ``ulps`` ULPs of its type; the function is monotone on ``domain``
    (its row's ``monotone`` says which way)."""

    numpy: dict  # float type (np.float64, np.longdouble) -> vectorised callable
    ulps: dict  # float type -> assumed max error in ULPs of that type (>= 4x the worst measured)
    measured: dict  # float type -> worst ULP error measured (benchmarks/bench_libm.py, 1e6 points)
    domain: tuple[float, float] = (-math.inf, math.inf)  # closed hull of the real domain
    exact: dict = field(default_factory=dict)  # argument -> exact result (rational points)
    range: tuple[float, float] = (-math.inf, math.inf)  # every value lies here (tanh: [-1, 1])
    sign: str | None = None  # "positive" (> 0 everywhere) or "argument" (f(0) = 0, increasing)
    # False: the function is not monotone on its domain (sin, cos, tan, cosh): the fast path encloses
    # its value at exact (point) arguments only; an argument interval goes to mpmath
    # (specgen.numerics.ziv, the row's ``mp_image``)
    monotone: bool = True
    # tier 0 of golden values (specgen.numerics.fast64): slope(v, a, e) bounds |f'| over [a - e, a + e]
    # (float64 arrays; v = numpy's f(a)), so an argument's error e moves the value by at most slope * e;
    # inf or NaN where no bound is known (the element goes to the next tier). None: tier 0 at exact
    # arguments only (an input or attribute, sin(x)), where the call's own error is the whole bound.
    slope: Callable | None = None
    # the double-double tier (specgen.numerics.dd64) at tiny arguments: (polynomial in u, radius, c, k):
    # for |u| <= radius, |f(u) - polynomial| <= c |u|^k. None: the float64 value only.
    small: tuple | None = None


@dataclass(frozen=True)
class Critical:
    """One critical argument of a function: ``test(t, dtype)`` (t an mpmath number, exact) holds on
    one side of the argument and not on the other, on the half-line ``side`` ("+": t > 0, "-": t < 0)."""

    name: str
    meaning: str
    side: str
    test: Callable


def _rn(value, dtype: str) -> float:
    """An exact (mpmath) value rounded once to the float type ``dtype`` (NaN outside the real domain)."""
    from specgen.numerics.ulp import round_fraction
    return math.nan if isinstance(value, mpmath.mpc) else round_fraction(value, dtype)


def _dwarfs_one(value, dtype: str) -> bool:
    """1 is at most half an ULP of ``value`` in ``dtype`` (value >= 2**precision): adding 1 no longer
    changes the value beyond its own rounding."""
    from specgen.numerics.ulp import FORMATS
    return value >= 2 ** FORMATS[dtype].precision


def _below_normal(value, dtype: str) -> bool:
    from specgen.numerics.ulp import FORMATS
    return abs(value) < FORMATS[dtype].min_normal


def _exp_critical() -> tuple[Critical, ...]:
    e = mpmath.exp
    return (Critical("overflow", "exp(t) rounds to inf", "+", lambda t, d: _rn(e(t), d) == math.inf),
            Critical("one-negligible", "exp(t) >= 2^p: next to exp(t) the 1 of 1 + exp(t) is at most half an ULP",
                     "+", lambda t, d: _dwarfs_one(e(t), d)),
            Critical("negligible-next-to-one", "1 + exp(t) rounds to 1: exp(t) no longer matters", "-",
                     lambda t, d: _rn(1 + e(t), d) == 1),
            Critical("subnormal", "exp(t) is below the smallest normal", "-", lambda t, d: _below_normal(e(t), d)),
            Critical("underflow", "exp(t) rounds to 0", "-", lambda t, d: _rn(e(t), d) == 0))


def _linear(f, side: str) -> Critical:
    """Where f(t) (f(0) = 0, f'(0) = 1) stops rounding to t itself."""
    return Critical(f"linear{side}", f"the function rounds to t itself ({'t > 0' if side == '+' else 't < 0'})",
                    side, lambda t, d: _rn(f(t), d) == float(t))


def _saturation(f, side: str, limit: int) -> Critical:
    return Critical(f"saturation{side}", f"the function rounds to its limit {limit}", side,
                    lambda t, d: _rn(f(t), d) == limit)


@dataclass(frozen=True)
class Function:
    name: str
    min_args: int
    max_args: int  # -1: any number >= min_args
    numpy: Callable
    numpy_source: str
    mpmath: Callable | None
    doc: str
    exact: Callable | None = None
    interval: Callable | None = None
    monotone: str | None = None  # "increasing" | "decreasing" on ``domain``
    domain: tuple[float, float] = (-math.inf, math.inf)
    ulps: float | Mapping[str, float] | None = None  # per float type (BUDGET_TYPES), or one for all
    libm_rel: float = LIBM_REL
    piecewise: bool = False  # min/max/abs/clamp/where/sign: introduce breakpoints
    helper_source: str = ""
    libm: Libm | None = None  # the fast golden-value path (None: per element in mpmath)
    rewrites: tuple[tuple[str, str], ...] = ()  # (pattern, replacement) identities for the enclosures
    critical: tuple[Critical, ...] = ()  # arguments where the behaviour in a float type changes
    # A rigorous image of an argument interval at working precision, for a function that is not
    # monotone (sin, cos, tan, cosh): (lo, hi, prec) as mpmath mpf tuples -> (lo, hi); None: the
    # images of the ends (``monotone``) serve (specgen.numerics.ziv)
    mp_image: Callable | None = None
    # The IEEE 754 / C99 Annex F special cases (F.10) as data: argument -> result, both as Python
    # floats ("nan" keys are math.nan); tests/test_function_table.py checks numpy, the golden values
    # and the mpmath meaning against it
    # argument -> result; a function of several arguments gives a tuple of them ((0.0, 0.0) -> 1.0 for pow)
    annex_f: tuple[tuple, ...] = ()
    # a transcendental function's exact value where it is rational (pow at an integer exponent):
    # Fractions -> Fraction, or None where it is not (the value then comes from mpmath)
    exact_at: Callable | None = None
    # a rational function whose numpy value at float64 (or long double) points is its exact value where
    # this mask holds (fmod everywhere: the remainder is representable); the golden values' tier 1 uses it
    float_exact: Callable | None = None

    def budget(self, dtype: str) -> float | None:
        """The accepted error of a kernel's implementation computing in ``dtype``, in ULPs of
        ``dtype`` (None: the function is exact)."""
        if self.ulps is None or isinstance(self.ulps, (int, float)):
            return self.ulps
        return self.ulps[dtype]

    @property
    def rational(self) -> bool:
        """Its value at rational arguments is rational and ``exact`` computes it."""
        return self.exact is not None


# ----------------------------------------------------------------------------- numpy meanings

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


def _per_element(fn, x, low: float, high: float, below: float, above: float):
    """fn (math.erf or math.erfc) on every element of a float64 array, fn's own values bit for bit:
    one Python call per element (no vectorised erf in numpy) but none outside (low, high) and for
    NaN, where every libm (fdlibm's branch: glibc, musl, the BSDs) returns the constant that the
    correctly rounded value is too (below: x <= low; above: x >= high). Sweeps of erf and GELU call
    it several times per element (golden value, reference, error model)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = np.where(x >= high, above, np.where(x <= low, below, x + 0.0))  # NaN: quieted, as fn
        live = np.flatnonzero((x > low) & (x < high))
    if live.size:
        flat = out.reshape(-1)
        flat[live] = np.fromiter(map(fn, x.reshape(-1)[live].tolist()), np.float64, count=live.size)
    return out


# |x| >= 6: erf(x) is within 2.2e-17 of +-1 (fdlibm returns +-(1 - tiny)); erfc(x) for x <= -6 is
# 2 - 2.2e-17 (fdlibm: 2 - tiny), for x >= 28 it is below 1e-342 (fdlibm: tiny * tiny = 0)
def _erf_vec(x):
    return _per_element(math.erf, x, -6.0, 6.0, -1.0, 1.0)


def _erfc_vec(x):
    return _per_element(math.erfc, x, -6.0, 28.0, 2.0, 0.0)


def np_erf(x):
    """erf for numpy arrays (numpy has none): math.erf per element in float64, cast back."""
    arr = np.asarray(x)
    out = _erf_vec(arr.astype(np.float64))
    return out.astype(arr.dtype) if arr.dtype.kind == "f" else out


def np_erfc(x):
    """erfc for numpy arrays: math.erfc per element in float64, cast back."""
    arr = np.asarray(x)
    out = _erfc_vec(arr.astype(np.float64))
    return out.astype(arr.dtype) if arr.dtype.kind == "f" else out


def _erf64(x):
    return _erf_vec(x) if np.size(x) else np.zeros(np.shape(x))


def _erfc64(x):
    return _erfc_vec(x) if np.size(x) else np.zeros(np.shape(x))


_ERFC_HELPER = '''\
import math as _math

_erfc_vec = np.vectorize(_math.erfc, otypes=[np.float64])


def _erfc(x):
    """erfc for numpy arrays (numpy has none): math.erfc per element in float64."""
    return _erfc_vec(np.asarray(x, dtype=np.float64))
'''

_ERF_HELPER = '''\
import math as _math

_erf_vec = np.vectorize(_math.erf, otypes=[np.float64])


def _erf(x):
    """erf for numpy arrays (numpy has none): math.erf per element in float64."""
    return _erf_vec(np.asarray(x, dtype=np.float64))
'''


# ----------------------------------------------------------------------------- mpmath meanings

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


# ----------------------------------------------------------------------------- interval images
# Arguments are (lo, hi) float64 array pairs enclosing each argument; the result encloses every
# value of the function over them (before any rounding the error model adds).

def _iv_min(*vals):
    return _np_min(*[v[0] for v in vals]), _np_min(*[v[1] for v in vals])


def _iv_max(*vals):
    return _np_max(*[v[0] for v in vals]), _np_max(*[v[1] for v in vals])


def _iv_clamp(x, lo, hi):
    return (np.minimum(np.maximum(x[0], lo[0]), hi[0]), np.minimum(np.maximum(x[1], lo[1]), hi[1]))


def _iv_abs(a):
    straddle = (a[0] < 0) & (a[1] > 0)
    lo = np.where(straddle, 0.0, np.minimum(np.abs(a[0]), np.abs(a[1])))
    return lo, np.maximum(np.abs(a[0]), np.abs(a[1]))


def _iv_sign(a):
    return np.sign(a[0]), np.sign(a[1])


def _iv_pow(a, b):
    corners = [np.power(x, y) for x in a for y in b]
    lo, hi = np.minimum.reduce(corners), np.maximum.reduce(corners)
    unsafe = a[0] <= 0  # pow is monotone per argument only for a > 0
    return np.where(unsafe, -np.inf, lo), np.where(unsafe, np.inf, hi)


def _exact_pow(a, b):
    """a ** b exactly where b is an integer and the result has at most about 4096 bits (an integer base
    to an integer exponent: integer pow); None elsewhere. 0 to a negative power raises ZeroDivisionError."""
    if b.denominator != 1:
        return None
    if a == 0 or abs(a) == 1:
        return a ** int(b)
    bits = max(abs(a.numerator).bit_length(), a.denominator.bit_length())
    return a ** int(b) if abs(b) * bits <= 4096 else None


_I = math.inf
# C99 Annex F F.10.4.4, pow(x, y): (x, y) -> result, the sign of a zero or infinity included
_ANNEX_F_POW = (
    ((0.0, 0.0), 1.0), ((-0.0, -0.0), 1.0), ((math.nan, 0.0), 1.0), ((_I, -0.0), 1.0),   # pow(x, +-0) = 1, even NaN
    ((1.0, math.nan), 1.0), ((1.0, _I), 1.0), ((1.0, -_I), 1.0),                          # pow(+1, y) = 1, even NaN
    ((-1.0, _I), 1.0), ((-1.0, -_I), 1.0),                                                # pow(-1, +-inf) = 1
    ((0.0, -3.0), _I), ((-0.0, -3.0), -_I), ((-0.0, -2.0), _I), ((0.0, -0.5), _I), ((-0.0, -_I), _I),
    ((0.0, 3.0), 0.0), ((-0.0, 3.0), -0.0), ((-0.0, 2.0), 0.0), ((-0.0, 0.5), 0.0), ((0.0, _I), 0.0),
    ((-2.0, 0.5), math.nan),                                   # a finite negative base, finite non-integer y
    ((-2.0, 3.0), -8.0), ((-2.0, -1.0), -0.5), ((-2.0, 2.0), 4.0),   # a negative base, integer y
    ((0.5, -_I), _I), ((2.0, -_I), 0.0), ((0.5, _I), 0.0), ((2.0, _I), _I), ((-0.5, _I), 0.0), ((-2.0, -_I), 0.0),
    ((-_I, -3.0), -0.0), ((-_I, -2.0), 0.0), ((-_I, 3.0), -_I), ((-_I, 2.0), _I), ((-_I, 0.5), _I),
    ((_I, -1.0), 0.0), ((_I, 1.0), _I),
    ((math.nan, 1.0), math.nan), ((2.0, math.nan), math.nan))


def _mp_pow(a, b):
    """x to the y in mpmath, bounded: a huge integer exponent (x ** 1e308) is computed as
    exp(y * log|x|) at the working precision instead of by repeated squaring of exact integers."""
    if mpmath.isfinite(b) and abs(b) > 2 ** 64 and mpmath.isfinite(a) and a != 0:
        magnitude = mpmath.exp(b * mpmath.log(abs(a)))
        odd = b == mpmath.floor(b) and int(mpmath.fmod(b, 2)) != 0  # beyond 2**64 every float is even
        return -magnitude if a < 0 and odd else (magnitude if a > 0 or b == mpmath.floor(b) else mpmath.nan)
    return mpmath.power(a, b)


# ----------------------------------------------------------------------------- slopes for tier 0
# Bounds on |f'| over [a - e, a + e], vectorised; v is numpy's f(a) (within the row's ulps). Where e
# is not small the bound is inf (the element goes to tier 1). 1 + 2e bounds exp(e) for e <= 1/2.

def _exp_upper(v, a, e, offset: float = 0.0):
    """A bound on exp(t) + offset over [a - e, a + e]: (|v| + offset) (1 + 2e) where e <= 1/2 (v is
    exp(a) or expm1(a)), exp(a + e) computed where e is larger."""
    out = (np.abs(v) + offset) * (1.0 + 2.0 ** -45) * (1.0 + 2.0 * e)
    wide = np.asarray(e > 0.5)
    if wide.any():
        t = np.broadcast_to(np.asarray(a + e, dtype=np.float64), wide.shape)[wide]
        top = np.exp(t + np.abs(t) * 2.0 ** -50) * (1.0 + 2.0 ** -45)
        out = np.array(np.broadcast_to(out, wide.shape), dtype=np.float64)
        out[wide] = top
    return out


def _slope_exp(v, a, e):
    """exp' = exp."""
    return _exp_upper(v, a, e)


def _slope_expm1(v, a, e):
    """expm1' = exp = expm1 + 1."""
    return _exp_upper(v, a, e, 1.0)


def _lowest_magnitude(a, e):
    """A lower bound on |t| over [a - e, a + e] (0 where the interval holds 0)."""
    return np.maximum((np.abs(a) - e) * (1.0 - 2.0 ** -50), 0.0)


def _slope_tanh(v, a, e):
    """tanh' = sech^2 <= min(1, 4 exp(-2|t|)), plus 2^-1000 for exp's underflow."""
    t = _lowest_magnitude(a, e)
    return np.minimum(1.0, 4.0 * np.exp(-2.0 * t) * (1.0 + 2.0 ** -45)) + 2.0 ** -1000


def _slope_erf(v, a, e):
    """erf' = -erfc' = 2 / sqrt(pi) exp(-t^2) (2 / sqrt(pi) < 1.1284), plus 2^-1000 for exp's underflow."""
    t = _lowest_magnitude(a, e)
    return 1.1284 * np.exp(-(t * t) * (1.0 - 2.0 ** -50)) * (1.0 + 2.0 ** -45) + 2.0 ** -1000


def _slope_reciprocal(shift: float):
    """log (shift 0): 1 / (a - e); log1p (shift 1): 1 / (1 + a - e); inf where that is not positive."""
    def slope(v, a, e):
        low = (a + shift - e) * (1.0 - 2.0 ** -50)
        return np.where(low > 0, 1.0 / np.where(low > 0, low, 1.0), np.inf)
    return slope


def _slope_sqrt(v, a, e):
    low = (a - e) * (1.0 - 2.0 ** -50)
    return np.where(low > 0, 0.5 / np.sqrt(np.where(low > 0, low, 1.0)) * (1.0 + 2.0 ** -50), np.inf)


def _exact_sign(q):
    return Fraction((q > 0) - (q < 0))


_F, _L = np.float64, np.longdouble
_INF = math.inf


def _libm(f64, ld, ulps64, ulps_ld, measured64, measured_ld, **kw) -> Libm:  # noqa: PLR0913
    """numpy's float64 and (where given) x87 long double implementations with their bounds."""
    numpy, ulps, measured = {_F: f64}, {_F: ulps64}, {_F: measured64}
    if ld is not None:
        numpy[_L], ulps[_L], measured[_L] = ld, ulps_ld, measured_ld
    return Libm(numpy, ulps, measured, **kw)


# ----------------------------------------------------------------------------- accuracy budgets per type
# The error a kernel's elementary function may have, in ULPs of the type it computes in, per float
# type (docs/error-model.md, "Function budgets"). Sources: OpenCL-CTS math_brute_force
# function_list.cpp, the float and half limits (exp/expm1/log/log1p 3 / 2, sqrt 3 / 1.5, tanh 5 / 2,
# erf/erfc 16 / 4, pow 16 / 4). float32: the OpenCL float limit, with exp, expm1, log and log1p
# raised from 3 to 4 because numpy 2.4's float32 log, the ONNX reference evaluator's, measures
# 3.4 ULP. float64: OpenCL double uses the float limits; so do we. float16: the OpenCL half limits.
# bfloat16: OpenCL defines none; the half limits (a bfloat16 kernel computing in float32 and
# rounding once is within 0.5 + 16 * 2**-16 bfloat16 ULP of the exact value, well inside them).
BUDGET_TYPES = ("float16", "bfloat16", "float32", "float64")


def _budget(float32: float, half: float) -> Mapping[str, float]:
    """A budget row: ``float32`` for float32 and float64, ``half`` for float16 and bfloat16."""
    return MappingProxyType({"float16": half, "bfloat16": half, "float32": float32, "float64": float32})


BUDGETS = {
    "exp": _budget(4.0, 2.0), "expm1": _budget(4.0, 2.0), "log": _budget(4.0, 2.0), "log1p": _budget(4.0, 2.0),
    "sqrt": _budget(3.0, 1.5), "tanh": _budget(5.0, 2.0), "erf": _budget(16.0, 4.0), "erfc": _budget(16.0, 4.0),
    "pow": _budget(16.0, 4.0),
    # function_list.cpp (KhronosGroup/OpenCL-CTS, commit 04033bf): sin, cos, sinh, cosh, asin, acos,
    # asinh, acosh 4 / 2; tan, atan, atanh 5 / 2 (tan's half limit 2.5 since PR #2707)
    "sin": _budget(4.0, 2.0), "cos": _budget(4.0, 2.0), "tan": _budget(5.0, 2.5),
    "asin": _budget(4.0, 2.0), "acos": _budget(4.0, 2.0), "atan": _budget(5.0, 2.0),
    "sinh": _budget(4.0, 2.0), "cosh": _budget(4.0, 2.0),
    "asinh": _budget(4.0, 2.0), "acosh": _budget(4.0, 2.0), "atanh": _budget(5.0, 2.0),
}


def _exact_fmod(a, b):
    """The remainder of the quotient truncated toward zero (C99 fmod): the sign of a."""
    return a - b * math.trunc(a / b)


def _exact_floor_mod(a, b):
    """The remainder of the quotient rounded toward -inf (Python's %, numpy's mod): the sign of b."""
    return a - b * math.floor(a / b)


_FMOD_HELPER = '''\
def _fmod(a, b):
    """C's fmod (the sign of a); exact on object arrays of Fractions (integer tensors: int() truncates)."""
    if np.asarray(a).dtype == object or np.asarray(b).dtype == object:
        return np.frompyfunc(lambda x, y: x - y * int(x / y), 2, 1)(a, b)
    return np.fmod(a, b)'''


def _iv_points(f, exact_mask=None):
    """The image of point arguments (a non-point interval: unbounded), for rows that are exact at
    points (``exact_mask``: where numpy's float64 value is exact; elsewhere one float64 ULP either side)."""
    def image(*ivs):
        los = [lo for lo, _ in ivs]
        point = np.logical_and.reduce([lo == hi for lo, hi in ivs])
        with np.errstate(all="ignore"):
            v = f(*los)
            if exact_mask is not None:
                loose = ~exact_mask(*los)
                lo_v = np.where(loose, np.nextafter(v, -np.inf), v)
                hi_v = np.where(loose, np.nextafter(v, np.inf), v)
            else:
                lo_v = hi_v = v
        return np.where(point, lo_v, -np.inf), np.where(point, hi_v, np.inf)
    return image


def _floor_mod_exact_mask(a, b):
    """numpy's float mod is fmod (exact) plus b where the signs differ: exact when no addition happens or
    when both are integers below 2^53 (integer inputs)."""
    r = np.fmod(a, b)
    ints = (a == np.trunc(a)) & (b == np.trunc(b)) & (np.abs(a) < 2.0 ** 53) & (np.abs(b) < 2.0 ** 53)
    return (r == 0) | ((r < 0) == (b < 0)) | ints


FUNCTIONS: dict[str, Function] = {f.name: f for f in [
    Function("abs", 1, 1, np.abs, "np.abs({0})", abs, "absolute value", exact=abs, interval=_iv_abs, piecewise=True),
    Function("min", 2, -1, _np_min, "np.minimum({0}, {1})", _mp_min, "smallest argument; NaN if any is NaN",
             exact=min, interval=_iv_min, piecewise=True),
    Function("max", 2, -1, _np_max, "np.maximum({0}, {1})", _mp_max, "largest argument; NaN if any is NaN",
             exact=max, interval=_iv_max, piecewise=True),
    # remainders (ONNX Mod's fmod = 1 / 0): exact rational functions; a zero divisor has no value (the
    # exact evaluation raises ZeroDivisionError: an IEEE NaN for floats, C99 F.10.7.1 fmod(x, 0); the
    # corpus leaves it out for integers)
    Function("fmod", 2, 2, np.fmod, "_fmod({0}, {1})", lambda a, b: a - b * _mp_trunc(a / b),
             "remainder of a / b truncated toward zero (C fmod): the sign of a", exact=_exact_fmod,
             interval=_iv_points(np.fmod), piecewise=True, float_exact=lambda a, b: np.ones(np.shape(a), dtype=bool),
             helper_source=_FMOD_HELPER,
             annex_f=(((0.0, 1.0), 0.0), ((-0.0, 1.0), -0.0), ((5.0, 3.0), 2.0), ((-5.0, 3.0), -2.0), ((5.0, -3.0), 2.0),
                      ((1.0, 0.0), math.nan), ((math.inf, 1.0), math.nan), ((1.0, math.inf), 1.0), ((-1.0, -math.inf), -1.0),
                      ((math.nan, 1.0), math.nan))),
    Function("floor_mod", 2, 2, np.mod, "np.mod({0}, {1})", lambda a, b: a - b * mpmath.floor(a / b),
             "remainder of a / b rounded toward -inf (Python's %): the sign of b", exact=_exact_floor_mod,
             interval=_iv_points(np.mod, _floor_mod_exact_mask), piecewise=True, float_exact=_floor_mod_exact_mask),
    Function("clamp", 3, 3, lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
             "np.minimum(np.maximum({0}, {1}), {2})", lambda x, lo, hi: _mp_min(_mp_max(x, lo), hi),
             "clamp(x, lo, hi) = min(max(x, lo), hi)", exact=lambda x, lo, hi: min(max(x, lo), hi),
             interval=_iv_clamp, piecewise=True),
    Function("where", 3, 3, np.where, "np.where({0}, {1}, {2})", _mp_where,
             "where(cond, a, b): a where cond holds, else b", piecewise=True),
    Function("select", 3, 3, np.where, "np.where({0}, {1}, {2})", _mp_where, "alias of where", piecewise=True),
    Function("sign", 1, 1, np.sign, "np.sign({0})", mpmath.sign, "-1, 0 or 1", exact=_exact_sign,
             interval=_iv_sign, piecewise=True),
    Function("exp", 1, 1, np.exp, "np.exp({0})", mpmath.exp, "e to the x", monotone="increasing", ulps=BUDGETS["exp"],
             libm=_libm(np.exp, np.exp, 8, 8, 0.69, 1.11, exact={0: 1}, range=(0.0, _INF), sign="positive",
                        slope=_slope_exp, small=("1 + u + u * u / 2", 2.0 ** -20, 0.17, 3)),
             critical=_exp_critical(),
             rewrites=(("exp(u) - 1", "expm1(u)"), ("1 - exp(u)", "-expm1(u)"),
                       # SELU's alpha * exp(x) - alpha; + 0 keeps IEEE's +0 for an exact zero difference
                       ("v * exp(u) - v", "v * expm1(u) + 0"),
                       # the logistic function and x times it (sigmoid, swish): exp(-u) never overflows
                       ("1 / (1 + exp(u))", "where(u > 0, exp(-u) / (exp(-u) + 1), 1 / (1 + exp(u)))"),
                       ("v / (1 + exp(u))", "where(u > 0, v * exp(-u) / (exp(-u) + 1), v / (1 + exp(u)))"))),
    Function("expm1", 1, 1, np.expm1, "np.expm1({0})", mpmath.expm1, "exp(x) - 1 without cancellation",
             monotone="increasing", ulps=BUDGETS["expm1"],
             libm=_libm(np.expm1, np.expm1, 8, 12, 0.53, 2.40, exact={0: 0}, range=(-1.0, _INF), sign="argument",
                        slope=_slope_expm1, small=("u + u * u / 2", 2.0 ** -20, 0.17, 3)),
             critical=(Critical("overflow", "expm1(t) rounds to inf", "+", lambda t, d: _rn(mpmath.expm1(t), d) == math.inf),
                       _saturation(mpmath.expm1, "-", -1), _linear(mpmath.expm1, "+"), _linear(mpmath.expm1, "-")),
             # CELU's min(0, alpha * expm1(x / alpha)): for v >= 0 the same as v * expm1(min(u, 0)), whose
             # enclosure stays finite where expm1(u) overflows (u > 709: the min is 0 there)
             rewrites=(("min(0, v * expm1(u))", "where(v >= 0, v * expm1(min(u, 0)), min(0, v * expm1(u)))"),)),
    Function("log", 1, 1, np.log, "np.log({0})", mpmath.log, "natural logarithm", monotone="increasing",
             domain=(0.0, math.inf), ulps=BUDGETS["log"],
             libm=_libm(np.log, np.log, 8, 8, 0.60, 0.95, domain=(0.0, _INF), exact={1: 0}, slope=_slope_reciprocal(0.0)),
             critical=(Critical("subnormal-argument", "t is below the smallest normal", "+", lambda t, d: _below_normal(t, d)),
                       Critical("one", "t crosses 1, where log(t) changes sign", "+", lambda t, d: t < 1)),
             rewrites=(("log(1 + u)", "log1p(u)"), ("log(u + 1)", "log1p(u)"))),
    Function("log1p", 1, 1, np.log1p, "np.log1p({0})", mpmath.log1p, "log(1 + x) without cancellation",
             monotone="increasing", domain=(-1.0, math.inf), ulps=BUDGETS["log1p"],
             libm=_libm(np.log1p, np.log1p, 8, 12, 0.62, 2.43, domain=(-1.0, _INF), exact={0: 0}, sign="argument",
                        slope=_slope_reciprocal(1.0), small=("u - u * u / 2", 2.0 ** -20, 0.34, 3)),
             critical=(_linear(mpmath.log1p, "+"), _linear(mpmath.log1p, "-"),
                       Critical("pole", "t crosses -1, where log1p(t) is -inf", "-", lambda t, d: t <= -1),
                       Critical("one-negligible", "t >= 2^p: next to t the 1 of 1 + t is at most half an ULP", "+",
                                lambda t, d: _dwarfs_one(t, d))),
             # softplus: the same value for every u, and exp never overflows
             rewrites=(("log1p(exp(u))", "max(u, 0) + log1p(exp(-abs(u)))"),)),
    Function("sqrt", 1, 1, np.sqrt, "np.sqrt({0})", mpmath.sqrt, "square root", monotone="increasing",
             domain=(0.0, math.inf), ulps=BUDGETS["sqrt"],
             libm=_libm(np.sqrt, np.sqrt, 1, 1, 0.50, 0.50, domain=(0.0, _INF), exact={0: 0, 1: 1},
                        range=(0.0, _INF), sign="argument", slope=_slope_sqrt)),
    Function("tanh", 1, 1, np.tanh, "np.tanh({0})", mpmath.tanh, "hyperbolic tangent", monotone="increasing",
             ulps=BUDGETS["tanh"],
             libm=_libm(np.tanh, np.tanh, 8, 12, 1.19, 2.86, exact={0: 0}, range=(-1.0, 1.0), sign="argument",
                        slope=_slope_tanh, small=("u - u * u * u / 3", 2.0 ** -20, 0.14, 5)),
             critical=(_saturation(mpmath.tanh, "+", 1), _saturation(mpmath.tanh, "-", -1),
                       _linear(mpmath.tanh, "+"), _linear(mpmath.tanh, "-")),
             # 1 + tanh(u) = 2 e^2u / (1 + e^2u): no cancellation (nor overflow) far below 0
             rewrites=(("1 + tanh(u)", "where(u < 0, 2 * exp(2 * u) / (1 + exp(2 * u)), 1 + tanh(u))"),
                       ("tanh(u) + 1", "where(u < 0, 2 * exp(2 * u) / (1 + exp(2 * u)), 1 + tanh(u))"),
                       ("1 - tanh(u)", "where(u > 0, 2 * exp(-2 * u) / (1 + exp(-2 * u)), 1 - tanh(u))"))),
    Function("erf", 1, 1, np_erf, "_erf({0})", mpmath.erf, "error function", monotone="increasing", ulps=BUDGETS["erf"],
             helper_source=_ERF_HELPER,
             libm=_libm(_erf64, erf_ld.erf, 8, 24, 1.06, 4.15, exact={0: 0}, range=(-1.0, 1.0), sign="argument",
                        slope=_slope_erf),
             critical=(_saturation(mpmath.erf, "+", 1), _saturation(mpmath.erf, "-", -1)),
             rewrites=(("1 + erf(u)", "erfc(-u)"), ("erf(u) + 1", "erfc(-u)"), ("1 - erf(u)", "erfc(u)"))),
    Function("erfc", 1, 1, np_erfc, "_erfc({0})", mpmath.erfc, "complementary error function, 1 - erf(x)",
             monotone="decreasing", ulps=BUDGETS["erfc"], helper_source=_ERFC_HELPER,
             libm=_libm(_erfc64, erf_ld.erfc, 16, 24, 3.12, 3.96, exact={0: 1}, range=(0.0, 2.0), sign="positive",
                        slope=_slope_erf),
             critical=(_saturation(mpmath.erfc, "-", 2),
                       Critical("subnormal", "erfc(t) is below the smallest normal", "+",
                                lambda t, d: _below_normal(mpmath.erfc(t), d)),
                       Critical("underflow", "erfc(t) rounds to 0", "+", lambda t, d: _rn(mpmath.erfc(t), d) == 0))),
    Function("pow", 2, 2, np.power, "np.power({0}, {1})", _mp_pow, "x to the y", interval=_iv_pow, ulps=BUDGETS["pow"],
             exact_at=_exact_pow, annex_f=_ANNEX_F_POW,
             libm=_libm(np.power, np.power, 8, 8, 0.70, 0.90, domain=(0.0, _INF), range=(0.0, _INF))),
]}


# ----------------------------------------------------------------------------- trigonometric, hyperbolic, rounding
# The rows of issue 23's unary math operators. Their IEEE special cases are C99 Annex F (F.10.1 to
# F.10.6, F.10.9): the ``annex_f`` pairs, argument -> result, which numpy follows and the golden
# values reproduce (tests/test_function_table.py checks both).

def _real(f):
    """An mpmath function restricted to the reals: NaN where its value is complex (asin(2),
    acosh(0.5), atanh(2): C99 Annex F's domain errors)."""
    def real(x):
        v = f(x)
        return mpmath.nan if isinstance(v, mpmath.mpc) else v
    real.__name__ = f.__name__
    return real


def _iv_image(name: str):
    """A rigorous image of an argument interval by mpmath's interval arithmetic (``mpmath.iv``),
    which reduces large arguments at enough precision itself: (lo, hi, prec) mpf tuples -> (lo, hi)."""
    def image(lo, hi, prec):
        ctx = mpmath.iv
        saved = ctx.prec
        ctx.prec = prec
        try:
            r = getattr(ctx, name)(ctx.make_mpf((lo, hi)))
        finally:
            ctx.prec = saved
        return r._mpi_
    return image


def _mp_cosh_image(lo, hi, prec):
    """cosh over [lo, hi]: cosh(|t|) is increasing, so the image runs from cosh of the smallest |t|
    (0 when the interval holds 0) to cosh of the largest, each end by mpmath.iv's exp."""
    from mpmath import libmp
    ctx = mpmath.iv
    saved = ctx.prec
    ctx.prec = prec
    try:
        def at(t):
            x = ctx.make_mpf((t, t))
            return (ctx.exp(x) + ctx.exp(-x)) / 2
        a, b = libmp.mpf_abs(lo), libmp.mpf_abs(hi)
        straddle = libmp.mpf_lt(lo, libmp.fzero) and libmp.mpf_lt(libmp.fzero, hi)
        small, large = (a, b) if libmp.mpf_le(a, b) else (b, a)
        low = libmp.fone if straddle else at(small)._mpi_[0]
        return low, at(large)._mpi_[1]
    finally:
        ctx.prec = saved


def _iv_periodic(shift: float):
    """The error model's image of sin (shift 0) or cos (shift pi/2) over float64 argument intervals:
    the end values, widened to +-1 where a maximum or minimum lies inside; intervals wider than a
    period, beyond 2**20 or not finite give [-1, 1]."""
    def image(a):
        lo, hi = a
        with np.errstate(all="ignore"):
            f = np.sin if shift == 0 else np.cos
            y0, y1 = f(lo), f(hi)
            out_lo, out_hi = np.minimum(y0, y1), np.maximum(y0, y1)
            # maxima of sin(t + shift) at t = pi/2 - shift + 2k pi, minima at -pi/2 - shift + 2k pi
            for peak, value in ((np.pi / 2 - shift, 1.0), (-np.pi / 2 - shift, -1.0)):
                k = np.ceil((lo - peak) / (2 * np.pi))
                inside = peak + 2 * np.pi * k <= hi
                out_lo = np.where(inside & (value < 0), -1.0, out_lo)
                out_hi = np.where(inside & (value > 0), 1.0, out_hi)
            wide = ~(np.isfinite(lo) & np.isfinite(hi)) | (hi - lo >= 2 * np.pi) | (np.abs(lo) > 2.0 ** 20) \
                | (np.abs(hi) > 2.0 ** 20)
            wide &= lo != hi
            return np.where(wide, -1.0, out_lo), np.where(wide, 1.0, out_hi)
    return image


def _iv_tan(a):
    """The error model's image of tan: increasing between its poles (pi/2 + k pi); an interval that
    holds a pole, is wider than pi, beyond 2**20 or not finite is unbounded."""
    lo, hi = a
    with np.errstate(all="ignore"):
        k = np.ceil((lo - np.pi / 2) / np.pi)
        pole = (np.pi / 2 + np.pi * k <= hi) & (lo != hi)
        wide = ~(np.isfinite(lo) & np.isfinite(hi)) | (hi - lo >= np.pi) | (np.abs(lo) > 2.0 ** 20) | (np.abs(hi) > 2.0 ** 20)
        wide = (wide | pole) & (lo != hi)
        return np.where(wide, -np.inf, np.tan(lo)), np.where(wide, np.inf, np.tan(hi))


def _iv_cosh(a):
    lo, hi = a
    with np.errstate(all="ignore"):
        straddle = (lo < 0) & (hi > 0)
        small = np.minimum(np.abs(lo), np.abs(hi))
        return np.where(straddle, 1.0, np.cosh(small)), np.cosh(np.maximum(np.abs(lo), np.abs(hi)))


def _exact_round_half_even(q):
    return Fraction(round(q))  # Fraction.__round__ without ndigits: ties to even


def _mp_round_half_even(x):
    return mpmath.nint(x)  # ties to even, like Python's round


def _mp_trunc(x):
    return mpmath.floor(x) if x >= 0 else mpmath.ceil(x)


_PI_2 = math.pi / 2
_X87 = np.finfo(np.longdouble).nmant >= 63  # x87 extended long double (specgen.numerics.libm.LONGDOUBLE_OK)


def _via_longdouble(f):
    """numpy's long double ``f`` (glibc's sinl, cosl, tanl: full range reduction) rounded to float64:
    numpy's own float64 sin/cos/tan (SIMD on x86-64) is 7.95 ULP off at cos(5.319372648326541e255),
    a near-zero of cos that a large argument reaches; through long double it is within 0.52 ULP."""
    def f64(x):
        return np.asarray(f(np.asarray(x, dtype=np.longdouble)), dtype=np.float64)
    return f64


def _trig_libm(f64, ld, ulps64, ulps_ld, measured64, measured_ld, **kw) -> Libm | None:
    """The fast path of sin, cos, tan: through x87 long double only (elsewhere per element in mpmath)."""
    return _libm(f64, ld, ulps64, ulps_ld, measured64, measured_ld, **kw) if _X87 else None
_NAN = math.nan


def _odd_limit(f, limit_name: str, limit):
    """Where an increasing function rounds to its horizontal asymptote (atan: pi/2) on t > 0."""
    return Critical("saturation+", f"the function rounds to its limit {limit_name}", "+",
                    lambda t, d: _rn(f(t), d) == _rn(limit(), d))


def _overflow(f, side: str) -> Critical:
    return Critical(f"overflow{side}", "the function rounds to an infinity", side,
                    lambda t, d: abs(_rn(f(t), d)) == math.inf)


def _one(f) -> Critical:
    """Where f(t) (f(0) = 1, even) stops rounding to 1 on 0 < t < 1."""
    return Critical("one", "the function rounds to 1", "+", lambda t, d: t < 1 and _rn(f(t), d) == 1)


def _linear_small(f, side: str) -> Critical:
    """_linear restricted to |t| < 1, where it flips once (periodic functions come back near t)."""
    base = _linear(f, side)
    return Critical(base.name, base.meaning, side, lambda t, d: abs(t) < 1 and base.test(t, d))


def _from(value, name: str, meaning: str, side: str) -> Critical:
    """The argument ``value`` (a number, or a function of the type: ``value(dtype)``) itself on the
    side ``side``: the predicate |t| >= value flips there, so the corpus gets the value and its
    neighbour (round's halves, where the direction of a tie shows)."""
    def test(t, d):
        v = value(d) if callable(value) else value
        return abs(t) >= v
    return Critical(name, meaning, side, test)


def _largest_half(dtype: str) -> float:
    """The largest half-integer of the type, 2^(p-1) - 1/2 (above it every value is an integer)."""
    from specgen.numerics.ulp import FORMATS
    return 2.0 ** (FORMATS[dtype].precision - 1) - 0.5


def _integral(dtype: str) -> float:
    from specgen.numerics.ulp import FORMATS
    return 2.0 ** (FORMATS[dtype].precision - 1)


# round's ties: 0.5 and 2.5 go down to the even 0 and 2, 1.5 and 3.5 up; the last half-integer of the type
_TIES = tuple(_from(v, f"tie{sign}{v}", f"a half-integer ({v}): ties to even", sign)
              for v in (0.5, 1.5, 2.5, 3.5) for sign in "+-") + \
    tuple(_from(_largest_half, f"largest-tie{sign}", "the largest half-integer of the type", sign) for sign in "+-")
# above 2^(p-1) every value of the type is an integer: rounding is the identity
_INTEGRAL = tuple(_from(_integral, f"integral{sign}", "every value from here on is an integer", sign) for sign in "+-")

_ANNEX_F_ODD = ((0.0, 0.0), (-0.0, -0.0), (_NAN, _NAN))  # f(+-0) = +-0, NaN propagates

_UNARY_MATH = [
    Function("sin", 1, 1, np.sin, "np.sin({0})", mpmath.sin, "sine (radians)", interval=_iv_periodic(0.0),
             ulps=BUDGETS["sin"], mp_image=_iv_image("sin"),
             libm=_trig_libm(_via_longdouble(np.sin), np.sin, 4, 8, 0.517, 0.955, exact={0: 0}, range=(-1.0, 1.0), monotone=False),
             critical=(_linear_small(mpmath.sin, "+"), _linear_small(mpmath.sin, "-")),
             annex_f=_ANNEX_F_ODD + ((math.inf, _NAN), (-math.inf, _NAN))),
    Function("cos", 1, 1, np.cos, "np.cos({0})", mpmath.cos, "cosine (radians)", interval=_iv_periodic(np.pi / 2),
             ulps=BUDGETS["cos"], mp_image=_iv_image("cos"),
             libm=_trig_libm(_via_longdouble(np.cos), np.cos, 4, 8, 0.517, 0.982, exact={0: 1}, range=(-1.0, 1.0), monotone=False),
             critical=(_one(mpmath.cos),),
             annex_f=((0.0, 1.0), (-0.0, 1.0), (math.inf, _NAN), (-math.inf, _NAN), (_NAN, _NAN))),
    Function("tan", 1, 1, np.tan, "np.tan({0})", mpmath.tan, "tangent (radians)", interval=_iv_tan,
             ulps=BUDGETS["tan"], mp_image=_iv_image("tan"),
             libm=_trig_libm(_via_longdouble(np.tan), np.tan, 4, 8, 0.565, 1.515, exact={0: 0}, monotone=False),
             critical=(_linear_small(mpmath.tan, "+"), _linear_small(mpmath.tan, "-")),
             annex_f=_ANNEX_F_ODD + ((math.inf, _NAN), (-math.inf, _NAN))),
    Function("asin", 1, 1, np.arcsin, "np.arcsin({0})", _real(mpmath.asin), "arc sine, on [-1, 1]",
             monotone="increasing", domain=(-1.0, 1.0), ulps=BUDGETS["asin"],
             libm=_libm(np.arcsin, np.arcsin, 8, 8, 0.788, 0.812, domain=(-1.0, 1.0), exact={0: 0}, sign="argument"),
             critical=(_linear(mpmath.asin, "+"), _linear(mpmath.asin, "-")),
             annex_f=_ANNEX_F_ODD + ((2.0, _NAN), (-2.0, _NAN), (math.inf, _NAN))),
    Function("acos", 1, 1, np.arccos, "np.arccos({0})", _real(mpmath.acos), "arc cosine, on [-1, 1]",
             monotone="decreasing", domain=(-1.0, 1.0), ulps=BUDGETS["acos"],
             libm=_libm(np.arccos, np.arccos, 8, 8, 0.804, 1.305, domain=(-1.0, 1.0), exact={1: 0}, range=(0.0, _INF)),
             annex_f=((1.0, 0.0), (2.0, _NAN), (-2.0, _NAN), (math.inf, _NAN), (_NAN, _NAN))),
    Function("atan", 1, 1, np.arctan, "np.arctan({0})", mpmath.atan, "arc tangent", monotone="increasing",
             ulps=BUDGETS["atan"],
             libm=_libm(np.arctan, np.arctan, 8, 8, 0.548, 0.627, exact={0: 0}, sign="argument"),
             critical=(_linear(mpmath.atan, "+"), _linear(mpmath.atan, "-"),
                       _odd_limit(mpmath.atan, "pi/2", lambda: mpmath.pi / 2)),
             annex_f=_ANNEX_F_ODD + ((math.inf, _PI_2), (-math.inf, -_PI_2))),
    Function("sinh", 1, 1, np.sinh, "np.sinh({0})", mpmath.sinh, "hyperbolic sine", monotone="increasing",
             ulps=BUDGETS["sinh"],
             libm=_libm(np.sinh, np.sinh, 8, 12, 0.796, 2.344, exact={0: 0}, sign="argument"),
             critical=(_linear(mpmath.sinh, "+"), _linear(mpmath.sinh, "-"), _overflow(mpmath.sinh, "+"),
                       _overflow(mpmath.sinh, "-")),
             annex_f=_ANNEX_F_ODD + ((math.inf, math.inf), (-math.inf, -math.inf))),
    Function("cosh", 1, 1, np.cosh, "np.cosh({0})", mpmath.cosh, "hyperbolic cosine", interval=_iv_cosh,
             ulps=BUDGETS["cosh"], mp_image=_mp_cosh_image,
             libm=_libm(np.cosh, np.cosh, 8, 8, 0.753, 1.656, exact={0: 1}, range=(1.0, _INF), sign="positive",
                        monotone=False),
             critical=(_one(mpmath.cosh), _overflow(mpmath.cosh, "+"), _overflow(mpmath.cosh, "-")),
             annex_f=((0.0, 1.0), (-0.0, 1.0), (math.inf, math.inf), (-math.inf, math.inf), (_NAN, _NAN))),
    Function("asinh", 1, 1, np.arcsinh, "np.arcsinh({0})", mpmath.asinh, "inverse hyperbolic sine",
             monotone="increasing", ulps=BUDGETS["asinh"],
             libm=_libm(np.arcsinh, np.arcsinh, 8, 12, 0.64, 2.324, exact={0: 0}, sign="argument"),
             critical=(_linear(mpmath.asinh, "+"), _linear(mpmath.asinh, "-")),
             annex_f=_ANNEX_F_ODD + ((math.inf, math.inf), (-math.inf, -math.inf))),
    Function("acosh", 1, 1, np.arccosh, "np.arccosh({0})", _real(mpmath.acosh), "inverse hyperbolic cosine, on [1, inf)",
             monotone="increasing", domain=(1.0, math.inf), ulps=BUDGETS["acosh"],
             # float64: 2.02 ULP measured with glibc (numpy on AVX2 machines), 0.73 with AVX-512 SVML
             libm=_libm(np.arccosh, np.arccosh, 12, 12, 2.02, 2.143, domain=(1.0, _INF), exact={1: 0}, range=(0.0, _INF)),
             annex_f=((1.0, 0.0), (0.5, _NAN), (-1.0, _NAN), (math.inf, math.inf), (-math.inf, _NAN), (_NAN, _NAN))),
    Function("atanh", 1, 1, np.arctanh, "np.arctanh({0})", _real(mpmath.atanh), "inverse hyperbolic tangent, on [-1, 1]",
             monotone="increasing", domain=(-1.0, 1.0), ulps=BUDGETS["atanh"],
             libm=_libm(np.arctanh, np.arctanh, 8, 12, 0.571, 2.535, domain=(-1.0, 1.0), exact={0: 0}, sign="argument"),
             critical=(_linear(mpmath.atanh, "+"), _linear(mpmath.atanh, "-")),
             annex_f=_ANNEX_F_ODD + ((1.0, math.inf), (-1.0, -math.inf), (2.0, _NAN), (math.inf, _NAN))),
    # rounding to an integer: exact (OpenCL-CTS: 0 ULP), rational, monotone non-decreasing; IEEE 754
    # roundToIntegral keeps the sign of a zero result (floor(-0) = -0, ceil(-0.5) = -0)
    Function("floor", 1, 1, np.floor, "np.floor({0})", mpmath.floor, "largest integer <= x",
             exact=lambda q: Fraction(math.floor(q)), monotone="increasing", critical=_INTEGRAL,
             annex_f=((0.0, 0.0), (-0.0, -0.0), (-0.5, -1.0), (math.inf, math.inf), (-math.inf, -math.inf), (_NAN, _NAN))),
    Function("ceil", 1, 1, np.ceil, "np.ceil({0})", mpmath.ceil, "smallest integer >= x",
             exact=lambda q: Fraction(math.ceil(q)), monotone="increasing", critical=_INTEGRAL,
             annex_f=((0.0, 0.0), (-0.0, -0.0), (-0.5, -0.0), (math.inf, math.inf), (-math.inf, -math.inf), (_NAN, _NAN))),
    Function("round", 1, 1, np.rint, "np.rint({0})", _mp_round_half_even,
             "nearest integer, ties to even (IEEE 754 roundToIntegralTiesToEven)",
             exact=_exact_round_half_even, monotone="increasing", critical=_TIES + _INTEGRAL,
             annex_f=((0.5, 0.0), (1.5, 2.0), (2.5, 2.0), (-0.5, -0.0), (-2.5, -2.0), (-0.0, -0.0),
                      (math.inf, math.inf), (_NAN, _NAN))),
    Function("trunc", 1, 1, np.trunc, "np.trunc({0})", _mp_trunc, "integer part, towards zero",
             exact=lambda q: Fraction(math.trunc(q)), monotone="increasing", critical=_INTEGRAL,
             annex_f=((-0.5, -0.0), (0.5, 0.0), (-1.5, -1.0), (math.inf, math.inf), (_NAN, _NAN))),
]
FUNCTIONS.update({f.name: f for f in _UNARY_MATH})

CONSTANTS = {"inf": (np.inf, mpmath.inf), "pi": (np.pi, mpmath.pi), "e": (np.e, mpmath.e)}

# Accepted error of a kernel's elementary function per float type, in ULPs of the type it computes in
# (the rows above, from BUDGETS).
FUNCTION_ULPS = {name: {t: f.budget(t) for t in BUDGET_TYPES} for name, f in FUNCTIONS.items() if f.ulps is not None}


def formula_budget(node, dtype: str) -> float:
    """An operator's function budget for an output ``dtype``: the largest budget, in ULPs of
    ``dtype``, of the inexact functions its formula calls (0 for a formula of exact operations).
    A result this close to the exact value is accepted whatever the evaluation order
    (specgen.numerics.compare, the accuracy floor)."""
    return max((FUNCTIONS[c.func].budget(dtype) for c in walk(node)
                if isinstance(c, Call) and FUNCTIONS[c.func].ulps is not None), default=0.0)
