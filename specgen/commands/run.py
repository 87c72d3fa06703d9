"""``specgen run --adapter NAME [filters] [reports] [--baseline F]``: the conformance run and CI gate.

Exit codes (docs/runner.md): 0 no new failures; 1 new failures (or xpass with --strict);
2 usage or configuration error (bad option, unreadable corpus or baseline); 3 the adapter could
not be loaded (unknown, not installed, broken, incomplete); 4 the filters selected no case.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from specgen.runner import EXIT_ADAPTER, EXIT_NO_CASES, EXIT_USAGE


def _split(values) -> tuple[str, ...]:
    out: list[str] = []
    for v in values or ():
        out.extend(p.strip() for p in v.split(",") if p.strip())
    return tuple(out)


def output_path_problem(path: str) -> str | None:
    """Why a report file cannot be written at ``path`` (None: it can), checked before the run so
    that a typo does not cost a whole run: not a directory, its parent directory exists or can be
    created, and what exists is writable."""
    p = Path(path)
    if not p.name or p.is_dir():
        return "is a directory"
    if p.exists():
        return None if os.access(p, os.W_OK) else "is not writable"
    parent = p.parent
    while not parent.exists():  # the nearest existing ancestor must be a writable directory
        if parent.is_symlink():
            return f"{parent} is a broken symbolic link"
        parent = parent.parent
    if not parent.is_dir():
        return f"cannot create the directory: {parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"directory {parent} is not writable"
    return None


def _write(path: str, text: str) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


@click.command("run")
@click.option("--adapter", "adapter_name", required=True, help="Adapter name (see `specgen adapters`) or module:Class.")
@click.option("--op", multiple=True, help="Operator id(s) (hard_sigmoid); repeat or comma-separate.")
@click.option("--standard", multiple=True, help="Standard key(s): onnx, directml, onednn.")
@click.option("--version", "versions", multiple=True, help="Version / feature level / opset (glob allowed).")
@click.option("--dtype", multiple=True, help="Tensor dtype(s).")
@click.option("--case", "case_globs", multiple=True, help="Case-id glob(s), e.g. 'shrink/onnx-9/float32/*'.")
@click.option("--kind", type=click.Choice(["positive", "negative"]), multiple=True, help="Only positive or must-reject cases.")
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
@click.option("--isolate", is_flag=True, help="Run each case in a subprocess (crashes and hangs become errors).")
@click.option("--timeout", type=float, default=None, help="Per-case timeout in seconds (implies --isolate; default 60 there).")
@click.option("--json", "json_path", type=click.Path(), help="Write the JSON report (every case).")
@click.option("--junit", "junit_path", type=click.Path(), help="Write JUnit XML.")
@click.option("--markdown", "markdown_path", type=click.Path(), help="Write a Markdown report.")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False), help="Known failures (YAML) -> xfail.")
@click.option("--strict", is_flag=True, help="Known failures that now pass (xpass) fail the run.")
@click.option("--write-baseline", type=click.Path(), help="Write a baseline listing this run's failures.")
@click.option("--progress/--no-progress", default=None, help="Progress on stderr (default: when stderr is a TTY).")
@click.option("--no-probe", is_flag=True,
              help="Do not probe. By default the smallest case of each (op, version, dtype) group left unsupported only "
                   "by an unclaimed dtype or version, and not explained by the adapter, runs to see whether it works.")
@click.option("--quiet", "-q", is_flag=True,
              help="No group table and no probe list (one line counts the probes); failures, xpasses, stale baseline "
                   "entries, warnings and the counts line are still printed.")
def run(adapter_name, op, standard, versions, dtype, case_globs, kind, corpus, isolate, timeout, json_path,
        junit_path, markdown_path, baseline_path, strict, write_baseline, progress, no_probe, quiet):
    """Run the vector corpus through an adapter and judge every case."""
    from specgen.adapters.registry import AdapterLoadError, load
    from specgen.reports import json_report, junit, markdown, terminal
    from specgen.runner.baseline import Baseline, BaselineError, from_results
    from specgen.runner.cases import CorpusError, Filters, filter_problem, load_cases, select
    from specgen.runner.core import Runner, progress_printer
    from specgen.spec.loader import load_all

    if timeout is not None and timeout <= 0:
        click.echo("run: --timeout must be positive", err=True)
        raise SystemExit(EXIT_USAGE)
    outputs = [(f"--{name}", path) for name, path in (("json", json_path), ("junit", junit_path),
                                                       ("markdown", markdown_path), ("write-baseline", write_baseline)) if path]
    for name, path in outputs:
        problem = output_path_problem(path)
        if problem:
            click.echo(f"run: {name} {path}: {problem}", err=True)
            raise SystemExit(EXIT_USAGE)
    specs = load_all()
    filters = Filters(ops=_split(op), standards=_split(standard), versions=_split(versions), dtypes=_split(dtype),
                      cases=tuple(case_globs), kinds=tuple(kind))
    problem = filter_problem(filters, specs)
    if problem:
        click.echo(f"run: {problem}", err=True)
        raise SystemExit(EXIT_USAGE)
    baseline = None
    if baseline_path:
        try:
            baseline = Baseline.load(baseline_path)
        except BaselineError as exc:
            click.echo(f"run: {exc}", err=True)
            raise SystemExit(EXIT_USAGE)
    try:
        loaded = load(adapter_name)
    except AdapterLoadError as exc:
        click.echo(f"run: {exc}", err=True)
        raise SystemExit(EXIT_ADAPTER)
    try:
        every_case = load_cases(corpus)
    except CorpusError as exc:
        click.echo(f"run: {exc}", err=True)
        raise SystemExit(EXIT_USAGE)
    problem = filter_problem(filters, specs, every_case)
    if problem:
        click.echo(f"run: {problem}", err=True)
        raise SystemExit(EXIT_USAGE)
    cases = select(every_case, filters)
    if not cases:
        click.echo(f"run: no case matches ({filters.describe()})", err=True)
        raise SystemExit(EXIT_NO_CASES)
    show = progress if progress is not None else sys.stderr.isatty()
    runner = Runner(loaded, specs, isolate=isolate, timeout=timeout, corpus=corpus,
                    progress=progress_printer() if show else None, probe=not no_probe)
    result = runner.run(cases, baseline=baseline, strict=strict, filters=filters.describe())
    click.echo(terminal.render(result, quiet=quiet))
    writes = [("--json", json_path, json_report.render), ("--junit", junit_path, junit.render),
              ("--markdown", markdown_path, markdown.render),
              ("--write-baseline", write_baseline, lambda r: from_results(r.results, loaded.name))]
    unwritten = False
    for name, path, render in writes:
        if not path:
            continue
        try:
            _write(path, render(result))
        except OSError as exc:  # checked before the run, but the disk can still fill or change
            click.echo(f"run: cannot write {name} {path}: {exc.strerror or exc}", err=True)
            unwritten = True
    raise SystemExit(EXIT_USAGE if unwritten else result.exit_code())
