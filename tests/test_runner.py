"""The runner core against fake adapters that are wrong in specific ways (tests/fake_adapters)."""
from __future__ import annotations

import numpy as np

import fake_adapters as fa
from fake_adapters.cases import case, standard_set
from specgen.adapters.registry import load_object
from specgen.runner.core import ERROR, FAIL, PASS, UNSUPPORTED, Runner
from specgen.spec.loader import load_all

SPECS = load_all()

from specgen.numerics.compare import compare as COMPARE


def runner_for(cls, **kw) -> Runner:
    loaded = load_object(cls.__name__, f"fake_adapters:{cls.__name__}")
    return Runner(loaded, SPECS, compare=COMPARE, **kw)


def verdicts(cls, cases=None, **kw) -> dict[str, object]:
    run = runner_for(cls, **kw).run(cases if cases is not None else standard_set())
    return {r.case_id.split("/")[-1]: r for r in run.results}


def test_correct_adapter_passes_everything():
    got = verdicts(fa.Correct)
    assert {k: r.verdict for k, r in got.items() if r.verdict != PASS} == {}


def test_adapter_rounding_differently_within_the_bound_passes():
    got = verdicts(fa.RoundsDifferently)
    assert {k: (r.verdict, r.reason) for k, r in got.items() if r.verdict != PASS} == {}


def _only_failure(got, name, verdict=FAIL):
    bad = {k: r for k, r in got.items() if r.verdict != PASS}
    assert list(bad) == [name], {k: (r.verdict, r.reason) for k, r in bad.items()}
    assert bad[name].verdict == verdict
    return bad[name]


def test_ignored_attribute_is_caught_only_where_the_attribute_matters():
    got = verdicts(fa.IgnoresAttribute)
    bad = {k: r.verdict for k, r in got.items() if r.verdict != PASS}
    assert bad == {"attrs-nondefault": FAIL, "threshold": FAIL}


def test_wrong_at_threshold_is_caught_with_the_worst_element_at_the_threshold():
    r = _only_failure(verdicts(fa.WrongAtThreshold), "threshold")
    worst = r.detail["worst"]
    assert abs(float(worst["input"]["decimal"])) == 0.5
    assert r.detail["mismatches"] == 2


def test_wrong_for_rank_5_only():
    r = _only_failure(verdicts(fa.WrongRank5), "rank5")
    assert r.shape == [2, 2, 2, 2, 3]


def test_wrong_for_large_tensors_only():
    r = _only_failure(verdicts(fa.WrongLarge), "large")
    assert r.detail["total"] == 75000 and 0 < r.detail["mismatches"] <= 75000 - 65536


def test_wrong_only_in_place():
    r = _only_failure(verdicts(fa.WrongInPlace), "in-place")
    assert "in-place" in r.reason
    assert any("did not write the result into the buffer" in n for n in r.notes)


def test_wrong_only_for_non_contiguous_input():
    r = _only_failure(verdicts(fa.WrongStrided), "strided")
    assert "non-contiguous" in r.reason


def test_accepting_illegal_calls_fails_the_must_reject_cases():
    got = verdicts(fa.AcceptsIllegal)
    bad = {k: r for k, r in got.items() if r.verdict != PASS}
    assert set(bad) == {"neg-rank9", "neg-shape-mismatch"}
    assert all(r.verdict == FAIL and r.reason.startswith("accepted an illegal call") for r in bad.values())
    assert "rank 9" in bad["neg-rank9"].reason


def test_running_illegal_calls_without_accepts_fails_them_too():
    got = verdicts(fa.RunsIllegal, [c for c in standard_set() if c.kind == "negative"])
    assert {r.verdict for r in got.values()} == {FAIL}
    assert all("ran it without complaint" in r.reason for r in got.values())


def test_correct_adapter_rejects_illegal_calls():
    got = verdicts(fa.Correct, [c for c in standard_set() if c.kind == "negative"])
    assert {r.verdict for r in got.values()} == {PASS}


def test_wrong_dtype_and_wrong_shape_are_errors():
    got = verdicts(fa.WrongDtype, [case("hard_sigmoid")])
    (r,) = got.values()
    assert r.verdict == ERROR and r.reason == "wrong dtype for y: got float64, expected float32"
    (r,) = verdicts(fa.WrongShape, [case("hard_sigmoid")]).values()
    assert r.verdict == ERROR and "wrong shape for y: got (24,), expected (2, 3, 4)" in r.reason


def test_a_crash_is_an_error_and_the_run_goes_on():
    cases = [case("hard_sigmoid", name=f"c{i}", seed=i) for i in range(3)]
    run = runner_for(fa.Crashing).run(cases)
    assert [r.verdict for r in run.results] == [ERROR] * 3
    assert "RuntimeError: backend exploded" in run.results[0].reason
    assert run.exit_code() == 1


def test_claimed_dtype_that_errors_fails_and_unclaimed_dtype_that_works_is_reported():
    cases = [case("hard_sigmoid", dtype="float32"), case("hard_sigmoid", dtype="float16")]
    got = {r.dtype: r for r in runner_for(fa.CrashingFloat16).run(cases).results}
    assert got["float32"].verdict == PASS
    assert got["float16"].verdict == ERROR and "NotImplementedError: float16 kernel not built" in got["float16"].reason
    run = runner_for(fa.Float32Only).run(cases)
    got = {r.dtype: r for r in run.results}
    assert got["float16"].verdict == UNSUPPORTED and got["float16"].reason.startswith("dtype float16 is not claimed")
    (probe,) = run.probes
    assert (probe.op, probe.dtype, probe.outcome) == ("hard_sigmoid", "float16", "works")


def test_a_group_the_adapter_explains_is_reported_not_probed():
    cases = [case("hard_sigmoid", dtype="float32"), case("hard_sigmoid", dtype="float16")]
    run = runner_for(fa.Float32OnlyExplained).run(cases)
    got = {r.dtype: r for r in run.results}
    assert got["float16"].verdict == UNSUPPORTED
    assert got["float16"].reason.endswith("; the adapter says: float16 kernel not built in this configuration")
    assert run.probes == []


def test_the_probe_runs_a_case_that_can_fail_not_the_smallest():
    """A 1-element case at a saturated input (HardSigmoid(65504) = 1) told a float16 kernel that only
    clamps x that it "works although not claimed" (issue 24 item 6): the probe runs the case with the
    most distinct expected values instead."""
    cases = [case("hard_sigmoid", dtype="float32"),
             case("hard_sigmoid", dtype="float16", x=np.array(65504.0), name="saturated"),
             case("hard_sigmoid", dtype="float16", x=np.linspace(-6, 6, 25).reshape(5, 5), name="regions")]
    run = runner_for(fa.Float32OnlyBrokenFloat16).run(cases)
    (probe,) = run.probes
    assert (probe.dtype, probe.outcome, probe.case_id) == ("float16", "runs but fails",
                                                           "hard_sigmoid/onnx-22/float16/rank2/regions")
    broken_at_saturation = runner_for(fa.Float32OnlyBrokenFloat16).run_case(cases[1], ignore_claims=True)
    assert broken_at_saturation.verdict == PASS  # the old probe's case could not fail


def test_an_unclaimed_version_is_probed_with_its_most_telling_case_and_an_unclaimed_op_is_not():
    cases = [case("hard_sigmoid", version="6", shape=(2, 3), name="small"),
             case("hard_sigmoid", version="6", shape=(4, 5, 6), name="big"),
             case("hard_sigmoid", version="22"), case("shrink", version="9")]
    run = runner_for(fa.Version22Only).run(cases)
    assert [r.verdict for r in run.results] == [UNSUPPORTED, UNSUPPORTED, PASS, UNSUPPORTED]
    assert run.results[0].reason == "hard_sigmoid onnx-6 is not claimed"
    (probe,) = run.probes  # shrink: the adapter claims nothing of it in onnx
    assert (probe.op, probe.version, probe.dtype, probe.outcome, probe.cases) == ("hard_sigmoid", "6", "float32", "works", 2)
    assert probe.case_id == "hard_sigmoid/onnx-6/float32/rank3/big"  # more distinct expected values
    assert runner_for(fa.Version22Only, probe=False).run(cases).probes == []


def test_attribute_limited_claim_runs_only_matching_cases():
    sixth = case("hard_sigmoid", attributes={"alpha": 1 / 6, "beta": 0.5}, name="sixth")
    other = case("hard_sigmoid", name="defaults")
    got = verdicts(fa.HardSigmoidSixth, [sixth, other])
    assert got["sixth"].verdict == PASS, got["sixth"].reason
    assert got["defaults"].verdict == UNSUPPORTED and "alpha=0.20000000298023224 is not one of 0.1666666716337204" in got["defaults"].reason


def test_x_plus_3_over_6_is_judged_by_the_error_model_not_excused():
    # torch computes hardsigmoid as (x + 3) / 6: rounding x + 3 first is not an evaluation order of
    # alpha*x + beta, and near 1 it costs about one ULP where the model allows a quarter
    sixth = case("hard_sigmoid", attributes={"alpha": 1 / 6, "beta": 0.5}, name="sixth")
    (r,) = verdicts(fa.HardSigmoidSixthByDivision, [sixth]).values()
    assert r.verdict == FAIL and "ULP > bound" in r.reason


def test_unclaimed_in_place_and_strided_are_unsupported():
    class NoLayouts(fa.Correct):
        in_place = False
        strided = False

    loaded = load_object("NoLayouts", "fake_adapters:Correct")
    loaded.claims = NoLayouts().claims()
    got = {r.case_id.split("/")[-1]: r for r in Runner(loaded, SPECS, compare=COMPARE).run(standard_set()).results}
    assert got["in-place"].verdict == UNSUPPORTED and "in-place" in got["in-place"].reason
    assert got["strided"].verdict == UNSUPPORTED and "strided" in got["strided"].reason


def test_strided_view_holds_the_values_in_a_larger_buffer():
    from specgen.runner.call import strided_view as _strided_view

    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    v = _strided_view(x, [12, -2])
    assert not v.flags.c_contiguous and np.array_equal(v, x)
    assert v.strides == (48, -8)
