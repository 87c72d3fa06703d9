"""Known failures: the CI gate's baseline file.

Format (YAML)::

    # adapter: onnxruntime        optional; the file is for this adapter only
    known_failures:
      - case: "hard_sigmoid/onnx-1/float16/*"      # a case-id glob (fnmatch)
        reason: "ORT cannot run float16 opset-1 models (inserted Cast is invalid at opset 1)"
      - case: "shrink/onnx-9/int32/rank4/breakpoints[bias=0.35,threshold=-0.65]"   # an exact id matches itself
        reason: "returns NaN for +inf"

Every entry needs a non-empty ``reason``. A failing (fail/error) case matching an entry becomes
*xfail*; a passing one becomes *xpass* (reported; a failure with ``--strict``). Entries that match
no case of the run are reported.
"""
from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from specgen.runner.core import FAILING, PASS, XFAIL, XPASS


class BaselineError(Exception):
    """The baseline file is malformed (exit code 2)."""


@dataclass
class Entry:
    pattern: str
    reason: str
    line: int | None = None
    matched: int = 0
    failing: int = 0

    def match(self, case_id: str) -> bool:
        # an exact id always matches itself, even with fnmatch metacharacters ([bias=0.35,...])
        return case_id == self.pattern or fnmatch.fnmatchcase(case_id, self.pattern)


@dataclass
class Baseline:
    entries: list[Entry]
    path: str = ""
    adapter: str | None = None
    unmatched: list[Entry] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path) -> "Baseline":
        p = Path(path)
        try:
            text = p.read_text()
        except OSError as exc:
            raise BaselineError(f"{path}: cannot read the baseline file: {exc.strerror or exc}") from exc
        return cls.parse(text, str(path))

    @classmethod
    def parse(cls, text: str, path: str = "<baseline>") -> "Baseline":
        try:
            nodes = yaml.compose(text)
            doc = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise BaselineError(f"{path}: not valid YAML: {exc}") from exc
        if doc is None:
            return cls([], path)
        if not isinstance(doc, dict):
            raise BaselineError(f"{path}: the top level must be a mapping with a 'known_failures' list")
        unknown = set(doc) - {"known_failures", "adapter"}
        if unknown:
            raise BaselineError(f"{path}: unknown key(s) {', '.join(sorted(map(str, unknown)))} "
                                f"(allowed: known_failures, adapter)")
        items = doc.get("known_failures") or []
        if not isinstance(items, list):
            raise BaselineError(f"{path}: known_failures must be a list")
        lines: list[int | None] = []
        try:
            for key, value in nodes.value:
                if key.value == "known_failures" and hasattr(value, "value") and isinstance(value.value, list):
                    lines = [n.start_mark.line + 1 for n in value.value]
        except Exception:  # pragma: no cover - positions are a nicety
            lines = []
        entries = []
        for i, item in enumerate(items):
            line = lines[i] if i < len(lines) else None
            where = f"{path}:{line}" if line else f"{path}: known_failures[{i}]"
            if not isinstance(item, dict):
                raise BaselineError(f"{where}: each entry must be a mapping with 'case' and 'reason'")
            extra = set(item) - {"case", "reason"}
            if extra:
                raise BaselineError(f"{where}: unknown key(s) {', '.join(sorted(map(str, extra)))} (allowed: case, reason)")
            pattern = item.get("case")
            reason = item.get("reason")
            if not isinstance(pattern, str) or not pattern.strip():
                raise BaselineError(f"{where}: 'case' (a case-id glob) is required")
            if not isinstance(reason, str) or not reason.strip():
                raise BaselineError(f"{where}: entry {pattern!r} has no reason; every known failure needs one")
            if reason.strip().upper().startswith("TODO"):
                raise BaselineError(f"{where}: entry {pattern!r} has a placeholder reason: "
                                    f"replace the TODO reason with why this failure is known")
            entries.append(Entry(pattern.strip(), " ".join(reason.split()), line))
        adapter = doc.get("adapter")
        return cls(entries, path, str(adapter) if adapter is not None else None)

    def find(self, case_id: str) -> Entry | None:
        for e in self.entries:
            if e.match(case_id):
                return e
        return None

    def apply(self, run) -> None:
        """Turn known failures into xfail and known failures that pass into xpass, in place."""
        for e in self.entries:
            e.matched = e.failing = 0
        if self.adapter and self.adapter != run.adapter:
            run.warnings.append(f"baseline {self.path} is for adapter {self.adapter!r}, not {run.adapter!r}")
        for r in run.results:
            e = self.find(r.case_id)
            if e is None:
                continue
            e.matched += 1
            if r.verdict in FAILING:
                e.failing += 1
                r.original_verdict, r.verdict, r.baseline = r.verdict, XFAIL, e.reason
            elif r.verdict == PASS:
                r.original_verdict, r.verdict, r.baseline = r.verdict, XPASS, e.reason
        self.unmatched = [e for e in self.entries if e.matched == 0]
        run.baseline_file = self.path
        run.baseline_unmatched = [{"case": e.pattern, "reason": e.reason, "line": e.line} for e in self.unmatched]


def from_results(results, adapter: str | None = None) -> str:
    """A baseline file (text) listing every failing case of a run, for a first gate. A case the run's
    baseline already explained keeps that reason; every other entry gets ``"TODO: <failure>"``,
    which loading refuses until a person writes why the failure is known."""
    from specgen.reports.common import shorten

    lines = ["# Known failures (specgen run --baseline). Every entry needs a reason: replace each",
             "# 'TODO: ...' with why the failure is known (a bug link, a decision); until then this",
             "# file is refused as a baseline."]
    if adapter:
        lines.append(f"adapter: {json.dumps(adapter)}")
    lines.append("known_failures:")
    failing = [r for r in results if r.verdict in FAILING or r.verdict == XFAIL]
    if not failing:
        lines[-1] = "known_failures: []"
    for r in failing:
        reason = r.baseline if r.baseline else f"TODO: {shorten(r.reason, 120)}"
        lines.append(f"  - case: {json.dumps(r.case_id, ensure_ascii=False)}")  # JSON strings are YAML strings
        lines.append(f"    reason: {json.dumps(reason, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"
