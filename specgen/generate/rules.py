"""Facts about the standards that the specs do not (yet) state, kept in one table.

The spec format has no keys for these standard-wide rules; until specs/_standards.yaml grows
them (``strides`` and ``zero_sizes``), the generator reads them from here and says so in the
generated validation modules. Rank caps bound the test matrix where a table is unbounded or
silent; they are a test-design choice, not a rule of the standard (no negative cases come from them).
"""
from __future__ import annotations

# standard -> layout rules applied by the validation code
LAYOUT = {
    # DML_BUFFER_TENSOR_DESC: optional Strides (0 broadcasts, larger strides pad); "specifying a
    # size of zero in any dimension is invalid".
    "directml": {"strides": True, "zero_sizes": False},
    # ONNX tensors are dense (no strides in the standard); dimensions of size 0 are legal.
    "onnx": {"strides": False, "zero_sizes": True},
    # oneDNN Graph logical tensors may be strided; zero-volume shapes are accepted.
    "onednn": {"strides": True, "zero_sizes": True},
}
DEFAULT_LAYOUT = {"strides": False, "zero_sizes": True}

# ranks the positive cases cover where the table is unbounded (ONNX: 0 or more) or unspecified (oneDNN)
UNBOUNDED_RANK_CAP = 8
UNSPECIFIED_RANKS = (1, 2, 3, 4, 5, 6)


def layout(standard: str) -> dict:
    return dict(LAYOUT.get(standard, DEFAULT_LAYOUT))


def tested_ranks(ranks) -> list[int]:
    if ranks.unspecified:
        return list(UNSPECIFIED_RANKS)
    hi = ranks.max if ranks.max is not None else UNBOUNDED_RANK_CAP
    return list(range(ranks.min or 0, hi + 1))
