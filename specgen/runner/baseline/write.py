"""Writing baselines: the signature that covers a set of failures, the selectors that pick their
cases out of a run, entries as YAML text, and the merge of a run into an existing file that keeps
its text (comments, reasons, order) and only removes fixed entries and appends new ones."""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field

import numpy as np
import yaml

from specgen.runner.baseline import elements as el
from specgen.runner.baseline.gate import case_kinds, explain
from specgen.runner.baseline.model import MEASURED_KINDS, Clause, Entry, same_value
from specgen.runner.verdicts import FAILING, XFAIL, Cause

HEADER = ["# Known failures (specgen run --baseline), one entry per cause: which cases it selects, the",
          "# failure's signature (fails:) and why (reason: what the backend does. What to do: ...).",
          "# Replace each 'TODO' reason; until then this file is refused as a baseline. docs/runner.md",
          "# describes the format; specgen/schemas/baseline.schema.json is its schema."]
COARSE = (({"+inf", "-inf"}, "inf"), ({"+0", "-0"}, "zero"))
CLASS_ORDER = ("nan", "inf", "+inf", "-inf", "zero", "+0", "-0", "subnormal", "normal")


def round_up(v: float) -> float:
    """``v`` rounded up to two significant digits (a signature's max_ulp)."""
    if v <= 0:
        return 0.0
    step = 10.0 ** (math.floor(math.log10(v)) - 1)
    out = math.ceil(v / step - 1e-9) * step
    return float(f"{out:.2g}") if out < 100 else float(round(out))


def _coarse(classes: set) -> list[str]:
    out = set(classes)
    for members, name in COARSE:
        if members <= out:
            out = (out - members) | {name}
    return sorted(out, key=CLASS_ORDER.index)


@dataclass
class _Bucket:
    inputs: dict = field(default_factory=dict)  # input name -> set of fine classes
    error: float = 0.0
    unbounded: bool = False  # an error of infinite ULPs (a non-zero result where zero is exact)

    def max_ulp(self, kind: str) -> float | None:
        return round_up(self.error) if kind in MEASURED_KINDS and not self.unbounded else None


def signature(items) -> list[Clause]:
    """The fewest clauses that explain every failure of ``items`` ((result, masks) pairs; masks:
    output name -> the elements to cover, or None for all): per kind, elements with a special input
    (NaN, inf, zero, subnormal) get a clause on those inputs' classes, the others one bounded by the
    largest error (rounded up to two digits)."""
    buckets: dict[tuple[str, bool], _Bucket] = {}
    case_level: list[str] = []
    for result, masks in items:
        failing = getattr(result, "failing", None) or {}
        if result.cause != Cause.OUT_OF_BOUND or not failing:
            case_level += [k for k in case_kinds(result) if k not in case_level]
            continue
        for output, f in failing.items():
            keep = masks.get(output) if masks else None
            idx = np.flatnonzero(keep) if keep is not None else np.arange(len(f))
            classes = {k: el.value_classes(v, result.dtype) for k, v in f.inputs.items()}
            for j in idx:
                kind = f.kind[j]
                special = any(c[j] in el.SPECIAL_CLASSES for c in classes.values())
                b = buckets.setdefault((kind, special), _Bucket())
                for name, c in classes.items():
                    b.inputs.setdefault(name, set()).add(c[j])
                err = float(f.error[j])
                if math.isfinite(err):
                    b.error = max(b.error, err)
                else:
                    b.unbounded = True
    clauses: list[Clause] = []
    finite_rest: dict[str, _Bucket] = {}
    # kinds whose clause without inputs explains every element of the kind (no size bound)
    unbounded = {k for (k, special), b in buckets.items() if not special and (k not in MEASURED_KINDS or b.unbounded)}
    for (kind, special), b in sorted(buckets.items()):
        if special and kind not in unbounded:  # (a clause without inputs covers those of its kind anyway)
            constrained = {n: tuple(_coarse(c)) for n, c in b.inputs.items() if c <= set(el.SPECIAL_CLASSES)}
            if constrained:
                clauses.append(Clause((kind,), constrained, None, b.max_ulp(kind)))
                continue
        rest = finite_rest.setdefault(kind, _Bucket())
        rest.error = max(rest.error, b.error)
        rest.unbounded |= b.unbounded
    for kind, b in sorted(finite_rest.items()):
        clauses.append(Clause((kind,), {}, None, b.max_ulp(kind)))
    clauses += [Clause((k,)) for k in case_level]
    return clauses


def selectors(results, universe, every: bool = False) -> dict:
    """The fields that select ``results``' cases out of ``universe`` (the run's results): op always,
    then standard, dtype, version, tags and attributes where they narrow the choice (``every``: all
    the values and tags they share, narrowing or not)."""
    ops = sorted({r.op for r in results})
    pool = [u for u in universe if u.op in ops]
    out: dict = {"op": ops}
    for key in ("standard", "dtype", "version"):
        values = sorted({str(getattr(r, key)) for r in results})
        if every or {str(getattr(u, key)) for u in pool} - set(values):
            out[key] = values
            pool = [u for u in pool if str(getattr(u, key)) in values]
    common = set.intersection(*(set(r.tags) for r in results)) if results else set()
    tags = sorted(t for t in common if every or any(t not in u.tags for u in pool))
    if tags:
        out["tags"] = tags
        pool = [u for u in pool if set(tags) <= set(u.tags)]
    attrs = {}
    first = getattr(results[0], "attributes", None) or {}
    for name, value in sorted(first.items()):
        if isinstance(value, (list, dict)):
            continue
        if all(name in (getattr(r, "attributes", None) or {}) and same_value(r.attributes[name], value) for r in results):
            if every or any(not same_value((getattr(u, "attributes", None) or {}).get(name, math.nan), value)
                            for u in pool):
                attrs[name] = float(f"{value:.8g}") if isinstance(value, float) else value
    if attrs:
        out["attributes"] = attrs
    return out


def _scalar(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return repr(v)
    if isinstance(v, float):
        if abs(v) >= 1e6 and math.isfinite(v):  # 4.4e+11, not 440000000000.0 (and always with a dot: YAML's float)
            short = f"{v:.1e}"
            return short if float(short) == v else f"{v:.16e}"
        return repr(v)
    return json.dumps(str(v), ensure_ascii=False)


def _flow(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return _scalar(v)


def entry_text(fields: dict, indent: str = "  ") -> str:
    """One entry as block YAML lines (``fields``: id, selectors, fails as Clauses, reason, ...)."""
    lines = []
    first = True
    for key in ("id", "case", "op", "standard", "version", "dtype", "tags", "attributes", "fails", "backend",
                "cpu", "link", "reason"):
        if key not in fields or fields[key] in (None, [], {}):
            continue
        value = fields[key]
        lead = f"{indent}- " if first else f"{indent}  "
        first = False
        if key == "fails":
            lines.append(f"{lead}fails:")
            lines += [f"{indent}    - {_flow(c.to_yaml())}" for c in value]
        elif isinstance(value, (list, tuple)) and len(value) == 1 and key != "tags":
            lines.append(f"{lead}{key}: {_scalar(value[0])}")
        else:
            lines.append(f"{lead}{key}: {_flow(value)}")
    return "\n".join(lines)


def render(entries: list[dict], adapter: str | None, written_with: dict | None = None) -> str:
    """A whole baseline file's text."""
    lines = list(HEADER)
    if adapter:
        lines.append(f"adapter: {json.dumps(adapter)}")
    if written_with:
        lines.append(f"written_with: {_flow(written_with)}")
    lines.append("known_failures:" if entries else "known_failures: []")
    lines += [entry_text(e) for e in entries]
    return "\n".join(lines) + "\n"


def versions(run) -> dict:
    """What a baseline written from ``run`` records: the backend and the judgement's libraries."""
    import importlib.metadata as md

    out = {"backend": run.backend_version} if run.backend_version else {}
    for package in ("numpy", "ml_dtypes", "mpmath"):
        try:
            out[package] = md.version(package)
        except md.PackageNotFoundError:  # pragma: no cover
            pass
    return out


def unique_id(base: str, taken: set) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


def new_entries(run, existing: list[Entry], taken: set, reason_of=None) -> tuple[list[dict], int]:
    """Entries for the failures of ``run`` that ``existing`` entries leave unexplained, one per op
    (its signature covers every such element of that op), with ``reason: TODO ...``; and how many
    cases they cover."""
    by_op: dict[str, list] = {}
    for r in run.results:
        if r.verdict not in FAILING and r.verdict != XFAIL:
            continue
        chosen = [e for e in existing if e.active and e.selects(r)]
        masks = None
        if chosen:
            ex = explain(r, chosen, listing=False)
            if ex.explained:
                continue
            masks = _unexplained_masks(r, chosen)
        by_op.setdefault(r.op, []).append((r, masks))
    out = []
    for op, items in sorted(by_op.items()):
        results = [r for r, _ in items]
        from specgen.text import shorten

        example = results[0]
        reason = f"TODO: {len(results)} case(s), e.g. {example.case_id}: {shorten(example.reason, 160)}"
        out.append({"id": unique_id(f"{op.replace('_', '-')}-todo", taken), **selectors(results, run.results),
                    "fails": signature(items), "reason": reason})
    return out, sum(len(v) for v in by_op.values())


def _unexplained_masks(result, entries) -> dict | None:
    failing = getattr(result, "failing", None) or {}
    if result.cause != Cause.OUT_OF_BOUND or not failing:
        return None
    masks = {}
    attributes = getattr(result, "attributes", None) or {}
    for output, f in failing.items():
        kinds = np.asarray(f.kind, dtype=object)
        classes = {k: el.value_classes(v, result.dtype) for k, v in f.inputs.items()}
        covered = np.zeros(len(f), dtype=bool)
        for e in entries:
            if e.clauses is None:
                covered[:] = True
            else:
                for c in e.clauses:
                    covered |= el.fits(c, kinds, classes, f.inputs, np.asarray(f.error, dtype=np.float64), attributes)
        masks[output] = ~covered
    return masks


@dataclass
class Merge:
    text: str
    kept: list
    added: list
    removed: list
    cases_added: int = 0

    def summary(self, path: str) -> list[str]:
        n = len(self.kept) + len(self.added)
        out = [f"wrote {path}: {n} entr{'y' if n == 1 else 'ies'} ({len(self.kept)} kept, {len(self.added)} added "
               f"with a TODO reason for {self.cases_added} case(s), {len(self.removed)} removed because they "
               f"explain no failure of this run any more)"]
        out += [f"  removed: {e.name} ({e.reason})" for e in self.removed]
        out += [f"  added: {e['id']}: {e.get('op')} " + "; ".join(c.describe() for c in e["fails"]) for e in self.added]
        return out


def merge(run, existing=None, adapter: str | None = None) -> Merge:
    """The baseline after ``run``: the existing file's text with entries that selected cases of the
    run but explained none of them removed (lines and all), new causes appended with a TODO reason,
    and ``written_with`` set to this run's versions. Entries outside the run's filters are kept."""
    old = list(existing.entries) if existing else []
    if existing is not None:  # judged under the existing file, on copies: the run's own verdicts stay
        run = dataclasses.replace(run, results=[dataclasses.replace(r, notes=list(r.notes)) for r in run.results],
                                  warnings=list(run.warnings))
        existing.apply(run)
    # an entry is removed when it selects cases of the run and every one passes; one whose cases
    # still fail otherwise is kept (its reason may still be right) and the new cause is added
    removed = [e for e in old if e.active and e.selected and not e.explained
               and not any(r.verdict in FAILING and e.selects(r) for r in run.results)]
    kept = [e for e in old if e not in removed]
    taken = {e.id for e in old if e.id}
    added, cases = new_entries(run, kept, taken)
    name = (existing.adapter if existing and existing.adapter else None) or adapter
    text = existing.text if existing is not None and existing.text.strip() else ""
    if not text:
        return Merge(render(added, name, versions(run)), kept, added, removed, cases)
    return Merge(edit_text(text, removed, added, versions(run)), kept, added, removed, cases)


def edit_text(text: str, removed: list[Entry], added: list[dict], written: dict) -> str:
    """``text`` with the ``removed`` entries' lines cut, ``added`` appended to known_failures and
    the written_with line replaced; everything else (comments, reasons, order) as it was."""
    lines = text.splitlines()
    root = yaml.compose(text)
    items, seq_node, seq_key = [], None, None
    written_line = None
    for key, value in root.value if isinstance(root, yaml.MappingNode) else ():
        if key.value == "known_failures":
            seq_key, seq_node = key, value
            if isinstance(value, yaml.SequenceNode):
                items = value.value
        elif key.value == "written_with":
            written_line = (key.start_mark.line, value.end_mark.line if value.end_mark.column else value.end_mark.line - 1)

    def span(i):
        start = items[i].start_mark.line
        end = items[i + 1].start_mark.line if i + 1 < len(items) else (
            items[i].end_mark.line + (1 if items[i].end_mark.column else 0))
        while end - 1 > start and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
            end -= 1
        return start, end

    drop = set()
    removed_lines = {e.line for e in removed}
    for i, item in enumerate(items):
        if item.start_mark.line + 1 in removed_lines:
            a, b = span(i)
            drop.update(range(a, b))
    indent = " " * max(items[0].start_mark.column - 2, 0) if items else "  "
    new_text = [entry_text(e, indent) for e in added]
    if items and seq_node.flow_style is False:
        last = span(len(items) - 1)[1]
        insert_at = last
    else:
        # no block list yet: rewrite the known_failures line
        at = seq_key.start_mark.line if seq_key is not None else len(lines)
        if seq_key is not None:
            lines[at] = "known_failures:" if added else lines[at]
            if seq_node.end_mark.line > at:
                drop.update(range(at + 1, seq_node.end_mark.line + (1 if seq_node.end_mark.column else 0)))
            insert_at = at + 1
        else:
            lines.append("known_failures:" if added else "known_failures: []")
            insert_at = len(lines)
    out = []
    for n, line in enumerate(lines):
        if n == insert_at:
            out += new_text
        if written and written_line and written_line[0] <= n <= written_line[1]:
            if n == written_line[0]:
                out.append(f"written_with: {_flow(written)}")
            continue
        if n not in drop:
            out.append(line)
    if insert_at >= len(lines):
        out += new_text
    if written_line is None and written:
        pos = next((i for i, ln in enumerate(out) if ln.startswith("known_failures")), len(out))
        out.insert(pos, f"written_with: {_flow(written)}")
    return "\n".join(out) + "\n"


def from_results(results, adapter: str | None = None) -> str:
    """A fresh baseline file (text) for every failing case of a run, one TODO entry per op."""
    from specgen.runner.verdicts import RunResult

    run = RunResult(adapter=adapter or "", backend_version="", results=list(results))
    added, _ = new_entries(run, [], set())
    return render(added, adapter)
