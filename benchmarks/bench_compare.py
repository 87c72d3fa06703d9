"""Benchmark (a script, not a test): the cost of judging a backend's output against numpy evaluating
the operator's formula on the same elements (the work any test must do to know the answer).

    .venv/bin/python benchmarks/bench_compare.py [--repeat N] [--elements N]

For each operator in float32 and float16, best-of-N times of:
- numpy: the formula evaluated with numpy in the tensor's dtype (the baseline, 1.0x);
- compare, correct: specgen.numerics.compare.compare() on an output equal to the golden value;
- compare, 10% naive: 10% of the elements replaced by a naive evaluation in the dtype (what a
  typical kernel gives; differs from the golden value where its roundings do);
- compare, 10% +1 ULP: 10% of the elements one ULP above the golden value (every one of them
  goes through the error model);
and the ratios to numpy. Issue 9's targets: <= 3x correct, <= 10x with 10% differing.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from specgen.formula.numpy_eval import evaluate
from specgen.generate.corpus import attribute_sets
from specgen.numerics.exact import golden
from specgen.numerics import ulp as U
from specgen.numerics.compare import compare
from specgen.spec.loader import load_all


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--elements", type=int, default=1 << 20)
    parser.add_argument("--ops", nargs="*")
    args = parser.parse_args()
    specs = load_all()
    rng = np.random.default_rng(0)
    n = args.elements
    print(f"{n:,} elements per run; best of {args.repeat}")
    print(f"{'op':<14}{'dtype':<9}{'numpy ms':>10}{'correct':>10}{'x':>6}{'10% naive':>11}{'x':>6}"
          f"{'10% +1ulp':>11}{'x':>6}")
    for op in args.ops or sorted(specs):
        spec = specs[op]
        std = "onnx" if "onnx" in spec.standards else next(iter(spec.standards))
        attrs = attribute_sets(spec, std)[0].values
        formula = spec.formula_for(std)
        for dtype in ("float32", "float16"):
            inputs = {t.name: rng.uniform(-6, 6, n).astype(dtype) for t in spec.inputs}
            typed = {**inputs, **{k: np.asarray(v, dtype) for k, v in attrs.items()}}
            y = golden(spec, inputs, attrs, dtype, std).y
            with np.errstate(all="ignore"):
                naive = np.asarray(evaluate(formula, typed, dtype=dtype)).astype(dtype)
            pick = rng.random(n) < 0.1
            some_naive = np.where(pick, naive, y)
            plus_one = np.where(pick, U.next_up(y), y)

            def numpy_eval():
                with np.errstate(all="ignore"):
                    return evaluate(formula, typed)

            t_np = best(numpy_eval, args.repeat)
            t_ok = best(lambda: compare(spec, std, dtype, inputs, attrs, y, y), args.repeat)
            t_naive = best(lambda: compare(spec, std, dtype, inputs, attrs, y, some_naive), args.repeat)
            t_ulp = best(lambda: compare(spec, std, dtype, inputs, attrs, y, plus_one), args.repeat)
            print(f"{op:<14}{dtype:<9}{t_np * 1e3:>10.2f}{t_ok * 1e3:>10.2f}{t_ok / t_np:>6.1f}"
                  f"{t_naive * 1e3:>11.2f}{t_naive / t_np:>6.1f}{t_ulp * 1e3:>11.2f}{t_ulp / t_np:>6.1f}")


if __name__ == "__main__":
    main()
