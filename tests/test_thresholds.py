"""Threshold crossings (issue 19 item 5): the critical arguments of the function table per float
type, their solution through a formula, the ``thresholds`` case they design, and the defects those
cases catch that no other case does (a Softplus returning x above a threshold, an exp that
overflows a binade early)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from specgen.formula.critical import critical_arguments
from specgen.formula.parser import parse_formula
from specgen.formula.thresholds import crossings
from specgen.generate.design import Stream, THRESHOLD_STRATA, threshold_values
from specgen.numerics.ulp import step
from specgen.runner.cases import Filters, load_cases, select
from specgen.spec.loader import load_all

SPECS = load_all()


def _critical(function, dtype, name):
    return next(c for c in critical_arguments(function, dtype) if c.name == name)


def _adjacent(c):
    """below and above are neighbours in the type's order."""
    return float(step(np.array([c.below]).astype(np.dtype(_NP[c.dtype])), 1, c.dtype)[0]) == c.above


_NP = {"float16": "float16", "float32": "float32", "float64": "float64"}


@pytest.mark.parametrize("dtype, p, emax", [("float16", 11, 15), ("float32", 24, 127)])
def test_exp_critical_arguments_are_the_derived_values(dtype, p, emax):
    """exp(t) rounds to inf from ln((2 - 2^-p) * 2^emax) on (max finite + half an ULP); 1 + exp(t)
    rounds to 1 up to ln(2^-p) (half an ULP of 1); exp(t) dwarfs the 1 from ln(2^p); it rounds to 0
    up to ln(2^(emin - p + 1) / 2) (half the smallest subnormal)."""
    emin = 1 - emax
    with mpmath.workprec(200):
        derived = {"overflow": mpmath.log((2 - mpmath.mpf(2) ** (1 - p)) * mpmath.mpf(2) ** emax),
                   "negligible-next-to-one": -p * mpmath.log(2),
                   "one-negligible": p * mpmath.log(2),
                   "subnormal": emin * mpmath.log(2),
                   "underflow": (emin - p) * mpmath.log(2)}
        for name, t in derived.items():
            c = _critical("exp", dtype, name)
            assert _adjacent(c), (name, c)
            assert c.below < t <= c.above, (name, float(t), c.below, c.above)
    assert _critical("exp", "float32", "overflow").above == 88.72283935546875
    assert _critical("exp", "float16", "overflow").below == 11.0859375


def test_saturation_of_tanh_and_erf():
    """tanh(t) rounds to 1 once 1 - tanh(t) = 2/(e^2t + 1) is below half an ULP below 1 (2^-25 in
    float32): t ~ 26 ln(2) / 2 = 9.0109; erf rounds to 1 at 3.9192 (float32)."""
    c = _critical("tanh", "float32", "saturation+")
    with mpmath.workprec(200):
        assert _adjacent(c) and c.below < 13 * mpmath.log(2) <= c.above
        assert mpmath.tanh(c.above) > 1 - mpmath.mpf(2) ** -25 > mpmath.tanh(c.below)
    e = _critical("erf", "float32", "saturation+")
    assert 3.9192 < e.above < 3.9193 and _adjacent(e)
    assert [x.name for x in critical_arguments("sqrt", "float32")] == []


def test_softplus_and_sigmoid_crossings_float32_and_float16():
    """Softplus crosses exp's arguments at x itself; Sigmoid 1 / (1 + exp(-x)) at the mirrored
    inputs; float16 inputs get float16's own thresholds and float32's (the widened kernel)."""
    softplus, sigmoid = SPECS["softplus"].formula, SPECS["sigmoid"].formula
    sp32 = {c.critical.name: float(c.value) for c in crossings(softplus, "x", {"steepness": 1.0}, "float32")}
    assert sp32 == pytest.approx({"underflow": -103.972077, "subnormal": -87.336544, "negligible-next-to-one": -16.635532,
                                  "one-negligible": 16.635532, "overflow": 88.722839}, abs=1e-5)
    sg32 = {c.critical.name: float(c.value) for c in crossings(sigmoid, "x", {}, "float32")}
    assert sg32 == pytest.approx({k: -v for k, v in sp32.items()}, abs=1e-5)
    sg16 = {(c.critical.dtype, c.critical.name): float(c.value) for c in crossings(sigmoid, "x", {}, "float16")}
    assert sg16[("float16", "overflow")] == pytest.approx(-math.log(65520), abs=4e-3)  # exp(-x) past 65504 + 8
    assert sg16[("float16", "negligible-next-to-one")] == pytest.approx(11 * math.log(2), abs=4e-3)
    assert sg16[("float32", "overflow")] == sg32["overflow"]


def test_crossings_follow_the_argument_through_the_formula():
    """exp(x / alpha) crosses at alpha times exp(x)'s arguments; a cubic argument (GELU's tanh
    form) is solved too."""
    f = parse_formula("alpha * (exp(x / alpha) - 1)", ["x"], ["alpha"])
    one = {c.critical.name: c.value for c in crossings(f, "x", {"alpha": 1.0}, "float32")}
    three = {c.critical.name: c.value for c in crossings(f, "x", {"alpha": 3.0}, "float32")}
    assert set(one) == set(three) and all(abs(three[k] - 3 * one[k]) < 1e-9 * abs(one[k]) for k in one)
    g = parse_formula("tanh(x + x * x * x)", ["x"], [])
    roots = [float(c.value) for c in crossings(g, "x", {}, "float32") if c.critical.name == "saturation+"]
    assert len(roots) == 1 and abs(roots[0] + roots[0] ** 3 - 9.0109134) < 1e-5


def test_threshold_values_hold_both_sides_and_every_stratum_deterministically():
    found = crossings(SPECS["softplus"].formula, "x", {"steepness": 1.0}, "float32")
    a = threshold_values(found, "float32", Stream("t/softplus"))
    b = threshold_values(found, "float32", Stream("t/softplus"))
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != threshold_values(found, "float32", Stream("t/other")).tobytes()
    for c in found:
        assert np.any(a.astype(np.float64) < float(c.value)) and np.any(a.astype(np.float64) > float(c.value))
        assert {c.critical.below, c.critical.above} <= set(a.astype(np.float64).tolist())
    lo, hi = (float(c.value) for c in found if abs(float(c.value)) < 17)
    width = (hi - lo) / THRESHOLD_STRATA
    inner = np.sort(a[(a > lo) & (a < hi)].astype(np.float64))
    for k in range(THRESHOLD_STRATA):  # one sample per slice of the region between the two crossings
        assert np.any((inner >= lo + k * width) & (inner <= lo + (k + 1) * width)), k


# ---------------------------------------------------------------------------- the defects they catch

CASES = load_cases()


def _run(name, cases):
    from specgen.adapters.registry import load_object
    from specgen.numerics.compare import compare
    from specgen.runner.core import Runner
    assert cases
    adapter = load_object(name, f"fake_adapters.shortcuts:{name}")
    return Runner(adapter, SPECS, compare=compare, probe=False).run(cases).results


def _softplus(dtype):
    return [c for c in select(CASES, Filters(ops=("softplus",), standards=("onnx",), dtypes=(dtype,),
                                             kinds=("positive",)))]


def _failed(name, cases):
    from specgen.runner.core import FAIL
    return [c for c, r in zip(cases, _run(name, cases)) if r.verdict == FAIL]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_stable_softplus_passes_every_onnx_case(dtype):
    assert _failed("StableSoftplus", _softplus(dtype)) == []


def _designs(cases):
    return {c.id.split("/")[4].split("[")[0] for c in cases}


@pytest.mark.parametrize("name, dtype", [("SoftplusReturnsXAbove10", "float32"), ("SoftplusReturnsXAbove10", "float64"),
                                         ("SoftplusReturnsXAbove20", "float64")])
def test_shortcuts_fail_and_only_the_thresholds_cases_catch_them(name, dtype):
    failed = _failed(name, _softplus(dtype))
    assert failed and _designs(failed) == {"thresholds"}, [c.id for c in failed]


def test_an_early_overflow_fails_in_the_thresholds_cases():
    """An exp that overflows one binade early gives inf where the exact value is finite: the judge fails
    that wherever an input lies above ln(max / 2) (a catastrophic result, never a rounding); the
    thresholds cases are the ones that put inputs right at the crossing."""
    failed = _failed("SoftplusEarlyOverflow", _softplus("float32"))
    assert "thresholds" in _designs(failed), [c.id for c in failed]


def test_the_pytorch_threshold_is_right_in_float32():
    """softplus(x) for x > 20 rounds to x in float32 (log1p(exp(-20)) is 0.001 ULP of 20): no case fails it."""
    assert _failed("SoftplusReturnsXAbove20", _softplus("float32")) == []
