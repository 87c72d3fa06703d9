"""The comparison the runner uses: actual outputs against the spec's accepted results, vectorised.

``compare(spec, standard_key, dtype, inputs, attributes, expected, actual) -> Comparison``
(docs/ARCHITECTURE.md, "Numerics"). How an element is judged:

0. The formula is the standard's (``OpSpec.formula_for(standard)``): ONNX Shrink tests x < -lambd
   first, DirectML x > Threshold first; they differ for negative thresholds.
1. Elements whose inputs are all finite: the accepted results come from the tolerance's metric.
   ``model``: ``error_model.accepted_outputs`` recomputes, from the inputs and attributes, the
   interval of results every correct evaluation order can give (it does not lean on ``expected``,
   so the extra half ULP between the exact value and the golden once-rounded value is not
   needed); ``exact``: the golden value; ``ulp`` N: within N ULPs (of the reference's binade) of
   the reference; ``abs`` v: within v of the reference. The reference is the formula evaluated in
   float64 at the inputs (exact for the rational formulas at float32 and narrower; it is only
   used for the reported ULP error, never for the model's verdict). The reported error counts
   from it except where it disagrees with the golden value by more than one ULP of the output
   type (``measure_reference``: there float64 cancelled or overflowed), where it counts from the
   golden value. A result equal to the golden
   value always passes (if the golden value is outside the model's set, a note says so).
2. ``subnormal: flush_allowed``: a subnormal input may act as a zero of its sign (the element is
   also judged with the input flushed, and passes if either judgement passes), and a result whose
   accepted set reaches the subnormal range may be a zero.
3. ``signed_zero``: where the accepted results all have one sign, a zero of the other sign is a
   ``signed-zero`` failure (outcome ``formula``), a note (``unspecified``), or ignored (``any``).
4. Elements with a NaN or infinite input: the spec's special-value outcomes for the standard
   (``formula``: the literal formula in IEEE float64 arithmetic with NaN-propagating min/max;
   ``limit``: the formula at +-1e300; ``nan``; ``zero``), each rounded to the output dtype and
   compared exactly (any NaN matches NaN); ``unspecified``: never fails, the backend's behaviour
   is noted.
5. Integer dtypes: exactly the spec's ``integer_rounding`` modes of the exact value (Shrink:
   truncation or round-to-nearest-even; never a window around it), each correctly rounded;
   ``abs``/``ulp`` v widens each by v (``exact``: nothing). A mode's result out of the type's
   range follows ``integer_overflow`` (``unspecified``: noted, not failed). The golden value always
   passes; with ``fast`` only the elements that differ from it are judged.

Failure kinds: ``nan-mismatch`` (NaN where a number is accepted or the reverse), ``inf-mismatch``
(an infinity where only finite values are accepted or the reverse), ``flush`` (a zero where only
subnormal values are accepted and flushing is not allowed), ``signed-zero``, ``value``; a wrong
shape or dtype of ``actual`` gives ``shape`` / ``dtype`` (never an exception).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from specgen import dtypes as dt
from specgen.formula.functions import formula_budget
from specgen.formula.numpy_eval import evaluate
from specgen.errors import SpecError
from specgen.numerics import catastrophe
from specgen.numerics import ulp as U
from specgen.numerics.error_model import accepted_outputs, compute_types

MAX_FIRST = 10
LIMIT_INPUT = 1e300
KIND_ORDER = ("nan-mismatch", "inf-mismatch", "cancellation", "value", "flush", "signed-zero")
CATASTROPHIC = ("nan-mismatch", "inf-mismatch", "cancellation")  # explained by specgen.numerics.catastrophe
# per-element failure kinds are small integer codes: 0 accepted, i + 1 for KIND_ORDER[i] (most severe first)
OK_CODE = 0
CODE = {k: i + 1 for i, k in enumerate(KIND_ORDER)}


@dataclass
class Element:
    """One element of a comparison: where it is and the values involved, in decimal and hex."""

    index: tuple[int, ...]
    input: dict  # the first input's value: {"decimal", "hex"}
    expected: dict
    actual: dict
    error_ulps: float  # |actual - reference| in ULPs of the output dtype (OpenCL: the reference's binade)
    bound_ulps: float  # the largest accepted error at this element, same units
    kind: str | None = None  # failure kind, None when the element is accepted
    inputs: dict = field(default_factory=dict)  # every input by name (for multi-input operators)
    reason: str | None = None  # a catastrophic failure in words ("exp(x) overflowed at x = 100: ...")

    def to_json(self) -> dict:
        out = {"index": list(self.index), "input": self.input, "expected": self.expected,
               "actual": self.actual, "error_ulps": _num(self.error_ulps), "bound_ulps": _num(self.bound_ulps)}
        if self.kind:
            out["kind"] = self.kind
        if self.reason:
            out["reason"] = self.reason
        if len(self.inputs) > 1:
            out["inputs"] = self.inputs
        return out


@dataclass
class Failing:
    """Every failing element of a comparison, as flat arrays (the baseline matcher explains each one
    by a known cause: specgen.runner.baseline). ``index``: flat indices into the case's output;
    ``kind``: the failure kind of each (a KIND_ORDER name); ``inputs``: every input's value at each
    element, as float64 (integers exactly where they fit); ``error``/``bound``: ULPs as in Element."""

    index: np.ndarray
    kind: list
    inputs: dict
    expected: np.ndarray
    actual: np.ndarray
    error: np.ndarray
    bound: np.ndarray

    def __len__(self) -> int:
        return int(self.index.size)

    def take(self, flat_map: np.ndarray) -> "Failing":
        """The same elements with indices mapped through ``flat_map`` (a judged subset's positions in
        the whole case)."""
        return Failing(flat_map[self.index], self.kind, self.inputs, self.expected, self.actual, self.error,
                       self.bound)


@dataclass
class Comparison:
    ok: bool
    total: int
    mismatches: int
    kind: str | None  # the most severe failure kind present (KIND_ORDER), None when ok
    kinds: dict[str, int]  # mismatch count per failure kind
    worst: Element | None  # the worst mismatch; when ok, the element with the largest error
    first: list[Element]  # up to MAX_FIRST mismatches in index order
    notes: list[str]
    metric: str
    context: str  # "op(attrs) dtype shape"
    max_error_ulps: float = 0.0  # over the judged finite-input elements (not the golden-equal ones)
    golden_equal: int = 0  # elements bit-identical to the golden value: accepted without the model
    naive_equal: int = 0  # elements bit-identical to a naive evaluation in an allowed compute type: likewise
    failing: Failing | None = None  # every failing element (None when ok or for a shape/dtype failure)

    def summary(self) -> str:
        if self.kind in ("shape", "dtype"):
            return f"{self.notes[0] if self.notes else self.kind} [{self.context}]"
        if self.ok:
            if self.golden_equal == self.total:
                return (f"{self.total} elements equal to the correctly rounded golden value "
                        f"[{self.context}]")
            naive = f", {self.naive_equal} to a naive evaluation" if self.naive_equal else ""
            return (f"{self.total} elements within the {self.metric} bound ({self.golden_equal} equal to the golden "
                    f"value{naive}), max error {_fmt_ulps(self.max_error_ulps)} ULP [{self.context}]")
        w = self.worst
        if w.reason:
            return (f"{self.mismatches} of {self.total} elements out of bound ({self.kind}); worst at "
                    f"{list(w.index)}: {w.reason} [{self.context}]")
        named = w.inputs or ({"x": w.input} if w.input else {})
        values = ", ".join(f"{k} = {v['decimal']} ({v['hex']})" for k, v in named.items())
        at = f" at {list(w.index)}, {values}" if values else f" at {list(w.index)}"
        err = f", {error_against_bound(w.error_ulps, w.bound_ulps)}" if w.kind in ("value", "flush") else ""
        return (f"{self.mismatches} of {self.total} elements out of bound ({self.kind}); worst{at}: "
                f"got {w.actual['decimal']} ({w.actual['hex']}), expected {w.expected['decimal']} "
                f"({w.expected['hex']}){err} [{self.context}]")

    def to_json(self) -> dict:
        return {"ok": self.ok, "total": self.total, "mismatches": self.mismatches, "kind": self.kind,
                "kinds": dict(self.kinds), "metric": self.metric, "context": self.context,
                "max_error_ulps": _num(self.max_error_ulps), "golden_equal": self.golden_equal,
                "naive_equal": self.naive_equal,
                "worst": self.worst.to_json() if self.worst else None,
                "first": [e.to_json() for e in self.first], "notes": list(self.notes), "summary": self.summary()}


def _num(v):
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))


def error_against_bound(error, bound, fmt=None) -> str:
    """``error E ULP > bound B ULP``, or, where the bound is not a finite number of ULPs (the accepted
    interval runs to an infinity, e.g. where the formula may overflow), what that means instead of
    the meaningless ``error inf ULP > bound inf ULP``."""
    fmt = fmt or _fmt_ulps
    error, bound = float(error), float(bound)
    if math.isfinite(bound):
        return f"error {fmt(error)} ULP > bound {fmt(bound)} ULP"
    if math.isinf(bound):
        return (f"error {fmt(error)} ULP, outside the accepted interval, which is unbounded on one side "
                f"(no finite ULP bound)")
    return f"error {fmt(error)} ULP (no ULP bound at this element)"


def _fmt_ulps(v) -> str:
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    if abs(v) < 1e5:
        return f"{v:.3g}"
    return f"{v:,.0f}" if abs(v) < 1e12 else f"{v:.3e}"


# ----------------------------------------------------------------------------- value formatting

def value_text(v, dtype) -> dict:
    """{"decimal", "hex"} of one value in its dtype (hex: the bit pattern / two's complement)."""
    d = np.dtype(dtype)
    if U.is_float(d):
        return {"decimal": U.decimal(v, d), "hex": U.hex_bits(v, d)}
    iv = int(np.asarray(v).astype(d))
    bits = iv & ((1 << (8 * d.itemsize)) - 1)
    return {"decimal": str(iv), "hex": f"0x{bits:0{2 * d.itemsize}x}"}


# ----------------------------------------------------------------------------- the entry point

def compare(spec, standard_key: str, case_dtype: str, inputs: Mapping[str, Any], attributes: Mapping[str, float],
            expected, actual, *, fast: bool = True) -> Comparison:
    """Judge ``actual`` against the spec for one case; never raises for a wrong actual.

    ``fast`` (the default): elements bit-identical to the golden value with finite inputs pass
    without running the error model (the full judgement accepts them all); only the others are
    judged. ``fast=False`` judges every element (same verdicts; the max error and the worst
    element of a passing case then range over every element)."""
    expected = np.asarray(expected)
    chosen = spec.choice_value(attributes, standard_key) if getattr(spec, "choice", None) else None
    if chosen is not None:  # a string attribute picks the formula: from here on a plain numeric operator
        named = spec
        spec, attributes = spec.resolve(attributes, standard_key)
    attrs = resolve_attributes(spec, standard_key, attributes, case_dtype)
    context = _context(named if chosen is not None else spec,
                       {**attrs, named.choice.attribute: chosen} if chosen is not None else attrs,
                       case_dtype, expected.shape)
    tol = spec.tolerance.get(case_dtype)
    metric = tol.metric if tol else ("model" if U.is_float(case_dtype) else "exact")
    try:
        actual = np.asarray(actual)
    except Exception as exc:  # noqa: BLE001 - any array-like failure is the backend's problem  # pragma: no cover
        return _structural("dtype", f"actual is not an array: {exc}", expected, metric, context)
    if actual.shape != expected.shape:
        return _structural("shape", f"wrong shape: got {actual.shape}, expected {expected.shape}", expected,
                           metric, context)
    # the output's own type where it differs from the inputs' (a comparison's bool or uint8, stored so
    # in the corpus): an integer result, judged exactly as the integers 0 and 1 are
    out_dtype = dt.by_numpy(expected.dtype).name
    want = dt.get(out_dtype).numpy
    if actual.dtype != want:
        return _structural("dtype", f"wrong dtype: got {actual.dtype.name}, expected {np.dtype(want).name}",
                           expected, metric, context)
    judged_dtype = case_dtype
    if out_dtype != case_dtype:
        judged_dtype = "uint8" if out_dtype == "bool" else out_dtype
        expected, actual = expected.astype(dt.get(judged_dtype).numpy), actual.astype(dt.get(judged_dtype).numpy)
    names = [t.name for t in spec.inputs]
    arrays = {k: np.broadcast_to(np.asarray(inputs[k]), expected.shape) for k in names}
    scalar = expected.ndim == 0  # judged as one element; indices are reported as ()
    if scalar:
        arrays = {k: v.reshape(1) for k, v in arrays.items()}
        expected, actual = expected.reshape(1), actual.reshape(1)
    flushed_note = None
    if judged_dtype != case_dtype and U.is_float(case_dtype):
        arrays, flushed_note = _flushed_where_accepted(spec, standard_key, judged_dtype, arrays, attrs, actual)
    judge = _FloatJudge if U.is_float(judged_dtype) else _IntJudge
    args = (spec, standard_key, judged_dtype, tol, metric)
    if judge is _FloatJudge and fast:
        result = _judge_differing(judge, args, arrays, attrs, expected, actual, context)
    elif fast:
        result = _int_judge_differing(args, arrays, attrs, expected, actual, context)
    else:
        result = judge(*args, arrays, attrs, expected, actual, context).run()
    if scalar:
        for e in [result.worst, *result.first]:
            if e is not None:
                e.index = ()
    if flushed_note:
        result.notes.append(flushed_note)
    return result


def _flushed_where_accepted(spec, standard_key, out_dtype, arrays, attrs, actual):
    """An output of its own type (a comparison's truth value) from floating-point inputs: where the
    spec lets subnormal inputs act as zeros (``subnormal`` flush_allowed or unspecified), an element
    whose result is the formula's at its subnormal inputs flushed to zeros of their sign is judged
    at those flushed inputs (and the note says how many): the same rule as the float judge's."""
    outcomes = _outcomes(spec, "subnormal", standard_key)
    if not ("flush_allowed" in outcomes or "unspecified" in outcomes):
        return arrays, None
    sub = {}
    for k, v in arrays.items():
        d = dt.by_numpy(v.dtype)
        if d.is_float:
            with np.errstate(all="ignore"):
                w = v.astype(np.float64)
                sub[k] = np.isfinite(w) & (w != 0) & (np.abs(w) < d.min_normal)
    if not sub or not any(m.any() for m in sub.values()):
        return arrays, None
    from specgen.numerics.exact import golden

    any_sub = np.zeros(actual.shape, dtype=bool)
    for m in sub.values():
        any_sub |= np.broadcast_to(m, actual.shape)
    flushed = {k: (np.where(sub[k], np.copysign(0.0, v.astype(np.float64)).astype(v.dtype), v)
                   if k in sub else v) for k, v in arrays.items()}
    flushed = {k: np.broadcast_to(v, actual.shape) for k, v in flushed.items()}
    # only the elements with a subnormal input the backend answered otherwise than the golden value
    expected = golden(spec, {k: np.broadcast_to(v, actual.shape)[any_sub] for k, v in arrays.items()},
                      attrs, out_dtype, standard_key).y
    idx = np.flatnonzero(any_sub.reshape(-1))[np.asarray(actual)[any_sub] != expected]
    if not idx.size:
        return arrays, None
    alt = golden(spec, {k: v.reshape(-1)[idx] for k, v in flushed.items()}, attrs, out_dtype, standard_key).y
    use = np.zeros(actual.size, dtype=bool)
    use[idx[np.asarray(actual).reshape(-1)[idx] == alt]] = True
    use = use.reshape(actual.shape)
    if not use.any():
        return arrays, None
    out = {k: np.where(use, flushed[k], np.broadcast_to(v, actual.shape)) for k, v in arrays.items()}
    return out, (f"subnormal inputs acting as zeros (subnormal: {'/'.join(outcomes)}): "
                 f"{int(use.sum())} element(s) judged at their flushed inputs")


# ----------------------------------------------------------------------------- per element

# how an element was judged (Verdicts.tier)
GOLDEN_EQUAL, NAIVE_EQUAL, JUDGED, MODEL_INSIDE, BUDGET_INSIDE = 1, 2, 3, 4, 5


@dataclass
class Verdicts:
    """compare's judgement element by element (``judge_elements``), flat arrays."""

    kind: np.ndarray  # int8: OK_CODE, or CODE[kind] of the failure
    error: np.ndarray  # float64: |actual - reference| in ULPs of the dtype (0 at non-finite inputs that pass)
    bound: np.ndarray  # float64: the accepted error in ULPs; NaN where a fast tier accepted the element
    tier: np.ndarray  # uint8: GOLDEN_EQUAL, NAIVE_EQUAL, BUDGET_INSIDE, MODEL_INSIDE or JUDGED
    notes: list[str]


def judge_elements(spec, standard_key: str, case_dtype: str, inputs: Mapping[str, Any],
                   attributes: Mapping[str, float], expected, actual, *, bounds: bool = False) -> Verdicts:
    """The verdict of every element, as ``compare`` would give it (the same rules, the same failure
    kinds), for callers that need more than the aggregate: sweeps, per-element reports. Inputs,
    ``expected`` and ``actual`` are arrays of one shape (flattened here) and the right dtypes.

    Fast tiers, cheapest first: a result bit-identical to the golden value (finite inputs) passes;
    so does a finite nonzero result bit-identical to a naive evaluation in an allowed compute type
    (``naive_evaluation_mask``), one within the formula's function budget of every exact value the
    golden value admits (``budget_inside_mask``: the accuracy floor's own test), and one inside the
    error model's accepted set (``model_inside_mask``); only the rest runs the full judgement. The error of the fast-tier
    elements is computed (``error_ulps``), their bound is not (NaN) unless ``bounds`` asks for it,
    which judges every element in full (use it on the few elements a report shows). The work runs in
    blocks of ``BLOCK`` elements; ``notes`` are those of every block (counts per block)."""
    expected = np.asarray(expected).reshape(-1)
    actual = np.asarray(actual).reshape(-1)
    if getattr(spec, "choice", None) and spec.choice_value(attributes, standard_key) is not None:
        spec, attributes = spec.resolve(attributes, standard_key)  # a string attribute picks the formula
    attrs = resolve_attributes(spec, standard_key, attributes, case_dtype)
    context = _context(spec, attrs, case_dtype, expected.shape)
    tol = spec.tolerance.get(case_dtype)
    metric = tol.metric if tol else ("model" if U.is_float(case_dtype) else "exact")
    arrays = {t.name: np.broadcast_to(np.asarray(inputs[t.name]).reshape(-1), expected.shape) for t in spec.inputs}
    args = (spec, standard_key, case_dtype, tol, metric)
    n = expected.shape[0]
    tier = np.full(n, JUDGED, dtype=np.uint8)
    if U.is_float(case_dtype) and not bounds:
        same = golden_equal_mask(expected, actual, arrays)
        # a NaN where the golden value is NaN passes whatever its sign and payload (the full judgement's
        # golden_equal): x86's sqrt(-2) is 0xffc00000, the golden NaN 0x7fc00000; half of a sweep of
        # sqrt, log or acos, each element otherwise judged in full
        same |= nan_equal_mask(expected, actual, arrays)
        tier[same] = GOLDEN_EQUAL
        rest = np.flatnonzero(~same)
        if rest.size:
            naive = naive_evaluation_mask(args, {k: v[rest] for k, v in arrays.items()}, attrs, actual[rest])
            tier[rest[naive]] = NAIVE_EQUAL
            rest = rest[~naive]
        if rest.size and metric == "model":
            near = budget_inside_mask(spec.formula_for(standard_key), case_dtype,
                                      {k: v[rest] for k, v in arrays.items()}, expected[rest], actual[rest])
            tier[rest[near]] = BUDGET_INSIDE
            rest = rest[~near]
        for a, b in _blocks(rest.size):
            i = rest[a:b]
            inside = model_inside_mask(args, {k: v[i] for k, v in arrays.items()}, attrs, actual[i])
            tier[i[inside]] = MODEL_INSIDE
    idx = np.flatnonzero(tier == JUDGED)
    kind = np.zeros(n, dtype=np.int8)
    bound = np.full(n, np.nan)
    error = np.zeros(n)
    notes: list[str] = []
    judge = _FloatJudge if U.is_float(case_dtype) else _IntJudge
    for a, b in _blocks(n):  # cache-sized blocks: numpy on large temporaries is bound by memory traffic
        if idx.size < n:
            error[a:b] = error_ulps(spec, standard_key, case_dtype, {k: v[a:b] for k, v in arrays.items()}, attrs,
                                    actual[a:b], expected[a:b])
    for a, b in _blocks(idx.size):
        i = idx[a:b]
        j = judge(*args, {k: v[i] for k, v in arrays.items()}, attrs, expected[i], actual[i], context)
        j.judge()  # the verdicts only: finish()'s report (first and worst elements described) goes unused
        kind[i], error[i], bound[i] = j.kind, j.error, j.bound
        notes += [t for t in j.notes if t not in notes]
    return Verdicts(kind, error, bound, tier, notes)


BLOCK = 1 << 14


def _blocks(size: int):
    return ((a, min(a + BLOCK, size)) for a in range(0, size, BLOCK))


def error_ulps(spec, standard_key: str, case_dtype: str, inputs: Mapping[str, np.ndarray],
               attributes: Mapping[str, float], actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """compare's error measure per element: |actual - reference| / ulp(reference) in ULPs of the
    dtype, the reference being the standard's formula in float64 at the inputs, or the golden value
    where that evaluation is off by more than an ULP of the dtype (``measure_reference``); 0 where
    an input is not finite (those elements are judged by the special-value rules)."""
    f = U.fmt(case_dtype)
    with np.errstate(all="ignore"):
        x = {k: np.asarray(v).astype(np.float64) for k, v in inputs.items()}
        finite = np.ones(np.shape(actual), dtype=bool)
        for v in x.values():
            finite &= np.isfinite(v)
        env = {**{k: np.where(finite, v, 0.0) for k, v in x.items()}, **attributes}
        ref = np.broadcast_to(np.asarray(evaluate(spec.formula_for(standard_key), env), dtype=np.float64), np.shape(actual))
        ref = measure_reference(ref, expected, f)
        err = np.abs(actual.astype(np.float64) - ref) / U.ulp(ref, f)
    return np.where(finite, err, 0.0)


def measure_reference(ref: np.ndarray, expected: np.ndarray, f) -> np.ndarray:
    """The value the reported error counts from: the formula evaluated in float64 (``ref``: finer
    than the output type's rounding, where it is accurate), except where it disagrees with the
    correctly rounded golden value by more than one ULP of the output type. There the float64
    evaluation cancelled or overflowed (log(1 + exp(x)) is 0 for x < -37, where softplus is 1e-16;
    exp(x) - 1 is 0 for |x| < 2**-53), and the golden value, within half an ULP of the exact
    value, is the better of the two. An infinite or NaN golden value keeps ``ref``. Only the
    reported error (and the bound in the same units) uses it, never a verdict."""
    e = np.asarray(expected).astype(np.float64)
    with np.errstate(all="ignore"):
        off = ~(np.abs(ref - e) <= U.ulp(e, f))
    return np.where(np.isfinite(e) & off, e, ref)


def _int_judge_differing(args, arrays, attrs, expected, actual, context) -> Comparison:
    """The integer judgement run only on the elements that differ from the golden value (which the
    full judgement always accepts): the same verdicts element by element, without rounding every
    element by every accepted mode (a correct backend costs one comparison)."""
    shape = expected.shape
    idx = np.flatnonzero((expected != actual).reshape(-1))
    if idx.size == 0:
        return Comparison(ok=True, total=int(expected.size), mismatches=0, kind=None, kinds={}, worst=None,
                          first=[], notes=[], metric=args[4], context=context, golden_equal=int(expected.size))
    sub = {k: np.ascontiguousarray(v.reshape(-1)[idx]) for k, v in arrays.items()}
    result = _IntJudge(*args, sub, attrs, expected.reshape(-1)[idx], actual.reshape(-1)[idx], context).run()
    for e in [result.worst, *result.first]:
        if e is not None:
            e.index = tuple(int(i) for i in np.unravel_index(int(idx[e.index[0]]), shape))
    if result.failing is not None:
        result.failing = result.failing.take(idx)
    result.total = int(expected.size)
    result.golden_equal = int(expected.size - idx.size)
    return result


def golden_equal_mask(expected: np.ndarray, actual: np.ndarray, inputs) -> np.ndarray:
    """Elements whose result is bit-identical to the golden (correctly rounded) value and whose
    inputs are all finite: the full judgement accepts every one of them (a golden value always
    passes; a bit-identical zero has the golden sign), so the fast path skips them."""
    bits = expected.dtype.itemsize * 8
    same = expected.view(f"u{bits // 8}") == actual.view(f"u{bits // 8}")
    with np.errstate(invalid="ignore"):  # ml_dtypes' bfloat16 isfinite warns on NaN
        for v in inputs.values():
            if U.is_float(v.dtype):
                same &= np.isfinite(v)
    return same


def nan_equal_mask(expected: np.ndarray, actual: np.ndarray, inputs) -> np.ndarray:
    """Elements whose result and golden value are both NaN and whose inputs are all finite: the full
    judgement accepts every one of them (its golden_equal), with the error |NaN - ref| / ulp = NaN."""
    with np.errstate(invalid="ignore"):  # ml_dtypes' bfloat16 isnan/isfinite warn on NaN
        both = np.isnan(expected) & np.isnan(actual)
        if both.any():
            for v in inputs.values():
                if U.is_float(v.dtype):
                    both &= np.isfinite(v)
    return both


def _judge_differing(judge, args, arrays, attrs, expected, actual, context) -> Comparison:
    """The float judgement run only on the elements that differ from the golden value (or have a
    non-finite input); its verdicts are those of the full judgement element by element (tests:
    tests/test_compare_fast.py), element indices are mapped back to the case's shape."""
    shape = expected.shape
    same = golden_equal_mask(expected, actual, arrays)
    idx = np.flatnonzero(~same.reshape(-1))
    metric = args[4]
    if idx.size == 0:
        return Comparison(ok=True, total=int(expected.size), mismatches=0, kind=None, kinds={}, worst=None,
                          first=[], notes=[], metric=metric, context=context, golden_equal=int(expected.size))
    sub = {k: np.ascontiguousarray(v.reshape(-1)[idx]) for k, v in arrays.items()}
    naive = naive_evaluation_mask(args, sub, attrs, actual.reshape(-1)[idx])
    naive_worst = _largest_error(args, {k: v[naive] for k, v in sub.items()}, attrs, expected.reshape(-1)[idx[naive]],
                                 actual.reshape(-1)[idx[naive]], idx[naive], shape) if naive.any() else None
    if naive.any():
        idx = idx[~naive]
        if idx.size == 0:
            return Comparison(ok=True, total=int(expected.size), mismatches=0, kind=None, kinds={}, worst=naive_worst,
                              first=[], notes=[], metric=metric, context=context,
                              max_error_ulps=naive_worst.error_ulps if naive_worst else 0.0,
                              golden_equal=int(expected.size - naive.size), naive_equal=int(naive.sum()))
        sub = {k: v[~naive] for k, v in sub.items()}
    result = judge(*args, sub, attrs, expected.reshape(-1)[idx], actual.reshape(-1)[idx], context).run()
    result.naive_equal = int(naive.sum())
    if naive_worst is not None and naive_worst.error_ulps > result.max_error_ulps:
        result.max_error_ulps = naive_worst.error_ulps
        if result.ok:
            result.worst = naive_worst
    for e in [result.worst, *result.first]:
        if e is not None and e is not naive_worst:
            e.index = tuple(int(i) for i in np.unravel_index(int(idx[e.index[0]]), shape))
    if result.failing is not None:
        result.failing = result.failing.take(idx)
    result.total = int(expected.size)
    result.golden_equal = int(expected.size - idx.size - result.naive_equal)
    return result


def _largest_error(args, inputs, attrs, expected, actual, flat_index, shape):
    """The element of largest error (ULPs of the reference's binade, against the formula in float64)
    among elements accepted without the model; its bound is not computed (NaN)."""
    spec, standard, dtype = args[0], args[1], args[2]
    err = error_ulps(spec, standard, dtype, inputs, attrs, actual, expected)  # finite inputs (golden/naive-equal)
    err = np.where(np.isfinite(err), err, -1.0)
    i = int(np.argmax(err))
    index = tuple(int(j) for j in np.unravel_index(int(flat_index[i]), shape))
    ins = {k: value_text(v[i], v.dtype) for k, v in inputs.items()}
    return Element(index=index, input=next(iter(ins.values())) if ins else {},
                   expected=value_text(expected[i], expected.dtype), actual=value_text(actual[i], actual.dtype),
                   error_ulps=float(max(err[i], 0.0)), bound_ulps=math.nan, kind=None, inputs=ins)


def naive_evaluation_mask(args, inputs, attrs, actual) -> np.ndarray:
    """Elements (finite inputs, none subnormal) whose finite nonzero result is bit-identical to the
    formula evaluated naively, every operation rounded to one allowed compute type: an evaluation
    order the error model admits by construction, so the full judgement accepts them (zeros, NaN,
    infinities and subnormal inputs are left to it: their sign and flush rules need it)."""
    spec, standard, dtype, tol, metric = args
    out = np.zeros(actual.shape, dtype=bool)
    if metric != "model" or actual.size == 0:
        return out
    f = U.fmt(dtype)
    with np.errstate(all="ignore"):
        a64 = actual.astype(np.float64)
        eligible = np.isfinite(a64) & (a64 != 0)
        for v in inputs.values():
            v64 = v.astype(np.float64)
            eligible &= np.isfinite(v64) & ((v64 == 0) | (np.abs(v64) >= _tiny(v.dtype)))
        if not eligible.any():
            return out
        formula = spec.formula_for(standard)
        bits = f"u{f.bits // 8}"
        want = actual.view(bits)
        for t in compute_types(intermediate_type(tol, dtype)):
            tt = U.fmt(t).numpy
            env = {**{k: v.astype(tt) for k, v in inputs.items()}, **{k: tt.type(v) for k, v in attrs.items()}}
            y = np.broadcast_to(np.asarray(evaluate(formula, env, dtype=tt)), actual.shape)
            out |= U.round_to(y.astype(np.float64), f).view(bits) == want
    return out & eligible


def intermediate_type(tol, dtype: str) -> str:
    """The narrowest type the model lets a kernel compute in: the tolerance's ``intermediate``, else the dtype."""
    return tol.intermediate if tol and tol.intermediate else dtype


def model_inside_mask(args, inputs, attrs, actual) -> np.ndarray:
    """Elements (finite inputs) whose finite nonzero result lies in the error model's accepted set
    at those inputs: the full judgement's first test (``_FloatJudge.run``: ``_inside``), after which
    nothing it does can reject such an element (the flushed-input and accuracy-floor judgements only
    accept more; the catastrophic tests need an infinity or a zero; the signed-zero test a zero), so
    it is accepted without the rest of the judgement (about half of its cost: the reference, the
    bound, the classification). The model here is the full judgement's, on the same inputs."""
    spec, standard, dtype, tol, metric = args
    out = np.zeros(actual.shape, dtype=bool)
    if metric != "model" or actual.size == 0:
        return out
    with np.errstate(all="ignore"):
        a64 = actual.astype(np.float64)
        eligible = np.isfinite(a64) & (a64 != 0)
        x = {k: v.astype(np.float64) for k, v in inputs.items()}
        for v in x.values():
            eligible &= np.isfinite(v)
        if not eligible.any():
            return out
        idx = np.flatnonzero(eligible)
        env = {**{k: v[idx] for k, v in x.items()}, **attrs}
        inter = intermediate_type(tol, dtype)
        acc = accepted_outputs(spec.formula_for(standard), env, inter, dtype, inputs={t.name for t in spec.inputs})
        out[idx] = np.broadcast_to(acc.contains(a64[idx]), idx.shape)
    return out


def budget_inside_mask(formula, dtype: str, inputs, expected, actual) -> np.ndarray:
    """Elements (finite inputs, a finite nonzero result, a finite golden value) whose result is
    within the formula's function budget (``formula_budget``) of every exact value the golden value
    admits: the accuracy floor's budget test (``accuracy_floor``: ``within_budget`` over
    ``exact_enclosure``), which the full judgement applies to every finite-input element the model
    has not accepted, after which only the catastrophic tests (an infinity, a zero) and the
    signed-zero test (a zero) could reject, and they cannot here. It costs a few passes where the
    model costs an interval evaluation of the formula: for a kernel a few ULPs off where the model
    is tight (sigmoid's far tail), most of a sweep's judgement. Model metric only (the caller's)."""
    f = U.fmt(dtype)
    budget = formula_budget(formula, dtype)
    out = np.zeros(actual.shape, dtype=bool)
    if budget <= 0 or actual.size == 0:
        return out
    with np.errstate(all="ignore"):
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        usable = np.isfinite(a) & (a != 0) & np.isfinite(e)
        for v in inputs.values():
            usable &= np.isfinite(v.astype(np.float64))
        idx = np.flatnonzero(usable)  # a failing kernel's zeros (the ELU family's cancellation) cost nothing here
        if idx.size:
            el, eh = exact_enclosure(e[idx], f)
            out[idx] = within_budget(a[idx], el, eh, budget, f)
        return out


def cast_float32_attribute(v) -> float:
    from specgen.spec.model import _float32_attribute

    return _float32_attribute(v)


def resolve_attributes(spec, standard_key: str, attributes: Mapping[str, float],
                       dtype: str | None = None) -> dict[str, float]:
    """Attribute values by the operator's names, float32-rounded; the standard's names (ONNX's
    ``lambd``) are accepted too, and missing attributes take the standard's default. With the
    case's ``dtype``, the values are those the standard computes with (WebNN casts its options to
    the input's data type: specs/_standards.yaml ``attribute_cast``)."""
    std = spec.standards.get(standard_key)
    rename = {b.name: b.attribute for b in std.attributes.values() if b.name} if std else {}
    out: dict[str, float] = {}
    for k, v in (attributes or {}).items():
        name = k if k in spec.attribute_names else rename.get(k, k)
        if name in spec.attribute_names and v is not None:  # extra attributes (consumed_inputs) play no part
            out[name] = cast_float32_attribute(v)
    if std:
        for name, default in std.defaults().items():
            if name not in out and default is not None:
                out[name] = default
    missing = [a for a in spec.attribute_names if a not in out]
    if missing:
        raise KeyError(f"{spec.id}: no value for attribute(s) {', '.join(missing)} and no {standard_key} default")
    if std and dtype is not None:
        out = std.info.cast_attributes(out, dtype)
    return out


def _context(spec, attrs, dtype, shape) -> str:
    a = ", ".join(f"{k}={attrs[k]}" if isinstance(attrs[k], str) else f"{k}={attrs[k]:.9g}"
                  for k in spec.attribute_names if k in attrs)
    return f"{spec.id}({a}) {dtype} {tuple(shape)}"


def _structural(kind, message, expected, metric, context) -> Comparison:
    return Comparison(ok=False, total=int(expected.size), mismatches=int(expected.size), kind=kind,
                      kinds={kind: int(expected.size)}, worst=None, first=[], notes=[message],
                      metric=metric, context=context)


def _outcomes(spec, category, standard) -> tuple[str, ...]:
    sv = spec.special_values.get(category)
    return sv.outcomes(standard) if sv else ("unspecified",)


# ----------------------------------------------------------------------------- judges

class _Judge:
    def __init__(self, spec, standard, dtype, tol, metric, inputs, attrs, expected, actual, context):
        self.spec, self.standard, self.dtype, self.tol, self.metric = spec, standard, dtype, tol, metric
        self.inputs, self.attrs, self.expected, self.actual, self.context = inputs, attrs, expected, actual, context
        self.shape = expected.shape
        # the standard's own formula where it has one (ONNX Shrink tests x < -lambd first)
        self.formula = spec.formula_for(standard) if hasattr(spec, "formula_for") else spec.formula
        self.notes: list[str] = []
        self.kind = np.zeros(self.shape, dtype=np.int8)  # failure kind code per element (CODE; 0 = accepted)
        self.error = np.zeros(self.shape)  # |actual - reference| in output ULPs
        self.bound = np.zeros(self.shape)  # accepted error in output ULPs

    def full(self, value) -> np.ndarray:
        """A writable float64 array of the comparison's shape (rank 0 included)."""
        return np.array(np.broadcast_to(np.asarray(value, dtype=np.float64), self.shape), dtype=np.float64)

    def run(self) -> Comparison:
        """The judgement and its report: which elements fail, the first and the worst described."""
        self.judge()
        return self.finish()

    def judge(self) -> None:
        """Set ``kind``, ``error`` and ``bound`` per element and add ``notes`` (the subclass's rules)."""
        raise NotImplementedError

    def finish(self) -> Comparison:
        bad = self.kind != OK_CODE
        flat_bad = np.flatnonzero(bad)
        counts = np.bincount(self.kind.ravel(), minlength=len(KIND_ORDER) + 1)
        kinds = {k: int(counts[CODE[k]]) for k in KIND_ORDER if counts[CODE[k]]}
        kind = next(iter(kinds), None)
        first = [self.element(np.unravel_index(i, self.shape)) for i in flat_bad[:MAX_FIRST]]
        with np.errstate(all="ignore"):
            finite_err = np.where(np.isfinite(self.error), self.error, np.nan)
            max_err = float(np.nanmax(finite_err)) if finite_err.size and not np.all(np.isnan(finite_err)) else 0.0
            if flat_bad.size:
                # the most severe kind (smallest code), then the largest excess, then the first index
                codes = self.kind.ravel()[flat_bad]
                top = np.flatnonzero(codes == codes.min())
                excess = (self.error - self.bound).ravel()[flat_bad[top]]
                excess = np.where(np.isnan(excess), np.inf, excess)
                worst = self.element(np.unravel_index(flat_bad[top[int(np.argmax(excess))]], self.shape))
            elif self.expected.size:
                score = np.where(np.isnan(finite_err), -1.0, finite_err).ravel()
                worst = self.element(np.unravel_index(int(np.argmax(score)), self.shape))
            else:
                worst = None
        return Comparison(ok=not flat_bad.size, total=int(self.expected.size), mismatches=int(flat_bad.size),
                          kind=kind, kinds=kinds, worst=worst, first=first, notes=self.notes, metric=self.metric,
                          context=self.context, max_error_ulps=max_err, failing=self.failing(flat_bad))

    def failing(self, flat_bad: np.ndarray) -> Failing | None:
        if not flat_bad.size:
            return None
        with np.errstate(invalid="ignore"):
            ins = {k: np.asarray(v).reshape(-1)[flat_bad].astype(np.float64) for k, v in self.inputs.items()}
            return Failing(index=flat_bad.astype(np.int64),
                           kind=[KIND_ORDER[c - 1] for c in self.kind.reshape(-1)[flat_bad]], inputs=ins,
                           expected=self.expected.reshape(-1)[flat_bad].astype(np.float64),
                           actual=self.actual.reshape(-1)[flat_bad].astype(np.float64),
                           error=np.asarray(self.error, dtype=np.float64).reshape(-1)[flat_bad],
                           bound=np.asarray(self.bound, dtype=np.float64).reshape(-1)[flat_bad])

    def element(self, idx) -> Element:
        idx = tuple(int(i) for i in idx)
        ins = {k: value_text(v[idx], v.dtype) for k, v in self.inputs.items()}
        kind = KIND_ORDER[self.kind[idx] - 1] if self.kind[idx] else None
        return Element(index=idx, input=next(iter(ins.values())) if ins else {},
                       expected=value_text(self.expected[idx], self.expected.dtype),
                       actual=value_text(self.actual[idx], self.actual.dtype),
                       error_ulps=float(self.error[idx]), bound_ulps=float(self.bound[idx]),
                       kind=kind, inputs=ins, reason=self.reason(idx, kind, ins))

    def reason(self, idx, kind, ins) -> str | None:
        """A catastrophic failure at a finite-input element in words (None otherwise)."""
        if kind not in CATASTROPHIC or not U.is_float(self.dtype):
            return None
        with np.errstate(invalid="ignore"):
            values = {k: float(np.asarray(v[idx]).astype(np.float64)) for k, v in self.inputs.items()}
        if not all(math.isfinite(v) for v in values.values()):
            return None
        at = ", ".join(f"{k} = {v['decimal']}" for k, v in ins.items())
        return catastrophe.explain(self.formula, values, self.attrs, self.dtype, kind, at,
                                   float(self.expected[idx].astype(np.float64)),
                                   float(self.actual[idx].astype(np.float64)))


class _FloatJudge(_Judge):
    def judge(self) -> None:
        f = U.fmt(self.dtype)
        with np.errstate(invalid="ignore"):  # ml_dtypes warns casting a bfloat16 NaN
            x = {k: v.astype(np.float64) for k, v in self.inputs.items()}
            a = self.actual.astype(np.float64)
            e = self.expected.astype(np.float64)
        nan_in = np.zeros(self.shape, dtype=bool)
        pinf_in = np.zeros(self.shape, dtype=bool)
        ninf_in = np.zeros(self.shape, dtype=bool)
        for v in x.values():
            nan_in |= np.isnan(v)
            pinf_in |= v == np.inf
            ninf_in |= v == -np.inf
        pinf_in &= ~nan_in
        ninf_in &= ~nan_in & ~pinf_in
        special = nan_in | pinf_in | ninf_in
        finite = ~special

        safe = {k: np.where(np.isfinite(v), v, 0.0) for k, v in x.items()}
        env = {**safe, **self.attrs}
        with np.errstate(all="ignore"):
            ref = self.full(evaluate(self.formula, env))
            measured = measure_reference(ref, e, f)  # the reported error's origin, never a verdict's
            ulp_ref = U.ulp(measured, f)
            self.error = self.full(np.abs(a - measured) / ulp_ref)
        self.error[special] = 0.0

        flush = "flush_allowed" in _outcomes(self.spec, "subnormal", self.standard)
        self.ambiguous = np.zeros(self.shape, dtype=bool)
        lo, hi, flushable, raw_lo, raw_hi, acc = self.accepted(env, ref, e, flush)
        ok = _inside(acc, a, lo, hi, flushable)
        alt = None
        if flush and self.metric == "model":
            sub = np.zeros(self.shape, dtype=bool)
            for v in x.values():
                sub |= (v != 0) & (np.abs(v) < f.min_normal)  # input dtype == output dtype family
            if sub.any():
                alt = self.flushed_inputs(sub, safe, a, e)
                ok[sub] |= alt["ok"]
        # the golden value always passes; say so when the model disagrees with it
        golden_equal = (a == e) | (np.isnan(a) & np.isnan(e))
        golden_out = finite & ~_inside(acc, e, lo, hi, flushable) & ~np.isnan(e)
        if alt is not None:
            golden_out[alt["sub"]] &= ~alt["golden_ok"]
        if golden_out.any():
            i = tuple(int(j) for j in np.argwhere(golden_out)[0])
            self.notes.append(f"the golden value lies outside the {self.metric} bound at {int(golden_out.sum())} "
                              f"element(s), first at {list(i)} (golden {self.expected[i]!r}, accepted "
                              f"[{lo[i]!r}, {hi[i]!r}]): a generator or model inconsistency, not the backend's")
        # the accuracy floor: a result as close to the exact value as the farthest one the model
        # accepts, or within the formula's function budget of it, is never wrong
        budget = formula_budget(self.formula, self.dtype)
        undecided = finite & ~ok
        if self.metric == "model" and undecided.any():  # only where the model has not accepted already
            near_lo, near_hi = golden_branch(acc, e, lo, hi)
            ok[undecided] = accuracy_floor(a[undecided], e[undecided], near_lo[undecided], near_hi[undecided],
                                           budget, f)
            # the floor knows the exact value only to the golden value's rounding cell: where that
            # alone puts a result past the budget, ask for the exact value itself
            near = undecided & ~ok & _near_budget(a, e, budget, f)
            if near.any():
                ok[near] = self.within_budget_of_exact(near, a, budget, f)
        # no catastrophic passes: an infinity or a total cancellation where the exact value is finite
        # (a NaN result is accepted only where the golden value is NaN: golden_equal)
        overflow, cancelled = catastrophic(a, e, f, budget)
        if cancelled.any():
            cancelled &= ~self.zero_explained(acc, alt, f)
        if overflow.any() and alt is not None:
            # a subnormal input acting as a zero (flush_allowed) may give an infinity as exactly as
            # it gives a zero: log(+0) = -inf, 1 / +0 = +inf, accepted by the flushed judgement
            by_flush = np.zeros(self.shape, dtype=bool)
            by_flush[alt["sub"]] = alt["ok"] & np.isinf(a[alt["sub"]])
            overflow &= ~by_flush
        overflow &= finite & ~golden_equal
        cancelled &= finite & ~golden_equal
        ok &= ~(overflow | cancelled)
        ok |= golden_equal
        with np.errstate(all="ignore"):
            span = np.maximum(np.abs(hi - measured), np.abs(measured - lo)) / ulp_ref
        span = np.where(finite & (self.metric == "model"), np.maximum(span, budget), span)
        self.bound = np.where(np.isfinite(span) | np.isinf(span), span, 0.0)
        self.classify(finite & ~ok, a, ref, lo, hi, f, flush)
        self.kind = np.where(overflow & ~np.isnan(a), np.int8(CODE["inf-mismatch"]), self.kind)
        self.kind = np.where(cancelled, np.int8(CODE["cancellation"]), self.kind)
        # the float64 reference may overflow or cancel as the kernel did: measure these from the golden value
        with np.errstate(all="ignore"):
            self.error = np.where(overflow | cancelled, np.abs(a - e) / U.ulp(e, f), self.error)
        if self.ambiguous.any():
            n = int((self.ambiguous & finite).sum())
            self.notes.append(f"{n} element(s) near a comparison breakpoint: a correct kernel may take either "
                              f"branch there (operands within their rounding error), both accepted")
        self.signed_zero(finite & ok & (a == 0) & ~golden_equal_sign(a, e), a, raw_lo, raw_hi, ref, alt)
        if special.any():
            self.specials(x, a, nan_in, pinf_in, ninf_in)

    def within_budget_of_exact(self, mask, a, budget: float, f) -> np.ndarray:
        """The budget test of the accuracy floor for the elements of ``mask``, measured from the exact
        value (the golden value of those inputs in float64, whose rounding cell is far narrower than
        the output's) instead of the golden value's rounding cell. A float16 sigmoid 1.88 ULP from the
        exact value is within the 2-ULP budget although 2.5 ULP from the far end of the golden cell.
        golden() is the generator's own path (its float64 tiers first, mpmath only where they cannot
        decide), so an element costs what a float64 golden value costs."""
        from specgen.numerics.exact import golden

        inputs = {k: np.broadcast_to(np.asarray(v), self.shape)[mask] for k, v in self.inputs.items()}
        try:
            with np.errstate(all="ignore"):
                exact = np.asarray(golden(self.spec, inputs, self.attrs, "float64", self.standard).y, dtype=np.float64)
        except SpecError:
            return np.zeros(int(mask.sum()), dtype=bool)  # undecidable there: the cell's verdict stands
        half = np.abs(np.spacing(exact)) / 2  # the float64 rounding cell of the exact value
        return np.isfinite(exact) & within_budget(a[mask], exact - half, exact + half, budget, f)

    def flushed_inputs(self, sub, safe, a, e) -> dict:
        """The elements with a subnormal input judged again with those inputs flushed to zero
        (model metric; computed on those elements only)."""
        env = {}
        for k, v in safe.items():
            vs = v[sub]
            tiny = _tiny(self.inputs[k].dtype)
            env[k] = np.where((vs != 0) & (np.abs(vs) < tiny), np.copysign(0.0, vs), vs)
        env.update(self.attrs)
        inter = intermediate_type(self.tol, self.dtype)
        acc = accepted_outputs(self.formula, env, inter, self.dtype, inputs={t.name for t in self.spec.inputs})
        self.ambiguous[sub] |= acc.ambiguous
        with np.errstate(all="ignore"):
            ref = np.broadcast_to(np.asarray(evaluate(self.formula, env), dtype=np.float64), acc.lo.shape)
        return {"sub": sub, "ok": acc.contains(a[sub], flush=True), "golden_ok": acc.contains(e[sub], flush=True),
                "raw_lo": acc.raw.lo, "raw_hi": acc.raw.hi, "ref": ref}

    def accepted(self, env, ref, expected, flush):
        """(lo, hi, flushable, raw_lo, raw_hi, model): the hull of the accepted output values, where a
        flushed zero is accepted too, the interval before the final rounding, and the model's
        Accepted (None for the other metrics)."""
        f = U.fmt(self.dtype)
        if self.metric == "model":
            inter = intermediate_type(self.tol, self.dtype)
            acc = accepted_outputs(self.formula, env, inter, self.dtype,
                                   inputs={t.name for t in self.spec.inputs})
            self.ambiguous |= np.broadcast_to(acc.ambiguous, self.shape)
            return (self.full(acc.lo), self.full(acc.hi), self.full(acc.flushable & flush) > 0,
                    self.full(acc.raw.lo), self.full(acc.raw.hi), acc)
        if ref is None:
            with np.errstate(all="ignore"):
                ref = self.full(evaluate(self.formula, env))
        if self.metric == "exact":
            lo = hi = expected
        elif self.metric == "ulp":
            width = float(self.tol.value) * U.ulp(ref, f)
            lo, hi = ref - width, ref + width
        else:  # abs
            lo, hi = ref - float(self.tol.value), ref + float(self.tol.value)
        flushable = flush & (lo < f.min_normal) & (hi > -f.min_normal)
        return lo, hi, flushable, ref, ref, None

    def zero_explained(self, acc, alt, f) -> np.ndarray:
        """Elements where a zero is not a cancellation: a subnormal input flushed to zero makes the
        flushed judgement accept it, or an undecided comparison may take a branch whose value is
        zero or subnormal (Shrink's 0 branch near its threshold)."""
        out = np.zeros(self.shape, dtype=bool)
        if alt is not None:
            out[alt["sub"]] |= alt["ok"]
        if acc is not None and acc.alternatives:
            flat = np.zeros(self.expected.size, dtype=bool)
            for idx, lo, hi in acc.alternatives:
                flat[idx] |= (lo <= 0) & (hi >= 0) & (np.maximum(np.abs(lo), np.abs(hi)) < f.min_normal)
            out |= flat.reshape(self.shape)
        return out

    def classify(self, bad, a, ref, lo, hi, f, flush):
        if not bad.any():
            return
        kind = np.where(bad, CODE["value"], OK_CODE).astype(np.int8)
        nan_mismatch = bad & (np.isnan(a) | np.isnan(ref))
        inf_mismatch = bad & ~nan_mismatch & (
            (np.isinf(a) & np.isfinite(lo) & np.isfinite(hi)) | (np.isfinite(a) & np.isinf(lo) & (lo == hi)))
        flushed = bad & ~nan_mismatch & ~inf_mismatch & (a == 0) & (not flush) & \
            (np.maximum(np.abs(lo), np.abs(hi)) < f.min_normal)
        kind[flushed] = CODE["flush"]
        kind[inf_mismatch] = CODE["inf-mismatch"]
        kind[nan_mismatch] = CODE["nan-mismatch"]
        self.kind = np.where(bad, kind, self.kind)

    def signed_zero(self, zero, a, raw_lo, raw_hi, ref, alt):
        outcomes = _outcomes(self.spec, "signed_zero", self.standard)
        if not zero.any() or "any" in outcomes:
            return
        wrong = zero & _wrong_sign(a, raw_lo, raw_hi, ref)
        if alt is not None:
            sub = alt["sub"]
            wrong[sub] &= _wrong_sign(a[sub], alt["raw_lo"], alt["raw_hi"], alt["ref"])
        n = int(wrong.sum())
        if not n:
            return
        i = tuple(int(j) for j in np.argwhere(wrong)[0])
        if "formula" in outcomes:
            self.kind = np.where(wrong & (self.kind == OK_CODE), np.int8(CODE["signed-zero"]), self.kind)
        else:
            self.notes.append(f"signed zero (unspecified, not failed): {n} zero result(s) with the sign opposite "
                              f"to the formula's, first at {list(i)} (got {self.actual[i]!r})")

    def specials(self, x, a, nan_in, pinf_in, ninf_in):
        out = U.fmt(self.dtype)
        for category, mask in (("nan", nan_in), ("pos_inf", pinf_in), ("neg_inf", ninf_in)):
            if not mask.any():
                continue
            outcomes = _outcomes(self.spec, category, self.standard)
            got_nan = int((np.isnan(a) & mask).sum())
            label = {"nan": "NaN", "pos_inf": "+inf", "neg_inf": "-inf"}[category]
            if "unspecified" in outcomes:
                sv = self.spec.special_values.get(category)
                rec = f"; recommended: {sv.recommended}" if sv and sv.recommended else ""
                vals = sorted({repr(float(v)) for v in a[mask & ~np.isnan(a)].ravel()[:1000]})[:4]
                self.notes.append(f"{label} input ({int(mask.sum())} elements) is unspecified by {self.standard}, "
                                  f"not failed: the backend gave NaN at {got_nan}"
                                  + (f", numbers ({', '.join(vals)}) at {int(mask.sum()) - got_nan}" if vals else "")
                                  + rec)
                continue
            candidates = []
            # where subnormal inputs may act as zeros (flush_allowed), the other inputs of an element
            # with a non-finite one may be flushed too: 1e-45 * -inf is -inf, or 0 * -inf = NaN
            variants = [x]
            if "flush_allowed" in _outcomes(self.spec, "subnormal", self.standard):
                flushed = {k: np.where((v != 0) & (np.abs(v) < _tiny(self.inputs[k].dtype)),
                                       np.copysign(0.0, v), v) for k, v in x.items()}
                if any(not np.array_equal(flushed[k], x[k], equal_nan=True) for k in x):
                    variants.append(flushed)
            with np.errstate(all="ignore"):
                for outcome, inputs in ((o, i) for o in outcomes for i in variants):
                    if outcome == "formula":
                        v = np.asarray(evaluate(self.formula, {**inputs, **self.attrs}), dtype=np.float64)
                    elif outcome == "limit":
                        v = limit_value(self.formula, inputs, self.attrs)
                    elif outcome == "nan":
                        v = np.full(self.shape, np.nan)
                    elif outcome == "zero":
                        v = np.zeros(self.shape)
                    else:
                        continue
                    candidates.append(self.full(U.round_to(self.full(v), out).astype(np.float64)))
            # the finite-input rules hold here too: a subnormal candidate may be flushed to a zero
            # (flush_allowed), and the sign of a zero is judged only under signed_zero: formula
            flush = "flush_allowed" in _outcomes(self.spec, "subnormal", self.standard)
            sign_rule = "formula" in _outcomes(self.spec, "signed_zero", self.standard)
            match = np.zeros(self.shape, dtype=bool)
            signed = np.zeros(self.shape, dtype=bool)  # matched with the candidate's sign of zero
            any_number = np.zeros(self.shape, dtype=bool)
            any_nan = np.zeros(self.shape, dtype=bool)
            any_inf = np.zeros(self.shape, dtype=bool)
            for c in candidates:
                zero_for = (a == 0) & ((c == 0) | (flush & (np.abs(c) < out.min_normal)))
                same = ((a == c) & (a != 0)) | (np.isnan(a) & np.isnan(c))
                match |= same | zero_for
                signed |= same | (zero_for & (np.signbit(a) == np.signbit(c)))
                any_number |= ~np.isnan(c)
                any_nan |= np.isnan(c)
                any_inf |= np.isinf(c)
            bad = mask & ~match
            kind = np.where(bad, CODE["value"], OK_CODE).astype(np.int8)
            if sign_rule:
                kind[mask & match & ~signed] = CODE["signed-zero"]
                bad |= mask & match & ~signed
            kind[bad & ((np.isnan(a) & ~any_nan) | (~np.isnan(a) & ~any_number))] = CODE["nan-mismatch"]
            kind[bad & ~np.isnan(a) & any_number & (np.isinf(a) != any_inf)] = CODE["inf-mismatch"]
            self.kind = np.where(bad, kind, self.kind)
            self.error = np.where(bad, np.inf, self.error)


def limit_value(formula, inputs: Mapping[str, np.ndarray], attrs: Mapping[str, float]) -> np.ndarray:
    """The ``limit`` outcome: the formula in float64 with each infinite input replaced by a huge
    value of its sign, read at two magnitudes (1e150 and 1e300): where the value at 1e300 is at
    least twice the value at 1e150 (same sign), the formula grows without bound and the limit is an
    infinity of that sign (x * sigmoid(0 * x) at +inf: 5e299, not +inf, at 1e300 alone); elsewhere
    the value at 1e300."""
    def at(big):
        lim = {k: np.where(np.isinf(v), np.copysign(big, v), v) for k, v in inputs.items()}
        with np.errstate(all="ignore"):
            return np.asarray(evaluate(formula, {**lim, **attrs}), dtype=np.float64)

    near, far = at(1e150), at(LIMIT_INPUT)
    with np.errstate(all="ignore"):
        grows = np.isfinite(far) & (near != 0) & (np.sign(near) == np.sign(far)) & (np.abs(far) >= 2 * np.abs(near))
    return np.where(grows, np.copysign(np.inf, far), far)


def _inside(acc, a, lo, hi, flushable):
    """Accepted: inside the model's set (a union of intervals near ambiguous branches), or inside
    [lo, hi] for the other metrics; a zero where flushing is allowed."""
    if acc is not None:
        return np.broadcast_to(acc.contains(a), np.shape(a)) | (flushable & (a == 0))
    return (a >= lo) & (a <= hi) | (flushable & (a == 0))


def golden_branch(acc, e, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """The accepted interval the accuracy floor measures from: [lo, hi], except where a comparison
    may go either way (``acc.alternatives``): there the hull of the branches that accept the golden
    value, so that a value between two branches (Shrink's 0 and x - bias) is not "as close as the
    other branch"."""
    if acc is None or not acc.alternatives:
        return lo, hi
    idx = acc.alternatives[0][0]
    flat_e = np.asarray(e).reshape(-1)[idx]
    g_lo = np.full(idx.shape, np.inf)
    g_hi = np.full(idx.shape, -np.inf)
    for _, a_lo, a_hi in acc.alternatives:
        has = (flat_e >= a_lo) & (flat_e <= a_hi)
        g_lo = np.where(has, np.minimum(g_lo, a_lo), g_lo)
        g_hi = np.where(has, np.maximum(g_hi, a_hi), g_hi)
    found = g_lo <= g_hi
    out_lo, out_hi = np.array(lo, dtype=np.float64).reshape(-1), np.array(hi, dtype=np.float64).reshape(-1)
    out_lo[idx] = np.where(found, g_lo, out_lo[idx])
    out_hi[idx] = np.where(found, g_hi, out_hi[idx])
    return out_lo.reshape(np.shape(lo)), out_hi.reshape(np.shape(hi))


def exact_enclosure(e: np.ndarray, f) -> tuple[np.ndarray, np.ndarray]:
    """[el, eh] enclosing the exact value of which ``e`` (finite, float64 values of the dtype ``f``)
    is the correct rounding: the rounding cell of ``e`` (half-way to its neighbours), or, for
    float64 outputs whose half-way points float64 cannot hold, the neighbours themselves."""
    v = e.astype(f.numpy)
    with np.errstate(all="ignore"):
        down = U.next_down(v, f.name).astype(np.float64)
        up = U.next_up(v, f.name).astype(np.float64)
        # -max: the cell is symmetric (a format without infinity, float8 e4m3fn, steps to NaN there)
        down = np.where(~np.isfinite(down), e - (up - e), down)
        up = np.where(~np.isfinite(up), e + (e - down), up)  # +max
        if f.bits == 64:
            return down, up
        return (down + e) / 2, (e + up) / 2


def accuracy_floor(a, e, lo, hi, budget: float, f) -> np.ndarray:
    """The accuracy floor: where ``a`` is at least as close to the exact value as the farthest
    result the model accepts ([lo, hi], finite ends only), or within ``budget`` ULPs of the dtype
    of it, for every exact value the golden value ``e`` admits (``exact_enclosure``), so that no
    result is accepted on the strength of the golden value's own rounding."""
    with np.errstate(all="ignore"):
        usable = np.isfinite(a) & np.isfinite(e)
        e0 = np.where(usable, e, 0.0)
        a0 = np.where(usable, a, 0.0)
        el, eh = exact_enclosure(e0, f)
        lo_f = np.where(np.isfinite(lo), lo, np.nan)
        hi_f = np.where(np.isfinite(hi), hi, np.nan)
        margin = _rounding_margin(f)
        worst = np.full(np.shape(a0), np.inf)
        # |a - E| <= max(|lo - E|, |hi - E|) is piecewise linear in E: its slack is smallest at the
        # cell's ends or at a kink (E = a, lo, hi or their midpoint)
        for point in (el, eh, a0, lo_f, hi_f, (lo_f + hi_f) / 2):
            E = np.minimum(np.maximum(np.where(np.isnan(point), el, point), el), eh)
            reach = np.fmax(np.abs(lo_f - E), np.abs(hi_f - E))
            reach = np.where(np.isnan(reach), 0.0, reach)
            slack = reach - np.abs(a0 - E) - margin * np.fmax(np.abs(E), np.abs(a0))
            worst = np.minimum(worst, slack)
        window = worst >= 0
    return usable & (window | within_budget(a0, el, eh, budget, f))


def _rounding_margin(f) -> float:
    """The relative slack of the floor's float64 distance tests: float64 outputs' differences are
    themselves rounded; narrower types' are exact in float64."""
    return 2.0 ** -50 if f.bits == 64 else 0.0


def within_budget(a, el, eh, budget: float, f) -> np.ndarray:
    """Whether ``a`` is within ``budget`` ULPs of the dtype ``f`` of every exact value in [el, eh]
    (ULPs of the smallest such value's binade)."""
    margin = _rounding_margin(f)
    with np.errstate(all="ignore"):
        distance = np.maximum(np.abs(a - el), np.abs(a - eh))
        smallest = np.where(el * eh > 0, np.minimum(np.abs(el), np.abs(eh)), 0.0)
        return distance * (1 + margin) <= budget * U.ulp(smallest, f)


def _near_budget(a, e, budget: float, f) -> np.ndarray:
    """Results that the golden value's rounding cell alone may put past the budget: within
    budget + 1 ULP of the golden value (the cell is one ULP wide), finite, a narrower dtype than
    float64 (whose cell is the exact value's own)."""
    if budget <= 0 or f.bits == 64:
        return np.zeros(np.shape(a), dtype=bool)
    with np.errstate(all="ignore"):
        return np.isfinite(a) & np.isfinite(e) & (np.abs(a - e) <= (budget + 1) * U.ulp(np.abs(e), f))


def catastrophic(a, e, f, budget: float) -> tuple[np.ndarray, np.ndarray]:
    """(overflow, cancelled): an infinite result where the golden value is finite and not the
    largest finite value of that sign (a result rounded from beyond it may be inf); a zero where the
    golden value is a normal number and the formula calls an inexact function (``budget`` > 0: a
    rational formula's cancellation, HardSigmoid's fl(fl(alpha * x) + beta) = 0, is a rounding of
    the standard's own arithmetic, which the model bounds exactly)."""
    with np.errstate(invalid="ignore"):
        overflow = np.isinf(a) & np.isfinite(e) & ~((np.abs(e) == f.max_finite) & (np.sign(a) == np.sign(e)))
        cancelled = (a == 0) & np.isfinite(e) & (np.abs(e) >= f.min_normal) & (budget > 0)
    return overflow, cancelled


def golden_equal_sign(a, e):
    """Bitwise-equal zeros (same sign) never count as signed-zero failures."""
    return (a == e) & (np.signbit(a) == np.signbit(e))


def _wrong_sign(a, raw_lo, raw_hi, ref):
    """A zero result whose sign differs from the one every accepted value has."""
    exact_zero = (raw_lo == 0) & (raw_hi == 0)
    need_neg = np.where(exact_zero, np.signbit(ref), raw_hi < 0)
    need_pos = np.where(exact_zero, ~np.signbit(ref), raw_lo > 0)
    neg = np.signbit(a)
    return (need_neg & ~neg) | (need_pos & neg)


class _IntJudge(_Judge):
    """Integer outputs: the accepted results are exactly the spec's ``integer_rounding`` modes of the
    exact value (each correctly rounded by ``golden``, so no float64 artefact decides a rounding),
    widened only by the tolerance's own value (``exact``: none); where a mode's result leaves the
    type's range, ``integer_overflow`` decides (``saturate``, ``wrap``, ``unspecified``)."""

    def rounding_modes(self) -> list[str]:
        """The accepted modes; ``unspecified`` (or no entry) accepts every mode the project knows."""
        listed = _outcomes(self.spec, "integer_rounding", self.standard)
        modes = [m for m in listed if m in U.INTEGER_ROUNDINGS]
        if "formula" in listed and "toward_zero" not in modes:
            modes.append("toward_zero")  # the stored outcome's reading of "formula" (exact.golden)
        return modes if modes and "unspecified" not in listed else list(U.INTEGER_ROUNDINGS)

    def tolerance(self) -> float:
        if self.metric in ("abs", "ulp"):  # one integer ULP is 1
            return float(self.tol.value) if self.tol and self.tol.value is not None else 0.0
        if self.metric != "exact":
            self.notes.append(f"metric {self.metric} is not defined for integers; judged as exact")
        return 0.0

    def reference(self) -> np.ndarray:
        """The exact value in float64 (exact rationals where an input is beyond 2**52): for the
        reported error only."""
        x = {k: v.astype(np.float64) for k, v in self.inputs.items()}
        with np.errstate(all="ignore"):
            ref = self.full(evaluate(self.formula, {**x, **self.attrs}))
        big = np.zeros(self.shape, dtype=bool)
        for v in self.inputs.values():
            if v.dtype.kind in "iu":  # float inputs are exact in float64 (and may be non-finite)
                big |= np.abs(v.astype(np.float64)) >= 2.0 ** 52
        if big.any():
            for idx in map(tuple, np.argwhere(big)):
                ref[idx] = float(self.exact_at(idx))
        return ref

    def exact_at(self, idx) -> Fraction:
        from specgen.formula.breakpoints import evaluate_exact
        env = {k: Fraction(int(v[idx])) for k, v in self.inputs.items()}
        env.update({k: Fraction(v) for k, v in self.attrs.items()})
        return evaluate_exact(self.formula, env)

    def judge(self) -> None:
        from specgen.numerics.exact import golden

        lo_t, hi_t = _int_range(self.dtype)
        tol = self.tolerance()
        ref = self.reference()
        a = self.actual
        a64 = a.astype(np.float64)
        from specgen.numerics.exact import overflow_outcomes as _overflow_outcomes

        float_inputs = any(U.is_float(v.dtype) for v in self.inputs.values())
        overflow_outcomes = _overflow_outcomes(self.spec, self.standard, float_inputs)
        ok = np.zeros(self.shape, dtype=bool)
        overflow = np.zeros(self.shape, dtype=bool)
        span = np.zeros(self.shape)
        for mode in self.rounding_modes():
            g = golden(self.spec, self.inputs, self.attrs, self.dtype, self.standard, integer_rounding=mode)
            r = np.broadcast_to(g.y, self.shape)
            over = np.broadcast_to(g.overflow, self.shape)
            if g.undefined is not None:  # a NaN or an infinity to an integer type: out of every range
                over = over | np.broadcast_to(g.undefined, self.shape)
            near = (a == r) | ((_int_distance(a, r) <= tol) if tol else False)
            ok |= near & ~over
            overflow |= over
            span = np.maximum(span, np.where(over, 0.0, np.abs(r.astype(np.float64) - ref)))
            if over.any() and "unspecified" not in overflow_outcomes:
                finite_over = over & ~np.broadcast_to(g.undefined, self.shape) if g.undefined is not None else over
                ok |= finite_over & self.overflowed(mode, finite_over, a64, tol, overflow_outcomes, lo_t, hi_t)
        if overflow.any() and "unspecified" in overflow_outcomes:
            n = int((overflow & ~ok).sum())
            self.notes.append(f"integer overflow ({int(overflow.sum())} elements, a rounded result outside "
                              f"[{lo_t}, {hi_t}] or a NaN or infinity) is unspecified by {self.standard}"
                              + (" for floating-point inputs" if float_inputs else "") + ", not failed"
                              + (f"; {n} differ from every accepted rounding" if n else ""))
            ok |= overflow
        ok |= a == self.expected  # the golden value always passes (as for floats)
        self.error = self.full(np.abs(a64 - ref))
        self.bound = span + tol
        self.kind = np.where(ok, OK_CODE, CODE["value"]).astype(np.int8)

    def overflowed(self, mode, over, a64, tol, outcomes, lo_t, hi_t) -> np.ndarray:
        """Where ``mode``'s result leaves the range: the saturated and/or wrapped value accepted."""
        good = np.zeros(self.shape, dtype=bool)
        width = 1 << (8 * np.dtype(self.actual.dtype).itemsize)
        for idx in map(tuple, np.argwhere(over)):
            r = U.round_integer(self.exact_at(idx), mode)
            cands = ([min(max(r, lo_t), hi_t)] if "saturate" in outcomes else []) + \
                    ([(r - lo_t) % width + lo_t] if "wrap" in outcomes else [])
            got = int(self.actual[idx])
            good[idx] = any(abs(got - c) <= tol for c in cands)
        return good


def _int_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| of two integer arrays of one dtype, exactly (64-bit types through Python integers)."""
    if a.dtype.itemsize < 8:
        return np.abs(a.astype(np.int64) - b.astype(np.int64)).astype(np.float64)
    return np.array([float(abs(int(p) - int(q))) for p, q in zip(a.ravel(), np.ravel(b))]).reshape(a.shape)


def _tiny(dtype) -> float:
    """The smallest normal of a float input's dtype; 0 for an integer or bool input (Where's
    condition among a float operator's inputs), which has no subnormals."""
    d = dt.by_numpy(dtype)
    return U.fmt(dtype).min_normal if d.is_float else 0.0


def _int_range(dtype: str) -> tuple[int, int]:
    if dtype == "bool":
        return 0, 1
    info = np.iinfo(dt.get(dtype).numpy)
    return int(info.min), int(info.max)
