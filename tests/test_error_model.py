"""The error model accepts every correct evaluation order of each formula and rejects real defects.

Kernels below are written the ways real backends write them (per-operation rounding in the tensor
dtype, fused multiply-add, float64 then one rounding, float32 compute for 16-bit tensors,
multiplication by a rounded reciprocal, attributes held in the tensor dtype, flush-to-zero), run
over dense inputs: every float16 value, and ~100k float32 values including 40,000 consecutive
floats around x = -2.5 where HardSigmoid cancels.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from specgen.formula.parser import parse_formula
from specgen.numerics import ulp as U
from specgen.numerics.compare import compare
from specgen.numerics.error_model import accepted_outputs, compute_types
from specgen.spec.loader import load_all

SPECS = load_all()
HS, SS, SH = SPECS["hard_sigmoid"], SPECS["softsign"], SPECS["shrink"]
WIDE = {"float32": "float64", "float16": "float32", "bfloat16": "float32"}
F32 = np.float32
ORT_X = np.array([0xC01FFFFF], np.uint32).view(np.float32)  # -2.4999998


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def dense(dtype: str) -> np.ndarray:
    if dtype in ("float16", "bfloat16"):
        return np.arange(65536, dtype=np.uint16).view(U.fmt(dtype).numpy)
    rng = np.random.default_rng(2024)
    random_bits = rng.integers(0, 2 ** 32, 30000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    around = (0xC0200000 + np.arange(-20000, 20000)).astype(np.uint32).view(np.float32)  # x = -2.5 +- 20000 ULP
    uniform = rng.uniform(-8, 8, 30000).astype(np.float32)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-39, 3.4e38, -3.4e38, 0.5, -0.5],
                        np.float32)
    return np.concatenate([random_bits, around, uniform, specials, ORT_X])


def rn(v, dtype):
    return U.round_to(np.asarray(v, dtype=np.float64), dtype)


def T(dtype):
    return U.fmt(dtype).numpy.type


def bump(y, k, dtype):
    """y moved k representable steps up (the 'off by k ULP' kernel)."""
    f = U.fmt(dtype)
    o = U.ordered(y, dtype) + k
    sign = np.int64(1) << np.int64(f.bits - 1)
    return U.from_bits(np.where(o < 0, (-o) | sign, o).astype(f.uint), dtype)


def fma_round(p, b, dtype):
    """p + b rounded once to dtype (p exact in float64): round-to-odd in float64, then to dtype."""
    s = p + b
    bb = s - p
    err = (p - (s - bb)) + (b - bb)
    inexact = err != 0
    t = np.where(inexact & (np.sign(err) != np.sign(s)), np.nextafter(s, 0.0), s)
    odd = (t.view(np.uint64) & np.uint64(1)) == 1
    t = np.where(inexact & ~odd, np.nextafter(t, np.copysign(np.inf, t)), t)
    return rn(t, dtype)


# ----------------------------------------------------------------------------- kernels

def hs_per_op(x, a, b, ct, dtype):
    """ONNX Runtime / ONNX reference / OpenVINO: fl(fl(alpha*x) + beta), clamped, in ct."""
    t = T(ct)
    y = (t(a) * x.astype(t)).astype(t) + t(b)
    return rn(np.maximum(t(0), np.minimum(y.astype(t), t(1))), dtype)


def hs_fma(x, a, b, ct, dtype):
    p = float(T(ct)(a)) * x.astype(np.float64)  # exact: <= 24-bit operands
    s = fma_round(p, float(T(ct)(b)), ct).astype(np.float64)
    return rn(np.clip(s, 0, 1), dtype)


def hs_float64(x, a, b, dtype):
    return rn(np.maximum(0, np.minimum(a * x.astype(np.float64) + b, 1)), dtype)


def hs_where_mixed(x, a, b, dtype):
    """product rounded in float32, sum rounded in the tensor dtype, clamp spelled with where."""
    p = (F32(a) * x.astype(F32)).astype(np.float64)
    t = rn(p + float(F32(b)), dtype).astype(np.float64)
    return rn(np.where(t < 0, 0.0, np.where(t > 1, 1.0, t)), dtype)


def ss_per_op(x, ct, dtype):
    t = T(ct)
    xc = x.astype(t)
    return rn(xc / (t(1) + np.abs(xc)).astype(t), dtype)


def ss_reciprocal(x, ct, dtype):
    t = T(ct)
    xc = x.astype(t)
    r = (t(1) / (t(1) + np.abs(xc)).astype(t)).astype(t)
    return rn((xc * r).astype(t), dtype)


def ss_float64(x, dtype):
    x = x.astype(np.float64)
    return rn(x / (1 + np.abs(x)), dtype)


def sh_per_op(x, bias, thr, ct, dtype):
    """attributes converted to ct first: the threshold is compared after rounding to ct."""
    t = T(ct)
    xc, bb, th = x.astype(t), t(bias), t(thr)
    return rn(np.where(xc > th, (xc - bb).astype(t), np.where(xc < -th, (xc + bb).astype(t), t(0))), dtype)


def sh_float64(x, bias, thr, dtype):
    x = x.astype(np.float64)
    return rn(np.where(x > thr, x - bias, np.where(x < -thr, x + bias, 0.0)), dtype)


def sh_abs_form(x, bias, thr, ct, dtype):
    """sign(x) * (|x| - bias) where |x| > threshold, in ct."""
    t = T(ct)
    xc = x.astype(t)
    mag = (np.abs(xc) - t(bias)).astype(t)
    return rn(np.where(np.abs(xc) > t(thr), np.sign(xc) * mag, t(0)), dtype)


HS_ATTRS = [(0.2, 0.5), (-0.37, 0.61), (1 / 6, 0.5)]
SH_ATTRS = [(0.0, 0.5), (0.3, 0.7), (1.7, 0.33)]


def f32(v):
    return float(np.float32(v))


def kernels(op, x, dtype, attrs):
    ct = dtype
    if op == "hard_sigmoid":
        a, b = attrs
        return {"per-op": hs_per_op(x, a, b, ct, dtype), "fma": hs_fma(x, a, b, ct, dtype),
                "float64": hs_float64(x, a, b, dtype), "wide": hs_per_op(x, a, b, WIDE[dtype], dtype),
                "fma-wide": hs_fma(x, a, b, WIDE[dtype], dtype), "where-mixed": hs_where_mixed(x, a, b, dtype)}
    if op == "softsign":
        return {"per-op": ss_per_op(x, ct, dtype), "reciprocal": ss_reciprocal(x, ct, dtype),
                "float64": ss_float64(x, dtype), "wide": ss_per_op(x, WIDE[dtype], dtype),
                "reciprocal-wide": ss_reciprocal(x, WIDE[dtype], dtype)}
    bias, thr = attrs
    return {"per-op": sh_per_op(x, bias, thr, ct, dtype), "float64": sh_float64(x, bias, thr, dtype),
            "wide": sh_per_op(x, bias, thr, WIDE[dtype], dtype), "abs-form": sh_abs_form(x, bias, thr, ct, dtype),
            "attrs-float32": sh_per_op(x, bias, thr, "float32", dtype)}


def golden(op, x, dtype, attrs):
    if op == "hard_sigmoid":
        return hs_float64(x, *attrs, dtype)
    if op == "softsign":
        return ss_float64(x, dtype)
    return sh_float64(x, *attrs, dtype)


def attr_dict(op, attrs):
    if op == "hard_sigmoid":
        return {"alpha": attrs[0], "beta": attrs[1]}
    if op == "shrink":
        return {"bias": attrs[0], "threshold": attrs[1]}
    return {}


CASES = ([("hard_sigmoid", tuple(map(f32, a))) for a in HS_ATTRS] + [("softsign", ())]
         + [("shrink", tuple(map(f32, a))) for a in SH_ATTRS])


# ----------------------------------------------------------------------------- acceptance

@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("op, attrs", CASES, ids=lambda v: str(v))
def test_every_correct_evaluation_order_passes(op, attrs, dtype):
    if op == "shrink" and dtype == "bfloat16":
        pytest.skip("Shrink lists no bfloat16")
    x = dense(dtype)
    gold = golden(op, x, dtype, attrs)
    ks = kernels(op, x, dtype, attrs)
    assert len(ks) >= 3
    for name, y in ks.items():
        c = compare(SPECS[op], "onnx", dtype, {"x": x}, attr_dict(op, attrs), gold, y)
        assert c.ok, f"{op} {dtype} {name}: {c.summary()}"


def test_the_measured_onnxruntime_hard_sigmoid_result_passes():
    """ORT computes fl(fl(alpha*x)+beta): 2,936,013 ULP from the once-rounded value, |error| < 6e-8."""
    a, b = f32(0.2), 0.5
    got = hs_per_op(ORT_X, a, b, "float32", "float32")
    want = hs_float64(ORT_X, a, b, "float32")
    assert U.hex_bits(got[0], "float32") == "0x33000000" and U.hex_bits(want[0], "float32") == "0x332ccccd"
    assert U.ulp_distance(want, got).item() == 2_936_013
    exact = a * float(ORT_X[0]) + b  # exact in float64 (24-bit x 24-bit product, aligned sum)
    assert abs(float(got[0]) - exact) < 6e-8
    c = compare(HS, "onnx", "float32", {"x": ORT_X}, {"alpha": a, "beta": b}, want, got, fast=False)
    assert c.ok, c.summary()
    assert round(c.worst.error_ulps) == 2_936_013 and c.worst.bound_ulps >= c.worst.error_ulps
    # the fast path accepts it as a naive float32 evaluation and still reports its error
    c = compare(HS, "onnx", "float32", {"x": ORT_X}, {"alpha": a, "beta": b}, want, got)
    assert c.ok and c.naive_equal == 1 and round(c.max_error_ulps) == 2_936_013
    # the model's lowest accepted value is exactly ORT's result: the bound is tight there
    acc = accepted_outputs(HS.formula, {"x": ORT_X.astype(np.float64), "alpha": a, "beta": b}, "float32", "float32",
                           inputs={"x"})
    assert acc.lo[0] == float(got[0]) and acc.hi[0] == float(want[0])


def test_real_onnxruntime_hard_sigmoid_passes_near_the_cancellation():
    ort = pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper

    x = (0xC0200000 + np.arange(-3000, 3000)).astype(np.uint32).view(np.float32)
    node = helper.make_node("HardSigmoid", ["x"], ["y"], alpha=0.2, beta=0.5)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"x": x})[0]
    want = hs_float64(x, f32(0.2), 0.5, "float32")
    i = int(np.flatnonzero(x.view(np.uint32) == 0xC01FFFFF)[0])
    assert U.hex_bits(got[i], "float32") == "0x33000000"
    c = compare(HS, "onnx", "float32", {"x": x}, {"alpha": 0.2, "beta": 0.5}, want, got)
    assert c.ok, c.summary()
    assert c.max_error_ulps > 1e6  # a flat ULP tolerance would have failed this correct kernel


# ----------------------------------------------------------------------------- rejection

def _finite(x):
    return np.isfinite(x.astype(np.float64))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("op, attrs", [CASES[0], CASES[3], CASES[5]], ids=lambda v: str(v))
def test_a_kernel_off_by_a_few_ulp_is_rejected(op, attrs, dtype):
    x = dense(dtype)
    gold = golden(op, x, dtype, attrs)
    ref = gold.astype(np.float64)
    for k in (3, 4):
        y = np.where(_finite(x), bump(gold, k, dtype), gold)
        c = compare(SPECS[op], "onnx", dtype, {"x": x}, attr_dict(op, attrs), gold, y)
        assert not c.ok and c.kinds["value"] > 0  # (stepping past the largest finite also gives inf/NaN)
        # rejected everywhere away from cancellation and the subnormal range
        bad = np.zeros(x.shape, bool)
        bad[[e.index[0] for e in c.first]] = True
        region = _finite(x) & (np.abs(ref) >= 2.0 ** -6) & (np.abs(ref) < 1)
        if op == "hard_sigmoid":
            region &= np.abs(attrs[0] * x.astype(np.float64)) < 4 * np.abs(ref)  # no heavy cancellation
        assert c.mismatches >= 0.97 * int(region.sum()), (k, c.mismatches, int(region.sum()))
    # and 2 ULP in float32 Softsign, where the model's budget is largest (two roundings + reciprocal)
    if op == "softsign" and dtype == "float32":
        y = np.where(_finite(x), bump(gold, 2, dtype), gold)
        c = compare(SS, "onnx", dtype, {"x": x}, {}, gold, y)
        assert c.mismatches >= 0.99 * int(_finite(x).sum() - np.sum(np.abs(x.astype(np.float64)) < 2.0 ** -126))


@pytest.mark.parametrize("op, attrs", [CASES[0], CASES[3], CASES[4]], ids=lambda v: str(v))
def test_float32_tensors_computed_in_float16_are_rejected(op, attrs):
    x = dense("float32")
    gold = golden(op, x, "float32", attrs)
    fn = {"hard_sigmoid": lambda: hs_per_op(x, *attrs, "float16", "float32"),
          "softsign": lambda: ss_per_op(x, "float16", "float32"),
          "shrink": lambda: sh_per_op(x, *attrs, "float16", "float32")}[op]
    c = compare(SPECS[op], "onnx", "float32", {"x": x}, attr_dict(op, attrs), gold, fn())
    assert not c.ok
    g = np.abs(gold.astype(np.float64))
    informative = (g > 2.0 ** -6) & (g < 1)  # not saturated, not tiny
    assert c.mismatches > 0.9 * informative.sum(), c.summary()


def test_a_kernel_that_ignores_an_attribute_is_rejected():
    x = dense("float16")
    a, b = f32(0.25), f32(0.625)
    gold = hs_float64(x, a, b, "float16")
    ignores_beta = hs_per_op(x, a, 0.5, "float16", "float16")  # uses the default beta
    c = compare(HS, "onnx", "float16", {"x": x}, {"alpha": a, "beta": b}, gold, ignores_beta)
    assert not c.ok and c.kind == "value"
    bias, thr = f32(0.3), f32(0.7)
    hard_shrink = sh_per_op(x, 0.0, thr, "float16", "float16")  # ignores bias
    c = compare(SH, "onnx", "float16", {"x": x}, {"bias": bias, "threshold": thr}, sh_float64(x, bias, thr, "float16"),
                hard_shrink)
    assert not c.ok and c.mismatches > 10000


def test_shrink_nan_must_give_zero():
    x = dense("float32")
    attrs = (0.3, 0.7)
    gold = sh_float64(x, *attrs, "float32")
    nans = int(np.isnan(x).sum())
    assert nans > 1 and np.all(gold[np.isnan(x)] == 0)
    nan_propagating = np.where(np.isnan(x), np.float32(np.nan), gold)
    c = compare(SH, "onnx", "float32", {"x": x}, attr_dict("shrink", attrs), gold, nan_propagating)
    assert not c.ok and c.kind == "nan-mismatch" and c.mismatches == nans
    assert "got nan" in c.summary()


def test_infinity_against_a_finite_result_is_rejected():
    x = dense("float32")
    attrs = (f32(0.2), 0.5)
    gold = hs_float64(x, *attrs, "float32")
    y = gold.copy()
    y[np.flatnonzero(_finite(x))[:3]] = np.inf
    c = compare(HS, "onnx", "float32", {"x": x}, attr_dict("hard_sigmoid", attrs), gold, y)
    assert not c.ok and c.kind == "inf-mismatch" and c.mismatches == 3
    # Shrink(+inf) is +inf: a kernel that saturates to the largest finite value fails
    gold = sh_float64(x, 0.3, 0.7, "float32")
    y = np.where(np.isinf(x), np.copysign(np.float32(3.4028235e38), x), gold).astype(np.float32)
    c = compare(SH, "onnx", "float32", {"x": x}, {"bias": 0.3, "threshold": 0.7}, gold, y)
    assert not c.ok and c.kind == "inf-mismatch" and c.mismatches == 2


# ----------------------------------------------------------------------------- flush-to-zero

@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_flush_to_zero_kernels_pass(dtype):
    x = dense(dtype)
    f = U.fmt(dtype)
    xd = x.astype(np.float64)
    daz = np.where((xd != 0) & (np.abs(xd) < f.min_normal), np.copysign(0.0, xd), xd).astype(f.numpy)
    for op, attrs in CASES[:5:2] + [CASES[3]]:
        gold = golden(op, x, dtype, attrs)
        y = kernels(op, daz, dtype, attrs)["per-op"].astype(np.float64)
        y = np.where(np.abs(y) < f.min_normal, np.copysign(0.0, y), y).astype(f.numpy)  # FTZ on the output
        c = compare(SPECS[op], "onnx", dtype, {"x": x}, attr_dict(op, attrs), gold, y)
        assert c.ok, f"{op}: {c.summary()}"


def test_flush_does_not_excuse_a_wrong_subnormal_result():
    x = dense("float16")
    gold = ss_float64(x, "float16")
    sub = (x.astype(np.float64) != 0) & (np.abs(x.astype(np.float64)) < 2.0 ** -14)
    y = np.where(sub, bump(gold, 3, "float16"), gold)
    c = compare(SS, "onnx", "float16", {"x": x}, {}, gold, y)
    assert not c.ok and c.mismatches > 0.9 * sub.sum()


# ----------------------------------------------------------------------------- model internals

def test_compute_types():
    assert compute_types("float16") == ("float16", "float32", "float64")
    assert compute_types("bfloat16") == ("bfloat16", "float32", "float64")
    assert compute_types("float32") == ("float32", "float64")
    assert compute_types("float64") == ("float64",)


def test_bound_is_half_ulp_per_rounding_in_the_simple_case():
    """Softsign at x = 3 in float32: 1 + 3 = 4 exact; 3/4 exact; the only accepted value is 0.75."""
    acc = accepted_outputs(SS.formula, {"x": np.array([3.0, 1 / 3])}, "float32", "float32", inputs={"x"})
    assert acc.lo[0] == acc.hi[0] == 0.75
    assert acc.hi[1] - acc.lo[1] <= 3 * 2.0 ** -25  # a few ULPs of 0.25 at most


def test_elementary_functions_get_their_ulp_budget():
    node = parse_formula("exp(x) - 1", ["x"], [])
    x = np.linspace(-3, 3, 4001).astype(np.float32)
    env = {"x": x.astype(np.float64)}
    acc = accepted_outputs(node, env, "float32", "float32", inputs={"x"})
    good = (np.exp(x) - F32(1)).astype(np.float64)  # float32 exp (numpy, < 1 ULP) then a float32 subtraction
    assert np.all((good >= acc.lo) & (good <= acc.hi))
    far = np.where(np.abs(x) > 0.5, np.exp(x.astype(np.float64)) * (1 + 2.0 ** -18), good)  # ~ 32+ ULP off
    assert np.mean((far >= acc.lo) & (far <= acc.hi)) < 0.7
    acc = accepted_outputs(parse_formula("tanh(x) * sqrt(abs(x)) + log1p(abs(x))", ["x"], []), env, "float16",
                           "float16", inputs={"x"})
    y = (np.tanh(x.astype(np.float16)) * np.sqrt(np.abs(x.astype(np.float16)))
         + np.log1p(np.abs(x.astype(np.float16)))).astype(np.float64)
    assert np.all((y >= acc.lo) & (y <= acc.hi))


@pytest.mark.parametrize("op,x", [("sqrt", -4.0), ("log", -1.0), ("acos", 2.0), ("asin", -3.0), ("acosh", 0.5),
                                  ("atanh", 1.5)])
def test_a_number_where_there_is_no_real_value_fails(op, x):
    """sqrt(-4) has no real value: only a NaN passes. The model used to give an argument outside the
    domain the image [-inf, inf], so a kernel returning sqrt(|x|), 0 or anything passed."""
    spec = SPECS[op]
    xs = np.array([x], dtype=np.float32)
    nan = np.array([np.nan], dtype=np.float32)
    for wrong in (0.0, -0.0, 1.0, 0.25, np.inf):
        r = compare(spec, "onnx", "float32", {"x": xs}, {}, nan, np.array([wrong], dtype=np.float32))
        assert not r.ok and r.kind == "nan-mismatch", (op, wrong, r.summary())
        assert "a number where there is no real value at x = " in r.summary()
    assert compare(spec, "onnx", "float32", {"x": xs}, {}, nan, nan).ok


def test_no_real_value_propagates_through_arithmetic_but_not_into_a_branch_not_taken():
    env = {"x": np.array([-4.0, 4.0])}
    acc = accepted_outputs(parse_formula("x * sqrt(x) + 1", ["x"], []), env, "float32", "float32", inputs={"x"})
    assert acc.lo[0] > acc.hi[0] and acc.lo[1] <= 9.0 <= acc.hi[1]  # [inf, -inf]: no number is accepted
    acc = accepted_outputs(parse_formula("where(x > 0, sqrt(x), 0.5)", ["x"], []), env, "float32", "float32",
                           inputs={"x"})
    assert acc.lo[0] == acc.hi[0] == 0.5 and acc.lo[1] <= 2.0 <= acc.hi[1]
    # an argument whose rounding may cross the domain's edge keeps the part inside: acosh of 1 - 2^-30
    # rounded to float32 may be acosh(1) = 0, so 0 passes, and nothing below it but the function budget's
    # widening at 0 (a few float32 subnormals; the whole line below 0 before)
    acc = accepted_outputs(parse_formula("acosh(x + 0.9999999990686774)", ["x"], []), {"x": np.array([0.0])},
                           "float32", "float32", inputs={"x"})
    assert -1e-40 < acc.lo[0] <= 0.0 <= acc.hi[0]


def test_either_branch_near_a_rounded_threshold_but_nothing_in_between():
    """float16 Shrink, threshold 0.7 (float32) vs 0.7001953125 (float16): for x between them a kernel
    comparing against either gives 0 or x - bias; both pass, a value in between does not."""
    bias, thr = f32(0.3), f32(0.7)
    x = np.array([0.7001953125, -0.7001953125, 0.69970703125, 0.7004], np.float16)
    gold = sh_float64(x, bias, thr, "float16")
    assert gold[0] != 0 and gold[2] == 0
    rounded_threshold = sh_per_op(x, bias, thr, "float16", "float16")
    assert rounded_threshold[0] == 0  # 0.7001953125 > fl16(0.7) is false
    attrs = {"bias": bias, "threshold": thr}
    for y in (gold, rounded_threshold):
        assert compare(SH, "onnx", "float16", {"x": x}, attrs, gold, y).ok
    between = gold.copy()
    between[0] = np.float16(0.2)
    c = compare(SH, "onnx", "float16", {"x": x}, attrs, gold, between)
    assert not c.ok and c.mismatches == 1 and c.worst.index == (0,)
    assert any("either branch" in n for n in c.notes)
    # float32 compares exactly: no ambiguity, the rounded-threshold answer is wrong there
    x32 = np.array([np.nextafter(F32(thr), F32(1))], np.float32)
    c = compare(SH, "onnx", "float32", {"x": x32}, attrs, sh_float64(x32, bias, thr, "float32"), np.zeros(1, np.float32))
    assert not c.ok
