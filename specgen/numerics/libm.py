"""Rigorous enclosures of the formula functions evaluated with numpy, for golden values.

A numpy call f(t) in float64 (or x87 extended precision, ``np.longdouble``) is not correctly
rounded; this module states how far from f(t) we assume it can be (``LIBM[name].ulps``, in ULPs
of the result's type) and turns an enclosure [lo, hi] of the argument into an enclosure of the
image: every function here is monotone on its domain (pow: in each argument on a positive base),
so the image of [lo, hi] lies between the values at the ends, each widened by the libm bound.

The assumed bounds are a factor of at least 4 above the worst error measured against mpmath
(sqrt: 2, IEEE 754 makes it correctly rounded); tests/test_libm.py checks that in the normal suite
(1e5 points per function for float64 against long double, 2e4 per function against mpmath for
long double and erf, and the known hard cases in HARD_CASES), benchmarks/bench_libm.py with 1e6
random points per function and type against mpmath. A platform whose libm is worse than the bound
fails that test instead of producing a wrong golden value silently. Measured here (x86-64, numpy
2.x, glibc; benchmarks/bench_libm.py, 1e6 points; worst / assumed, in ULPs):

| function | float64 (numpy) | long double (x87, numpy) |
| --- | --- | --- |
| exp   | 0.689 / 8 | 1.102 / 8 |
| expm1 | 0.522 / 8 | 2.396 / 12 |
| log   | 0.597 / 8 | 0.944 / 8 |
| log1p | 0.614 / 8 | 2.424 / 12 |
| tanh  | 1.185 / 8 | 2.851 / 12 |
| sqrt  | 0.500 / 1 | 0.500 / 1 |
| pow   | 0.692 / 8 | 0.895 / 8 |
| erf   | 1.052 / 8 (``math.erf`` per element) | 4.15 / 24 (specgen.numerics.erf_ld; 2.4e4 points) |
| erfc  | 3.12 / 16 (``math.erfc`` per element; 2e4 points) | 3.96 / 24 (specgen.numerics.erf_ld; 2.4e4 points) |

ULPs are those of the exact result's binade, the subnormal spacing below the normal range; the
widening below uses ``ulps * (eps * |v| + tiny_subnormal)``, which covers both.

The bounds, implementations, domains, exact points and ranges are data of the formula function
table (specgen/formula/functions.py, each row's ``libm``): LIBM below is a view of the rows that
have one, so a function gets the fast path by its row (erfc: math.erfc, worst 3.12 ULPs measured on 2e4
points near 1.22, assumed 16).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np

LONGDOUBLE_OK = np.finfo(np.longdouble).nmant >= 63  # x87 extended (x86-64 Linux); elsewhere skipped


@dataclass(frozen=True)
class LibmFunction:
    """One function's fast path: its row's ``libm`` (specgen.formula.functions.Libm) with its name
    and direction."""

    name: str
    numpy: dict  # float type -> vectorised callable
    ulps: dict  # float type -> assumed max error in ULPs of that type
    increasing: bool  # monotone increasing on its domain, else decreasing (pow: see image_pow)
    domain: tuple[float, float]  # closed hull of the real domain
    exact: dict  # argument -> exact result (the only rational arguments with a rational image)
    measured: dict  # float type -> max ULP error measured (bench_libm.py, 1e6 points; documentation)
    range: tuple[float, float] = (-math.inf, math.inf)  # every value lies here
    sign: str | None = None  # "positive" | "argument" | None (specgen.formula.functions.Libm)
    monotone: bool = True  # False (sin, cos, tan, cosh): point arguments only, an interval is ``bad``


def _from_rows() -> dict[str, LibmFunction]:
    from specgen.formula.functions import FUNCTIONS

    return {name: LibmFunction(name, f.libm.numpy, f.libm.ulps, f.monotone != "decreasing", f.libm.domain,
                               f.libm.exact, f.libm.measured, f.libm.range, f.libm.sign, f.libm.monotone)
            for name, f in FUNCTIONS.items() if f.libm is not None}


_F, _L = np.float64, np.longdouble

LIBM: dict[str, LibmFunction] = _from_rows()


def supported(name: str, ftype) -> bool:
    f = LIBM.get(name)
    return f is not None and ftype in f.numpy and (ftype is not np.longdouble or LONGDOUBLE_OK)


def widen(v: np.ndarray, ulps: float, ftype):
    """(lower, upper): every real within ``ulps`` ULPs of the computed ``v`` (ULPs of the exact value,
    which is within a factor 1 + ulps*eps of v)."""
    fi = np.finfo(ftype)
    tiny = np.asarray(fi.smallest_subnormal, dtype=ftype)
    rel = ftype(ulps) * fi.eps * ftype(1.0 + 2.0 ** -20)
    with np.errstate(all="ignore"):
        rad = (np.abs(v) * rel + ulps * tiny) * ftype(1 + 2.0 ** -40)
        lo = np.nextafter(v - rad, ftype(-np.inf))
        hi = np.nextafter(v + rad, ftype(np.inf))
    return lo, hi


def image(name: str, lo: np.ndarray, hi: np.ndarray, ftype):
    """Enclosure (lower, upper, bad) of f over [lo, hi] for a one-argument monotone function (a
    function that is not monotone: at points lo == hi only).
    ``bad``: the element cannot be enclosed here (argument leaves the domain, a non-finite value)."""
    f = LIBM[name]
    call, ulps = f.numpy[ftype], f.ulps[ftype]
    d_lo, d_hi = f.domain
    with np.errstate(all="ignore"):
        bad = ~(np.isfinite(lo) & np.isfinite(hi)) | (lo < d_lo) | (hi > d_hi)
        if not f.monotone:  # the ends say nothing of the values between them: mpmath decides those
            bad |= lo != hi
        # a pole at the domain's edge (log 0, log1p -1) gives an infinite value: bad below
        if not f.increasing:  # decreasing: the image of [lo, hi] runs from f(hi) up to f(lo)
            lo, hi = hi, lo
        point = lo == hi
        a = np.asarray(call(np.where(bad, ftype(0.5), lo)), dtype=ftype)
        if point.all():  # exact arguments (inputs): one evaluation, one widening
            a_lo, b_hi = widen(a, ulps, ftype)
        else:
            b = np.where(point, a, np.asarray(call(np.where(bad, ftype(0.5), hi)), dtype=ftype))
            a_lo, _ = widen(a, ulps, ftype)
            _, b_hi = widen(b, ulps, ftype)
        for x0, y0 in f.exact.items():  # exact points: the image is exactly known
            at = point & (lo == x0)
            if at.any():
                # f(+-0) = +-0 (sin, tan, asin, ...: C99 Annex F): a zero at zero keeps its sign
                y = np.copysign(ftype(0), lo) if y0 == 0 and x0 == 0 else ftype(y0)
                a_lo = np.where(at, y, a_lo)
                b_hi = np.where(at, y, b_hi)
        r_lo, r_hi = f.range  # the function's values lie here whatever the libm says (|tanh| <= 1)
        if r_lo > -math.inf:
            a_lo = np.maximum(a_lo, ftype(r_lo))
        if r_hi < math.inf:
            b_hi = np.minimum(b_hi, ftype(r_hi))
        bad |= ~(np.isfinite(a_lo) & np.isfinite(b_hi))
    return a_lo, b_hi, bad


def image_pow(b_lo, b_hi, e_lo, e_hi, ftype):
    """Enclosure of base ** exponent over a box with a positive base: pow is monotone in each
    argument there, so the extremes are at the corners."""
    ulps = LIBM["pow"].ulps[ftype]
    with np.errstate(all="ignore"):
        bad = ~(np.isfinite(b_lo) & np.isfinite(b_hi) & np.isfinite(e_lo) & np.isfinite(e_hi)) | (b_lo <= 0)
        bl, bh = np.where(bad, ftype(2), b_lo), np.where(bad, ftype(2), b_hi)
        el, eh = np.where(bad, ftype(1), e_lo), np.where(bad, ftype(1), e_hi)
        corners = [np.asarray(np.power(u, v), dtype=ftype) for u in (bl, bh) for v in (el, eh)]
        lo = np.minimum(np.minimum(corners[0], corners[1]), np.minimum(corners[2], corners[3]))
        hi = np.maximum(np.maximum(corners[0], corners[1]), np.maximum(corners[2], corners[3]))
        lo, _ = widen(lo, ulps, ftype)
        _, hi = widen(hi, ulps, ftype)
        lo = np.maximum(lo, ftype(0))
        bad |= ~(np.isfinite(lo) & np.isfinite(hi))
    return lo, hi, bad


# ----------------------------------------------------------------------------- exact conversions

def to_mpf(v):
    """The exact mpmath value of a float64 or longdouble scalar."""
    import mpmath
    v = np.longdouble(v) if isinstance(v, np.longdouble) else np.float64(v)
    if not np.isfinite(v):
        return mpmath.mpf(float(v))
    if isinstance(v, np.longdouble):
        m, e = np.frexp(v)
        return mpmath.mpf((int(np.ldexp(m, 64)), int(e) - 64)) if m != 0 else mpmath.mpf(0)
    return mpmath.mpf(float(v))



# ----------------------------------------------------------------------------- measuring the bounds

def _mp_reference(name: str, x, y=None):
    """f(x) to ~100 bits with mpmath's low-level functions (fast enough for 1e5 points)."""
    from mpmath import libmp
    p = 110
    if name == "exp":
        return libmp.mpf_exp(x, p, "n")
    if name == "expm1":
        mag = libmp.mpf_cmp(libmp.mpf_abs(x), libmp.from_float(2.0 ** -8))
        extra = 0 if mag >= 0 else max(0, -(x[2] + x[3])) + 10
        return libmp.mpf_sub(libmp.mpf_exp(x, p + extra, "n"), libmp.fone, p, "n")
    if name == "log":
        return libmp.mpf_log(x, p, "n")
    if name == "log1p":
        return libmp.mpf_log(libmp.mpf_add(x, libmp.fone), p, "n")  # 1 + x exact (no precision)
    if name == "tanh":
        return libmp.mpf_tanh(x, p, "n")
    if name == "sqrt":
        return libmp.mpf_sqrt(x, p, "n")
    if name == "erf":
        return libmp.mpf_erf(x, p, "n")
    if name == "erfc":
        return libmp.mpf_erfc(x, p, "n")
    if name == "pow":
        return libmp.mpf_pow(x, y, p, "n")
    from specgen.formula.functions import FUNCTIONS  # the other rows: their mpmath meaning at 2p bits
    import mpmath
    with mpmath.workprec(2 * p):
        v = FUNCTIONS[name].mpmath(mpmath.mpf(x))
    return libmp.fnan if not isinstance(v, mpmath.mpf) else libmp.normalize(*v._mpf_, p, "n") if v._mpf_[1] else v._mpf_


def _mpf_tuple(v):
    from mpmath import libmp
    if isinstance(v, np.longdouble):
        m, e = np.frexp(v)
        return libmp.from_man_exp(int(np.ldexp(m, 64)), int(e) - 64)
    return libmp.from_float(float(v))


def ulp_errors(name: str, ftype, x: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """Error of numpy's ``name`` in ``ftype`` at each point, in ULPs of the exact result (its binade;
    the subnormal spacing below the normal range). Non-finite results are skipped (nan)."""
    from mpmath import libmp
    f = LIBM[name]
    xs = np.asarray(x, dtype=ftype)
    with np.errstate(all="ignore"):
        got = np.asarray(f.numpy[ftype](xs) if y is None else f.numpy[ftype](xs, np.asarray(y, dtype=ftype)), dtype=ftype)
    fi = np.finfo(ftype)
    out = np.full(len(xs), np.nan)
    ys = None if y is None else np.asarray(y, dtype=ftype)
    for i in range(len(xs)):
        if not np.isfinite(got[i]):
            continue
        ref = _mp_reference(name, _mpf_tuple(xs[i]), None if ys is None else _mpf_tuple(ys[i]))
        if ref == libmp.fzero:
            out[i] = 0.0 if got[i] == 0 else np.inf
            continue
        _, man, exp, bc = ref
        e = max(exp + bc - 1, int(fi.minexp))  # binade of the exact value
        diff = libmp.mpf_sub(_mpf_tuple(got[i]), ref, 60, "n")
        out[i] = abs(libmp.to_float(libmp.mpf_shift(diff, int(fi.nmant) - e)))
    return out


def sample_points(name: str, count: int, rng: np.random.Generator, ftype=np.float64):
    """Random points over the whole useful range of ``name`` (both signs, tiny and huge, the
    cancellation region near 0 for expm1/log1p/tanh/erf); pow returns (base, exponent)."""
    q = count // 4
    rest = count - 3 * q
    sign = rng.choice([-1.0, 1.0], count)
    if name in ("exp", "expm1"):
        big = 11356.0 if ftype is np.longdouble else 709.0
        parts = [rng.uniform(-big - 36, big, q), rng.uniform(-2, 2, q), sign[:q] * np.exp(rng.uniform(-700, 0, q)),
                 rng.uniform(-40, 40, rest)]
    elif name == "log":
        parts = [np.exp(rng.uniform(-744, 709, 2 * q)), rng.uniform(0.5, 2.0, q), 1 + rng.uniform(-1e-6, 1e-6, rest)]
    elif name == "log1p":
        parts = [np.exp(rng.uniform(-744, 709, q)), -rng.uniform(0, 1, q), sign[:q] * np.exp(rng.uniform(-700, -1, q)),
                 rng.uniform(-0.5, 2, rest)]
    elif name in ("tanh", "erf", "erfc"):
        parts = [rng.uniform(-25, 25, q), rng.uniform(-1, 1, q), sign[:q] * np.exp(rng.uniform(-700, 2, q)),
                 rng.uniform(-6, 6, rest)]
    elif name == "sqrt":
        parts = [np.exp(rng.uniform(-744, 709, 2 * q)), rng.uniform(0, 4, 2 * q + (rest - q))]
    elif name in ("sin", "cos", "tan"):  # large arguments test the range reduction
        parts = [rng.uniform(-10, 10, q), sign[:q] * np.exp(rng.uniform(-700, 709, q)),
                 sign[q:2 * q] * np.exp(rng.uniform(-30, 30, q)), rng.uniform(-1e6, 1e6, rest)]
    elif name in ("asin", "acos", "atanh"):
        parts = [rng.uniform(-1, 1, 2 * q), sign[:q] * np.exp(rng.uniform(-700, 0, q)),
                 sign[:rest] * (1 - np.exp(rng.uniform(-36, 0, rest)))]
    elif name in ("atan", "sinh", "asinh"):
        parts = [rng.uniform(-30, 30, q), sign[:q] * np.exp(rng.uniform(-700, 6.5, q)),
                 sign[q:2 * q] * np.exp(rng.uniform(-20, 700, q)) * (name != "sinh"), rng.uniform(-2, 2, rest)]
    elif name == "cosh":
        parts = [rng.uniform(-700, 700, q), sign[:q] * np.exp(rng.uniform(-700, 6.5, q)), rng.uniform(-5, 5, q),
                 rng.uniform(-30, 30, rest)]
    elif name == "acosh":
        parts = [1 + np.exp(rng.uniform(-36, 2, 2 * q)), np.exp(rng.uniform(0, 700, q)), rng.uniform(1, 10, rest)]
    elif name == "pow":
        base = np.exp(rng.uniform(-30, 30, count))
        expo = rng.uniform(-20, 20, count)
        return base.astype(ftype), expo.astype(ftype)
    else:
        raise KeyError(name)
    x = np.concatenate(parts)[:count].astype(ftype)
    if ftype is np.longdouble:  # use the extra bits: perturb the low 11 bits of the significand
        x = x * (1 + np.asarray(rng.integers(-1024, 1024, len(x)), dtype=ftype) * np.finfo(np.longdouble).eps)
    return x


def ulp_errors_against_longdouble(name: str, x: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """Vectorised error of numpy's float64 ``name`` in float64 ULPs, against the long double
    evaluation (whose own error, LIBM[name].ulps[longdouble] extended ULPs = at most 0.006 float64
    ULPs for 12, is added). Needs LONGDOUBLE_OK; skips non-finite results and results outside the
    float64 normal range of long double's extra exponent."""
    f = LIBM[name]
    xs = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        if y is None:
            got = np.asarray(f.numpy[np.float64](xs), dtype=np.float64)
            ref = np.asarray(f.numpy[np.longdouble](xs.astype(np.longdouble)), dtype=np.longdouble)
        else:
            ys = np.asarray(y, dtype=np.float64)
            got = np.asarray(f.numpy[np.float64](xs, ys), dtype=np.float64)
            ref = np.asarray(f.numpy[np.longdouble](xs.astype(np.longdouble), ys.astype(np.longdouble)))
        _, e = np.frexp(ref)  # |ref| in [2^(e-1), 2^e)
        binade = np.maximum(e.astype(np.int64) - 1, -1022)
        ulp = np.ldexp(np.longdouble(1), (binade - 52).astype(np.int32))
        err = np.abs(got.astype(np.longdouble) - ref) / ulp
        err = err.astype(np.float64) + f.ulps[np.longdouble] * 2.0 ** -11
    ok = np.isfinite(got) & np.isfinite(ref.astype(np.float64)) & (np.abs(ref) <= np.finfo(np.float64).max)
    return np.where(ok & (ref != 0), err, np.where(ok & (got == ref), 0.0, np.nan))


HARD_CASES = {
    # overflow / underflow / subnormal thresholds, tiny arguments, cancellation points
    "exp": [709.782712893384, 709.7827128933839, -745.1332191019411, -745.1332191019412, -708.3964185322641,
            -708.3964185322642, 2.0 ** -1074, -(2.0 ** -1074), 2.0 ** -54, -(2.0 ** -53), 1e-300, 0.6931471805599453,
            1.0, -1.0, 0.5, 88.72283905206835, -87.33654475055310, 11.090354888959125],
    "expm1": [2.0 ** -1074, -(2.0 ** -1074), 2.0 ** -54, -(2.0 ** -54), 1e-10, -1e-10, 0.6931471805599453,
              709.782712893384, -37.42994775023705, -745.0, 0.5, -0.5, 2.0 ** -27],
    "log": [2.0 ** -1074, 2.2250738585072014e-308, 1.0000000000000002, 0.9999999999999999, 2.0, 0.5,
            1.7976931348623157e308, 2.718281828459045, 1.0 + 2.0 ** -30, 1.0 - 2.0 ** -30],
    "log1p": [2.0 ** -1074, -(2.0 ** -1074), 2.0 ** -54, -(2.0 ** -54), -0.5, -0.9999999999999999, 1e-10,
              1.7976931348623157e308, 1.0, 0.4142135623730951],
    "tanh": [2.0 ** -1074, 2.0 ** -27, 1e-9, 0.5493061443340549, 0.55, 19.06154746539849, 22.0, 18.0,
             -2.0 ** -1074, -0.5493061443340549, 0.01, 1e-300],
    "sqrt": [2.0 ** -1074, 2.0 ** -1073, 2.2250738585072014e-308, 2.0, 3.0, 1.7976931348623157e308,
             0.9999999999999999, 1.0000000000000002],
    "erf": [2.0 ** -1074, 1e-300, 1e-9, 0.5, 0.84375, 1.25, 2.857142857142857, 5.9, 5.921587195794507, 6.0,
            27.0, -5.9, -1e-9],
    "erfc": [2.0 ** -1074, 1e-300, 1e-9, 0.5, 0.84375, 1.25, 2.857142857142857, 6.0, 10.0, 26.5, 27.0, -5.9,
             -1e-9, 0.4769362762044699],
    # multiples of pi/2 that reduce worst (K. C. Ng), huge and tiny arguments, domain edges
    "sin": [1e22, 5.319372648326541e255, 2.0 ** 1023, 1.5707963267948966, 3.141592653589793, 6.283185307179586,
            355.0, 2.0 ** -1074, 1e-300, 0.5, -1e22],
    "cos": [1e22, 5.319372648326541e255, 2.0 ** 1023, 1.5707963267948966, 3.141592653589793, 355.0, 2.0 ** -27,
            0.5, 1e300],
    "tan": [1e22, 2.0 ** 1023, 1.5707963267948966, 4.71238898038469, 355.0, 2.0 ** -1074, 0.5, 1e300],
    "asin": [1.0, 0.9999999999999999, 0.5, 2.0 ** -1074, 1e-300, 0.25, -0.9999999999999999],
    "acos": [1.0, 0.9999999999999999, -0.9999999999999999, -1.0, 0.5, 2.0 ** -1074, 0.0],
    "atan": [2.0 ** -1074, 1e-300, 0.5, 1.0, 1e16, 1e300, -7.0],
    "sinh": [2.0 ** -1074, 1e-300, 2.0 ** -27, 0.5, 710.4758600739439, -710.4758600739439, 22.0],
    "cosh": [0.0, 2.0 ** -27, 0.5, 710.4758600739439, -710.4758600739439, 22.0, 1e-300],
    "asinh": [2.0 ** -1074, 1e-300, 0.5, 1e300, -1e300, 2.0 ** 28],
    "acosh": [1.0, 1.0000000000000002, 1.5, 1e300, 2.0 ** 28],
    "atanh": [2.0 ** -1074, 1e-300, 0.5, 0.9999999999999999, -0.9999999999999999],
    "pow": [(2.0, 0.5), (10.0, -300.0), (1.0000000000000002, 2.0 ** 52), (0.9999999999999999, 2.0 ** 53),
            (2.0, 1023.9999999999999), (7.0, 0.3333333333333333), (1e-300, 1.5), (1e300, 1.02)],
}
