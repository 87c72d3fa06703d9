"""Operators by sampling (the developers' guide: "as operators triple, tests must not"): a test that
checks a mechanism per operator runs a fixed-size, evenly spread sample of the operators in the
README's test command and every operator under ``-m slow``."""
from __future__ import annotations

import math

import pytest

SAMPLE_SIZE = 8


def sampled(ops, size: int = SAMPLE_SIZE) -> list:
    """``ops`` as pytest params: an evenly spaced sample of at most ``size`` of them (sorted order,
    so the same ones on every machine) unmarked, the rest marked ``slow``."""
    keep = sample_of(ops, size)
    return [pytest.param(op, marks=() if op in keep else pytest.mark.slow) for op in sorted(ops)]


def sample_of(ops, size: int = SAMPLE_SIZE) -> set:
    """The operators :func:`sampled` leaves unmarked: every ``ceil(len / size)``-th in sorted order."""
    ops = sorted(ops)
    return set(ops[:: max(1, math.ceil(len(ops) / size))])
