"""The specs folder a command uses, the same for every command: ``--specs DIR`` or the environment
variable SPECGEN_SPECS (the option wins), else the bundled specs/. Load them, or print their
problems (as lint does) and exit 2, the usage/configuration exit code that ``run`` gives for the
same broken specs."""
from __future__ import annotations

import os
from pathlib import Path

import click

from specgen.errors import SpecError
from specgen.exitcodes import Exit
from specgen.resources import SPECS_ENV

SPECS_HELP = (f"Specs folder in use: its operators, standards and tolerances (default: ${SPECS_ENV}, else the "
              "bundled specs/). A corpus is judged only by the specs it was generated from.")


def _use_specs(ctx: click.Context, param, value):
    """Make the chosen folder the specs in use for this command: the library's defaults, the
    adapters, and the processes the command starts (isolated cases, sweep workers) all read
    SPECGEN_SPECS. Restored when the command ends (a command run in-process leaves no trace)."""
    if value is None:
        return None
    folder = str(Path(value).resolve())
    previous = os.environ.get(SPECS_ENV)
    os.environ[SPECS_ENV] = folder

    def restore():
        if previous is None:
            os.environ.pop(SPECS_ENV, None)
        else:
            os.environ[SPECS_ENV] = previous

    ctx.call_on_close(restore)
    return folder


def specs_option(expose: bool = False):
    """The ``--specs DIR`` option (envvar SPECGEN_SPECS). ``expose``: pass the folder (absolute, or
    None for the bundled specs) to the command as ``specs_dir``; commands that only load specs
    through the library's defaults leave it out."""
    return click.option("--specs", "specs_dir", type=click.Path(exists=True, file_okay=False), envvar=SPECS_ENV,
                        show_envvar=True, default=None, is_eager=True, expose_value=expose, callback=_use_specs,
                        help=SPECS_HELP)


def load_specs_or_exit(command: str, code: int = Exit.USAGE, operators: bool = False) -> dict:
    """The specs in use, or their problems (one line each) and exit ``code``. ``operators``: the
    accumulating specs too (specgen.spec.operators), for the commands that judge or list cases."""
    from specgen.indexing.space import IndexSpaceError
    from specgen.spec.loader import load_all
    from specgen.spec.operators import load_operators

    try:
        return load_operators() if operators else load_all()
    except (SpecError, FileNotFoundError, IndexSpaceError) as exc:
        for line in str(exc).splitlines():
            click.echo(line, err=True)
        chosen = os.environ.get(SPECS_ENV)
        click.echo(f"{command}: the specs do not load; `specgen lint{' ' + chosen if chosen else ''}` lists every "
                   f"problem", err=True)
        raise SystemExit(code) from None
