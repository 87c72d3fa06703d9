"""The error model of operators that accumulate (docs/accumulation.md): the results a kernel may
give when it evaluates the spec's formula (any of its readings) in any summation order (any
parenthesisation: sequential, reversed, pairwise, blocked, tree), with or without FMA, computing in
an accumulation type the standard allows, then rounding once to the output type.

Bound (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., ch. 3-4): a sum of n terms
in any order has |computed - exact| <= gamma_{n-1} * sum |x_i| with gamma_k = k u / (1 - k u) and u
the accumulation type's unit roundoff (Lemma 3.1 / (4.4)); products, quotients and elementary
functions add their own rounding (a function: the kernel budget of the function table), and errors
of the operands propagate (specgen.indexing.evaluate.enclose). FMA only removes roundings, so the
bound without it covers it. The judge reuses specgen.numerics.compare's rules: golden-equal
elements pass, the accuracy floor (compare.accuracy_floor), no catastrophic pass
(compare.catastrophic: an infinity where the exact value is finite fails whatever the bound), NaN
exactly where the exact value is NaN.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specgen import dtypes
from specgen.formula import nodes as n
from specgen.formula.functions import FUNCTIONS
from specgen.indexing.evaluate import Rounding, enclose
from specgen.indexing.layout import Layout
from specgen.numerics import ulp as U
from specgen.numerics.compare import (Comparison, Element, Failing, accuracy_floor, catastrophic, value_text)

MAX_FIRST = 10


@dataclass(frozen=True)
class AccumulationPolicy:
    """Which accumulation types a standard lets a kernel use for a dtype: ``allowed`` are judged
    as correct; ``reported`` (an unspecified accumulation type: float16 sums of float16 inputs)
    pass but are reported as a note."""

    allowed: tuple[str, ...]
    reported: tuple[str, ...] = ()


def kernel_rounding(acc_type: str, tensor_type: str | None = None) -> Rounding:
    """Each operation rounded in ``acc_type`` (plus the float64 evaluation of the bound itself);
    functions within the function table's kernel budget for that type."""
    f = dtypes.get(acc_type)
    u = 2.0 ** -f.precision + 2.0 ** -53
    eta = float(f.min_subnormal)

    def function_error(name, v):
        budget = FUNCTIONS[name].budget(acc_type) or 0.0
        return budget * U.ulp(np.abs(v), acc_type) + FUNCTIONS[name].libm_rel * np.abs(v)

    t = dtypes.get(tensor_type or acc_type)
    return Rounding(rel=u, eta=eta, function_error=function_error,
                    tensor_rel=2.0 ** -t.precision + 2.0 ** -53, tensor_eta=float(t.min_subnormal))


def model_interval(formula, layout: Layout, inputs: dict, attributes: dict, acc_type: str, out_dtype: str, output: str):
    """(lo, hi) float64 arrays of the output's shape: every result the model accepts for this
    reading and accumulation type lies in [lo, hi] (before the final rounding's neighbours)."""
    v, e = enclose(formula, layout, inputs, attributes, kernel_rounding(acc_type, out_dtype))
    v = layout.arrange(output, np.asarray(v, dtype=np.float64))
    e = layout.arrange(output, np.asarray(e, dtype=np.float64))
    with np.errstate(all="ignore"):
        reach = e + U.half_ulp(np.abs(v) + e, out_dtype)  # the final rounding to the output type
        return v - reach, v + reach


def function_budget(formulas, dtype: str) -> float:
    """The accuracy floor's ULP budget: the largest kernel budget of a function the formulas call."""
    budgets = [FUNCTIONS[c.func].budget(dtype) or 0.0 for f in formulas for c in n.walk(f) if isinstance(c, n.Call)]
    return max(budgets, default=0.0)


def judge(formulas, layout: Layout, inputs: dict, attributes: dict, out_dtype: str, expected, actual,
          policy: AccumulationPolicy, output: str, context: str = "", report_only=None) -> Comparison:
    """Judge ``actual`` against the golden ``expected`` (both the output's shape and dtype).
    ``report_only``: {what: mask} of elements whose outcome the standard leaves unspecified (a NaN
    or an infinity among their inputs): any result passes there, with a note when it differs."""
    f = dtypes.get(out_dtype)
    e = np.asarray(expected).astype(np.float64)
    a = np.asarray(actual).astype(np.float64)
    total = int(e.size)
    if a.shape != e.shape:
        return Comparison(False, total, total, "shape", {"shape": total}, None, [],
                          [f"shape {list(a.shape)}, expected {list(e.shape)}"], "accumulation", context)
    with np.errstate(all="ignore"):
        golden_equal = (a == e) | (np.isnan(a) & np.isnan(e))
        intervals = {t: [model_interval(fm, layout, inputs, attributes, t, out_dtype, output) for fm in formulas]
                     for t in policy.allowed + policy.reported}

        def accepted(types):
            ok = np.zeros(e.shape, dtype=bool)
            for t in types:
                for lo, hi in intervals[t]:
                    ok |= (a >= lo) & (a <= hi)
            return ok

        finite = np.isfinite(e) & np.isfinite(a)
        lo = np.min([lo for t in policy.allowed for lo, _ in intervals[t]], axis=0)
        hi = np.max([hi for t in policy.allowed for _, hi in intervals[t]], axis=0)
        budget = function_budget(formulas, out_dtype)
        by_allowed = finite & (accepted(policy.allowed) | accuracy_floor(a, e, lo, hi, budget, f))
        by_reported = finite & ~by_allowed & accepted(policy.reported)
        # an infinity where the exact value is finite fails whatever the bound; a zero is judged by the
        # bound alone (the model covers the cancellation every order and type it allows can give:
        # log-softmax's largest element is x - max - log(1 + tiny) = 0 in float32 for every kernel)
        overflow, _ = catastrophic(a, e, f, budget)
        cancelled = np.zeros(e.shape, dtype=bool)
    ok = golden_equal | ((by_allowed | by_reported) & ~overflow & ~cancelled)
    notes = []
    for what, mask in (report_only or {}).items():
        mask = np.broadcast_to(mask, e.shape)
        differs = mask & ~ok
        if np.any(differs):
            notes.append(f"{int(np.count_nonzero(differs))} element(s) with {what} among their inputs differ from the "
                         f"IEEE evaluation (unspecified: reported)")
        ok = ok | mask
    kinds = np.full(e.shape, "", dtype=object)
    kinds[~ok & (np.isnan(a) | np.isnan(e))] = "nan-mismatch"
    kinds[~ok & (kinds == "") & (np.isinf(a) | np.isinf(e))] = "inf-mismatch"
    kinds[~ok & (kinds == "") & cancelled] = "cancellation"
    kinds[~ok & (kinds == "")] = "value"
    if np.any(by_reported & ~golden_equal):
        notes.append(f"{int(np.count_nonzero(by_reported & ~golden_equal))} element(s) only within the bound of "
                     f"{'/'.join(policy.reported)} accumulation, which the standard leaves unspecified (reported)")
    with np.errstate(all="ignore"):
        ref_ulp = U.ulp(np.where(np.isfinite(e), e, 0.0), out_dtype)
        err = np.where(finite, np.abs(a - e) / ref_ulp, np.inf)
        bnd = np.maximum(np.abs(hi - e), np.abs(e - lo)) / ref_ulp
    bad = np.flatnonzero(~ok.reshape(-1))
    counts: dict[str, int] = {}
    for k in kinds.reshape(-1)[bad]:
        counts[k] = counts.get(k, 0) + 1

    def element(flat):
        idx = np.unravel_index(int(flat), e.shape) if e.shape else ()
        x = np.asarray(actual).reshape(-1)[flat]
        g = np.asarray(expected).reshape(-1)[flat]
        return Element(tuple(int(i) for i in idx), {}, value_text(g, f.numpy), value_text(x, f.numpy),
                       float(err.reshape(-1)[flat]), float(bnd.reshape(-1)[flat]),
                       kinds.reshape(-1)[flat] if not ok.reshape(-1)[flat] else None)

    judged = finite & ~golden_equal
    max_err = float(np.max(err[judged])) if np.any(judged) else 0.0
    if bad.size:
        order = ("nan-mismatch", "inf-mismatch", "cancellation", "value")
        kind = min(counts, key=order.index)
        worst_flat = bad[np.argmax(np.where(np.isfinite(err.reshape(-1)[bad]), err.reshape(-1)[bad], 1e300))]
        failing = Failing(bad, list(kinds.reshape(-1)[bad]), {}, e.reshape(-1)[bad], a.reshape(-1)[bad],
                          err.reshape(-1)[bad], bnd.reshape(-1)[bad])
        return Comparison(False, total, int(bad.size), kind, counts, element(worst_flat),
                          [element(i) for i in bad[:MAX_FIRST]], notes, "accumulation", context,
                          max_err, int(np.count_nonzero(golden_equal)), 0, failing)
    worst = element(int(np.argmax(np.where(judged, err, -1).reshape(-1)))) if np.any(judged) else None
    return Comparison(True, total, 0, None, {}, worst, [], notes, "accumulation", context, max_err,
                      int(np.count_nonzero(golden_equal)))
