"""Breakpoints come from the formula, solved exactly."""
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


def test_non_affine_equations_are_reported_not_guessed():
    node = parse_formula("where(x > 0, x, alpha * (exp(x) - 1))", ["x"], ["alpha"])
    a = analyse(node, "x", {"alpha": 1.0})
    assert a.values == [Fraction(0)]
    assert any("exp" in u for u in a.unsolved)


def test_clamp_and_abs():
    node = parse_formula("clamp(abs(x) - 2, lo, 3)", ["x"], ["lo"])
    a = analyse(node, "x", {"lo": -1.0})
    assert a.values == [Fraction(-5), Fraction(-1), Fraction(0), Fraction(1), Fraction(5)]
