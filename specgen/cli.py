"""The ``specgen`` command line. Each command lives in specgen/commands/<name>.py and is imported
only when it runs, so ``specgen --help`` imports click and nothing else of weight."""
from __future__ import annotations

import importlib
import sys

import click

from specgen import __version__

# name -> (module, attribute, one-line help shown by `specgen --help` without importing the module)
COMMANDS = {
    "adapters": ("specgen.commands.adapters", "adapters", "List installed adapters, their load status and claims."),
    "baseline": ("specgen.commands.baseline", "baseline", "Check, explain or prune a baseline file of known failures."),
    "cases": ("specgen.commands.cases", "cases", "List the case ids `run` would select (same filters)."),
    "coverage": ("specgen.commands.coverage", "coverage", "Which case classes the corpus holds per op, standard, version and dtype; exit 1 on a gap."),
    "export": ("specgen.commands.export", "export", "Write the corpus for other harnesses (ONNX backend tests, npz)."),
    "generate": ("specgen.commands.generate", "generate", "Write reference code, validation code and golden vectors."),
    "lint": ("specgen.commands.lint", "lint", "Validate spec files: FILE:LINE:COL: key.path: message."),
    "list": ("specgen.commands.list", "list_operators", "List operators, their standards and versions."),
    "run": ("specgen.commands.run", "run", "Run the vector corpus through an adapter and judge every case."),
    "show": ("specgen.commands.show", "show", "Render a spec as a standard's page."),
    "sweep": ("specgen.commands.sweep", "sweep", "Sweep every input of a 16/32-bit dtype (or a float64 sample) through an adapter."),
    "sweep-merge": ("specgen.commands.sweep_merge", "sweep_merge", "Combine the JSON results of sweep shards into one report."),
    "matrix": ("specgen.commands.matrix", "matrix", "Sweep every operator x backend x dtype and write the accuracy matrix (docs/accuracy.md)."),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[name]
        return getattr(importlib.import_module(module), attr)

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name and name not in COMMANDS and not name.startswith("-"):
            from specgen.text import did_you_mean

            ctx.fail(f"no such command {name!r}{did_you_mean(name, COMMANDS)}; commands: {', '.join(sorted(COMMANDS))}")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx, formatter):
        rows = [(name, COMMANDS[name][2]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup)
@click.version_option(__version__, prog_name="specgen")
def main():
    """specgen: operator standards made executable (lint, show, generate, run)."""


def entry() -> None:
    """The console script: Ctrl-C anywhere is exit 130 with one line, never a traceback (click's own
    handling would print "Aborted!" and exit 1, the code for "new failure")."""
    try:
        rv = main.main(standalone_mode=False)
    except (KeyboardInterrupt, click.exceptions.Abort):
        sys.stderr.write("\nspecgen: interrupted\n")
        sys.exit(130)
    except click.exceptions.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    entry()
