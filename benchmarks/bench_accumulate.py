"""Golden values + judgement of accumulating operators against numpy (issue 21).

Two workloads: a 1,024 x 1,024 float32 matmul (golden: float64 matmul enclosure, rounded once,
undecided elements in mpmath; judge: the accumulation bound for any order with float32 accumulation)
and a 65,537-long float16 sum (float16 inputs, float32 accumulation allowed, float16 reported).
numpy baseline: ``np.matmul`` in float32 and ``np.sum`` of the float16 vector (float32 inner loop).
Run: ``PYTHONPATH=$PWD python benchmarks/bench_accumulate.py``; results in bench_accumulate.md.
"""
from __future__ import annotations

import time

import numpy as np

from specgen.indexing.golden import golden
from specgen.indexing.layout import resolve
from specgen.indexing.spec import load_all
from specgen.numerics.accumulation import judge


def _time(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main():
    specs = load_all()
    rng = np.random.default_rng(0)
    rows = []

    mm = specs["matmul"]
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 1024)).astype(np.float32)
    space = mm.index_space.for_version("onnx", "13")
    layout = resolve(space, mm.formula, {"a": a.shape, "b": b.shape}, {}, mm.outputs)
    numpy_s, actual = _time(lambda: np.matmul(a, b))
    golden_s, (expected, slow) = _time(lambda: golden(mm.formula, layout, {"a": a, "b": b}, {}, "float32", "y"), 1)
    policy = mm.standards["onnx"].accumulation["float32"]
    judge_s, cmp = _time(lambda: judge(mm.formulas(), layout, {"a": a, "b": b}, {}, "float32", expected, actual, policy, "y"), 1)
    rows.append(("matmul 1024x1024x1024 float32", numpy_s, golden_s, judge_s, slow, cmp.ok, cmp.max_error_ulps))

    rs = specs["reduce_sum"]
    x = rng.uniform(-1, 1, 65537).astype(np.float16)
    attrs = {"axes": [0], "keepdims": 0}
    space = rs.index_space.for_version("onnx", "13")
    layout = resolve(space, rs.formula, {"x": x.shape}, attrs, rs.outputs)
    numpy_s, actual = _time(lambda: np.asarray(np.sum(x)))
    golden_s, (expected, slow) = _time(lambda: golden(rs.formula, layout, {"x": x}, attrs, "float16", "y"))
    policy = rs.standards["onnx"].accumulation["float16"]
    judge_s, cmp = _time(lambda: judge(rs.formulas(), layout, {"x": x}, attrs, "float16", expected, actual, policy, "y"))
    rows.append(("sum of 65,537 float16", numpy_s, golden_s, judge_s, slow, cmp.ok, cmp.max_error_ulps))

    print(f"{'workload':32} {'numpy s':>9} {'golden s':>9} {'judge s':>9} {'ratio':>7} {'undecided':>9} {'numpy ok':>9} {'max ULP':>8}")
    for name, n_s, g_s, j_s, slow, ok, ulps in rows:
        print(f"{name:32} {n_s:9.4f} {g_s:9.4f} {j_s:9.4f} {(g_s + j_s) / n_s:7.1f} {slow:9d} {str(ok):>9} {ulps:8.2f}")


if __name__ == "__main__":
    main()
