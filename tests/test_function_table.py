"""Adding a formula function is one row of the function table (specgen.formula.functions): with a
new row and nothing else, a spec using the function lints, renders a working reference module,
gets correctly rounded golden values and is judged by the error model."""
from __future__ import annotations

import math
import shutil
import types
from pathlib import Path

import mpmath
import numpy as np
import pytest

from specgen.formula.functions import FUNCTIONS, Function
from specgen.generate import render
from specgen.numerics.exact import golden
from specgen.numerics import ulp as U
from specgen.numerics.compare import compare
from specgen.spec.loader import load_spec, load_standards

ROOT = Path(__file__).resolve().parent.parent

SPEC = """\
name: ScaledCubeRoot
id: scaled_cube_root
summary: alpha times the cube root of x for negative x, x elsewhere (a test operator).
inputs:
  - {name: x, description: The input tensor.}
outputs:
  - {name: y, description: The output tensor.}
attributes:
  - {name: alpha, type: float32, description: Scale of the negative part.}
formula: where(x < 0, alpha * cbrt(x), x)
special_values:
  nan: {default: formula, reason: NaN propagates.}
  pos_inf: {default: formula, reason: The literal formula.}
  neg_inf: {default: formula, reason: The literal formula.}
  signed_zero: {default: any, reason: Not checked.}
  subnormal: {default: flush_allowed, reason: Flushing is allowed.}
tolerance:
  float32: {metric: model, intermediate: float32, reason: The row's accepted ULPs.}
standards:
  onnx:
    operator: ScaledCubeRoot
    domain: ai.onnx
    in_place: unspecified
    tensors:
      x: {name: X, type_param: T}
      y: {name: Y, type_param: T}
    attributes:
      alpha: {name: alpha, default: 1.5}
    constraints:
      - tensors: [x, y]
        same: [data_type, dimension_count, sizes]
    versions:
      - version: "1"
        ranks: {min: 1, max: 2}
        dtypes: [float32]
"""


def _real_cbrt(v):
    return mpmath.sign(v) * mpmath.cbrt(abs(v))  # mpmath.cbrt of a negative number is complex


@pytest.fixture
def cbrt_row(monkeypatch):
    row = Function("cbrt", 1, 1, np.cbrt, "np.cbrt({0})", _real_cbrt, "cube root", monotone="increasing", ulps=4.0)
    monkeypatch.setitem(FUNCTIONS, "cbrt", row)
    return row


def test_a_new_row_is_all_a_new_function_needs(cbrt_row, tmp_path):
    shutil.copy(ROOT / "specs" / "_standards.yaml", tmp_path / "_standards.yaml")
    (tmp_path / "scaled_cube_root.yaml").write_text(SPEC)
    spec = load_spec(tmp_path / "scaled_cube_root.yaml", load_standards(tmp_path / "_standards.yaml"))

    # the reference module: rendered, imported, computing the formula
    module = types.ModuleType("scaled_cube_root_reference")
    exec(compile(render.reference_module(render.environment(), spec), "<reference>", "exec"), module.__dict__)  # noqa: S102
    x = np.linspace(-8, 8, 257, dtype=np.float32)
    got = module.scaled_cube_root(x)
    alpha = float(np.float32(1.5))
    want = np.where(x < 0, alpha * np.cbrt(x.astype(np.float64)), x).astype(np.float32)
    np.testing.assert_array_equal(got, want)

    # golden values: correctly rounded against mpmath at 100 digits
    g = golden(spec, {"x": x}, {"alpha": alpha}, "float32", "onnx").y
    with mpmath.workdps(100):
        for xi, yi in zip(x.tolist(), g.tolist()):
            exact = alpha * _real_cbrt(mpmath.mpf(xi)) if xi < 0 else mpmath.mpf(xi)
            assert yi == U.round_fraction(exact, "float32"), xi

    # the error model: the golden value and a float32 evaluation pass, 100 ULP off fails
    assert compare(spec, "onnx", "float32", {"x": x}, {"alpha": alpha}, g, g, fast=False).ok
    naive = np.where(x < 0, np.float32(alpha) * np.cbrt(x), x).astype(np.float32)
    assert compare(spec, "onnx", "float32", {"x": x}, {"alpha": alpha}, g, naive).ok
    far = g.copy()
    far[10] = U.from_ordered(U.ordered(far[10:11]) + 100, "float32")[0]
    bad = compare(spec, "onnx", "float32", {"x": x}, {"alpha": alpha}, g, far)
    assert not bad.ok and bad.mismatches == 1 and bad.first[0].index == (10,)


def test_the_table_rows_are_complete():
    for name, row in FUNCTIONS.items():
        assert row.mpmath is not None, name
        assert "{0}" in row.numpy_source, name
        if name in ("where", "select"):
            continue  # control flow: every consumer handles the branches itself
        assert row.interval is not None or row.monotone in ("increasing", "decreasing"), name
        assert row.rational or row.ulps is not None, f"{name}: an inexact function needs its accepted ULPs"
        if row.monotone:
            lo, hi = row.domain
            a, b = (max(lo, -3.0) + 0.5, min(hi, 3.0) - 0.5)
            fa, fb = row.numpy(np.float64(a)), row.numpy(np.float64(b))
            assert (fa < fb) if row.monotone == "increasing" else (fa > fb), name
        assert math.isfinite(row.libm_rel)


def test_the_ieee_special_cases_of_the_rows_hold_for_numpy_and_the_golden_values():
    """C99 Annex F's special cases, data of each row (``annex_f``): numpy's evaluation and the golden
    values (float32, through the spec's 'formula' outcome for non-finite inputs) give each result,
    the sign of a zero included."""
    from types import SimpleNamespace

    from specgen.formula.parser import parse_formula
    from specgen.numerics.exact import golden

    def same(a, b):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))

    rows = [r for r in FUNCTIONS.values() if r.annex_f]
    assert {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
            "floor", "ceil", "round", "trunc"} <= {r.name for r in rows}
    finite_only = SimpleNamespace(outcomes=lambda standard=None: ("formula",), default=("formula",), per_standard={},
                                  recommended="formula")
    assert "pow" in {r.name for r in rows}  # a function of two arguments: ((x, y), result)
    for row in rows:
        n_args = len(row.annex_f[0][0]) if isinstance(row.annex_f[0][0], tuple) else 1
        names = [f"x{i}" for i in range(n_args)]
        node = parse_formula(f"{row.name}({', '.join(names)})", names, [])
        spec = SimpleNamespace(id="fake", path="specs/fake.yaml", formula_for=lambda s, node=node: node,
                               special_values={k: finite_only for k in ("nan", "pos_inf", "neg_inf")})
        args = {k: np.array([(a if n_args > 1 else (a,))[i] for a, _ in row.annex_f], dtype=np.float32)
                for i, k in enumerate(names)}
        with np.errstate(all="ignore"):
            by_numpy = row.numpy(*args.values())
        by_golden = golden(spec, args, {}, "float32").y
        for (arg, want), got_np, got_g in zip(row.annex_f, by_numpy, by_golden):
            want32 = float(np.float32(want))
            assert same(float(got_np), want32), f"numpy {row.name}({arg}) = {got_np}, Annex F: {want}"
            assert same(float(got_g), want32), f"golden {row.name}({arg}) = {got_g}, Annex F: {want}"
