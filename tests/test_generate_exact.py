"""Golden values are correct to the last bit: a sample of the committed corpus re-checked against an
independent oracle (each formula written out in exact rationals here, and a nearest-neighbour test
of the stored value rather than the generator's rounding routine)."""
from __future__ import annotations

import math
import os
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np
import pytest

from sampling import sampled
from specgen import dtypes as dt
from specgen.formula import nodes
from specgen.formula.functions import FUNCTIONS
from specgen.numerics.exact import golden
from specgen.numerics.ulp import FORMATS, round_fraction, step
from specgen.numerics.ulp import round_to as round_float64
from specgen.spec.loader import load_all
from specgen.vectors import case_seed, load_corpus

SPECS = load_all()


def exact(op: str, x: Fraction, a: dict, standard: str = "directml", /, **others: Fraction) -> Fraction:
    F = {k: Fraction(v) for k, v in a.items() if not isinstance(v, str)}
    if op == "prelu":
        return others["slope"] * x if x < 0 else x
    if op == "hard_sigmoid":
        return max(Fraction(0), min(F["alpha"] * x + F["beta"], Fraction(1)))
    if op == "shrink":
        t, b = F["threshold"], F["bias"]
        if standard == "onnx":  # ONNX tests x < -lambd first; it matters for negative thresholds
            return x + b if x < -t else (x - b if x > t else Fraction(0))
        return x - b if x > t else (x + b if x < -t else Fraction(0))
    if op == "softsign":
        return x / (1 + abs(x))
    if op == "identity":
        return x
    if op == "relu":
        return max(Fraction(0), x)
    if op == "leaky_relu":
        return x if x >= 0 else F["alpha"] * x
    if op == "thresholded_relu":
        return x if x > F["alpha"] else Fraction(0)
    if op == "linear":
        return F["alpha"] * x + F["beta"]
    if op == "hard_swish":
        if standard in ("onednn", "webnn"):  # their own formula: x * clamp(x + 3, 0, 6) / 6
            return x * max(Fraction(0), min(x + 3, Fraction(6))) / 6
        return x * max(Fraction(0), min(Fraction(1), F["alpha"] * x + F["beta"]))
    if op in TRANSCENDENTAL:  # an independent oracle: mpmath at 2600 bits (float64 subnormals need
        with mpmath.workprec(2600):  # ~2150 to see expm1(x) - x), as a rational
            v = TRANSCENDENTAL[op](mpmath.mpf(x.numerator) / x.denominator,
                                   {k: v if isinstance(v, str) else mpmath.mpf(v) for k, v in a.items()})
            return _mp_fraction(v)
    plain, numeric = SPECS[op].resolve(a, standard)  # a string attribute picks the formula
    return formula_oracle(plain.formula_for(standard), x, numeric, SPECS[op].inputs[0].name, **others)


def formula_oracle(node, x: Fraction, a: dict, primary: str = "x", /, **others: Fraction) -> Fraction | None:
    """Every other operator: its spec's formula evaluated here, independently of the generator's
    tiers, in mpmath at 2600 bits (enough for the cancellation in exp(x) - 1 at float64 subnormals),
    with the function table's mpmath meanings; None where the value is not finite (log(0), 1/0)."""
    env = {primary: x, **{k: Fraction(v) for k, v in a.items()}, **others}

    def ev(t):
        if isinstance(t, nodes.Num):
            return mpmath.mpf(t.exact.numerator) / t.exact.denominator
        if isinstance(t, nodes.Const):
            return mpmath.inf if t.name == "inf" else {"pi": mpmath.pi, "e": mpmath.e}[t.name]
        if isinstance(t, nodes.Var):
            q = env[t.name]
            return mpmath.mpf(q.numerator) / q.denominator
        if isinstance(t, nodes.Unary):
            return -ev(t.operand) if t.op == "-" else ev(t.operand)
        if isinstance(t, nodes.Binary):
            u, v = ev(t.left), ev(t.right)
            return {"+": lambda: u + v, "-": lambda: u - v, "*": lambda: u * v, "/": lambda: u / v}[t.op]()
        if isinstance(t, nodes.Compare):
            u, v = ev(t.left), ev(t.right)
            return {"<": u < v, "<=": u <= v, ">": u > v, ">=": u >= v, "==": u == v, "!=": u != v}[t.op]
        if isinstance(t, nodes.Logical):
            return (all if t.op == "and" else any)(ev(o) for o in t.operands)
        if isinstance(t, nodes.Not):
            return not ev(t.operand)
        if t.func in ("where", "select"):
            return ev(t.args[1]) if ev(t.args[0]) else ev(t.args[2])
        return FUNCTIONS[t.func].mpmath(*[ev(u) for u in t.args])

    with mpmath.workprec(2600):
        try:
            v = ev(node)
        except (ZeroDivisionError, ValueError):
            return None
        if isinstance(v, mpmath.mpc) or not mpmath.isfinite(v):  # log(-1), sqrt(-1): complex, NaN in IEEE
            return None
        return _mp_fraction(v)


def _mp_fraction(v) -> Fraction:
    if v == 0:
        return Fraction(0)
    sign, man, exp, bc = mpmath.mpf(v)._mpf_
    if exp + bc > 1100:  # beyond every dtype (rounds to inf): keep the rational small
        return (-1) ** sign * Fraction(2) ** 1100
    if exp + bc < -1200:  # below half the smallest subnormal of every dtype: rounds to a zero
        return (-1) ** sign * Fraction(1, 2 ** 1200)
    return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)


TRANSCENDENTAL = {
    "elu": lambda x, a: x if x >= 0 else a["alpha"] * mpmath.expm1(x),
    "softplus": lambda x, a: mpmath.log1p(mpmath.exp(a["steepness"] * x)) / a["steepness"],
    # written without the cancellation of 1 + erf / 1 + tanh far below 0: x * Phi(x) = x * erfc(-x / sqrt 2) / 2,
    # 0.5 * x * (1 + tanh(u)) = x / (1 + exp(-2u))
    "gelu": lambda x, a: (_gelu_erf(x) if a["approximate"] == "erf" else
                          x / (1 + mpmath.exp(-2 * mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x ** 3)))),
    "celu": lambda x, a: max(0, x) + min(0, a["alpha"] * mpmath.expm1(x / a["alpha"])),
    "selu": lambda x, a: a["gamma"] * x if x > 0 else a["gamma"] * a["alpha"] * mpmath.expm1(x),
}


def _gelu_erf(x):
    if abs(x) > 10 ** 4:  # mpmath's erfc overflows a float on huge arguments; erfc(1e4 / sqrt 2) < 2^-72000
        return x * (1 - mpmath.mpf(2) ** -5000) if x > 0 else -mpmath.mpf(2) ** -5000
    return x * mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def correctly_rounded(q: Fraction, stored, dtype: str) -> bool:
    d = dt.get(dtype)
    if not d.is_float:
        return int(stored) == int(q)  # shrink's stored integer_rounding: toward_zero
    v = float(stored)
    f = FORMATS[dtype]
    if math.isinf(v):
        return (v > 0) == (q > 0) and _overflows(q, d)
    if math.isnan(v):  # a format without infinity overflows to NaN (Cast at saturate = 0)
        return not f.has_inf and _overflows(q, d)
    arr = np.array([stored], dtype=d.numpy)
    err = abs(q - Fraction(v))
    for k in (-1, 1):
        nb = float(step(arr, k, dtype)[0])
        if math.isinf(nb) or nb == v:
            continue  # no neighbour that way (step stops at a format's largest finite value)
        other = abs(q - Fraction(nb))
        if other < err or (other == err and int(arr.view(d.uint_view)[0]) & 1):
            return False
    if q != 0 and (v > 0) != (q > 0) and v != 0:
        return False
    if q != 0 and v == 0:  # the fnuz formats have one zero, +0
        return math.copysign(1.0, v) == math.copysign(1.0, q) or not f.signed_zero
    return True


def _overflows(q: Fraction, d) -> bool:
    """|q| rounds past the largest finite value: beyond the midpoint to the next power, or on it when
    the largest finite value's last significand bit is odd (a tie goes to even)."""
    f = FORMATS[d.name]
    mid = Fraction(f.max_finite) + Fraction(2) ** (f.emax - f.precision)
    odd = int(np.array([f.max_finite], dtype=d.numpy).view(d.uint_view)[0]) & 1
    return abs(q) > mid or (abs(q) == mid and bool(odd))


def _as_fraction(v) -> Fraction:
    return Fraction(int(v)) if np.asarray(v).dtype.kind in "iu" else Fraction(float(v))


@pytest.mark.parametrize("op", sampled(SPECS))
def test_a_sample_of_the_corpus_is_correctly_rounded(op):
    """4 seeded elements per case of the operator; SPECGEN_EXACT_SAMPLE=all checks every element."""
    corpus = load_corpus()
    # stored cases: a recipe's (size-boundary) elements are its source case's
    # (the accumulating operators' golden values: tests/test_accumulate.py)
    positives = [c for c in corpus.cases if c.kind == "positive" and c.recipe is None and c.op == op]
    rng = np.random.Generator(np.random.PCG64(case_seed(f"exactness-sample/{op}")))
    everything = os.environ.get("SPECGEN_EXACT_SAMPLE") == "all"
    checked, by_op = 0, {}
    for case in positives:
        t = case.load()
        xn, yn = SPECS[case.op].inputs[0].name, SPECS[case.op].outputs[0].name
        y = t[yn].ravel()
        x = np.broadcast_to(t[xn], t[yn].shape).ravel()
        others = {k: np.broadcast_to(v, t[yn].shape).ravel() for k, v in t.items() if k not in (xn, yn)}
        picks = np.arange(x.size) if everything else rng.integers(0, x.size, size=min(x.size, 4))
        for i in picks:
            floats = [v for v in (x, *others.values()) if v.dtype.kind not in "iub"]  # float8s are kind "V"
            if not all(math.isfinite(float(v[i])) for v in floats):
                continue  # Where's x and y beside a bool condition included
            if case.op == "softplus" and case.attributes["steepness"] == 0:
                continue  # log(2) / 0: IEEE's +inf, no rational oracle
            info = SPECS[case.op].standards[case.standard].info  # WebNN computes with options cast to the dtype
            attributes = info.cast_attributes(case.attributes, case.dtype)
            if any(not isinstance(v, str) and not math.isfinite(v) for v in attributes.values()):
                continue  # Clip's bound at +-inf: no rational oracle (the special-value tests judge those)
            q = exact(case.op, _as_fraction(x[i]), attributes, case.standard,
                      **{k: _as_fraction(v[i]) for k, v in others.items()})
            if q is None:
                continue  # the formula's value is not finite there (the special-value rules decide)
            out_dtype = case.dtypes.get(yn, case.dtype) if case.dtypes else case.dtype  # Cast: the type `to` names
            if not dt.get(out_dtype).is_float and not (dt.get(out_dtype).int_range[0] <= q <= dt.get(out_dtype).int_range[1]):
                continue  # a float beyond an integer type's range: any value (integer_overflow.float_inputs)
            assert correctly_rounded(q, y[i], out_dtype), (case.id, x[i], y[i], float(q))
            checked += 1
            by_op[case.op] = by_op.get(case.op, 0) + 1
    assert checked > 40, checked


def test_the_hard_case_near_minus_2_5():
    """x = 0xc01fffff, alpha = float32(0.2), beta = 0.5: the exact result rounds to 0x332ccccd."""
    x = np.array([0xC01FFFFF], dtype=np.uint32).view(np.float32)
    g = golden(SPECS["hard_sigmoid"], {"x": x}, {"alpha": float(np.float32(0.2)), "beta": 0.5}, "float32")
    assert hex(int(g.y.view(np.uint32)[0])) == "0x332ccccd"
    corpus = load_corpus()
    found = [c for c in corpus.select(op="hard_sigmoid", standard="onnx", version="22", dtype="float32")
             if "breakpoints" in c.tags and c.attributes["alpha"] == float(np.float32(0.2))]
    assert found and any(0xC01FFFFF in c.load()["x"].view(np.uint32) for c in found)


def test_bfloat16_rounds_once_from_float64():
    # 1 + 2**-8 is the midpoint between 1 and the next bfloat16; a hair above it must round up.
    v = np.array([1 + 2 ** -8 + 2 ** -40, 1 + 2 ** -8 - 2 ** -40, 1 + 2 ** -8, 1 + 3 * 2 ** -8])
    got = round_float64(v, "bfloat16").astype(np.float64)
    assert list(got) == [1 + 2 ** -7, 1.0, 1.0, 1 + 2 ** -6]
    for value in v:
        assert round_fraction(Fraction(value), "bfloat16") == float(round_float64(np.array([value]), "bfloat16")[0])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_round_fraction_edges(dtype):
    f = FORMATS[dtype]
    max_finite, min_sub = Fraction(f.max_finite), Fraction(f.min_subnormal)
    half_ulp_max = Fraction(2) ** (f.emax - f.precision)
    assert round_fraction(max_finite + half_ulp_max, dtype) == math.inf
    assert round_fraction(max_finite + half_ulp_max - Fraction(1, 10 ** 9), dtype) == float(max_finite)
    assert round_fraction(min_sub / 2, dtype) == 0.0  # tie to even (zero)
    assert round_fraction(min_sub * 3 / 2, dtype) == float(min_sub * 2)
    assert math.copysign(1, round_fraction(-min_sub / 4, dtype)) == -1


def test_float64_outputs_fall_back_to_exact_arithmetic():
    x = np.array([0.1, -2.5, 1e-300, 3.0, 7.0], dtype=np.float64)
    attrs = {"alpha": float(np.float32(0.2)), "beta": 0.5}
    g = golden(SPECS["hard_sigmoid"], {"x": x}, attrs, "float64")
    assert g.exact >= 2  # 0.2f * 0.1 + 0.5 is not exact in float64
    for xv, yv in zip(x, g.y):
        assert correctly_rounded(exact("hard_sigmoid", Fraction(xv), attrs), yv, "float64")


def test_special_values_follow_the_spec():
    x = np.array([np.nan, np.inf, -np.inf, -0.0], dtype=np.float16)
    hs = golden(SPECS["hard_sigmoid"], {"x": x}, {"alpha": 0.25, "beta": 0.5}, "float16").y.astype(np.float64)
    assert np.isnan(hs[0]) and hs[1] == 1 and hs[2] == 0  # nan recommended; inf: formula
    flat = golden(SPECS["hard_sigmoid"], {"x": x}, {"alpha": 0.0, "beta": 0.5}, "float16").y.astype(np.float64)
    assert np.isnan(flat[1]) and np.isnan(flat[2])  # alpha 0: the literal formula gives 0*inf = NaN
    ss = golden(SPECS["softsign"], {"x": x}, {}, "float16").y.astype(np.float64)
    assert np.isnan(ss[0]) and ss[1] == 1 and ss[2] == -1  # limit recommended
    assert ss[3] == 0 and math.copysign(1, ss[3]) == -1  # -0 / (1 + 0) = -0
    sh = golden(SPECS["shrink"], {"x": x}, {"bias": 0.5, "threshold": 1.0}, "float16").y.astype(np.float64)
    assert sh[0] == 0 and sh[1] == np.inf and sh[2] == -np.inf  # comparisons with NaN are false


@pytest.mark.parametrize("dtype, bits", [("float16", 0x7E00), ("bfloat16", 0x7FC0), ("float32", 0x7FC00000),
                                         ("float64", 0x7FF8000000000000)])
def test_a_nan_golden_value_is_the_canonical_quiet_nan(dtype, bits):
    # the libm decides the sign of acos(inf)'s NaN (AVX-512 SVML: -NaN, glibc: +NaN) and x86 arithmetic
    # gives -NaN for inf - inf: the stored golden value is one NaN, so the corpus is the same everywhere
    numpy_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype).type
    x = np.array([np.inf, -np.inf, np.nan, 2.0], dtype=numpy_dtype)
    for op, attrs in (("acos", {}), ("hard_sigmoid", {"alpha": 0.0, "beta": 0.5})):  # a libm NaN; 0 * inf
        y = golden(SPECS[op], {"x": x}, attrs, dtype).y
        nan = np.isnan(y.astype(np.float64))
        assert nan.sum() >= 2, (op, y)
        assert (y.view(f"u{y.itemsize}")[nan] == bits).all(), (op, y.view(f"u{y.itemsize}"))

def test_integer_shrink_truncates_the_exact_value():
    x = np.array([-128, -3, -2, 2, 3, 127, 100], dtype=np.int8)
    g = golden(SPECS["shrink"], {"x": x}, {"bias": float(np.float32(0.3)), "threshold": 2.0}, "int8")
    assert list(g.y) == [-127, -2, 0, 0, 2, 126, 99]
    big = np.array([2 ** 62 + 1, -(2 ** 62) - 1, 2 ** 53 + 1], dtype=np.int64)
    g = golden(SPECS["shrink"], {"x": big}, {"bias": 0.5, "threshold": 1.0}, "int64")
    assert [int(v) for v in g.y] == [2 ** 62, -(2 ** 62), 2 ** 53]


def test_exhaustive_sweeps_hold_every_16_bit_pattern_correctly_rounded():
    from specgen.generate.corpus import exhaustive_cases
    from specgen.vectors import CorpusWriter
    w = CorpusWriter()
    assert exhaustive_cases(SPECS["softsign"], w) == 7  # float16 at 6 rows, bfloat16 at ONNX 22
    rng = np.random.Generator(np.random.PCG64(case_seed("exhaustive-sample")))
    for entry in w.cases:
        assert entry["shapes"]["x"] in ([1, 1, 256, 256], [256, 256])
    # re-derive one case's data and check a sample (the writer keeps bytes, not arrays)
    from specgen.numerics.exact import golden as g
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16)
    y = g(SPECS["softsign"], {"x": x}, {}, "bfloat16").y
    assert len(np.unique(x.view(np.uint16))) == 65536
    for i in rng.integers(0, 65536, size=1500):
        if np.isfinite(float(x[i])):
            assert correctly_rounded(exact("softsign", Fraction(float(x[i])), {}), y[i], "bfloat16"), x[i]


def test_a_product_that_underflows_to_zero_is_not_taken_as_exact():
    """0.5 * 2^-1074 rounds to 0 in float64; GELU there is a hair above half the smallest subnormal
    (erf(x / sqrt 2) > 0), so its float64 golden value is 2^-1074, not 0."""
    x = np.array([5e-324, -5e-324, 1e-320])
    g = golden(SPECS["gelu"], {"x": x}, {"approximate": "erf"}, "float64", "onnx").y
    assert g[0] == 5e-324 and g[1] == 0 and g[2] == 5e-321
