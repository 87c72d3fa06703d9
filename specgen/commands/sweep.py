"""``specgen sweep``: every input of a dtype (or a seeded float64 sample) through a backend.

Exit codes: 0 no failing input; 1 failing inputs; 2 usage error (bad option, a resume directory
of another sweep, an unwritable report path); 3 the adapter could not be loaded; 4 the adapter
does not claim what the sweep asks; 130 interrupted (Ctrl-C): what finished is in the resume
directory and the reports, marked partial.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from specgen.commands.specs_or_exit import specs_option
from specgen.exitcodes import Exit


def _use_golden_cache(ctx, param, value):
    if value:  # the sweep's worker processes read it from their environment
        from specgen.sweep import golden_cache

        os.environ[golden_cache.ENV] = str(Path(value).resolve())
    return value


def golden_cache_option():
    """The ``--golden-cache DIR`` option of sweep and matrix (envvar SPECGEN_GOLDEN_CACHE)."""
    return click.option("--golden-cache", type=click.Path(file_okay=False), envvar="SPECGEN_GOLDEN_CACHE",
                        show_envvar=True, expose_value=False, callback=_use_golden_cache,
                        help="Keep each chunk's golden values in this folder and read them back in later sweeps of "
                             "the same inputs (another backend): 4 bytes per float32 input, 16 GiB per every-input "
                             "sweep; delete it when done (docs/sweep.md).")

EXIT_ADAPTER, EXIT_NO_CASES, EXIT_USAGE = int(Exit.ADAPTER), int(Exit.NOTHING), int(Exit.USAGE)

EXIT_INTERRUPTED = int(Exit.INTERRUPTED)


def _write(path: str, text: str | bytes) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    tmp.write_text(text) if isinstance(text, str) else tmp.write_bytes(text)
    os.replace(tmp, p)


def write_reports(s, info, json_path, markdown_path, plot_path, command: str) -> bool:
    """Write the reports asked for; False (after a message) when one could not be written."""
    from specgen.sweep import report

    ok = True
    if plot_path and s is not None:
        try:
            Path(plot_path).parent.mkdir(parents=True, exist_ok=True)
            report.plot(s, plot_path)
        except ImportError:
            click.echo(f"{command}: the plot needs matplotlib: pip install 'specgen[plot]'", err=True)
            plot_path = None
        except OSError as exc:
            click.echo(f"{command}: cannot write --plot {plot_path}: {exc.strerror or exc}", err=True)
            ok, plot_path = False, None
        except Exception as exc:  # noqa: BLE001 - a plot that fails must not lose the other reports
            click.echo(f"{command}: the plot failed ({type(exc).__name__}: {exc}); the other reports are written",
                       err=True)
            plot_path = None
    for name, path, render in (("--json", json_path, lambda: report.render_json(s, info)),
                               ("--markdown", markdown_path,
                                lambda: report.markdown(s, info, _relative(plot_path, markdown_path)))):
        if not path:
            continue
        try:
            _write(path, render())
        except OSError as exc:
            click.echo(f"{command}: cannot write {name} {path}: {exc.strerror or exc}", err=True)
            ok = False
    return ok


def _relative(plot_path, markdown_path):
    if not plot_path or not markdown_path:
        return None
    return os.path.relpath(plot_path, Path(markdown_path).parent)


@click.command("sweep")
@specs_option()
@click.option("--adapter", "adapter_name", required=True, help="Adapter name (see `specgen adapters`) or module:Class.")
@click.option("--op", required=True, help="Operator id (hard_sigmoid).")
@click.option("--standard", default=None, help="Standard key (default: onnx where the op has it).")
@click.option("--version", "version", default=None, help="Version / opset / feature level (default: the latest).")
@click.option("--dtype", required=True, help="float16, bfloat16, float32 (every bit pattern) or float64 (a sample).")
@click.option("--attributes", default=None, help="name=value,... (operator's or standard's names); default: the standard's defaults.")
@click.option("--range", "ranges", multiple=True,
              help="LO:HI, inclusive bit patterns (hex or decimal); repeatable. Default: every bit pattern "
                   "(float64: the stratified sample).")
@click.option("--shard", default=None, help="K/N: run the K-th (1-based) of N equal parts of the chunk grid (CI matrix jobs).")
@click.option("--workers", type=int, default=None, help="Worker processes (default: the number of CPU cores; 0: in this process, no crash isolation).")
@click.option("--scheduler", default="local",
              help="local (a process pool), dask (a Dask LocalCluster) or a Dask scheduler address (tcp://host:8786).")
@click.option("--chunk-size", type=int, default=None, help="Inputs per chunk (default 262144; also the resume grain).")
@click.option("--samples", type=int, default=None, help="float64: values per (sign, exponent) stratum (default 64).")
@click.option("--seed", type=int, default=None, help="float64: the sample's seed (default 0).")
@click.option("--sample", is_flag=True, help="The stratified sample (--samples per binade) even for float16/bfloat16/float32.")
@click.option("--input", "extra_inputs", multiple=True,
              help="NAME=VALUE: hold a further tensor input at one value (PRelu: --input slope=0.25); repeatable.")
@click.option("--json", "json_path", type=click.Path(), help="Write the JSON report (sweep-merge reads these).")
@click.option("--markdown", "markdown_path", type=click.Path(), help="Write a Markdown report (and its PNG plot beside it).")
@click.option("--plot", "plot_path", type=click.Path(), help="Write the PNG plot here (default: beside --markdown).")
@click.option("--resume", type=click.Path(file_okay=False), help="Keep each finished chunk here; continue a sweep stopped before.")
@golden_cache_option()
@click.option("--ignore-claims", is_flag=True, help="Sweep even what the adapter does not claim.")
@click.option("--progress/--no-progress", default=None, help="Progress on stderr: a bar on a terminal, a line every 10 s otherwise (default: on).")
def sweep(adapter_name, op, standard, version, dtype, attributes, ranges, shard, workers, scheduler, chunk_size,
          samples, seed, sample, extra_inputs, json_path, markdown_path, plot_path, resume, ignore_claims, progress):
    """Sweep every input of a dtype through an adapter, in chunks, judged by the error model."""
    from specgen.adapters.registry import AdapterLoadError
    from specgen.commands.run import output_path_problem
    from specgen.sweep import report
    from specgen.sweep.execute import Progress, SweepBug
    from specgen.sweep.run import (DEFAULT_CHUNK, DEFAULT_SAMPLES, DEFAULT_SEED, NotClaimed, SweepUsageError,
                                   execute, parse_attributes, parse_shard, prepare)
    from specgen.sweep.summary import MergeError

    if markdown_path and not plot_path:
        plot_path = str(Path(markdown_path).with_suffix(".png"))
    for name, path in (("--json", json_path), ("--markdown", markdown_path), ("--plot", plot_path)):
        problem = path and output_path_problem(path)
        if problem:
            click.echo(f"sweep: {name} {path}: {problem}", err=True)
            raise SystemExit(EXIT_USAGE)
    if workers is not None and workers < 0:
        click.echo("sweep: --workers must be 0 (in this process, no crash isolation) or more", err=True)
        raise SystemExit(EXIT_USAGE)
    if chunk_size is not None and chunk_size < 1:
        click.echo("sweep: --chunk-size must be at least 1", err=True)
        raise SystemExit(EXIT_USAGE)
    if workers is None:
        workers = os.cpu_count() or 1
    try:
        attrs = parse_attributes(attributes)
        sh = parse_shard(shard)
        extra = parse_attributes(",".join(extra_inputs))
        if any(isinstance(v, str) for v in extra.values()):
            raise SweepUsageError("--input takes NAME=NUMBER")
        p = prepare(adapter_name, op, standard, version, dtype, attrs, list(ranges) or None,
                    chunk_size=chunk_size or DEFAULT_CHUNK, samples=samples or DEFAULT_SAMPLES,
                    seed=DEFAULT_SEED if seed is None else seed, ignore_claims=ignore_claims,
                    extra_inputs=extra, sample=sample)
    except SweepUsageError as exc:
        click.echo(f"sweep: {exc}", err=True)
        raise SystemExit(EXIT_USAGE)
    except AdapterLoadError as exc:
        click.echo(f"sweep: {exc}", err=True)
        raise SystemExit(EXIT_ADAPTER)
    except NotClaimed as exc:
        click.echo(f"sweep: {exc} (--ignore-claims sweeps it anyway)", err=True)
        raise SystemExit(EXIT_NO_CASES)
    show = True if progress is None else progress
    bar = (lambda total, done: Progress(total, sys.stderr, done=done)) if show else None
    log = (lambda m: click.echo(m, err=True))
    try:
        out = execute(p, workers=workers, scheduler=scheduler, shard=sh, resume=resume, progress=bar, log=log)
    except MergeError as exc:
        click.echo(f"sweep: {exc}", err=True)
        raise SystemExit(EXIT_USAGE)
    except ImportError as exc:
        click.echo(f"sweep: {exc}", err=True)
        raise SystemExit(EXIT_USAGE)
    except SweepBug as exc:
        click.echo(f"sweep: internal error: {exc}", err=True)
        raise SystemExit(EXIT_USAGE)
    s, info = out.summary, out.info
    click.echo(report.terminal(s, info))
    ok = write_reports(s, info, json_path, markdown_path, plot_path, "sweep")
    if out.interrupted:
        where = f"; finished chunks are in {resume} (run the same command to continue)" if resume else \
            " (give --resume DIR to keep finished chunks)"
        click.echo(f"sweep: interrupted{where}", err=True)
        raise SystemExit(EXIT_INTERRUPTED)
    if not ok:
        raise SystemExit(EXIT_USAGE)
    raise SystemExit(1 if s is not None and s.failures else 0)
