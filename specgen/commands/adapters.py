"""``specgen adapters``: the installed adapters, their load status and what each claims."""
from __future__ import annotations

import json

import click

from specgen.commands.specs_or_exit import specs_option


@click.command("adapters")
@specs_option()
@click.argument("names", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def adapters(names, as_json):
    """List installed adapters (entry-point group specgen.adapters) and their claims.

    Exit 0 when every listed adapter loads or is merely not installed; 3 when one is broken or
    incomplete (or a named one is unknown)."""
    from specgen.adapters.registry import NOT_INSTALLED, AdapterLoadError, discover, entry

    entries = discover()
    targets = list(names) or list(entries)
    rows = []
    code = 0
    for name in targets:
        try:
            e = entries[name] if name in entries else entry(name)
            loaded = e.load()
            rows.append({"name": name, "value": e.value, "dist": e.dist, "status": "ok",
                         "backend_version": loaded.backend_version,
                         "description": getattr(loaded.adapter, "description", "") or "",
                         "claims": [c.describe() for c in loaded.claims], "problems": [], "warnings": loaded.warnings})
        except AdapterLoadError as exc:
            if exc.status != NOT_INSTALLED:
                code = 3
            rows.append({"name": name, "value": exc.value, "dist": entries[name].dist if name in entries else "",
                         "status": exc.status, "backend_version": "", "description": "", "claims": [],
                         "problems": exc.problems, "warnings": []})
    if as_json:
        click.echo(json.dumps(rows, indent=1, sort_keys=True))
        raise SystemExit(code)
    if not rows:
        click.echo("no adapters installed (entry-point group specgen.adapters)")
    for row in rows:
        head = f"{row['name']}: {row['status']}"
        if row["backend_version"]:
            head += f", {row['backend_version']}"
        if row["value"]:
            head += f"  [{row['value']}{' from ' + row['dist'] if row['dist'] else ''}]"
        click.echo(head)
        if row["description"]:
            click.echo(f"  {row['description']}")
        for p in row["problems"]:
            click.echo(f"  problem: {p}")
        for w in row["warnings"]:
            click.echo(f"  warning: {w}")
        for c in row["claims"]:
            click.echo(f"  claims: {c}")
    raise SystemExit(code)
