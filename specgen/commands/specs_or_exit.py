"""Load the bundled specs for a command, or print their problems (as lint does) and exit 2, the
usage/configuration exit code that ``run`` gives for the same broken specs."""
from __future__ import annotations

import click

from specgen.errors import SpecError
from specgen.exitcodes import Exit
from specgen.spec.loader import load_all


def load_specs_or_exit(command: str) -> dict:
    try:
        return load_all()
    except (SpecError, FileNotFoundError) as exc:
        for line in str(exc).splitlines():
            click.echo(line, err=True)
        click.echo(f"{command}: the specs do not load; `specgen lint` lists every problem", err=True)
        raise SystemExit(Exit.USAGE) from None
