"""``specgen list``: the operators, with their standards and the versions each standard has."""
from __future__ import annotations

import click

from specgen.commands.specs_or_exit import load_specs_or_exit, specs_option


def operator_rows(specs) -> list[tuple[str, str, str]]:
    return [(spec.id, spec.name,
             "; ".join(f"{key} ({', '.join(std.version_ids)})" for key, std in spec.standards.items()))
            for spec in specs.values()]


def accumulating_rows() -> list[tuple[str, str, str]]:
    """The accumulating operators of the specs in use (their accumulating/ subfolder, read by
    specgen.indexing: judged by the run harness and the gate, not yet generated into the corpus)."""
    from specgen.indexing.spec import load_all
    from specgen.resources import specs_in_use

    folder = specs_in_use() / "accumulating"
    if not folder.is_dir():
        return []
    return [(spec.id, spec.name, "; ".join(f"{key} ({', '.join(v.version for v in std.versions)})"
                                           for key, std in spec.standards.items()))
            for spec in load_all(folder).values()]


@click.command("list")
@specs_option()
def list_operators():
    """List operators with their standards and versions (then the accumulating ones, after a blank line)."""
    header = ("OPERATOR", "NAME", "STANDARDS (VERSIONS)")
    rows = [header] + operator_rows(load_specs_or_exit("list"))
    extra = accumulating_rows()
    every = rows + extra
    widths = [max(len(r[i]) for r in every) for i in range(2)]
    for op_id, name, standards in rows:
        click.echo(f"{op_id:<{widths[0]}}  {name:<{widths[1]}}  {standards}")
    if extra:
        click.echo("")
        click.echo("accumulating operators (specs/accumulating; python -m specgen.indexing.gate, docs/accumulation.md):")
        for op_id, name, standards in extra:
            click.echo(f"{op_id:<{widths[0]}}  {name:<{widths[1]}}  {standards}")
