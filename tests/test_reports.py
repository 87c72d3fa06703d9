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

from specgen.numerics.compare import compare as COMPARE

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
    worst = [line for line in text.splitlines() if "x = -0.5 (0xbf000000)" in line]
    assert len(worst) == 1  # the worst element once (issue 13: it was repeated three times)
    assert worst[0].startswith("  worst element at [1]: x = -0.5 (0xbf000000), got -0.25 (0xbe800000), expected 0 ")
    assert " ULP > bound " in worst[0] and worst[0].endswith("absolute error 0.25")  # near zero: absolute error too
    assert "  why: 2 of 5 elements out of bound (value) [shrink(bias=0.25, threshold=0.5) float32 (5,)]" in text
    assert f"re-run: specgen run --adapter wrong-threshold --case {FAIL_ID} --corpus '/tmp/corpus dir'" in text
    assert "XPASS hard_sigmoid/onnx-22/float32/rank3/xfailed (baseline: pretend known)" in text


def test_terminal_leads_with_the_failures_and_folds_the_unclaimed_groups_into_one_line():
    """An adapter claiming one operator used to see hundreds of all-unsupported table rows before its
    first failure (line 578 of 631; issue 24 item 3)."""
    loaded = load_object("shrink-only", "fake_adapters:ShrinkOnlyWrongAtThreshold")
    unclaimed = [case(op, standard=std, version=v, dtype=dtype, name=f"n{i}")
                 for i, (op, std, v) in enumerate([("hard_sigmoid", "onnx", "22"), ("hard_sigmoid", "directml", "3_0"),
                                                   ("softsign", "onnx", "22"), ("softsign", "directml", "1_0")])
                 for dtype in ("float32", "float16")]
    run = Runner(loaded, SPECS, compare=COMPARE).run(unclaimed + CASES[:2])
    lines = terminal.render(run).splitlines()
    first_fail = next(i for i, line in enumerate(lines) if line.startswith("FAIL "))
    assert first_fail < 6, lines[:first_fail]
    table = [line for line in lines if line.startswith(("hard_sigmoid ", "softsign ", "shrink "))]
    assert table == [next(line for line in lines if line.startswith("shrink "))]  # the claimed op's row only
    assert ("8 (op, standard, dtype) group(s) with every case unsupported (8 case(s), outside the adapter's claim; "
            "listed in --json/--markdown/--html): hard_sigmoid, softsign") in lines
    assert first_fail < lines.index(table[0])


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
    assert failed[0].find("failure").get("type") == "out-of-bound"  # the typed cause


def test_markdown_report_for_a_pull_request():
    text = markdown.render(RUN)
    assert text.startswith("## specgen conformance: wrong-threshold")
    assert "**FAILED** (exit 1)" in text
    assert "| shrink | onnx-9 | float32 | 1 | 1 |" in text
    assert f"<code>FAIL {FAIL_ID}</code>" in text
    assert "Known failures that now pass (xpass: 1)" in text


def _many_failures(n: int, reason_len: int = 400):
    from specgen.runner.core import FAIL, Result, RunResult

    reason = ("y: 10 of 27 elements out of bound (value); worst at [0, 0, 0, 9], x = 0.649999976158142 "
              "(0x3fe4ccccbfffffff): got 1 (0x3ff0000000000000), expected 0.29999998211860646 (0x3fd333331ffffffe) ")
    reason = (reason * (reason_len // len(reason) + 1))[:reason_len]
    results = [Result(case_id=f"shrink/onnx-9/float64/rank4/case{i:05d}[bias=0.35,threshold=-0.65]", op="shrink",
                      standard="onnx", version="9", dtype="float64", kind="positive", verdict=FAIL, reason=reason,
                      rerun=f"specgen run --adapter x --case 'shrink/onnx-9/float64/rank4/case{i:05d}'",
                      detail={"mismatches": 10, "total": 27}) for i in range(n)]
    return RunResult(adapter="x", backend_version="x 1.0", results=results)


def test_markdown_caps_failure_details_and_still_names_every_failure():
    run = _many_failures(300)
    for i, r in enumerate(run.results):
        r.tags = [f"region{i}"]  # 300 different groups
    text = markdown.render(run)
    assert len(text) < markdown.LIMIT
    assert text.count("<details>") == markdown.MAX_DETAILS
    assert f"… {300 - markdown.MAX_DETAILS} more failures: see the JSON report" in text
    for r in run.results:
        assert f"`{r.case_id}`" in text or f"<code>FAIL {r.case_id}</code>" in text


def test_markdown_size_guard_drops_detail_before_the_summary():
    run = _many_failures(5000)
    text = markdown.render(run)
    assert len(text) <= markdown.LIMIT < markdown.GITHUB_COMMENT_MAX
    assert "**FAILED** (exit 1): 0 pass, 5000 fail" in text and "| shrink | onnx | float64 |" in text
    assert "<details>" not in text and "see the JSON report" in text and "Versions merged" in text
    assert text.count("<details>") == text.count("</details>")


def test_markdown_known_failures_are_grouped_by_reason_without_per_case_details():
    from specgen.runner.baseline import Baseline

    run = _many_failures(40)
    Baseline.parse("known_failures:\n  - case: '*case0000*'\n    reason: first ten\n"
                   "  - case: '*'\n    reason: the rest\n").apply(run)
    text = markdown.render(run)
    assert "<details>" not in text
    assert "- **10 cases** (10 fail): first ten e.g. `shrink/onnx-9/float64/rank4/case00000[bias=0.35,threshold=-0.65]`" in text
    assert "- **30 cases** (30 fail): the rest e.g. " in text and "… and 27 more (see the JSON report)" in text


def test_summaries_are_shortened_at_a_boundary_never_inside_a_token():
    run = _many_failures(1)
    text = markdown.render(run)
    summary = text.split("</code>: ", 1)[1].split("</summary>", 1)[0]
    assert summary.endswith("…") and len(summary) <= 160
    kept = summary[:-1]
    assert run.results[0].reason.startswith(kept) and run.results[0].reason[len(kept)] in " ,;:(["
    assert markdown.shorten("a b c", 10) == "a b c"
    assert markdown.shorten("alpha beta 0x3fe4ccccbfffffff", 20) == "alpha beta…"


def test_terminal_shows_the_first_50_failures_and_counts_the_rest():
    run = _many_failures(142, reason_len=80)
    for i, r in enumerate(run.results):
        r.tags = [f"region{i}"]  # 142 different groups
    text = terminal.render(run, quiet=True)
    assert text.count("\nFAIL ") == terminal.MAX_FAILURES == 50
    assert "... and 92 more group(s) (see --json/--markdown/--html)" in text


def test_terminal_groups_failures_of_one_cause():
    run = _many_failures(142, reason_len=80)
    text = terminal.render(run, quiet=True)
    assert "142 failure(s) in 1 group(s)" in text and "== 142 cases: shrink float64, fail" in text
    assert text.count("\nFAIL ") == 1 and "(+136 more: see --json/--markdown/--html)" in text
