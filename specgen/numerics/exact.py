"""Golden values: the formula at exact inputs and float32 attributes, rounded once to the output dtype.

Every element ends up correctly rounded, each by the cheapest tier that proves it:
0. **plain float64 with a running error bound** (specgen.numerics.fast64): numpy's own evaluation
   plus a few operations per node for the bound, in cache-sized blocks; function calls through
   their function-table row's ``libm`` (numpy's float64 function, its ``ulps``, and its ``slope``,
   which carries the argument's error), first on the formula as written, then on its rewritten form;
   what it cannot prove goes to tier 1.
1. **float64 with a proven error bound.** Rational formulas (+ - * /, min, max, abs, where, clamp,
   comparisons) are evaluated in float64 while a rigorous bound on |float64 value - exact value|
   is carried per element: TwoSum and Dekker's TwoProduct give the exact rounding error of each
   + - *, the exact remainder gives the error of /, min/max/abs/negation add none. An element is
   accepted when every value within the bound rounds to the same output value (rounding is
   monotone, so checking both ends of the interval suffices) and every comparison is decided
   beyond the bound. An element whose error is 0 is exact, and numpy's float64 -> float16/float32
   cast rounds it once correctly (bfloat16 goes through a round-to-odd float32 step).
2. **Exact rationals** (fractions.Fraction) for every element tier 1 cannot prove: ties and
   near-ties, zeros whose sign is in doubt, float64 outputs whose value is not exact in float64,
   products/quotients near overflow or underflow, int64 values beyond 2**53.
3. **Transcendental formulas** (exp, expm1, log, log1p, tanh, sqrt, erf, pow): tier 1 also carries
   each libm call's error (specgen.numerics.libm: monotone images of the enclosure's ends widened
   by the bound assumed for numpy's implementation), on exact rewrites that avoid cancellation
   (``rewrite``), tracking the sign of exp-derived values; the undecided rest goes through the same
   enclosure in x87 long double, then the double-double tier (specgen.numerics.dd64: ties that a
   tiny term breaks, float32 subnormal x in 0.5 x (1 + tanh(u)), vectorised; rational formulas use
   it too before exact rationals), then mpmath intervals with rising precision
   (specgen.numerics.ziv, capped at 4096 bits: an element undecided there is a SpecError naming the
   spec and formula). Integer outputs of transcendental formulas use mpmath at 256 bits.
Non-finite inputs follow the spec's special-value outcomes (the recommended one, else the first);
``limit`` is the formula at +-1e300 through the bounded evaluators, never an unbounded rational.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import mpmath
import numpy as np

from specgen import dtypes as dt
from specgen.formula import nodes as n
from specgen.errors import Problem, SpecError
from specgen.formula.breakpoints import _RATIONAL_CALLS, NotRational, evaluate_exact, is_rational
from specgen.formula.functions import CONSTANTS, FUNCTIONS
from specgen.formula.numpy_eval import evaluate
from specgen.numerics import dd64, fast64
from specgen.numerics import libm
from specgen.numerics.eft import two_prod_err, two_sum_err
from specgen.numerics import ziv
from specgen.numerics.ulp import canonical_nan, int_range, round_float64_int, round_fraction
from specgen.numerics.ulp import round_to as round_float64

_INFLATE = 1.0 + 2.0 ** -49  # covers the rounding of the bound's own arithmetic
_SAFE_MAX = 2.0 ** 995  # beyond this, splitting or products may overflow
_SAFE_MIN = 2.0 ** -960  # below this, TwoProduct's error term may underflow
MP_PRECISION = 256


def stored_outcome(spec, category: str, standard: str | None = None) -> str:
    """The special-value outcome the golden data stores: recommended, else the first accepted one;
    'unspecified' without a recommendation stores the literal formula."""
    sv = spec.special_values.get(category)
    if sv is None:
        return "formula"
    if sv.recommended:
        return sv.recommended
    first = sv.outcomes(standard)[0]
    return "formula" if first in ("unspecified", "any") else first


# ----------------------------------------------------------------------------- tier 1: float64 + bound

@dataclass
class _Iv:
    v: np.ndarray  # float64 value
    e: np.ndarray  # bound on |v - exact|
    bad: np.ndarray  # element cannot be proven here
    sg: np.ndarray | None = None  # sign of the exact value where known beyond v +- e (exp(x) > 0), else 0


def _sgn(a: _Iv) -> np.ndarray:
    """Known sign of the exact value: from the enclosure, else from the tracked sign."""
    with np.errstate(all="ignore"):
        known = np.where(np.abs(a.v) > a.e, np.sign(a.v), 0.0)
    return known if a.sg is None else np.where(known == 0, a.sg, known)


def _track(*ivs) -> bool:
    return any(a.sg is not None for a in ivs)


_INFLATE_LD = 1.0 + 2.0 ** -49


def _limits(ftype):
    """(inflation of the bound's own arithmetic, overflow-safe, underflow-safe magnitudes)."""
    if ftype is np.float64:
        return _INFLATE, _SAFE_MAX, _SAFE_MIN
    one = np.longdouble(1)
    return np.longdouble(1) + np.ldexp(one, -60), np.ldexp(one, 16300), np.ldexp(one, -16250)


_SPLIT_LD = np.longdouble(2 ** 32 + 1)  # Dekker's splitter for a 64-bit significand


def _two_prod_err_ld(a, b, p):
    def split(x):
        c = _SPLIT_LD * x
        hi = c - (c - x)
        return hi, x - hi
    ah, al = split(a)
    bh, bl = split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _ld_error(v, q: Fraction):
    """|v - q| for a long double v and a rational q, as a long double rounded up."""
    if not np.isfinite(v):
        return np.longdouble(0)
    m, e = np.frexp(v)
    exact = Fraction(int(np.ldexp(m, 64))) * Fraction(2) ** (int(e) - 64) if m != 0 else Fraction(0)
    d = abs(exact - q)
    return np.nextafter(np.longdouble(float(d)) * np.longdouble(1 + 2.0 ** -50), np.longdouble(np.inf)) if d else np.longdouble(0)


class _Interval:
    """Midpoint-radius evaluation in ``ftype`` (float64, or x87 long double for the second pass)."""

    def __init__(self, env: Mapping[str, _Iv], shape, ftype=np.float64):
        self.env = env
        self.shape = shape
        self.ft = ftype
        self.inflate, self.safe_max, self.safe_min = _limits(ftype)
        self._memo: dict = {}  # a subtree shared by a rewrite (u in max(u, 0) + ... |u|) once

    def eval(self, node):
        if node not in self._memo:  # by value: a rewrite's repeated subtree (exp(-u) twice) once
            self._memo[node] = self._eval(node)
        return self._memo[node]

    def const(self, value: float, exact: Fraction | None):
        ft = self.ft
        v = np.full(self.shape, value, dtype=ft)
        if exact is None or Fraction(value) == exact:
            e = 0.0
        else:  # the literal's own rounding to float64 (at most half an ULP; doubled for safety)
            e = abs(float(Fraction(value) - exact)) * 2 or float(np.finfo(np.float64).smallest_subnormal)
        return _Iv(v, np.full(self.shape, e, dtype=ft), np.zeros(self.shape, dtype=bool))

    def _eval(self, node):
        if isinstance(node, n.Num):
            if self.ft is not np.float64:  # the literal to long double precision, bound from the rational
                q = node.exact
                v = np.longdouble(q.numerator) / np.longdouble(q.denominator) if abs(q) < 2 ** 60 else np.longdouble(node.value)
                e = _ld_error(v, q)
                return _Iv(np.full(self.shape, v, dtype=self.ft), np.full(self.shape, e, dtype=self.ft),
                           np.full(self.shape, not np.isfinite(v)))
            return self.const(node.value, node.exact)
        if isinstance(node, n.Const):
            if node.name == "inf":
                raise NotRational("inf")
            value = np.pi if node.name == "pi" else np.e
            ulp = np.spacing(np.float64(value))
            return _Iv(np.full(self.shape, value, dtype=self.ft), np.full(self.shape, ulp, dtype=self.ft),
                       np.zeros(self.shape, dtype=bool))
        if isinstance(node, n.Var):
            return self.env[node.name]
        if isinstance(node, n.Unary):
            a = self.eval(node.operand)
            sg = None if a.sg is None else (-a.sg if node.op == "-" else a.sg)
            return _Iv(-a.v if node.op == "-" else a.v, a.e, a.bad, sg)
        if isinstance(node, n.Binary):
            a, b = self.eval(node.left), self.eval(node.right)
            bad = a.bad | b.bad
            if node.op in "+-":
                bv = b.v if node.op == "+" else -b.v
                s = a.v + bv
                err = np.abs(two_sum_err(a.v, bv, s))
                e = (a.e + b.e + err) * self.inflate
                sg = None
                if _track(a, b):
                    sa, sb = _sgn(a), (_sgn(b) if node.op == "+" else -_sgn(b))
                    zero_a, zero_b = (a.v == 0) & (a.e == 0), (b.v == 0) & (b.e == 0)  # exact zeros
                    sg = np.where(sa == sb, sa, np.where(zero_a, sb, np.where(zero_b, sa, 0.0)))
                return _Iv(s, e, bad | ~np.isfinite(s) | ~np.isfinite(err), sg)
            if node.op == "*":
                p = a.v * b.v
                err = np.abs(self.prod_err(a.v, b.v, p))
                e = (np.abs(a.v) * b.e + np.abs(b.v) * a.e + a.e * b.e + err) * self.inflate
                if _track(a, b):  # tracked signs: near underflow use the plain rounding bound instead
                    fi = np.finfo(self.ft)  # of TwoProduct (inexact there): |fl(ab) - ab| <= eps|p| + tiny
                    tiny = (np.abs(a.v) < self.safe_min) | (np.abs(b.v) < self.safe_min) | (np.abs(p) < self.safe_min)
                    plain = np.where((a.v == 0) | (b.v == 0), 0.0, np.abs(p) * fi.eps + fi.smallest_subnormal)
                    e2 = (np.abs(a.v) * b.e + np.abs(b.v) * a.e + a.e * b.e + np.where(tiny, plain, err)) * self.inflate
                    over = (np.abs(a.v) > self.safe_max) | (np.abs(b.v) > self.safe_max) | (np.abs(p) > self.safe_max)
                    return _Iv(p, e2, bad | over | ~np.isfinite(p) | ~np.isfinite(e2), _sgn(a) * _sgn(b))
                # a product that underflowed to 0 is not exact (0.5 * 2^-1074): only a zero factor makes it so
                return _Iv(p, e, bad | self.risky(a.v, b.v, p) & (a.v != 0) & (b.v != 0) | ~np.isfinite(p) | ~np.isfinite(e))
            q = a.v / b.v
            den = np.abs(b.v) - b.e
            p = q * b.v
            r = np.abs((a.v - p) - self.prod_err(q, b.v, p))  # exact remainder a - q*b (Sterbenz + TwoProduct)
            e = ((a.e + np.abs(q) * b.e) / np.where(den > 0, den, 1.0) + r / np.abs(np.where(b.v == 0, 1.0, b.v))) * self.inflate
            risky = (b.v == 0) | (den <= np.abs(b.v) / 2) | self.risky(q, b.v) | (self.risky(a.v) & (a.v != 0))
            if _track(a, b):  # tracked signs: near underflow the plain bound |fl(a/b) - a/b| <= eps|q| + tiny
                fi = np.finfo(self.ft)
                tiny = (np.abs(a.v) < self.safe_min) | (np.abs(q) < self.safe_min)
                plain = np.where(a.v == 0, 0.0, np.abs(q) * fi.eps + fi.smallest_subnormal)
                e = np.where(tiny, ((a.e + np.abs(q) * b.e) / np.where(den > 0, den, 1.0) + plain) * self.inflate, e)
                risky = (b.v == 0) | (den <= np.abs(b.v) / 2) | (np.abs(q) > self.safe_max) | (np.abs(b.v) > self.safe_max) \
                    | (np.abs(b.v) < self.safe_min) | ~np.isfinite(q)
                return _Iv(q, e, bad | risky | ~np.isfinite(e), _sgn(a) * _sgn(b))
            return _Iv(q, e, bad | risky | ~np.isfinite(e))
        if isinstance(node, n.Compare):
            raise TypeError("comparison outside where()")
        if isinstance(node, n.Call):
            return self.call(node)
        raise NotRational(type(node).__name__)

    @staticmethod
    def _pick(a: _Iv, b: _Iv, larger: bool) -> _Iv:
        """max (larger) or min of two intervals. Where the order is certain beyond the bounds the
        result carries the chosen operand's bound, elsewhere the larger of the two (still valid:
        |max(a, b) - max(a', b')| <= max(|a - a'|, |b - b'|))."""
        with np.errstate(all="ignore"):
            v = np.maximum(a.v, b.v) if larger else np.minimum(a.v, b.v)
            certain = np.abs(a.v - b.v) > (a.e + b.e) * _INFLATE_LD
        take_a = (a.v >= b.v) if larger else (a.v <= b.v)
        e = np.where(certain, np.where(take_a, a.e, b.e), np.maximum(a.e, b.e))
        return _Iv(v, e, a.bad | b.bad)

    def decide(self, node):
        """(bool array, undecided mask) of a condition."""
        if isinstance(node, n.Compare):
            a, b = self.eval(node.left), self.eval(node.right)
            with np.errstate(all="ignore"):
                diff = a.v - b.v
                res = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                       "==": np.equal, "!=": np.not_equal}[node.op](a.v, b.v)
            slack = a.e + b.e
            decided = (slack == 0) | (np.abs(diff) > slack * self.inflate)
            return res, a.bad | b.bad | ~decided | ~np.isfinite(diff)
        if isinstance(node, n.Logical):
            parts = [self.decide(o) for o in node.operands]
            combine = np.logical_and if node.op == "and" else np.logical_or
            res, bad = parts[0]
            for r, b in parts[1:]:
                res, bad = combine(res, r), bad | b
            return res, bad
        if isinstance(node, n.Not):
            r, b = self.decide(node.operand)
            return ~r, b
        raise NotRational("condition")

    def call(self, node):
        f, args = node.func, node.args
        if f == "where":
            c, cbad = self.decide(args[0])
            a, b = self.eval(args[1]), self.eval(args[2])
            sg = np.where(c, _sgn(a), _sgn(b)) if _track(a, b) else None
            return _Iv(np.where(c, a.v, b.v), np.where(c, a.e, b.e), cbad | np.where(c, a.bad, b.bad), sg)
        if f in ("min", "max"):
            out = self.eval(args[0])
            for a in args[1:]:
                out = self._pick(out, self.eval(a), f == "max")
            return out
        if f == "clamp":
            x, lo, hi = (self.eval(a) for a in args)
            return self._pick(self._pick(x, lo, True), hi, False)
        if f == "abs":
            a = self.eval(args[0])
            return _Iv(np.abs(a.v), a.e, a.bad)
        if f == "sign":
            a = self.eval(args[0])
            return _Iv(np.sign(a.v), np.zeros(self.shape, dtype=self.ft), a.bad | (np.abs(a.v) <= a.e))
        row = FUNCTIONS[f]
        if row.float_exact is not None:  # fmod, floor_mod: numpy's value at exact points, where it is exact
            vals = [self.eval(a) for a in args]
            point = np.logical_and.reduce([a.e == 0 for a in vals])
            bad = np.logical_or.reduce([a.bad for a in vals])
            with np.errstate(all="ignore"):
                v = row.numpy(*[a.v for a in vals])
                ok = point & ~bad & np.isfinite(v) & row.float_exact(*[a.v for a in vals])
            return _Iv(np.where(ok, v, 0), np.zeros(self.shape, dtype=self.ft), ~ok)
        if row.rational and row.monotone == "increasing" and len(args) == 1:  # floor, ceil, round, trunc
            # monotone with equal images at both ends: constant on the enclosure, so exact (integer
            # rounding of a float is exact in numpy); different images: a step inside, undecided
            a = self.eval(args[0])
            lo, hi = self.ends(a)
            with np.errstate(all="ignore"):
                r_lo, r_hi = row.numpy(lo), row.numpy(hi)
            return _Iv(r_lo, np.zeros(self.shape, dtype=self.ft), a.bad | (r_lo != r_hi) | ~np.isfinite(r_lo))
        if f == "pow" and libm.supported(f, self.ft):
            b, x = self.eval(args[0]), self.eval(args[1])
            (b_lo, b_hi), (x_lo, x_hi) = self.ends(b), self.ends(x)
            lo, hi, bad = libm.image_pow(b_lo, b_hi, x_lo, x_hi, self.ft)
            out = self.from_ends(lo, hi, bad | b.bad | x.bad)
            out.sg = np.ones(self.shape)  # a positive base (else bad): positive
            return out
        if libm.supported(f, self.ft):
            a = self.eval(args[0])
            lo, hi = self.ends(a)
            lo, hi, bad = libm.image(f, lo, hi, self.ft)
            out = self.from_ends(lo, hi, bad | a.bad)
            sign = libm.LIBM[f].sign  # the function table row's: exp, erfc > 0; tanh, erf, ... the argument's
            if sign == "positive":
                out.sg = np.ones(self.shape)
            elif sign == "argument":  # increasing, f(0) = 0
                out.sg = _sgn(a)
            return out
        raise NotRational(f)

    # -- helpers for the elementary functions: enclosure ends <-> midpoint and radius
    def ends(self, a: _Iv):
        if not a.e.any():  # exact (inputs): the point itself
            return a.v, a.v
        with np.errstate(all="ignore"):
            lo = np.where(a.e == 0, a.v, np.nextafter(a.v - a.e, self.ft(-np.inf)))
            hi = np.where(a.e == 0, a.v, np.nextafter(a.v + a.e, self.ft(np.inf)))
        return lo, hi

    def from_ends(self, lo, hi, bad):
        with np.errstate(all="ignore"):
            v = lo + (hi - lo) / 2
            v = np.where(np.isfinite(v) & (lo != hi), v, lo)  # a point keeps its own value (-0 + 0 is +0)
            e = np.maximum(hi - v, v - lo) * self.inflate
            e = np.where(lo == hi, self.ft(0), np.nextafter(e, self.ft(np.inf)))
        return _Iv(v, e, bad | ~np.isfinite(v) | ~np.isfinite(e))

    def prod_err(self, a, b, p):
        return two_prod_err(a, b, p) if self.ft is np.float64 else _two_prod_err_ld(a, b, p)

    def risky(self, *arrays):
        out = np.zeros(np.shape(arrays[0]), dtype=bool)
        for a in arrays:
            m = np.abs(a)
            out |= (m > self.safe_max) | ((m < self.safe_min) & (m != 0)) | ~np.isfinite(a)
        return out


def _accept_float(iv: _Iv, dtype: str):
    """(rounded values, accepted mask) for a float output dtype."""
    v, e = iv.v, iv.e
    if dtype != "float64" and not np.any(e):
        # every value exact (floor, relu, clip, neg of float32 inputs): the enclosure is a point, its
        # ends round alike and no zero's sign is in doubt, so rounding the value once is the answer
        with np.errstate(all="ignore"):
            return round_float64(v, dtype), ~iv.bad & np.isfinite(v)
    with np.errstate(all="ignore"):
        lo = np.where(e == 0, v, np.nextafter(v - e, -np.inf))
        hi = np.where(e == 0, v, np.nextafter(v + e, np.inf))
        if dtype == "float64":
            r = v
            ok = e == 0
        else:
            r_lo, r_hi = round_float64(lo, dtype), round_float64(hi, dtype)
            r = round_float64(v, dtype)
            ok = (r_lo == r_hi) | ((r_lo.view(dt.get(dtype).uint_view) == r_hi.view(dt.get(dtype).uint_view)))
            zero = (r == 0) & (e != 0)  # a zero whose sign tier 1 cannot prove, unless the sign is tracked
            if iv.sg is not None:
                sign = _sgn(iv)
                r = np.where(zero & (sign != 0), round_float64(np.copysign(np.zeros(r.shape), sign), dtype), r)
                zero &= sign == 0
            ok &= ~zero
    ok &= ~iv.bad & np.isfinite(v) & np.isfinite(e)
    return r, ok


def _no_real_value(ev: _Interval, node) -> np.ndarray:
    """Where the exact value of ``node`` is certainly not a real number: a function's argument lies
    entirely outside the function's domain (sqrt, log of a negative; acos, atanh beyond 1; acosh
    below 1), or an operand of arithmetic, negation or abs has no real value. Branches, min, max and
    other calls are not looked through (a where() may not take the branch). ``ev`` is the tier-1
    evaluator of this block (its memo holds every subtree's enclosure)."""
    if isinstance(node, n.Unary):
        return _no_real_value(ev, node.operand)
    if isinstance(node, n.Binary):
        return _no_real_value(ev, node.left) | _no_real_value(ev, node.right)
    none = np.zeros(ev.shape, dtype=bool)
    if not isinstance(node, n.Call):
        return none
    if node.func == "abs":
        return _no_real_value(ev, node.args[0])
    f = libm.LIBM.get(node.func)
    if f is None or len(node.args) != 1 or not libm.supported(node.func, ev.ft):
        return none
    arg = ev.eval(node.args[0])
    lo, hi = ev.ends(arg)
    d_lo, d_hi = f.domain  # the closed hull of the real domain: outside it there is no real value
    with np.errstate(invalid="ignore"):
        outside = ~arg.bad & np.isfinite(lo) & np.isfinite(hi) & ((hi < d_lo) | (lo > d_hi))
    return outside | _no_real_value(ev, node.args[0])


def _beyond_float64(ev: _Interval, node) -> np.ndarray:
    """+1 or -1 where the exact value of ``node`` is certainly beyond float64's range with that sign,
    else 0: the formula is a monotone function (or its negation) whose argument enclosure lies where
    the function's float64 value overflows (exp, sinh of a huge argument; cosh at a point). The float64 libm
    value is within a few ULPs of the exact one, so an infinite one means |f| > 2^1023: past the
    overflow of every narrower output type."""
    if isinstance(node, n.Unary) and node.op == "-":
        return -_beyond_float64(ev, node.operand)
    none = np.zeros(ev.shape)
    if not isinstance(node, n.Call) or len(node.args) != 1:
        return none
    f = libm.LIBM.get(node.func)
    if f is None or not libm.supported(node.func, ev.ft):
        return none
    arg = ev.eval(node.args[0])
    lo, hi = ev.ends(arg)
    call = f.numpy[ev.ft]
    with np.errstate(all="ignore"):
        ok = ~arg.bad & np.isfinite(lo) & np.isfinite(hi) & (lo >= f.domain[0]) & (hi <= f.domain[1])
        if not f.monotone:  # cosh: its value at a point argument only
            ok &= lo == hi
        at_lo = np.asarray(call(np.where(ok, lo, 0.5)), dtype=ev.ft)
        at_hi = np.asarray(call(np.where(ok, hi, 0.5)), dtype=ev.ft)
        least, most = (at_lo, at_hi) if f.increasing else (at_hi, at_lo)
        return np.where(ok & (least == np.inf), 1.0, np.where(ok & (most == -np.inf), -1.0, 0.0))


_F64_INF_THRESHOLD = np.longdouble(2) ** 1024 - np.longdouble(2) ** 970  # DBL_MAX + half an ULP: rounds to inf


def _beyond_float64_rounding(ev: _Interval, node) -> np.ndarray:
    """+1 or -1 where the exact value of ``node`` rounds to +-inf in float64 (|value| at least
    DBL_MAX + half an ULP), else 0: _beyond_float64's rule with the function evaluated in x87 long
    double, whose range holds float64's overflow (exp(710) = 2.2e308 is finite there) and whose error
    bound (the row's long double ULPs) keeps the comparison rigorous; an infinite long double value
    is past 1e4932. For float64 outputs, where a float64 libm value of inf may round one below."""
    if isinstance(node, n.Unary) and node.op == "-":
        return -_beyond_float64_rounding(ev, node.operand)
    none = np.zeros(ev.shape)
    if not libm.LONGDOUBLE_OK or not isinstance(node, n.Call) or len(node.args) != 1:
        return none
    f = libm.LIBM.get(node.func)
    if f is None or not libm.supported(node.func, ev.ft) or np.longdouble not in f.numpy:
        return none
    arg = ev.eval(node.args[0])
    lo, hi = ev.ends(arg)
    ld = np.longdouble
    call, rel = f.numpy[ld], ld(f.ulps[ld]) * ld(2.0 ** -63) * ld(1.0 + 2.0 ** -20)
    with np.errstate(all="ignore"):
        ok = ~arg.bad & np.isfinite(lo) & np.isfinite(hi) & (lo >= f.domain[0]) & (hi <= f.domain[1])
        if not f.monotone:  # cosh: its value at a point argument only
            ok &= lo == hi
        at_lo = np.asarray(call(np.where(ok, lo, 0.5).astype(ld)), dtype=ld)
        at_hi = np.asarray(call(np.where(ok, hi, 0.5).astype(ld)), dtype=ld)
        least, most = (at_lo, at_hi) if f.increasing else (at_hi, at_lo)
        up = ok & (least * (1 - rel) >= _F64_INF_THRESHOLD)
        down = ok & (most * (1 - rel) <= -_F64_INF_THRESHOLD)
        return np.where(up, 1.0, np.where(down, -1.0, 0.0))


def _decided_without_enclosure(nan, beyond):
    """(where, value) pairs of what tiers 0 and 1 decide without enclosing the value: NaN where there
    is no real value (``nan``), +-inf where ``beyond`` (+1 / -1) says the value passes float64."""
    beyond = np.asarray(beyond)
    return ((nan, np.nan), (beyond > 0, np.inf), (beyond < 0, -np.inf))


def _round_to_odd_ld(v: np.ndarray) -> np.ndarray:
    """Long double values rounded to float64 by round-to-odd (exact when representable), so that a
    second rounding to a narrower dtype is a correct single rounding."""
    with np.errstate(all="ignore"):
        r = v.astype(np.float64)
        inexact = r.astype(np.longdouble) != v
        even = (r.view(np.uint64) & np.uint64(1)) == 0
        toward = np.where(r.astype(np.longdouble) > v, -np.inf, np.inf)
        return np.where(inexact & even & np.isfinite(r), np.nextafter(r, toward), r)


def _accept_float_ld(iv: _Iv, dtype: str):
    """(rounded float64-held values, accepted mask) from a long double enclosure."""
    v, e = iv.v, iv.e
    inf = np.longdouble(np.inf)
    with np.errstate(all="ignore"):
        lo = np.where(e == 0, v, np.nextafter(v - e, -inf))
        hi = np.where(e == 0, v, np.nextafter(v + e, inf))
        if dtype == "float64":
            r_lo, r_hi = lo.astype(np.float64), hi.astype(np.float64)
        else:
            r_lo, r_hi = round_float64(_round_to_odd_ld(lo), dtype), round_float64(_round_to_odd_ld(hi), dtype)
        view = dt.get(dtype).uint_view
        ok = (np.asarray(r_lo).view(view) == np.asarray(r_hi).view(view)) | (r_lo == r_hi)
        zero = (r_lo == 0) & (e != 0)
        if iv.sg is not None:
            sign = _sgn(iv)
            r_lo = np.where(zero & (sign != 0), np.copysign(np.zeros(r_lo.shape), sign), r_lo)
            zero &= sign == 0
        ok &= ~zero
    ok &= ~iv.bad & np.isfinite(v) & np.isfinite(e)
    return np.asarray(r_lo, dtype=np.float64), ok


@functools.lru_cache(maxsize=1024)
def rewrite(node):
    """The formula with the identities of the function table (each row's ``rewrites``: exp(u) - 1 ->
    expm1(u), log(1 + u) -> log1p(u), log1p(exp(u)) -> max(u, 0) + log1p(exp(-|u|)), 1 + erf(u) ->
    erfc(-u), 1 + tanh(u) and 1 / (1 + exp(u)) without cancellation or overflow, ...) applied
    bottom-up for the enclosures. They are identities of real numbers, so the golden (exact,
    once-rounded) value is the same; without them exp(x) - 1 at tiny x, or 1 + erf(x) far below 0,
    has an absolute enclosure far wider than the result. At each node the children are rewritten
    first, then the first matching identity is applied and the new top is looked at again (a
    replacement's own children are never rewritten again, so an identity may keep its pattern
    inside a where() branch). Memoized: nodes are frozen, and golden() rewrites the same formula
    for every case of an operator."""
    if isinstance(node, n.Binary):
        out = n.Binary(node.op, rewrite(node.left), rewrite(node.right), node.pos)
    elif isinstance(node, n.Call):
        out = n.Call(node.func, tuple(rewrite(a) for a in node.args), node.pos)
    elif isinstance(node, n.Unary):
        out = n.Unary(node.op, rewrite(node.operand), node.pos)
    elif isinstance(node, n.Compare):
        out = n.Compare(node.op, rewrite(node.left), rewrite(node.right), node.pos)
    elif isinstance(node, n.Logical):
        out = n.Logical(node.op, tuple(rewrite(o) for o in node.operands), node.pos)
    elif isinstance(node, n.Not):
        out = n.Not(rewrite(node.operand), node.pos)
    else:
        return node
    for _ in range(4):  # log(1 + exp(u)) -> log1p(exp(u)) -> max(u, 0) + ...: a short chain at the top
        for pattern, replacement in _identities():
            bound = _match(pattern, out, {})
            if bound is not None:
                out = _substitute(replacement, bound)
                break
        else:
            break
    return out


_PATTERN_VARS = ("u", "v")


@functools.lru_cache(maxsize=1)
def _identities() -> tuple:
    """Every row's rewrites, parsed (pattern variables u and v)."""
    from specgen.formula.parser import parse_formula

    out = []
    for f in FUNCTIONS.values():
        for pattern, replacement in f.rewrites:
            out.append((parse_formula(pattern, list(_PATTERN_VARS), []), parse_formula(replacement, list(_PATTERN_VARS), [])))
    return tuple(out)


def _match(pattern, node, bound: dict):
    """The bindings of the pattern variables that make ``pattern`` equal ``node``, or None."""
    if isinstance(pattern, n.Var) and pattern.name in _PATTERN_VARS:
        if pattern.name in bound:
            return bound if bound[pattern.name] == node else None
        return {**bound, pattern.name: node}
    if isinstance(pattern, n.Num):
        return bound if isinstance(node, n.Num) and node.exact == pattern.exact else None
    if type(pattern) is not type(node):
        return None
    if isinstance(pattern, (n.Binary, n.Compare)):
        if pattern.op != node.op:
            return None
        bound = _match(pattern.left, node.left, bound)
        return None if bound is None else _match(pattern.right, node.right, bound)
    if isinstance(pattern, n.Unary):
        return _match(pattern.operand, node.operand, bound) if pattern.op == node.op else None
    if isinstance(pattern, n.Call):
        if pattern.func != node.func or len(pattern.args) != len(node.args):
            return None
        for p, a in zip(pattern.args, node.args):
            bound = _match(p, a, bound)
            if bound is None:
                return None
        return bound
    return bound if pattern == node else None


def _substitute(template, bound: dict):
    if isinstance(template, n.Var) and template.name in bound:
        return bound[template.name]
    if isinstance(template, n.Binary):
        return n.Binary(template.op, _substitute(template.left, bound), _substitute(template.right, bound), template.pos)
    if isinstance(template, n.Compare):
        return n.Compare(template.op, _substitute(template.left, bound), _substitute(template.right, bound), template.pos)
    if isinstance(template, n.Unary):
        return n.Unary(template.op, _substitute(template.operand, bound), template.pos)
    if isinstance(template, n.Call):
        return n.Call(template.func, tuple(_substitute(a, bound) for a in template.args), template.pos)
    if isinstance(template, n.Logical):
        return n.Logical(template.op, tuple(_substitute(o, bound) for o in template.operands), template.pos)
    if isinstance(template, n.Not):
        return n.Not(_substitute(template.operand, bound), template.pos)
    return template


def enclosable(node, ftype=np.float64) -> bool:
    """Whether the midpoint-radius evaluation in ``ftype`` covers every function of the formula."""
    for x in n.walk(node):
        if isinstance(x, n.Const) and x.name == "inf":
            return False
        if isinstance(x, n.Call) and x.func not in _RATIONAL_CALLS and not libm.supported(x.func, ftype):
            return False
    return True


def _formula_error(spec, node, message: str) -> SpecError:
    from specgen.formula.numpy_eval import to_numpy_source
    path = getattr(spec, "path", None) or f"specs/{getattr(spec, 'id', '?')}.yaml"
    return SpecError([Problem(str(path), None, "formula", f"golden values of {to_numpy_source(node)}: {message}")])


def _accept_int(iv: _Iv, dtype: str, mode: str):
    v, e = iv.v, iv.e
    lo_r, hi_r = int_range(dtype)
    with np.errstate(all="ignore"):
        lo = np.where(e == 0, v, np.nextafter(v - e, -np.inf))
        hi = np.where(e == 0, v, np.nextafter(v + e, np.inf))
        r_lo, r_hi = round_float64_int(lo, mode), round_float64_int(hi, mode)
    ok = (r_lo == r_hi) & ~iv.bad & np.isfinite(v) & np.isfinite(e) & (np.abs(r_lo) < 2.0 ** 53)
    ok &= (r_lo >= lo_r) & (r_lo <= hi_r)
    return r_lo, ok


# ----------------------------------------------------------------------------- tiers 2 and 3

def _mp_eval(node, env):
    if isinstance(node, n.Num):
        return mpmath.mpf(node.exact.numerator) / node.exact.denominator
    if isinstance(node, n.Const):
        return CONSTANTS[node.name][1] if node.name != "inf" else mpmath.inf
    if isinstance(node, n.Var):
        return env[node.name]
    if isinstance(node, n.Unary):
        v = _mp_eval(node.operand, env)
        return -v if node.op == "-" else v
    if isinstance(node, n.Binary):
        a, b = _mp_eval(node.left, env), _mp_eval(node.right, env)
        return {"+": a + b, "-": a - b, "*": a * b}[node.op] if node.op != "/" else a / b
    if isinstance(node, n.Compare):
        a, b = _mp_eval(node.left, env), _mp_eval(node.right, env)
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[node.op]
    if isinstance(node, n.Logical):
        vals = [_mp_eval(o, env) for o in node.operands]
        return all(vals) if node.op == "and" else any(vals)
    if isinstance(node, n.Not):
        return not _mp_eval(node.operand, env)
    if isinstance(node, n.Call):
        if node.func == "where":
            return _mp_eval(node.args[1] if _mp_eval(node.args[0], env) else node.args[2], env)
        return FUNCTIONS[node.func].mpmath(*[_mp_eval(a, env) for a in node.args])
    raise TypeError(node)


def _mp_to_fraction(v) -> Fraction | None:
    v = mpmath.mpf(v)
    if not mpmath.isfinite(v):
        return None
    sign, man, exp, bc = v._mpf_  # (mpf.man_exp drops the sign: -1.5 gives (3, -1))
    if man and abs(exp + bc) > 4200:  # beyond every dtype: no giant rationals
        return None
    q = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -q if sign else q



_FALLBACK = object()  # _exact_integers: this element needs exact_value (mpmath)


def _exact_integers(node, inputs: Mapping[str, np.ndarray], attrs: Mapping[str, float]):
    """The exact values of integer ``inputs`` (equal-length 1-D arrays) at once, on object arrays of
    Python ints and Fractions: per element an int or Fraction, math.nan where a division by zero (or a
    pole) has no value, _FALLBACK where a function has no exact value (pow beyond its bound). None
    where the formula holds a node this does not cover (comparisons, where, constants): the caller
    then takes exact_value element by element (the same values, slower)."""
    def ev(x):
        if isinstance(x, n.Num):
            out = np.empty(m, dtype=object)
            out[:] = [x.exact] * m
            return out
        if isinstance(x, n.Var):
            return env[x.name]
        if isinstance(x, n.Unary):
            v = ev(x.operand)
            return np.frompyfunc(lambda a: a if a is None or a is _FALLBACK else -a, 1, 1)(v) if x.op == "-" else v
        if isinstance(x, n.Binary):
            a, b = ev(x.left), ev(x.right)
            op = {"+": lambda p, q: p + q, "-": lambda p, q: p - q, "*": lambda p, q: p * q,
                  "/": lambda p, q: Fraction(p) / q}[x.op]
            return np.frompyfunc(lambda p, q: _lifted_call(op, (p, q)), 2, 1)(a, b)
        if isinstance(x, n.Call) and x.func in FUNCTIONS:
            row = FUNCTIONS[x.func]
            fn = row.exact if row.rational else row.exact_at
            if fn is None:
                raise NotRational(x.func)
            args = [ev(a) for a in x.args]
            return np.frompyfunc(lambda *a: _lifted_call(fn, tuple(Fraction(v) if type(v) is int else v for v in a)),
                                 len(args), 1)(*args)
        raise NotRational(type(x).__name__)

    m = len(next(iter(inputs.values()))) if inputs else 0
    # Python ints (exact + - *); a division and the function table's exact forms get Fractions
    env = {}
    for k, v in inputs.items():
        arr = np.empty(m, dtype=object)
        arr[:] = [int(t) for t in v.tolist()]
        env[k] = arr
    for k, v in attrs.items():
        arr = np.empty(m, dtype=object)
        arr[:] = [_exact_attribute(v)] * m
        env[k] = arr
    try:
        out = np.broadcast_to(ev(node), (m,))
    except NotRational:
        return None
    return [math.nan if v is None else v for v in out.tolist()]


BEYOND = Fraction(2) ** 1100  # an infinite value in exact arithmetic: past every float64, rounding to the infinity


def _exact_attribute(v) -> Fraction:
    """A value as an exact rational; an infinity (Clip's unbounded side, given explicitly) as a rational
    beyond every float64, which orders like it and rounds to it (a result that cancels two infinities
    would be wrong: no spec's formula does)."""
    v = float(v)
    if math.isinf(v):
        return BEYOND if v > 0 else -BEYOND
    return Fraction(v)


def _lifted_call(fn, args):
    if any(a is None or a is _FALLBACK for a in args):
        return next(a for a in args if a is None or a is _FALLBACK)
    try:
        r = fn(*args)
    except ZeroDivisionError:
        return None
    return _FALLBACK if r is None else r


def exact_value(node, values: Mapping[str, object]) -> Fraction | float:
    """The exact (rational) or 256-bit (transcendental) value at one point; float nan/inf if not finite."""
    env = {k: Fraction(int(v)) if isinstance(v, (int, np.integer)) else _exact_attribute(v) for k, v in values.items()}
    try:
        return evaluate_exact(node, env)
    except NotRational:
        pass
    except ZeroDivisionError:
        return math.nan
    with mpmath.workprec(MP_PRECISION):
        mp_env = {k: mpmath.mpf(q.numerator) / q.denominator for k, q in env.items()}
        try:
            r = _mp_eval(node, mp_env)
        except ZeroDivisionError:  # a pole (an integer 0 to a negative power): no finite value
            return math.nan
        q = _mp_to_fraction(r)
        return float(r) if q is None else q  # float(r) of a huge/tiny value is +-inf/0


# ----------------------------------------------------------------------------- tier 0 plumbing

def _blocks(size: int):
    """[a, b) blocks of at most fast64.BLOCK elements: numpy temporaries that stay in cache."""
    return ((a, min(a + fast64.BLOCK, size)) for a in range(0, size, fast64.BLOCK))


def _finite_or_zero(a: np.ndarray, finite: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):  # ml_dtypes warns casting a bfloat16 NaN
        v = a.astype(np.float64)
    return v if finite.all() else np.where(finite, v, 0.0)


def _accept_tier0(v, e, bad, dtype: str, sign=None):
    """(accepted mask, rounded values) of a tier-0 block, for an output narrower than float64: both
    ends of [v - e, v + e] round alike (a zero result with a nonzero bound is left to tier 1: its
    sign is in doubt, unless ``sign``, the exact value's sign tracked through the functions, knows it:
    a function computing it, called only where a result rounds to zero)."""
    with np.errstate(all="ignore"):
        r = round_float64(v, dtype)
        ok = np.isfinite(v) & ~bad
        if isinstance(e, float) and e == 0.0:
            return ok, r
        # widened by 2^-51 |v|, more than the rounding of v -+ w: both ends lie outside [v - e, v + e]
        # (where w > |v| the ends have opposite signs or are zeros, and are not accepted)
        w = e * fast64.INFLATE + np.abs(v) * 2.0 ** -51
        r_lo, r_hi = round_float64(v - w, dtype), round_float64(v + w, dtype)
        ok &= (r_lo == r_hi) & np.isfinite(w)
        doubt = ok & (r == 0) & (e != 0)  # a zero whose sign the bound leaves open
        if np.any(doubt):
            zero_known = False
            if sign is not None:
                sign = sign()
                zero_known = doubt & (sign != 0)
                if np.any(zero_known):
                    r = np.where(zero_known, round_float64(np.copysign(np.zeros(np.shape(r)), sign), dtype), r)
            ok &= ~doubt | zero_known
    return ok, r


class _Float64Inputs(Mapping):
    """The inputs as float64 arrays, each converted on first use (tier 0 converts block by block)."""

    def __init__(self, flat: Mapping[str, np.ndarray]):
        self.flat, self.cache = flat, {}

    def __getitem__(self, k):
        if k not in self.cache:
            with np.errstate(all="ignore"):  # ml_dtypes warns casting a bfloat16 NaN
                self.cache[k] = self.flat[k].astype(np.float64)
        return self.cache[k]

    def __iter__(self):
        return iter(self.flat)

    def __len__(self):
        return len(self.flat)


# ----------------------------------------------------------------------------- the public entry

_ZIV_MEMO: dict = {}
_ZIV_MEMO_MAX = 200_000


def _decide(node_key: str, node, values: dict, dtype: str):
    """ziv.decide, remembered per (formula, exact input and attribute values, dtype): the corpus
    repeats values (sweeps fill shapes from a designed pool, every standard's row has the same
    specials), and each undecided one costs about a millisecond in mpmath. Same result, bounded
    memory (the memo stops growing at _ZIV_MEMO_MAX entries)."""
    key = (node_key, dtype, tuple(sorted((k, float(v)) for k, v in values.items())))
    hit = _ZIV_MEMO.get(key)
    if hit is None:
        hit = ziv.decide(node, values, dtype)
        if len(_ZIV_MEMO) < _ZIV_MEMO_MAX:
            _ZIV_MEMO[key] = hit
    return hit


@dataclass
class Golden:
    y: np.ndarray
    proven_float64: int  # elements settled by tier 1
    exact: int  # elements settled by tiers 2/3
    special: int  # non-finite inputs (special-value outcomes)
    overflow: np.ndarray  # integer outputs out of range (saturated; integer_overflow is a spec question)
    tier0: int = 0  # of proven_float64: settled by tier 0 (specgen.numerics.fast64)
    # integer outputs whose exact value does not exist (an integer division by zero): held as 0 here;
    # no standard gives them a value, so the corpus avoids them (specgen.generate.corpus)
    undefined: np.ndarray | None = None


def golden(spec, inputs: Mapping[str, np.ndarray], attributes: Mapping[str, float], out_dtype: str,
           standard: str | None = None, integer_rounding: str | None = None) -> Golden:
    """Expected output for elementwise ``inputs`` (same shape) and float32-rounded ``attributes``,
    by the formula of ``standard`` (its own where it has one, else the operator's). A string
    attribute that selects the formula (GELU's approximate) is resolved first (OpSpec.resolve).
    Integer outputs are rounded by ``integer_rounding`` when given (compare judges every accepted
    mode), else by the spec's stored outcome."""
    if getattr(spec, "choice", None) is not None:
        spec, attributes = spec.resolve(attributes, standard)
    node = spec.formula_for(standard)
    names = list(inputs)
    arrays = {k: np.asarray(v) for k, v in inputs.items()}
    shape = np.broadcast_shapes(*[a.shape for a in arrays.values()])
    flat = {k: np.broadcast_to(a, shape).ravel() for k, a in arrays.items()}
    size = int(np.prod(shape, dtype=np.int64))
    out_kind = dt.get(out_dtype)
    mode = stored_outcome(spec, "integer_rounding", standard) if not out_kind.is_float else None
    if integer_rounding is not None and not out_kind.is_float:
        mode = integer_rounding
    if mode == "formula":
        mode = "toward_zero"

    env64 = _Float64Inputs(flat)  # float64 copies, made only if a later tier needs them
    finite = np.ones(size, dtype=bool)
    big = np.zeros(size, dtype=bool)
    for k, a in flat.items():
        kind = dt.by_numpy(a.dtype)
        if kind.is_float:
            with np.errstate(all="ignore"):  # ml_dtypes warns on a bfloat16 NaN
                finite &= np.isfinite(a)
        elif kind.bits > 53:
            big |= np.abs(env64[k]) >= 2.0 ** 53
    attrs64 = {k: float(v) for k, v in attributes.items()}

    done = np.zeros(size, dtype=bool)
    proven = 0
    rational = is_rational(node)
    transcendental = not rational and out_kind.is_float and enclosable(rewrite(node))
    if transcendental:
        try:
            ziv.check_literals(node)
        except ziv.Undecided as exc:
            raise _formula_error(spec, node, str(exc)) from None
    out_float = np.zeros(size, dtype=out_kind.numpy) if out_kind.is_float else None
    enode = rewrite(node) if transcendental else node  # what the enclosures evaluate
    ok = np.zeros(size, dtype=bool)
    tier0 = 0
    r = np.zeros(size)  # integer outputs: the proven values, float64-held
    if rational or transcendental:
        todo = None  # every finite element
        if rational and fast64.supported(node):  # tier 0 first: plain float64, running bound (float64
            # outputs: the values that are exact or one IEEE rounding of the exact value, alpha * x)
            in_dtypes = {k: dt.by_numpy(a.dtype).name for k, a in flat.items()}
            for a, b in _blocks(size):
                blk = {k: _finite_or_zero(v[a:b], finite[a:b]) for k, v in flat.items()}
                if out_dtype == "float64":
                    v, e, undecided, rounded = fast64.evaluate_rounded(node, blk, in_dtypes, attrs64)
                    with np.errstate(invalid="ignore"):
                        ok[a:b] = np.isfinite(v) & ~(big[a:b] | undecided | ~finite[a:b]) & rounded
                    out_float[a:b] = v
                    continue
                v, e, undecided = fast64.evaluate(node, blk, in_dtypes, attrs64)
                bad = big[a:b] | undecided | ~finite[a:b]
                if out_kind.is_float:
                    ok[a:b], out_float[a:b] = _accept_tier0(v, e, bad, out_dtype)
                else:
                    r[a:b], ok[a:b] = _accept_int(_Iv(*np.broadcast_arrays(v, e, bad)), out_dtype, mode)
            tier0 = int(ok.sum())
            todo = np.flatnonzero(finite & ~ok)
        elif transcendental and out_dtype != "float64":  # tier 0 for the functions: the formula as
            # written, then its rewritten form (no cancellation, no overflow) on what that left undecided
            todo = np.flatnonzero(finite)
            in_dtypes = {k: dt.by_numpy(a.dtype).name for k, a in flat.items()}
            for form in dict.fromkeys((node, enode)):
                if not len(todo) or not fast64.supported(form, True):
                    continue
                for a, b in _blocks(len(todo)):
                    sub = todo[a:b]
                    blk = {k: _finite_or_zero(v[sub], finite[sub]) for k, v in flat.items()}
                    v, e, undecided, sign, none, beyond = fast64.evaluate_signed(form, blk, in_dtypes, attrs64)
                    accepted, rounded = _accept_tier0(v, e, big[sub] | undecided, out_dtype, sign)
                    # what tier 1 decides from its enclosures (_no_real_value, _beyond_float64), here
                    # from tier 0's: NaN where there is no real value (sqrt of a negative), +-inf where
                    # the value passes float64 (exp of a huge input)
                    for where, value in _decided_without_enclosure(none, beyond):
                        if where is not False and np.any(where):
                            where = where & ~big[sub] & ~accepted
                            rounded[where] = round_float64(np.full(int(where.sum()), value), out_dtype)
                            accepted = accepted | where
                    ok[sub], out_float[sub] = accepted, rounded
                todo = todo[~ok[todo]]
            tier0 = int(ok.sum())
        todo = np.flatnonzero(finite) if todo is None else todo
        for a, b in _blocks(len(todo)):  # tier 1 on what tier 0 did not prove
            sub = todo[a:b]
            m = len(sub)
            zeros = np.zeros(m)
            env = {k: _Iv(env64[k][sub], zeros, big[sub]) for k in flat}
            env.update({k: _Iv(np.full(m, v), zeros, np.zeros(m, dtype=bool)) for k, v in attrs64.items()})
            with np.errstate(all="ignore"):
                ev = _Interval(env, m)
                iv = ev.eval(enode)
            if out_kind.is_float:
                r1, ok1 = _accept_float(iv, out_dtype)
                out_float[sub[ok1]] = round_float64(r1[ok1], out_dtype)
                if transcendental and not ok1.all():
                    # what no enclosure can hold, decided here rather than element by element in mpmath
                    # (tens of microseconds each: half of a float32 sweep of sqrt or acos, most of exp's);
                    # no real value is NaN in every type, float64 included (its sample sweeps of acos,
                    # asin, acosh spent 40-57 µs per element); past float64, +-inf: for float64 outputs
                    # where long double shows the value past float64's rounding threshold
                    nan = ~ok1 & _no_real_value(ev, enode)
                    beyond = _beyond_float64 if out_dtype != "float64" else _beyond_float64_rounding
                    huge = np.where(ok1 | nan, 0.0, beyond(ev, enode))
                    for where, value in _decided_without_enclosure(nan, huge):
                        if where.any():
                            out_float[sub[where]] = round_float64(np.full(int(where.sum()), value), out_dtype)
                            ok1 = ok1 | where
            else:
                r1, ok1 = _accept_int(iv, out_dtype, mode)
                r[sub[ok1]] = r1[ok1]
            ok[sub[ok1]] = True
        proven = int(ok.sum())
        done |= ok

    if transcendental:  # second pass in long double on what float64 left undecided, then Ziv in mpmath
        todo = np.flatnonzero(~done & finite)
        if len(todo) and libm.LONGDOUBLE_OK and enclosable(enode, np.longdouble):
            m = len(todo)
            zl = np.zeros(m, dtype=np.longdouble)
            env = {k: _Iv(v[todo].astype(np.longdouble), zl, big[todo]) for k, v in env64.items()}
            env.update({k: _Iv(np.full(m, v, dtype=np.longdouble), zl, np.zeros(m, dtype=bool)) for k, v in attrs64.items()})
            with np.errstate(all="ignore"):
                iv_ld = _Interval(env, m, np.longdouble).eval(enode)
            r_ld, ok_ld = _accept_float_ld(iv_ld, out_dtype)
            idx = todo[ok_ld]
            out_float[idx] = round_float64(r_ld[ok_ld], out_dtype)
            ok[idx] = True
            done[idx] = True
            proven += len(idx)
            todo = todo[~ok_ld]
        if len(todo) and out_dtype != "float64" and dd64.supported(node):  # double-double: ties a tiny term breaks
            try:
                r_dd, ok_dd = dd64.decide(node, {k: env64[k][todo] for k in names}, attrs64, out_dtype)
            except dd64.Unsupported:
                ok_dd = np.zeros(len(todo), dtype=bool)
            idx = todo[ok_dd]
            out_float[idx] = round_float64(r_dd[ok_dd], out_dtype)
            ok[idx] = done[idx] = True
            proven += len(idx)
            todo = todo[~ok_dd]
        ieee_t = None
        node_key = repr(enode) if len(todo) else None
        for i in todo:
            try:
                val, exact_zero = _decide(node_key, enode, {**{k: env64[k][i] for k in names}, **attrs64}, out_dtype)
            except ziv.Undecided as exc:
                point = ", ".join(f"{k} = {float(env64[k][i])!r}" for k in names)
                raise _formula_error(spec, node, f"at {point}: {exc}") from None
            if exact_zero or math.isinf(val):  # a zero's sign, or a pole's (pow(-0, -3) = -inf), by IEEE
                if ieee_t is None:
                    with np.errstate(all="ignore"):
                        ieee_t = np.broadcast_to(evaluate(node, {**env64, **attrs64}), (size,))
                if exact_zero:
                    val = math.copysign(0.0, ieee_t[i]) if ieee_t[i] == 0 else 0.0
                elif math.isinf(ieee_t[i]) and ieee_t[i] != val and val == math.inf:
                    val = float(ieee_t[i])
            out_float[i] = round_float64(np.array([val]), out_dtype)[0]
            ok[i] = True
            done[i] = True
        mp_count = len(todo)
    else:
        mp_count = 0

    # non-finite inputs: the spec's special-value outcomes
    special_idx = np.flatnonzero(~finite)
    special_vals = np.zeros(len(special_idx))
    if len(special_idx):
        special_vals = _specials(spec, node, {k: v[special_idx] for k, v in env64.items()}, attrs64, out_dtype, standard)
        done[special_idx] = True

    rest = np.flatnonzero(~done)
    if rational and len(rest) and out_kind.is_float and out_dtype != "float64" and dd64.supported(node) \
            and all(dt.by_numpy(a.dtype).is_float for a in flat.values()):  # double-double before exact rationals
        try:
            r_dd, ok_dd = dd64.decide(node, {k: env64[k][rest] for k in names}, attrs64, out_dtype)
        except dd64.Unsupported:
            ok_dd = np.zeros(len(rest), dtype=bool)
        idx = rest[ok_dd]
        out_float[idx] = round_float64(r_dd[ok_dd], out_dtype)
        ok[idx] = done[idx] = True
        proven += len(idx)

    # tiers 2/3 for the rest
    rest = np.flatnonzero(~done)
    ieee = None
    exact_vals = []
    overflow = np.zeros(size, dtype=bool)
    undefined = np.zeros(size, dtype=bool)
    many = None
    if len(rest) and not out_kind.is_float and all(not dt.by_numpy(a.dtype).is_float for a in flat.values()):
        many = _exact_integers(node, {k: v[rest] for k, v in flat.items()}, attrs64)  # None: not supported
    lo_int, hi_int = int_range(out_dtype) if not out_kind.is_float else (None, None)
    for j, i in enumerate(rest):
        q = many[j] if many is not None else _FALLBACK
        if isinstance(q, int) or (isinstance(q, Fraction) and q.denominator == 1):  # an integer: nothing to round
            val = int(q)
            if not lo_int <= val <= hi_int:
                overflow[i] = True
                val = min(max(val, lo_int), hi_int)
            exact_vals.append(val)
            continue
        if q is _FALLBACK:
            q = exact_value(node, {**{k: (int(flat[k][i]) if not dt.by_numpy(flat[k].dtype).is_float else float(flat[k][i]))
                                      for k in names}, **attrs64})
        if isinstance(q, float):  # nan/inf from mpmath, or a division by an exact zero
            if math.isnan(q) and out_kind.is_float:
                # x / +-0 is an infinity of IEEE 754 (1 / -0 = -inf, 0 / 0 = NaN), not a NaN: the exact
                # rationals have no signed zero, so take the formula's literal IEEE value there
                if ieee is None:
                    with np.errstate(all="ignore"):
                        ieee = np.broadcast_to(evaluate(node, {**env64, **attrs64}), (size,))
                q = float(ieee[i]) if math.isinf(ieee[i]) else q
            if not out_kind.is_float:  # an integer division by zero: no value (Golden.undefined)
                undefined[i] = True
                q = 0
            exact_vals.append(q)
            continue
        if out_kind.is_float:
            val = round_fraction(q, out_dtype)
            if val == 0 and q == 0:
                if ieee is None:
                    with np.errstate(all="ignore"):
                        ieee = np.broadcast_to(evaluate(node, {**env64, **attrs64}), (size,))
                val = math.copysign(0.0, ieee[i]) if ieee[i] == 0 else 0.0
            exact_vals.append(val)
        else:
            val = round_fraction(q, out_dtype, mode)
            lo, hi = int_range(out_dtype)
            if not lo <= val <= hi:
                overflow[i] = True
                val = min(max(val, lo), hi)
            exact_vals.append(val)

    wrap = _wrapped(spec, standard, node, flat, attrs64, overflow, out_dtype, mode) if overflow.any() else {}
    if wrap:  # integer_overflow wrap: the stored value is the wrapped one, not the saturated
        pos = {int(i): j for j, i in enumerate(rest)}
        for i, v in wrap.items():
            exact_vals[pos[i]] = v
    target = out_kind.numpy
    if out_kind.is_float:
        y = out_float  # every element is proven (ok), special or in rest
        if len(rest):
            y[rest] = round_float64(np.array(exact_vals, dtype=np.float64), out_dtype)
        if len(special_idx):
            y[special_idx] = round_float64(special_vals, out_dtype)
        canonical_nan(y)  # one NaN: the same golden bytes on every machine
    else:
        y = np.zeros(size, dtype=target)
        if ok.any():
            y[ok] = r[ok].astype(np.int64).astype(target) if out_kind.kind == "int" or out_kind.bits < 64 else \
                np.array([int(t) for t in r[ok]], dtype=object).astype(target)
        if len(rest):
            y[rest] = np.array(exact_vals, dtype=object).astype(target)
        if len(special_idx):  # an integer result of non-finite inputs (a comparison's truth value)
            finite_special = np.isfinite(special_vals)
            y[special_idx[finite_special]] = special_vals[finite_special].astype(target)
            undefined[special_idx[~finite_special]] = True  # no integer holds a NaN or an infinity
    return Golden(y.reshape(shape), proven, len(rest) + mp_count, len(special_idx), overflow.reshape(shape), tier0,
                  undefined.reshape(shape))


def overflow_outcomes(spec, standard: str | None, float_inputs: bool) -> tuple[str, ...]:
    """The spec's integer_overflow outcomes for a case whose inputs are (not) floating-point."""
    sv = spec.special_values.get("integer_overflow")
    return sv.outcomes(standard, float_inputs) if sv else ("unspecified",)


def _wrapped(spec, standard, node, flat, attrs, overflow, out_dtype, mode) -> dict[int, int]:
    """Where integer_overflow stores wrap (its first outcome for these inputs): the exact result rounded by
    ``mode`` and reduced modulo 2**bits into the type's range (two's complement), per overflowing element."""
    float_inputs = any(dt.by_numpy(a.dtype).is_float for a in flat.values())
    if overflow_outcomes(spec, standard, float_inputs)[0] != "wrap":
        return {}
    from specgen.numerics.ulp import round_integer

    lo, hi = int_range(out_dtype)
    width = hi - lo + 1
    out = {}
    for i in np.flatnonzero(overflow):
        env = {k: (int(v[i]) if not dt.by_numpy(v.dtype).is_float else float(v[i])) for k, v in flat.items()}
        r = round_integer(Fraction(exact_value(node, {**env, **attrs})), mode)
        out[int(i)] = (r - lo) % width + lo
    return out


def special_categories(inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The special-value category of each element: ``nan`` where any input is NaN, else ``pos_inf``
    where any is +inf, else ``neg_inf`` where any is -inf (the rule compare uses too)."""
    arrays = [np.asarray(v, dtype=np.float64) for v in inputs.values()]
    nan = np.zeros(np.broadcast_shapes(*[a.shape for a in arrays]), dtype=bool)
    pos, neg = nan.copy(), nan.copy()
    for a in arrays:
        nan |= np.isnan(a)
        pos |= a == np.inf
        neg |= a == -np.inf
    return {"nan": nan, "pos_inf": pos & ~nan, "neg_inf": neg & ~nan & ~pos}


def _specials(spec, node, env, attrs, out_dtype, standard) -> np.ndarray:
    """float64 results for elements with a non-finite input (special_categories decides which)."""
    with np.errstate(all="ignore"):
        literal = np.asarray(evaluate(node, {**env, **attrs}), dtype=np.float64)
    literal = np.broadcast_to(literal, next(iter(env.values())).shape).copy()
    out = literal.copy()
    for category, mask in special_categories(env).items():
        if not mask.any():
            continue
        outcome = stored_outcome(spec, category, standard)
        if outcome == "nan":
            out[mask] = np.nan
        elif outcome == "zero":
            out[mask] = 0.0
        elif outcome == "limit":  # the formula at +-1e300 (as compare's `limit`), bounded evaluation
            for i in np.flatnonzero(mask):
                point = {**{k: (math.copysign(1e300, v[i]) if math.isinf(v[i]) else v[i]) for k, v in env.items()},
                         **attrs}
                try:
                    out[i] = _limit_at(node, _point_key(point), out_dtype)
                except ziv.Undecided as exc:
                    raise _formula_error(spec, node, f"limit at {category}: {exc}") from None
    return out


def _point_key(point: dict) -> tuple:
    """A point as a hashable key that keeps what == loses: the sign of a zero (float.hex), and an
    integer's type and every digit (an int64 past 2**53 is not a float)."""
    def typed(v):
        if isinstance(v, str):
            return ("str", v)
        if isinstance(v, (bool, np.bool_)):
            return ("bool", bool(v))
        if isinstance(v, (int, np.integer)):
            return ("int", int(v))
        return ("hex", float(v).hex())
    return tuple(sorted((k, typed(v)) for k, v in point.items()))


_FROM_KEY = {"str": lambda v: v, "bool": bool, "int": int, "hex": float.fromhex}


@functools.lru_cache(maxsize=4096)
def _limit_at(node, key: tuple, out_dtype: str) -> float:
    """The formula's value at one point, rounded to ``out_dtype`` (exactly for a rational formula or
    an integer output, by Ziv's bounded evaluation otherwise). Cached: the corpus asks for the same
    few points (x = +-1e300 with the same attributes) in thousands of cases, about 2 ms each."""
    point = {k: _FROM_KEY[kind](v) for k, (kind, v) in key}
    if is_rational(node) or not dt.get(out_dtype).is_float:
        q = exact_value(node, point)
        return q if isinstance(q, float) else round_fraction(q, out_dtype)
    val, _ = ziv.decide(node, point, out_dtype)
    return val
