#!/usr/bin/env python3
"""Convert a per-case baseline (one entry per case id, the format before issue 20) into entries
keyed by cause, from a run of the corpus: the old entries are grouped by reason; each reason becomes
one entry whose selectors are the fields its failing cases share (op, standard, dtype, version, tags,
attributes: only where they narrow the run's cases of those ops) and whose signature is the one that
covers their failing elements (specgen.runner.baseline.write.signature). Failures no old entry
named get one ``reason: TODO`` entry per op; reasons whose cases all pass now are dropped (listed).

The old files stay reachable in git history (the per-case baselines of commit d9b6fef), so the
conversion can be rerun on any tree, whatever its verdicts:

    PYTHONPATH=. .venv/bin/python tools/convert_baseline.py --adapter onnxruntime --write
    PYTHONPATH=. .venv/bin/python tools/convert_baseline.py --adapter webnn-chromium --standard webnn --write

``--from FILE`` reads the old baseline from a file instead; without ``--write`` the result is
printed. The run's verdicts under the new file are checked before it is written (exit 1 when a
failure is left unexplained or an entry explains nothing).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OLD_REVISION = "d9b6fef"  # the last commit with per-case baselines


def old_entries(adapter: str, source: str | None, revision: str) -> list[tuple[str, str]]:
    """(case id pattern, reason) of the per-case baseline, in file order (read leniently, as the old
    reader did: a repeated key keeps its last value)."""
    if source:
        text = Path(source).read_text(encoding="utf-8")
    else:
        text = subprocess.run(["git", "show", f"{revision}:baselines/{adapter}.yaml"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
    doc = yaml.safe_load(text) or {}
    return [(str(e["case"]), " ".join(str(e["reason"]).split())) for e in doc.get("known_failures") or []]


def run_corpus(adapter: str, standards: tuple[str, ...]):
    from specgen.adapters.registry import load
    from specgen.runner.cases import Filters, load_cases, select
    from specgen.runner.core import Runner
    from specgen.spec.loader import load_all

    specs = load_all()
    loaded = load(adapter, specs)
    cases = select(load_cases(None), Filters(standards=standards))
    return Runner(loaded, specs, probe=False).run(cases)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


def convert(adapter: str, pairs, run) -> tuple[list[dict], list[str], dict]:
    """(entries, reasons dropped, counts) for the old (pattern, reason) pairs and a run without baseline."""
    from specgen.patterns import matches
    from specgen.runner.baseline.write import new_entries, selectors, signature, unique_id
    from specgen.runner.verdicts import FAILING

    reasons: dict[str, list] = {}
    for _, reason in pairs:
        reasons.setdefault(reason, [])
    for r in run.results:
        if r.verdict not in FAILING:
            continue
        reason = next((why for pattern, why in pairs if matches(r.case_id, pattern)), None)
        if reason is not None:
            reasons[reason].append(r)
    taken: set = set()
    entries: list[dict] = []
    dropped = []
    for reason, results in reasons.items():
        if not results:
            dropped.append(reason)
            continue
        clauses = signature([(r, None) for r in results])
        ops = sorted({r.op for r in results})
        name = f"{'-'.join(o.replace('_', '-') for o in ops[:2])}-{clauses[0].kinds[0]}" if clauses else slug(reason)
        entries.append({"id": unique_id(name, taken), **selectors(results, run.results), "fails": clauses,
                        "reason": reason})
    sizes = {e["id"]: len(reasons[e["reason"]]) for e in entries}
    shared = drop_shared_clauses(entries, sizes, run)
    narrowed = narrow_overlaps(entries, {e["id"]: reasons[e["reason"]] for e in entries}, run)
    taken = set()
    for e in entries:  # named after what is left of the signature
        e["id"] = unique_id(entry_name(e), taken)
    from specgen.runner.baseline import Baseline
    from specgen.runner.baseline.write import render

    known = Baseline.parse(render(entries, adapter), "<converted>", placeholders_ok=True)
    todo, todo_cases = new_entries(run, known.entries, taken)
    return entries + todo, dropped, {"old entries": len(pairs), "old reasons": len(reasons), "shared clauses": shared, "narrowed": narrowed,
                                     "entries": len(entries) + len(todo), "todo entries": len(todo),
                                     "todo cases": todo_cases}


CLASS_WORDS = {"+inf": "inf", "-inf": "neg-inf", "+0": "zero", "-0": "neg-zero"}


def entry_name(e) -> str:
    """``gelu-nan-mismatch-inf``: the op(s), the first clause's kind, and its input class when it
    constrains one input."""
    ops = e["op"] if isinstance(e["op"], list) else [e["op"]]
    name = "-".join(o.replace("_", "-") for o in ops[:2]) + ("-etc" if len(ops) > 2 else "")
    if e["fails"]:
        first = e["fails"][0]
        name += f"-{first.kinds[0]}"
        if len(first.inputs) == 1:
            (classes,) = first.inputs.values()
            name += "-" + "-".join(CLASS_WORDS.get(c, c) for c in classes)
    return name


def covers(d, c) -> bool:
    """Clause ``d`` explains every element clause ``c`` does (same kinds, inputs and condition, a
    size bound at least as large)."""
    return (d.kinds == c.kinds and d.inputs == c.inputs and d.where == c.where
            and (d.max_ulp is None or (c.max_ulp is not None and c.max_ulp <= d.max_ulp)))


def gate_holds(entries, run) -> bool:
    """Every failure of ``run`` is explained and every entry explains something."""
    from specgen.runner.baseline import Baseline
    from specgen.runner.baseline.write import render
    from specgen.runner.verdicts import FAILING

    Baseline.parse(render(entries, None), "<trial>", placeholders_ok=True).apply(run)
    return not run.baseline_fixed and not any(r.verdict in FAILING for r in run.results)


def drop_shared_clauses(entries, sizes: dict, run) -> int:
    """One cause, one entry: the old files gave a case failing for two causes one reason, so that
    reason's signature also holds the other cause's clause. Such a clause is removed from the
    smaller entry when a larger entry has a clause covering it and the gate still holds without it."""
    if not gate_holds(entries, run):
        return 0
    dropped = 0
    for e in sorted(entries, key=lambda e: sizes[e["id"]]):
        for c in list(e["fails"]):
            if len(e["fails"]) == 1:
                break
            if not any(covers(d, c) for o in entries if o is not e and sizes[o["id"]] >= sizes[e["id"]]
                       for d in o["fails"]):
                continue
            at = e["fails"].index(c)
            del e["fails"][at]
            if gate_holds(entries, run):
                dropped += 1
            else:
                e["fails"].insert(at, c)
    return dropped


def _entry(fields):
    from specgen.runner.baseline import Baseline
    from specgen.runner.baseline.write import render

    return Baseline.parse(render([fields], None), "<entry>", placeholders_ok=True).entries[0]


def narrow_overlaps(entries, members: dict, run) -> int:
    """An entry that overlaps another (selects a common case of the run, signatures that meet) gets
    every selector its own cases share (standard, version, dtype, tags, attributes) when that ends
    the overlap and the gate still holds."""
    from specgen.runner.baseline.elements import signatures_meet
    from specgen.runner.baseline.write import selectors

    def selected(fields):
        entry = _entry(fields)
        return entry, frozenset(i for i, r in enumerate(run.results) if entry.selects(r))

    chosen = {id(e): selected(e) for e in entries}

    def overlapping(a, b):
        (ea, sa), (eb, sb) = chosen[id(a)], chosen[id(b)]
        return bool(sa & sb) and signatures_meet(ea, eb)

    narrowed = 0
    for e in sorted(entries, key=lambda e: len(members[e["id"]])):
        others = [o for o in entries if o is not e and overlapping(e, o)]
        if not others:
            continue
        keep = {k: e[k] for k in ("op", "standard", "version", "dtype", "tags", "attributes") if k in e}
        for k in keep:
            del e[k]
        e.update(selectors(members[e["id"]], run.results, every=True))
        before, chosen[id(e)] = chosen[id(e)], selected(e)
        if not any(overlapping(e, o) for o in others) and gate_holds(entries, run):
            narrowed += 1
        else:
            for k in ("op", "standard", "version", "dtype", "tags", "attributes"):
                e.pop(k, None)
            e.update(keep)
            chosen[id(e)] = before
    return narrowed


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--adapter", required=True)
    p.add_argument("--standard", action="append", default=[], help="run only these standards (webnn-chromium: webnn)")
    p.add_argument("--from", dest="source", help="the old per-case baseline file (default: git show REV:baselines/ADAPTER.yaml)")
    p.add_argument("--revision", default=OLD_REVISION, help=f"the commit holding the old baselines (default {OLD_REVISION})")
    p.add_argument("--write", nargs="?", const="", default=None, metavar="FILE",
                   help="write the result (default FILE: baselines/ADAPTER.yaml)")
    a = p.parse_args(argv)
    from specgen.runner.baseline import Baseline
    from specgen.runner.baseline.write import render, versions

    pairs = old_entries(a.adapter, a.source, a.revision)
    run = run_corpus(a.adapter, tuple(a.standard))
    entries, dropped, counts = convert(a.adapter, pairs, run)
    head = (f"# Converted by tools/convert_baseline.py from the per-case baseline of {a.source or a.revision} "
            f"({counts['old entries']} entries, {counts['old reasons']} reasons).")
    text = head + "\n" + render(entries, a.adapter, versions(run))
    check = Baseline.parse(text, "<converted>", placeholders_ok=True)
    check.apply(run)
    verdicts = {}
    for r in run.results:
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    print(f"{a.adapter}: {counts['old entries']} per-case entries, {counts['old reasons']} reasons -> "
          f"{counts['entries']} entries ({counts['todo entries']} with a TODO reason for {counts['todo cases']} "
          f"case(s) no old entry named); {len(dropped)} reason(s) dropped because their cases pass; "
          f"{counts['shared clauses']} clause(s) left to the larger entry of their cause; {counts['narrowed']} "
          f"entr(ies) given every selector their cases share, to stop overlapping another", file=sys.stderr)
    print("  verdicts under the new file: " + ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items())), file=sys.stderr)
    for reason in dropped:
        print(f"  dropped: {reason[:150]}", file=sys.stderr)
    for e in run.baseline_fixed:
        print(f"  FIXED (explains nothing): {e['id']}", file=sys.stderr)
    new = [r for r in run.results if r.verdict in ("fail", "error")]
    for r in new[:10]:
        print(f"  NEW {r.case_id}: {r.notes[0] if r.notes else r.reason}"[:400], file=sys.stderr)
    if a.write is not None:
        target = Path(a.write or ROOT / "baselines" / f"{a.adapter}.yaml")
        target.write_text(text, encoding="utf-8")
        print(f"  wrote {target}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 1 if new or run.baseline_fixed else 0


if __name__ == "__main__":
    sys.exit(main())
