"""The runner core: one case through one adapter, to a verdict. Both front ends (``specgen run``
and the pytest plugin) use :class:`Runner`.

Steps per case:
  1. claim: does one of the adapter's claims cover the case? No -> *unsupported* (not run).
  2. call: the runner builds a :class:`~specgen.adapters.base.Call` (strided views and in-place
     aliasing made here, never by the adapter) and invokes the adapter, in-process or in the
     subprocess worker (``isolate=True``: per-case timeout, a crash kills only the worker).
  3. judge: outputs' presence, shape and dtype (wrong -> *error*), then values through
     ``specgen.numerics.compare.compare`` (-> *pass* / *fail*). Must-reject cases pass when the
     adapter refuses the call and fail when it accepts it.
  4. baseline (specgen.runner.baseline): known failures -> *xfail*, known failures passing -> *xpass*.
"""
from __future__ import annotations

import math
import shlex
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from specgen import dtypes as _dt
from specgen.adapters.base import Call, OutputInfo, Rejected, Unsupported, first_covering

PASS, FAIL, UNSUPPORTED, ERROR, XFAIL, XPASS = "pass", "fail", "unsupported", "error", "xfail", "xpass"
VERDICTS = (PASS, FAIL, ERROR, UNSUPPORTED, XFAIL, XPASS)
FAILING = (FAIL, ERROR)


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class Result:
    case_id: str
    op: str
    standard: str
    version: str
    dtype: str
    kind: str
    verdict: str
    reason: str
    rerun: str = ""
    detail: dict = field(default_factory=dict)  # the comparison (worst element, mismatches, ...)
    notes: list[str] = field(default_factory=list)
    in_place: bool = False
    strided: bool = False
    shape: list = field(default_factory=list)
    tags: list = field(default_factory=list)
    seconds: float = 0.0
    baseline: str | None = None  # the baseline entry's reason (xfail/xpass)
    original_verdict: str | None = None  # before the baseline turned it into xfail/xpass

    @property
    def group(self) -> tuple[str, str, str]:
        """(op, standard-version, dtype) for legal cases; must-reject cases of every dtype share one
        group per op and version, labelled ``must-reject``."""
        return (self.op, f"{self.standard}-{self.version}", "must-reject" if self.kind == "negative" else self.dtype)

    def to_json(self) -> dict:
        return {"id": self.case_id, "op": self.op, "standard": self.standard, "version": self.version,
                "dtype": self.dtype, "kind": self.kind, "verdict": self.verdict, "reason": self.reason,
                "rerun": self.rerun, "detail": _jsonable(self.detail), "notes": list(self.notes),
                "in_place": self.in_place, "strided": self.strided, "shape": list(self.shape),
                "tags": list(self.tags), "seconds": round(self.seconds, 6), "baseline": self.baseline,
                "original_verdict": self.original_verdict}


@dataclass
class Probe:
    """An unclaimed (op, standard-version, dtype) run once to see whether it works anyway."""

    op: str
    standard: str
    version: str
    dtype: str
    case_id: str
    cases: int  # unsupported cases in the group
    outcome: str  # "works" | "runs but fails" | "raises" | ...
    message: str

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class RunResult:
    adapter: str
    backend_version: str
    results: list[Result]
    probes: list[Probe] = field(default_factory=list)
    baseline_unmatched: list[dict] = field(default_factory=list)
    baseline_file: str | None = None
    strict: bool = False
    filters: str = ""
    corpus: str = ""
    seconds: float = 0.0
    claims: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    claimed: list[tuple[str, str]] = field(default_factory=list)  # (op, standard) pairs claimed ("*": any)

    def counts(self) -> dict[str, int]:
        out = {v: 0 for v in VERDICTS}
        for r in self.results:
            out[r.verdict] += 1
        return out

    @property
    def new_failures(self) -> list[Result]:
        return [r for r in self.results if r.verdict in FAILING]

    @property
    def xpasses(self) -> list[Result]:
        return [r for r in self.results if r.verdict == XPASS]

    def exit_code(self) -> int:
        if self.new_failures:
            return 1
        if self.strict and self.xpasses:
            return 1
        return 0


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else repr(f)
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    return str(obj)


# ---------------------------------------------------------------------------------------------
# Building the call


def _strided_view(values: np.ndarray, strides: list[int]) -> np.ndarray:
    """``values`` placed in a larger buffer with the given element strides (negative allowed); the
    gaps hold a sentinel (NaN for floats, the type's max for integers) so that an adapter that
    ignores strides reads garbage, not the right numbers by luck."""
    shape = values.shape
    itemsize = values.dtype.itemsize
    lo = sum((d - 1) * s for d, s in zip(shape, strides) if s < 0 and d > 0)
    hi = sum((d - 1) * s for d, s in zip(shape, strides) if s > 0 and d > 0)
    span = hi - lo + 1
    if values.dtype.kind == "f" or values.dtype.name == "bfloat16":
        base = np.full(span, np.nan, dtype=values.dtype)
    else:
        base = np.full(span, np.iinfo(values.dtype).max, dtype=values.dtype)
    view = np.lib.stride_tricks.as_strided(base[-lo:], shape=shape, strides=[s * itemsize for s in strides])
    view[...] = values
    return view


def _layout(arr: np.ndarray, st) -> np.ndarray:
    """``arr`` laid out with element strides ``st`` (None: dense). A stride list that cannot be
    laid out (wrong length: a must-reject case) leaves the array dense; ``Call.strides`` still
    carries the declared strides for adapters that validate descriptors."""
    if st is None or len(st) != arr.ndim or arr.size == 0:
        return arr
    return _strided_view(arr, [int(s) for s in st])


def _attr(v):
    """Attribute values: floats stay floats (already float32-rounded by the corpus); lists (ONNX
    ``consumed_inputs``) and strings pass through."""
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v
    return float(v)


def build_call(case, data: dict[str, np.ndarray], spec, input_names, output_names) -> Call:
    """The Call for one case. Inputs are fresh copies; strided inputs are views; an in-place call's
    output buffer is the input array itself."""
    inputs: dict[str, np.ndarray] = {}
    strides = {k: (list(v) if v is not None else None) for k, v in dict(getattr(case, "strides", None) or {}).items()}
    for name in input_names:
        arr = np.array(data[name], copy=True)
        inputs[name] = _layout(arr, strides.get(name))
    outputs: dict[str, OutputInfo] = {}
    out: dict[str, np.ndarray] = {}
    for i, name in enumerate(output_names):
        shape = tuple(case.shapes.get(name, np.shape(data.get(name, ()))))
        dtype = case.dtypes.get(name, case.dtype)
        outputs[name] = OutputInfo(shape, dtype)
        if case.in_place and i < len(input_names):
            out[name] = inputs[input_names[i]]
        else:
            try:
                out[name] = _layout(np.zeros(shape, dtype=_dt.get(dtype).numpy), strides.get(name))
            except (KeyError, ValueError, TypeError):
                out[name] = np.zeros(0)
    return Call(case_id=case.id, op=case.op, standard=case.standard, version=str(case.version), dtype=case.dtype,
                kind=getattr(case, "kind", "positive"), inputs=inputs, outputs=outputs, out=out,
                attributes={k: _attr(v) for k, v in (case.attributes or {}).items()},
                attributes_given=tuple(getattr(case, "attributes_given", ()) or ()),
                in_place=bool(case.in_place), violations=tuple(getattr(case, "violations", ()) or ()), spec=spec,
                strides=strides)


# ---------------------------------------------------------------------------------------------
# Invoking the adapter (in-process; specgen.runner.isolate wraps the same function)


@dataclass
class Outcome:
    status: str  # ok | answered | unsupported | rejected | raised | timeout | died
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    accepted: bool | None = None  # for "answered": what accepts() said
    message: str = ""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _exc_text(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    if len(first) > 300:
        first = first[:297] + "..."
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _to_array(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy") and callable(value.numpy):  # torch / tf tensors
        return value.numpy()
    return np.asarray(value)


def invoke(adapter, call: Call, ask_accepts: bool = False) -> Outcome:
    """Run one call through an adapter; never raises (except KeyboardInterrupt/SystemExit)."""
    t0 = time.perf_counter()
    if ask_accepts:
        try:
            answer = adapter.accepts(call)
        except Exception as exc:
            return Outcome("raised", message=f"accepts() raised {_exc_text(exc)}", seconds=time.perf_counter() - t0)
        if answer is not None:
            return Outcome("answered", accepted=bool(answer), seconds=time.perf_counter() - t0)
    try:
        returned = adapter.run(call)
    except Unsupported as exc:
        return Outcome("unsupported", message=_exc_text(exc), seconds=time.perf_counter() - t0)
    except Rejected as exc:
        return Outcome("rejected", message=_exc_text(exc), seconds=time.perf_counter() - t0)
    except Exception as exc:
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" (at {tb[-1].filename}:{tb[-1].lineno})" if tb else ""
        return Outcome("raised", message=_exc_text(exc) + where, seconds=time.perf_counter() - t0)
    seconds = time.perf_counter() - t0
    names = list(call.outputs)
    notes: list[str] = []
    try:
        if returned is None:
            outputs = {n: call.out[n] for n in names}
        elif isinstance(returned, dict):
            outputs = {k: _to_array(v) for k, v in returned.items()}
        elif isinstance(returned, (tuple, list)) and len(names) > 1:
            outputs = {n: _to_array(v) for n, v in zip(names, returned)}
        else:
            outputs = {names[0]: _to_array(returned)}
    except Exception as exc:
        return Outcome("raised", message=f"the adapter returned something that is not an array: {_exc_text(exc)}",
                       seconds=seconds)
    if call.in_place:
        # the result of an in-place call is the aliased buffer, whatever the adapter returned
        for n in names:
            buf = call.out.get(n)
            got = outputs.get(n)
            if buf is None:
                continue
            if got is not None and not np.shares_memory(got, buf):
                same = got.shape == buf.shape and np.array_equal(np.asarray(got), np.asarray(buf), equal_nan=True)
                if not same:
                    notes.append(f"in-place: the adapter returned a separate array for {n} and did not write "
                                 f"the result into the buffer it shares with the input; the buffer is judged")
            outputs[n] = buf
    outputs = {k: np.array(v, copy=True) for k, v in outputs.items()}
    return Outcome("ok", outputs=outputs, notes=notes, seconds=seconds)


# ---------------------------------------------------------------------------------------------
# Comparison


def _default_compare():
    from specgen.numerics.compare import compare

    return compare


def comparison_detail(cmp) -> dict:
    """The parts of a specgen.numerics Comparison the reports show, as plain data."""
    if cmp is None:
        return {}
    if hasattr(cmp, "to_json") and callable(cmp.to_json):
        try:
            return _jsonable(cmp.to_json())
        except Exception:
            pass
    out: dict[str, Any] = {}
    for key in ("ok", "total", "mismatches", "kind", "notes", "worst", "first"):
        if hasattr(cmp, key):
            value = getattr(cmp, key)
            out[key] = _obj_to_data(value)
    try:
        out["summary"] = cmp.summary()
    except Exception:
        pass
    return _jsonable(out)


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


# ---------------------------------------------------------------------------------------------
# The runner


def rerun_command(adapter: str, case_id: str, corpus: str | None = None, isolate: bool = False,
                  timeout: float | None = None) -> str:
    """The command that re-runs exactly one case; ``timeout`` (a case that timed out, or a run with an
    explicit --timeout) is passed on so that the re-run judges it the same way."""
    cmd = f"specgen run --adapter {shlex.quote(adapter)} --case {shlex.quote(case_id)}"
    if corpus:
        cmd += f" --corpus {shlex.quote(str(corpus))}"
    if isolate:
        cmd += " --isolate"
    if timeout is not None:
        cmd += f" --timeout {timeout:g}"
    return cmd


class Runner:
    """Runs cases through one loaded adapter (``specgen.adapters.registry.LoadedAdapter``)."""

    def __init__(self, loaded, specs: dict | None = None, *, compare: Callable | None = None,
                 isolate: bool = False, timeout: float | None = None, corpus: str | None = None,
                 progress: Callable[[int, int, str], None] | None = None, probe: bool = True):
        if specs is None:
            from specgen.spec.loader import load_all

            specs = load_all()
        self.loaded = loaded
        self.name = loaded.name
        self.specs = specs
        self._compare = compare
        self.isolate = isolate or timeout is not None
        self.timeout = timeout if timeout is not None else (60.0 if isolate else None)
        self._timeout_given = timeout is not None
        self.corpus = corpus
        self.progress = progress
        self.probe = probe
        self._worker = None

    # -- plumbing ---------------------------------------------------------------------------
    @property
    def compare(self) -> Callable:
        if self._compare is None:
            self._compare = _default_compare()
        return self._compare

    def _invoke(self, case, data, spec, ask_accepts: bool) -> Outcome:
        in_names = [t.name for t in spec.inputs]
        out_names = [t.name for t in spec.outputs]
        if self.isolate:
            if self._worker is None:
                from specgen.runner.isolate import Worker

                self._worker = Worker(self.loaded.name, self.loaded.value)
            return self._worker.invoke(case, data, in_names, out_names, ask_accepts, self.timeout)
        call = build_call(case, data, spec, in_names, out_names)
        return invoke(self.loaded.adapter, call, ask_accepts)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _result(self, case, verdict: str, reason: str, **kw) -> Result:
        strides = getattr(case, "strides", None) or {}
        shapes = case.shapes or {}
        first = next(iter(shapes.values()), [])
        return Result(case_id=case.id, op=case.op, standard=case.standard, version=str(case.version),
                      dtype=case.dtype, kind=getattr(case, "kind", "positive"), verdict=verdict, reason=reason,
                      rerun=rerun_command(self.name, case.id, self.corpus, self.isolate,
                                          self.timeout if self._timeout_given or "timed out after" in reason else None),
                      in_place=bool(case.in_place), strided=any(s is not None for s in strides.values()),
                      shape=list(first), tags=list(getattr(case, "tags", ()) or ()), **kw)

    # -- one case ---------------------------------------------------------------------------
    def run_case(self, case, *, ignore_claims: bool = False) -> Result:
        t0 = time.perf_counter()
        spec = self.specs.get(case.op)
        if spec is None:
            return self._result(case, ERROR, f"no spec for op {case.op!r}; the corpus and specs/ disagree")
        negative = getattr(case, "kind", "positive") == "negative"
        if not ignore_claims:
            claim, why = first_covering(self.loaded.claims, case)
            if claim is None:
                why = why or "not claimed"
                try:
                    backend_why = self.loaded.adapter.why_unclaimed(case.op, case.standard, str(case.version), case.dtype)
                except Exception:
                    backend_why = None
                if backend_why and (why.startswith("dtype ") or why.endswith(" is not claimed")):
                    why = f"{why}; the adapter says: {backend_why}"
                return self._result(case, UNSUPPORTED, why)
        try:
            data = case.load()
        except Exception as exc:
            return self._result(case, ERROR, f"cannot load the case data: {_exc_text(exc)} (corpus problem, not the adapter's)")
        outcome = self._invoke(case, data, spec, ask_accepts=negative)
        result = self._judge_negative(case, outcome) if negative else self._judge_positive(case, spec, data, outcome)
        result.notes[:0] = outcome.notes
        result.seconds = time.perf_counter() - t0
        return result

    def _where(self, case) -> str:
        bits = []
        if case.in_place:
            bits.append("in-place: the output aliases the input")
        strides = getattr(case, "strides", None) or {}
        for name, st in strides.items():
            if st is not None:
                bits.append(f"{name} is non-contiguous (element strides {list(st)})")
        return f" [{'; '.join(bits)}]" if bits else ""

    def _judge_negative(self, case, o: Outcome) -> Result:
        why = "; ".join(case.violations) if getattr(case, "violations", None) else "an illegal call"
        if o.status == "answered":
            if o.accepted:
                return self._result(case, FAIL, f"accepted an illegal call: accepts() returned True although {why}")
            return self._result(case, PASS, "rejected (accepts() returned False)")
        if o.status in ("rejected", "unsupported", "raised"):
            return self._result(case, PASS, f"rejected: {o.message}")
        if o.status == "ok":
            return self._result(case, FAIL, f"accepted an illegal call: ran it without complaint although {why}")
        return self._result(case, ERROR, f"{o.status} on a must-reject case: {o.message}")

    def _judge_positive(self, case, spec, data, o: Outcome) -> Result:
        where = self._where(case)
        if o.status == "unsupported":
            return self._result(case, FAIL, f"claim not honoured: the adapter declined a case inside its claim: {o.message}")
        if o.status == "rejected":
            return self._result(case, FAIL, f"rejected a legal call: {o.message}")
        if o.status == "raised":
            return self._result(case, ERROR, f"crashed inside its claim: {o.message}")
        if o.status in ("timeout", "died"):
            return self._result(case, ERROR, o.message)
        if o.status != "ok":  # pragma: no cover - defensive
            return self._result(case, ERROR, f"unexpected outcome {o.status}: {o.message}")
        in_names = [t.name for t in spec.inputs]
        failures = []
        details: dict = {}
        notes: list[str] = []
        for t in spec.outputs:
            name = t.name
            expected = data[name]
            want_shape = tuple(case.shapes.get(name, expected.shape))
            want_dtype = _dt.get(case.dtypes.get(name, case.dtype)).numpy
            if name not in o.outputs:
                return self._result(case, ERROR, f"no output {name!r} returned (got: {', '.join(o.outputs) or 'nothing'})")
            actual = o.outputs[name]
            if tuple(actual.shape) != want_shape:
                return self._result(case, ERROR, f"wrong shape for {name}: got {tuple(actual.shape)}, expected {want_shape}{where}")
            if actual.dtype != want_dtype:
                return self._result(case, ERROR, f"wrong dtype for {name}: got {actual.dtype.name}, expected {np.dtype(want_dtype).name}{where}")
            inputs = {n: data[n] for n in in_names}
            if expected.ndim == 0:
                # shapes already agree; compare() is handed 1-element arrays so that a 0-d case is
                # judged like any other (the index it reports is then [0])
                inputs = {n: np.reshape(v, (1,)) for n, v in inputs.items()}
                expected, actual = np.reshape(expected, (1,)), np.reshape(actual, (1,))
            try:
                cmp = self.compare(spec, case.standard, case.dtype, inputs, dict(case.attributes or {}), expected, actual)
            except Exception as exc:
                return self._result(case, ERROR, f"comparison raised {_exc_text(exc)} (a specgen problem, not the adapter's)")
            d = comparison_detail(cmp)
            details[name] = d
            notes.extend(str(n) for n in (getattr(cmp, "notes", None) or ()))
            if not cmp.ok:
                try:
                    summary = cmp.summary()
                except Exception:
                    summary = f"{getattr(cmp, 'mismatches', '?')} of {getattr(cmp, 'total', '?')} elements out of bound"
                failures.append(f"{name}: {summary}")
        detail = details[next(iter(details))] if len(details) == 1 else details
        if failures:
            return self._result(case, FAIL, "; ".join(failures) + where, detail=detail, notes=notes)
        return self._result(case, PASS, "within the error bound", detail=detail, notes=notes)

    # -- many cases -------------------------------------------------------------------------
    def run(self, cases: Iterable, *, baseline=None, strict: bool = False, filters: str = "") -> RunResult:
        cases = list(cases)
        t0 = time.perf_counter()
        results: list[Result] = []
        total = len(cases)
        try:
            for i, case in enumerate(cases):
                if self.progress:
                    self.progress(i, total, case.id)
                try:
                    results.append(self.run_case(case))
                except KeyboardInterrupt:
                    raise
                except Exception as exc:  # a runner bug must not stop the run either
                    results.append(self._result(case, ERROR, f"runner error: {_exc_text(exc)}"))
            if self.progress:
                self.progress(total, total, "")
            probes = self._probe(cases, results) if self.probe else []
        finally:
            self.close()
        run = RunResult(adapter=self.name, backend_version=self.loaded.backend_version, results=results,
                        probes=probes, strict=strict, filters=filters, corpus=str(self.corpus or ""),
                        claims=[c.describe() for c in self.loaded.claims], warnings=list(self.loaded.warnings),
                        claimed=sorted({(c.op, c.standard) for c in self.loaded.claims}))
        if baseline is not None:
            baseline.apply(run)
        run.seconds = time.perf_counter() - t0
        return run

    def _probe(self, cases, results) -> list[Probe]:
        """Claims checked against behaviour from the other side: each (op, standard-version, dtype)
        group is probed when
          - the adapter claims the op in that standard (some version, or standard "*"),
          - every positive dense, not-in-place case of the group is unsupported only because its
            dtype or its version is not claimed (not rank, attribute, size), and
          - the adapter does not explain the group (``why_unclaimed``): an explanation, such as the
            error onnxruntime gave when the adapter tried the group at load, is reported instead.
        The probe runs the group's smallest case (fewest elements, then id) ignoring the claims:
        "works" means that case passed, "runs but fails" that it ran out of bound, "does not run"
        that the backend declined, rejected or crashed."""
        groups: dict[tuple, list] = {}
        for case, r in zip(cases, results):
            if r.kind != "positive" or case.in_place or any(s is not None for s in (getattr(case, "strides", None) or {}).values()):
                continue
            key = (case.op, case.standard, str(case.version), case.dtype)
            groups.setdefault(key, []).append((case, r))
        probes = []
        claimed_pairs = {(c.op, c.standard) for c in self.loaded.claims}
        for key, members in groups.items():
            if (key[0], key[1]) not in claimed_pairs and (key[0], "*") not in claimed_pairs:
                continue  # the adapter claims nothing of this op in this standard: nothing to probe
            not_claimed = f"{key[0]} {key[1]}-{key[2]} is not claimed"
            if not all(r.verdict == UNSUPPORTED and (r.reason.startswith("dtype ") or r.reason == not_claimed)
                       and "; the adapter says: " not in r.reason for _, r in members):
                continue  # some case is claimed, or unsupported for another reason, or explained by the adapter
            case = min((c for c, _ in members), key=lambda c: (int(np.prod(next(iter(c.shapes.values()), [1]))), c.id))
            r = self.run_case(case, ignore_claims=True)
            msg = r.reason
            for prefix in ("claim not honoured: the adapter declined a case inside its claim: ",
                           "rejected a legal call: ", "crashed inside its claim: "):
                if msg.startswith(prefix):
                    outcome, msg = "does not run", msg[len(prefix):]
                    break
            else:
                if r.verdict == PASS:
                    outcome, msg = "works", "ran and passed although not claimed"
                elif r.verdict == FAIL:
                    outcome = "runs but fails"
                else:
                    outcome = "does not run"
            probes.append(Probe(key[0], key[1], key[2], key[3], case.id, len(members), outcome, msg))
        return probes


def progress_printer(stream=None, every: float = 0.5):
    """A progress callback writing one updating line to stderr."""
    stream = stream or sys.stderr
    state = {"last": 0.0}

    def show(i: int, total: int, case_id: str) -> None:
        now = time.monotonic()
        if i < total and now - state["last"] < every:
            return
        state["last"] = now
        pct = 100 * i // total if total else 100
        line = f"[{i}/{total} {pct:3d}%] {case_id}"[:120]
        stream.write("\r" + line.ljust(120) + ("\n" if i >= total else ""))
        stream.flush()

    return show
