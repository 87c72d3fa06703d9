"""Operators over index sets (issue 21): the formula's reductions, shapes and must-reject
violations from the index space, exact golden values, and the accumulation judge fed correct
kernels in several summation orders and deliberately wrong ones (each must be caught)."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from specgen import dtypes
from specgen.errors import FormulaError
from specgen.formula.parser import parse_formula
from specgen.indexing.evaluate import simulate
from specgen.indexing.golden import golden
from specgen.indexing.layout import ShapeViolation, resolve
from specgen.adapters.base import Adapter, Claim
from specgen.adapters.registry import LoadedAdapter
from specgen.runner.core import Runner
from specgen.runner.verdicts import FAIL, PASS
from specgen.spec.operators import load_operators
from specgen.vectors import load_corpus
from specgen.indexing.space import IndexSpaceError
from specgen.indexing.spec import load, load_all
from specgen.numerics import ulp as U

SPECS = load_all()
OPERATORS = load_operators()
CORPUS = [c for c in load_corpus(Path(__file__).resolve().parents[1] / "generated" / "vectors").cases if c.op in SPECS]


def _layout(op, standard, version, shapes, attrs):
    spec = SPECS[op]
    space = spec.index_space.for_version(standard, version)
    return resolve(space, spec.formula, shapes, {**spec.defaults(standard), **attrs}, spec.outputs)


# ------------------------------------------------------------------------------------ formula

def test_reductions_parse_only_over_declared_index_sets():
    node = parse_formula("reduce_sum(x * x, axes) / count(axes)", ["x"], ["axes"], index_sets={"axes"})
    assert type(node).__name__ == "Binary"
    with pytest.raises(FormulaError, match="unknown function 'reduce_sum'"):
        parse_formula("reduce_sum(x, axes)", ["x"], ["axes"])  # an element-wise spec: no index space
    with pytest.raises(FormulaError, match="declared index set"):
        parse_formula("reduce_sum(x, k)", ["x"], [], index_sets={"axes"})


# ------------------------------------------------------------------------------------ shapes

@pytest.mark.parametrize("standard, version, shape, attrs, out", [
    ("onnx", "13", [2, 3, 4], {"axes": [1]}, [2, 1, 4]),
    ("onnx", "13", [2, 3, 4], {"axes": [-1, 0], "keepdims": 0}, [3]),
    ("onnx", "13", [2, 3, 4], {"axes": []}, [1, 1, 1]),                              # empty: all
    ("onnx", "13", [2, 3, 4], {"axes": [], "noop_with_empty_axes": 1}, [2, 3, 4]),   # empty: none
    ("onnx", "13", [2, 3, 4], {"axes": [1, -2]}, [2, 1, 4]),                         # ONNX takes a repeat once
    ("webnn", "2026-06-26", [2, 3, 4], {"axes": [1]}, [2, 4]),                       # keepDimensions = false
    ("webnn", "2026-06-26", [2, 3, 4], {"axes": []}, [2, 3, 4]),                     # present and empty: none
    ("onnx", "13", [], {}, []),                                                      # rank 0
])
def test_reduction_output_shapes(standard, version, shape, attrs, out):
    assert list(_layout("reduce_sum", standard, version, {"x": shape}, attrs).outputs["y"][1]) == out


@pytest.mark.parametrize("standard, version, attrs, message", [
    ("onnx", "13", {"axes": [3]}, "axis 3 is out of range for rank 3"),
    ("onnx", "13", {"axes": [-4]}, "axis -4 is out of range"),
    ("webnn", "2026-06-26", {"axes": [0, 0]}, "axis 0 appears more than once"),
    ("webnn", "2026-06-26", {"axes": [-1]}, "negative axis -1"),
])
def test_reduction_must_reject(standard, version, attrs, message):
    with pytest.raises(ShapeViolation, match=message):
        _layout("reduce_sum", standard, version, {"x": [2, 3, 4]}, attrs)


@pytest.mark.parametrize("standard, a, b, out", [
    ("onnx", [3, 4], [4, 5], [3, 5]), ("onnx", [2, 1, 3, 4], [5, 4, 6], [2, 5, 3, 6]),
    ("onnx", [4], [4, 5], [5]), ("onnx", [3, 4], [4], [3]), ("onnx", [4], [4], []),
])
def test_matmul_shapes_follow_numpy(standard, a, b, out):
    version = SPECS["matmul"].standards[standard].versions[-1].version
    assert list(_layout("matmul", standard, version, {"a": a, "b": b}, {}).outputs["y"][1]) == out
    assert list(np.matmul(np.zeros(a), np.zeros(b)).shape) == out


@pytest.mark.parametrize("standard, a, b, message", [
    ("onnx", [3, 4], [5, 6], "dimension k: a has 4, b has 5"),
    ("onnx", [2, 3, 4], [3, 4, 5], "dimension …0: a has 2, b has 3"),
    ("webnn", [4], [4, 5], "a: rank 1; expected at least 2"),
])
def test_matmul_must_reject(standard, a, b, message):
    version = SPECS["matmul"].standards[standard].versions[-1].version
    with pytest.raises(ShapeViolation, match=message):
        _layout("matmul", standard, version, {"a": a, "b": b}, {})


def test_gemm_transposes_and_broadcasts_c():
    layout = _layout("gemm", "onnx", "13", {"a": [4, 3], "b": [5, 4], "c": [5]}, {"transA": 1, "transB": 1})
    assert layout.outputs["y"][1] == (3, 5)
    assert _layout("gemm", "onnx", "13", {"a": [3, 4], "b": [4, 5]}, {}).absent == {"c": 0.0}
    for c, message in (([3, 5, 1], "c: rank 3; at most 2"), ([2, 5], "dimension m: a has 3, c has 2")):
        with pytest.raises(ShapeViolation, match=message):
            _layout("gemm", "onnx", "13", {"a": [3, 4], "b": [4, 5], "c": c}, {})


def test_softmax_before_13_normalises_every_axis_from_axis_on():
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    old = _layout("softmax", "onnx", "11", {"x": x.shape}, {"axis": 1})
    new = _layout("softmax", "onnx", "13", {"x": x.shape}, {"axis": 1})
    assert old.sets["axis"] == ("…1", "…0") and new.sets["axis"] == ("…1",)
    y, _ = golden(SPECS["softmax"].formula, old, {"x": x}, {"axis": 1}, "float32", "y")
    assert np.allclose(y.reshape(2, -1).sum(axis=1), 1.0, atol=1e-6)


# ------------------------------------------------------------------------------------ golden values

def test_golden_softmax_of_a_row_with_minus_infinity_is_correctly_rounded():
    """exp(-inf) = 0 exactly, and the rest of the row has an exact softmax: its golden values are that
    value rounded once (float64's exp left them an ULP off, and which ULP depended on the machine's
    libm: the committed corpus's softmax float64 inf case differed between AVX2 and AVX-512)."""
    import mpmath

    x = np.array([[0.2186044, -np.inf, 0.83483857, -0.45679555, -0.77880738, 0.27488949, -0.93757173,
                   -0.08490134]], dtype=np.float64)
    for op in ("softmax", "log_softmax"):
        layout = _layout(op, "onnx", "13", {"x": x.shape}, {"axis": 1})
        y, _ = golden(SPECS[op].formula, layout, {"x": x}, {"axis": 1}, "float64", "y")
        with mpmath.workprec(300):
            xs = [mpmath.mpf(float(v)) for v in x[0]]
            s = mpmath.fsum(mpmath.exp(v) for v in xs)
            want = [float(mpmath.exp(v) / s) if op == "softmax" else float(v - mpmath.log(s)) for v in xs]
        assert y[0].tolist() == want, op


def test_golden_sum_is_the_exact_sum_rounded_once():
    # float16 values whose exact sums sit on, just above and just below float16 midpoints
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, (64, 9)).astype(np.float16)
    x[0] = [2048, 1, 0, 0, 0, 0, 0, 0, 0]                 # 2049: a midpoint, ties to even 2048
    x[1] = [2048, 1, 2.0 ** -14, 0, 0, 0, 0, 0, 0]        # just above: 2050
    x[2] = [60000, 60000, -60000, -60000, 1, 0, 0, 0, 0]  # exact 1 through a float16 overflow
    layout = _layout("reduce_sum", "onnx", "13", {"x": x.shape}, {"axes": [1], "keepdims": 0})
    y, _ = golden(SPECS["reduce_sum"].formula, layout, {"x": x}, {}, "float16", "y")
    exact = [U.round_fraction(sum(Fraction(float(v)) for v in row), "float16") for row in x]
    assert y.tolist() == exact and y[:3].tolist() == [2048.0, 2050.0, 1.0]


@pytest.mark.parametrize("op, identity", [("reduce_sum", 0.0), ("reduce_prod", 1.0), ("reduce_max", -np.inf),
                                          ("reduce_min", np.inf), ("reduce_log_sum_exp", -np.inf), ("reduce_l2", 0.0)])
def test_golden_empty_reduction_is_the_identity(op, identity):
    # ONNX: "Reduction over an empty set of values yields 0" / 1 / minus infinity / plus infinity
    x = np.zeros((2, 0), np.float32)
    layout = _layout(op, "onnx", SPECS[op].standards["onnx"].versions[-1].version, {"x": x.shape}, {"axes": [1], "keepdims": 0})
    y, _ = golden(SPECS[op].formula, layout, {"x": x}, {}, "float32", "y")
    assert y.shape == (2,) and y.tolist() == [identity] * 2 and bool(np.signbit(y[0])) == (identity < 0)


def test_golden_exact_zero_is_positive_zero():
    # x + -x is exactly 0: IEEE's round-to-nearest sum is +0, not the -0 below the zero bound
    x = np.array([[1.5, -1.5], [-0.0, -0.0]], np.float32)
    layout = _layout("reduce_sum", "onnx", "13", {"x": x.shape}, {"axes": [1], "keepdims": 0})
    y, _ = golden(SPECS["reduce_sum"].formula, layout, {"x": x}, {}, "float32", "y")
    assert y.tolist() == [0.0, 0.0] and np.signbit(y).tolist() == [False, True]


def test_empty_reductions_follow_each_standards_rule():
    designed = {c.id: c for c in CORPUS if "/empty/" in c.id}
    # identity (ONNX): a positive case whose golden value is the identity; kept: an empty output
    case = designed["reduce_max/onnx-20/float32/empty/reduced/keep0"]
    assert case.kind == "positive" and case.load()["y"].tolist() == [-np.inf, -np.inf]
    assert designed["reduce_sum/onnx-13/float32/empty/kept"].shapes["y"] == [0, 1]
    # rejected (WebNN, DirectML: "A valid dimension is an integer greater than zero"): must-reject
    for key in ("reduce_sum/webnn-2026-06-26/float32/empty/reduced/keep0", "reduce_sum/directml-3_0/float32/empty/kept"):
        assert designed[key].kind == "negative" and "a dimension of size 0" in designed[key].violations[0]
    # undefined (ONNX ReduceMean, oneDNN): any value passes, reported
    assert designed["reduce_mean/onnx-18/float32/empty/reduced/keep1"].kind == "positive"
    with pytest.raises(ShapeViolation, match=r"x: a dimension of size 0 in \[0, 3\]"):
        _layout("reduce_sum", "webnn", "2026-06-26", {"x": [0, 3]}, {"axes": [1]})


def _zero_for_empty(call, inputs):
    """A kernel that gives 0 for every empty reduction (and the exact float64 result otherwise)."""
    x = inputs["x"].astype(np.float64)
    axes = tuple(call.attributes.get("axes") or range(x.ndim))
    keep = bool(call.attributes.get("keepdims", 1))
    shape = np.sum(x, axis=axes, keepdims=keep).shape
    return {"y": np.zeros(shape, dtypes.get(call.dtype).numpy)}


def test_an_empty_reduction_is_judged_by_the_standards_rule():
    empty = lambda c: "/empty/reduced/" in c.id
    # ONNX ReduceMax: minus infinity, so 0 fails; oneDNN leaves it unspecified: 0 passes with a note
    onnx = run("reduce_max", "onnx", "20", "float32", _zero_for_empty, select=empty)
    assert onnx and all(v.verdict == FAIL for v in onnx)
    onednn = run("reduce_max", "onednn", "current", "float32", _zero_for_empty, select=empty)
    assert onednn and all(v.verdict == PASS and any("empty reduction" in n for n in v.notes) for v in onednn)
    # ONNX ReduceSum: 0 is the identity; ReduceMean: "yields undefined"
    assert all(v.verdict == PASS for v in run("reduce_sum", "onnx", "13", "float32", _zero_for_empty, select=empty))
    assert all(v.verdict == PASS for v in run("reduce_mean", "onnx", "18", "float32", _zero_for_empty, select=empty))


def test_golden_matmul_equals_exact_dot_products():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 33)).astype(np.float32)
    b = rng.standard_normal((33, 4)).astype(np.float32)
    a[0, :2], b[:2, 0] = [1e8, -1e8], [1.0, 1.0]          # cancellation in one dot product
    layout = _layout("matmul", "onnx", "13", {"a": a.shape, "b": b.shape}, {})
    y, _ = golden(SPECS["matmul"].formula, layout, {"a": a, "b": b}, {}, "float32", "y")
    exact = [[U.round_fraction(sum(Fraction(float(p)) * Fraction(float(q)) for p, q in zip(a[i], b[:, j])), "float32")
              for j in range(4)] for i in range(5)]
    assert y.tolist() == exact


# ------------------------------------------------------------------------------------ kernels
# Kernels run through the ordinary runner on the committed corpus's cases, judged by the
# accumulating engine (specgen.indexing.judge): the runner is the only harness.

def _kernel(op, *, order="pairwise", acc=np.float32, formula=None):
    """A correct kernel: the spec's formula computed in ``acc`` with the given summation order."""
    spec = SPECS[op]

    def kernel(call, inputs):
        space = spec.index_space.for_version(call.standard, call.version)
        layout = resolve(space, spec.formula, {n: v.shape for n, v in inputs.items()}, call.attributes, spec.outputs)
        value = simulate(formula or spec.formula, layout, inputs, call.attributes, acc, order)
        return {"y": layout.arrange("y", value).astype(dtypes.get(call.dtype).numpy)}

    return kernel


class _KernelAdapter(Adapter):
    """One kernel function as an adapter: every accumulating operator's legal cases."""

    def __init__(self, kernel):
        self.kernel = kernel

    def claims(self):
        return [Claim(op=op) for op in SPECS]

    def run(self, call):
        return self.kernel(call, {k: np.asarray(v) for k, v in call.inputs.items()})


def run(op, standard, version, dtype, kernel, select=lambda c: True):
    """The runner's results for the legal corpus cases of (op, standard-version, dtype) that ``select`` keeps."""
    cases = [c for c in CORPUS if (c.op, c.standard, c.version, c.dtype, c.kind) == (op, standard, version, dtype, "positive")
             and select(c)]
    adapter = _KernelAdapter(kernel)
    loaded = LoadedAdapter("kernel", "tests.test_accumulate:_KernelAdapter", adapter, adapter.claims())
    return Runner(loaded, OPERATORS, probe=False).run(cases).results


def _small(case):
    """A sample of the designed cases: ranks up to 3, lengths up to 64, every value design at length 9."""
    tag = case.id.split("/", 3)[3]
    return not tag.startswith("rank4") and not any(f"{n}/" in tag for n in ("length1023", "k1023", "length64"))


CORRECT = [("reduce_sum", "onnx", "13", "float16"), ("reduce_mean", "webnn", "2026-06-26", "float32"),
           ("softmax", "onnx", "13", "float32"), ("matmul", "onnx", "13", "float16"), ("gemm", "webnn", "2026-06-26", "float32")]


@pytest.mark.parametrize("order", ["sequential", "pairwise", "reversed"])
@pytest.mark.parametrize("op, standard, version, dtype", CORRECT)
def test_correct_kernels_pass_in_any_summation_order(op, standard, version, dtype, order):
    verdicts = run(op, standard, version, dtype, _kernel(op, order=order), select=_small)
    failed = [f"{v.case_id}: {v.reason}" for v in verdicts if v.verdict != PASS]
    assert verdicts and not failed, "\n".join(failed[:5])


def _wrong_axis(case, inputs):  # ``case``: the adapter's Call (attributes, standard, version, dtype)
    x = inputs["x"].astype(np.float32)
    axes = tuple((a + 1) % x.ndim for a in case.attributes.get("axes") or range(x.ndim))
    return {"y": np.sum(x, axis=axes, keepdims=bool(case.attributes["keepdims"])).astype(np.float32)}


def _keepdims_ignored(case, inputs):
    x = inputs["x"].astype(np.float32)
    axes = tuple(case.attributes.get("axes") or range(x.ndim))
    return {"y": np.sum(x, axis=axes, keepdims=True).astype(np.float32)}


def _mean_wrong_count(case, inputs):
    x = inputs["x"].astype(np.float32)
    axes = tuple(case.attributes.get("axes") or range(x.ndim))
    total = np.sum(x, axis=axes, keepdims=bool(case.attributes["keepdims"]))
    return {"y": (total / (np.prod([x.shape[a] for a in axes]) + 1)).astype(np.float32)}


def _beta_ignored(case, inputs):
    a, b = inputs["a"], inputs["b"]
    a = a.T if case.attributes["transA"] else a
    b = b.T if case.attributes["transB"] else b
    c = inputs.get("c", np.zeros((), a.dtype))
    return {"y": (case.attributes["alpha"] * (a @ b) + c).astype(a.dtype)}


def _matmul_a_transposed(case, inputs):
    a, b = inputs["a"], inputs["b"]
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2]:
        a = np.swapaxes(a, -1, -2)  # square operands: the transposition is a value fault, not a shape one
    return {"y": np.matmul(a, b)}


WRONG = {
    "wrong axis": ("reduce_sum", "onnx", "13", "float32", _wrong_axis),
    "keepdims ignored": ("reduce_sum", "webnn", "2026-06-26", "float32", _keepdims_ignored),
    "mean divided by the wrong count": ("reduce_mean", "onnx", "18", "float32", _mean_wrong_count),
    "float16 accumulation where the spec forbids it": ("layer_normalization", "onnx", "17", "float16",
                                                       _kernel("layer_normalization", acc=np.float16, order="sequential")),
    "softmax overflowing at x = 100": ("softmax", "onnx", "13", "float32",
                                      _kernel("softmax", formula=SPECS["softmax"].readings["without-max-subtraction"])),
    "gemm's beta ignored": ("gemm", "onnx", "13", "float32", _beta_ignored),
    "matmul with one operand transposed": ("matmul", "onnx", "13", "float32", _matmul_a_transposed),
}


@pytest.mark.parametrize("fault", sorted(WRONG))
def test_wrong_kernels_are_caught(fault):
    op, standard, version, dtype, kernel = WRONG[fault]
    verdicts = run(op, standard, version, dtype, kernel, select=_small)
    caught = [v for v in verdicts if v.verdict in (FAIL, "error") and v.cause in ("out-of-bound", "wrong-shape")]
    assert verdicts and caught, fault


def test_float16_accumulation_is_reported_where_unspecified():
    # ONNX leaves ReduceSum's accumulation type open: float16 sums pass with a note, not a failure
    kernel = _kernel("reduce_sum", acc=np.float16, order="sequential")
    verdicts = run("reduce_sum", "onnx", "13", "float16", kernel, select=lambda c: "length1023/stall" in c.id)
    assert verdicts and all(v.verdict == PASS for v in verdicts)
    assert any("float16 accumulation" in note for v in verdicts for note in v.notes)


def test_broken_spec_names_file_and_key(tmp_path):
    text = (SPECS["matmul"].path and open(SPECS["matmul"].path, encoding="utf-8").read())
    bad = tmp_path / "matmul.yaml"
    bad.write_text(text.replace("k: {labels: [k]}", "k: {labels: [q]}"), encoding="utf-8")
    with pytest.raises(IndexSpaceError, match=r"matmul.yaml:(\d+):\d+: index_space.sets.k.labels: 'q' is no tensor's label") as err:
        load(bad)
    line = int(str(err.value).split(":")[1])
    assert "labels: [q]" in bad.read_text().splitlines()[line - 1]
    rule = tmp_path / "reduce_sum.yaml"
    rule.write_text(open(SPECS["reduce_sum"].path, encoding="utf-8").read().replace("empty: rejected", "empty: refused", 1))
    with pytest.raises(IndexSpaceError, match=r"reduce_sum.yaml:\d+:\d+: standards.webnn.empty: 'refused'; allowed: identity, undefined, rejected"):
        load(rule)


def test_onnx_models_built_from_the_spec_run_in_onnxruntime():
    # axes as an input (ReduceSum-13) and as an attribute (ReduceMean-11), Gemm's options, Softmax-11's flatten
    pytest.importorskip("onnxruntime")
    from specgen.adapters.registry import load_object

    ids = ["reduce_sum/onnx-13/float32/rank2/axes1/keep0", "reduce_sum/onnx-13/float32/rank2/axes-empty-noop",
           "reduce_sum/onnx-13/float32/rank2/reject-duplicate", "reduce_mean/onnx-11/float32/rank3/axes02/keep1",
           "reduce_mean/onnx-11/float32/rank2/axes1/negative", "gemm/onnx-13/float32/transA1",
           "gemm/onnx-13/float32/c-vector", "gemm/onnx-13/float32/beta0.5", "softmax/onnx-11/float32/rank3/axis1"]
    cases = [c for c in CORPUS if c.id in ids]
    loaded = load_object("onnxruntime", "specgen.adapters.onnxruntime_adapter:OnnxRuntimeAdapter", specs=OPERATORS)
    results = Runner(loaded, OPERATORS, probe=False).run(cases).results
    assert len(results) == len(ids) - 1  # ONNX takes a repeated axis once: no must-reject case for it
    assert all(r.verdict == PASS for r in results), [r.reason for r in results]
