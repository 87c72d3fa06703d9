"""Every `specgen sweep ... --range` command in docs/accuracy-findings.md reproduces a failure.

The findings say "this command re-runs the input named"; a command that passes on the reader's
machine is a finding nobody can check. Kernels take other paths for a few elements (torch's AVX512
Gelu is vectorised from 32 float32 elements, and a lone +inf gave +inf where a batch gives NaN), so
a command that reproduced on one machine may not on the next: this runs each one whose backend is
installed here (the gates run it for onnxruntime, torch and Chromium's WebNN) and asks for at least
one failing input. Slow: a backend session per command.
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main

ROOT = Path(__file__).resolve().parents[1]
FINDINGS = ROOT / "docs" / "accuracy-findings.md"
MODULES = {"onnxruntime": "onnxruntime", "onnx-reference": "onnx.reference", "torch": "torch"}


def _commands() -> list[str]:
    found = re.findall(r"`(specgen sweep [^`]+--range [^`]+)`", FINDINGS.read_text(encoding="utf-8"))
    return list(dict.fromkeys(found))


def test_the_findings_have_commands():
    cmds = _commands()
    assert len(cmds) >= 20 and all("--adapter" in c for c in cmds)


@pytest.mark.slow
@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(shlex.split(c)[3:12:2]))
def test_a_findings_command_reproduces_a_failure(command, tmp_path):
    args = shlex.split(command)[1:]
    adapter = args[args.index("--adapter") + 1]
    if adapter == "webnn-chromium":
        from specgen.adapters.webnn_chromium import find_browser

        if find_browser() is None:
            pytest.skip("the WebNN browser is not installed (tools/install-webnn-chromium.sh)")
    else:
        pytest.importorskip(MODULES[adapter])
    out = tmp_path / "s.json"
    res = CliRunner().invoke(main, [*args, "--workers", "0", "--no-progress", "--json", str(out)])
    assert res.exit_code in (0, 1), res.output[-2000:]
    summary = json.loads(out.read_text())["summary"]
    assert summary["failures"] > 0, f"passes here: {command}"
