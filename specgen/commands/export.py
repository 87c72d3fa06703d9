"""``specgen export --format onnx|npz --out DIR [filters]``: the corpus for other harnesses."""
from __future__ import annotations

from pathlib import Path

import click

from specgen.commands.specs_or_exit import load_specs_or_exit, specs_option
from specgen.exitcodes import Exit


@click.command("export")
@specs_option()
@click.option("--format", "fmt", type=click.Choice(["onnx", "npz"]), required=True,
              help="onnx: ONNX backend-test layout (needs the onnx package); npz: one .npz per case + manifest.json.")
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Directory to write.")
@click.option("--op", multiple=True, help="Operator id(s); repeat or comma-separate.")
@click.option("--standard", multiple=True, help="Standard key(s).")
@click.option("--version", "versions", multiple=True, help="Version(s) (* wildcard allowed).")
@click.option("--dtype", multiple=True, help="Tensor dtype(s).")
@click.option("--case", "case_globs", multiple=True, help="Case id(s) or pattern(s) (* is the only wildcard).")
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
@click.option("--replace", is_flag=True, default=False,
              help="Replace --out even if it is a non-empty folder that specgen export did not write.")
def export(fmt, out, op, standard, versions, dtype, case_globs, corpus, replace):
    """Write the corpus for harnesses that do not run Python (what each format loses: docs/vectors.md).

    The export owns --out: it is replaced as a whole (atomically), so no case of an earlier export
    stays behind; a non-empty folder that specgen export did not write is refused without --replace."""
    import importlib

    from specgen.commands.run import _split
    from specgen.exports import LOST
    from specgen.exports.folder import NotAnExportFolder, export_into
    from specgen.runner.cases import CorpusError, Filters, filter_problem, load_cases, select

    def fail(msg, code):
        click.echo(f"export: {msg}", err=True)
        raise SystemExit(int(code))

    specs = load_specs_or_exit("export", int(Exit.USAGE), operators=True)  # the accumulating operators too
    filters = Filters(ops=_split(op), standards=_split(standard), versions=_split(versions), dtypes=_split(dtype),
                      cases=tuple(case_globs))
    problem = filter_problem(filters, specs)
    if problem:
        fail(problem, Exit.USAGE)
    try:
        cases = select(load_cases(corpus, specs), filters)
    except CorpusError as exc:
        fail(str(exc), Exit.USAGE)
    if not cases:
        fail(f"no case matches ({filters.describe()})", Exit.NOTHING)
    if fmt == "onnx":
        try:
            import onnx  # noqa: F401
        except ImportError:
            fail("--format onnx needs the onnx package: pip install 'specgen[onnx]'", Exit.USAGE)
    module = importlib.import_module({"onnx": "specgen.exports.onnx_backend", "npz": "specgen.exports.npz"}[fmt])
    try:
        stats = export_into(Path(out), fmt, lambda folder: module.export(cases, specs, folder), replace=replace)
    except NotAnExportFolder as exc:
        fail(str(exc), Exit.USAGE)
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}", Exit.USAGE)
    click.echo(f"export: wrote {stats['written']} case(s) to {out} ({fmt})")
    for why, n in sorted(stats["skipped"].items()):
        click.echo(f"  skipped {n}: {why}")
    click.echo(f"  not carried: {LOST[fmt]}")
