"""``specgen baseline check|explain|prune``: keep a baseline of known failures honest.

``check FILE`` validates the file (any problem: one line naming FILE:LINE:COLUMN and the key, exit
2) and flags entries with a TODO reason, entries selecting no case of the corpus, and entries that
overlap (they select a common case and their signatures can explain the same element), exit 1 when
it flags any. ``explain FILE CASE`` runs one case through the file's adapter and shows which entry
explains each failing element (or that it is new, and which entry it escaped). ``prune FILE``
removes the entries selecting no case (the rest of the text is kept). Entries that no longer explain
a failure are removed by ``specgen run --write-baseline FILE``, which needs a run.
"""
from __future__ import annotations

import click

from specgen.commands.specs_or_exit import load_specs_or_exit, specs_option
from specgen.exitcodes import Exit


@click.group("baseline")
def baseline():
    """Check, explain or prune a baseline file of known failures."""


def _load(path, corpus, standards=()):
    from specgen.runner.baseline import Baseline, BaselineError
    from specgen.runner.cases import CorpusError, load_cases

    try:
        b = Baseline.load(path, placeholders_ok=True)
    except BaselineError as exc:
        click.echo(f"baseline: {exc}", err=True)
        raise SystemExit(int(Exit.USAGE))
    try:
        cases = [c for c in load_cases(corpus, load_specs_or_exit("baseline", int(Exit.USAGE), operators=True))
                 if not standards or c.standard in standards]
    except CorpusError as exc:
        click.echo(f"baseline: {exc}", err=True)
        raise SystemExit(int(Exit.USAGE))
    selected = {id(e): [c for c in cases if e.selects(c)] for e in b.entries}
    stale = [e for e in b.entries if not selected[id(e)]]
    return b, cases, selected, stale


def overlaps(entries, selected) -> list[tuple]:
    """(entry, entry, cases in common) for entries selecting a common case whose signatures meet."""
    from specgen.runner.baseline.elements import signatures_meet

    out = []
    for i, a in enumerate(entries):
        ids_a = {c.id for c in selected[id(a)]}
        for b in entries[i + 1:]:
            if not ids_a or not signatures_meet(a, b):
                continue
            common = ids_a & {c.id for c in selected[id(b)]}
            if common:
                out.append((a, b, len(common)))
    return out


@baseline.command("check")
@specs_option()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
@click.option("--standard", multiple=True, help="Only the cases of these standards (as the gate's run: webnn-chromium gates webnn).")
def check(path, corpus, standard):
    """Validate FILE; flag TODO reasons, entries selecting no case, overlapping entries (exit 1 if any)."""
    from specgen.runner.baseline import is_placeholder

    b, _, selected, stale = _load(path, corpus, tuple(standard))
    covered = {c.id for e in b.entries for c in selected[id(e)]}
    click.echo(f"{path}: {len(b.entries)} entries selecting {len(covered)} case(s)"
               + (f", adapter {b.adapter}" if b.adapter else "")
               + (f", written with {', '.join(f'{k} {v}' for k, v in b.written_with.items())}" if b.written_with else ""))
    flagged = 0
    for e in b.entries:
        if is_placeholder(e.reason):
            flagged += 1
            click.echo(f"  todo: {path}:{e.line}: {e.name}: the reason is a placeholder ({e.reason[:80]})")
    for e in stale:
        flagged += 1
        click.echo(f"  stale: {path}:{e.line}: {e.name!r} matches no case of the corpus ({e.selection()})")
    for a, c, n in overlaps(b.entries, selected):
        flagged += 1
        click.echo(f"  overlap: {path}:{a.line} {a.name} and {path}:{c.line} {c.name}: {n} case(s) selected by both, "
                   f"signatures that can explain the same element (narrow one: selectors, inputs, where)")
    raise SystemExit(int(Exit.FAILURES if flagged else Exit.OK))


@baseline.command("explain")
@specs_option()
@click.argument("path", type=click.Path(dir_okay=False))
@click.argument("case_id")
@click.option("--adapter", "adapter_name", default=None, help="Adapter (default: the file's adapter).")
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
def explain_case(path, case_id, adapter_name, corpus):
    """Run CASE_ID and show which entry of FILE explains each failing element (exit 1: some is new)."""
    from specgen.adapters.registry import AdapterLoadError, load
    from specgen.runner.baseline import Baseline, BaselineError
    from specgen.runner.baseline.gate import explain
    from specgen.runner.cases import CorpusError, load_cases
    from specgen.runner.core import Runner
    from specgen.runner.verdicts import FAILING
    specs = load_specs_or_exit("baseline", int(Exit.USAGE), operators=True)
    try:
        b = Baseline.load(path, placeholders_ok=True)
        cases = [c for c in load_cases(corpus, specs) if c.id == case_id]
    except (BaselineError, CorpusError) as exc:
        click.echo(f"baseline: {exc}", err=True)
        raise SystemExit(int(Exit.USAGE))
    if not cases:
        click.echo(f"baseline: no case {case_id!r} in the corpus", err=True)
        raise SystemExit(int(Exit.NOTHING))
    name = adapter_name or b.adapter
    if not name:
        click.echo(f"baseline: {path} names no adapter; give --adapter", err=True)
        raise SystemExit(int(Exit.USAGE))
    try:
        loaded = load(name, specs)
    except AdapterLoadError as exc:
        click.echo(f"baseline: {exc}", err=True)
        raise SystemExit(int(Exit.ADAPTER))
    result = Runner(loaded, specs, corpus=corpus, probe=False).run(cases).results[0]
    chosen = b.selecting(result)
    click.echo(f"{case_id}: {result.verdict} ({result.reason})")
    click.echo(f"selected by: {', '.join(f'{e.name} (line {e.line})' for e in chosen) or 'no entry'}")
    if result.verdict not in FAILING:
        raise SystemExit(int(Exit.OK))
    ex = explain(result, chosen, listing=True)
    for element, who in ex.elements:
        click.echo(f"  {element}: {who}")
    if ex.new:
        click.echo("new: " + "; ".join(ex.new))
    raise SystemExit(int(Exit.OK if ex.explained else Exit.FAILURES))


@baseline.command("prune")
@specs_option()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
def prune(path, corpus):
    """Remove entries of FILE that select no case of the corpus; print what was removed."""
    from pathlib import Path

    from specgen.runner.baseline.write import edit_text

    b, _, _, stale = _load(path, corpus)
    Path(path).write_text(edit_text(b.text, stale, [], {}), encoding="utf-8")
    click.echo(f"wrote {path}: {len(b.entries) - len(stale)} entries kept, {len(stale)} removed")
    for e in stale:
        click.echo(f"  removed: {e.pattern} ({e.reason})")
