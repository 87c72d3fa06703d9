"""The spec fuzzer (tools/fuzz_specs.py) in the normal test run: 13 seeded mutations (104 with
`-m slow`) of the bundled specs, each linted, generated and imported in a worker process under an address-space
limit and a per-trial time limit. Every trial must end in exit 0 or a clean error naming the spec
file: no traceback, no hang, no memory blow-up, no generated module that fails to import or has
side effects (a canary file), nothing written outside --out, an existing tree untouched on
failure. Thousands of trials: `.venv/bin/python tools/fuzz_specs.py --seed N --trials 2000`.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "fuzz_specs.py"
SEED = 15
CHUNKS = 16
PER_CHUNK = 7  # 112 trials in all
DEFAULT_CHUNKS = 1  # 7 trials in the README's test command; the other 105 are marked slow


def _fuzz():
    spec = importlib.util.spec_from_file_location("specgen_fuzz_specs", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


fuzz = _fuzz()


@pytest.mark.parametrize("chunk", [c if c < DEFAULT_CHUNKS else pytest.param(c, marks=pytest.mark.slow)
                                   for c in range(CHUNKS)])
def test_fuzzed_specs_end_in_success_or_a_clean_error(chunk):
    indices = list(range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK))
    results = fuzz.run(SEED, indices, timeout=60.0)
    assert [r["index"] for r in results] == indices
    bad = [r for r in results if r["kind"] not in fuzz.GOOD]
    assert not bad, "\n\n".join(
        f"seed {SEED} trial {r['index']} ({r['op']}): {r['kind']} at {r['stage']}\n  " + "\n  ".join(r["mutations"])
        + "\n" + r["detail"] for r in bad)


def test_the_fuzzer_is_seeded_and_reaches_every_stage():
    assert fuzz.make_trial(SEED, 7).files == fuzz.make_trial(SEED, 7).files
    assert fuzz.make_trial(SEED, 7).mutations == fuzz.make_trial(SEED, 7).mutations
    kinds = {m.split(":")[0] for i in range(CHUNKS * PER_CHUNK) for m in fuzz.make_trial(SEED, i).mutations}
    assert kinds == set(fuzz.MUTATIONS)


def test_the_fuzzer_classifies_a_traceback_and_a_side_effect(tmp_path, monkeypatch):
    """The oracle itself: a crash in a command is a traceback, not a clean error."""
    monkeypatch.setattr("specgen.commands.lint.lint_paths", lambda paths: 1 / 0)
    trial = fuzz.make_trial(SEED, 0)
    result = fuzz.run_trial(trial, tmp_path)
    assert result["kind"] == "traceback" and "ZeroDivisionError" in result["detail"]
