"""Golden values: the formula at exact inputs and float32 attributes, rounded once to the output dtype.

Three tiers, every element ends up correctly rounded:
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
3. **mpmath at 256 bits** for formulas with transcendental functions (exp, tanh, ...): every element.
Non-finite inputs follow the spec's special-value outcomes (the recommended one, else the first).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import mpmath
import numpy as np

from specgen import dtypes as dt
from specgen.formula import nodes as n
from specgen.formula.breakpoints import NotRational, evaluate_exact, is_rational
from specgen.formula.functions import CONSTANTS, FUNCTIONS
from specgen.formula.numpy_eval import evaluate
from specgen.numerics.eft import two_prod_err, two_sum_err
from specgen.generate.floats import int_range, round_float64, round_float64_int, round_fraction

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


def _risky(*arrays):
    out = np.zeros(np.shape(arrays[0]), dtype=bool)
    for a in arrays:
        m = np.abs(a)
        out |= (m > _SAFE_MAX) | ((m < _SAFE_MIN) & (m != 0)) | ~np.isfinite(a)
    return out


class _Interval:
    def __init__(self, env: Mapping[str, _Iv], shape):
        self.env = env
        self.shape = shape

    def const(self, value: float, exact: Fraction | None):
        v = np.full(self.shape, value, dtype=np.float64)
        e = 0.0 if exact is None or Fraction(value) == exact else abs(float(Fraction(value) - exact)) * 2
        return _Iv(v, np.full(self.shape, e), np.zeros(self.shape, dtype=bool))

    def eval(self, node):
        if isinstance(node, n.Num):
            return self.const(node.value, node.exact)
        if isinstance(node, n.Var):
            return self.env[node.name]
        if isinstance(node, n.Unary):
            a = self.eval(node.operand)
            return _Iv(-a.v if node.op == "-" else a.v, a.e, a.bad)
        if isinstance(node, n.Binary):
            a, b = self.eval(node.left), self.eval(node.right)
            bad = a.bad | b.bad
            if node.op in "+-":
                bv = b.v if node.op == "+" else -b.v
                s = a.v + bv
                err = np.abs(two_sum_err(a.v, bv, s))
                e = (a.e + b.e + err) * _INFLATE
                return _Iv(s, e, bad | ~np.isfinite(s) | ~np.isfinite(err))
            if node.op == "*":
                p = a.v * b.v
                err = np.abs(two_prod_err(a.v, b.v, p))
                e = (np.abs(a.v) * b.e + np.abs(b.v) * a.e + a.e * b.e + err) * _INFLATE
                return _Iv(p, e, bad | _risky(a.v, b.v, p) & (p != 0) | ~np.isfinite(p))
            q = a.v / b.v
            den = np.abs(b.v) - b.e
            p = q * b.v
            r = np.abs((a.v - p) - two_prod_err(q, b.v, p))  # exact remainder a - q*b (Sterbenz + TwoProduct)
            e = ((a.e + np.abs(q) * b.e) / np.where(den > 0, den, 1.0) + r / np.abs(np.where(b.v == 0, 1.0, b.v))) * _INFLATE
            risky = (b.v == 0) | (den <= np.abs(b.v) / 2) | _risky(q, b.v) | (_risky(a.v) & (a.v != 0))
            return _Iv(q, e, bad | risky)
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
            certain = np.abs(a.v - b.v) > (a.e + b.e) * _INFLATE
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
            decided = (slack == 0) | (np.abs(diff) > slack * _INFLATE)
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
            return _Iv(np.where(c, a.v, b.v), np.where(c, a.e, b.e), cbad | np.where(c, a.bad, b.bad))
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
            return _Iv(np.sign(a.v), np.zeros(self.shape), a.bad | (np.abs(a.v) <= a.e))
        raise NotRational(f)


def _accept_float(iv: _Iv, dtype: str):
    """(rounded values, accepted mask) for a float output dtype."""
    v, e = iv.v, iv.e
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
            ok &= ~((r == 0) & (e != 0))  # a zero whose sign tier 1 cannot prove
    ok &= ~iv.bad & np.isfinite(v) & np.isfinite(e)
    return r, ok


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
    man, exp = v.man_exp
    if man and not -_FAR_EXPONENT < int(exp) + int(man).bit_length() < _FAR_EXPONENT:
        return None  # far outside float64: rounds to +-inf or +-0 in every dtype, which float(v) gives (issue 15)
    return Fraction(int(man)) * Fraction(2) ** int(exp)


# Beyond 2**2200 (or below 2**-2200) a value is far outside every dtype's range; its exact fraction
# (expm1(1e300) has about 1.4e300 bits) would never finish, so it is never built.
_FAR_EXPONENT = 2200


def exact_value(node, values: Mapping[str, object]) -> Fraction | float:
    """The exact (rational) or 256-bit (transcendental) value at one point; float nan/inf if not finite."""
    env = {k: Fraction(int(v)) if isinstance(v, (int, np.integer)) else Fraction(float(v)) for k, v in values.items()}
    try:
        return evaluate_exact(node, env)
    except NotRational:
        pass
    except ZeroDivisionError:
        return math.nan
    with mpmath.workprec(MP_PRECISION):
        mp_env = {k: mpmath.mpf(q.numerator) / q.denominator for k, q in env.items()}
        r = _mp_eval(node, mp_env)
        q = _mp_to_fraction(r)
        return float(r) if q is None else q


# ----------------------------------------------------------------------------- the public entry

@dataclass
class Golden:
    y: np.ndarray
    proven_float64: int  # elements settled by tier 1
    exact: int  # elements settled by tiers 2/3
    special: int  # non-finite inputs (special-value outcomes)
    overflow: np.ndarray  # integer outputs out of range (saturated; integer_overflow is a spec question)


def golden(spec, inputs: Mapping[str, np.ndarray], attributes: Mapping[str, float], out_dtype: str,
           standard: str | None = None) -> Golden:
    """Expected output for elementwise ``inputs`` (same shape) and float32-rounded ``attributes``,
    by the formula of ``standard`` (its own where it has one, else the operator's)."""
    node = spec.formula_for(standard)
    names = list(inputs)
    arrays = {k: np.asarray(v) for k, v in inputs.items()}
    shape = np.broadcast_shapes(*[a.shape for a in arrays.values()])
    flat = {k: np.broadcast_to(a, shape).ravel() for k, a in arrays.items()}
    size = int(np.prod(shape, dtype=np.int64))
    out_kind = dt.get(out_dtype)
    mode = stored_outcome(spec, "integer_rounding", standard) if not out_kind.is_float else None
    if mode == "formula":
        mode = "toward_zero"

    env64: dict[str, np.ndarray] = {}
    finite = np.ones(size, dtype=bool)
    big = np.zeros(size, dtype=bool)
    for k, a in flat.items():
        with np.errstate(all="ignore"):  # ml_dtypes warns casting a bfloat16 NaN
            v = a.astype(np.float64)
        if dt.by_numpy(a.dtype).is_float:
            finite &= np.isfinite(v)
        else:
            big |= np.abs(v) >= 2.0 ** 53
        env64[k] = v
    attrs64 = {k: float(v) for k, v in attributes.items()}

    done = np.zeros(size, dtype=bool)
    proven = 0
    if is_rational(node):
        zeros = np.zeros(size)
        env = {k: _Iv(np.where(finite, v, 0.0), zeros, big) for k, v in env64.items()}
        env.update({k: _Iv(np.full(size, v), zeros, np.zeros(size, dtype=bool)) for k, v in attrs64.items()})
        with np.errstate(all="ignore"):
            iv = _Interval(env, size).eval(node)
        if out_kind.is_float:
            r, ok = _accept_float(iv, out_dtype)
            ok &= finite
            out_float = round_float64(np.where(ok, r, 0.0), out_dtype)
        else:
            r, ok = _accept_int(iv, out_dtype, mode)
            ok &= finite
        proven = int(ok.sum())
        done |= ok
    else:
        ok = np.zeros(size, dtype=bool)

    # non-finite inputs: the spec's special-value outcomes
    special_idx = np.flatnonzero(~finite)
    special_vals = np.zeros(len(special_idx))
    if len(special_idx):
        special_vals = _specials(spec, node, {k: v[special_idx] for k, v in env64.items()}, attrs64, out_dtype, standard)
        done[special_idx] = True

    # tiers 2/3 for the rest
    rest = np.flatnonzero(~done)
    ieee = None
    exact_vals = []
    overflow = np.zeros(size, dtype=bool)
    for i in rest:
        q = exact_value(node, {**{k: (int(flat[k][i]) if not dt.by_numpy(flat[k].dtype).is_float else env64[k][i])
                                  for k in names}, **attrs64})
        if isinstance(q, float):  # nan/inf from mpmath
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

    target = out_kind.numpy
    if out_kind.is_float:
        y = np.zeros(size, dtype=target)
        if ok.any():
            y[ok] = out_float[ok]
        if len(rest):
            y[rest] = round_float64(np.array(exact_vals, dtype=np.float64), out_dtype)
        if len(special_idx):
            y[special_idx] = round_float64(special_vals, out_dtype)
    else:
        y = np.zeros(size, dtype=target)
        if ok.any():
            y[ok] = r[ok].astype(np.int64).astype(target) if out_kind.kind == "int" or out_kind.bits < 64 else \
                np.array([int(t) for t in r[ok]], dtype=object).astype(target)
        if len(rest):
            y[rest] = np.array(exact_vals, dtype=object).astype(target)
    return Golden(y.reshape(shape), proven, len(rest), len(special_idx), overflow.reshape(shape))


def _specials(spec, node, env, attrs, out_dtype, standard) -> np.ndarray:
    """float64 results for elements with a non-finite input (single-input formulas decide by that input)."""
    with np.errstate(all="ignore"):
        literal = np.asarray(evaluate(node, {**env, **attrs}), dtype=np.float64)
    literal = np.broadcast_to(literal, next(iter(env.values())).shape).copy()
    out = literal.copy()
    first = next(iter(env.values()))
    for category, mask in (("nan", np.isnan(first)), ("pos_inf", first == np.inf), ("neg_inf", first == -np.inf)):
        if not mask.any():
            continue
        outcome = stored_outcome(spec, category, standard)
        if outcome == "nan":
            out[mask] = np.nan
        elif outcome == "zero":
            out[mask] = 0.0
        elif outcome == "limit":
            big = 1e300 if category == "pos_inf" else -1e300
            q = exact_value(node, {**{k: big for k in env}, **attrs})
            out[mask] = q if isinstance(q, float) else round_fraction(q, out_dtype)
    return out
