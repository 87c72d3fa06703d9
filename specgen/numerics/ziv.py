"""Golden values of the elements float arithmetic could not decide: interval evaluation in mpmath
at rising precision (Ziv's strategy), every step bounded.

``decide(node, env, dtype, ...)`` evaluates the formula over intervals whose ends are mpmath
numbers at working precision p: + - * / round outward (directed rounding of mpmath's libmp, which
is exact), each function's value at the ends of its argument's interval is widened by 2^(4-p)
relative (the assumption: mpmath's elementary functions are within 8 ULPs of the working
precision; they carry guard bits and are normally correctly rounded). When both ends of the
result round to the same value of the output dtype, that is the golden value; otherwise p
doubles, from START_PREC up to MAX_PREC bits, and an element still undecided there raises
``Undecided`` (the caller turns it into an error naming the spec and formula). This happens only
when the exact value is a rounding boundary of the output dtype that the formula reaches through
cancellation of transcendental terms (exp(x) - exp(x)); exact points (exp(0) = 1, log(1) = 0, ...)
are exact intervals, so ELU's alpha * (exp(x) - 1) at x = 0 is an exact zero.

Nothing here grows without bound: precision is capped; exp/expm1 arguments beyond 2^EXP_CAP_LOG2
(beyond any float64) in magnitude give [exp(cap), +inf] (or [0, exp(-cap)]), tanh and erf beyond it
[1 - 2^-p, 1]; results are rounded to the output dtype from their binary exponent first, so a
value like exp(1e300) never becomes an exact rational number.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

from mpmath import libmp

from specgen.formula import nodes as n
from specgen.numerics.ulp import FORMATS, round_fraction

START_PREC = 96
MAX_PREC = 4096
EXP_CAP_LOG2 = 1100  # |argument| of exp/expm1/tanh/erf beyond 2^1100 (any float64 fits): saturated enclosures
LITERAL_MAX_DIGITS = 2000  # a decimal literal with more digits or a larger exponent is refused


def _decreasing() -> frozenset:
    from specgen.formula.functions import FUNCTIONS

    return frozenset(name for name, f in FUNCTIONS.items() if f.monotone == "decreasing")


_DECREASING = _decreasing()


class Undecided(Exception):
    """Still undecided at MAX_PREC bits (or an enclosure is unbounded where it must not be)."""


_INF, _NINF, _NAN, _ZERO, _ONE = libmp.finf, libmp.fninf, libmp.fnan, libmp.fzero, libmp.fone


def _isnan(v):
    return v == _NAN


def _lt(a, b):
    return libmp.mpf_lt(a, b)


def _le(a, b):
    return libmp.mpf_le(a, b)


def _min(*vs):
    out = vs[0]
    for v in vs[1:]:
        if _lt(v, out):
            out = v
    return out


def _max(*vs):
    out = vs[0]
    for v in vs[1:]:
        if _lt(out, v):
            out = v
    return out


@functools.lru_cache(maxsize=1024)
def literal(text: str, prec: int, rnd: str):
    """A decimal literal rounded in direction ``rnd`` at ``prec`` bits, refusing absurd sizes."""
    q = _literal_fraction(text)
    return libmp.from_rational(q.numerator, q.denominator, prec, rnd)


def _literal_fraction(text: str) -> Fraction:
    mant, _, exp = text.lower().partition("e")
    if len(mant) > LITERAL_MAX_DIGITS or (exp and abs(int(exp)) > LITERAL_MAX_DIGITS):
        raise Undecided(f"numeric literal {text[:40]}{'...' if len(text) > 40 else ''} is too large to evaluate "
                        f"(more than {LITERAL_MAX_DIGITS} digits or exponent beyond 1e{LITERAL_MAX_DIGITS})")
    return Fraction(text)


def check_literals(node) -> None:
    """Raise Undecided for a literal whose exact value would be unboundedly large."""
    for sub in n.walk(node):
        if isinstance(sub, n.Num):
            _literal_fraction(sub.text)


class _Eval:
    def __init__(self, env: dict, prec: int):
        self.env = env  # name -> (lo, hi) mpf tuples
        self.p = prec

    # widen a function value by 2^(4-p) relative, outward
    def _wide(self, v, up: bool):
        if v in (_INF, _NINF, _ZERO) or _isnan(v):
            return v
        eps = libmp.mpf_shift(libmp.mpf_abs(v), 4 - self.p)
        return libmp.mpf_add(v, eps if up else libmp.mpf_neg(eps), self.p + 8, "c" if up else "f")

    def eval(self, node):
        p = self.p
        if isinstance(node, n.Num):
            return literal(node.text, p, "f"), literal(node.text, p, "c")
        if isinstance(node, n.Const):
            if node.name == "inf":
                return _INF, _INF
            if node.name == "pi":
                return libmp.mpf_pi(p, "f"), libmp.mpf_pi(p, "c")
            return libmp.mpf_e(p, "f"), libmp.mpf_e(p, "c")
        if isinstance(node, n.Var):
            return self.env[node.name]
        if isinstance(node, n.Unary):
            lo, hi = self.eval(node.operand)
            return (libmp.mpf_neg(hi), libmp.mpf_neg(lo)) if node.op == "-" else (lo, hi)
        if isinstance(node, n.Binary):
            (a, b), (c, d) = self.eval(node.left), self.eval(node.right)
            if node.op == "+":
                return libmp.mpf_add(a, c, p, "f"), libmp.mpf_add(b, d, p, "c")
            if node.op == "-":
                return libmp.mpf_sub(a, d, p, "f"), libmp.mpf_sub(b, c, p, "c")
            if node.op == "*":
                los = [libmp.mpf_mul(x, y, p, "f") for x in (a, b) for y in (c, d)]
                his = [libmp.mpf_mul(x, y, p, "c") for x in (a, b) for y in (c, d)]
                if any(_isnan(v) for v in los + his):  # 0 * inf
                    raise Undecided("0 * inf in an enclosure")
                return _min(*los), _max(*his)
            if c == d == _ZERO:  # an exact zero divisor: IEEE's x/0 (the sign of a zero is not tracked: +0)
                if _lt(_ZERO, a):
                    return _INF, _INF
                if _lt(b, _ZERO):
                    return _NINF, _NINF
                if a == b == _ZERO:
                    return _NAN, _NAN
                raise Undecided("dividend enclosure contains 0 and the divisor is 0")
            if _le(c, _ZERO) and _le(_ZERO, d):
                raise Undecided("divisor enclosure contains 0")
            los = [libmp.mpf_div(x, y, p, "f") for x in (a, b) for y in (c, d)]
            his = [libmp.mpf_div(x, y, p, "c") for x in (a, b) for y in (c, d)]
            if any(_isnan(v) for v in los + his):
                raise Undecided("inf / inf in an enclosure")
            return _min(*los), _max(*his)
        if isinstance(node, n.Call):
            return self.call(node)
        raise Undecided(f"{type(node).__name__} outside where()")

    def decide(self, node) -> bool:
        if isinstance(node, n.Compare):
            (a, b), (c, d) = self.eval(node.left), self.eval(node.right)
            point = a == b == c == d
            op = node.op
            if op in ("<", ">="):
                if _lt(b, c):
                    return op == "<"
                if _le(d, a):
                    return op == ">="
            elif op in (">", "<="):
                if _lt(d, a):
                    return op == ">"
                if _le(b, c):
                    return op == "<="
            else:
                if point:
                    return op == "=="
                if _lt(b, c) or _lt(d, a):
                    return op == "!="
            raise Undecided("comparison not decided")
        if isinstance(node, n.Logical):
            vals = [self.decide(o) for o in node.operands]
            return all(vals) if node.op == "and" else any(vals)
        if isinstance(node, n.Not):
            return not self.decide(node.operand)
        raise Undecided("condition")

    def call(self, node):
        f, args = node.func, node.args
        p = self.p
        if f in ("where", "select"):
            return self.eval(args[1] if self.decide(args[0]) else args[2])
        if f in ("min", "max"):
            ivs = [self.eval(a) for a in args]
            pick = _min if f == "min" else _max
            return pick(*[v[0] for v in ivs]), pick(*[v[1] for v in ivs])
        if f == "clamp":
            (x0, x1), (l0, l1), (h0, h1) = (self.eval(a) for a in args)
            return _min(_max(x0, l0), h0), _min(_max(x1, l1), h1)
        if f == "abs":
            lo, hi = self.eval(args[0])
            if _le(_ZERO, lo):
                return lo, hi
            if _le(hi, _ZERO):
                return libmp.mpf_neg(hi), libmp.mpf_neg(lo)
            return _ZERO, _max(libmp.mpf_neg(lo), hi)
        if f == "sign":
            lo, hi = self.eval(args[0])
            s_lo = -1 if _lt(lo, _ZERO) else (0 if lo == _ZERO else 1)
            s_hi = -1 if _lt(hi, _ZERO) else (0 if hi == _ZERO else 1)
            return libmp.from_int(s_lo), libmp.from_int(s_hi)
        if f == "pow":
            (a, b), (c, d) = self.eval(args[0]), self.eval(args[1])
            huge = [v not in (_INF, _NINF) and libmp.mpf_cmp(libmp.mpf_abs(v), libmp.from_int(2 ** 64)) > 0 for v in (c, d)]
            if a == b and c == d and huge[0] and a != _ZERO:
                # a point exponent beyond 2**64 (an even integer in every float type): |a|**c is 1 at |a| = 1,
                # else below 2**-2000 or above 2**2000 for every float base (|log a| >= 2**-54): 0 or inf
                m = libmp.mpf_abs(a)
                if m == _ONE:
                    return _ONE, _ONE
                big = _lt(_ONE, m) == _lt(_ZERO, c)
                return (_INF, _INF) if big else (_ZERO, _ZERO)
            if any(huge) and not (a == b == _ZERO and c == d):
                raise Undecided("pow with an exponent beyond 2**64 (bounded: not evaluated)")
            point = a == b and c == d and c not in (_INF, _NINF)
            if (point and _lt(_ZERO, a) and a != _INF
                    and libmp.mpf_cmp(c, libmp.from_int(libmp.to_int(c))) == 0):
                # a positive point base to an integer exponent: the directed powers enclose it, a point
                # where a ** c is exact at this precision (a midpoint x ** 1 of a transformed input,
                # DirectML's pow(scale * a + bias, b), is decided instead of straddling its boundary)
                r0 = libmp.mpf_pow_int(a, libmp.to_int(c), p, "f")
                r1 = libmp.mpf_pow_int(a, libmp.to_int(c), p, "c")
                return _min(r0, r1), _max(r0, r1)
            if point and _lt(_ZERO, a) and a != _INF:
                exact = _dyadic_power(a, c)
                if exact is not None:  # an exact result, maybe a midpoint no enclosure decides (2**-150)
                    return exact, exact
            if not _lt(_ZERO, a):
                if point and a == _ZERO:  # C99 F.10.4.4: pow(0, y) = 1 at y = 0, 0 for y > 0, a pole for y < 0
                    # (+inf here; the caller takes an infinity's sign from the IEEE evaluation: -0 ** -3 = -inf)
                    return (_ONE, _ONE) if c == _ZERO else ((_ZERO, _ZERO) if _lt(_ZERO, c) else (_INF, _INF))
                if point and libmp.mpf_cmp(c, libmp.from_int(libmp.to_int(c))) == 0:
                    r0 = libmp.mpf_pow_int(a, libmp.to_int(c), p, "f")
                    r1 = libmp.mpf_pow_int(a, libmp.to_int(c), p, "c")
                    return _min(r0, r1), _max(r0, r1)
                if point:  # F.10.4.4: a finite negative base to a finite non-integer exponent is NaN
                    return _NAN, _NAN
                raise Undecided("pow with a base that is not positive")
            vals = [libmp.mpf_pow(x, y, p, "n") for x in (a, b) for y in (c, d)]
            return self._wide(_min(*vals), False), self._wide(_max(*vals), True)
        if f in ("exp", "expm1", "log", "log1p", "tanh", "erf", "sqrt", "erfc"):  # monotone: images of the ends
            lo, hi = self.eval(args[0])
            if f in _DECREASING:
                lo, hi = hi, lo
            a = self.point(f, lo)
            b = a if hi == lo else self.point(f, hi)
            if _isnan(a[0]) or _isnan(b[1]):
                if _isnan(a[0]) and _isnan(b[1]):
                    return _NAN, _NAN
                raise Undecided("argument enclosure straddles the edge of the domain")
            return a[0], b[1]
        return self.row_image(f, args)

    def row_image(self, f, args):
        """A function without a hand-written branch, by its row of the function table: the row's
        ``mp_image`` (functions that are not monotone: sin, cos, tan, cosh), the row's exact meaning
        on each end (rational monotone functions: floor, ceil, round, trunc), or the images of the
        ends by its mpmath meaning, widened like every function here (monotone: asin, atan, sinh, ...)."""
        from specgen.formula.functions import FUNCTIONS

        row = FUNCTIONS.get(f)
        if row is None or len(args) != 1:
            raise Undecided(f"no multi-precision enclosure for {f}")
        lo, hi = self.eval(args[0])
        if _isnan(lo) or _isnan(hi):
            return _NAN, _NAN
        if row.mp_image is not None:
            if not (libmp.mpf_lt(libmp.fninf, lo) and libmp.mpf_lt(hi, libmp.finf)):
                raise Undecided(f"{f} of an unbounded enclosure")
            return row.mp_image(lo, hi, self.p)
        if row.monotone not in ("increasing", "decreasing"):
            raise Undecided(f"no multi-precision enclosure for {f}")
        if row.rational:  # floor, ceil, round, trunc: exact at each end (mpmath's at p bits are exact integers)
            return tuple(self._exact_end(row, v) for v in (lo, hi))
        if row.monotone == "decreasing":
            lo, hi = hi, lo
        a = self._mp_point(row, lo)
        b = a if hi == lo else self._mp_point(row, hi)
        if _isnan(a[0]) or _isnan(b[1]):
            if _isnan(a[0]) and _isnan(b[1]):
                return _NAN, _NAN
            raise Undecided("argument enclosure straddles the edge of the domain")
        return a[0], b[1]

    def _exact_end(self, row, v):
        if v in (_INF, _NINF):
            return v
        man_exp = libmp.to_rational(v)
        q = row.exact(Fraction(*man_exp))
        return libmp.from_rational(q.numerator, q.denominator, self.p, "n")

    def _mp_point(self, row, x):
        """Enclosure of a monotone row's value at the point x: its exact points, else its mpmath
        meaning at the working precision widened by 2^(4-p) relative (mpmath's functions carry guard
        bits; the module's assumption)."""
        import mpmath

        if x in (_INF, _NINF):
            with mpmath.workprec(self.p):
                v = row.mpmath(mpmath.mpf(x))
            t = v._mpf_ if isinstance(v, mpmath.mpf) else _NAN
            return t, t
        if row.libm is not None:
            for x0, y0 in row.libm.exact.items():
                if x == libmp.from_float(float(x0)):
                    t = libmp.from_float(float(y0))
                    return t, t
        with mpmath.workprec(self.p):
            v = row.mpmath(mpmath.mpf(x))
        if not isinstance(v, mpmath.mpf) or _isnan(v._mpf_):
            return _NAN, _NAN
        v = v._mpf_
        if v in (_INF, _NINF):
            return v, v
        return self._wide(v, False), self._wide(v, True)

    def point(self, f, x):
        """Enclosure (lo, hi) of f at the point x."""
        p = self.p
        cap = libmp.from_int(1 << EXP_CAP_LOG2)
        if _isnan(x):
            raise Undecided("nan inside an enclosure")
        big = _lt(cap, libmp.mpf_abs(x))
        if f in ("exp", "expm1"):
            if x == _ZERO:
                return (_ONE, _ONE) if f == "exp" else (_ZERO, _ZERO)
            if big:
                if _lt(_ZERO, x):
                    lo = libmp.mpf_exp(cap, p, "f")
                    return (lo if f == "exp" else libmp.mpf_sub(lo, _ONE, p, "f")), _INF
                if f == "exp":
                    return _ZERO, libmp.mpf_exp(libmp.mpf_neg(cap), p, "c")
                return libmp.mpf_neg(_ONE), libmp.mpf_add(libmp.mpf_neg(_ONE), libmp.mpf_exp(libmp.mpf_neg(cap), p, "c"), p, "c")
            if f == "exp":
                v = libmp.mpf_exp(x, p, "n")
            else:  # exp(x) - 1 with enough bits for the cancellation near 0
                if x[2] + x[3] < -(p + 16):  # |x| < 2^-(p+16): expm1(x) = x (1 + x/2 + ...)
                    return self._tiny_ratio(x, below_one=False)
                extra = max(0, -(x[2] + x[3])) if x[1] else 0
                e = libmp.mpf_exp(x, p + extra + 8, "n")
                lo = libmp.mpf_sub(self._wide_at(e, False, p + extra + 8), _ONE, p, "f")
                hi = libmp.mpf_sub(self._wide_at(e, True, p + extra + 8), _ONE, p, "c")
                return lo, hi
            return self._wide(v, False), self._wide(v, True)
        if f in ("tanh", "erf"):
            if x == _ZERO:
                return _ZERO, _ZERO
            if big or (f == "erf" and _lt(libmp.from_int(1 << 12), libmp.mpf_abs(x))):
                one = _ONE if _lt(_ZERO, x) else libmp.mpf_neg(_ONE)
                near = libmp.mpf_sub(_ONE, libmp.mpf_shift(_ONE, -p), p + 2, "f")
                near = near if _lt(_ZERO, x) else libmp.mpf_neg(near)
                return _min(one, near), _max(one, near)
            v = libmp.mpf_tanh(x, p, "n") if f == "tanh" else libmp.mpf_erf(x, p, "n")
            return self._wide(v, False), self._wide(v, True)
        if f == "erfc":  # 1 - erf(x), decreasing from 2 to 0
            if x == _ZERO:
                return _ONE, _ONE
            if _lt(libmp.from_int(1 << 12), libmp.mpf_abs(x)):  # erfc(4096) < 2^-(2^24); mpmath's own
                tiny = libmp.mpf_shift(_ONE, -(1 << 24))         # series test overflows a float there
                if _lt(_ZERO, x):
                    return _ZERO, tiny
                return libmp.mpf_sub(libmp.from_int(2), tiny, p + 2, "f"), libmp.from_int(2)
            v = libmp.mpf_erfc(x, p, "n")
            return self._wide(v, False), self._wide(v, True)
        if f == "log1p":
            if x == _ZERO:
                return _ZERO, _ZERO
            if _lt(x, libmp.mpf_neg(_ONE)):
                return _NAN, _NAN
            if x[2] + x[3] < -(p + 16):  # |x| < 2^-(p+16): log1p(x) = x (1 - x/2 + ...), within 2^-(p+15)
                return self._tiny_ratio(x, below_one=True)
            a0 = libmp.mpf_add(x, _ONE, p + 16, "f")  # 1 + x, directed (bounded even for huge x)
            a1 = libmp.mpf_add(x, _ONE, p + 16, "c")
            lo = self.point("log", a0)[0]
            return lo, self.point("log", a1)[1]
        if f == "log":
            if x == _ONE:
                return _ZERO, _ZERO
            if x == _ZERO:
                return _NINF, _NINF
            if _lt(x, _ZERO):
                return _NAN, _NAN
            if x == _INF:
                return _INF, _INF
            v = libmp.mpf_log(x, p, "n")
            return self._wide(v, False), self._wide(v, True)
        if f == "sqrt":
            if _lt(x, _ZERO):
                return _NAN, _NAN
            return libmp.mpf_sqrt(x, p, "f"), libmp.mpf_sqrt(x, p, "c")
        raise Undecided(f"no multi-precision enclosure for {f}")

    def _tiny_ratio(self, x, below_one: bool):
        """Enclosure of x * (1 + t) with |t| <= 2^-(p+15): expm1 and log1p at |x| < 2^-(p+16)."""
        eps = libmp.mpf_shift(libmp.mpf_abs(x), -(self.p + 15))
        a = libmp.mpf_sub(x, eps, self.p + 8, "f")
        b = libmp.mpf_add(x, eps, self.p + 8, "c")
        return a, b

    def _wide_at(self, v, up, prec):
        eps = libmp.mpf_shift(libmp.mpf_abs(v), 4 - prec)
        return libmp.mpf_add(v, eps if up else libmp.mpf_neg(eps), prec + 8, "c" if up else "f")


# ----------------------------------------------------------------------------- rounding an mpf end

def round_mpf(v, dtype: str) -> float:
    """``v`` (an mpf tuple) rounded once to the float dtype, as a Python float; the binary exponent
    is looked at first so that huge or tiny values never become big rationals."""
    if v == _INF:
        return math.inf
    if v == _NINF:
        return -math.inf
    if v == _ZERO:
        return 0.0
    if _isnan(v):
        return math.nan
    sign, man, exp, bc = v
    f = FORMATS[dtype]
    top = exp + bc  # 2^(top-1) <= |v| < 2^top
    if top > f.emax + 2:
        return -math.inf if sign else math.inf
    if top < f.emin - f.precision - 1:
        return -0.0 if sign else 0.0
    lead = top - 1
    prec = f.precision if lead >= f.emin else f.precision - (f.emin - lead)  # fewer bits when subnormal
    if prec >= 1:  # round-to-nearest-even to prec bits: exact in float64 afterwards
        r = libmp.normalize(sign, man, exp, bc, prec, "n")
        val = libmp.to_float(r)
        return math.copysign(math.inf, val) if abs(val) > float(f.max_finite) else val
    q = Fraction(-man if sign else man) * (Fraction(2) ** exp)  # at most half the smallest subnormal
    return float(round_fraction(q, dtype))


def _fmt(v) -> str:
    if v in (_INF, _NINF, _ZERO) or _isnan(v) or abs(v[2] + v[3]) < 1000:
        return libmp.to_str(v, 12)
    top = v[2] + v[3]
    mag = f"2^{top}" if abs(top) < 10 ** 12 else f"2^(±2^{abs(top).bit_length()})"
    return f"{'-' if v[0] else ''}{mag} (about)"


MAX_ROOT_BITS = 1 << 14  # a**m up to this many bits is tried for an exact 2**k-th root


def _dyadic_power(a, c):
    """a ** c as an exact mpf when it is one, else None: a > 0 and c = m / 2**k (a float exponent, k
    at most 8). Such a power is a float exactly when a ** m is a perfect 2**k-th power, and then it
    may be a midpoint of the output type that no enclosure decides: (2**-60) ** 2.5 = 2**-150, half
    the smallest float32 subnormal, was 'undecided at 4096 bits'. Checked in integers (isqrt k
    times), bounded by MAX_ROOT_BITS."""
    c_sign, c_man, c_exp, _ = c
    if c_exp >= 0 or c_exp < -8 or c_man == 0:
        return None  # an integer exponent (the caller's case) or a denominator past 2**8
    k, m = -c_exp, (-1) ** c_sign * int(c_man)
    a_sign, a_man, a_exp, _ = a
    a_man, a_exp = int(a_man), int(a_exp)
    while a_man and a_man % 2 == 0:
        a_man, a_exp = a_man // 2, a_exp + 1
    if (a_exp * m) % (1 << k):
        return None
    if a_man == 1:
        return libmp.from_man_exp(1, a_exp * m >> k)
    if m < 0 or a_man.bit_length() * m > MAX_ROOT_BITS:
        return None  # an odd significand to a negative power is no dyadic rational
    root = a_man ** m
    for _ in range(k):
        r = math.isqrt(root)
        if r * r != root:
            return None
        root = r
    return libmp.from_man_exp(root, a_exp * m >> k)


def decide(node, values: dict, dtype: str):
    """The golden value of one element: ``values`` maps names to exact floats (inputs) or Python
    floats (attributes). Returns (value, exact_zero): exact_zero when the exact result is 0, or
    when the value rounds to a zero but no enclosure up to MAX_PREC excludes 0 (the caller gives it
    the sign of the literal IEEE evaluation); once an enclosure leaves 0 the zero has the exact
    value's sign. Raises Undecided past MAX_PREC."""
    prec = START_PREC
    last = None
    zero_seen = False
    while prec <= MAX_PREC:
        env = {}
        for k, v in values.items():
            t = libmp.from_float(float(v)) if not isinstance(v, tuple) else v
            env[k] = (t, t)
        try:
            lo, hi = _Eval(env, prec).eval(node)
        except Undecided as exc:
            last = str(exc)
        else:
            if _isnan(lo) and _isnan(hi):
                return math.nan, False
            if lo == hi == _ZERO:
                return 0.0, True
            if not (_isnan(lo) or _isnan(hi)):
                r_lo, r_hi = round_mpf(lo, dtype), round_mpf(hi, dtype)
                if r_lo == r_hi and (r_lo != 0 or math.copysign(1, r_lo) == math.copysign(1, r_hi)):
                    return r_lo, False
                if r_lo == r_hi == 0:
                    # every point of the enclosure rounds to a zero and only its sign is open: the
                    # enclosure still contains 0 (an enclosure on one side of 0 rounds to a zero of
                    # that sign above). A nonzero exact value gets its own sign, so the precision
                    # rises until the enclosure leaves 0; only one that still contains 0 at MAX_PREC
                    # (an exact zero reached through inexact terms, or a value below any working
                    # precision) is a zero signed like an exact zero, by the literal evaluation
                    zero_seen = True
                    last = f"enclosure [{_fmt(lo)}, {_fmt(hi)}] contains 0"
                else:
                    last = f"enclosure [{_fmt(lo)}, {_fmt(hi)}] straddles a rounding boundary of {dtype}"
            else:
                last = "NaN at one end of the enclosure"
        prec *= 2
    if zero_seen:  # some enclosure rounded to a zero everywhere: the value is a zero, its sign open
        return 0.0, True
    raise Undecided(f"undecided at {MAX_PREC} bits: {last}")
