"""The gate: a failing case is xfail only when every failing element (or the whole-case failure) is
explained by an entry that selects it. An element no signature fits is a new failure, reported
with the entries it escaped; an entry selecting cases of the run but explaining nothing is *fixed*
(its passing cases are xpass; ``--strict`` fails the run); an entry selecting nothing is unmatched."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from specgen.runner.baseline import elements as el
from specgen.runner.baseline.model import Entry, cpu_matches
from specgen.runner.verdicts import FAILING, PASS, XFAIL, XPASS, Cause

MAX_LISTED = 3


@dataclass
class Explanation:
    """How the entries selecting a failing case account for its failure."""

    explained: bool
    counts: dict = field(default_factory=dict)  # entry -> elements (or 1 for a whole-case failure) explained
    known: list[str] = field(default_factory=list)  # "3 nan-mismatch at x = +inf [id]"
    new: list[str] = field(default_factory=list)  # "2 ULP at x = -0.0279 (escaped id: why)"
    elements: list[tuple[str, str]] = field(default_factory=list)  # (element, entry id or "NEW: ...") for explain

    def text(self) -> str:
        parts = []
        if self.known:
            parts.append("known: " + "; ".join(self.known))
        if self.new:
            parts.append("new: " + "; ".join(self.new))
        return " | ".join(parts)


def case_kinds(result) -> list[str]:
    """The whole-case failure kinds of a result without per-element data: its cause, or for an
    out-of-bound result the comparison's kinds."""
    if result.cause == Cause.OUT_OF_BOUND:
        detail = result.detail if isinstance(result.detail, dict) else {}
        kinds = list((detail.get("kinds") or {}).keys())
        if not kinds:
            for d in detail.values():
                if isinstance(d, dict):
                    kinds += list((d.get("kinds") or {}).keys())
        return kinds or ["value"]
    return [str(result.cause)] if result.cause else ["crashed"]


def explain(result, entries: list[Entry], listing: bool = False) -> Explanation:
    """How ``entries`` (those selecting ``result``) explain its failure; ``listing`` also fills
    ``elements`` with every failing element and what explains it (``specgen baseline explain``)."""
    failing = getattr(result, "failing", None) or {}
    if result.cause == Cause.OUT_OF_BOUND and failing:
        return _explain_elements(result, entries, failing, listing)
    out = Explanation(explained=True)
    for kind in case_kinds(result):
        fitting = [e for e in entries if e.clauses is None or any(kind in c.kinds and not c.inputs and not c.where
                                                                   for c in e.clauses)]
        owner = fitting[0] if fitting else None
        for e in fitting:  # every entry that fits is in use (not fixed); the first is shown
            out.counts[e] = out.counts.get(e, 0) + 1
        if owner is None:
            out.explained = False
            near = entries[0] if entries else None
            out.new.append(f"{kind}" + (f" (escaped {near.name}: {kind} is not in its signature)" if near else ""))
            out.elements.append((kind, "NEW"))
        else:
            out.known.append(f"{kind} [{owner.name}]")
            out.elements.append((kind, owner.name))
    return out


def _explain_elements(result, entries, failing: dict, listing: bool) -> Explanation:
    out = Explanation(explained=True)
    attributes = getattr(result, "attributes", None) or {}
    for output, f in failing.items():
        n = len(f)
        kinds = np.asarray(f.kind, dtype=object)
        classes = {k: el.value_classes(v, result.dtype) for k, v in f.inputs.items()}
        error = np.asarray(f.error, dtype=np.float64)
        owner = np.full(n, -1)
        for i, e in enumerate(entries):
            if e.clauses is None:
                mask = np.ones(n, dtype=bool)
            else:
                mask = np.zeros(n, dtype=bool)
                for c in e.clauses:
                    mask |= el.fits(c, kinds, classes, f.inputs, error, attributes)
            owner[mask & (owner < 0)] = i  # shown as explained by the first entry that fits
            if mask.any():  # every entry that fits is still in use (not fixed)
                out.counts[e] = out.counts.get(e, 0) + int(mask.sum())
        prefix = f"{output}: " if len(failing) > 1 else ""

        def values(j):
            return {k: v[j] for k, v in f.inputs.items()}

        for i, e in enumerate(entries):
            idx = np.flatnonzero(owner == i)
            if idx.size:
                j = idx[0]
                kind_counts = {}
                for k in kinds[idx]:
                    kind_counts[k] = kind_counts.get(k, 0) + 1
                what = ", ".join(f"{c} {k}" for k, c in kind_counts.items())
                out.known.append(f"{prefix}{what} (e.g. {el.describe(kinds[j], values(j), error[j])}) [{e.name}]")
        new = np.flatnonzero(owner < 0)
        if new.size:
            out.explained = False
            order = new[np.argsort(-np.nan_to_num(error[new], nan=np.inf, posinf=np.inf), kind="stable")]
            for j in order[:MAX_LISTED]:
                text = prefix + el.describe(kinds[j], values(j), error[j])
                near = [e for e in entries if e.clauses is not None]
                if near:
                    cls = {k: c[j] for k, c in classes.items()}
                    text += " (escaped " + "; ".join(
                        f"{e.name}: {el.why_not(e.clauses, kinds[j], cls, values(j), error[j], attributes)}"
                        for e in near[:2]) + ")"
                out.new.append(text)
            if new.size > MAX_LISTED:
                out.new.append(f"and {new.size - MAX_LISTED} more element(s)")
        if listing:
            for j in range(n):
                who = entries[owner[j]].name if owner[j] >= 0 else "NEW"
                out.elements.append((f"[{int(f.index[j])}] {prefix}{el.describe(kinds[j], values(j), error[j])}", who))
    return out


_VERSION = re.compile(r"(\d+(?:\.\d+)*)")


def version_tuple(text: str) -> tuple[int, ...] | None:
    m = _VERSION.search(text or "")
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def in_range(version: str, spec: str) -> bool:
    """Whether ``version`` (the first dotted number in a backend_version text) is inside ``spec``
    ('>=2.13, <2.15'); an unparsable version is inside every range."""
    have = version_tuple(version)
    if have is None:
        return True
    for part in spec.split(","):
        m = re.match(r"\s*(==|!=|>=|<=|>|<)\s*(\S+)\s*$", part)
        if not m:
            continue
        want = version_tuple(m.group(2)) or ()
        width = max(len(have), len(want))
        a, b = have + (0,) * (width - len(have)), want + (0,) * (width - len(want))
        ok = {"==": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[m.group(1)]
        if not ok:
            return False
    return True


def apply(baseline, run) -> None:
    """Known failures -> xfail (when fully explained), fixed entries' passing cases -> xpass; the
    entries' counters, ``run.baseline_unmatched`` and ``run.baseline_fixed`` are filled in place."""
    for r in run.results:  # a second application (--write-baseline after --baseline) starts afresh
        if r.original_verdict is not None:
            r.verdict, r.original_verdict, r.baseline = r.original_verdict, None, None
        r.baseline_ids = []
        r.notes[:] = [n for n in r.notes if not n.startswith("baseline: ")]
    for e in baseline.entries:
        e.selected = e.explained = e.explained_cases = e.failing = 0
        e.active = (not e.backend or in_range(run.backend_version, e.backend)) and cpu_matches(e.cpu)
    if baseline.adapter and baseline.adapter != run.adapter:
        run.warnings.append(f"baseline {baseline.path} is for adapter {baseline.adapter!r}, not {run.adapter!r}")
    written = baseline.written_with.get("backend")
    if written and run.backend_version and written != run.backend_version:
        run.warnings.append(f"baseline {baseline.path} was written with {written}; this run uses {run.backend_version}")
    active = [e for e in baseline.entries if e.active]
    selecting: dict[int, list[Entry]] = {}
    for n, r in enumerate(run.results):
        chosen = [e for e in active if e.selects(r)]
        if not chosen:
            continue
        selecting[n] = chosen
        for e in chosen:
            e.selected += 1
        if r.verdict not in FAILING:
            continue
        ex = explain(r, chosen)
        for e, count in ex.counts.items():
            e.explained += count
            e.explained_cases += 1
        if ex.explained:
            main = max(ex.counts, key=lambda e: ex.counts[e])
            main.failing += 1
            r.original_verdict, r.verdict, r.baseline = r.verdict, XFAIL, main.reason
            r.baseline_ids = [e.name for e in ex.counts]
        else:
            r.notes.insert(0, f"baseline: {ex.text()}")
            r.baseline_ids = [e.name for e in ex.counts]
    fixed = {id(e) for e in active if e.selected and not e.explained}
    for n, chosen in selecting.items():
        r = run.results[n]
        if r.verdict == PASS:
            gone = [e for e in chosen if id(e) in fixed]
            if gone:
                r.original_verdict, r.verdict, r.baseline = r.verdict, XPASS, gone[0].reason
                r.baseline_ids = [e.name for e in gone]
    run.baseline_file = baseline.path
    run.baseline_unmatched = [_row(e) for e in active if e.selected == 0]
    run.baseline_fixed = [_row(e) for e in active if id(e) in fixed]
    run.baseline_inactive = [_row(e) for e in baseline.entries if not e.active]
    baseline.unmatched = [e for e in active if e.selected == 0]


def _row(e: Entry) -> dict:
    return {"id": e.id, "case": e.pattern, "reason": e.reason, "line": e.line, "selected": e.selected,
            "backend": e.backend, "cpu": list(e.cpu)}
