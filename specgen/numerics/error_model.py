"""The error model: per element, the set of results every correct evaluation of the formula can give.

A formula is evaluated over **intervals** (float64 endpoints, rounded outward whenever a float64
operation is inexact, so each interval rigorously encloses the real values). Every node's interval
encloses its exact value *and* every value a correct kernel can hold at that point:

- inputs are exact (they are values of the tensor dtype); attributes and literals may be held in
  any allowed compute type, so their interval is the hull of their roundings to those types;
- each arithmetic operation (+ - * /) is rounded once in any allowed compute type: the tolerance's
  ``intermediate`` dtype or a wider float type (float32, float64), or not at all (exact / fused).
  Rounding to nearest is monotone, so the rounded set of an interval [lo, hi] in type t is
  [RN_t(lo), RN_t(hi)]; the node's interval is the hull over the allowed types. That is exactly
  "each rounded intermediate contributes at most half an ULP of its own magnitude", and it
  covers fused multiply-add (the unfused rounding set contains the exact product), any mix of
  compute types per operation, and division as multiplication by a correctly rounded reciprocal
  (a / b is the hull of the quotient and of a * RN_t(1 / b));
- min, max, clamp, abs, negation, sign are exact and monotone: endpoint-wise;
- ``where(c, a, b)``: a comparison whose operand intervals overlap may go either way in a correct
  kernel (Shrink near a float16-rounded threshold). Such elements are evaluated once per
  combination of branch choices and a result is accepted if it lies in any of those intervals
  (a union, so a value between the branches is still rejected); inside one evaluation the
  interval is the hull of both branches only for nested choices beyond ``MAX_BRANCH_COMBINATIONS``;
- exp, log, tanh, ... are monotone: endpoint images, widened by the function's accepted error
  (``FUNCTION_ULPS``: the function's budget for the type it is computed in, in ULPs of that type:
  a float16 erf 4 float16 ULPs, a float32 one 16 float32 ULPs) and by numpy's own float64 error;
- flush-to-zero is a property of inputs and outputs (the spec's ``subnormal`` semantics), not of
  intermediates: ``compare`` judges a subnormal input also as a zero, and accepts a zero where the
  accepted output set reaches the subnormal range (``Accepted.flushable``). A kernel that flushes an
  intermediate (Softsign as x * (1 / (1 + |x|)) giving 0 for |x| > 2**126) is not accepted.

The output may then be rounded once more to the output dtype: the accepted results are
[RN_out(lo), RN_out(hi)] of the root interval. This is tight: a result outside it cannot come
from any evaluation order the model admits. An intermediate rounded to a compute type it overflows
is not admitted (an infinity is no rounding of a finite value: compare fails such results where
the exact value is finite); an intermediate beyond every type's range keeps its float64 value, so a
clamp after it still bounds the result.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from specgen.formula import nodes as n
from specgen.formula.functions import CONSTANTS, FUNCTION_ULPS, FUNCTIONS  # noqa: F401 (FUNCTION_ULPS re-exported)
from specgen.numerics.eft import two_prod_err, two_sum_err
from specgen.numerics import ulp as U

_SAFE = 2.0 ** 995


@dataclass
class Interval:
    lo: np.ndarray
    hi: np.ndarray

    def empty(self) -> np.ndarray:
        """No real value (lo > hi, held as [inf, -inf]): a function's argument outside its domain."""
        return self.lo > self.hi

    def hull(self, other: Interval) -> Interval:
        return Interval(np.minimum(self.lo, other.lo), np.maximum(self.hi, other.hi))

    def where(self, mask, other: Interval) -> Interval:
        return Interval(np.where(mask, self.lo, other.lo), np.where(mask, self.hi, other.hi))


@dataclass
class Tri:
    """A condition over intervals: where it surely holds, surely fails; elsewhere undecided."""

    true: np.ndarray
    false: np.ndarray


def compute_types(intermediate: str) -> tuple[str, ...]:
    """The float types a correct kernel may round an intermediate to: the tolerance's intermediate
    dtype and every standard type with more precision and at least its range."""
    f = U.fmt(intermediate)
    wider = [t for t in ("float32", "float64")
             if U.FORMATS[t].precision > f.precision and U.FORMATS[t].emax >= f.emax]
    return (f.name, *wider)


class IntervalModel:
    """Evaluates a formula over intervals. ``env`` maps input names to float64 arrays (exact values
    of the tensor dtype) and attribute names to floats (the float32-rounded attribute values)."""

    def __init__(self, env: Mapping[str, object], intermediate: str, shape, inputs: set[str] | None = None,
                 forced: Mapping[int, bool] | None = None):
        self.env = env
        self.types = compute_types(intermediate)
        self.shape = shape
        self.inputs = inputs if inputs is not None else {k for k, v in env.items() if np.ndim(v) > 0}
        self.ambiguous = np.zeros(shape, dtype=bool)  # some comparison could go either way
        self.ambiguous_nodes: list = []  # the where() nodes whose condition is undecided somewhere
        self.forced = dict(forced or {})  # id(where node) -> branch taken where undecided

    # -- building blocks -------------------------------------------------------------------
    def point(self, value) -> Interval:
        v = np.broadcast_to(np.asarray(value, dtype=np.float64), self.shape)
        return Interval(v, v)

    def rounded(self, iv: Interval) -> Interval:
        """The hull of RN_t(iv) over the allowed compute types, plus iv itself (exact/fused)."""
        lo, hi = iv.lo, iv.hi
        with np.errstate(all="ignore"):
            for t in self.types:
                if t == "float64":
                    continue  # float64 endpoints are already float64 values: RN64 is the identity
                # a rounding that overflows (a finite value becoming an infinity) is not a rounding the
                # model admits: compare fails what follows from it where the exact value is finite
                lo = np.minimum(lo, _no_overflow(U.round_to(iv.lo, t).astype(np.float64), iv.lo))
                hi = np.maximum(hi, _no_overflow(U.round_to(iv.hi, t).astype(np.float64), iv.hi))
        return Interval(lo, hi)

    # -- evaluation ------------------------------------------------------------------------
    def eval(self, node) -> Interval:
        if isinstance(node, n.Num):
            return self.constant(float(node.value), node.exact)
        if isinstance(node, n.Const):
            value = float(CONSTANTS[node.name][0])
            if node.name == "inf":
                return self.point(value)
            return self.constant(value, None)
        if isinstance(node, n.Var):
            value = self.env[node.name]
            if node.name in self.inputs:
                return self.point(value)
            return self.constant(float(value), Fraction(float(value)))
        if isinstance(node, n.Unary):
            a = self.eval(node.operand)
            return Interval(-a.hi, -a.lo) if node.op == "-" else a  # an empty set stays empty: [inf, -inf]
        if isinstance(node, n.Binary):
            a, b = self.eval(node.left), self.eval(node.right)
            return _emptied(self.binary(node.op, a, b), a.empty() | b.empty())
        if isinstance(node, n.Call):
            return self.call(node)
        raise TypeError(f"cannot bound a {type(node).__name__} as a value")

    def constant(self, value: float, exact: Fraction | None) -> Interval:
        """A literal or attribute: held in any allowed type (its roundings), and, when the float64
        value is not the exact literal (0.1), widened to enclose the exact value."""
        iv = self.point(value)
        if exact is None or Fraction(value) != exact:
            iv = Interval(np.nextafter(iv.lo, -np.inf), np.nextafter(iv.hi, np.inf))
        return self.rounded(iv)

    def binary(self, op: str, a: Interval, b: Interval) -> Interval:
        with np.errstate(all="ignore"):
            if op == "+":
                raw = Interval(_add_down(a.lo, b.lo), _add_up(a.hi, b.hi))
            elif op == "-":
                raw = Interval(_add_down(a.lo, -b.hi), _add_up(a.hi, -b.lo))
            elif op == "*":
                raw = _mul(a, b)
            else:
                raw = _div(a, b)
                recip = self.rounded(_div(self.point(1.0), b))
                raw = raw.hull(_mul(a, recip))
        return self.rounded(_no_nan(raw))

    def condition(self, node) -> Tri:
        if isinstance(node, n.Compare):
            a, b = self.eval(node.left), self.eval(node.right)
            op = node.op
            if op in (">", "<=", "<", ">="):
                if op in ("<", ">="):
                    a, b = b, a
                    op = ">" if op == "<" else "<="
                gt = Tri(a.lo > b.hi, a.hi <= b.lo)  # a > b
                return gt if op == ">" else Tri(gt.false, gt.true)
            eq = Tri((a.lo == a.hi) & (b.lo == b.hi) & (a.lo == b.lo), (a.hi < b.lo) | (b.hi < a.lo))
            return eq if op == "==" else Tri(eq.false, eq.true)
        if isinstance(node, n.Logical):
            parts = [self.condition(o) for o in node.operands]
            if node.op == "and":
                return Tri(np.logical_and.reduce([p.true for p in parts]),
                           np.logical_or.reduce([p.false for p in parts]))
            return Tri(np.logical_or.reduce([p.true for p in parts]),
                       np.logical_and.reduce([p.false for p in parts]))
        if isinstance(node, n.Not):
            t = self.condition(node.operand)
            return Tri(t.false, t.true)
        iv = self.eval(node)  # a value used as a condition: nonzero is true
        return Tri((iv.lo > 0) | (iv.hi < 0), (iv.lo == 0) & (iv.hi == 0))

    def call(self, node) -> Interval:
        f, args = node.func, node.args
        if f in ("where", "select"):
            c = self.condition(args[0])
            a, b = self.eval(args[1]), self.eval(args[2])
            undecided = ~(c.true | c.false)
            self.ambiguous |= undecided
            if undecided.any() and all(x is not node for x in self.ambiguous_nodes):
                self.ambiguous_nodes.append(node)
            if id(node) in self.forced:  # one combination of branch choices (see accepted_outputs)
                return a.where(c.true | (undecided & self.forced[id(node)]), b)
            return a.where(c.true, b).where(~undecided, a.hull(b))
        vals = [self.eval(a) for a in args]
        return _emptied(self.function(FUNCTIONS[f], vals), np.logical_or.reduce([v.empty() for v in vals]))

    def function(self, fn, vals) -> Interval:
        """A row of the function table: its interval image, widened by its accepted ULPs (in every
        allowed compute type) and numpy's own error, then rounded like any operation."""
        outside = None  # where the argument lies outside the function's real domain (monotone rows)
        with np.errstate(all="ignore"):
            if fn.interval is not None:
                lo, hi = fn.interval(*[(v.lo, v.hi) for v in vals])
            elif fn.monotone is not None:
                a = vals[0]
                a_lo, a_hi = a.lo, a.hi
                if fn.libm is not None:  # the argument's part inside the function's real domain; none: no
                    d_lo, d_hi = fn.libm.domain  # real value (sqrt, log of a negative, acos(3)): only NaN
                    outside = (a_hi < d_lo) | (a_lo > d_hi)
                    a_lo, a_hi = np.maximum(a_lo, d_lo), np.minimum(a_hi, d_hi)
                lo, hi = fn.numpy(a_lo), fn.numpy(a_hi)
                if fn.monotone == "decreasing":
                    lo, hi = hi, lo
                lo = np.where(np.isnan(lo), -np.inf, lo)  # a function without a known domain: unbounded (NaN)
                hi = np.where(np.isnan(hi), np.inf, hi)
            else:
                raise NotImplementedError(f"the error model has no rule for {fn.name}()")
            if fn.ulps is None:
                return Interval(lo, hi)  # exact functions (min, abs, ...): no rounding of their own
            lo = lo - np.abs(lo) * fn.libm_rel - 5e-324
            hi = hi + np.abs(hi) * fn.libm_rel + 5e-324
            los, his = [lo], [hi]
            for t, budget in _widening_types(fn, self.types):
                los.append(lo - budget * U.ulp(lo, t))
                his.append(hi + budget * U.ulp(hi, t))
            lo = np.minimum.reduce([np.where(np.isnan(x), -np.inf, x) for x in los])
            hi = np.maximum.reduce([np.where(np.isnan(x), np.inf, x) for x in his])
        out = self.rounded(Interval(lo, hi))
        return out if outside is None else _emptied(out, outside)


_WIDENING: dict = {}


def _widening_types(fn, types: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """(type, budget) of the compute types whose widening of a function's image is not inside
    another's: type t is dropped where some t' has no more precision, at least t's smallest normal
    exponent and at least t's budget, since then budget' * ulp_t'(v) >= budget * ulp_t(v) for every v
    (a float32 tanh's 5-ULP widening contains a float64 one's), and the hull is the same."""
    key = (fn.name, types)
    if key in _WIDENING:
        return _WIDENING[key]
    rows = [(t, fn.budget(t)) for t in types]
    keep = []
    for t, b in rows:
        f = U.fmt(t)
        if not any(u != t and U.fmt(u).precision <= f.precision and U.fmt(u).emin >= f.emin and c >= b >= 0
                   for u, c in rows):
            keep.append((t, b))
    _WIDENING[key] = tuple(keep)
    return _WIDENING[key]


def _no_overflow(rounded: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``rounded``, except where rounding a finite ``value`` overflowed: there ``value`` itself."""
    over = np.isinf(rounded)
    if not over.any():
        return rounded
    return np.where(over & np.isfinite(value), value, rounded)


# ----------------------------------------------------------------------------- outward float64 arithmetic

def _add_down(a, b):
    s = a + b
    err = two_sum_err(a, b, s)
    inexact = (err != 0) | ~np.isfinite(err)
    return np.where(inexact & (err < 0) | inexact & ~np.isfinite(err) & np.isfinite(s), np.nextafter(s, -np.inf), s)


def _add_up(a, b):
    s = a + b
    err = two_sum_err(a, b, s)
    inexact = (err != 0) | ~np.isfinite(err)
    return np.where(inexact & (err > 0) | inexact & ~np.isfinite(err) & np.isfinite(s), np.nextafter(s, np.inf), s)


def _risky(*xs):
    out = np.zeros(np.shape(xs[0]), dtype=bool)
    for x in xs:
        m = np.abs(x)
        out |= (m > _SAFE) | ((m < 2.0 ** -960) & (m != 0))
    return out


def _mul_bounds(x, y):
    """(down, up) enclosures of x*y for float64 arrays (inf*0 taken as 0: an infinite endpoint of
    an interval stands for 'unbounded', and 0 times anything finite is 0)."""
    p = x * y
    p = np.where(np.isnan(p), 0.0, p)
    err = two_prod_err(x, y, p)  # a*b = p + err
    risky = _risky(x, y, p) | ~np.isfinite(err) | ((p == 0) & (x != 0) & (y != 0))
    fin = np.isfinite(p)
    down = np.where(fin & (risky | (err < 0)), np.nextafter(p, -np.inf), p)
    up = np.where(fin & (risky | (err > 0)), np.nextafter(p, np.inf), p)
    return down, up


def _mul(a: Interval, b: Interval) -> Interval:
    pairs = [_mul_bounds(x, y) for x in _ends(a) for y in _ends(b)]
    return Interval(np.minimum.reduce([d for d, _ in pairs]), np.maximum.reduce([u for _, u in pairs]))


def _div_bounds(x, y):
    q = x / y
    q = np.where(np.isnan(q), 0.0, q)  # inf/inf: the caller's interval is unbounded anyway
    fin = np.isfinite(q) & np.isfinite(y) & np.isfinite(x)
    # remainder r = x - q*y exactly; sign(r/y) says whether q is below or above x/y
    p = q * y
    r = (x - p) - two_prod_err(q, y, p)
    risky = _risky(q, y, x) | ~np.isfinite(r)
    below = np.where(y > 0, r > 0, r < 0)  # exact quotient above q
    above = np.where(y > 0, r < 0, r > 0)
    down = np.where(fin & (risky | above), np.nextafter(q, -np.inf), q)
    up = np.where(fin & (risky | below), np.nextafter(q, np.inf), q)
    return down, up


def _ends(iv: Interval):
    """The distinct endpoint arrays (one when the interval is a point everywhere)."""
    return (iv.lo,) if iv.lo is iv.hi or np.array_equal(iv.lo, iv.hi) else (iv.lo, iv.hi)


def _div(a: Interval, b: Interval) -> Interval:
    through_zero = (b.lo <= 0) & (b.hi >= 0)
    pairs = [_div_bounds(x, y) for x in _ends(a) for y in _ends(b)]
    lo = np.minimum.reduce([d for d, _ in pairs])
    hi = np.maximum.reduce([u for _, u in pairs])
    return Interval(np.where(through_zero, -np.inf, lo), np.where(through_zero, np.inf, hi))


def _emptied(iv: Interval, empty) -> Interval:
    """``iv``, empty ([inf, -inf]: only a NaN is accepted) where ``empty``: an operand with no real
    value gives an expression with none (a where() takes the branches' hull instead, so an empty
    branch it may not take accepts the other's values)."""
    if not np.any(empty):
        return iv
    return Interval(np.where(empty, np.inf, iv.lo), np.where(empty, -np.inf, iv.hi))


def _no_nan(iv: Interval) -> Interval:
    return Interval(np.where(np.isnan(iv.lo), -np.inf, iv.lo), np.where(np.isnan(iv.hi), np.inf, iv.hi))


# ----------------------------------------------------------------------------- the public face

MAX_BRANCH_COMBINATIONS = 64


@dataclass
class Accepted:
    """Per element: the accepted results of a correct kernel, in the output dtype, as float64.

    ``lo``/``hi`` bound every accepted result. Where a comparison may go either way
    (``ambiguous``), the accepted set is a union of intervals, one per combination of branch
    choices: ``alternatives`` holds (element indices, lo, hi) per combination, and ``contains``
    checks membership in the union (not in the hull, which would accept values between branches).
    """

    lo: np.ndarray  # smallest accepted output value
    hi: np.ndarray  # largest accepted output value
    flushable: np.ndarray  # the accepted set reaches the subnormal range: a flushed zero may be accepted
    ambiguous: np.ndarray  # a comparison may go either way (each branch accepted)
    raw: Interval  # the root interval before the final rounding to the output dtype
    alternatives: list = None  # [(flat indices of ambiguous elements, lo, hi), ...]

    def contains(self, actual, flush: bool = False) -> np.ndarray:
        a = np.broadcast_to(np.asarray(actual, dtype=np.float64), np.shape(self.lo))
        ok = (a >= self.lo) & (a <= self.hi)
        if self.alternatives:
            flat_ok = ok.reshape(-1).copy()
            flat_a = a.reshape(-1)
            idx = self.alternatives[0][0]
            union = np.zeros(idx.shape, dtype=bool)
            for _, lo, hi in self.alternatives:
                union |= (flat_a[idx] >= lo) & (flat_a[idx] <= hi)
            flat_ok[idx] = union
            ok = flat_ok.reshape(np.shape(self.lo))
        if flush:
            ok = ok | (self.flushable & (a == 0))
        return ok


def accepted_outputs(formula, env: Mapping[str, object], intermediate: str, output_dtype: str,
                     inputs: set[str] | None = None) -> Accepted:
    """The output values every correct evaluation of ``formula`` can give, per element.

    ``env``: inputs as float64 arrays (finite values), attributes as floats. ``intermediate``: the
    narrowest compute type allowed (the tolerance's ``intermediate``). ``inputs``: which names of
    ``env`` are input tensors (exact); the others are attributes (held in any compute type).
    """
    shape = np.broadcast_shapes(*[np.shape(v) for v in env.values()]) if env else ()
    model = IntervalModel(env, intermediate, shape, inputs)
    out = U.fmt(output_dtype)
    with np.errstate(all="ignore"):
        root = _no_nan(model.eval(formula))
        lo = U.round_to(root.lo, out).astype(np.float64)
        hi = U.round_to(root.hi, out).astype(np.float64)
        flushable = (lo < out.min_normal) & (hi > -out.min_normal)
        alternatives = None
        nodes = model.ambiguous_nodes
        if nodes and 2 ** len(nodes) <= MAX_BRANCH_COMBINATIONS:
            alternatives = _branch_alternatives(formula, env, intermediate, out, model, shape)
    return Accepted(lo, hi, flushable, model.ambiguous, root, alternatives)


def _branch_alternatives(formula, env, intermediate, out, model, shape):
    """Evaluate the ambiguous elements once per combination of branch choices."""
    idx = np.flatnonzero(np.broadcast_to(model.ambiguous, shape))
    sub = {k: (np.broadcast_to(np.asarray(v, dtype=np.float64), shape).reshape(-1)[idx] if k in model.inputs else v)
           for k, v in env.items()}
    alternatives = []
    for choice in itertools.product((True, False), repeat=len(model.ambiguous_nodes)):
        forced = {id(node): c for node, c in zip(model.ambiguous_nodes, choice)}
        m = IntervalModel(sub, intermediate, idx.shape, model.inputs, forced)
        r = _no_nan(m.eval(formula))
        alternatives.append((idx, U.round_to(r.lo, out).astype(np.float64), U.round_to(r.hi, out).astype(np.float64)))
    return alternatives
