"""``specgen generate [--out DIR] [--check] [--exhaustive]``: write generated/ from the specs."""
from __future__ import annotations

import shlex
import shutil
import tempfile
from pathlib import Path

import click

from specgen.commands.specs_or_exit import specs_option
from specgen.errors import SpecError
from specgen.resources import repo_root


def _default_out() -> Path:
    root = repo_root()
    if root is None:
        raise click.UsageError("not in a specgen checkout: say where to write with --out DIR")
    return root / "generated"


def regenerate_command(out, specs_dir) -> str:
    """The command that brings ``out`` up to date, with the options the user gave."""
    parts = ["specgen generate"]
    if specs_dir:
        parts.append(f"--specs {shlex.quote(str(specs_dir))}")
    if out:
        parts.append(f"--out {shlex.quote(str(out))}")
    return " ".join(parts)


def run_check(out: Path, specs_dir, exhaustive: bool = False, fix: str = "specgen generate",
              progress=None) -> tuple[int, list[str]]:
    """(exit code, lines): 0 when ``out`` equals a fresh generation, else 1 with what differs."""
    from specgen.generate.tree import build, diff_trees
    tmp = Path(tempfile.mkdtemp(prefix="specgen-check-"))
    try:
        build(tmp / "generated", specs_dir, exhaustive=False, progress=progress)
        diff = diff_trees(tmp / "generated", out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total = sum(len(v) for v in diff.values())
    if not total:
        return 0, [f"generate --check: {out} is up to date"]
    lines = [f"generate --check: {out} is stale: {len(diff['changed'])} changed, {len(diff['added'])} missing, "
             f"{len(diff['removed'])} not generated any more (run `{fix}`)"]
    for kind, word in (("changed", "changed"), ("added", "missing"), ("removed", "extra")):
        for path in diff[kind][:10]:
            lines.append(f"  {word}: {path}")
        if len(diff[kind]) > 10:
            lines.append(f"  ... and {len(diff[kind]) - 10} more {word}")
    return 1, lines


@click.command("generate")
@specs_option(expose=True)
@click.option("--out", "out", type=click.Path(file_okay=False), default=None,
              help="directory to write (default: generated/ of the checkout)")
@click.option("--check", is_flag=True, help="regenerate to a temporary place; exit 1 if the output is stale")
@click.option("--exhaustive", is_flag=True, help="also write exhaustive/: every value of each 16-bit float dtype")
@click.option("--progress/--no-progress", default=True,
              help="Progress on stderr after 2 s (a bar on a terminal, a line every 10 s otherwise).")
def generate(out, specs_dir, check, exhaustive, progress):
    """Write reference code, validation code and golden vectors from the specs."""
    from specgen.generate.tree import NotAGeneratedTree, generate_into
    from specgen.progress import Progress

    target = Path(out) if out else _default_out()
    bar = Progress() if progress else None
    try:
        if check:
            code, lines = run_check(target, specs_dir, exhaustive, regenerate_command(out, specs_dir), bar)
            for line in lines:
                click.echo(line, err=code != 0)
            raise SystemExit(code)
        stats = generate_into(target, specs_dir, exhaustive=exhaustive, progress=bar)
    except NotAGeneratedTree as exc:
        click.echo(f"generate: {exc}", err=True)
        raise SystemExit(1)
    except SpecError as exc:
        for p in exc.problems:
            click.echo(str(p), err=True)
        click.echo(f"generate: {len(exc.problems)} problem(s) in the specs; {target} left as it was", err=True)
        raise SystemExit(1)
    click.echo(f"generate: wrote {target}: {stats.positive} positive and {stats.negative} negative cases, "
               f"{stats.elements} elements ({stats.proven_float64} proven in float64, {stats.exact} exact, "
               f"{stats.special} special)" + (", exhaustive/ included" if exhaustive else ""))
    if stats.left_out:
        click.echo(f"generate: {len(stats.left_out)} attribute-boundary case(s) left out, their golden values "
                   "undecidable: " + "; ".join(stats.left_out), err=True)
    if stats.unsolved:
        click.echo("generate: breakpoints not located (no designed boundary cases there): " + "; ".join(stats.unsolved), err=True)
