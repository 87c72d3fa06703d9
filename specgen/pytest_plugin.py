"""pytest plugin (entry point ``pytest11``): ``pytest --specgen-adapter NAME`` collects the vector
corpus cases as pytest items named by case id, run through the same runner core as ``specgen run``.

So backend teams get -k, -x, xdist (-n) and --junitxml from pytest itself::

    pytest -p no:cacheprovider --specgen-adapter onnxruntime --specgen-op shrink -k float16 -n 2

With ``--specgen-adapter`` and no path given, only the corpus cases are collected (not the
project's own tests). Without ``--specgen-adapter`` the plugin does nothing (no import of specgen's runner, no items).
Verdicts map to pytest outcomes: pass -> passed, fail/error -> failed (the message is the runner's
failure report with the re-run command), unsupported -> skipped, baseline entries -> xfail markers
(a known failure that passes is XPASS; strict with --specgen-strict).
"""
from __future__ import annotations

import pytest

_RUNNER_KEY = "_specgen_runner"
_SPECS_ENV_KEY = "_specgen_specs_env"  # SPECGEN_SPECS as it was before --specgen-specs set it


def pytest_addoption(parser):
    group = parser.getgroup("specgen", "specgen conformance cases (specgen run as pytest items)")
    group.addoption("--specgen-adapter", default=None, metavar="NAME",
                    help="collect the vector corpus cases for this adapter (name or module:Class)")
    group.addoption("--specgen-corpus", default=None, metavar="DIR", help="corpus directory (default generated/vectors)")
    group.addoption("--specgen-specs", default=None, metavar="DIR",
                    help="specs folder in use (default: $SPECGEN_SPECS, else the bundled specs/); the corpus must "
                         "have been generated from it")
    for opt, what in (("op", "operator id"), ("standard", "standard key"), ("version", "version glob"),
                      ("dtype", "dtype"), ("case", "case-id glob")):
        group.addoption(f"--specgen-{opt}", action="append", default=[], metavar=opt.upper(),
                        help=f"only cases with this {what} (repeatable, comma-separated)")
    group.addoption("--specgen-baseline", default=None, metavar="FILE", help="known failures (YAML) become xfail")
    group.addoption("--specgen-strict", action="store_true", default=False, help="XPASS of a baseline entry fails")
    group.addoption("--specgen-isolate", action="store_true", default=False,
                    help="run each case in a subprocess (crashes and hangs become failures)")
    group.addoption("--specgen-timeout", type=float, default=None, metavar="S", help="per-case timeout (implies isolate)")


def pytest_ignore_collect(collection_path, config):
    """With ``--specgen-adapter`` and no path on the command line, collect only the corpus cases: run
    from a project's root, pytest would otherwise also collect (and run) the project's own tests
    (``testpaths`` or the current directory; issue 24). Paths named on the command line are
    collected as usual."""
    if not config.getoption("--specgen-adapter", default=None):
        return None
    if getattr(config, "args_source", None) == pytest.Config.ArgsSource.ARGS:
        return None
    return True


def _split(values):
    out = []
    for v in values or ():
        out.extend(p.strip() for p in v.split(",") if p.strip())
    return tuple(out)


class SpecgenError(Exception):
    """A case that failed or errored; the message is the runner's report."""


class SpecgenCaseItem(pytest.Item):
    def __init__(self, *, case, runner_box, baseline_entry=None, **kw):
        super().__init__(**kw)
        self.case = case
        self._box = runner_box
        self.result = None
        self.user_properties.append(("specgen_case", case.id))
        if baseline_entry is not None:
            strict = self.config.getoption("--specgen-strict")
            self.add_marker(pytest.mark.xfail(reason=f"baseline: {baseline_entry.reason}", strict=strict))

    def runtest(self):
        from specgen.reports.common import failure_lines
        from specgen.runner.core import ERROR, FAIL, UNSUPPORTED

        from specgen.runner.core import CorpusDataError

        runner = self._box.get(self.config)
        try:
            result = self.result = runner.run_case(self.case)
        except CorpusDataError as exc:  # the corpus is broken, not the adapter: one line, no traceback
            raise SpecgenError(f"{exc} (the corpus is broken, not the adapter; regenerate with `specgen generate`)")
        self.user_properties.append(("specgen_verdict", result.verdict))
        if result.verdict == UNSUPPORTED:
            pytest.skip(f"unsupported: {result.reason}")
        if result.verdict in (FAIL, ERROR):
            raise SpecgenError("\n".join(failure_lines(result)))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, SpecgenError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return ("specgen", None, f"specgen case {self.case.id}")


class SpecgenCollector(pytest.Collector):
    def __init__(self, *, cases, runner_box, baseline, **kw):
        super().__init__(**kw)
        self._cases = cases
        self._box = runner_box
        self._baseline = baseline

    def collect(self):
        for case in self._cases:
            entry = self._baseline.find(case) if self._baseline is not None else None
            yield SpecgenCaseItem.from_parent(self, name=case.id, case=case, runner_box=self._box,
                                              baseline_entry=entry)


class _RunnerBox:
    """The runner is made on first use (so collection alone loads no backend)."""

    def __init__(self, loaded, specs):
        self.loaded = loaded
        self.specs = specs
        self.runner = None

    def get(self, config):
        if self.runner is None:
            from specgen.runner.core import Runner

            self.runner = Runner(self.loaded, self.specs, isolate=config.getoption("--specgen-isolate"),
                                 timeout=config.getoption("--specgen-timeout"),
                                 corpus=config.getoption("--specgen-corpus"), probe=False)
        return self.runner

    def close(self):
        if self.runner is not None:
            self.runner.close()


def _usage(msg: str):
    raise pytest.UsageError(f"specgen: {msg}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    name = config.getoption("--specgen-adapter", default=None)
    if not name:
        return
    from specgen.adapters.registry import AdapterLoadError, load
    from specgen.runner.baseline import Baseline, BaselineError
    from specgen.runner.cases import CorpusError, Filters, filter_problem, load_cases, select
    from specgen.errors import SpecError
    from specgen.indexing.space import IndexSpaceError
    from specgen.spec.operators import load_operators

    _use_specs(config)
    try:
        specs = load_operators()
    except (SpecError, FileNotFoundError, IndexSpaceError) as exc:
        _usage(f"the specs do not load: {exc}")
    try:
        loaded = load(name, specs)
    except AdapterLoadError as exc:
        _usage(str(exc))
    baseline = None
    path = config.getoption("--specgen-baseline")
    if path:
        try:
            baseline = Baseline.load(path)
        except BaselineError as exc:
            _usage(str(exc))
    filters = Filters(ops=_split(config.getoption("--specgen-op")), standards=_split(config.getoption("--specgen-standard")),
                      versions=_split(config.getoption("--specgen-version")), dtypes=_split(config.getoption("--specgen-dtype")),
                      cases=tuple(config.getoption("--specgen-case")))
    problem = filter_problem(filters, specs)
    if problem:
        _usage(problem)
    cases = getattr(config, "_specgen_cases", None)  # tests may inject in-memory cases
    try:
        cases = cases if cases is not None else load_cases(config.getoption("--specgen-corpus"), specs)
    except CorpusError as exc:
        _usage(str(exc))
    problem = filter_problem(filters, specs, cases)
    if problem:
        _usage(problem)
    cases = select(cases, filters)
    box = _RunnerBox(loaded, specs)
    setattr(config, _RUNNER_KEY, box)
    # named "specgen", not after the adapter: -k matches every name up the chain, and an adapter
    # called "...rank5..." would otherwise select every case
    collector = SpecgenCollector.from_parent(session, name="specgen", cases=cases, runner_box=box, baseline=baseline)
    report = collector.ihook.pytest_make_collect_report(collector=collector)
    collector.ihook.pytest_collectreport(report=report)  # counted by the terminal ("collected N items")
    if report.passed:
        items.extend(x for x in report.result if isinstance(x, pytest.Item))


def _use_specs(config) -> None:
    """--specgen-specs DIR becomes SPECGEN_SPECS for this session (the library's defaults and the
    processes it starts read it, as with `specgen run --specs`); restored at unconfigure."""
    import os
    from pathlib import Path

    from specgen.resources import SPECS_ENV

    folder = config.getoption("--specgen-specs", default=None)
    if not folder:
        return
    if not Path(folder).is_dir():
        _usage(f"--specgen-specs {folder}: no such directory")
    setattr(config, _SPECS_ENV_KEY, (os.environ.get(SPECS_ENV),))
    os.environ[SPECS_ENV] = str(Path(folder).resolve())


def pytest_unconfigure(config):
    box = getattr(config, _RUNNER_KEY, None)
    if box is not None:
        box.close()
    saved = getattr(config, _SPECS_ENV_KEY, None)
    if saved is not None:
        import os

        from specgen.resources import SPECS_ENV

        if saved[0] is None:
            os.environ.pop(SPECS_ENV, None)
        else:
            os.environ[SPECS_ENV] = saved[0]
