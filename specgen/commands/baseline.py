"""``specgen baseline check|prune FILE``: keep a baseline of known failures honest.

``check`` parses the file as ``run --baseline`` does (any problem: one line, exit 2) and lists
entries that match no case of the corpus (exit 1 when there are some). ``prune`` removes those
entries and rewrites the file (reasons and patterns of the others kept). Entries whose cases now
pass are removed by ``specgen run --write-baseline FILE``, which needs a run.
"""
from __future__ import annotations

import click

from specgen.commands.specs_or_exit import load_specs_or_exit, specs_option
from specgen.exitcodes import Exit


@click.group("baseline")
def baseline():
    """Check or prune a baseline file of known failures."""


def _load(path, corpus, placeholders_ok=False):
    from specgen.runner.baseline import Baseline, BaselineError
    from specgen.runner.cases import CorpusError, load_cases

    try:
        b = Baseline.load(path, placeholders_ok=placeholders_ok)
    except BaselineError as exc:
        click.echo(f"baseline: {exc}", err=True)
        raise SystemExit(int(Exit.USAGE))
    try:
        ids = [c.id for c in load_cases(corpus, load_specs_or_exit("baseline", int(Exit.USAGE)))]
    except CorpusError as exc:
        click.echo(f"baseline: {exc}", err=True)
        raise SystemExit(int(Exit.USAGE))
    stale = [e for e in b.entries if not any(e.match(i) for i in ids)]
    return b, ids, stale


@baseline.command("check")
@specs_option()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
def check(path, corpus):
    """Validate FILE and list entries that match no case of the corpus (exit 1 if any)."""
    b, ids, stale = _load(path, corpus)
    counts = [sum(1 for i in ids if e.match(i)) for e in b.entries]
    click.echo(f"{path}: {len(b.entries)} entries covering {sum(counts)} case(s)"
               + (f", adapter {b.adapter}" if b.adapter else ""))
    for e in stale:
        click.echo(f"  stale: {path}:{e.line}: {e.pattern!r} matches no case of the corpus")
    raise SystemExit(int(Exit.FAILURES if stale else Exit.OK))


@baseline.command("prune")
@specs_option()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
def prune(path, corpus):
    """Remove entries of FILE that match no case of the corpus; print what was removed."""
    from pathlib import Path

    from specgen.runner.baseline import render

    b, _, stale = _load(path, corpus, placeholders_ok=True)
    keep = [(e.pattern, e.reason) for e in b.entries if e not in stale]
    Path(path).write_text(render(keep, b.adapter), encoding="utf-8")
    click.echo(f"wrote {path}: {len(keep)} entries kept, {len(stale)} removed")
    for e in stale:
        click.echo(f"  removed: {e.pattern} ({e.reason})")
