"""The fake adapters against the committed corpus: the designed cases (breakpoints, non-default
attributes, rank >= 5, > 65,536 elements, in-place, strided, must-reject) catch each defect, and the
correct fakes pass."""
from __future__ import annotations

import pytest

from specgen.adapters.registry import load_object
from specgen.runner.cases import Filters, load_cases, select
from specgen.runner.core import FAIL, PASS, Runner
from specgen.spec.loader import load_all

try:
    from specgen.numerics.compare import compare as COMPARE
except ImportError:  # pragma: no cover
    pytest.skip("the error model is not in this checkout", allow_module_level=True)

SPECS = load_all()
ALL = load_cases()
SCOPE = Filters(ops=("hard_sigmoid", "shrink", "softsign"), dtypes=("float32", "float16"), kinds=("positive",))
POSITIVE = [c for c in select(ALL, SCOPE) if (c.standard, c.version) in (("onnx", "22"), ("onnx", "9"), ("directml", "3_0"))]


def run(name, cases):
    assert cases
    return Runner(load_object(name, f"fake_adapters:{name}"), SPECS, compare=COMPARE, probe=False).run(cases).results


def tagged(tag, cases=POSITIVE):
    return [c for c in cases if tag in c.tags]


@pytest.mark.parametrize("name", ["Correct", "RoundsDifferently"])
def test_correct_fakes_pass_the_corpus(name):
    bad = [(r.case_id, r.reason) for r in run(name, POSITIVE) if r.verdict != PASS]
    assert bad == []


@pytest.mark.parametrize("name, tag, why", [
    ("WrongStrided", "strided", "non-contiguous"),
    ("WrongInPlace", "in-place", "in-place"),
    ("WrongLarge", "large", "out of bound"),
])
def test_layout_and_size_defects_are_caught_by_their_cases(name, tag, why):
    cases = tagged(tag)
    results = run(name, cases)
    assert {r.verdict for r in results} == {FAIL}, [(r.case_id, r.verdict) for r in results if r.verdict != FAIL]
    assert all(why in r.reason for r in results)


def test_rank5_defect_is_caught_exactly_on_rank_5_and_up():
    cases = [c for c in POSITIVE if c.standard == "directml" and "rank-sweep" in c.tags]
    got = {(len(c.shapes["x"]), r.verdict) for c, r in zip(cases, run("WrongRank5", cases))}
    ranks_failed = {rank for rank, v in got if v == FAIL}
    ranks_passed = {rank for rank, v in got if v == PASS}
    assert ranks_failed and min(ranks_failed) == 5 and ranks_passed and max(ranks_passed) == 4


def test_threshold_defect_is_caught_exactly_at_the_threshold():
    import numpy as np

    cases = [c for c in POSITIVE if c.op == "shrink"]
    results = run("WrongAtThreshold", cases)
    failed = [(c, r) for c, r in zip(cases, results) if r.verdict == FAIL]
    assert any("breakpoints" in c.tags for c, _ in failed)
    for c, r in failed:  # every failure is at x = +-threshold (as the case's dtype holds it)
        x = abs(float(np.dtype(c.dtype).type(r.detail["worst"]["input"]["decimal"])))
        assert x == abs(float(np.dtype(c.dtype).type(c.attributes["threshold"]))), (c.id, r.reason)


def test_ignored_attribute_is_caught_by_the_non_default_attribute_sets():
    cases = [c for c in POSITIVE if c.op == "hard_sigmoid" and c.standard == "onnx"]
    failed = [c for c, r in zip(cases, run("IgnoresAttribute", cases)) if r.verdict == FAIL]
    assert failed and all(abs(c.attributes["alpha"] - 0.2) > 1e-6 for c in failed)


def test_accepting_illegal_calls_fails_every_must_reject_case():
    cases = select(ALL, Filters(ops=("hard_sigmoid",), standards=("directml",), versions=("3_0",), kinds=("negative",)))
    results = run("AcceptsIllegal", cases)
    assert {r.verdict for r in results} == {FAIL}
    assert all(r.reason.startswith("accepted an illegal call") for r in results)
