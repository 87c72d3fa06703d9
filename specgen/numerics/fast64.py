"""Golden values, tier 0: the formula in plain float64 with a running error bound.

The cheapest proof of a correctly rounded value (specgen.numerics.exact's tier 1 is the next one).
A rational formula (+ - * /, min, max, clamp, abs, sign, where, comparisons) is evaluated in
float64 operation by operation, as numpy would, while a rigorous bound ``e`` on |value - exact
value| rides along, built from the standard model of IEEE arithmetic instead of error-free
transformations: ``|fl(a op b) - (a op b)| <= u |fl(a op b)| (1 + u) + eta`` with u = 2^-53 and
eta the smallest subnormal (none for + and -, whose rounding error is 0 in the subnormal range),
plus the operands' own errors propagated (|a| e_b + |b| e_a + e_a e_b for a product;
(e_a + |a/b| e_b) / (|b| - e_b) for a quotient; the larger of the two for min/max, the chosen
operand's where the order is certain beyond the bounds). Every bound is inflated by 1 + 2^-49,
which covers the rounding of the bound's own few operations.

A value whose error bound is statically zero costs nothing extra: a static analysis of the formula
(``_Grid``: each value is a multiple of 2^q below 2^top with at most w significant bits, from the
input dtypes and the attribute values) proves, for instance, that a product of two float32 values
or a sum of two float16 values is exact in float64, so its bound is the scalar 0.

``evaluate`` returns the value, the bound and the elements whose comparisons the bounds leave
undecided; ``specgen.numerics.exact`` accepts an element when both ends of [v - e, v + e] (widened
to cover their own rounding) round to the same output value, every comparison is decided, and it
is not a zero of doubtful sign; what this tier cannot prove (a result within e of a rounding
boundary, exact ties, overflow) goes to tier 1. golden() calls it on blocks of ``BLOCK`` elements
so that every temporary stays in cache: on large arrays numpy is bound by memory traffic and page
faults, not arithmetic (a 2^22-element product costs ~8 ns per element, a 2^14 one under 1 ns).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from specgen import dtypes as dt
from specgen.formula import nodes as n

BLOCK = 1 << 14
U = 2.0 ** -53
ETA = 4 * 2.0 ** -1074  # underflow of a product or quotient and of the bound's own terms
INFLATE = 1.0 + 2.0 ** -49
UI = U * INFLATE * (1.0 + 2.0 ** -52)  # u (1 + u), inflated
_FUNCS = {"abs", "min", "max", "clamp", "sign", "where"}
_TWO52 = 2.0 ** -52


class Unsupported(Exception):
    """The formula has a node this tier does not evaluate (transcendental calls, constants)."""


# ----------------------------------------------------------------------------- static exactness

@dataclass(frozen=True)
class _Grid:
    """Every value of a node is M * 2^k with integer |M| < 2^w, k >= q, |value| < 2^top (or 0)."""

    w: int
    q: int
    top: int

    @property
    def exact64(self) -> bool:
        return self.w <= 53 and self.q >= -1074 and self.top <= 1024


_ZERO = _Grid(0, 1 << 20, -(1 << 20))


@lru_cache(maxsize=1024)
def _grid_of_value(v: float) -> _Grid:
    if v == 0:
        return _ZERO
    f = Fraction(v)
    m, k = abs(f.numerator), -(f.denominator.bit_length() - 1)
    while m % 2 == 0:
        m //= 2
        k += 1
    return _Grid(m.bit_length(), k, k + m.bit_length())


def grid_of_dtype(name: str) -> _Grid | None:
    d = dt.get(name)
    if d.is_float:
        return _Grid(d.precision, d.emin - d.precision + 1, d.emax + 1)
    return _Grid(d.bits, 0, d.bits) if d.bits <= 32 else None


def _sum_grid(a: _Grid, b: _Grid) -> _Grid:
    if a == _ZERO or b == _ZERO:
        return b if a == _ZERO else a
    q, top = min(a.q, b.q), max(a.top, b.top) + 1
    return _Grid(top - q, q, top)


def _prod_grid(a: _Grid, b: _Grid) -> _Grid:
    if a == _ZERO or b == _ZERO:
        return _ZERO
    return _Grid(a.w + b.w, a.q + b.q, a.top + b.top)


def _either_grid(a: _Grid, b: _Grid) -> _Grid:
    if a == _ZERO or b == _ZERO:
        return b if a == _ZERO else a
    return _Grid(max(a.w, b.w), min(a.q, b.q), max(a.top, b.top))


# ----------------------------------------------------------------------------- the evaluation

class _Lazy:
    """A value computed on first use (a tracked sign), then kept."""

    __slots__ = ("fn", "value")

    def __init__(self, fn):
        self.fn, self.value = fn, None

    def get(self):
        if self.fn is not None:
            with np.errstate(all="ignore"):
                self.value = self.fn()
            self.fn = None
        return self.value


def _sign_of(sg):
    return sg.get() if isinstance(sg, _Lazy) else sg


@dataclass
class _V:
    v: np.ndarray | float
    e: np.ndarray | float  # bound on |v - exact|; the scalar 0.0 where statically exact
    grid: _Grid | None  # static exactness (None: not known exact)
    # sign of the exact value where known beyond v +- e (exp > 0), else 0; a _Lazy until asked for
    # (golden looks at it only where a result rounds to zero: computing it at every node cost a
    # fifth of a transcendental formula's tier 0)
    sg: np.ndarray | float | _Lazy | None = None
    bad: np.ndarray | bool = False  # undecided here (overflow, a pole, a divisor near 0); where() picks
    # the exact value is certainly not a real number: a function's argument lies entirely outside its
    # domain, or an operand of arithmetic, negation or abs has none (exact._no_real_value's rule:
    # where, min, max, clamp and sign are not looked through; their elements stay undecided)
    none: np.ndarray | bool = False
    # +1 / -1 where the exact value is certainly beyond float64's range with that sign (0: not known):
    # a function at an exact argument whose float64 value overflows (exp, sinh, cosh of a huge input;
    # exact._beyond_float64's rule); only negation passes it on
    beyond: np.ndarray | float = 0.0
    # the value is the float64 rounding (to nearest) of the exact value: one IEEE operation on exact
    # operands (x * alpha, x - bias), or negation, abs, min, max or where() of such values and exact
    # ones (rounding to nearest is monotone and odd); where the bound is 0 it is exact anyway
    rn: np.ndarray | bool = False


def _sgn(a: _V):
    """The exact value's sign where known: from v +- e, else from the tracked sign (0: unknown)."""
    with np.errstate(invalid="ignore"):
        known = np.where(np.abs(a.v) > a.e, np.sign(a.v), 0.0) if not _zero(a.e) else np.sign(a.v)
    return known if a.sg is None else np.where(known == 0, _sign_of(a.sg), known)


@lru_cache(maxsize=256)
def supported(node, transcendental: bool = False) -> bool:
    """Whether this tier evaluates the formula: every node one it knows, comparisons and logic only
    as conditions of where() (elsewhere tier 1 gives the usual error). With ``transcendental``, also
    calls of one-argument functions whose function-table row has a float64 ``libm`` with a
    ``slope`` (the bound on the derivative that carries an argument's error to the value)."""
    return _value_ok(node, transcendental)


def _libm_row(name: str, exact_argument: bool = False):
    """The function-table row's fast path for float64, or None (no libm, not one argument, or no slope
    while the argument may carry an error: a row without one is evaluated at exact arguments only,
    an input or attribute, as in sin(x): the call's own error bound is then the whole bound)."""
    from specgen.formula.functions import FUNCTIONS

    f = FUNCTIONS.get(name)
    if f is None or f.libm is None or np.float64 not in f.libm.numpy or f.max_args != 1:
        return None
    if f.libm.slope is None and not exact_argument:
        return None
    return f.libm


def _exact_argument(node) -> bool:
    """The argument is statically exact: an input or an attribute (their bound is 0)."""
    return isinstance(node, n.Var)


def _value_ok(node, transcendental: bool) -> bool:
    if isinstance(node, (n.Num, n.Var)):
        return True
    if isinstance(node, n.Const):
        return transcendental and node.name in ("pi", "e")
    if isinstance(node, n.Unary):
        return _value_ok(node.operand, transcendental)
    if isinstance(node, n.Binary):
        return _value_ok(node.left, transcendental) and _value_ok(node.right, transcendental)
    if isinstance(node, n.Call) and node.func in _FUNCS:
        if node.func == "where":
            return len(node.args) == 3 and _cond_ok(node.args[0], transcendental) and \
                _value_ok(node.args[1], transcendental) and _value_ok(node.args[2], transcendental)
        return all(_value_ok(a, transcendental) for a in node.args)
    if isinstance(node, n.Call) and transcendental and len(node.args) == 1 and \
            _libm_row(node.func, _exact_argument(node.args[0])) is not None:
        return _value_ok(node.args[0], transcendental)
    return False


def _cond_ok(node, transcendental: bool) -> bool:
    if isinstance(node, n.Compare):
        return _value_ok(node.left, transcendental) and _value_ok(node.right, transcendental)
    if isinstance(node, n.Logical):
        return all(_cond_ok(o, transcendental) for o in node.operands)
    if isinstance(node, n.Not):
        return _cond_ok(node.operand, transcendental)
    return False


class _Eval:
    def __init__(self, env: dict[str, _V]):
        self.env = env
        self.undecided: np.ndarray | bool = False
        self._memo: dict = {}

    def eval(self, node) -> _V:
        # keyed by the node's value: a rewrite's repeated subtree (exp(-u) twice) is evaluated once
        if node not in self._memo:
            self._memo[node] = self._eval(node)
        return self._memo[node]

    def _eval(self, node) -> _V:
        if isinstance(node, n.Num):
            return _literal(node.text)
        if isinstance(node, n.Var):
            return self.env[node.name]
        if isinstance(node, n.Unary):
            a = self.eval(node.operand)
            return _V(-a.v, a.e, a.grid, None if a.sg is None else _Lazy(lambda: -_sign_of(a.sg)), a.bad, a.none,
                      -a.beyond, a.rn) if node.op == "-" else a
        if isinstance(node, n.Binary):
            return self.binary(node.op, self.eval(node.left), self.eval(node.right))
        if isinstance(node, n.Call):
            return self.call(node)
        if isinstance(node, n.Const) and node.name in ("pi", "e"):
            value = math.pi if node.name == "pi" else math.e
            return _V(value, math.ulp(value), None)
        raise Unsupported(type(node).__name__)

    def binary(self, op: str, a: _V, b: _V) -> _V:
        out = self._binary(op, a, b)
        out.bad = out.bad | a.bad | b.bad
        out.none = a.none | b.none
        out.rn = _zero_bound(a.e) & _zero_bound(b.e)  # IEEE rounds the one operation correctly
        if a.sg is not None or b.sg is not None:  # a tracked sign (exp > 0) survives * / and same-sign sums
            out.sg = _Lazy(lambda: _tracked_sign(op, a, b))
        return out

    def _binary(self, op: str, a: _V, b: _V) -> _V:
        exact = a.grid is not None and b.grid is not None
        if op in "+-":
            v = a.v + b.v if op == "+" else a.v - b.v
            grid = _sum_grid(a.grid, b.grid) if exact else None
            if grid is not None and grid.exact64:
                return _V(v, 0.0, grid)
            return _V(v, _total(np.abs(v) * (U * INFLATE), a.e, b.e), None)
        if op == "*":
            v = a.v * b.v
            grid = _prod_grid(a.grid, b.grid) if exact else None
            if grid is not None and grid.exact64:
                return _V(v, 0.0, grid)
            terms = [np.abs(v) * (UI * INFLATE) + ETA]
            if not _zero(b.e):
                terms.append(np.abs(a.v) * b.e)
            if not _zero(a.e):
                terms.append(np.abs(b.v) * a.e)
            if not (_zero(a.e) or _zero(b.e)):
                terms.append(a.e * b.e)
            e = _total(*terms)
            # an exact zero operand makes the product exactly zero (its sign is IEEE's: no bound), but
            # its sign is the other operand's only where that one's sign is certain: 0 * (exp(x) - 1) at
            # x = -2^-149 computes 1 - 1 = +0 where the exact factor is negative (undecided here)
            zero_a, zero_b = (a.v == 0) & (a.e == 0), (b.v == 0) & (b.e == 0)
            with np.errstate(invalid="ignore"):
                doubt = (zero_a & (np.abs(b.v) <= b.e) & (b.e != 0)) | (zero_b & (np.abs(a.v) <= a.e) & (a.e != 0))
            return _V(v, np.where(zero_a | zero_b, 0.0, e), None, None, doubt if np.any(doubt) else False)
        # division: never statically exact
        v = a.v / b.v
        terms = [np.abs(v) * (UI * INFLATE) + ETA]
        if _zero(a.e) and _zero(b.e):
            bad = b.v == 0
        else:  # |a'/b' - a/b| <= (e_a + |a/b| e_b) / (|b| - e_b); undecided unless |b| > 2 e_b
            mb = np.abs(b.v)
            den = (mb - b.e) * (1.0 - 2.0 ** -50)
            num = a.e if _zero(b.e) else np.abs(v) * ((1.0 + 2.0 ** -50) * b.e) + a.e
            terms.append(num / den)
            bad = den <= mb * 0.5
        zero = (a.v == 0) & (a.e == 0)  # an exact zero numerator: exactly zero (b != 0, else undecided)
        return _V(v, np.where(zero, 0.0, _total(*terms)), None, None, bad)

    def pick(self, a: _V, b: _V, larger: bool) -> _V:
        out = self._pick(a, b, larger)
        out.bad = a.bad | b.bad
        out.rn = _rounded(a) & _rounded(b)
        return out

    def _pick(self, a: _V, b: _V, larger: bool) -> _V:
        """max (larger) or min. Where the order is certain beyond the bounds the result carries the
        chosen operand's bound, elsewhere the larger of the two (max and min are 1-Lipschitz)."""
        v = np.maximum(a.v, b.v) if larger else np.minimum(a.v, b.v)
        if a.grid is not None and b.grid is not None:
            return _V(v, 0.0, _either_grid(a.grid, b.grid))
        if _zero(a.e) or _zero(b.e):  # one exact operand c (often a constant): the bound is the
            c, o = (a, b) if _zero(a.e) else (b, a)  # other's, or 0 where c is certainly chosen
            c_wins = (c.v - o.v if larger else o.v - c.v) > o.e * INFLATE
            return _V(v, np.where(c_wins, 0.0, o.e), None)
        certain = np.abs(a.v - b.v) > (a.e + b.e) * INFLATE
        take_a = (a.v >= b.v) if larger else (a.v <= b.v)
        return _V(v, np.where(certain, np.where(take_a, a.e, b.e), np.maximum(a.e, b.e)), None)

    def decide(self, node):
        """The condition's value; where the bounds do not decide it, ``self.undecided`` is set."""
        if isinstance(node, n.Compare):
            a, b = self.eval(node.left), self.eval(node.right)
            if a.bad is not False or b.bad is not False:
                self.undecided = self.undecided | a.bad | b.bad
            res = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                   "==": np.equal, "!=": np.not_equal}[node.op](a.v, b.v)
            if not (_zero(a.e) and _zero(b.e)):
                slack = a.e + b.e
                with np.errstate(invalid="ignore"):
                    diff = a.v - b.v
                    decided = (slack == 0) | (np.abs(diff) > slack * INFLATE)
                self.undecided = self.undecided | ~decided
            return res
        if isinstance(node, n.Logical):
            parts = [self.decide(o) for o in node.operands]
            combine = np.logical_and if node.op == "and" else np.logical_or
            res = parts[0]
            for r in parts[1:]:
                res = combine(res, r)
            return res
        if isinstance(node, n.Not):
            return np.logical_not(self.decide(node.operand))
        raise Unsupported("condition")

    def call(self, node) -> _V:
        f, args = node.func, node.args
        if f == "where":
            c = self.decide(args[0])
            a, b = self.eval(args[1]), self.eval(args[2])
            e = 0.0 if _zero(a.e) and _zero(b.e) else np.where(c, a.e, b.e)
            grid = _either_grid(a.grid, b.grid) if a.grid is not None and b.grid is not None else None
            sg = _Lazy(lambda: np.where(c, _sgn(a), _sgn(b))) if a.sg is not None or b.sg is not None else None
            bad = np.where(c, a.bad, b.bad) if a.bad is not False or b.bad is not False else False
            return _V(np.where(c, a.v, b.v), e, grid, sg, bad, rn=np.where(c, _rounded(a), _rounded(b)))
        if f in ("min", "max"):
            out = self.eval(args[0])
            for a in args[1:]:
                out = self.pick(out, self.eval(a), f == "max")
            return out
        if f == "clamp":
            x, lo, hi = (self.eval(a) for a in args)
            return self.pick(self.pick(x, lo, True), hi, False)
        if f == "abs":
            a = self.eval(args[0])
            return _V(np.abs(a.v), a.e, a.grid, None, a.bad, a.none, rn=a.rn)
        if f == "sign":
            a = self.eval(args[0])
            bad = a.bad if _zero(a.e) else a.bad | (np.abs(a.v) <= a.e)
            return _V(np.sign(a.v), 0.0, _Grid(1, 0, 1), None, bad)
        row = _libm_row(f, len(args) == 1 and _exact_argument(args[0]))
        if row is not None:
            return self.libm_call(row, self.eval(args[0]))
        raise Unsupported(f)

    def libm_call(self, row, a: _V) -> _V:
        """numpy's float64 function: its own error (the row's ``ulps``, in ULPs of the value) plus the
        argument's error carried by the row's ``slope`` (a bound on |f'| over [a - e, a + e]).
        Outside the domain, or where anything is not finite, the element is undecided."""
        ulps = row.ulps[np.float64]
        v = np.asarray(row.numpy[np.float64](a.v), dtype=np.float64)
        e = (np.abs(v) * (ulps * _TWO52 * (1.0 + 2.0 ** -20)) + ulps * 2.0 ** -1074) * INFLATE
        if not _zero(a.e):
            if row.slope is None:  # supported() admits such a row at exact arguments only
                raise Unsupported("an inexact argument of a function without a slope bound")
            e = _total(e, row.slope(v, a.v, a.e) * a.e)
        d_lo, d_hi = row.domain
        lo, hi = (a.v, a.v) if _zero(a.e) else (a.v - a.e * INFLATE, a.v + a.e * INFLATE)
        bad = ~np.isfinite(v) | ~np.isfinite(e)
        if d_lo > -math.inf:
            bad |= lo <= d_lo  # a pole at the domain's edge (log 0) counts as outside
        if d_hi < math.inf:
            bad |= hi > d_hi
        # the argument certainly outside the closed hull of the domain (lo, hi finite: not an
        # overflowed or NaN intermediate): no real value (sqrt of a negative, acos beyond 1)
        none = a.none
        with np.errstate(invalid="ignore"):
            outside = (hi < d_lo) | (lo > d_hi)
        if np.any(outside):
            none = none | (outside & np.isfinite(lo) & np.isfinite(hi) & np.logical_not(a.bad))
        bad = bad | a.bad
        beyond = 0.0
        if _zero(a.e) and a.bad is False:  # a point argument: an infinite float64 value is within the
            # row's ULPs of the exact one, so |f| > 2^1023, past the overflow of every narrower type
            with np.errstate(invalid="ignore"):
                inf = np.isinf(v) & np.isfinite(a.v) & (a.v >= d_lo) & (a.v <= d_hi)
            if np.any(inf):
                beyond = np.where(inf, np.sign(v), 0.0)
        if _zero(a.e):  # exact points: the value is exact (tanh(0) = 0)
            for x0, y0 in row.exact.items():
                at = a.v == x0
                if np.any(at):
                    # f(+-0) = +-0 (tanh, erf, sin, ...: C99 Annex F): a zero at zero keeps its sign,
                    # as in specgen.numerics.libm.image
                    y = np.copysign(0.0, a.v) if y0 == 0 and x0 == 0 else float(y0)
                    v, e = np.where(at, y, v), np.where(at, 0.0, e)
        sg = None
        if row.sign == "positive":
            sg = 1.0
        elif row.sign == "argument":
            sg = _Lazy(lambda: _sgn(a))
        return _V(v, e, None, sg, bad, none, beyond)


def _tracked_sign(op: str, a: _V, b: _V):
    """The sign of a op b from its operands' (known or tracked) signs; 0 where they do not give it."""
    sa, sb = _sgn(a), _sgn(b)
    if op in "*/":
        return sa * sb
    sb = sb if op == "+" else -sb
    zero_a, zero_b = (a.v == 0) & _zero_bound(a.e), (b.v == 0) & _zero_bound(b.e)  # exact zeros
    return np.where(sa == sb, sa, np.where(zero_a, sb, np.where(zero_b, sa, 0.0)))


@lru_cache(maxsize=1024)
def _literal(text: str) -> _V:
    value, exact = float(text), Fraction(text)
    if Fraction(value) == exact:
        return _V(value, 0.0, _grid_of_value(value))
    # a literal not exact in float64: its own rounding, doubled for safety
    return _V(value, abs(float(Fraction(value) - exact)) * 2 or 2.0 ** -1074, None)


def _rounded(a: _V):
    """Where the value is exact or the float64 rounding of the exact value."""
    return _zero_bound(a.e) | a.rn


def _zero_bound(e):
    """Where the bound is 0 (the value is exact)."""
    return True if _zero(e) else e == 0


def _zero(e) -> bool:
    return isinstance(e, float) and e == 0.0


def _total(first, *rest):
    """The sum of nonnegative bound terms (the scalar 0.0 ones skipped), inflated."""
    out = first
    for t in rest:
        if not _zero(t):
            out = out + t
    return out * INFLATE


def evaluate(node, inputs: dict[str, np.ndarray], input_dtypes: dict[str, str], attributes: dict[str, float]):
    """(value, bound, undecided) of the formula on one block: float64 arrays (the bound may be the
    scalar 0.0: exact everywhere) and a bool mask (or False). Inputs must be finite (callers put 0
    where they are not) and exactly representable in float64."""
    return evaluate_signed(node, inputs, input_dtypes, attributes)[:3]


def evaluate_signed(node, inputs: dict[str, np.ndarray], input_dtypes: dict[str, str], attributes: dict[str, float]):
    """``evaluate``, the exact value's sign where the bound does not give it but the functions do
    (exp(u) > 0 below the float64 range; 0: unknown), as a function computing it on first call
    (None: nothing tracked), and where the exact value is certainly not a real number (a bool mask,
    or False: nowhere; those elements are among the undecided ones), and +1 / -1 where it is
    certainly beyond float64's range with that sign (0.0: nowhere known; undecided ones too)."""
    ev, out = _run(node, inputs, input_dtypes, attributes)
    sg = None if out.sg is None else _Lazy(lambda: _sgn(out)).get
    return out.v, out.e, ev.undecided | out.bad, sg, out.none, out.beyond


def evaluate_rounded(node, inputs: dict[str, np.ndarray], input_dtypes: dict[str, str], attributes: dict[str, float]):
    """(value, bound, undecided, rounded): ``evaluate`` and where the value is the float64 rounding to
    nearest of the exact value (a bool mask or a bool): what proves a float64 output that is not
    exact, such as alpha * x (leaky_relu), x - bias (shrink) or a + b of two float64 inputs."""
    ev, out = _run(node, inputs, input_dtypes, attributes)
    return out.v, out.e, ev.undecided | out.bad, _rounded(out)


def _run(node, inputs, input_dtypes, attributes):
    env = {}
    for k, v in inputs.items():
        env[k] = _V(v, 0.0, grid_of_dtype(input_dtypes[k]))
    for k, v in attributes.items():
        env[k] = _V(v, 0.0, _grid_of_value(v) if math.isfinite(v) else None)
    ev = _Eval(env)
    with np.errstate(all="ignore"):
        out = ev.eval(node)
    return ev, out
