"""Threshold crossings: the input values where the argument of a function call in a formula crosses
one of that function's critical arguments (specgen.formula.critical: exp overflowing, 1 + exp(t)
rounding to 1, tanh saturating, ...) in the float types a kernel computes in. Softplus
log(1 + exp(x)) in float32 crosses exp's "negligible next to 1" at x = -16.6355, exp's
"1 negligible" at 16.6355 and exp's overflow at 88.7228; Sigmoid 1 / (1 + exp(-x)) crosses the
same arguments at the mirrored inputs. The corpus puts inputs either side of every crossing and
samples every region between them (specgen.generate.design, the ``thresholds`` case), which is
where shortcuts ("softplus(x) = x for x > 10") and early overflows change a result.

Nothing here names a function or an operator: every call whose row has ``critical`` arguments is
solved, through whatever the formula does to the input first (x / sqrt(2), alpha * x, -x, a cubic).
The argument is evaluated in float64 numpy on a grid of 4 points per binade over the whole float64
range (the arguments are monotone pieces: x, -x, alpha * x, x / sqrt(2), a cubic), and each sign change of argument - critical is narrowed by bisection over the float64 order
to two adjacent float64 values. float64 rounding of the argument can move a crossing by an ULP of
float64; the corpus takes the inputs one ULP of the (narrower) input type beyond each side, so no
crossing is missed by that.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import numpy as np

from specgen.formula import nodes as n
from specgen.formula.critical import CriticalArgument, critical_arguments
from specgen.formula.functions import FUNCTIONS
from specgen.numerics.ulp import FORMATS

GRID_PER_BINADE = 4
MAX_CROSSINGS = 8  # per call and critical argument; more sign changes: not monotone enough, skipped
_MAX_ORD = 0x7FEFFFFFFFFFFFFF  # ordinal of the largest finite float64
WIDE_COMPUTE_TYPE = "float32"  # the type 16-bit kernels commonly compute in


@dataclass(frozen=True)
class Crossing:
    """The input value where ``call``'s argument crosses ``critical`` (midpoint of two adjacent
    float64, or the float64 itself where the argument equals the critical value there)."""

    value: Fraction
    critical: CriticalArgument
    call: str  # the call as the formula spells it, e.g. "exp(-x)"

    @property
    def label(self) -> str:
        return f"{self.call}: {self.critical.label}"


def compute_types(dtype: str) -> tuple[str, ...]:
    """The float types whose thresholds matter for inputs of ``dtype``: its own, and float32 for
    the 16-bit types (kernels widen them)."""
    if dtype not in FORMATS:
        return ()
    if FORMATS[dtype].bits < 32:
        return (dtype, WIDE_COMPUTE_TYPE)
    return (dtype,)


def crossings(node: n.Node, variable: str, attributes: Mapping[str, float], dtype: str) -> list[Crossing]:
    """Every crossing of ``node`` in ``variable`` for inputs of ``dtype``, the other names held at
    ``attributes`` (floats), sorted by input value; cached."""
    return list(_crossings(node, variable, tuple(sorted((k, float(v)) for k, v in attributes.items())), dtype))


def _grid() -> tuple[np.ndarray, np.ndarray]:
    step = (1 << 52) // GRID_PER_BINADE
    ords = np.arange(-_MAX_ORD, _MAX_ORD + 1, step, dtype=np.int64)
    ords = np.unique(np.concatenate([ords, [0, _MAX_ORD, -_MAX_ORD]]))
    return ords, _floats(ords)


def _floats(ords: np.ndarray) -> np.ndarray:
    return np.where(ords < 0, -np.abs(ords).view(np.float64), ords.view(np.float64))


@functools.lru_cache(maxsize=1)
def _cached_grid():
    return _grid()


def _call_text(call: n.Call) -> str:
    from specgen.render.formula_text import spell
    return spell(call)


@functools.lru_cache(maxsize=4096)
def _crossings(node: n.Node, variable: str, attributes: tuple, dtype: str) -> tuple[Crossing, ...]:
    from specgen.formula.numpy_eval import evaluate
    env = dict(attributes)
    found: dict[tuple[Fraction, str], Crossing] = {}
    ords, xs = _cached_grid()
    for call in n.walk(node):
        if not (isinstance(call, n.Call) and FUNCTIONS.get(call.func) and FUNCTIONS[call.func].critical):
            continue
        arg = call.args[0]
        if variable not in n.names(arg):
            continue

        def argument(x: np.ndarray) -> np.ndarray:
            return np.broadcast_to(np.asarray(evaluate(arg, {**env, variable: x}), dtype=np.float64), x.shape)

        g = argument(xs)
        text = _call_text(call)
        crits = [crit for ct in compute_types(dtype) for crit in critical_arguments(call.func, ct)]
        for i, value in _roots(argument, ords, g, np.array([float(c.value) for c in crits])):
            found.setdefault((value, crits[i].label), Crossing(value, crits[i], text))
    return tuple(sorted(found.values(), key=lambda c: (c.value, c.label)))


def _roots(argument, ords: np.ndarray, g: np.ndarray, targets: np.ndarray) -> list[tuple[int, Fraction]]:
    """(index of the target, input) for every input where ``argument`` crosses one of ``targets``:
    bisection over the float64 order between grid samples on different sides, all at once."""
    live = np.flatnonzero(~np.isnan(g))
    if len(live) < 2 or len(targets) == 0:
        return []
    s = np.sign(g[live][None, :] - targets[:, None])
    which, at = np.nonzero(s[:, :-1] != s[:, 1:])
    counts = np.bincount(which, minlength=len(targets))
    keep = counts[which] <= MAX_CROSSINGS  # more: not monotone enough at this resolution, skipped
    which, at = which[keep], at[keep]
    if len(which) == 0:
        return []
    a, b = ords[live[at]].copy(), ords[live[at + 1]].copy()
    sa, t = s[which, at], targets[which]
    while True:
        open_ = b - a > 1
        if not open_.any():
            break
        m = a + (b - a) // 2
        same = (np.sign(argument(_floats(m)) - t) == sa) & open_
        a = np.where(same, m, a)
        b = np.where(open_ & ~same, m, b)
    out = []
    for i, lo, hi in zip(which, _floats(a), _floats(b)):
        if np.isfinite(lo) and np.isfinite(hi):
            out.append((int(i), (Fraction(float(lo)) + Fraction(float(hi))) / 2))
    return out
