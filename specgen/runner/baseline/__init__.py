"""Known failures: the CI gate's baseline file, keyed by cause.

An entry selects cases (case-id patterns, op, standard, version, dtype, tags, attributes) and states
the failure's signature (``fails``: kinds and, for elements, input classes, a condition, a largest
error in ULP); a failing case becomes *xfail* only when every failing element is explained by an
entry selecting it. docs/runner.md ("Baselines") describes the format; the modules:

- ``model``: the file read into entries (schema: specgen/schemas/baseline.schema.json);
- ``elements``: failing elements against a signature (value classes, conditions, sizes);
- ``gate``: the run's verdicts under the baseline (xfail, new failures with the entry they
  escaped, fixed and unmatched entries);
- ``write``: signatures and selectors from a run, entries as text, ``--write-baseline``'s merge.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from specgen.runner.baseline.model import BaselineError, Clause, Entry, is_placeholder, parse_document, read_text
from specgen.runner.baseline.write import Merge, from_results, merge, render

__all__ = ["Baseline", "BaselineError", "Clause", "Entry", "Merge", "from_results", "is_placeholder", "merge",
           "read_text", "render"]


@dataclass
class Baseline:
    entries: list[Entry]
    path: str = ""
    adapter: str | None = None
    written_with: dict = field(default_factory=dict)
    text: str = ""
    unmatched: list[Entry] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path, placeholders_ok: bool = False) -> "Baseline":
        return cls.parse(read_text(path), str(path), placeholders_ok)

    @classmethod
    def parse(cls, text: str, path: str = "<baseline>", placeholders_ok: bool = False) -> "Baseline":
        """``placeholders_ok``: accept ``TODO`` reasons (merging, checking)."""
        entries, adapter, written = parse_document(text, path, placeholders_ok)
        return cls(entries, path, str(adapter) if adapter is not None else None, written, text)

    def selecting(self, case) -> list[Entry]:
        """The active entries that select ``case`` (a corpus case or a Result)."""
        return [e for e in self.entries if e.active and e.selects(case)]

    def find(self, case) -> Entry | None:
        """The first entry selecting ``case`` (a case, a Result, or a bare case id: then only the
        entries' case patterns are consulted)."""
        if isinstance(case, str):
            return next((e for e in self.entries if e.case and e.match(case)), None)
        return next(iter(self.selecting(case)), None)

    def explains(self, result) -> bool:
        """Whether the entries selecting ``result`` explain its whole failure."""
        from specgen.runner.baseline.gate import explain

        chosen = self.selecting(result)
        return bool(chosen) and explain(result, chosen).explained

    def apply(self, run) -> None:
        from specgen.runner.baseline.gate import apply

        apply(self, run)
