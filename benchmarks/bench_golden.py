"""Cost of golden values against plain numpy (a script, not a test): for each formula, the time of
specgen.numerics.exact.golden on N random float32 elements divided by the time of the same formula
evaluated by numpy in float64 (``evaluate``), and how many elements each tier settled.

    .venv/bin/python benchmarks/bench_golden.py [--points 1000000] [--seed 1] [--only tanh,erf]

Two input sets per formula: ``bits``, finite float32 values with uniformly random bit patterns
(every binade equally likely: mostly the far tails, where erf/tanh saturate and exp overflows),
and ``uniform``, uniform in [-10, 10] (the region an activation sees). Prints one row per formula and
set: seconds, the ratio golden / numpy, and the elements settled in float64, long double (counted
with float64: "proven") and per element in mpmath ("exact").
"""
from __future__ import annotations

import argparse
import time
from types import SimpleNamespace

import numpy as np

from specgen.formula.numpy_eval import evaluate
from specgen.formula.parser import parse_formula
from specgen.numerics.exact import golden

FORMULAS = {
    "tanh": "tanh(x)",
    "erf": "erf(x)",
    "gelu-erf": "0.5 * x * (1 + erf(x / sqrt(2)))",
    "gelu-tanh": "0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x * x * x)))",
    "sigmoid": "1 / (1 + exp(-x))",
}


def _spec(text: str):
    node = parse_formula(text, ["x"], [])
    return SimpleNamespace(id="bench", path="benchmarks/bench_golden.py", special_values={}, choice=None,
                           formula_for=lambda standard=None: node), node


def inputs(kind: str, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.uniform(-10, 10, count).astype(np.float32)
    bits = rng.integers(0, 2 ** 32, count, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    bad = ~np.isfinite(x)
    x[bad] = np.float32(0.5)  # NaN/inf patterns (0.4%) replaced: the special-value path is not the subject
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    names = [n for n in FORMULAS if not args.only or n in args.only.split(",")]
    print(f"{'formula':10s} {'inputs':8s} {'points':>8s} {'golden s':>9s} {'numpy s':>8s} {'ratio':>8s} "
          f"{'proven':>8s} {'exact':>7s}")
    for name in names:
        spec, node = _spec(FORMULAS[name])
        for kind in ("bits", "uniform"):
            x = inputs(kind, args.points, args.seed)
            t0 = time.perf_counter()
            with np.errstate(all="ignore"):
                np.asarray(evaluate(node, {"x": x.astype(np.float64)})).astype(np.float32)
            t_np = time.perf_counter() - t0
            t0 = time.perf_counter()
            g = golden(spec, {"x": x}, {}, "float32")
            t_g = time.perf_counter() - t0
            print(f"{name:10s} {kind:8s} {len(x):8d} {t_g:9.2f} {t_np:8.3f} {t_g / t_np:8.0f} "
                  f"{g.proven_float64:8d} {g.exact:7d}", flush=True)


if __name__ == "__main__":
    main()
