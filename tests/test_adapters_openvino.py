"""The openvino adapter on a sample of the corpus, gated by baselines/openvino.yaml (skipped where
OpenVINO is not installed: the whole corpus runs in .ci/gates/openvino.sh, in its own venv)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main

pytest.importorskip("openvino")

ROOT = Path(__file__).resolve().parent.parent

# A pass (relu float32), two known defects (a zero alpha replaced by 0.2, int64 kept as int32) and
# the bfloat16 tensors that cross the Python API by their bits.
SAMPLE = ["relu/onnx-14/float32/rank4/*", "hard_sigmoid/onnx-22/float32/rank4/breakpoints*",
          "identity/onnx-14/int64/rank1/size-tail-129", "sigmoid/onnx-13/bfloat16/rank2/*"]


def test_openvino_sample_is_explained_by_its_baseline(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    js = tmp_path / "run.json"
    args = ["run", "--adapter", "openvino", "--baseline", "baselines/openvino.yaml", "--strict", "-q", "--json", str(js)]
    for pattern in SAMPLE:
        args += ["--case", pattern]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output[-4000:]
    counts = json.loads(js.read_text())["counts"]
    assert counts["pass"] > 0 and counts["xfail"] > 0 and counts["fail"] == counts["error"] == 0, counts
