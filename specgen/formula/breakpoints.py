"""Breakpoints of a piecewise formula: the input values where a branch switches or a branch value
changes sign, solved exactly from the parsed formula (never from hand-kept lists).

Every piecewise construct contributes equations ``lhs - rhs = 0``:
  min/max(a, b, ...)  a = b for each pair         clamp(v, lo, hi)  v = lo, v = hi
  where(c, a, b)      each comparison of c: l = r, and a = 0, b = 0 (sign changes of the results)
  abs(e), sign(e)     e = 0
Nested piecewise parts are expanded into their branches (min(u, 1) is either u or 1), each branch
equation that is affine in the input is solved exactly in rationals, and a root is kept only if
the original (unexpanded) equation really is zero there. HardSigmoid max(0, min(alpha*x+beta, 1))
gives alpha*x+beta = 1 and alpha*x+beta = 0; Shrink gives x = ±threshold and x = ±bias.
Equations that are not affine in the input (ELU's alpha * (exp(x) - 1) = 0, a threshold on
tanh(x), ...) are located by bisection over the ordinals of float64: the difference lhs - rhs is
sampled at 16 points per binade over the whole float64 range, every sign change between
neighbouring samples is narrowed to two adjacent float64 values (or one value where it is exactly
zero) with the sign of each probe decided rigorously (interval evaluation in mpmath with rising
precision, specgen.numerics.ziv), so the boundary is exact, with no tolerance. Roots closer
together than the sampling (two sign changes inside 1/16 of a binade) are not separated; an
equation that cannot be evaluated is reported in ``Analysis.unsolved`` with the reason and its
position in the formula.
"""
from __future__ import annotations

import functools
import itertools
import math
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from specgen.formula import nodes as n
from specgen.formula.functions import FUNCTIONS

MAX_BRANCHES = 64
_PROBES = (Fraction(0), Fraction(1), Fraction(2), Fraction(-7, 3), Fraction(1000))


class NotRational(Exception):
    """The formula uses a function with no exact rational value (exp, log, ...)."""


def evaluate_exact(node: n.Node, env: Mapping[str, Fraction]):
    """Exact value of a rational formula (Fractions; comparisons give bools). Raises NotRational for
    transcendental functions and ZeroDivisionError for division by zero."""
    if isinstance(node, n.Num):
        return node.exact
    if isinstance(node, n.Var):
        return env[node.name]
    if isinstance(node, n.Const):
        raise NotRational(node.name)
    if isinstance(node, n.Unary):
        v = evaluate_exact(node.operand, env)
        return -v if node.op == "-" else v
    if isinstance(node, n.Binary):
        a, b = evaluate_exact(node.left, env), evaluate_exact(node.right, env)
        if node.op == "+":
            return a + b
        if node.op == "-":
            return a - b
        if node.op == "*":
            return a * b
        return a / b
    if isinstance(node, n.Compare):
        a, b = evaluate_exact(node.left, env), evaluate_exact(node.right, env)
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[node.op]
    if isinstance(node, n.Logical):
        vals = [evaluate_exact(o, env) for o in node.operands]
        return all(vals) if node.op == "and" else any(vals)
    if isinstance(node, n.Not):
        return not evaluate_exact(node.operand, env)
    if isinstance(node, n.Call):
        f = node.func
        if f in ("where", "select"):
            return evaluate_exact(node.args[1] if evaluate_exact(node.args[0], env) else node.args[2], env)
        row = FUNCTIONS[f]
        if not row.rational:
            value = row.exact_at(*[evaluate_exact(a, env) for a in node.args]) if row.exact_at else None
            if value is None:
                raise NotRational(f)
            return value
        return row.exact(*[evaluate_exact(a, env) for a in node.args])
    raise TypeError(f"not a formula node: {node!r}")


def is_rational(node: n.Node) -> bool:
    return not any(isinstance(x, n.Const) or (isinstance(x, n.Call) and x.func not in _RATIONAL_CALLS)
                   for x in n.walk(node))


_RATIONAL_CALLS = {name for name, f in FUNCTIONS.items() if f.rational} | {"where", "select"}


@dataclass(frozen=True)
class Breakpoint:
    value: Fraction  # the input value where the equation holds
    equation: str  # e.g. "alpha * x + beta = 1"
    kind: str  # "switch" (a branch changes) | "zero" (a branch value changes sign)
    located: str = "solved"  # "solved" (exact rational root) | "bisection" (between two adjacent float64)


@dataclass
class Analysis:
    variable: str
    breakpoints: list[Breakpoint] = field(default_factory=list)
    unsolved: list[str] = field(default_factory=list)

    @property
    def values(self) -> list[Fraction]:
        return sorted({b.value for b in self.breakpoints})


def _text(node: n.Node) -> str:
    from specgen.formula.numpy_eval import to_numpy_source  # plain spelling for labels
    return (to_numpy_source(node).replace("np.minimum", "min").replace("np.maximum", "max")
            .replace("np.abs", "abs").replace("np.where", "where"))


def equations(node: n.Node) -> list[tuple[n.Node, n.Node, str]]:
    """(lhs, rhs, kind) for every switching point of every piecewise construct, outermost first."""
    out: list[tuple[n.Node, n.Node, str]] = []
    for sub in n.walk(node):
        if isinstance(sub, n.Call):
            a = sub.args
            if sub.func in ("min", "max"):
                out.extend((x, y, "switch") for x, y in itertools.combinations(a, 2))
            elif sub.func == "clamp":
                out.extend([(a[0], a[1], "switch"), (a[0], a[2], "switch")])
            elif sub.func == "where":
                out.extend((c.left, c.right, "switch") for c in n.walk(a[0]) if isinstance(c, n.Compare))
                out.extend((v, n.Num("0"), "zero") for v in a[1:] if not isinstance(v, (n.Num, n.Const)))
            elif sub.func in ("abs", "sign"):
                out.append((a[0], n.Num("0"), "zero" if sub.func == "abs" else "switch"))
    seen, unique = set(), []
    for lhs, rhs, kind in out:
        if (lhs, rhs) not in seen:
            seen.add((lhs, rhs))
            unique.append((lhs, rhs, kind))
    return unique


def branches(node: n.Node) -> list[n.Node]:
    """Piecewise-free versions of ``node``: each way its min/max/where/abs/clamp can resolve."""
    if isinstance(node, n.Call) and node.func in ("min", "max"):
        return _cap([b for a in node.args for b in branches(a)])
    if isinstance(node, n.Call) and node.func == "clamp":
        return _cap([b for a in node.args for b in branches(a)])
    if isinstance(node, n.Call) and node.func == "where":
        return _cap(branches(node.args[1]) + branches(node.args[2]))
    if isinstance(node, n.Call) and node.func == "abs":
        inner = branches(node.args[0])
        return _cap(inner + [n.Unary("-", b) for b in inner])
    if isinstance(node, n.Unary):
        return [n.Unary(node.op, b) for b in branches(node.operand)]
    if isinstance(node, n.Binary):
        return _cap([n.Binary(node.op, l, r) for l in branches(node.left) for r in branches(node.right)])
    if isinstance(node, n.Call):
        combos = itertools.product(*[branches(a) for a in node.args])
        return _cap([n.Call(node.func, tuple(c)) for c in combos])
    return [node]


def _cap(items):
    return items[:MAX_BRANCHES]


def _affine(expr: n.Node, var: str, env: Mapping[str, Fraction]) -> tuple[Fraction, Fraction] | None:
    """(p, q) with expr = p*var + q for all var, or None when expr is not affine (or not rational)."""
    try:
        vals = [evaluate_exact(expr, {**env, var: t}) for t in _PROBES]
    except (NotRational, ZeroDivisionError):
        return None
    q = vals[0]
    p = vals[1] - vals[0]
    if any(v != p * t + q for v, t in zip(vals, _PROBES)):
        return None
    return p, q


GRID_PER_BINADE = 16
MAX_ROOTS = 32  # per equation; more sign changes than this: reported as unsolved
_MAX_ORD = 0x7FEFFFFFFFFFFFFF  # ordinal of the largest finite float64


def _from_ordinal(o: int) -> float:
    bits = struct.unpack("<d", struct.pack("<q", abs(o)))[0]
    return -bits if o < 0 else bits


def _sign(diff: n.Node, variable: str, env: Mapping[str, float], x: float) -> int | None:
    """The exact sign of ``diff`` at ``x`` (None: not a number there, e.g. outside a domain)."""
    from specgen.numerics import ziv
    val, exact_zero = ziv.decide(diff, {**env, variable: x}, "float64")
    if exact_zero:
        return 0
    if math.isnan(val):
        return None
    return 1 if math.copysign(1.0, val) > 0 else -1


def bisect_roots(diff: n.Node, variable: str, env: Mapping[str, float]) -> list[tuple[Fraction, bool]]:
    """Roots of ``diff`` (a node in ``variable``) over float64: (value, exact) where exact means
    diff is exactly 0 at that float64, else the value is the midpoint of two adjacent float64
    between which diff changes sign. Raises ziv.Undecided / ZeroDivisionError when it cannot be
    evaluated."""
    import numpy as np
    from specgen.formula.numpy_eval import evaluate
    step = (1 << 52) // GRID_PER_BINADE
    ords = np.arange(-_MAX_ORD, _MAX_ORD + 1, step, dtype=np.int64)
    ords = np.unique(np.concatenate([ords, [0, _MAX_ORD, -_MAX_ORD]]))
    xs = np.where(ords < 0, -np.abs(ords).view(np.float64), ords.view(np.float64))
    with np.errstate(all="ignore"):
        g = np.broadcast_to(np.asarray(evaluate(diff, {**env, variable: xs}), dtype=np.float64), xs.shape)
    sg = np.sign(g)
    live = np.flatnonzero(~np.isnan(g) & (sg != 0))  # samples with a definite float64 sign
    if len(live) < 2:  # identically zero (alpha = 0) or nowhere defined: no isolated root
        return []
    flips = np.flatnonzero(sg[live[:-1]] != sg[live[1:]])  # sign changes, across runs of zeros too
    candidates = [(int(ords[live[i]]), int(ords[live[i + 1]])) for i in flips]
    if len(candidates) > MAX_ROOTS:
        raise ValueError(f"{len(candidates)} sign changes: not piecewise monotone at this resolution")
    roots: dict[Fraction, bool] = {}
    for a, b in candidates:
        sa, sb = _sign(diff, variable, env, _from_ordinal(a)), _sign(diff, variable, env, _from_ordinal(b))
        if sa is None or sb is None:
            continue
        if sa == 0:
            roots.setdefault(Fraction(_from_ordinal(a)), True)
            continue
        if sb == 0:
            roots.setdefault(Fraction(_from_ordinal(b)), True)
            continue
        if sa == sb:  # numpy's sign was wrong near a root, or a double crossing: look inside
            m = (a + b) // 2
            sm = _sign(diff, variable, env, _from_ordinal(m))
            if sm is None or sm == sa:
                continue
            if sm == 0:
                roots.setdefault(Fraction(_from_ordinal(m)), True)
                continue
            b = m
        while b - a > 1:  # ordinals: bisection in the float64 order, no tolerance
            m = (a + b) // 2
            sm = _sign(diff, variable, env, _from_ordinal(m))
            if sm is None:
                break
            if sm == 0:
                a = b = m
                break
            if sm == sa:
                a = m
            else:
                b = m
        if a == b:
            roots.setdefault(Fraction(_from_ordinal(a)), True)
        elif b - a == 1:
            roots.setdefault((Fraction(_from_ordinal(a)) + Fraction(_from_ordinal(b))) / 2, False)
    return sorted(roots.items())


def analyse(node: n.Node, variable: str, attributes: Mapping[str, float]) -> Analysis:
    """Breakpoints of ``node`` in ``variable`` for given values of the other names (attributes, and
    other inputs held at given values), float32-rounded floats. Results are cached."""
    return _analyse(node, variable, tuple(sorted((k, float(v)) for k, v in attributes.items())))


_BEYOND = Fraction(2) ** 1100  # an infinite attribute in exact arithmetic: past float64's largest finite


def _position(node: n.Node) -> str:
    line, col = getattr(node, "pos", (0, 0))
    return f"formula line {line}, column {col}" if line else "formula"


@functools.lru_cache(maxsize=4096)
def _analyse(node: n.Node, variable: str, attributes: tuple) -> Analysis:
    attributes = dict(attributes)
    # an infinite value (Clip's unbounded side) stands in the exact arithmetic as a rational beyond
    # every float64, so it orders like the infinity; a root out there is no input's (the designed
    # specials hold the infinities) and is dropped
    env = {k: (Fraction(v) if math.isfinite(v) else _BEYOND if v > 0 else -_BEYOND) for k, v in attributes.items()}
    result = Analysis(variable)
    found: dict[Fraction, Breakpoint] = {}
    # the simplest spelling of an equation names its root (x + bias = 0 rather than the enclosing where)
    for lhs, rhs, kind in sorted(equations(node), key=lambda e: len(_text(e[0])) + len(_text(e[1]))):
        diff = n.Binary("-", lhs, rhs)
        label = f"{_text(lhs)} = {_text(rhs)}"
        solved_any = False
        unsolved_branch = False
        for branch in branches(diff):
            pq = _affine(branch, variable, env)
            if pq is None:
                unsolved_branch = True
                continue
            solved_any = True
            p, q = pq
            if p == 0:
                continue
            root = -q / p
            try:
                holds = evaluate_exact(diff, {**env, variable: root}) == 0
            except (NotRational, ZeroDivisionError):
                holds = False
            if holds and root not in found and abs(root) < _BEYOND:
                found[root] = Breakpoint(root, label, kind)
        if unsolved_branch and variable in n.names(diff):
            try:
                for root, exact in bisect_roots(diff, variable, attributes):
                    if root not in found:
                        found[root] = Breakpoint(root, label, kind, "solved" if exact else "bisection")
            except Exception as exc:  # noqa: BLE001 - reported, with where and why
                from specgen.numerics import ziv
                if not isinstance(exc, (ziv.Undecided, ZeroDivisionError, ValueError, OverflowError)):
                    raise
                result.unsolved.append(f"{label} ({_position(lhs)}): {exc}")
    result.breakpoints = sorted(found.values(), key=lambda b: b.value)
    return result
