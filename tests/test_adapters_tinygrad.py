"""The tinygrad adapter on a sample of the corpus (a few operators, float32, ONNX), judged against
baselines/tinygrad.yaml with --strict: every failure of the sample is a known one and none of the known
ones passes. Skipped where tinygrad is not installed (the README's test command: its venv has no tinygrad);
the whole corpus runs in .ci/gates/tinygrad.sh, in the tinygrad venv."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main

pytest.importorskip("tinygrad")

ROOT = Path(__file__).resolve().parent.parent


def test_a_sample_of_the_corpus_passes_the_(monkeypatch):
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(main, ["run", "--adapter", "tinygrad", "--op", "tanh,hard_sigmoid", "--dtype", "float32", "--standard", "onnx",
                                    "--baseline", "baselines/tinygrad.yaml", "--strict", "-q", "--no-progress"])
    assert res.exit_code == 0, res.output[-4000:]
    assert " pass," in res.output and " 0 fail," in res.output
