"""Cost of golden values against plain numpy (a script, not a test): for each formula, the time of
specgen.numerics.exact.golden on N random float32 elements divided by the time of the same formula
evaluated by numpy in float64 (``evaluate``), and how many elements each tier settled.

    .venv/bin/python benchmarks/bench_golden.py [--points 1000000] [--seed 1] [--only tanh,erf] [--specs]
        [--repeat 3]

``--specs``: instead of the five formulas below, every operator of specs/ with one tensor input
(each formula of a string-attribute choice, Gelu's erf and tanh, separately), at the ONNX defaults of
its attributes (another standard's where ONNX has none), as golden() evaluates them.

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
                           inputs=[SimpleNamespace(name="x")],
                           formula_for=lambda standard=None: node), node


def spec_formulas():
    """(label, spec, formula, attributes) for every one-tensor-input operator of specs/ at its
    standard's defaults (specgen.sweep.catalog: ONNX's where it has them)."""
    from specgen.numerics.compare import resolve_attributes
    from specgen.spec.loader import load_all
    from specgen.sweep.catalog import sweep_units

    specs = load_all()
    out = []
    for unit in sweep_units(specs):
        spec = specs[unit.op]
        if len(spec.inputs) != 1 or "+" in unit.attribute_set or unit.attribute_set not in ("defaults", *spec.choice_values):
            continue
        plain, numeric = spec.resolve(dict(unit.attributes), unit.standard)
        attrs = resolve_attributes(plain, unit.standard, numeric)
        out.append((unit.label.replace(" ", "-"), plain, plain.formula_for(unit.standard), attrs))
    return out


def inputs(kind: str, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.uniform(-10, 10, count).astype(np.float32)
    bits = rng.integers(0, 2 ** 32, count, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    bad = ~np.isfinite(x)
    x[bad] = np.float32(0.5)  # NaN/inf patterns (0.4%) replaced: the special-value path is not the subject
    return x


def best_of(repeat: int, fn) -> float:
    """The fastest of ``repeat`` timed calls of ``fn`` (seconds)."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--specs", action="store_true", help="every one-input operator of specs/ at its defaults")
    ap.add_argument("--repeat", type=int, default=3,
                    help="time each side this many times and keep the fastest (as timeit does): numpy's side "
                         "takes milliseconds, and one run of it moves with the machine's load")
    args = ap.parse_args()
    if args.specs:
        rows = spec_formulas()
    else:
        rows = [(name, *_spec(text), {}) for name, text in FORMULAS.items()]
    rows = [r for r in rows if not args.only or r[0] in args.only.split(",")]
    ratios = []
    print(f"{'formula':22s} {'inputs':8s} {'points':>8s} {'golden s':>9s} {'numpy s':>8s} {'ratio':>8s} "
          f"{'proven':>8s} {'exact':>7s}")
    for name, spec, node, attrs in rows:
        var = spec.inputs[0].name
        for kind in ("bits", "uniform"):
            x = inputs(kind, args.points, args.seed)

            def run_numpy():
                with np.errstate(all="ignore"):
                    np.asarray(evaluate(node, {var: x.astype(np.float64), **attrs})).astype(np.float32)

            t_np = best_of(args.repeat, run_numpy)
            out = []
            t_g = best_of(args.repeat, lambda: out.append(golden(spec, {var: x}, attrs, "float32")))
            g = out[-1]
            ratios.append(t_g / t_np)
            print(f"{name:22s} {kind:8s} {len(x):8d} {t_g:9.2f} {t_np:8.3f} {t_g / t_np:8.1f} "
                  f"{g.proven_float64:8d} {g.exact:7d}", flush=True)
    print(f"largest ratio {max(ratios):.1f}, median {float(np.median(ratios)):.1f}")


if __name__ == "__main__":
    main()
