"""Known failures: the CI gate's baseline file.

Format (YAML)::

    adapter: onnxruntime        # optional; the file is for this adapter only
    known_failures:
      - case: "hard_sigmoid/onnx-1/float16/*"      # a case-id pattern: * is the only wildcard
        reason: "ORT cannot run float16 opset-1 models (inserted Cast is invalid at opset 1)"
      - case: "shrink/onnx-9/int32/rank4/breakpoints[bias=0.35,threshold=-0.65]"   # brackets are literal
        reason: "returns NaN for +inf"

Every entry needs a non-empty ``reason``. A failing (fail/error) case matching an entry becomes
*xfail*; a passing one becomes *xpass* (reported; a failure with ``--strict``). Entries that match
no case of the run are reported. Patterns follow specgen.patterns: ``*`` matches anything, every
other character (``[``, ``]``, ``?``) is literal, so an id never matches another case by accident.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from specgen.patterns import matches
from specgen.runner.verdicts import FAILING, PASS, XFAIL, XPASS


class BaselineError(Exception):
    """The baseline file is unreadable or malformed (exit code 2)."""


@dataclass
class Entry:
    pattern: str
    reason: str
    line: int | None = None
    matched: int = 0
    failing: int = 0

    def match(self, case_id: str) -> bool:
        return matches(case_id, self.pattern)


def read_text(path: str | Path, what: str = "baseline file") -> str:
    """The file's text as UTF-8 (a BOM is dropped); any problem is one line (BaselineError)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise BaselineError(f"{path}:{line}: the {what} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                            f"{exc.start}); save it as UTF-8") from None


@dataclass
class Baseline:
    entries: list[Entry]
    path: str = ""
    adapter: str | None = None
    unmatched: list[Entry] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path, placeholders_ok: bool = False) -> "Baseline":
        return cls.parse(read_text(path), str(path), placeholders_ok)

    @classmethod
    def parse(cls, text: str, path: str = "<baseline>", placeholders_ok: bool = False) -> "Baseline":
        """``placeholders_ok``: accept ``TODO`` reasons (when merging a file --write-baseline wrote)."""
        try:
            nodes = yaml.compose(text)
            doc = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else path
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise BaselineError(f"{where}: not valid YAML: {problem}") from None
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
                raise BaselineError(f"{where}: 'case' (a case-id pattern) is required")
            if not isinstance(reason, str) or not reason.strip():
                raise BaselineError(f"{where}: entry {pattern!r} has no reason; every known failure needs one")
            if not placeholders_ok and reason.strip().upper().startswith("TODO"):
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


HEADER = ["# Known failures (specgen run --baseline). Every entry needs a reason: replace each",
          "# 'TODO: ...' with why the failure is known (a bug link, a decision); until then this",
          "# file is refused as a baseline. `case` is a case id or a pattern (* is the only wildcard)."]


def render(entries: list[tuple[str, str]], adapter: str | None) -> str:
    """A baseline file's text for (pattern, reason) entries, in the order given."""
    lines = list(HEADER)
    if adapter:
        lines.append(f"adapter: {json.dumps(adapter)}")
    lines.append("known_failures:" if entries else "known_failures: []")
    for pattern, reason in entries:
        lines.append(f"  - case: {json.dumps(pattern, ensure_ascii=False)}")  # JSON strings are YAML strings
        lines.append(f"    reason: {json.dumps(reason, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"


@dataclass
class Merge:
    text: str
    kept: list[Entry]
    added: list[str]
    removed: list[Entry]

    def summary(self, path: str) -> list[str]:
        n = len(self.kept) + len(self.added)
        out = [f"wrote {path}: {n} entr{'y' if n == 1 else 'ies'} ({len(self.kept)} kept, {len(self.added)} added "
               f"with a TODO reason, {len(self.removed)} removed because their cases now pass)"]
        out += [f"  removed: {e.pattern} ({e.reason})" for e in self.removed]
        out += [f"  added: {i}" for i in self.added[:20]]
        if len(self.added) > 20:
            out.append(f"  ... and {len(self.added) - 20} more added")
        return out


def merge(run, existing: Baseline | None, adapter: str | None = None) -> Merge:
    """The baseline after this run: ``existing`` entries are kept (globs and reasons as written)
    unless every case of the run they match passed; entries matching no case of the run (outside
    its filters) are kept; failing cases no entry covers are added with ``TODO: <failure>``
    (or the reason the run's own baseline gave them)."""
    from specgen.text import shorten

    old = existing.entries if existing else []
    kept: list[Entry] = []
    removed: list[Entry] = []
    for e in old:
        hits = [r for r in run.results if e.match(r.case_id)]
        if hits and all(r.verdict in (PASS, XPASS) for r in hits):
            removed.append(e)
        else:
            kept.append(e)
    added: list[tuple[str, str]] = []
    for r in run.results:
        if r.verdict in FAILING or r.verdict == XFAIL:
            if any(e.match(r.case_id) for e in kept):
                continue
            added.append((r.case_id, r.baseline if r.baseline else f"TODO: {shorten(r.reason, 120)}"))
    entries = [(e.pattern, e.reason) for e in kept] + sorted(added)
    name = (existing.adapter if existing and existing.adapter else None) or adapter
    return Merge(render(entries, name), kept, [i for i, _ in sorted(added)], removed)


def from_results(results, adapter: str | None = None) -> str:
    """A fresh baseline file (text) listing every failing case of a run: a case the run's baseline
    explained keeps that reason; every other entry gets ``"TODO: <failure>"``."""
    from specgen.text import shorten

    entries = [(r.case_id, r.baseline if r.baseline else f"TODO: {shorten(r.reason, 120)}")
               for r in results if r.verdict in FAILING or r.verdict == XFAIL]
    return render(entries, adapter)
