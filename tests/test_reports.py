"""Reports: terminal, JSON, JUnit XML, Markdown all carry what a failure needs."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from fake_adapters.cases import case
from specgen.adapters.registry import load_object
from specgen.reports import json_report, junit, markdown, terminal
from specgen.runner.baseline import Baseline
from specgen.runner.core import Runner
from specgen.spec.loader import load_all

try:
    from specgen.numerics.compare import compare as COMPARE
except ImportError:  # pragma: no cover
    from fake_adapters.stub_compare import compare as COMPARE

SPECS = load_all()

CASES = [case("shrink", version="9", attributes={"bias": 0.25, "threshold": 0.5},
              x=[-0.75, -0.5, 0.0, 0.5, 0.75], name="threshold"),
         case("shrink", version="9", attributes={"bias": 0.0, "threshold": 1.0}, x=[0.0, 0.5], name="inside"),
         case("hard_sigmoid", dtype="float16", name="defaults"),
         case("hard_sigmoid", name="xfailed")]


def the_run():
    loaded = load_object("wrong-threshold", "fake_adapters:WrongAtThreshold")
    base = Baseline.parse("known_failures:\n  - case: 'hard_sigmoid/onnx-22/float32/*'\n    reason: pretend known\n")
    run = Runner(loaded, SPECS, compare=COMPARE, corpus="/tmp/corpus dir").run(CASES, baseline=base)
    return run


RUN = the_run()
FAIL_ID = "shrink/onnx-9/float32/rank1/threshold"


def test_terminal_summary_has_the_group_table_and_the_failure_with_its_rerun_command():
    text = terminal.render(RUN)
    assert "op            standard  dtype    pass  fail  error  unsupported  xfail  xpass" in text
    assert "shrink        onnx-9    float32     1     1" in text
    assert f"FAIL {FAIL_ID}" in text
    worst = next(line for line in text.splitlines() if line.startswith("  worst element"))
    assert worst.startswith("  worst element at [1], x = -0.5 (0xbf000000), expected = ")
    assert "(0x00000000), actual = -0.25 (0xbe800000), error " in worst and " ULP > bound " in worst
    assert "2 of 5 elements out of bound" in text
    assert f"re-run: specgen run --adapter wrong-threshold --case {FAIL_ID} --corpus '/tmp/corpus dir'" in text
    assert "XPASS hard_sigmoid/onnx-22/float32/rank3/xfailed (baseline: pretend known)" in text


def test_json_report_has_every_case():
    data = json.loads(json_report.render(RUN))
    assert [c["id"] for c in data["cases"]] == [c.id for c in CASES]
    assert data["counts"]["fail"] == 1 and data["counts"]["xpass"] == 1 and data["exit_code"] == 1
    bad = next(c for c in data["cases"] if c["verdict"] == "fail")
    assert bad["detail"]["mismatches"] == 2 and bad["rerun"].startswith("specgen run --adapter wrong-threshold")


def test_junit_xml_is_valid_and_marks_failures():
    root = ET.fromstring(junit.render(RUN))
    assert root.get("tests") == "4" and root.get("failures") == "1" and root.get("errors") == "0"
    failed = [tc for tc in root.iter("testcase") if tc.find("failure") is not None]
    assert [tc.get("name") for tc in failed] == [FAIL_ID]
    assert "re-run: specgen run" in failed[0].find("failure").text


def test_markdown_report_for_a_pull_request():
    text = markdown.render(RUN)
    assert text.startswith("## specgen conformance: wrong-threshold")
    assert "**FAILED** (exit 1)" in text
    assert "| shrink | onnx-9 | float32 | 1 | 1 |" in text
    assert f"<code>FAIL {FAIL_ID}</code>" in text
    assert "Known failures that now pass (xpass: 1)" in text
