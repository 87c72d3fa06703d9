"""Verdicts a backend engineer can trust (issue 19, items 2-4): each case of the issue gets the
verdict the issue gives it, built as the small kernel that produced it, on real corpus cases or on
the issue's inputs with their golden values. Correct results pass (the accuracy floor, per-type
budgets, special inputs under the flush and sign rules, limits at attribute corners); wrong ones
fail with a reason a person reads at a glance (no catastrophic passes)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from specgen.formula import parse_formula
from specgen.formula.functions import FUNCTION_ULPS, formula_budget
from specgen.numerics import ulp as U
from specgen.numerics.compare import compare, resolve_attributes
from specgen.numerics.error_model import accepted_outputs
from specgen.numerics.exact import golden
from specgen.spec.loader import load_all
from specgen.vectors import load_corpus

ROOT = Path(__file__).resolve().parent.parent
SPECS = load_all()
f32, f16 = np.float32, np.float16


@lru_cache(maxsize=1)
def _corpus():
    return {c.id: c for c in load_corpus(ROOT / "generated" / "vectors").cases}


def _case(case_id):
    case = _corpus()[case_id]
    spec = SPECS[case.op]
    t = case.load()
    return case, spec, {i.name: t[i.name] for i in spec.inputs}, t[spec.outputs[0].name]


def _judge_case(case_id, kernel):
    """compare() of ``kernel(inputs, attributes)`` (the attributes the standard computes with) on a
    corpus case; also returns how many elements differ from the golden value."""
    case, spec, inputs, y = _case(case_id)
    plain, numeric = spec.resolve(case.attributes, case.standard) if getattr(spec, "choice", None) else (spec, case.attributes)
    attrs = resolve_attributes(plain, case.standard, numeric, case.dtype)
    actual = np.asarray(kernel(inputs, attrs)).astype(y.dtype).reshape(y.shape)
    differ = int((actual.view(f"u{y.dtype.itemsize}") != y.view(f"u{y.dtype.itemsize}")).sum())
    return compare(spec, case.standard, case.dtype, inputs, case.attributes, y, actual), differ


def _judge_at(op, standard, dtype, x, attributes, actual):
    """compare() of ``actual`` at inputs ``x`` of an operator against their golden values."""
    spec = SPECS[op]
    if getattr(spec, "choice", None) is not None:
        spec, attributes = spec.resolve(attributes, standard)
    numpy_dtype = np.dtype(f32 if dtype == "float32" else f16)
    x = np.asarray(x, dtype=numpy_dtype)
    attrs = resolve_attributes(spec, standard, attributes, dtype)
    y = golden(spec, {"x": x}, attrs, dtype, standard).y
    return compare(spec, standard, dtype, {"x": x}, attributes, y, np.asarray(actual, dtype=numpy_dtype)), y


def _bits32(*bits):
    return np.array(bits, dtype=np.uint32).view(f32)


def _bits16(*bits):
    return np.array(bits, dtype=np.uint16).view(f16)


# ----------------------------------------------------------------------------- correct results pass

def test_onnxruntime_selu_with_gamma_times_alpha_folded_passes():
    def folded(inputs, a):  # onnxruntime's kernel: (gamma * alpha) rounded once, then times expm1
        x = inputs["x"].astype(f32)
        ga = f32(f32(a["gamma"]) * f32(a["alpha"]))
        return np.where(x > 0, f32(a["gamma"]) * x, ga * np.expm1(x))

    c, differ = _judge_case("selu/onnx-6/float32/rank4/sweep", folded)
    assert differ and c.ok and c.max_error_ulps > 0.5, c.summary()


def test_sigmoid_float16_one_ulp_above_a_subnormal_golden_passes():
    case_id = "sigmoid/onnx-6/float16/rank7/sweep"
    _, _, inputs, y = _case(case_id)
    at = inputs["x"].view(np.uint16) == 0xCA61
    assert at.any() and (y[at].view(np.uint16) == 0x0030).all()

    def kernel(result_bits):
        out = y.copy()
        out[at] = _bits16(result_bits)[0]
        return lambda inputs, attrs: out

    assert _judge_case(case_id, kernel(0x0031))[0].ok  # 0.69 ULP above the exact value
    assert _judge_case(case_id, kernel(0x0000))[0].ok  # flushed (48 ULP below): the result is subnormal
    assert not _judge_case(case_id, kernel(0x0070))[0].ok  # 64 ULP above: farther than any accepted result


def test_the_budget_is_measured_from_the_exact_value_not_the_golden_cell():
    # sigmoid(-13.5390625) in float16 is 22.12 subnormal ULPs (exact), golden 0x0016 (22): onnxruntime's
    # 0x0018 is 1.88 ULP from the exact value, inside the 2-ULP budget, but 2.5 ULP from the far end of
    # the golden value's rounding cell, where the judge used to measure (14 float16 inputs failed so)
    x = _bits16(0xCAC5)
    for got, ok in ((0x0018, True), (0x0014, False), (0x0019, False)):  # 1.88 above; 2.12 below; 2.88 above
        c, y = _judge_at("sigmoid", "onnx", "float16", x, {}, _bits16(got))
        assert y.view(np.uint16)[0] == 0x0016
        assert c.ok is ok, (hex(got), c.summary())


def _expm1_one_ulp_off(x):
    """A faithful float32 expm1 that is never the nearest: the neighbour of expm1(x) on the other side
    of the exact value (1 ULP at most). numpy's own float32 expm1 is that far off only on some CPUs
    (AVX-512's SVML path; glibc's expm1f on AVX2 machines is correctly rounded on these inputs), so
    the kernel is built, not borrowed."""
    e = np.expm1(x.astype(np.float64))
    near = e.astype(f32)
    other = np.where(near.astype(np.float64) < e, np.nextafter(near, f32(np.inf)), np.nextafter(near, f32(-np.inf)))
    return np.where(near.astype(np.float64) == e, near, other)


@pytest.mark.parametrize("expm1", [np.expm1, _expm1_one_ulp_off], ids=["numpy", "one-ulp-off"])
@pytest.mark.parametrize("case_id", ["elu/onnx-6/float32/rank4/sweep", "celu/onnx-12/float32/rank4/sweep",
                                     "selu/onnx-6/float32/rank4/sweep"])
def test_onnx_reference_alpha_times_expm1_passes(case_id, expm1):
    def reference(inputs, a):  # onnx.reference: alpha * expm1(x) in float32 numpy
        x = inputs["x"].astype(f32)
        if "gamma" in a:
            return np.where(x > 0, f32(a["gamma"]) * x, f32(a["gamma"]) * (f32(a["alpha"]) * expm1(x)))
        if case_id.startswith("celu"):
            return np.maximum(0, x) + np.minimum(0, f32(a["alpha"]) * expm1(x / f32(a["alpha"])))
        return np.where(x >= 0, x, f32(a["alpha"]) * expm1(x))

    with np.errstate(over="ignore"):
        c, differ = _judge_case(case_id, reference)
    assert c.ok, c.summary()
    assert differ or expm1 is np.expm1, "the one-ULP-off kernel must differ from the golden values somewhere"


def test_torch_gelu_float32_passes():
    torch = pytest.importorskip("torch")
    c, differ = _judge_case("gelu/directml-5_1/float32/rank4/regions",
                            lambda inputs, a: torch.nn.functional.gelu(torch.from_numpy(inputs["x"])).numpy())
    assert differ and c.ok, c.summary()


def test_selu_as_gamma_times_alpha_expm1_one_ulp_below_the_golden_value_passes():
    case, spec, inputs, y = _case("selu/onnx-1/float32/rank5/sweep")
    x = f32(-3.8455176)
    at = inputs["x"] == x
    assert (y[at].view(np.uint32) == 0xBFDC37CB).all()
    a = resolve_attributes(spec, case.standard, case.attributes, case.dtype)
    assert (f32(a["gamma"]) * (f32(a["alpha"]) * np.expm1(x))).view(np.uint32) == 0xBFDC37CA
    for got, passes in ((0xBFDC37CA, True), (0xBFDC37C6, False)):  # 1 ULP (a rounding), 5 ULP (not)
        actual = y.copy()
        actual[at] = _bits32(got)[0]
        c = compare(spec, case.standard, case.dtype, inputs, case.attributes, y, actual)
        assert c.ok is passes, c.summary()


def test_a_rational_result_closer_to_the_exact_value_than_an_accepted_one_passes():
    """HardSigmoid at x = 0xc01fffff: the model accepts [0x33000000, 0x332ccccd] (onnxruntime's
    fl(fl(alpha * x) + beta) is the low end) and the exact value is 0x332ccccd: a result above it
    by less than that distance is as accurate, so it passes; one farther away fails."""
    x = _bits32(0xC01FFFFF)
    attrs = {"alpha": f32(0.2), "beta": f32(0.5)}
    for got, passes in ((0x33000000, True), (0x332CCCCD, True), (0x33400000, True), (0x33800000, False)):
        c, y = _judge_at("hard_sigmoid", "onnx", "float32", x, attrs, _bits32(got))
        assert y.view(np.uint32)[0] == 0x332CCCCD and c.ok is passes, (hex(got), c.summary())


def test_a_rational_cancellation_to_zero_is_a_rounding_not_a_catastrophe():
    """HardSigmoid, alpha = float32(1.1), beta = 0.5, x = -0.45454544: alpha * x rounds to -0.5 in
    float32, so the textbook kernel fl(fl(alpha * x) + beta) gives 0 where the exact value is
    7.04e-9, a normal float32: a rounding of the standard's own arithmetic, which the model bounds
    exactly, not a cancellation failure (a transcendental formula's would be)."""
    x = np.array([-0.45454544], dtype=f32)
    attrs = {"alpha": f32(1.1), "beta": f32(0.5)}
    kernel = np.clip(attrs["alpha"] * x + attrs["beta"], 0, 1)
    c, y = _judge_at("hard_sigmoid", "onnx", "float32", x, attrs, kernel)
    assert kernel[0] == 0 and float(y[0]) >= U.fmt("float32").min_normal
    assert c.ok, c.summary()


# ----------------------------------------------------------------------------- wrong results fail

def test_softplus_as_log_of_one_plus_exp_fails_where_exp_overflows():
    x = [100.0, 1.0]
    with np.errstate(over="ignore"):
        kernel = np.log(f32(1) + np.exp(np.array(x, dtype=f32)))
    c, _ = _judge_at("softplus", "onnx", "float32", x, {}, kernel)
    assert not c.ok and c.kind == "inf-mismatch" and c.mismatches == 1, c.summary()
    assert "exp(steepness * x) overflowed at x = 100: exact 100, got inf" in c.summary()
    assert c.worst.reason in c.to_json()["summary"] and c.to_json()["worst"]["reason"] == c.worst.reason


def test_softplus_as_log_of_one_plus_exp_fails_where_the_sum_cancels():
    kernel = np.log(f32(1) + np.exp(np.array([-20.0], dtype=f32)))
    assert kernel[0] == 0
    c, _ = _judge_at("softplus", "onnx", "float32", [-20.0], {}, kernel)
    assert not c.ok and c.kind == "cancellation", c.summary()
    assert "1 + exp(steepness * x) cancelled at x = -20: exact 2.06e-9, got 0" in c.summary()


def test_float16_gelu_computing_the_tanh_form_fails_where_one_plus_tanh_cancels():
    x = _bits16(0xC36B)  # -3.709: the exact GELU is -3.86e-4, a normal float16
    h = x.astype(f16)
    kernel = f16(0.5) * h * (f16(1) + np.tanh(f16(np.sqrt(2 / np.pi)) * (h + f16(0.044715) * h * h * h)))
    assert kernel[0] == 0
    c, y = _judge_at("gelu", "onnx", "float16", x, {"approximate": "none"}, kernel)
    assert abs(float(y[0])) >= U.fmt("float16").min_normal
    assert not c.ok and c.kind == "cancellation" and "exact -0.000386, got -0" in c.summary(), c.summary()


def test_a_nan_where_the_exact_value_is_finite_fails():
    c, _ = _judge_at("softplus", "onnx", "float32", [3.0], {}, np.array([np.nan], dtype=f32))
    assert not c.ok and c.kind == "nan-mismatch", c.summary()


# ----------------------------------------------------------------------------- budgets per type

def test_function_budgets_are_per_type():
    assert FUNCTION_ULPS["erf"] == {"float16": 4.0, "bfloat16": 4.0, "float32": 16.0, "float64": 16.0}
    assert FUNCTION_ULPS["exp"]["float16"] == 2.0 and FUNCTION_ULPS["tanh"]["float32"] == 5.0
    gelu = SPECS["gelu"].resolve({"approximate": "none"}, "onnx")[0].formula
    assert formula_budget(gelu, "float16") == 4.0 and formula_budget(gelu, "float32") == 16.0
    assert formula_budget(SPECS["hard_sigmoid"].formula, "float32") == 0.0


def test_a_float16_function_is_accepted_within_its_float16_budget_only():
    """erf(x) for a float16 tensor computed in float16: 4 float16 ULPs (OpenCL's half limit), not
    the 16 of float32: the accepted set is 9-10 values wide, not 33."""
    x = np.array([0.25, 0.5], dtype=np.float64)
    acc = accepted_outputs(parse_formula("erf(x)", ["x"], []), {"x": x}, "float16", "float16", inputs={"x"})
    width = U.ulp_distance(acc.lo.astype(f16), acc.hi.astype(f16), "float16")
    assert (width >= 8).all() and (width <= 10).all(), width


# ----------------------------------------------------------------------------- special inputs

def test_elu_with_a_subnormal_alpha_may_flush_its_result_at_minus_infinity():
    case_id = "elu/webnn-2026-06-26/float32/rank4/attribute-boundary[alpha=1e-45]"
    _, _, inputs, y = _case(case_id)
    at = inputs["x"] == -np.inf
    assert at.any() and (y[at] == f32(-1e-45)).all()
    for got, passes in ((f32(0.0), True), (f32(-0.0), True), (f32(-1.0), False), (f32(np.nan), False)):
        c, _ = _judge_case(case_id, lambda inputs, a: np.where(at, got, y))
        assert c.ok is passes, (got, c.summary())


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_swish_with_alpha_zero_is_plus_infinity_at_plus_infinity(dtype):
    """x * sigmoid(0 * x) -> +inf as x -> +inf (the limit), though the formula at 1e300 is finite
    in float64: +inf passes, the largest finite value does not."""
    case_id = f"swish/onnx-24/{dtype}/rank4/breakpoints[alpha=0]"
    _, _, inputs, y = _case(case_id)
    at = inputs["x"].astype(np.float64) == np.inf
    assert at.any()
    big = U.fmt(dtype).max_finite
    for got, passes in ((np.inf, True), (big, False)):
        c, _ = _judge_case(case_id, lambda inputs, a: np.where(at, np.asarray(got).astype(y.dtype), y))
        assert c.ok is passes, (got, c.summary())


def test_an_attribute_the_dtype_cannot_hold_is_named_as_the_cause():
    """LeakyRelu bfloat16 with alpha = FLT_MAX held in bfloat16 (inf): -inf where the exact value is
    finite fails, and the reason names alpha."""
    x = np.array([-0.25], dtype=np.float64)  # exact -8.5e37, a finite bfloat16
    bf = np.dtype(ml_dtypes.bfloat16)
    spec = SPECS["leaky_relu"]
    attrs = {"alpha": float(np.finfo(f32).max)}
    xs = x.astype(bf)
    y = golden(spec, {"x": xs}, resolve_attributes(spec, "onnx", attrs, "bfloat16"), "bfloat16", "onnx").y
    c = compare(spec, "onnx", "bfloat16", {"x": xs}, attrs, y, np.array([-np.inf]).astype(bf))
    assert np.isfinite(float(y[0])) and not c.ok and c.kind == "inf-mismatch", c.summary()
    assert "alpha = 3.4e38 overflowed in bfloat16 at x = -0.25" in c.summary(), c.summary()


def test_an_intermediate_that_overflows_a_compute_type_widens_nothing():
    """Softplus float32 at x = 100: exp(x) overflows float32 but not float64; the accepted results
    are those near 100 (the float64 path), not every finite value up to infinity."""
    for got, passes in ((100.0, True), (1e30, False), (88.37627, False)):
        c, _ = _judge_at("softplus", "onnx", "float32", [100.0], {}, np.array([got], dtype=f32))
        assert c.ok is passes, (got, c.summary())
