"""The one seam between sweeps and the numerics engine (golden values and compare).

Everything a sweep needs from ``specgen.numerics.exact.golden`` and
``specgen.numerics.compare`` goes through this module, through their public APIs only:

- the golden value: ``golden(spec, inputs, attributes, dtype, standard).y`` (its tier 0 makes a
  float32 chunk cost a few times numpy's evaluation of the formula);
- the verdict class (pass or one of compare's failure kinds), the error in ULPs of the output
  dtype and the accepted bound in the same units, per element: ``compare.judge_elements``, whose
  fast tiers (golden-equal, naive-evaluation-equal) pass most elements without the error model
  and leave their bound unknown (NaN) until a report asks for it (``bounds_at``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specgen import dtypes as dt
from specgen.numerics.exact import golden
from specgen.numerics import compare as C

# verdict classes, as small integer codes per element
PASS, VALUE, NAN, INF, SIGNED_ZERO, FLUSH, ERROR, CANCELLATION = range(8)
KINDS = ("pass", "value", "nan-mismatch", "inf-mismatch", "signed-zero", "flush", "error", "cancellation")
# compare's per-element codes (0 accepted, CODE[kind]) -> ours
_FROM_COMPARE = np.zeros(max(C.CODE.values()) + 1, dtype=np.uint8)
for _name, _code in C.CODE.items():
    _FROM_COMPARE[_code] = KINDS.index(_name)
FAIL_SEVERITY = {NAN: 7, INF: 6, CANCELLATION: 5, ERROR: 4, VALUE: 3, FLUSH: 2, SIGNED_ZERO: 1, PASS: 0}


@dataclass
class Judged:
    kind: np.ndarray  # uint8 codes (KINDS)
    error: np.ndarray  # float64 error in ULPs of the output dtype (0 for non-finite inputs that pass)
    bound: np.ndarray  # float64 accepted error in ULPs; NaN where not computed (golden-equal elements)
    expected: np.ndarray  # golden values, the dtype's array


class Context:
    """What stays the same for every chunk of one sweep: spec, standard, dtype, attributes."""

    def __init__(self, spec, standard: str, dtype: str, attributes: dict[str, float],
                 extra_inputs: dict[str, float] | None = None):
        self.standard, self.dtype = standard, dtype
        self.spec, numeric = spec.resolve(attributes, standard)  # a string attribute picks the formula
        # the values the standard computes with: WebNN casts its options to the input's type
        # (attribute_cast), so HardSigmoid's alpha = 0.2 is 0.19995 in float16, as in the corpus
        self.attributes = C.resolve_attributes(self.spec, standard, numeric, dtype)
        self.input = spec.inputs[0].name
        self.extra = dict(extra_inputs or {})  # further inputs held at one value (PRelu's slope)
        missing = [t.name for t in spec.inputs[1:] if t.name not in self.extra]
        if missing:
            raise ValueError(f"{spec.id}: a sweep needs a value for input(s) {', '.join(missing)}")

    def inputs(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """The swept input and the further ones, one value per element, in x's dtype."""
        out = {self.input: x}
        out.update({k: np.full(x.shape, v, dtype=x.dtype) for k, v in self.extra.items()})
        return out

    # -- golden values
    def golden(self, x: np.ndarray) -> np.ndarray:
        return golden(self.spec, self.inputs(x), self.attributes, self.dtype, self.standard).y

    # -- the per-element judgement
    def judge(self, x: np.ndarray, actual: np.ndarray, expected: np.ndarray | None = None) -> Judged:
        if expected is None:
            expected = self.golden(x)
        v = C.judge_elements(self.spec, self.standard, self.dtype, self.inputs(x), self.attributes,
                             expected, actual)
        return Judged(_FROM_COMPARE[v.kind], v.error, v.bound, expected)

    def bounds_at(self, x: np.ndarray, actual: np.ndarray, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(error, bound) at a few elements (for worst-case records): the full judgement."""
        v = C.judge_elements(self.spec, self.standard, self.dtype, self.inputs(x), self.attributes,
                             expected, actual, bounds=True)
        return v.error, v.bound


def describe_value(v, dtype: str) -> dict:
    """{"decimal", "hex"} of one value (compare's formatting)."""
    return C.value_text(v, dt.get(dtype).numpy)
