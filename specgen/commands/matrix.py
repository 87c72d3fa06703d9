"""``specgen matrix``: the accuracy matrix, every sweepable operator x backend x dtype (docs/sweep.md,
"The accuracy matrix"). Runs the cells not yet in the results folder (resumable; ``--shard K/N``
for CI jobs; ``--scheduler`` as for ``specgen sweep``), then writes the Markdown page and JSON from
every cell the folder holds. ``--render-only`` only writes them.

Exit codes: 0 written; 2 usage error; 3 an adapter does not load.
"""
from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

import click

from specgen.commands.specs_or_exit import specs_option
from specgen.commands.sweep import golden_cache_option
from specgen.exitcodes import Exit


@click.command("matrix")
@specs_option()
@click.option("--adapter", "adapters", multiple=True,
              help="NAME or NAME@STANDARD (webnn-chromium@webnn); repeatable. Default: onnxruntime, onnx-reference, torch.")
@click.option("--dtype", "dtypes", multiple=True, help="Repeatable; default float16 and bfloat16.")
@click.option("--sample-dtype", "sample_dtypes", multiple=True,
              help="Sweep this dtype by the stratified sample instead of every bit pattern (float32 for a quick matrix).")
@click.option("--samples", type=int, default=4096, show_default=True, help="Sampled dtypes: values per (sign, exponent) binade.")
@click.option("--ops", default="", help="Comma-separated operator ids (default: every sweepable one).")
@click.option("--results", type=click.Path(file_okay=False), default="docs/accuracy", show_default=True,
              help="Folder of the cells' JSON and PNG (and .chunks/, the resume grain of 32-bit sweeps).")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False), default="docs/accuracy.md", show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default="docs/accuracy.json", show_default=True)
@click.option("--shard", default=None, help="K/N: run every N-th cell starting at the K-th (CI jobs); rendering reads all present.")
@click.option("--workers", type=int, default=None, help="Worker processes per sweep (default: the number of cores; 0: in this process).")
@click.option("--scheduler", default="local", help="local, dask, or a Dask scheduler address (tcp://host:8786).")
@golden_cache_option()
@click.option("--render-only", is_flag=True, help="Write the page and JSON from the results folder; run nothing.")
@click.option("--plots/--no-plots", default=True, help="A thumbnail PNG per cell (needs matplotlib).")
def matrix(adapters, dtypes, sample_dtypes, samples, ops, results, markdown_path, json_path, shard, workers, scheduler,
           render_only, plots):
    """Sweep every operator x backend x dtype; write docs/accuracy.md and docs/accuracy.json."""
    from specgen.adapters.registry import AdapterLoadError
    from specgen.spec.loader import load_all
    from specgen.sweep import matrix as M
    from specgen.sweep import matrix_page
    from specgen.sweep.run import SweepUsageError, parse_shard

    root = Path(results)
    command = "specgen matrix " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if len(sys.argv) > 2 else "specgen matrix"
    if not render_only:
        try:
            sh = parse_shard(shard)
        except SweepUsageError as exc:
            click.echo(f"matrix: {exc}", err=True)
            raise SystemExit(int(Exit.USAGE))
        specs = load_all()
        wanted = {o.strip() for o in ops.split(",") if o.strip()} or None
        unknown = sorted((wanted or set()) - set(specs))
        if unknown:
            click.echo(f"matrix: unknown operator(s) {', '.join(unknown)}", err=True)
            raise SystemExit(int(Exit.USAGE))
        cells = M.plan(specs, list(adapters) or ["onnxruntime", "onnx-reference", "torch"],
                       list(dtypes) or ["float16", "bfloat16"], set(sample_dtypes), wanted)
        if sh:
            cells = M.shard(cells, *sh)
        todo = [c for c in cells if not M.is_done(c, root, specs)]
        click.echo(f"matrix: {len(cells)} cells, {len(cells) - len(todo)} already done, {len(todo)} to run", err=True)
        loaded: dict = {}
        w = os.cpu_count() or 1 if workers is None else workers
        broken: list[str] = []
        for i, cell in enumerate(todo, 1):
            t0 = time.perf_counter()
            try:
                out = M.run_cell(cell, root, specs, loaded, workers=w, scheduler=scheduler, samples=samples, plots=plots)
            except AdapterLoadError as exc:
                click.echo(f"matrix: {exc}", err=True)
                raise SystemExit(int(Exit.ADAPTER))
            except KeyboardInterrupt:
                click.echo("matrix: interrupted; finished cells are kept, run again to continue", err=True)
                break
            except Exception as exc:  # noqa: BLE001 - one cell the engine cannot sweep: say which, go on
                if os.environ.get("SPECGEN_TRACEBACK"):
                    raise
                name = f"{cell.dtype} {cell.adapter} {cell.unit.label}"
                broken.append(name)
                click.echo(f"[{i}/{len(todo)}] {name}: not swept: {type(exc).__name__}: {exc} "
                           "(SPECGEN_TRACEBACK=1 shows where)", err=True)
                continue
            if out.get("info", {}).get("interrupted"):
                click.echo(f"matrix: interrupted in {cell.dtype} {cell.adapter} {cell.unit.label}; its finished chunks "
                           f"are in {cell.chunks(root)}, run again to continue", err=True)
                break
            state = out["status"] if out["status"] != "swept" else \
                f"{out['summary']['failures']:,} of {out['summary']['total']:,} failing"
            click.echo(f"[{i}/{len(todo)}] {cell.dtype} {cell.adapter} {cell.unit.label}: {state} "
                       f"({time.perf_counter() - t0:.1f} s)", err=True)
    if render_only:
        specs = load_all()
    matrix_page.write(root, Path(markdown_path), Path(json_path) if json_path else None, command, specs)
    click.echo(f"matrix: wrote {markdown_path}" + (f" and {json_path}" if json_path else ""), err=True)
    if not render_only and broken:
        click.echo(f"matrix: {len(broken)} cell(s) not swept (above); the others are written", err=True)
        raise SystemExit(int(Exit.FAILURES))
