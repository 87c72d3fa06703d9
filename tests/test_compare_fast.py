"""The compare fast path (elements bit-identical to the golden value skip the error model) gives the
verdicts of the full judgement element by element: on every design of the committed corpus and
on exhaustive 16-bit sweeps, for correct outputs and for deliberately wrong ones."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sampling import sample_of, sampled

from specgen import dtypes as dt
from specgen.formula.numpy_eval import evaluate
from specgen.generate.corpus import attribute_sets, held_values
from specgen.numerics.exact import golden
from specgen.numerics import ulp as U
from specgen.numerics.compare import compare
from specgen.spec.loader import load_all
from specgen.vectors import case_seed, load_corpus

ROOT = Path(__file__).resolve().parent.parent
SPECS = load_all()


def _wrong(expected: np.ndarray, inputs: dict, spec, attrs, seed: str) -> np.ndarray:
    """A backend that is wrong in several ways at once: 1-3 ULP off, a flipped zero sign, a NaN,
    an infinity, and elsewhere the formula evaluated naively in the output dtype."""
    rng = np.random.Generator(np.random.PCG64(case_seed(seed)))
    f = U.fmt(expected.dtype)
    env = {k: v.astype(f.numpy) if U.is_float(v.dtype) else v for k, v in inputs.items()}
    with np.errstate(all="ignore"):
        plain, numeric = spec.resolve(attrs)  # a string attribute picks the formula
        naive = np.broadcast_to(np.asarray(evaluate(plain.formula, {**env, **numeric}, dtype=f.numpy)),
                                expected.shape).astype(f.numpy)
    out = np.array(expected, copy=True).reshape(-1)
    flat_naive = naive.reshape(-1)
    pick = rng.integers(0, 6, out.size)
    steps = rng.integers(1, 4, out.size)
    ordered = U.ordered(out, f)
    stepped = U.from_ordered(np.clip(ordered + steps, None, U.ordered(np.array([f.max_finite]), f)[0]), f)
    out = np.where(pick == 0, stepped, out)
    out = np.where(pick == 1, flat_naive, out)
    with np.errstate(invalid="ignore"):
        out = np.where((pick == 2) & (out.astype(np.float64) == 0), -out, out)
    out = np.where(pick == 3, np.array(np.nan, f.numpy), out)
    out = np.where(pick == 4, np.array(np.inf, f.numpy), out)
    return out.astype(f.numpy).reshape(expected.shape)


def _same_verdicts(spec, standard, dtype, inputs, attrs, expected, actual, label):
    fast = compare(spec, standard, dtype, inputs, attrs, expected, actual)
    full = compare(spec, standard, dtype, inputs, attrs, expected, actual, fast=False)
    assert (fast.ok, fast.mismatches, fast.kind, fast.kinds, fast.total) == \
           (full.ok, full.mismatches, full.kind, full.kinds, full.total), label
    assert [e.index for e in fast.first] == [e.index for e in full.first], label
    if not full.ok:
        assert fast.worst.index == full.worst.index and fast.worst.kind == full.worst.kind, label
    return fast


SAMPLE_MAX_ELEMENTS = 4096


def _mixed(op) -> bool:
    """An operator whose tensors are not all of the case's dtype (a comparison's truth value, Where's
    bool condition, Cast's output): judged exactly by compare(), outside judge_elements' per-element float tiers."""
    spec = SPECS[op]
    from specgen.generate.corpus import case_dtypes, tensor_dtype

    if spec.dtype_attributes:  # an output whose type an attribute names (Cast): of another dtype too
        return True
    return any(tensor_dtype(v, t, d) != d for s in spec.standards.values() for v in s.versions
               for d in case_dtypes(v, [i.name for i in spec.inputs]) for t in v.tensors)


def _one_case_per_design(cases, per_dtype: bool = True):
    """One case of each design (breakpoints, regions[alpha=...], sweep, strided, ...) per operator,
    standard and dtype: the versions of a standard repeat a design at other ranks and shapes, which
    the fast path does not look at; the special-value rules it does look at are per standard.
    ``per_dtype=False``: one case per design, operator and standard, in whichever dtype comes first,
    and of the cases above SAMPLE_MAX_ELEMENTS (the `large` design: 95% of the elements) only the
    first (a sample: every operator, standard and design, the large path once)."""
    seen = set()
    large_seen = False
    for case in cases:
        if case.kind != "positive" or not dt.get(case.dtype).is_float or case.recipe is not None:
            continue  # a recipe's (size-boundary) elements are its stored source case's, judged there
        if case.op not in SPECS:
            continue  # an accumulating operator: its judge is the index engine's (tests/test_accumulating_operators.py)
        if _mixed(case.op):
            continue  # tensors of their own dtypes: tests/test_logical.py
        key = (case.op, case.standard, case.dtype if per_dtype else "", case.id.rsplit("/", 1)[-1])
        if key in seen:
            continue
        if not per_dtype and int(np.prod(next(iter(case.shapes.values()), [1]))) > SAMPLE_MAX_ELEMENTS:
            if large_seen:
                continue
            large_seen = True
        seen.add(key)
        yield case


def _fast_agrees_with_full_on(cases) -> tuple[int, set]:
    judged = 0
    ops = set()
    for case in cases:
        ops.add(case.op)
        spec = SPECS[case.op]
        t = case.load()
        names = [i.name for i in spec.inputs]
        inputs = {n: t[n] for n in names}
        y = t[spec.outputs[0].name]
        if y.ndim == 0:
            inputs = {n: v.reshape(1) for n, v in inputs.items()}
            y = y.reshape(1)
        wrong = _wrong(y, inputs, spec, case.attributes, case.id)
        fast = _same_verdicts(spec, case.standard, case.dtype, inputs, case.attributes, y, wrong, case.id)
        judged += fast.total - fast.golden_equal
        assert compare(spec, case.standard, case.dtype, inputs, case.attributes, y, y.copy()).ok, case.id
    return judged, ops


def test_fast_path_agrees_with_the_full_judgement_on_a_sample_of_the_committed_corpus():
    sample = sample_of(SPECS)  # every operator: the slow test below
    cases = [c for c in load_corpus(ROOT / "generated" / "vectors").cases if c.op in sample]
    judged, ops = _fast_agrees_with_full_on(_one_case_per_design(cases, per_dtype=False))
    float_ops = {c.op for c in cases if c.kind == "positive" and dt.get(c.dtype).is_float}  # And, Or, Xor, Not: bool, uint8
    assert judged > 5_000 and ops == {o for o in sample if not _mixed(o) and o in float_ops}


@pytest.mark.slow
def test_fast_path_agrees_with_the_full_judgement_on_the_committed_corpus():
    cases = load_corpus(ROOT / "generated" / "vectors").cases
    judged, ops = _fast_agrees_with_full_on(_one_case_per_design(cases))
    float_ops = {c.op for c in cases if c.kind == "positive" and dt.get(c.dtype).is_float}  # And, Or, Xor, Not: bool, uint8
    assert judged > 50_000 and ops == {o for o in SPECS if not _mixed(o) and o in float_ops}


def _lists_16_bit_floats(op) -> bool:
    spec = SPECS[op]
    return not _mixed(op) and any(d in ("float16", "bfloat16") for s in spec.standards.values()
                                  for v in s.versions for d in v.dtypes(spec.inputs[0].name))


@pytest.mark.parametrize("op", sampled([o for o in SPECS if _lists_16_bit_floats(o)], 5))  # up to ten sweeps
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_fast_path_agrees_on_an_exhaustive_16_bit_sweep(op, dtype):
    spec = SPECS[op]
    rows = [(k, v) for k, s in spec.standards.items() for v in s.versions if dtype in v.dtypes(spec.inputs[0].name)]
    if not rows:
        pytest.skip(f"{op} lists no {dtype}")
    key, _ = rows[-1]
    attrs = attribute_sets(spec, key)[0].values
    d = dt.get(dtype)
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(d.numpy)
    inputs = {spec.inputs[0].name: x}
    for t in spec.inputs[1:]:
        inputs[t.name] = np.full(x.shape, held_values(dtype)[1], dtype=d.numpy)
    y = golden(spec, inputs, attrs, dtype, key).y
    _same_verdicts(spec, key, dtype, inputs, attrs, y, y.copy(), f"{op} {dtype} correct")
    _same_verdicts(spec, key, dtype, inputs, attrs, y, _wrong(y, inputs, spec, attrs, f"{op}/{dtype}"), f"{op} {dtype} wrong")


def _same_element_verdicts(spec, standard, dtype, inputs, attrs, expected, actual, label):
    """judge_elements (fast tiers) gives the full judgement's kind and error at every element, and
    the counts compare(fast=False) reports."""
    from specgen.numerics.compare import (BUDGET_INSIDE, CODE, GOLDEN_EQUAL, JUDGED, MODEL_INSIDE, NAIVE_EQUAL,
                                          judge_elements)

    fast = judge_elements(spec, standard, dtype, inputs, attrs, expected, actual)
    full = judge_elements(spec, standard, dtype, inputs, attrs, expected, actual, bounds=True)
    assert np.array_equal(fast.kind, full.kind), label
    assert np.array_equal(fast.error, full.error, equal_nan=True), label
    judged = fast.tier == JUDGED
    assert np.array_equal(fast.bound[judged], full.bound[judged], equal_nan=True), label
    assert np.isnan(fast.bound[~judged]).all() and (full.tier == JUDGED).all(), label
    agg = compare(spec, standard, dtype, inputs, attrs, expected, actual, fast=False)
    assert agg.kinds == {k: int((full.kind == c).sum()) for k, c in CODE.items() if (full.kind == c).any()}, label
    return np.bincount(fast.tier, minlength=6)[[GOLDEN_EQUAL, NAIVE_EQUAL, JUDGED, MODEL_INSIDE, BUDGET_INSIDE]]


@pytest.mark.parametrize("op", sampled([o for o in SPECS if not _mixed(o)]))
def test_judge_elements_gives_the_full_judgement_per_element(op):
    spec = SPECS[op]
    dtype = "float32"
    rows = [(k, v) for k, s in spec.standards.items() for v in s.versions if dtype in v.dtypes(spec.inputs[0].name)]
    if not rows:
        pytest.skip(f"{op} lists no {dtype}")  # the logical operators: bool and uint8 only
    key, _ = rows[-1]
    attrs = attribute_sets(spec, key)[0].values
    if getattr(spec, "choice", None) is not None:  # a string attribute picks the formula
        spec, attrs = spec.resolve(attrs, key)
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.integers(0, 2 ** 32, 3000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        rng.uniform(-8, 8, 3000).astype(np.float32),
                        np.array([0, -0.0, 1e-45, -1e-45, np.inf, -np.inf, np.nan, 3.4e38], dtype=np.float32)])
    inputs = {spec.inputs[0].name: x}
    for t in spec.inputs[1:]:
        inputs[t.name] = rng.permutation(x)
    y = golden(spec, inputs, attrs, dtype, key).y
    tiers = _same_element_verdicts(spec, key, dtype, inputs, attrs, y, y.copy(), f"{op} correct")
    assert tiers[0] > 0.9 * x.size
    wrong = _wrong(y, inputs, spec, attrs, op)
    tiers += _same_element_verdicts(spec, key, dtype, inputs, attrs, y, wrong, f"{op} wrong")
    assert tiers[0] > 0 and tiers[2] > 0, tiers  # golden-equal and judged elements occurred
    from specgen.formula.functions import formula_budget

    if formula_budget(spec.formula_for(key), dtype) > 0:  # an inexact function: the model accepts some ULPs
        # and results 1-3 ULP off within the function budget (or the model's accepted set) occurred
        assert tiers[4] > 0 and tiers[3] + tiers[4] > 0, tiers
    with np.errstate(all="ignore"):  # and naive-equal ones, where the naive evaluation is not golden
        naive = np.broadcast_to(evaluate(spec.formula_for(key), {**inputs, **attrs}, dtype=np.float32), y.shape)
    if ((naive == wrong) & (naive != y) & (naive != 0) & np.isfinite(naive)).any():
        assert tiers[1] > 0, tiers


def test_an_infinite_input_is_judged_by_the_special_value_rules_even_where_the_naive_evaluation_agrees():
    """Selu at x = -inf in bfloat16: the spec accepts the formula's or the limit's value, -gamma * alpha
    rounded once (-1.7578125); the formula evaluated naively in bfloat16 gives -1.75, which the fast
    path once accepted as "a naive evaluation" while the full judgement failed it."""
    import ml_dtypes
    spec = SPECS["selu"]
    attrs = {"alpha": float(np.float32(1.6732632423543772)), "gamma": float(np.float32(1.0507009873554805))}
    x = np.array([-np.inf, -1.0], dtype=ml_dtypes.bfloat16)
    expected = golden(spec, {"x": x}, attrs, "bfloat16", "onnx").y
    actual = np.array([-1.75, float(expected[1])], dtype=ml_dtypes.bfloat16)
    assert float(expected[0]) == -1.7578125
    fast = _same_verdicts(spec, "onnx", "bfloat16", {"x": x}, attrs, expected, actual, "selu -inf")
    assert not fast.ok and fast.mismatches == 1


@pytest.mark.parametrize("op", ["sqrt", "acos", "log"])
def test_a_nan_of_another_sign_or_payload_where_the_golden_value_is_nan_is_golden_equal(op):
    """x86 gives sqrt(-2) as 0xffc00000, the golden NaN is 0x7fc00000: the fast tier passes it (with
    the full judgement's error, NaN) instead of judging each of half a sweep's elements in full; a
    number where the golden value is NaN still fails as the full judgement fails it."""
    from specgen.numerics.compare import judge_elements, nan_equal_mask

    spec = SPECS[op]
    key = "onnx"
    x = np.array([-2.0, -0.5, -1e30, 3.0, -3.0, 2.0, -7.0], dtype=np.float32)
    x = x[np.isnan(golden(spec, {"x": x}, {}, "float32", key).y)]
    expected = golden(spec, {"x": x}, {}, "float32", key).y
    actual = np.full(x.shape, 0xFFC00000, dtype=np.uint32).view(np.float32)  # the x86 default NaN
    actual.view(np.uint32)[-1] = 0x7FC00001  # another payload
    assert x.size >= 3 and nan_equal_mask(expected, actual, {"x": x}).all()
    fast = judge_elements(spec, key, "float32", {"x": x}, {}, expected, actual)
    full = judge_elements(spec, key, "float32", {"x": x}, {}, expected, actual, bounds=True)
    assert (fast.kind == 0).all() and np.array_equal(fast.kind, full.kind)
    assert np.isnan(fast.error).all() and np.isnan(full.error).all()
    wrong = actual.copy()
    wrong[0] = np.float32(1.0)
    fast = judge_elements(spec, key, "float32", {"x": x}, {}, expected, wrong)
    full = judge_elements(spec, key, "float32", {"x": x}, {}, expected, wrong, bounds=True)
    assert fast.kind[0] != 0 and np.array_equal(fast.kind, full.kind)
