"""The findings of onnx-reference and torch (docs/findings.md, tools/findings.py): the corpus through
each adapter passes the gate of its baseline with --strict, every baseline reason says what to do,
and the case ids in docs/findings.md are those the run fails. Regenerate docs/findings.md with the
commands at its top."""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main
from test_doc_numbers import tool
from specgen.runner.baseline import Baseline

ROOT = Path(__file__).resolve().parents[1]
FINDINGS = ROOT / "docs" / "findings.md"


def _tool():
    spec = importlib.util.spec_from_file_location("findings_tool", ROOT / "tools" / "findings.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["findings_tool"] = module
    spec.loader.exec_module(module)
    return module


def _committed_ids(adapter: str) -> set[str]:
    text = FINDINGS.read_text(encoding="utf-8")
    section = text.split(f"### {adapter}\n", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^- `([^`]+)`$", section, flags=re.M))


def _gate(adapter: str, module: str, ops: tuple[str, ...], tmp_path, monkeypatch):
    pytest.importorskip(module)
    monkeypatch.chdir(ROOT)
    js = tmp_path / "run.json"
    only = ["--op", ",".join(ops)] if ops else []
    res = CliRunner().invoke(main, ["run", "--adapter", adapter, "--baseline", f"baselines/{adapter}.yaml", "--strict",
                                    "-q", "--json", str(js), *only])
    assert res.exit_code == 0, res.output[-4000:]
    failing = {c["id"] for c in json.loads(js.read_text())["cases"] if c["verdict"] == "xfail"}
    committed = {i for i in _committed_ids(adapter) if not ops or i.split("/", 1)[0] in ops}
    assert failing == committed, "docs/findings.md is stale (see its top for the commands)"
    if not ops:  # the whole corpus: the numbers the docs quote
        assert tool().run_differs(adapter, json.loads(js.read_text())) == []
    return failing


# A sample of each adapter's operators with findings (the whole corpus: the slow test below)
SAMPLES = {"onnx-reference": ("celu", "softsign"), "torch": ("hard_sigmoid", "selu", "prelu")}


@pytest.mark.parametrize("adapter,module", [("onnx-reference", "onnx.reference"), ("torch", "torch")])
def test_a_sample_of_operators_passes_the_baseline_gate_and_the_findings_list_its_failures(adapter, module, tmp_path,
                                                                                            monkeypatch):
    assert _gate(adapter, module, SAMPLES[adapter], tmp_path, monkeypatch)  # some known failure: it can fail


@pytest.mark.slow
@pytest.mark.parametrize("adapter,module", [("onnx-reference", "onnx.reference"), ("torch", "torch")])
def test_corpus_passes_the_baseline_gate_and_the_findings_list_its_failures(adapter, module, tmp_path, monkeypatch):
    _gate(adapter, module, (), tmp_path, monkeypatch)


def test_every_baseline_reason_says_what_to_do():
    tool = _tool()
    for adapter in tool.ADAPTERS:
        base = Baseline.load(ROOT / "baselines" / f"{adapter}.yaml")
        assert base.adapter == adapter and base.entries
        missing = [e.pattern for e in base.entries if not tool.split(e.reason)[1]]
        assert not missing, f"baselines/{adapter}.yaml: no '{tool.ACTION}' in {missing[:3]}"


def test_an_unexplained_failure_or_a_reason_without_an_action_is_reported():
    tool = _tool()
    report = {"backend_version": "x 1.0", "baseline": "baselines/x.yaml", "counts": {"xfail": 2, "fail": 1},
              "cases": [{"id": "a/onnx-1/float32/r", "verdict": "xfail", "baseline": "Does Y. What to do: fix Y.",
                         "reason": "worst at [0]"},
                        {"id": "b/onnx-1/float32/r", "verdict": "xfail", "baseline": "Does Z.", "reason": "..."},
                        {"id": "c/onnx-1/float32/r", "verdict": "fail", "baseline": None, "reason": "new failure"}]}
    lines, bad = tool.corpus_section("x", report)
    text = "\n".join(lines)
    assert bad == 2
    assert "| Does Y. | fix Y. | 1 | `a/onnx-1/float32/r`: worst at [0] |" in text
    assert "missing: the baseline reason has no 'What to do:'" in text
    assert "Not explained by the baseline (1)" in text and "- `c/onnx-1/float32/r` (fail): new failure" in text
