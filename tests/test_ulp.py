"""specgen.numerics.ulp on known values: spacing, stepping, ordering, hex, and once-rounding."""
from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np
import pytest

from specgen.numerics import ulp as U

BF16 = ml_dtypes.bfloat16


def test_format_constants():
    assert U.FORMATS["float16"].max_finite == 65504.0
    assert U.FORMATS["float16"].min_normal == 2.0 ** -14
    assert U.FORMATS["float16"].min_subnormal == 2.0 ** -24
    assert U.FORMATS["bfloat16"].max_finite == float(ml_dtypes.finfo(BF16).max)
    assert U.FORMATS["bfloat16"].min_subnormal == 2.0 ** -133
    assert U.FORMATS["float32"].max_finite == float(np.finfo(np.float32).max)
    assert U.FORMATS["float64"].max_finite == float(np.finfo(np.float64).max)
    assert U.fmt(np.float16) is U.FORMATS["float16"] and U.fmt(BF16) is U.FORMATS["bfloat16"]


@pytest.mark.parametrize("dtype, value, spacing", [
    ("float16", 1.0, 2.0 ** -10),
    ("float16", 1.999, 2.0 ** -10),
    ("float16", 2.0, 2.0 ** -9),  # the binade above a power of two
    ("float16", 65504.0, 32.0),
    ("float16", -65504.0, 32.0),
    ("float16", 2.0 ** -14, 2.0 ** -24),  # smallest normal
    ("float16", 3e-7, 2.0 ** -24),  # subnormal: the normal ULP below the normal range
    ("float16", 0.0, 2.0 ** -24),
    ("float32", 1.0, 2.0 ** -23),
    ("float32", 4.0233135e-08, 2.0 ** -48),
    ("float32", 1e-45, 2.0 ** -149),
    ("bfloat16", 1.0, 2.0 ** -7),
    ("bfloat16", 3.0, 2.0 ** -6),
    ("bfloat16", 1e-40, 2.0 ** -133),
    ("float64", 1.0, 2.0 ** -52),
    ("float64", 5e-324, 5e-324),
])
def test_ulp_known(dtype, value, spacing):
    assert U.ulp(value, dtype) == spacing
    assert U.half_ulp(value, dtype) == (0.0 if value == 0 else spacing / 2)


def test_ulp_matches_numpy_spacing_for_normals():
    for dtype in (np.float16, np.float32, np.float64):
        x = np.geomspace(np.finfo(dtype).tiny, np.finfo(dtype).max / 4, 997).astype(dtype)
        assert np.array_equal(U.ulp(x.astype(np.float64), dtype), np.spacing(x).astype(np.float64))
    assert np.isinf(U.ulp(np.inf, "float32")) and np.isinf(U.ulp(np.nan, "float32"))


def test_next_up_down():
    assert U.next_up(np.float16(65504), "float16") == np.inf
    assert U.next_down(np.float16(-65504), "float16") == -np.inf
    assert U.next_up(np.float16(1), "float16") == 1 + 2.0 ** -10
    assert U.next_up(np.float16(-0.0), "float16") == 2.0 ** -24
    assert U.next_down(np.float16(0.0), "float16") == -(2.0 ** -24)
    assert float(U.next_up(BF16(1), "bfloat16")) == 1.0078125
    assert float(U.next_down(BF16(1), "bfloat16")) == 1 - 2.0 ** -8
    assert float(U.next_up(BF16(-(2.0 ** -133)), "bfloat16")) == 0.0
    assert float(U.next_down(BF16(0.0), "bfloat16")) == -(2.0 ** -133)
    assert np.isinf(float(U.next_up(BF16(float(ml_dtypes.finfo(BF16).max)), "bfloat16")))
    assert np.isnan(float(U.next_up(BF16(np.nan), "bfloat16")))
    assert float(U.next_up(BF16(np.inf), "bfloat16")) == np.inf


def test_ordered_is_monotone_over_every_16_bit_value():
    for dtype in (np.float16, BF16):
        x = np.arange(65536, dtype=np.uint16).view(dtype)
        with np.errstate(invalid="ignore"):
            v = x.astype(np.float64)
        keep = ~np.isnan(v)
        o = U.ordered(x[keep])
        order = np.argsort(v[keep], kind="stable")
        assert np.all(np.diff(o[order]) >= 0)
        assert o[v[keep] == 0].tolist() == [0, 0]
        assert U.ordered(np.array([np.inf], dtype)).item() == U.ordered(np.array([U.FORMATS[U.fmt(dtype).name].max_finite], dtype)).item() + 1


def test_ulp_distance_of_the_hard_sigmoid_example():
    expected = np.array([0x332CCCCD], np.uint32).view(np.float32)
    got = np.array([0x33000000], np.uint32).view(np.float32)
    assert U.ulp_distance(expected, got).item() == 2_936_013
    assert U.ulp_distance(np.float32(-0.0), np.float32(0.0)).item() == 0
    assert U.ulp_distance(np.float16(-(2.0 ** -24)), np.float16(2.0 ** -24)).item() == 2
    assert U.ulp_distance(np.float64(-1.0), np.float64(1.0)).item() == 2 * 0x3FF0000000000000


def test_ulp_error_is_signed_and_fractional():
    assert U.ulp_error(np.float32(1.0), 1.0 + 2.0 ** -25, "float32") == pytest.approx(-0.25)
    assert U.ulp_error(np.float16(2.0), 2.0 - 2.0 ** -12, "float16") == pytest.approx(0.25)  # reference binade [1, 2)
    assert U.ulp_error(np.float16(2.0 ** -24), 0.0, "float16") == 1.0  # zero: the subnormal spacing


def test_ulp_error_against_an_exact_reference():
    third = Fraction(1, 3)
    got = np.float64(1 / 3)
    assert U.ulp_error_exact(got, third, "float64") == pytest.approx(-1 / 3)  # 1/3 rounds down by 1/3 ULP
    assert U.ulp_error_exact(np.float32(1 / 3), third, "float32") == pytest.approx(float((Fraction(float(np.float32(1 / 3))) - third) / Fraction(1, 2 ** 25)))
    with mpmath.workdps(50):
        assert abs(U.ulp_error_exact(np.float64(math.pi), mpmath.pi, "float64")) < 0.5
    assert U.ulp_error_exact(np.float16(2.0 ** -24), 0, "float16") == 1.0


@pytest.mark.parametrize("dtype, value, text", [
    ("float16", 1.0, "0x3c00"), ("float16", -2.0, "0xc000"), ("float16", 65504, "0x7bff"),
    ("float32", 1.0, "0x3f800000"), ("bfloat16", 1.0, "0x3f80"), ("float64", 1.0, "0x3ff0000000000000"),
    ("float16", 2.0 ** -24, "0x0001"), ("float32", -0.0, "0x80000000"),
])
def test_hex_bits(dtype, value, text):
    assert U.hex_bits(value, dtype) == text


def test_decimal_round_trips():
    assert U.decimal(np.float32(0.2), "float32") == "0.2"
    assert U.decimal(np.float16(65504), "float16") == "65504"
    assert U.decimal(np.float16(0.1), "float16") == "0.0999755859375"
    assert U.decimal(np.float32(1e-30), "float32") == "1e-30"
    assert U.decimal(np.float32(-np.inf), "float32") == "-inf"
    assert float(U.decimal(np.float32(4.0233135e-08), "float32")) == np.float32(4.0233135e-08)


def test_ml_dtypes_double_rounds_and_round_to_does_not():
    v = 1.00390625 + 2.0 ** -40  # just above the midpoint of bfloat16 1.0 and 1.0078125
    assert float(np.array([v]).astype(BF16)[0]) == 1.0  # ml_dtypes: through float32, ties to even
    assert float(U.round_to(v, "bfloat16")) == 1.0078125
    assert float(U.round_to(1.00390625, "bfloat16")) == 1.0  # an exact tie: to even
    assert float(U.round_to(1.01171875, "bfloat16")) == 1.015625  # exact tie to even (odd below)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_round_to_agrees_with_exact_rounding(dtype):
    f = U.FORMATS[dtype]
    rng = np.random.default_rng(7)
    grid = rng.standard_normal(300) * np.exp2(rng.integers(f.emin - f.precision - 2, f.emax, 300))
    base = U.round_to(grid, dtype).astype(np.float64)
    mids = (base + U.next_up(base.astype(f.numpy), dtype).astype(np.float64)) / 2  # exact midpoints
    tiny = np.abs(mids) * 2.0 ** -45 + 5e-324
    values = np.concatenate([grid, mids, mids + tiny, mids - tiny,
                             [f.max_finite, f.max_finite * (1 + 2.0 ** -f.precision), f.min_subnormal / 2,
                              f.min_subnormal * 0.75, -f.min_subnormal / 2]])
    values = values[np.isfinite(values)]
    got = U.round_to(values, dtype).astype(np.float64)
    want = np.array([U.round_fraction(Fraction(v), dtype) for v in values])
    assert np.array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_round_fraction_ties_overflow_and_mpmath():
    assert U.round_fraction(Fraction(1) + Fraction(1, 2 ** 11), "float16") == 1.0
    assert U.round_fraction(Fraction(1) + Fraction(3, 2 ** 11), "float16") == 1 + 2.0 ** -9
    assert U.round_fraction(Fraction(65520), "float16") == math.inf
    assert U.round_fraction(Fraction(65519), "float16") == 65504.0
    assert U.round_fraction(Fraction(-1, 10), "float32") == float(np.float32(-0.1))
    assert U.round_fraction(Fraction(1, 2 ** 25), "float16") == 0.0
    assert U.round_fraction(Fraction(3, 2 ** 26), "float16") == 2.0 ** -24
    with mpmath.workdps(60):
        assert U.round_fraction(mpmath.mpf(1) / 3, "float32") == float(np.float32(1 / 3))
        assert U.round_fraction(mpmath.exp(1), "float64") == math.e
    assert math.isnan(U.round_fraction(mpmath.nan, "float16"))
