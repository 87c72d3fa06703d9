"""``specgen lint [PATH ...]``: validate spec files; one line per problem, exit 1 on any."""
from __future__ import annotations

from pathlib import Path

import click

from specgen.commands.specs_or_exit import specs_option
from specgen.errors import Problem, SpecError
from specgen.generate.corpus import breakpoint_problems
from specgen.indexing.spec import load as load_accumulating_spec
from specgen.resources import specs_in_use
from specgen.spec import semantic
from specgen.spec.loader import STANDARDS_FILE, check_file, load_standards, spec_files
from specgen.spec.operators import ACCUMULATING


def lint_paths(paths: list[str]) -> tuple[list[str], list[Problem]]:
    """Lint files and directories; returns (ids of valid specs, problems)."""
    targets: list[tuple[Path, str]] = []
    early: list[Problem] = []
    if not paths:
        base = specs_in_use()
        targets = [(p, str(p)) for p in spec_files(base) + spec_files(base / ACCUMULATING)]
        std_path = base / STANDARDS_FILE
    else:
        std_path = None
        for raw in paths:
            p = Path(raw)
            if p.is_dir():
                found = spec_files(p) + spec_files(p / ACCUMULATING)
                outside = [semantic.outside_directory(f, p) for f in found]
                early.extend(o for o in outside if o is not None)
                targets.extend((f, str(f)) for f, o in zip(found, outside) if o is None)
                if p.name == ACCUMULATING and not (p / STANDARDS_FILE).exists():
                    continue  # an accumulating/ folder itself: its specs need no standards file
                try:
                    std_path = semantic.standards_file(p)  # never a silent fallback to the bundled one
                except SpecError as exc:
                    return [], exc.problems
            else:
                targets.append((p, raw))
    try:
        standards = load_standards(std_path)
    except SpecError as exc:
        return [], exc.problems
    accumulating: list[str] = []  # ids of the valid accumulating specs (their own format: specgen.indexing.spec.load)
    problems: list[Problem] = list(early)
    seen_ids: dict[str, str] = {}
    valid: dict[str, object] = {}
    for path, display in targets:
        if not path.exists():
            problems.append(Problem(display, None, "", "no such file"))
            continue
        if path.parent.name == ACCUMULATING:  # reductions, softmax, contractions: their own format
            try:
                acc = load_accumulating_spec(path, display)
            except SpecError as exc:
                problems.extend(exc.problems)
                continue
            if acc.id in seen_ids:
                problems.append(Problem(display, None, "id", f"id {acc.id!r} is also used by {seen_ids[acc.id]}"))
                continue
            seen_ids[acc.id] = display
            accumulating.append(acc.id)
            continue
        spec, found = check_file(path, standards, display)
        problems.extend(found)
        if spec is not None:
            if spec.id in seen_ids:
                problems.append(Problem(display, None, "id", f"id {spec.id!r} is also used by {seen_ids[spec.id]}"))
                continue
            seen_ids[spec.id] = display
            unlocated = breakpoint_problems(spec)
            problems.extend(Problem(display, None, "formula", msg) for msg in unlocated)
            if not unlocated:
                valid[display] = spec
    duplicates = semantic.check_unique(valid)
    problems.extend(duplicates)
    bad = {p.file for p in duplicates}
    return [spec.id for d, spec in valid.items() if d not in bad] + accumulating, problems


@click.command("lint")
@specs_option()
@click.argument("paths", nargs=-1, type=click.Path())
def lint(paths):
    """Validate spec files (default: the specs in use: --specs, $SPECGEN_SPECS, else the bundled specs/)."""
    ok, problems = lint_paths(list(paths))
    if problems:
        for p in problems:
            click.echo(str(p))
        click.echo(f"lint: {len(problems)} problem(s) in {len({p.file for p in problems})} file(s)", err=True)
        raise SystemExit(1)
    if not ok:
        click.echo("lint: no spec files found", err=True)
        raise SystemExit(1)
    click.echo(f"lint: {len(ok)} spec(s) OK ({', '.join(ok)})")
