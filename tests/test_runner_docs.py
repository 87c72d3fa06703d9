"""docs/runner.md names real things: every case id it quotes is a case of the committed corpus."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from specgen.runner.cases import CorpusError, load_cases

ROOT = Path(__file__).resolve().parent.parent
ID = re.compile(r"\b(?:hard_sigmoid|shrink|softsign)/(?:onnx|directml|onednn)-[0-9a-z_]+/[a-z0-9]+/rank\d+/[\w\-]+(?:\[[^\]\s`']*\])?")


def test_every_case_id_in_the_runner_docs_is_a_corpus_case():
    try:
        ids = {c.id for c in load_cases(ROOT / "generated" / "vectors")}
    except CorpusError as exc:  # pragma: no cover - a checkout without the corpus
        pytest.skip(str(exc))
    quoted = set(ID.findall((ROOT / "docs" / "runner.md").read_text()))
    assert len(quoted) >= 3
    assert sorted(quoted - ids) == []
