"""Benchmark (a script, not a test): the cost of correct-to-the-last-bit golden data against numpy
evaluating the same formula over the same elements.

    .venv/bin/python benchmarks/bench_generate.py [--repeat N]

Reports (best of N):
1. the committed corpus: the whole `specgen generate` build (templates, validation, design, golden
   values, writing), and its golden-value part alone, against numpy evaluating the formula in float64
   and casting to each case's dtype over exactly the same input elements;
2. the same per operator (golden values only, against numpy over that operator's elements);
3. the exhaustive 16-bit sweeps (all 65,536 float16 and bfloat16 values per operator): golden values
   against numpy over the same elements;
4. transcendental operators (formulas with exp, log, tanh, ...) on 1,000,000 random elements per
   dtype (half uniform in [-20, 20], half uniform over the dtype's value order): golden values against
   numpy, and how many elements each tier decided (float64 enclosure, long double enclosure, mpmath).
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import ml_dtypes
import numpy as np

from specgen.formula.numpy_eval import evaluate
from specgen.numerics.exact import golden
from specgen.generate.tree import build
from specgen.spec.loader import load_all
from specgen.vectors import load_corpus


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def numpy_formula(spec, x, attrs, dtype):
    with np.errstate(all="ignore"):
        y = evaluate(spec.formula, {spec.inputs[0].name: x.astype(np.float64), **attrs})
        return np.asarray(y).astype(dtype)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--elements", type=int, default=1_000_000)
    args = ap.parse_args()
    specs = load_all()

    tmp = Path(tempfile.mkdtemp(prefix="specgen-bench-"))
    try:
        t_build = best(lambda: (shutil.rmtree(tmp / "g", ignore_errors=True), build(tmp / "g")), args.repeat)
        corpus = load_corpus(tmp / "g" / "vectors")
        cases = [(specs[c.op], c.load()["x"], c.attributes, c.dtype, c.standard)
                 for c in corpus.cases if c.kind == "positive"]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    elements = sum(x.size for _, x, _, _, _ in cases)
    t_golden = best(lambda: [golden(s, {s.inputs[0].name: x}, a, d, std) for s, x, a, d, std in cases], args.repeat)
    t_numpy = best(lambda: [numpy_formula(s, x, a, x.dtype) for s, x, a, d, std in cases], args.repeat)
    print(f"committed corpus: {len(cases)} positive cases, {elements:,} elements")
    print(f"  specgen generate (whole build)    {t_build * 1e3:9.1f} ms   {t_build / t_numpy:7.1f}x numpy")
    print(f"  golden values only                {t_golden * 1e3:9.1f} ms   {t_golden / t_numpy:7.1f}x numpy")
    print(f"  numpy formula (float64, cast)     {t_numpy * 1e3:9.1f} ms   1.0x")
    print("  per operator (golden values only):")
    for op in sorted({s.id for s, *_ in cases}):
        sub = [c for c in cases if c[0].id == op]
        n_el = sum(x.size for _, x, _, _, _ in sub)
        tg = best(lambda: [golden(s, {s.inputs[0].name: x}, a, d, std) for s, x, a, d, std in sub], args.repeat)
        tn = best(lambda: [numpy_formula(s, x, a, x.dtype) for s, x, a, d, std in sub], args.repeat)
        print(f"    {op:13s} {len(sub):5d} cases {n_el:9,d} elements  golden {tg * 1e3:8.1f} ms  "
              f"numpy {tn * 1e3:7.1f} ms  {tg / tn:6.1f}x")

    print("exhaustive 16-bit sweeps (65,536 elements each, default attributes of the first standard):")
    total_g = total_n = 0.0
    for op, spec in specs.items():
        std = next(iter(spec.standards.values()))
        from specgen.generate.corpus import attribute_sets
        attrs = attribute_sets(spec, std.key)[0].values
        for dtype, npd in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
            x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(npd)
            tg = best(lambda: golden(spec, {"x": x}, attrs, dtype, std.key), args.repeat)
            tn = best(lambda: numpy_formula(spec, x, attrs, npd), args.repeat)
            total_g += tg
            total_n += tn
            print(f"  {op:13s} {dtype:9s} golden {tg * 1e3:7.1f} ms   numpy {tn * 1e3:6.2f} ms   {tg / tn:6.1f}x")
    print(f"  all sweeps    golden {total_g * 1e3:7.1f} ms   numpy {total_n * 1e3:6.2f} ms   {total_g / total_n:6.1f}x")

    from specgen.formula.breakpoints import is_rational
    from specgen.numerics.ulp import from_ordered
    from specgen.numerics.ulp import ordered as to_ordered
    from specgen import dtypes as dt
    print(f"transcendental operators, {args.elements:,} random elements per dtype (first standard's default attributes):")
    for op, spec in specs.items():
        if is_rational(spec.formula):
            continue
        std = next(iter(spec.standards.values()))
        from specgen.generate.corpus import attribute_sets
        attrs = attribute_sets(spec, std.key)[0].values
        for dtype in ("float32", "float16", "bfloat16", "float64"):
            npd = dt.get(dtype).numpy
            rng = np.random.default_rng(1)
            half = args.elements // 2
            hi = int(to_ordered(np.array([np.finfo(np.float16).max if dtype == "float16" else 3e38]).astype(npd), dtype)[0])
            x = np.concatenate([rng.uniform(-20, 20, half).astype(npd),
                                from_ordered(rng.integers(-hi, hi, args.elements - half), dtype)])
            g = golden(spec, {"x": x}, attrs, dtype, std.key)
            tg = best(lambda: golden(spec, {"x": x}, attrs, dtype, std.key), args.repeat)
            tn = best(lambda: numpy_formula(spec, x, attrs, npd), args.repeat)
            print(f"  {op:10s} {dtype:9s} golden {tg * 1e3:8.1f} ms  numpy {tn * 1e3:7.1f} ms  {tg / tn:6.1f}x   "
                  f"enclosures {g.proven_float64:,}, mpmath {g.exact:,}, special {g.special:,}")


if __name__ == "__main__":
    main()
