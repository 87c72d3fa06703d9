"""Numbers in the docs come from the runs that produce them (tools/doc_numbers.py, issue 24 item 5):
every marked number is its value in docs/numbers.json, the corpus counts are the committed
corpus's, and the tests that run a whole corpus (onnxruntime, webnn-chromium; onnx-reference and
torch with -m slow) check their run against docs/numbers.json."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tool():
    spec = importlib.util.spec_from_file_location("doc_numbers_tool", ROOT / "tools" / "doc_numbers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_marked_number_in_the_docs_is_its_value_and_the_corpus_counts_are_current():
    t = tool()
    numbers = t.load()
    assert t.stale(numbers) == [], "run `python tools/doc_numbers.py` (its docstring says how)"
    assert numbers["corpus"] == t.corpus_numbers(), "the corpus changed: run `python tools/doc_numbers.py`"
    quoted = {m["source"] for p in t.documents() for m in t.SPAN.finditer(p.read_text())}
    assert {"corpus", "onnxruntime", "webnn-chromium", "onnx-reference", "torch"} <= quoted


def test_a_stale_number_is_reported_with_its_place_and_filled_from_the_numbers(tmp_path):
    t = tool()
    doc = tmp_path / "page.md"
    doc.write_text("intro\nit found <!-- n:mine.pass -->68<!-- /n --> pass and <!-- n:mine.xfail -->3<!-- /n --> known\n")
    numbers = {"mine": {"pass": 762, "xfail": 3}}
    assert t.stale(numbers, [doc]) == [f"{doc}:2: n:mine.pass says '68', docs/numbers.json '762'"]
    text, problems = t.fill(doc.read_text(), numbers)
    assert problems == [] and "<!-- n:mine.pass -->762<!-- /n --> pass" in text
    _, problems = t.fill("<!-- n:mine.fail -->0<!-- /n -->", numbers, "page.md")
    assert problems == ["page.md: span n:mine.fail: docs/numbers.json has no mine.fail"]


def test_a_run_that_differs_from_the_docs_numbers_is_reported():
    t = tool()
    report = {"counts": {"pass": 1, "fail": 2}, "cases": [{"kind": "positive"}] * 3}
    problems = t.run_differs("onnxruntime", report)
    assert any(p.startswith("onnxruntime.pass: docs/numbers.json says ") and p.endswith("the run gives 1 "
               "(regenerate: see tools/doc_numbers.py)") for p in problems), problems


def test_a_run_selected_otherwise_than_the_gates_is_refused_before_anything_is_written(tmp_path, capsys):
    # the last CI failure: the WebNN numbers came from a run over every standard, the gate runs --standard webnn
    import json

    import pytest

    t = tool()
    before = t.NUMBERS.read_text()
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"counts": {"pass": 1}, "cases": [{"kind": "positive"}], "filters": "all cases"}))
    assert t.load()["webnn-chromium"]["filters"] != "all cases"
    with pytest.raises(SystemExit) as e:
        t.main(["--run", f"webnn-chromium={run}"])
    assert e.value.code == 2 and "--new-filters" in capsys.readouterr().err
    assert t.NUMBERS.read_text() == before
