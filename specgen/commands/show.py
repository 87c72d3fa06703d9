"""``specgen show OP [--standard S]``: a spec rendered as a standard's own page (Markdown)."""
from __future__ import annotations

import click

from specgen.commands.specs_or_exit import load_specs_or_exit, specs_option
from specgen.render.show import UnknownName, render_operator


@click.command("show")
@specs_option()
@click.argument("op")
@click.option("--standard", "-s", "standard", metavar="S",
              help="Render only this standard's page (directml, onnx, onednn, ...).")
def show(op, standard):
    """Render operator OP as Markdown: every standard, or only --standard S in that standard's page shape."""
    specs = load_specs_or_exit("show", operators=True)
    spec = specs.get(op)
    if spec is None:
        by_name = {s.name.lower(): s for s in specs.values()}
        spec = by_name.get(op.lower())
    if spec is None:
        from specgen.spec.provenance import specs_in_use_note

        click.echo(f"show: unknown operator {op!r}; known: {', '.join(specs)} ({specs_in_use_note(specs)})", err=True)
        raise SystemExit(2)
    try:
        from specgen.spec.operators import ACCUMULATING, engine

        if engine(spec) == ACCUMULATING:
            from specgen.indexing.show import render

            click.echo(render(spec, standard), nl=False)
        else:
            click.echo(render_operator(spec, standard), nl=False)
    except UnknownName as exc:
        click.echo(f"show: {exc}", err=True)
        raise SystemExit(2) from None
