"""``specgen list``: the operators, with their standards and the versions each standard has."""
from __future__ import annotations

import click

from specgen.commands.specs_or_exit import load_specs_or_exit, specs_option


def operator_rows(specs) -> list[tuple[str, str, str]]:
    return [(spec.id, spec.name,
             "; ".join(f"{key} ({', '.join(std.version_ids)})" for key, std in spec.standards.items()))
            for spec in specs.values()]


@click.command("list")
@specs_option()
def list_operators():
    """List operators with their standards and versions (the accumulating ones of specs/accumulating included)."""
    header = ("OPERATOR", "NAME", "STANDARDS (VERSIONS)")
    rows = [header] + operator_rows(load_specs_or_exit("list", operators=True))
    widths = [max(len(r[i]) for r in rows) for i in range(2)]
    for op_id, name, standards in rows:
        click.echo(f"{op_id:<{widths[0]}}  {name:<{widths[1]}}  {standards}")
