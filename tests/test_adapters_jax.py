"""The jax adapter on a sample of the corpus (a few operators, float32, ONNX), judged against
baselines/jax.yaml with --strict: every failure of the sample is a known one and none of the known
ones passes. Skipped where jax is not installed (the README's test command: its venv has no jax);
the whole corpus runs in .ci/gates/jax.sh, in the jax venv."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parent.parent


def test_a_sample_of_the_corpus_passes_the_(monkeypatch):
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(main, ["run", "--adapter", "jax", "--op", "leaky_relu,hard_sigmoid,gelu", "--dtype", "float32", "--standard", "onnx",
                                    "--baseline", "baselines/jax.yaml", "--strict", "-q", "--no-progress"])
    assert res.exit_code == 0, res.output[-4000:]
    assert " pass," in res.output and " 0 fail," in res.output
