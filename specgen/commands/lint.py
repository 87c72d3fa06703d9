"""``specgen lint [PATH ...]``: validate spec files; one line per problem, exit 1 on any."""
from __future__ import annotations

from pathlib import Path

import click

from specgen.errors import Problem, SpecError
from specgen.generate.corpus import breakpoint_problems
from specgen.resources import specs_dir
from specgen.spec.loader import STANDARDS_FILE, check_file, load_standards, spec_files


def lint_paths(paths: list[str]) -> tuple[list[str], list[Problem]]:
    """Lint files and directories; returns (ids of valid specs, problems)."""
    targets: list[tuple[Path, str]] = []
    if not paths:
        base = specs_dir()
        targets = [(p, str(p)) for p in spec_files(base)]
        std_path = base / STANDARDS_FILE
    else:
        std_path = None
        for raw in paths:
            p = Path(raw)
            if p.is_dir():
                targets.extend((f, str(f)) for f in spec_files(p))
                if (p / STANDARDS_FILE).is_file():
                    std_path = p / STANDARDS_FILE
            else:
                targets.append((p, raw))
    try:
        standards = load_standards(std_path)
    except SpecError as exc:
        return [], exc.problems
    ok: list[str] = []
    problems: list[Problem] = []
    seen_ids: dict[str, str] = {}
    for path, display in targets:
        if not path.exists():
            problems.append(Problem(display, None, "", "no such file"))
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
                ok.append(spec.id)
    return ok, problems


@click.command("lint")
@click.argument("paths", nargs=-1, type=click.Path())
def lint(paths):
    """Validate spec files (default: the bundled specs/)."""
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
