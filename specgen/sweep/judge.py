"""The one seam between sweeps and the numerics engine (golden values and compare).

Everything a sweep needs from ``specgen.generate.exact.golden`` and
``specgen.numerics.compare`` goes through this module, so that when those change (numerics
engine v2: a vectorised compare fast path, cheap golden values for transcendental formulas,
several inputs) only this file adapts.

What a sweep needs per element, and how it is had today:

- the golden value: ``golden(spec, inputs, attributes, dtype, standard).y``;
- the verdict class (pass or one of compare's failure kinds), the error in ULPs of the output
  dtype and the accepted bound in the same units. ``compare()`` exposes these only aggregated
  (``worst``, ``first`` 10, ``kinds`` counts), so this module runs compare's judge and reads its
  per-element arrays (``kind``, ``error``, ``bound``). That is the one private use; the public
  API it stands in for is written down in docs/sweep.md ("What the sweep needs from compare").
- Fast path: a result bitwise equal to the golden value always passes (compare's own rule), so
  only the other elements go through the judge; for the equal ones the error is computed here the
  way compare computes it (|actual - reference| / ulp(reference), the reference being the
  formula in float64) and the bound is left unknown (NaN) until a report asks for it
  (``bounds_at``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specgen import dtypes as dt
from specgen.formula.numpy_eval import evaluate
from specgen.generate.exact import golden
from specgen.numerics import compare as C
from specgen.numerics import ulp as U

# verdict classes, as small integer codes per element
PASS, VALUE, NAN, INF, SIGNED_ZERO, FLUSH, ERROR = range(7)
KINDS = ("pass", "value", "nan-mismatch", "inf-mismatch", "signed-zero", "flush", "error")
_CODE = {k: i for i, k in enumerate(KINDS)}
FAIL_SEVERITY = {NAN: 6, INF: 5, ERROR: 4, VALUE: 3, FLUSH: 2, SIGNED_ZERO: 1, PASS: 0}


@dataclass
class Judged:
    kind: np.ndarray  # uint8 codes (KINDS)
    error: np.ndarray  # float64 error in ULPs of the output dtype (0 for non-finite inputs that pass)
    bound: np.ndarray  # float64 accepted error in ULPs; NaN where not computed (golden-equal elements)
    expected: np.ndarray  # golden values, the dtype's array


class Context:
    """What stays the same for every chunk of one sweep: spec, standard, dtype, attributes."""

    def __init__(self, spec, standard: str, dtype: str, attributes: dict[str, float]):
        self.standard, self.dtype = standard, dtype
        chosen = spec.choice_value(attributes, standard) if spec.choice is not None else None
        self.spec, numeric = spec.resolve(attributes, standard)  # a string attribute picks the formula
        self.attributes = C.resolve_attributes(self.spec, standard, numeric)
        self.input = spec.inputs[0].name
        self.formula = self.spec.formula_for(standard)
        tol = spec.tolerance.get(dtype)
        self.metric = tol.metric if tol else ("model" if U.is_float(dtype) else "exact")
        self.tol = tol
        self.context = C._context(spec, {**self.attributes, **({spec.choice.attribute: chosen} if chosen else {})},
                                  dtype, ())

    # -- golden values
    def golden(self, x: np.ndarray) -> np.ndarray:
        return golden(self.spec, {self.input: x}, self.attributes, self.dtype, self.standard).y

    # -- the per-element judgement
    def judge(self, x: np.ndarray, actual: np.ndarray, expected: np.ndarray | None = None) -> Judged:
        if expected is None:
            expected = self.golden(x)
        n = x.shape[0]
        kind = np.zeros(n, dtype=np.uint8)
        bound = np.full(n, np.nan)
        if U.is_float(self.dtype):
            same = _same_bits(actual, expected)
            error = self._error(x, actual)
        else:
            same = actual == expected
            error = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
        rest = np.flatnonzero(~same)
        if rest.size:
            k, e, b = self._judge_all(x[rest], actual[rest], expected[rest])
            kind[rest], error[rest], bound[rest] = k, e, b
        return Judged(kind, error, bound, expected)

    def bounds_at(self, x: np.ndarray, actual: np.ndarray, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(error, bound) at a few elements (for worst-case records)."""
        _, e, b = self._judge_all(x, actual, expected)
        return e, b

    def _error(self, x, actual) -> np.ndarray:
        """compare's error: |actual - reference| / ulp(reference); 0 where an input is not finite."""
        f = U.fmt(self.dtype)
        with np.errstate(all="ignore"):
            xd = x.astype(np.float64)
            finite = np.isfinite(xd)
            ref = np.broadcast_to(np.asarray(evaluate(self.formula, {self.input: np.where(finite, xd, 0.0),
                                                                     **self.attributes}), dtype=np.float64), xd.shape)
            err = np.abs(actual.astype(np.float64) - ref) / U.ulp(ref, f)
        return np.where(finite, err, 0.0)

    def _judge_all(self, x, actual, expected):
        """Compare's judge on these elements: (kind codes, error, bound) per element."""
        spec = self.spec
        inputs = {self.input: x}
        judge_cls = C._FloatJudge if U.is_float(self.dtype) else C._IntJudge
        want = dt.get(self.dtype).numpy
        j = judge_cls(spec, self.standard, self.dtype, self.tol, self.metric, inputs, self.attributes,
                      np.asarray(expected), np.asarray(actual, dtype=want), self.context)
        j.run()
        codes = np.zeros(x.shape[0], dtype=np.uint8)
        for name, code in _CODE.items():
            if code and name in C.CODE:  # compare's per-element kinds are its CODE integers
                codes[np.asarray(j.kind == C.CODE[name])] = code
        return codes, np.asarray(j.error, dtype=np.float64), np.asarray(j.bound, dtype=np.float64)


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bitwise equal, or both NaN (any NaN matches NaN)."""
    u = np.dtype(f"uint{a.dtype.itemsize * 8}")
    with np.errstate(invalid="ignore"):
        return (a.view(u) == b.view(u)) | (np.isnan(a) & np.isnan(b))


def describe_value(v, dtype: str) -> dict:
    """{"decimal", "hex"} of one value (compare's formatting)."""
    return C.value_text(v, dt.get(dtype).numpy)
