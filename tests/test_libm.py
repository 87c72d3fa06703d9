"""The libm error bounds the golden-value enclosures assume (specgen/numerics/libm.py) hold here.

Normal suite (a few seconds): 1e5 random points per function for numpy's float64 functions against
the long double evaluation, whose own bound is checked against mpmath on 4e3 points per function
(2e4 in the slow suite); the functions without a long double version (erf, erfc: math.erf,
math.erfc) against mpmath on as many points; the known hard cases against mpmath. benchmarks/bench_libm.py runs 1e6 points per function and type against mpmath.
Each measured worst error must be at most a quarter of the assumed bound (half for sqrt, correctly
rounded by IEEE 754).
"""
from __future__ import annotations

import numpy as np
import pytest

from specgen.numerics.libm import (HARD_CASES, LIBM, LONGDOUBLE_OK, sample_points, supported, ulp_errors,
                                   ulp_errors_against_longdouble)

MARGIN = 4  # assumed bound >= MARGIN x worst measured
SQRT_MARGIN = 2  # sqrt is correctly rounded by IEEE 754 (0.5 ULP); 1 ULP is assumed


def _margin(name):
    return SQRT_MARGIN if name == "sqrt" else MARGIN


def _check(name, ftype, err, slack=0.0):
    worst = float(np.nanmax(err)) - slack  # slack: the reference's own error, included in err
    bound = LIBM[name].ulps[ftype]
    assert worst * _margin(name) <= bound, f"{name} {ftype.__name__}: worst {worst:.3f} ULP, assumed {bound} ULP"
    assert np.isfinite(err).sum() > 0.9 * len(err)
    return worst


@pytest.mark.skipif(not LONGDOUBLE_OK, reason="no x87 long double on this platform")
@pytest.mark.parametrize("name", [n for n in LIBM if supported(n, np.longdouble)])
def test_float64_bound_on_1e5_points_against_long_double(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    pts = sample_points(name, 100_000, rng)
    err = ulp_errors_against_longdouble(name, *pts) if name == "pow" else ulp_errors_against_longdouble(name, pts)
    _check(name, np.float64, err, slack=LIBM[name].ulps[np.longdouble] * 2.0 ** -11)


# every row: 4e3 points in the README's test command (time budget), 2e4 in the slow suite (worst
# measured on 2e4 points: the rows' ``measured``)
_AGAINST_MPMATH = [(n, t) for n in LIBM for t in (np.float64, np.longdouble)
                   if supported(n, t) and (t is np.longdouble or not supported(n, np.longdouble))]


@pytest.mark.parametrize("name,ftype", _AGAINST_MPMATH)
def test_bound_on_4e3_points_against_mpmath(name, ftype):
    _against_mpmath(name, ftype, 4_000)


@pytest.mark.slow
@pytest.mark.parametrize("name,ftype", _AGAINST_MPMATH)
def test_bound_on_2e4_points_against_mpmath(name, ftype):
    _against_mpmath(name, ftype, 20_000)


def _against_mpmath(name, ftype, count):
    rng = np.random.default_rng(7 + sum(map(ord, name)))
    pts = sample_points(name, count, rng, ftype)
    err = ulp_errors(name, ftype, *pts) if name == "pow" else ulp_errors(name, ftype, pts)
    _check(name, ftype, err)


@pytest.mark.parametrize("name", list(LIBM))
def test_known_hard_cases_against_mpmath(name):
    for ftype in (np.float64, np.longdouble):
        if not supported(name, ftype):
            continue
        cases = HARD_CASES[name]
        if name == "pow":
            b, e = (np.array([c[i] for c in cases]) for i in (0, 1))
            err = ulp_errors(name, ftype, b.astype(ftype), e.astype(ftype))
        else:
            x = np.array(cases, dtype=np.float64).astype(ftype)
            err = ulp_errors(name, ftype, x)
        ok = ~np.isnan(err)
        assert ok.sum() >= len(cases) // 2
        assert float(np.max(err[ok])) * _margin(name) <= LIBM[name].ulps[ftype], (name, ftype, err)


def test_the_enclosure_of_a_monotone_function_contains_the_exact_image():
    import mpmath
    from specgen.numerics.libm import image, to_mpf
    rng = np.random.default_rng(3)
    lo = rng.uniform(-5, 5, 200)
    hi = lo + rng.uniform(0, 1e-6, 200)
    for name in ("exp", "expm1", "tanh", "erf"):
        a, b, bad = image(name, lo, hi, np.float64)
        assert not bad.any()
        with mpmath.workprec(120):
            f = getattr(mpmath, name)
            for i in range(0, 200, 7):
                assert to_mpf(a[i]) <= f(to_mpf(lo[i])) and f(to_mpf(hi[i])) <= to_mpf(b[i])


def test_a_decreasing_row_gets_a_reversed_enclosure():
    """erfc (monotone: decreasing in its function-table row): the image of [lo, hi] runs from
    erfc(hi) up to erfc(lo), widened by the row's bound."""
    import mpmath
    from specgen.numerics.libm import image, to_mpf
    assert not LIBM["erfc"].increasing
    rng = np.random.default_rng(4)
    lo = rng.uniform(-5, 27, 200)
    hi = lo + rng.uniform(0, 1e-6, 200)
    a, b, bad = image("erfc", lo, hi, np.float64)
    assert not bad.any() and (a <= b).all()
    with mpmath.workprec(120):
        for i in range(0, 200, 7):
            assert to_mpf(a[i]) <= mpmath.erfc(to_mpf(hi[i])) and mpmath.erfc(to_mpf(lo[i])) <= to_mpf(b[i])
