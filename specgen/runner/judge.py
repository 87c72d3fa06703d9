"""Judging an :class:`~specgen.runner.invoke.Outcome`: must-reject cases by whether the backend
signalled rejection, legal cases by presence, shape and dtype of the outputs and then by the error
model (``specgen.numerics.compare``). Each judgement is (verdict, cause, reason, extra fields)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from specgen import dtypes as _dt
from specgen.runner import invoke as inv
from specgen.runner.invoke import Outcome, exc_text
from specgen.runner.verdicts import ERROR, FAIL, PASS, Cause, jsonable

Judgement = tuple[str, Cause, str, dict]


def where(case) -> str:
    bits = []
    if case.in_place:
        bits.append("in-place: the output aliases the input")
    for name, st in (getattr(case, "strides", None) or {}).items():
        if st is not None:
            bits.append(f"{name} is non-contiguous (element strides {list(st)})")
    return f" [{'; '.join(bits)}]" if bits else ""


def _failed_to_run(o: Outcome, on: str) -> Judgement:
    extra = {"exception": o.exception}
    if o.status == inv.RAISED:
        return ERROR, Cause.CRASHED, f"crashed {on}: {o.message}", extra
    if o.status == inv.TIMEOUT:
        return ERROR, Cause.TIMEOUT, o.message, extra
    if o.status == inv.DIED:
        return ERROR, Cause.DIED, o.message, extra
    if o.status == inv.NO_OUTPUT:
        return ERROR, Cause.NO_OUTPUT, f"no output: {o.message}", extra
    return ERROR, Cause.SPECGEN, f"unexpected outcome {o.status}: {o.message}", extra  # pragma: no cover


def judge_negative(case, o: Outcome) -> Judgement:
    why = "; ".join(case.violations) if getattr(case, "violations", None) else "an illegal call"
    if o.status == inv.ANSWERED:
        if o.accepted:
            return FAIL, Cause.ACCEPTED_ILLEGAL, f"accepted an illegal call: accepts() returned True although {why}", {}
        return PASS, Cause.REJECTED, "rejected (accepts() returned False)", {}
    if o.status == inv.REJECTED:
        return PASS, Cause.REJECTED, f"rejected: {o.message}", {}
    if o.status == inv.OK:
        return FAIL, Cause.ACCEPTED_ILLEGAL, f"accepted an illegal call: ran it without complaint although {why}", {}
    if o.status == inv.UNSUPPORTED:
        return (FAIL, Cause.DECLINED_CLAIMED,
                f"declined (Unsupported) a must-reject case inside its claim instead of rejecting it (raise Rejected): "
                f"{o.message}", {"exception": o.exception})
    if o.status == inv.RAISED:
        return (ERROR, Cause.CRASHED,
                f"crashed on a must-reject case: {o.message} (not counted as a rejection: raise "
                f"specgen.adapters.base.Rejected, or list the backend's validation error type in the adapter's "
                f"rejection_errors)", {"exception": o.exception})
    return _failed_to_run(o, "on a must-reject case")


def judge_positive(case, spec, data, o: Outcome, compare: Callable) -> Judgement:
    at = where(case)
    if o.status == inv.UNSUPPORTED:
        return (FAIL, Cause.DECLINED_CLAIMED,
                f"claim not honoured: the adapter declined a case inside its claim: {o.message}", {"exception": o.exception})
    if o.status == inv.REJECTED:
        return FAIL, Cause.REJECTED_LEGAL, f"rejected a legal call: {o.message}", {"exception": o.exception}
    if o.status != inv.OK:
        return _failed_to_run(o, "inside its claim")
    if getattr(o, "clobbered", ""):
        return FAIL, Cause.WROTE_OUTSIDE, f"{o.clobbered}{at}", {}
    in_names = [t.name for t in spec.inputs]
    failures = []
    failing: dict = {}
    details: dict = {}
    notes: list[str] = []
    for t in spec.outputs:
        name = t.name
        expected = data[name]
        want_shape = tuple(case.shapes.get(name, expected.shape))
        want_dtype = _dt.get(case.dtypes.get(name, case.dtype)).numpy
        if name not in o.outputs:
            return ERROR, Cause.NO_OUTPUT, f"no output {name!r} returned (got: {', '.join(o.outputs) or 'nothing'})", {}
        actual = o.outputs[name]
        if tuple(actual.shape) != want_shape:
            return ERROR, Cause.WRONG_SHAPE, f"wrong shape for {name}: got {tuple(actual.shape)}, expected {want_shape}{at}", {}
        if actual.dtype != want_dtype:
            return (ERROR, Cause.WRONG_DTYPE,
                    f"wrong dtype for {name}: got {actual.dtype.name}, expected {np.dtype(want_dtype).name}{at}", {})
        inputs = {n: data[n] for n in in_names if n in data}  # an omitted optional input is not in the case
        if expected.ndim == 0 and getattr(spec, "engine", "elementwise") == "elementwise":
            # shapes already agree; compare() is handed 1-element arrays so that a 0-d case is
            # judged like any other (the index it reports is then [0])
            inputs = {n: np.reshape(v, (1,)) for n, v in inputs.items()}
            expected, actual = np.reshape(expected, (1,)), np.reshape(actual, (1,))
        try:
            cmp = compare(spec, case.standard, case.dtype, inputs, dict(case.attributes or {}), expected, actual)
        except Exception as exc:
            return ERROR, Cause.SPECGEN, f"comparison raised {exc_text(exc)} (a specgen problem, not the adapter's)", {}
        details[name] = comparison_detail(cmp)
        notes.extend(str(n) for n in (getattr(cmp, "notes", None) or ()))
        if not cmp.ok:
            if getattr(cmp, "failing", None) is not None:
                failing[name] = cmp.failing
            try:
                summary = cmp.summary()
            except Exception:
                summary = f"{getattr(cmp, 'mismatches', '?')} of {getattr(cmp, 'total', '?')} elements out of bound"
            failures.append(f"{name}: {summary}")
    detail = details[next(iter(details))] if len(details) == 1 else details
    if failures:
        return FAIL, Cause.OUT_OF_BOUND, "; ".join(failures) + at, {"detail": detail, "notes": notes, "failing": failing}
    return PASS, Cause.WITHIN_BOUND, "within the error bound", {"detail": detail, "notes": notes}


def comparison_detail(cmp) -> dict:
    """The parts of a specgen.numerics Comparison the reports show, as plain data."""
    if cmp is None:
        return {}
    if hasattr(cmp, "to_json") and callable(cmp.to_json):
        try:
            return jsonable(cmp.to_json())
        except Exception:
            pass
    out: dict[str, Any] = {}
    for key in ("ok", "total", "mismatches", "kind", "notes", "worst", "first"):
        if hasattr(cmp, key):
            out[key] = _obj_to_data(getattr(cmp, key))
    try:
        out["summary"] = cmp.summary()
    except Exception:
        pass
    return jsonable(out)


def _obj_to_data(value):
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {k: _obj_to_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_obj_to_data(v) for v in value]
    if hasattr(value, "_asdict"):
        return {k: _obj_to_data(v) for k, v in value._asdict().items()}
    if hasattr(value, "__dataclass_fields__"):
        return {k: _obj_to_data(getattr(value, k)) for k in value.__dataclass_fields__}
    if hasattr(value, "__dict__"):
        return {k: _obj_to_data(v) for k, v in vars(value).items() if not k.startswith("_")}
    return value
