"""The iree adapter on a sample of the corpus, gated by baselines/iree.yaml (skipped where IREE is
not installed: the gate's slice of the corpus runs in .ci/gates/iree.sh, in its own venv)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

ROOT = Path(__file__).resolve().parent.parent

# Each pattern is one compiled module (compiles are cached in .specgen-cache/iree).
SAMPLE = ["relu/onnx-14/float32/rank1/*", "sigmoid/onnx-13/float32/rank1/*", "identity/onnx-14/int64/rank1/*"]


def test_iree_sample_is_explained_by_its_baseline(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    js = tmp_path / "run.json"
    args = ["run", "--adapter", "iree", "--baseline", "baselines/iree.yaml", "-q", "--json", str(js)]
    for pattern in SAMPLE:
        args += ["--case", pattern]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output[-4000:]
    counts = json.loads(js.read_text())["counts"]
    assert counts["pass"] > 0 and counts["fail"] == counts["error"] == 0, counts
