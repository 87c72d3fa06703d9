"""Breakpoints come from the formula, solved exactly."""
import math
from fractions import Fraction

import numpy as np

from specgen.formula.breakpoints import analyse
from specgen.formula.parser import parse_formula
from specgen.spec.loader import load_all

SPECS = load_all()


def test_hard_sigmoid_breakpoints_are_alpha_x_plus_beta_0_and_1():
    alpha = float(np.float32(0.2))
    a = analyse(SPECS["hard_sigmoid"].formula, "x", {"alpha": alpha, "beta": 0.5})
    assert a.values == [-Fraction(1, 2) / Fraction(alpha), Fraction(1, 2) / Fraction(alpha)]
    assert not a.unsolved


def test_negative_slope_swaps_the_breakpoints():
    a = analyse(SPECS["hard_sigmoid"].formula, "x", {"alpha": -0.5, "beta": 0.25})
    assert a.values == [Fraction(-3, 2), Fraction(1, 2)]


def test_shrink_breakpoints_are_plus_minus_threshold_and_bias():
    a = analyse(SPECS["shrink"].formula, "x", {"bias": 0.25, "threshold": 0.75})
    assert a.values == [Fraction(-3, 4), Fraction(-1, 4), Fraction(1, 4), Fraction(3, 4)]
    assert {b.equation for b in a.breakpoints} >= {"x = threshold", "x = -threshold", "x - bias = 0.0", "x + bias = 0.0"}


def test_softsign_breaks_at_zero():
    a = analyse(SPECS["softsign"].formula, "x", {})
    assert a.values == [Fraction(0)]


def test_zero_slope_has_no_breakpoint_in_x():
    a = analyse(SPECS["hard_sigmoid"].formula, "x", {"alpha": 0.0, "beta": 0.5})
    assert a.values == []


def test_non_affine_equations_are_located_not_guessed():
    node = parse_formula("where(x > 0, x, alpha * (exp(x) - 1))", ["x"], ["alpha"])
    a = analyse(node, "x", {"alpha": 1.0})
    assert a.values == [Fraction(0)]
    assert not a.unsolved


def test_clamp_and_abs():
    node = parse_formula("clamp(abs(x) - 2, lo, 3)", ["x"], ["lo"])
    a = analyse(node, "x", {"lo": -1.0})
    assert a.values == [Fraction(-5), Fraction(-1), Fraction(0), Fraction(1), Fraction(5)]


# ----------------------------------------------------------------------------- non-affine conditions

from specgen.formula.breakpoints import bisect_roots  # noqa: E402


def _f(text, inputs=("x",), attrs=()):
    return parse_formula(text, list(inputs), list(attrs))


def test_elu_condition_on_the_exp_branch_is_located_and_nothing_is_left_unsolved():
    a = analyse(SPECS["elu"].formula, "x", {"alpha": 1.0})
    assert a.values == [Fraction(0)] and not a.unsolved


def test_a_threshold_on_tanh_is_bracketed_by_adjacent_float64():
    import mpmath
    a = analyse(_f("where(tanh(x) > 0.5, x * x, log1p(exp(x)))"), "x", {})
    (b,) = a.breakpoints
    assert b.located == "bisection" and not a.unsolved
    with mpmath.workprec(200):
        root = mpmath.atanh(mpmath.mpf(0.5))
        near = float(b.value)  # the midpoint of two adjacent float64 rounds to one of them
        pair = sorted({near, np.nextafter(near, -np.inf) if Fraction(near) > b.value else np.nextafter(near, np.inf)})
        assert Fraction(pair[0]) < b.value < Fraction(pair[1]) and np.nextafter(pair[0], np.inf) == pair[1]
        assert mpmath.mpf(pair[0]) < root < mpmath.mpf(pair[1])  # adjacent float64 straddling the root


def test_roots_in_another_input_with_the_others_held():
    roots = bisect_roots(_f("exp(x) - slope", ("x", "slope")), "x", {"slope": 2.0})
    assert len(roots) == 1 and abs(float(roots[0][0]) - math.log(2)) < 1e-15 and not roots[0][1]


def test_exact_zero_of_a_transcendental_branch_is_an_exact_root():
    assert bisect_roots(_f("alpha * (exp(x) - 1)", attrs=("alpha",)), "x", {"alpha": 0.5}) == [(Fraction(0), True)]
    assert bisect_roots(_f("alpha * (exp(x) - 1)", attrs=("alpha",)), "x", {"alpha": 0.0}) == []  # identically 0


def test_a_condition_that_cannot_be_analysed_is_reported_with_its_position():
    a = analyse(_f("where(log(exp(x)) - x > 0, 1, 0)"), "x", {})
    assert a.breakpoints == [] and len(a.unsolved) == 1
    assert "formula line 1, column 7" in a.unsolved[0] and "not piecewise monotone" in a.unsolved[0]
