"""The runner: cases through one adapter, to verdicts. Both front ends (``specgen run`` and the
pytest plugin) use :class:`Runner`.

Steps per case (each in its own module):
  1. claim (specgen.adapters.base.covering): no claim covers the case -> *unsupported*, with a
     typed cause (specgen.runner.verdicts.Cause) saying which part is not claimed.
  2. call (specgen.runner.call) and invoke (specgen.runner.invoke; specgen.runner.isolate runs the
     same in a subprocess worker: per-case timeout, a crash kills only the worker).
  3. judge (specgen.runner.judge): must-reject cases by the backend's rejection; legal cases by
     presence, shape, dtype, then the error model (-> *pass* / *fail*); the behaviour profile
     (specgen.runner.profile) is recorded whatever the verdict.
  4. probes (specgen.runner.probe) and the baseline (specgen.runner.baseline): known failures ->
     *xfail*, known failures passing -> *xpass*.
"""
from __future__ import annotations

import shlex
import time
from functools import partial
from typing import Callable, Iterable

import numpy as np

from specgen.adapters.base import covering
from specgen.progress import Progress  # noqa: F401  (re-exported)
from specgen.runner.call import build_call
from specgen.runner.invoke import Outcome, exc_text, invoke
from specgen.runner.judge import judge_negative, judge_positive
from specgen.runner.probe import probe as _probe
from specgen.runner.profile import case_profile, merge, reading_profile
from specgen.runner.verdicts import (ERROR, FAIL, FAILING, PASS, UNSUPPORTED, VERDICTS, XFAIL, XPASS,  # noqa: F401
                                     Cause, Probe, Result, RunResult)
from specgen.spec.operators import ACCUMULATING, engine
from specgen.spec.provenance import chosen_folder


class CorpusDataError(Exception):
    """A case's data cannot be read (missing or truncated file, sha256 mismatch): the corpus is
    broken, not the adapter. Stops the run (exit 2)."""


def _readings_compare():
    from specgen.numerics.readings import compare_readings

    return compare_readings


def _default_compare(readings: tuple[str, ...] = ()):
    """compare() by every reading of the standard the spec lists, any-of; literal readings only
    where ``readings`` names them (specgen.numerics.readings)."""
    return partial(_readings_compare(), enabled=tuple(readings))


def rerun_command(adapter: str, case_id: str, corpus: str | None = None, isolate: bool = False,
                  timeout: float | None = None, specs: str | None = None,
                  readings: tuple[str, ...] = ()) -> str:
    """The command that re-runs exactly one case; ``timeout`` (a case that timed out, or a run with an
    explicit --timeout) and the opt-in ``readings`` enabled are passed on so that the re-run judges it
    the same way; ``specs``: the specs folder when it is not the bundled one."""
    cmd = f"specgen run --adapter {shlex.quote(adapter)} --case {shlex.quote(case_id)}"
    if specs:
        cmd += f" --specs {shlex.quote(str(specs))}"
    if corpus:
        cmd += f" --corpus {shlex.quote(str(corpus))}"
    if isolate:
        cmd += " --isolate"
    if timeout is not None:
        cmd += f" --timeout {timeout:g}"
    for name in readings:
        cmd += f" --reading {shlex.quote(name)}"
    return cmd


class Runner:
    """Runs cases through one loaded adapter (``specgen.adapters.registry.LoadedAdapter``).

    ``profile``: "report" (the behaviour profile is reported, never failed) or "strict" (a legal
    case whose special-value elements differ from the spec's recommended outcome fails)."""

    def __init__(self, loaded, specs: dict | None = None, *, compare: Callable | None = None,
                 isolate: bool = False, timeout: float | None = None, corpus: str | None = None,
                 progress: Callable[[int, int, str], None] | None = None, probe: bool = True,
                 exitfirst: bool = False, profile: str = "report", readings: tuple[str, ...] = ()):
        if specs is None:
            from specgen.spec.operators import load_operators

            specs = load_operators()
        self.loaded = loaded
        self.name = loaded.name
        self.specs = specs
        self.specs_folder = chosen_folder(specs)
        self._compare = compare
        self._compare_given = compare is not None  # a caller's comparison judges every case (tests' fakes)
        self.readings = tuple(readings)  # opt-in readings enabled by name (specgen run --reading)
        self.isolate = isolate or timeout is not None
        self.timeout = timeout if timeout is not None else (60.0 if isolate else None)
        self._timeout_given = timeout is not None
        self.corpus = corpus
        self.progress = progress
        self.probe = probe
        self.exitfirst = exitfirst
        self.profile = profile
        self._worker = None

    # -- plumbing ---------------------------------------------------------------------------
    @property
    def compare(self) -> Callable:
        if self._compare is None:
            self._compare = _default_compare(self.readings)
        return self._compare

    def _compare_for(self, case, spec=None) -> Callable:
        """The comparison for one case: the default one judges by the readings of the case's version;
        an accumulating operator's by its engine's model (specgen.indexing.judge: any summation order)."""
        if engine(spec) == ACCUMULATING and not self._compare_given:
            from specgen.indexing.judge import compare as accumulation_compare

            return partial(accumulation_compare, version=str(case.version))
        compare = self.compare
        if getattr(compare, "func", None) is _readings_compare():
            return partial(compare, version=str(case.version))
        return compare

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

    def _result(self, case, verdict: str, cause: Cause, reason: str, **kw) -> Result:
        strides = getattr(case, "strides", None) or {}
        shapes = case.shapes or {}
        first = next(iter(shapes.values()), [])
        return Result(case_id=case.id, op=case.op, standard=case.standard, version=str(case.version),
                      dtype=case.dtype, kind=getattr(case, "kind", "positive"), verdict=verdict, reason=reason,
                      cause=cause,
                      rerun=rerun_command(self.name, case.id, self.corpus, self.isolate,
                                          self.timeout if self._timeout_given or cause == Cause.TIMEOUT else None,
                                          self.specs_folder, self.readings),
                      in_place=bool(case.in_place), strided=any(s is not None for s in strides.values()),
                      shape=list(first), tags=list(getattr(case, "tags", ()) or ()),
                      attributes=dict(getattr(case, "attributes", None) or {}), **kw)

    # -- one case ---------------------------------------------------------------------------
    def run_case(self, case, *, ignore_claims: bool = False) -> Result:
        """One case to a verdict. Raises :class:`CorpusDataError` when the case's data is unreadable."""
        t0 = time.perf_counter()
        spec = self.specs.get(case.op)
        if spec is None:
            return self._result(case, ERROR, Cause.SPECGEN, f"no spec for op {case.op!r}; the corpus and specs/ disagree")
        negative = getattr(case, "kind", "positive") == "negative"
        if not ignore_claims:
            claim, cause, why = covering(self.loaded.claims, case)
            if claim is None:
                cause = Cause(cause)
                explanation = None
                if cause in (Cause.UNCLAIMED_DTYPE, Cause.UNCLAIMED_VERSION):
                    try:
                        explanation = self.loaded.adapter.why_unclaimed(case.op, case.standard, str(case.version),
                                                                        case.dtype) or None
                    except Exception:
                        explanation = None
                reason = f"{why}; the adapter says: {explanation}" if explanation else why
                return self._result(case, UNSUPPORTED, cause, reason, explanation=explanation)
        try:
            data = case.load()
        except Exception as exc:
            root, name = getattr(case, "root", None), getattr(case, "file", None)
            where = f" in {root / name}" if root is not None and name else ""
            raise CorpusDataError(f"cannot read the data of case {case.id}{where}: {exc_text(exc, 500)}") from exc
        outcome = self._invoke(case, data, spec, ask_accepts=negative)
        if negative:
            verdict, cause, reason, extra = judge_negative(case, outcome)
        else:
            verdict, cause, reason, extra = judge_positive(case, spec, data, outcome, self._compare_for(case, spec))
        result = self._result(case, verdict, cause, reason, **extra)
        if not negative and outcome.status == "ok" and engine(spec) == ACCUMULATING:
            from specgen.indexing.judge import profile as accumulation_profile

            result.profile = accumulation_profile(spec, result)
        elif not negative and outcome.status == "ok":
            self._profile(result, spec, data, outcome)
        result.notes[:0] = outcome.notes
        result.seconds = time.perf_counter() - t0
        return result

    def _profile(self, result: Result, spec, data, outcome: Outcome) -> None:
        x = data.get(spec.inputs[0].name) if spec.inputs else None
        name = spec.outputs[0].name if spec.outputs else None
        if x is None or name not in data or name not in outcome.outputs:
            return
        try:
            prof, deviations = case_profile(np.asarray(x), np.asarray(data[name]), np.asarray(outcome.outputs[name]))
        except Exception:  # the profile is a report; it never decides a verdict by crashing
            return
        result.profile = merge(prof, reading_profile(result.standard, getattr(result, "detail", None) or {}))
        if self.profile == "strict" and deviations and result.verdict == PASS:
            result.verdict, result.cause = FAIL, Cause.STRICT_PROFILE
            result.reason = (f"--profile strict: {deviations} special-value element(s) differ from the spec's "
                             f"recommended outcome (the golden value)")

    # -- many cases -------------------------------------------------------------------------
    def run(self, cases: Iterable, *, baseline=None, strict: bool = False, filters: str = "") -> RunResult:
        """Every case to a verdict. Ctrl-C stops the run and returns what finished
        (``interrupted``); -x (``exitfirst``) stops after the first new failure. Raises
        :class:`CorpusDataError` when the corpus is broken."""
        cases = list(cases)
        t0 = time.perf_counter()
        results: list[Result] = []
        total = len(cases)
        interrupted = stopped = False
        probes: list[Probe] = []
        try:
            for i, case in enumerate(cases):
                if self.progress:
                    self.progress(i, total, case.id)
                try:
                    r = self.run_case(case)
                except (KeyboardInterrupt, CorpusDataError):
                    raise
                except Exception as exc:  # a runner bug must not stop the run either
                    r = self._result(case, ERROR, Cause.SPECGEN, f"runner error: {exc_text(exc)}")
                results.append(r)
                if self.exitfirst and r.verdict in FAILING and (baseline is None or not baseline.explains(r)):
                    stopped = True
                    break
            if self.progress:
                self.progress(len(results), total, "")
            if self.probe and not stopped:
                probes = _probe(cases, results, self.loaded.claims, self.run_case, self.specs)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            self.close()
        run = RunResult(adapter=self.name, backend_version=self.loaded.backend_version, results=results,
                        probes=probes, strict=strict, filters=filters, corpus=str(self.corpus or ""),
                        claims=[c.describe() for c in self.loaded.claims], warnings=list(self.loaded.warnings),
                        claimed=sorted({(c.op, c.standard) for c in self.loaded.claims}), selected=total,
                        interrupted=interrupted, stopped_early=stopped, profile_mode=self.profile)
        if baseline is not None:
            baseline.apply(run)
        run.seconds = time.perf_counter() - t0
        return run
