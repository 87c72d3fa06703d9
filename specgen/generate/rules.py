"""Test-design choices of the generator, and the standard-wide layout rules it reads from the specs.

Layout rules (may a tensor be strided? may a dimension be 0?) are facts of each standard and live
in specs/_standards.yaml (``layout``). Rank caps bound the test matrix where a table is unbounded
or silent; they are a test-design choice, not a rule of the standard (no negative cases come from them).
"""
from __future__ import annotations


def layout(info) -> dict:
    """The layout rules of a standard (a StandardInfo from specs/_standards.yaml)."""
    return {"strides": info.strides, "zero_sizes": info.zero_sizes}


# ranks the positive cases cover where the table is unbounded (ONNX: 0 or more) or unspecified (oneDNN)
UNBOUNDED_RANK_CAP = 8
UNSPECIFIED_RANKS = (1, 2, 3, 4, 5, 6)


def tested_ranks(ranks) -> list[int]:
    if ranks.unspecified:
        return list(UNSPECIFIED_RANKS)
    hi = ranks.max if ranks.max is not None else UNBOUNDED_RANK_CAP
    return list(range(ranks.min or 0, hi + 1))
