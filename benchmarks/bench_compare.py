"""Benchmark (a script, not a test): the cost of judging a backend's output with the error model
against the numpy baseline a loose test would use (np.allclose with ONNX's rtol 1e-3 / atol 1e-7).

    .venv/bin/python benchmarks/bench_compare.py [--repeat N] [--elements N]

For each operator in float32 and float16: best-of-N time of specgen.numerics.compare.compare()
on N elements, of np.allclose on the same arrays, and their ratio.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from specgen.formula.numpy_eval import evaluate
from specgen.numerics.compare import compare
from specgen.spec.loader import load_all

ATTRIBUTES = {"hard_sigmoid": {"alpha": 0.2, "beta": 0.5}, "shrink": {"bias": 0.25, "threshold": 0.5},
              "softsign": {}}


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--elements", type=int, default=1 << 18)
    args = parser.parse_args()
    specs = load_all()
    rng = np.random.default_rng(0)
    print(f"{'op':<14}{'dtype':<9}{'elements':>10}{'compare s':>12}{'allclose s':>12}{'ratio':>9}")
    for op, attrs in ATTRIBUTES.items():
        spec = specs[op]
        for dtype in ("float32", "float16"):
            x = rng.uniform(-6, 6, args.elements).astype(dtype)
            env = {"x": x.astype(np.float64), **{k: float(np.float32(v)) for k, v in attrs.items()}}
            y = np.asarray(evaluate(spec.formula_for("onnx"), env)).astype(dtype)
            t_cmp = best(lambda: compare(spec, "onnx", dtype, {"x": x}, attrs, y, y), args.repeat)
            t_np = best(lambda: np.allclose(y, y, rtol=1e-3, atol=1e-7), args.repeat)
            print(f"{op:<14}{dtype:<9}{args.elements:>10}{t_cmp:>12.4f}{t_np:>12.4f}{t_cmp / t_np:>9.1f}")


if __name__ == "__main__":
    main()
