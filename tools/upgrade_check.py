#!/usr/bin/env python3
"""Run the committed gates against the newest backend versions and print what changed, by entry.

The README's set-up pins every library the gates depend on (constraints/backends.txt), so the
committed baselines reproduce bit for bit. This command answers the other question, what an
upgrade would change: it creates a temporary virtual environment, installs specgen with its test
extras and the adapters' backends at their newest versions (no constraints), runs each gate there
and here (the pinned versions), and prints per baseline entry how many cases it explains in each,
the entries that no longer explain anything (fixed), and the new failures with the entries they
escaped. Not part of the README's tests (it needs the network and several minutes):

    .venv/bin/python tools/upgrade_check.py                       # every gate, a fresh venv
    .venv/bin/python tools/upgrade_check.py --adapter torch --venv /tmp/newest   # reuse a venv

Exit status: 0 when no gate changes verdicts, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GATES = {"onnxruntime": [], "onnx-reference": [], "torch": [], "webnn-chromium": ["--standard", "webnn"]}
LIBRARIES = ["numpy", "ml_dtypes", "mpmath"]  # the judgement's; upgraded with every gate
BACKENDS = {"onnxruntime": ["onnxruntime", "onnx"], "onnx-reference": ["onnx"], "torch": ["torch"],
            "webnn-chromium": []}  # per gate, upgraded to their newest releases (the browser is its own install)


def packages(adapters) -> list[str]:
    return list(dict.fromkeys([*LIBRARIES, *(p for a in adapters for p in BACKENDS[a])]))


def make_venv(path: Path, adapters, install: bool = True) -> Path:
    python = path / "bin" / "python"
    if not install:
        return python
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "-e", f"{ROOT}[test]", *packages(adapters)],
                   check=True)
    return python


def versions(python: str, names) -> dict:
    code = ("import importlib.metadata as m, json; out = {}\n"
            f"for p in {list(names)!r}:\n"
            "    try: out[p] = m.version(p)\n"
            "    except m.PackageNotFoundError: pass\n"
            "print(json.dumps(out))")
    return json.loads(subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout)


def gate(python: str, adapter: str, extra: list[str]) -> dict | None:
    """The JSON report of one gate (None when the adapter cannot run there)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        proc = subprocess.run([python, "-m", "specgen", "run", "--adapter", adapter, *extra, "--baseline",
                               f"baselines/{adapter}.yaml", "--strict", "-q", "--no-progress", "--json", str(out)],
                              cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if not out.exists():
            print(f"  {adapter}: no report (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
            return None
        return json.loads(out.read_text())


def by_entry(report: dict) -> Counter:
    counts = Counter()
    for c in report["cases"]:
        if c["verdict"] == "xfail":
            counts.update(c.get("baseline_ids") or ["?"])
    return counts


def compare(adapter: str, pinned: dict, newest: dict) -> bool:
    """Print what changed between the two reports of one gate; True when something did."""
    before, after = by_entry(pinned), by_entry(newest)
    print(f"{adapter}: {pinned['backend_version']} -> {newest['backend_version']}: exit {pinned['exit_code']} -> "
          f"{newest['exit_code']}")
    changed = pinned["exit_code"] != newest["exit_code"]
    for entry in sorted(set(before) | set(after)):
        if before[entry] != after[entry]:
            changed = True
            print(f"  entry {entry}: explains {before[entry]} case(s) -> {after[entry]}")
    for e in newest.get("baseline_fixed") or []:
        changed = True
        print(f"  FIXED {e['id'] or e['case']}: selects {e['selected']} case(s) and explains none of them")
    new = [c for c in newest["cases"] if c["verdict"] in ("fail", "error")]
    escaped = Counter()
    for c in new:
        note = next((n for n in c["notes"] if n.startswith("baseline: ")), "")
        escaped[", ".join(c.get("baseline_ids") or []) or "no entry"] += 1
        print(f"  NEW {c['id']}: {note[len('baseline: '):] if note else c['reason']}"[:300])
    for entries, n in escaped.items():
        print(f"  {n} new failure(s) in cases explained in part by: {entries}")
    return changed or bool(new)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--adapter", action="append", choices=sorted(GATES), help="gate(s) to check (default: all)")
    p.add_argument("--venv", type=Path, help="the virtual environment for the newest versions (kept; default: temporary)")
    p.add_argument("--no-install", action="store_true", help="use --venv as it is (no upgrade)")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        adapters = a.adapter or sorted(GATES)
        python = str(make_venv(a.venv or Path(tmp) / "venv", adapters, install=not (a.venv and a.no_install)))
        names = packages(adapters)
        print(f"pinned: {versions(sys.executable, names)}\nnewest: {versions(python, names)}")
        changed = False
        for adapter in adapters:
            pinned, newest = gate(sys.executable, adapter, GATES[adapter]), gate(python, adapter, GATES[adapter])
            if pinned is None or newest is None:
                continue
            changed |= compare(adapter, pinned, newest)
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
