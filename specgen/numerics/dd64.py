"""Golden values, the double-double tier: what float64 and long double leave undecided, vectorised.

The elements the midpoint-radius enclosures of specgen.numerics.exact cannot decide are mostly
ties that a tiny term breaks: a float32 subnormal x makes 0.5 * x (1 + tanh(u)) sit on a float32
rounding midpoint, and only 0.5 x tanh(u), of relative size |x|, says which way it rounds. A float64
enclosure of 1 + tanh(u) has absolute width 2^-53 and loses it; a double-double keeps the sum
unevaluated, (1, tanh(u)), and the product 0.5 x (1, tanh(u)) = (0.5 x, 0.5 x tanh(u)) carries it.

Each value is a double-double h + l with a bound e on |h + l - exact|, built from error-free
transformations (TwoSum, TwoProduct: exact away from overflow and underflow, which are marked
undecided) plus the standard model for the few rounded operations: every float64 operation that
is not error-free adds at most 2^-53 of its result's magnitude (and 2^-1074 for a product or
quotient near underflow); bounds are inflated by 1 + 2^-40 for their own rounding.

Function calls use numpy's float64 function at the high part with the function-table row's
``ulps`` and ``slope`` (the argument's low part and bound carried by the slope), except at tiny
arguments where the row's ``small`` gives a polynomial with a remainder bound (exp(u) = 1 + u +
u^2/2 + R): the polynomial is evaluated in double-double, so 1 + u keeps u. The tier evaluates the
formula as written (its cancellations, 1 + erf(u), are exactly what double-double sums keep), and
``decide`` returns the correctly rounded value where the enclosure rounds one way, else leaves the
element to mpmath (specgen.numerics.ziv).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from specgen.formula import nodes as n
from specgen.numerics.eft import two_prod_err, two_sum_err
from specgen.numerics.ulp import round_to

U2 = 2.0 ** -52  # two roundings' worth of the unit roundoff 2^-53
ETA = 2.0 ** -1070  # underflow of a product or quotient (a few smallest subnormals)
INFLATE = 1.0 + 2.0 ** -40
SAFE_MIN, SAFE_MAX = 2.0 ** -960, 2.0 ** 995  # TwoProduct is exact between these


class Unsupported(Exception):
    """A node this tier does not evaluate."""


@dataclass
class _D:
    h: np.ndarray
    l: np.ndarray
    e: np.ndarray
    bad: np.ndarray


def _two_sum(a, b):
    s = a + b
    return s, two_sum_err(a, b, s)


def _norm(h, t, e, bad):
    """(h, t) renormalised by TwoSum (exact), non-finite parts marked."""
    s, err = _two_sum(h, t)
    return _D(s, err, e * INFLATE, bad | ~np.isfinite(s) | ~np.isfinite(err) | ~np.isfinite(e))


@lru_cache(maxsize=512)
def _literal(text: str):
    q = Fraction(text)
    h = float(q)
    rest = q - Fraction(h)
    lo = float(rest)
    err = abs(rest - Fraction(lo))
    return h, lo, (float(err) * 2 if err else 0.0)


@lru_cache(maxsize=8)
def _constant(name: str):
    import mpmath

    with mpmath.workprec(300):
        v = mpmath.pi if name == "pi" else mpmath.e
        h = float(v)
        lo = float(v - h)
        return h, lo, abs(h) * 2.0 ** -150


class _Eval:
    def __init__(self, env: dict, size: int):
        self.env = env
        self.size = size
        self.zeros = np.zeros(size)
        self.false = np.zeros(size, dtype=bool)
        self.memo: dict = {}

    def const(self, h, lo, e) -> _D:
        z = self.zeros
        return _D(z + h, z + lo, z + e, self.false)

    def eval(self, node) -> _D:
        if node not in self.memo:
            self.memo[node] = self._eval(node)
        return self.memo[node]

    def _eval(self, node) -> _D:
        if isinstance(node, n.Num):
            return self.const(*_literal(node.text))
        if isinstance(node, n.Const) and node.name in ("pi", "e"):
            return self.const(*_constant(node.name))
        if isinstance(node, n.Var):
            return self.env[node.name]
        if isinstance(node, n.Unary):
            a = self.eval(node.operand)
            return _D(-a.h, -a.l, a.e, a.bad) if node.op == "-" else a
        if isinstance(node, n.Binary):
            a, b = self.eval(node.left), self.eval(node.right)
            if node.op == "+":
                return self.add(a, b)
            if node.op == "-":
                return self.add(a, _D(-b.h, -b.l, b.e, b.bad))
            if node.op == "*":
                return self.mul(a, b)
            return self.div(a, b)
        if isinstance(node, n.Call):
            return self.call(node)
        raise Unsupported(type(node).__name__)

    # -- arithmetic
    def add(self, a: _D, b: _D) -> _D:
        s, t = _two_sum(a.h, b.h)
        t2 = t + (a.l + b.l)  # two roundings
        e = a.e + b.e + U2 * (np.abs(t) + np.abs(a.l) + np.abs(b.l))
        return _norm(s, t2, e, a.bad | b.bad)

    def mul(self, a: _D, b: _D) -> _D:
        p = a.h * b.h
        pe = two_prod_err(a.h, b.h, p)
        c1, c2, c3 = a.h * b.l, a.l * b.h, a.l * b.l
        t2 = pe + (c1 + (c2 + c3))  # five roundings at most
        e = (U2 * 3 * (np.abs(pe) + np.abs(c1) + np.abs(c2) + np.abs(c3)) + 4 * ETA
             + (np.abs(a.h) + np.abs(a.l)) * b.e + (np.abs(b.h) + np.abs(b.l)) * a.e + a.e * b.e)
        big = np.maximum(np.abs(a.h), np.abs(b.h))
        tiny = (np.abs(p) < SAFE_MIN) & (p != 0) | (((a.h == 0) | (b.h == 0)) & ((a.l != 0) | (b.l != 0)))
        return _norm(p, t2, e, a.bad | b.bad | (big > SAFE_MAX) | tiny)

    def div(self, a: _D, b: _D) -> _D:
        with np.errstate(all="ignore"):
            q1 = a.h / b.h
            p = q1 * b.h
            pe = two_prod_err(q1, b.h, p)
            c = q1 * b.l
            r = (a.h - p) + ((a.l - pe) - c)  # a.h - p exact (Sterbenz); three roundings after it
            r_err = U2 * 2 * (np.abs(a.l) + np.abs(pe) + np.abs(c) + np.abs(r)) + ETA
            q2 = r / b.h
            mb = np.abs(b.h) - np.abs(b.l)  # |b| >= mb
            den = mb - b.e
            e_round = (r_err / np.abs(b.h) + U2 * np.abs(q2) + ETA
                       + (np.abs(r) + r_err) * np.abs(b.l) / (np.abs(b.h) * np.where(mb > 0, mb, 1.0)))
            q = (np.abs(q1) + np.abs(q2)) * INFLATE + e_round
            e_prop = (a.e + q * b.e) / np.where(den > 0, den, 1.0)
            bad = a.bad | b.bad | (den <= np.abs(b.h) / 2) | (np.abs(q1) < SAFE_MIN) & (a.h != 0) | \
                (np.abs(a.h) < SAFE_MIN) & (a.h != 0) | (np.abs(b.h) > SAFE_MAX) | (np.abs(a.h) > SAFE_MAX) | \
                (np.abs(q1) > SAFE_MAX) | (a.h == 0) & (a.l != 0)
            return _norm(q1, q2, e_round + e_prop, bad)

    # -- conditions and piecewise functions
    def sign_of(self, a: _D):
        """(sign of the exact value, decided mask)."""
        with np.errstate(invalid="ignore"):
            decided = (np.abs(a.h) - np.abs(a.l)) * (1 - 2.0 ** -50) > a.e * INFLATE
        return np.sign(a.h), decided & ~a.bad

    def decide(self, node):
        if isinstance(node, n.Compare):
            a, b = self.eval(node.left), self.eval(node.right)
            d = self.add(a, _D(-b.h, -b.l, b.e, b.bad))
            sg, ok = self.sign_of(d)
            exact = (d.h == 0) & (d.l == 0) & (d.e == 0) & ~d.bad
            res = {"<": sg < 0, "<=": sg <= 0, ">": sg > 0, ">=": sg >= 0, "==": sg == 0, "!=": sg != 0}[node.op]
            return res, ~(ok | exact)
        if isinstance(node, n.Logical):
            parts = [self.decide(o) for o in node.operands]
            res, und = parts[0]
            for r, u in parts[1:]:
                res = (res & r) if node.op == "and" else (res | r)
                und = und | u
            return res, und
        if isinstance(node, n.Not):
            r, u = self.decide(node.operand)
            return ~r, u
        raise Unsupported("condition")

    @staticmethod
    def pick(c, a: _D, b: _D, und) -> _D:
        return _D(np.where(c, a.h, b.h), np.where(c, a.l, b.l), np.where(c, a.e, b.e),
                  und | np.where(c, a.bad, b.bad))

    def extreme(self, a: _D, b: _D, larger: bool) -> _D:
        d = self.add(a, _D(-b.h, -b.l, b.e, b.bad))
        sg, ok = self.sign_of(d)
        exact = (d.h == 0) & (d.l == 0) & (d.e == 0) & ~d.bad
        take_a = (sg >= 0) if larger else (sg <= 0)
        return self.pick(take_a, a, b, ~(ok | exact))

    def call(self, node) -> _D:
        f, args = node.func, node.args
        if f == "where":
            c, und = self.decide(args[0])
            return self.pick(c, self.eval(args[1]), self.eval(args[2]), und)
        if f in ("min", "max"):
            out = self.eval(args[0])
            for a in args[1:]:
                out = self.extreme(out, self.eval(a), f == "max")
            return out
        if f == "clamp":
            x, lo, hi = (self.eval(a) for a in args)
            return self.extreme(self.extreme(x, lo, True), hi, False)
        if f == "abs":
            a = self.eval(args[0])
            sg, ok = self.sign_of(a)
            flip = sg < 0
            return _D(np.where(flip, -a.h, a.h), np.where(flip, -a.l, a.l), a.e, a.bad | ~(ok | ((a.h == 0) & (a.e == 0))))
        from specgen.formula.functions import FUNCTIONS

        row = FUNCTIONS.get(f)
        lib = row.libm if row is not None else None
        if lib is None or lib.slope is None or len(args) != 1 or np.float64 not in lib.numpy:
            raise Unsupported(f)
        return self.function(lib, self.eval(args[0]))

    def function(self, lib, a: _D) -> _D:
        """numpy's float64 value at the high part, widened by the row's ulps and by the slope times
        the low part and the bound; at tiny arguments the row's ``small`` polynomial instead."""
        ulps = lib.ulps[np.float64]
        with np.errstate(all="ignore"):
            v = np.asarray(lib.numpy[np.float64](a.h), dtype=np.float64)
            spread = np.abs(a.l) + a.e
            e = (np.abs(v) * ulps * U2 + ulps * 2.0 ** -1074) * INFLATE + lib.slope(v, a.h, spread) * spread
            d_lo, d_hi = lib.domain
            bad = a.bad | ~np.isfinite(v) | ~np.isfinite(e) | (a.h - spread <= d_lo) | (a.h + spread > d_hi)
            out = _D(v, self.zeros, e * INFLATE, bad)
            if lib.small is not None:
                out = self.small(lib, a, out)
        return out

    def small(self, lib, a: _D, out: _D) -> _D:
        """Where |a| <= the row's radius: the polynomial in double-double plus the remainder bound."""
        poly, radius, coef, power = lib.small
        near = (np.abs(a.h) + np.abs(a.l) + a.e) <= radius
        if not near.any():
            return out
        sub = _Eval({"u": a}, self.size)
        p = sub.eval(_small_node(poly))
        m = np.abs(a.h) + np.abs(a.l) + a.e
        rem = coef * m ** power * INFLATE + 2.0 ** -1074
        # the polynomial's argument error: its slope near 0 is the row's slope at the argument
        return _D(np.where(near, p.h, out.h), np.where(near, p.l, out.l), np.where(near, p.e + rem, out.e),
                  np.where(near, p.bad | a.bad, out.bad))


@lru_cache(maxsize=64)
def _small_node(text: str):
    from specgen.formula.parser import parse_formula

    return parse_formula(text, ["u"], [])


def supported(node) -> bool:
    try:
        _check(node)
    except Unsupported:
        return False
    return True


def _check(node):
    from specgen.formula.functions import FUNCTIONS

    if isinstance(node, n.Const) and node.name not in ("pi", "e"):
        raise Unsupported(node.name)
    if isinstance(node, n.Call) and node.func not in ("where", "min", "max", "clamp", "abs"):
        row = FUNCTIONS.get(node.func)
        if row is None or row.libm is None or row.libm.slope is None or len(node.args) != 1:
            raise Unsupported(node.func)
    if isinstance(node, n.Call) and node.func == "sign":
        raise Unsupported("sign")
    for child in _children(node):
        _check(child)


def _children(node):
    if isinstance(node, n.Unary):
        return [node.operand]
    if isinstance(node, (n.Binary, n.Compare)):
        return [node.left, node.right]
    if isinstance(node, n.Call):
        return list(node.args)
    if isinstance(node, n.Logical):
        return list(node.operands)
    if isinstance(node, n.Not):
        return [node.operand]
    return []


def _round_to_odd(h, t):
    """h + t (h = fl(h + t)) rounded to float64 by round-to-odd, so that rounding it again to a
    narrower dtype is one correct rounding of h + t."""
    odd = (h.view(np.uint64) & np.uint64(1)) == 1
    toward = np.where(t > 0, np.inf, -np.inf)
    return np.where((t != 0) & ~odd & np.isfinite(h), np.nextafter(h, toward), h)


def decide(node, inputs: dict[str, np.ndarray], attributes: dict[str, float], dtype: str):
    """(float64-held rounded values, accepted mask) for float inputs (finite, exact in float64) and
    an output dtype narrower than float64. Raises Unsupported for a formula it cannot evaluate."""
    size = len(next(iter(inputs.values())))
    z = np.zeros(size)
    f = np.zeros(size, dtype=bool)
    env = {k: _D(np.asarray(v, dtype=np.float64), z, z, f) for k, v in inputs.items()}
    for k, v in attributes.items():
        if not math.isfinite(v):
            raise Unsupported("non-finite attribute")
        env[k] = _D(z + v, z, z, f)
    with np.errstate(all="ignore"):
        r = _Eval(env, size).eval(node)
        w = r.e * INFLATE
        ends = []
        for sign in (-1.0, 1.0):
            t = r.l + sign * w  # one rounding: widen it outward by 2^-52 of itself
            t = t + sign * np.abs(t) * U2
            h2, t2 = _two_sum(r.h, t)
            ends.append(round_to(_round_to_odd(h2, t2), dtype))
        lo, hi = ends
        ok = ~r.bad & np.isfinite(r.h) & np.isfinite(w) & (lo == hi) & (lo != 0) & np.isfinite(lo) & np.isfinite(hi)
    return np.where(ok, lo, 0.0).astype(np.float64), ok
