"""The CI gate: baseline entries turn known failures into xfail; new failures fail; xpass is
reported (and fails with --strict); entries that match nothing are reported."""
from __future__ import annotations

import pytest

import fake_adapters as fa
from fake_adapters.cases import case
from specgen.adapters.registry import load_object
from specgen.runner.baseline import Baseline, BaselineError, from_results, merge
from specgen.runner.core import FAIL, PASS, Runner, XFAIL, XPASS
from specgen.spec.loader import load_all

from specgen.numerics.compare import compare as COMPARE

SPECS = load_all()


def run_with(cls, cases, text, strict=False):
    loaded = load_object(cls.__name__, f"fake_adapters:{cls.__name__}")
    return Runner(loaded, SPECS, compare=COMPARE, probe=False).run(cases, baseline=Baseline.parse(text, "b.yaml"),
                                                                   strict=strict)


CASES = [case("hard_sigmoid", name="defaults"),
         case("hard_sigmoid", attributes={"alpha": -0.7, "beta": 0.3}, name="attrs-nondefault"),
         case("shrink", version="9", attributes={"bias": 0.25, "threshold": 0.5},
              x=[-0.75, -0.5, 0.0, 0.5, 0.75], name="threshold")]

BASELINE = """
known_failures:
  - case: "hard_sigmoid/onnx-22/*/attrs-nondefault"
    reason: alpha is ignored (BUG-123)
  - case: "softsign/*"
    reason: an entry that matches nothing
"""


def test_known_failure_is_xfail_and_a_new_failure_still_fails():
    run = run_with(fa.IgnoresAttribute, CASES, BASELINE)
    v = {r.case_id.split("/")[-1]: r for r in run.results}
    assert v["attrs-nondefault"].verdict == XFAIL and v["attrs-nondefault"].original_verdict == FAIL
    assert v["attrs-nondefault"].baseline == "alpha is ignored (BUG-123)"
    assert v["threshold"].verdict == FAIL  # not in the baseline: a new failure
    assert run.exit_code() == 1
    assert [e["case"] for e in run.baseline_unmatched] == ["softsign/*"]


def test_all_known_failures_exit_0_and_xpass_is_reported_and_strict_fails():
    text = BASELINE + '  - case: "shrink/*"\n    reason: threshold bug\n'
    run = run_with(fa.IgnoresAttribute, CASES, text)
    assert run.exit_code() == 0
    run = run_with(fa.Correct, CASES, text)
    assert [r.verdict for r in run.results].count(XPASS) == 2
    assert run.exit_code() == 0
    assert run_with(fa.Correct, CASES, text, strict=True).exit_code() == 1


@pytest.mark.parametrize("text, message", [
    ("known_failures:\n  - case: 'a/*'\n", "b.yaml:2:5: known_failures[0]: missing required key 'reason'"),
    ("known_failures:\n  - case: 'a/*'\n    reason: '  '\n", "b.yaml:3:5: known_failures[0].reason: entry has no reason"),
    ("known_failures:\n  - reason: x\n", "b.yaml:2:5: known_failures[0]: the entry selects nothing"),
    ("known_failures:\n  - case: a\n    reason: b\n    why: c\n", "b.yaml:4:5: known_failures[0].why: unknown key 'why'"),
    ("known_failure: []\n", "b.yaml:1:1: known_failure: unknown key 'known_failure'"),
    ("known_failures: {a: b}\n", "b.yaml:1:1: known_failures: must be a list, got a mapping"),
    ("- a\n", "b.yaml:1:1: <document>: top level must be a mapping"),
    ("known_failures: [\n", "b.yaml:2:1: "),
    ("known_failures:\n  - op: gelu\n    fails: [{kind: value, max_ulp: -1}]\n    reason: r\n",
     "b.yaml:3:27: known_failures[0].fails[0].max_ulp: must be >= 0"),
    ("known_failures:\n  - op: gelu\n    fails: [{kind: nan}]\n    reason: r\n", "known_failures[0].fails[0].kind"),
    ("known_failures:\n  - op: gelu\n    fails:\n      - kind: value\n        where: 'x >'\n    reason: r\n",
     "b.yaml:5:9: known_failures[0].fails[0].where: the condition 'x >' is not valid"),
    ("known_failures:\n  - op: gelu\n    fails:\n      - kind: value\n        where: 'x.real > 1'\n    reason: r\n",
     "attribute access"),
    ("known_failures:\n  - {id: a, op: gelu, reason: r}\n  - {id: a, op: elu, reason: r}\n",
     "b.yaml:3:6: known_failures[1].id: id 'a' is already used by the entry at line 2"),
    ("known_failures:\n  - {op: gelu, reason: r, backend: 'about 2'}\n", "known_failures[0].backend: "),
    ("known_failures:\n  - {op: gelu, reason: r, cpu: AVX513}\n", "b.yaml:2:27: known_failures[0].cpu: unknown CPU feature 'AVX513'"),
    ("known_failures:\n  - {op: gelu, reason: r, cpu: 'avx2+'}\n", "known_failures[0].cpu: "),
])
def test_malformed_baselines_are_rejected_with_the_place(text, message):
    with pytest.raises(BaselineError) as info:
        Baseline.parse(text, "b.yaml")
    assert message in str(info.value)


def test_written_baseline_has_todo_reasons_that_loading_refuses_until_replaced():
    run = run_with(fa.IgnoresAttribute, CASES, "")
    text = from_results(run.results, "x")
    failing = [r for r in run.results if r.verdict == FAIL]
    ops = sorted({r.op for r in failing})
    assert failing and text.count('reason: "TODO: ') == len(ops)  # one entry per op, not per case
    with pytest.raises(BaselineError) as info:
        Baseline.parse(text, "b.yaml")
    assert str(info.value).startswith("b.yaml:") and "replace the TODO reason with why this failure is known" in str(info.value)
    text = text.replace('"TODO: ', '"known: BUG-1 ')
    b = Baseline.parse(text)
    assert [e.op for e in b.entries] == [(op,) for op in ops] and all(e.clauses for e in b.entries)
    again = run_with(fa.IgnoresAttribute, CASES, text)
    assert again.exit_code() == 0 and all(r.verdict in (PASS, XFAIL) for r in again.results)


def test_a_merged_baseline_keeps_the_human_reasons_and_adds_only_the_new_cause():
    run = run_with(fa.IgnoresAttribute, CASES, BASELINE)
    merged = merge(run, Baseline.parse(BASELINE, "b.yaml"), "x")
    assert "reason: alpha is ignored (BUG-123)" in merged.text and merged.text.count('"TODO: ') == 1  # shrink
    assert [e["op"] for e in merged.added] == [["shrink"]]


@pytest.mark.parametrize("reason", ["TODO", "TODO: y: 2 of 5 elements out of bound", "todo later"])
def test_todo_reasons_are_refused(reason):
    with pytest.raises(BaselineError, match="b.yaml:3:5: known_failures.0..reason: entry 'a/\\*' .*replace the TODO reason"):
        Baseline.parse(f"known_failures:\n  - case: 'a/*'\n    reason: {reason!r}\n", "b.yaml")
