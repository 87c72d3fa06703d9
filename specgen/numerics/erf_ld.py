"""erf and erfc in x87 long double for numpy arrays (numpy has neither), for the golden values'
second enclosure pass (specgen.numerics.libm via the function table rows' ``libm``).

- |x| < 1/2: erf by its Taylor series at 0 (alternating, the first term dominates), erfc = 1 - erf;
- 1/2 <= |x| < 8: erfc by its Taylor series at the nearest point c of a grid of step 1/64, from
  coefficients computed once with mpmath (d^n/dx^n erfc(x) = (-1)^n (2/sqrt(pi)) H_(n-1)(x)
  e^(-x^2)): |x - c| <= 1/128, so 16 terms reach 2^-70 relative; erf = 1 - erfc (erfc <= 0.48);
- |x| >= 8: erfc(x) = e^(-x^2) / sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))), a continued
  fraction evaluated 40 levels deep (converged far beyond 2^-64 for x >= 8), x^2 split exactly
  (TwoProduct) so that e^(-x^2) carries no error of x^2's rounding; erf = 1 - erfc;
- x < 0: erf(-x) = -erf(x), erfc(-x) = 2 - erfc(x).
The error is measured against mpmath by tests/test_libm.py (the rows' long double bounds).
"""
from __future__ import annotations

import functools

import numpy as np

_L = np.longdouble
STEP = 64  # grid points per unit
GRID_LO, GRID_HI = 0.5, 8.0
TERMS = 16
CF_DEPTH = 40


@functools.lru_cache(maxsize=1)
def _table():
    """Per grid point c: the Taylor coefficients of erfc at c, as long doubles (rows: points)."""
    import mpmath
    from mpmath import libmp

    points = np.arange(int(GRID_LO * STEP), int(GRID_HI * STEP) + 1) / STEP
    coef = np.zeros((len(points), TERMS + 1), dtype=_L)
    with mpmath.workprec(160):
        k = 2 / mpmath.sqrt(mpmath.pi)
        for i, c in enumerate(points):
            c = mpmath.mpf(c)
            g = k * mpmath.exp(-c * c)
            # Hermite polynomials H_0 .. H_(TERMS-1) at c (physicists': H_(n+1) = 2c H_n - 2n H_(n-1))
            h = [mpmath.mpf(1), 2 * c]
            while len(h) < TERMS:
                n = len(h) - 1
                h.append(2 * c * h[n] - 2 * n * h[n - 1])
            vals = [mpmath.erfc(c)] + [(-1) ** n * g * h[n - 1] / mpmath.factorial(n) for n in range(1, TERMS + 1)]
            for j, v in enumerate(vals):
                coef[i, j] = _to_ld(v, libmp)
    return points.astype(_L), coef


def _to_ld(v, libmp) -> np.longdouble:
    """An mpf rounded to the nearest long double (64-bit significand)."""
    sign, man, exp, bc = libmp.normalize(*v._mpf_, 64, "n") if v != 0 else (0, 0, 0, 0)
    if man == 0:
        return _L(0)
    return _L(-1 if sign else 1) * np.ldexp(_L(int(man)), int(exp))


def _erf_small(x):
    """erf for |x| < 1/2: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))."""
    x2 = x * x
    term = x.copy()  # x^(2n+1) / n!
    total = x.copy()
    for n in range(1, 30):
        term = -term * x2 / _L(n)
        total = total + term / _L(2 * n + 1)
    return total * _two_over_sqrt_pi()


@functools.lru_cache(maxsize=1)
def _two_over_sqrt_pi():
    import mpmath
    from mpmath import libmp
    with mpmath.workprec(160):
        return _to_ld(2 / mpmath.sqrt(mpmath.pi), libmp)


@functools.lru_cache(maxsize=1)
def _one_over_sqrt_pi():
    import mpmath
    from mpmath import libmp
    with mpmath.workprec(160):
        return _to_ld(1 / mpmath.sqrt(mpmath.pi), libmp)


def _erfc_grid(a):
    """erfc for 1/2 <= a < 8 (a >= 0): Taylor series at the nearest grid point."""
    points, coef = _table()
    idx = np.clip(np.rint((a - _L(GRID_LO)) * STEP).astype(np.int64), 0, len(points) - 1)
    h = a - points[idx]  # exact (Sterbenz: a and the grid point are within a factor 2)
    c = coef[idx]
    acc = c[:, TERMS].copy()
    for j in range(TERMS - 1, -1, -1):
        acc = acc * h + c[:, j]
    return acc


def _erfc_cf(a):
    """erfc for a >= 8: the continued fraction, CF_DEPTH levels."""
    acc = a.copy()
    for n in range(CF_DEPTH, 0, -1):
        acc = a + _L(n) / _L(2) / acc
    hi = a * a
    lo = _two_prod_err(a, a, hi)  # a^2 = hi + lo exactly: exp(-a^2) without the rounding of a^2 (x 600 at a = 25)
    with np.errstate(under="ignore"):
        return np.exp(-hi) * (_L(1) - lo) * _one_over_sqrt_pi() / acc


_SPLIT = _L(2 ** 32 + 1)  # Dekker's splitter for a 64-bit significand


def _two_prod_err(a, b, p):
    """The exact error a*b - p of the long double product p (Dekker's TwoProduct)."""
    def split(x):
        c = _SPLIT * x
        h = c - (c - x)
        return h, x - h
    ah, al = split(a)
    bh, bl = split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _erfc_pos(a):
    """erfc for a >= 0."""
    out = np.empty_like(a)
    small, mid, big = a < _L(GRID_LO), (a >= _L(GRID_LO)) & (a < _L(GRID_HI)), a >= _L(GRID_HI)
    if small.any():
        out[small] = _L(1) - _erf_small(a[small])
    if mid.any():
        out[mid] = _erfc_grid(a[mid])
    if big.any():
        out[big] = _erfc_cf(a[big])
    return out


def erfc(x):
    x = np.asarray(x, dtype=_L)
    flat = x.ravel()
    out = np.empty_like(flat)
    nan = np.isnan(flat)
    a = np.where(nan, _L(0), np.abs(flat))
    pos = _erfc_pos(np.where(np.isinf(a), _L(GRID_HI * 100), a))
    out[:] = np.where(flat < 0, _L(2) - pos, pos)
    out[nan] = np.nan
    return out.reshape(x.shape)


def erf(x):
    x = np.asarray(x, dtype=_L)
    flat = x.ravel()
    nan = np.isnan(flat)
    a = np.where(nan, _L(0), np.abs(flat))
    a = np.where(np.isinf(a), _L(GRID_HI * 100), a)
    small = a < _L(GRID_LO)
    mag = np.empty_like(a)
    if small.any():
        mag[small] = _erf_small(a[small])
    if (~small).any():
        mag[~small] = _L(1) - _erfc_pos(a[~small])
    out = np.where(flat < 0, -mag, mag)
    out[nan] = np.nan
    return out.reshape(x.shape)
