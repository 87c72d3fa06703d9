"""The numbers the docs quote, from the runs that produce them (issue 24 item 5).

A number in README.md or docs/*.md that a run produces is written as a marked span,

    <!-- n:onnxruntime.pass -->2,632<!-- /n -->

(invisible when rendered), and its value is kept in docs/numbers.json: per adapter, the counts of
the run that produced it (`specgen run --json`), and for `corpus`, the committed corpus's counts.
This tool rewrites docs/numbers.json from the runs given and the committed corpus, then every span
from docs/numbers.json; --check changes nothing and exits 1 on any difference (tests/test_doc_numbers.py
runs it; the tests that run a whole corpus compare their run with docs/numbers.json).

    specgen run --adapter onnxruntime --baseline baselines/onnxruntime.yaml -q --json /tmp/onnxruntime.json
    python tools/doc_numbers.py --run onnxruntime=/tmp/onnxruntime.json [--run ADAPTER=FILE ...]
    python tools/doc_numbers.py --check

Fields per adapter: the verdicts (pass, fail, error, unsupported, xfail, xpass), `cases` (all the run
selected), `positive` and `negative` (of those, by kind), `judged` (cases that ran: all but
unsupported), and `backend_version`, `filters`, `baseline` (not quoted: they say which run). Corpus fields: cases, positive,
negative, on_the_fly (positive cases generated from a seed), operators.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBERS = ROOT / "docs" / "numbers.json"
SPAN = re.compile(r"<!-- n:(?P<source>[\w.-]+)\.(?P<field>\w+) -->(?P<text>.*?)<!-- /n -->")
VERDICTS = ("pass", "fail", "error", "unsupported", "xfail", "xpass")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def run_numbers(report: dict) -> dict:
    """The fields of one `specgen run --json` report."""
    counts = {v: int(report["counts"].get(v, 0)) for v in VERDICTS}
    total = sum(counts.values())
    kinds = [c.get("kind") for c in report.get("cases", [])]
    return {**counts, "cases": total, "judged": total - counts["unsupported"],
            "positive": kinds.count("positive"), "negative": kinds.count("negative"),
            "backend_version": report.get("backend_version") or "",
            "filters": report.get("filters") or "", "baseline": report.get("baseline") or ""}


def corpus_numbers(corpus=None) -> dict:
    from specgen.runner.cases import load_cases

    cases = load_cases(corpus)
    return {"cases": len(cases), "positive": sum(c.kind == "positive" for c in cases),
            "negative": sum(c.kind == "negative" for c in cases),
            "on_the_fly": sum(getattr(c, "recipe", None) is not None for c in cases),
            "operators": len({c.op for c in cases})}


def render(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def fill(text: str, numbers: dict, where: str = "") -> tuple[str, list[str]]:
    """``text`` with every span set from ``numbers``; and the problems (a span naming a source or
    field docs/numbers.json lacks)."""
    problems = []

    def one(m):
        source, field = m["source"], m["field"]
        if field not in numbers.get(source, {}):
            problems.append(f"{where}: span n:{source}.{field}: docs/numbers.json has no {source}.{field}")
            return m[0]
        return f"<!-- n:{source}.{field} -->{render(numbers[source][field])}<!-- /n -->"

    return SPAN.sub(one, text), problems


QUOTED = VERDICTS + ("cases", "judged", "positive", "negative")


def run_differs(adapter: str, report: dict) -> list[str]:
    """What a whole-corpus run (its JSON report) gives that docs/numbers.json does not say: the
    tests that make such a run call this, so a changed verdict shows as stale docs numbers."""
    have, now = load().get(adapter, {}), run_numbers(report)
    return [f"{adapter}.{f}: docs/numbers.json says {have.get(f)!r}, the run gives {now[f]!r} "
            f"(regenerate: see tools/doc_numbers.py)" for f in QUOTED if have.get(f) != now[f]]


def stale(numbers: dict, paths=None) -> list[str]:
    """Every span whose text is not its value, as FILE:LINE: n:source.field says X, the run Y."""
    out = []
    for path in paths or documents():
        text = path.read_text(encoding="utf-8")
        for m in SPAN.finditer(text):
            want = numbers.get(m["source"], {}).get(m["field"])
            if want is None or m["text"] != render(want):
                line = text.count("\n", 0, m.start()) + 1
                out.append(f"{_shown(path)}:{line}: n:{m['source']}.{m['field']} says {m['text']!r}, "
                           f"docs/numbers.json {render(want) if want is not None else 'has no such field'!r}")
    return out


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def load() -> dict:
    return json.loads(NUMBERS.read_text(encoding="utf-8")) if NUMBERS.exists() else {}


def dump(numbers: dict) -> str:
    return json.dumps(numbers, indent=1, sort_keys=True) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="append", default=[], metavar="ADAPTER=FILE",
                    help="a `specgen run --json` report whose counts the docs quote as n:ADAPTER.*")
    ap.add_argument("--new-filters", action="store_true",
                    help="accept a run whose case filters differ from those docs/numbers.json recorded")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 when a number is stale")
    args = ap.parse_args(argv)
    numbers = load()
    for item in args.run:
        name, sep, path = item.partition("=")
        if not sep:
            ap.error(f"--run {item!r}: expected ADAPTER=FILE")
        new = run_numbers(json.loads(Path(path).read_text(encoding="utf-8")))
        was = numbers.get(name, {}).get("filters")
        if was is not None and was != new["filters"] and not args.new_filters:
            # the gate's run selects its cases one way (e.g. --standard webnn); a run selected
            # another way gives other counts, and the whole-corpus test then fails in CI
            ap.error(f"--run {item}: that run's filters are {new['filters']!r}, docs/numbers.json's "
                     f"{name} run had {was!r} (the gate's; pass --new-filters to change them)")
        numbers[name] = new
    numbers["corpus"] = corpus_numbers()
    if args.check:
        problems = ([] if NUMBERS.exists() and NUMBERS.read_text(encoding="utf-8") == dump(numbers)
                    else ["docs/numbers.json: the committed corpus's counts differ"]) + stale(numbers)
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    NUMBERS.write_text(dump(numbers), encoding="utf-8")
    problems = []
    for path in documents():
        text = path.read_text(encoding="utf-8")
        new, found = fill(text, numbers, str(path.relative_to(ROOT)))
        problems += found
        if new != text:
            path.write_text(new, encoding="utf-8")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
