"""Critical arguments: per function of the table and per float type, the argument values where the
function's behaviour in that type changes (exp overflows, underflows, stops mattering next to 1,
tanh and erf saturate, ...). Each is defined in the function's row (``Function.critical``) by a
predicate on the exact value rounded to the type, never by a hand-typed constant, and located here
by bisection over the type's ordered values with the predicate evaluated in mpmath, so the value is
exact: the largest value of the type on one side and the smallest on the other.

``critical_arguments("exp", "float32")`` -> [Critical("overflow", lo=88.72283, hi=88.722839...), ...]
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from specgen.formula.functions import FUNCTIONS
from specgen.numerics.ulp import FORMATS, from_ordered
from specgen.numerics.ulp import ordered as to_ordered

# working precision of the predicates: far beyond every type's precision, so a rounding decided at
# this precision is the rounding of the exact value (no critical argument is a tie)
PRECISION_BITS = 256


@dataclass(frozen=True)
class CriticalArgument:
    """Where one critical predicate of ``function`` flips in ``dtype``: ``below`` is the last value
    of the type before the flip, ``above`` the first after it (adjacent in the type's order)."""

    function: str
    name: str
    meaning: str
    dtype: str
    below: float
    above: float

    @property
    def value(self) -> Fraction:
        """The midpoint of the two adjacent values: the argument the formula must cross."""
        return (Fraction(self.below) + Fraction(self.above)) / 2

    @property
    def label(self) -> str:
        return f"{self.function} {self.name} ({self.dtype})"


def _predicate_at(test, dtype: str, o: int) -> bool:
    t = float(from_ordered(np.array([o]), dtype).astype(np.float64)[0])
    with mpmath.workprec(PRECISION_BITS):
        return bool(test(mpmath.mpf(t), dtype))


@functools.lru_cache(maxsize=None)
def critical_arguments(function: str, dtype: str) -> tuple[CriticalArgument, ...]:
    """Every critical argument of ``function`` in the float type ``dtype``, in the row's order; a
    predicate that does not flip on its side (none in this type) gives none."""
    f = FORMATS[dtype]
    top = int(to_ordered(np.array([f.max_finite]).astype(f.numpy), dtype)[0])
    out = []
    for c in FUNCTIONS[function].critical:
        lo, hi = (1, top) if c.side == "+" else (-top, -1)
        p_lo, p_hi = _predicate_at(c.test, dtype, lo), _predicate_at(c.test, dtype, hi)
        if p_lo == p_hi:
            continue
        while hi - lo > 1:  # the predicate flips once on the side: bisection in the type's order
            mid = (lo + hi) // 2
            if _predicate_at(c.test, dtype, mid) == p_lo:
                lo = mid
            else:
                hi = mid
        below, above = (float(from_ordered(np.array([o]), dtype).astype(np.float64)[0]) for o in (lo, hi))
        out.append(CriticalArgument(function, c.name, c.meaning, dtype, below, above))
    return tuple(out)
