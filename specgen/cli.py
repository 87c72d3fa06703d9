"""The ``specgen`` command line. Each command lives in specgen/commands/<name>.py."""
from __future__ import annotations

import importlib

import click

from specgen import __version__

# (module, attribute) of each command; imported lazily so a missing optional dependency of one
# command never breaks the others.
COMMANDS = {
    "lint": ("specgen.commands.lint", "lint"),
    "generate": ("specgen.commands.generate", "generate"),
    "run": ("specgen.commands.run", "run"),
    "adapters": ("specgen.commands.adapters", "adapters"),
    "list": ("specgen.commands.list", "list_operators"),
    "show": ("specgen.commands.show", "show"),
    "sweep": ("specgen.commands.sweep", "sweep"),
    "sweep-merge": ("specgen.commands.sweep_merge", "sweep_merge"),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name]
        return getattr(importlib.import_module(module), attr)


@click.group(cls=_LazyGroup)
@click.version_option(__version__, prog_name="specgen")
def main():
    """specgen: operator standards made executable (lint, show, generate, run)."""


if __name__ == "__main__":  # pragma: no cover
    main()
