"""Error-free transformations of float64 arrays (Knuth's TwoSum, Dekker's TwoProduct).

Exact when no overflow or underflow is near; callers decide when that holds. Shared by the
generator's proven-float64 golden values and the error model's outward-rounded intervals.
"""
from __future__ import annotations

SPLIT = 134217729.0  # 2**27 + 1, Dekker's splitter


def two_sum_err(a, b, s):
    """With s = fl(a + b): the exact a + b - s."""
    bb = s - a
    return (a - (s - bb)) + (b - bb)


def split(a):
    """a = hi + lo with each half holding at most 26 significant bits."""
    c = SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod_err(a, b, p):
    """With p = fl(a * b): the exact a * b - p."""
    ah, al = split(a)
    bh, bl = split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl
