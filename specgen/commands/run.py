"""``specgen run --adapter NAME [filters] [reports] [--baseline F]``: the conformance run and CI gate."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from specgen.commands.specs_or_exit import specs_option
from specgen.exitcodes import Exit

EXIT_HELP = """\b
Exit codes (CI can trust them):
  0    no new failure (known failures allowed; xpass allowed unless --strict)
  1    a new failure: fail or error not in the baseline (or an xpass with --strict)
  2    usage or configuration error: bad option, broken spec, baseline unreadable
       (not UTF-8 included) or malformed, broken corpus (missing, truncated or
       sha256-mismatched data), report path that cannot be written
  3    the adapter cannot be loaded (unknown, not installed, broken, bad claims)
  4    nothing selected: no case matches the filters, or the adapter claims none of them
  130  interrupted (Ctrl-C); what finished is still reported

\b
Examples:
  specgen run --adapter onnxruntime --op shrink --dtype float16
  specgen run --adapter mybackend --baseline baselines/mybackend.yaml --strict --junit out.xml
  specgen run --adapter mybackend --shard 2/4 --json shard2.json       # one CI matrix job
  specgen run --adapter mybackend --last-failed -x                      # iterate on failures
  specgen run --adapter mybackend --case 'shrink/onnx-9/int32/*[bias=0.5,threshold=1]'
  (case patterns: * is the only wildcard; [ ] are literal, as in case ids)
"""


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
    p.write_text(text, encoding="utf-8")


def _fail(message: str, code: Exit) -> None:
    click.echo(f"run: {message}", err=True)
    raise SystemExit(int(code))


# -- --last-failed --------------------------------------------------------------------------------


def cache_file() -> Path:
    """Where the ids of the last run's failures are kept, per adapter (``SPECGEN_CACHE_DIR`` or
    ``.specgen-cache/`` in the current directory)."""
    return Path(os.environ.get("SPECGEN_CACHE_DIR") or ".specgen-cache") / "last-failed.json"


def _read_last_failed() -> dict:
    try:
        data = json.loads(cache_file().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _update_last_failed(result) -> None:
    """Cases that failed (fail, error, xfail) are remembered; cases that ran and passed are forgotten."""
    data = _read_last_failed()
    ids = set(data.get(result.adapter, []))
    for r in result.results:
        if r.verdict in ("fail", "error", "xfail"):
            ids.add(r.case_id)
        elif r.verdict in ("pass", "xpass"):
            ids.discard(r.case_id)
    data[result.adapter] = sorted(ids)
    try:
        path = cache_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    except OSError:
        pass  # a cache, never a reason to fail a run


@click.command("run", epilog=EXIT_HELP)
@specs_option()
@click.option("--adapter", "adapter_name", required=True, help="Adapter name (see `specgen adapters`) or module:Class.")
@click.option("--op", multiple=True, help="Operator id(s) (hard_sigmoid); repeat or comma-separate.")
@click.option("--standard", multiple=True, help="Standard key(s): onnx, directml, onednn.")
@click.option("--version", "versions", multiple=True, help="Version / feature level / opset (* wildcard allowed).")
@click.option("--dtype", multiple=True, help="Tensor dtype(s).")
@click.option("--case", "case_globs", multiple=True,
              help="Case id(s) or pattern(s), e.g. 'shrink/onnx-9/float32/*' (* is the only wildcard; brackets are literal).")
@click.option("--kind", type=click.Choice(["positive", "negative"]), multiple=True, help="Only positive or must-reject cases.")
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
@click.option("--shard", default=None, metavar="K/N", help="Run the K-th of N disjoint shards of the selected cases (CI matrix).")
@click.option("--last-failed", "last_failed", is_flag=True,
              help="Only the cases that failed in this adapter's last run (all cases when none is recorded).")
@click.option("-x", "--exitfirst", is_flag=True, help="Stop at the first new failure.")
@click.option("--isolate", is_flag=True, help="Run each case in a subprocess (crashes and hangs become errors).")
@click.option("--timeout", type=float, default=None, help="Per-case timeout in seconds (implies --isolate; default 60 there).")
@click.option("--profile", "profile_mode", type=click.Choice(["report", "strict"]), default="report", show_default=True,
              help="Behaviour where the spec leaves a choice (NaN, ±inf, signed zero, subnormals): report it, or "
                   "'strict': fail any deviation from the spec's recommended outcome.")
@click.option("--json", "json_path", type=click.Path(), help="Write the JSON report (every case).")
@click.option("--junit", "junit_path", type=click.Path(), help="Write JUnit XML.")
@click.option("--markdown", "markdown_path", type=click.Path(), help="Write a Markdown report.")
@click.option("--html", "html_path", type=click.Path(), help="Write a self-contained HTML report.")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False), help="Known failures (YAML) -> xfail.")
@click.option("--strict", is_flag=True, help="Known failures that now pass (xpass) fail the run.")
@click.option("--write-baseline", type=click.Path(),
              help="Merge this run into a baseline file: keep its entries (globs, reasons) outside the run, drop "
                   "those whose cases now pass, add new failures with a TODO reason; prints what it wrote.")
@click.option("--progress/--no-progress", default=None,
              help="Progress on stderr after 2 s (default on: a bar on a terminal, a line every 10 s otherwise).")
@click.option("--no-probe", is_flag=True,
              help="Do not probe. By default the smallest case of each (op, version, dtype) group left unsupported only "
                   "by an unclaimed dtype or version, and not explained by the adapter, runs to see whether it works.")
@click.option("--reading", "readings", multiple=True, metavar="NAME",
              help="Also accept the opt-in (literal) reading NAME of the spec's standards (e.g. onnx-function-body-literal); "
                   "repeat or comma-separate. Without it a failure that only such a reading explains says so.")
@click.option("--quiet", "-q", is_flag=True,
              help="No group table, probe list or profile; failures, xpasses, stale baseline entries, warnings and "
                   "the counts line are still printed.")
def run(adapter_name, op, standard, versions, dtype, case_globs, kind, corpus, shard, last_failed, exitfirst, isolate,
        timeout, profile_mode, json_path, junit_path, markdown_path, html_path, baseline_path, strict, write_baseline,
        progress, no_probe, readings, quiet):
    """Run the vector corpus through an adapter and judge every case."""
    from specgen.adapters.registry import AdapterLoadError, load
    from specgen.errors import SpecError
    from specgen.runner import baseline as bl
    from specgen.runner.cases import (CorpusError, Filters, data_problem, filter_problem, load_cases, parse_shard,
                                      select)
    from specgen.runner.cases import shard as take_shard
    from specgen.progress import Progress
    from specgen.runner.core import CorpusDataError, Runner
    from specgen.indexing.space import IndexSpaceError
    from specgen.spec.operators import load_operators

    if timeout is not None and timeout <= 0:
        _fail("--timeout must be positive", Exit.USAGE)
    shard_kn = None
    if shard:
        try:
            shard_kn = parse_shard(shard)
        except ValueError as exc:
            _fail(str(exc), Exit.USAGE)
    outputs = [(f"--{name}", path) for name, path in (("json", json_path), ("junit", junit_path),
                                                       ("markdown", markdown_path), ("html", html_path),
                                                       ("write-baseline", write_baseline)) if path]
    for name, path in outputs:
        problem = output_path_problem(path)
        if problem:
            _fail(f"{name} {path}: {problem}", Exit.USAGE)
    try:
        specs = load_operators()
    except (SpecError, FileNotFoundError, IndexSpaceError) as exc:
        for line in str(exc).splitlines():
            click.echo(line, err=True)
        _fail("the specs do not load; `specgen lint` lists every problem", Exit.USAGE)
    from specgen.numerics.readings import unknown_readings

    readings = _split(readings)
    unknown = unknown_readings(specs.values(), readings)
    if unknown:
        _fail(f"--reading: no standard of the specs declares reading(s) {', '.join(unknown)} "
              "(`specgen show OP` lists each standard's readings)", Exit.USAGE)
    filters = Filters(ops=_split(op), standards=_split(standard), versions=_split(versions), dtypes=_split(dtype),
                      cases=tuple(case_globs), kinds=tuple(kind))
    problem = filter_problem(filters, specs)
    if problem:
        _fail(problem, Exit.USAGE)
    baseline = None
    try:
        if baseline_path:
            baseline = bl.Baseline.load(baseline_path)
        previous = None  # what --write-baseline merges into
        if write_baseline and Path(write_baseline).exists():
            previous = bl.Baseline.load(write_baseline, placeholders_ok=True)
        elif write_baseline and baseline is not None:
            previous = baseline
    except bl.BaselineError as exc:
        _fail(str(exc), Exit.USAGE)
    try:
        loaded = load(adapter_name, specs)
    except AdapterLoadError as exc:
        _fail(str(exc), Exit.ADAPTER)
    if previous is not None and previous.adapter and previous.adapter != loaded.name:
        _fail(f"--write-baseline {write_baseline} is the baseline of adapter {previous.adapter!r}; not rewriting it "
              f"from a run of {loaded.name!r} (write to another file)", Exit.USAGE)
    try:
        every_case = load_cases(corpus, specs)
    except CorpusError as exc:
        _fail(str(exc), Exit.USAGE)
    problem = filter_problem(filters, specs, every_case)
    if problem:
        _fail(problem, Exit.USAGE)
    cases = select(every_case, filters)
    if last_failed:
        remembered = set(_read_last_failed().get(loaded.name, []))
        if remembered:
            cases = [c for c in cases if c.id in remembered]
            click.echo(f"run: --last-failed: {len(cases)} case(s) that failed last time", err=True)
        else:
            click.echo("run: --last-failed: no failure recorded for this adapter; running every selected case", err=True)
    if shard_kn:
        cases = take_shard(cases, *shard_kn)
    if not cases:
        _fail(f"no case matches ({filters.describe()}{', shard ' + shard if shard else ''})", Exit.NOTHING)
    problem = data_problem(cases)
    if problem:
        _fail(problem, Exit.USAGE)
    show = progress if progress is not None else True
    runner = Runner(loaded, specs, isolate=isolate, timeout=timeout, corpus=corpus,
                    progress=Progress(after=0.0 if progress else 2.0) if show else None, probe=not no_probe, exitfirst=exitfirst,
                    profile=profile_mode, readings=readings)
    description = filters.describe() + (f" shard {shard}" if shard else "") + (" last-failed" if last_failed else "")
    try:
        result = runner.run(cases, baseline=baseline, strict=strict, filters=description)
    except CorpusDataError as exc:
        _fail(f"{exc} (the corpus is broken, not the adapter; regenerate with `specgen generate`)", Exit.USAGE)
    click.echo(_render_terminal(result, quiet))
    if result.nothing_claimed and not result.interrupted:
        click.echo(f"run: the adapter claims none of the {len(result.results)} selected case(s): nothing was "
                   f"tested (exit {int(Exit.NOTHING)}); `specgen adapters {loaded.name}` shows its claims", err=True)
    _update_last_failed(result)
    unwritten = _write_reports(result, json_path, junit_path, markdown_path, html_path)
    if write_baseline:
        if result.interrupted or result.stopped_early:
            click.echo(f"run: --write-baseline {write_baseline} not written: the run did not finish", err=True)
        else:
            merged = bl.merge(result, previous, loaded.name)
            try:
                _write(write_baseline, merged.text)
                for line in merged.summary(write_baseline):
                    click.echo(line, err=True)
            except OSError as exc:
                click.echo(f"run: cannot write --write-baseline {write_baseline}: {exc.strerror or exc}", err=True)
                unwritten = True
    if result.interrupted:
        click.echo(f"run: interrupted after {len(result.results)} of {result.selected} cases "
                   f"(exit {int(Exit.INTERRUPTED)})", err=True)
    raise SystemExit(int(Exit.USAGE) if unwritten and not result.interrupted else int(result.exit_code()))


def _render_terminal(result, quiet: bool) -> str:
    from specgen.reports import terminal

    return terminal.render(result, quiet=quiet)


def _write_reports(result, json_path, junit_path, markdown_path, html_path) -> bool:
    """Write the requested reports; True when one could not be written (reported in one line)."""
    import importlib

    unwritten = False
    for name, path, module in (("--json", json_path, "json_report"), ("--junit", junit_path, "junit"),
                               ("--markdown", markdown_path, "markdown"), ("--html", html_path, "html")):
        if not path:
            continue
        render = importlib.import_module(f"specgen.reports.{module}").render
        try:
            _write(path, render(result))
        except OSError as exc:  # checked before the run, but the disk can still fill or change
            click.echo(f"run: cannot write {name} {path}: {exc.strerror or exc}", err=True)
            unwritten = True
    return unwritten


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
