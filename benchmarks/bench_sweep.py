"""Benchmark (a script, not a test): what a sweep costs per element, stage by stage, against numpy
evaluating the op's formula on the same inputs in the same run.

    .venv/bin/python benchmarks/bench_sweep.py [--adapter onnxruntime] [--elements 16777216]
        [--start 0xbe000000] [--workers 2] [--ops hard_sigmoid,softsign,shrink]

For each op, in float32, on ``--elements`` consecutive bit patterns from ``--start`` (the default
range, 2^24 patterns from 0xbe000000, is x in [-0.125, -0.5), where no output saturates):

1. the chunk function in this process, chunk by chunk (262,144 inputs each), with its per-stage
   timing: input generation, golden values, the adapter call, the judgement (compare), the summary;
   and numpy's evaluation of the formula on the same inputs (float64, as the reference is) —
   each stage as ns/element (wall) and as a ratio to numpy; then the whole chunk function's CPU
   time per element (``time.process_time``: on a shared machine it moves less with the load than
   wall time does) and what that gives for all 2^32 inputs on 2 otherwise idle cores;
2. the whole pipeline on the local process pool (``--workers``), wall time, and what that rate
   gives for all 2^32 inputs (an extrapolation: the real full sweep's cost depends on how many
   outputs differ from the golden value, which varies over the input space);
3. a full 16-bit sweep (all 65,536 float16 inputs) in this process: seconds, and the ratio to numpy.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from specgen.formula.numpy_eval import evaluate
from specgen.sweep.chunk import chunk
from specgen.sweep.execute import all_chunks
from specgen.sweep.run import execute, prepare
from specgen.sweep.summary import merge_all

STAGES = ("inputs", "golden", "adapter", "compare", "summary")


def numpy_time(p, lo, hi):
    """numpy's float64 evaluation of the formula on the inputs of [lo, hi]."""
    bits, x = p.space.values(lo, hi)
    spec, attrs = p.spec.resolve(p.sweep.attrs, p.sweep.standard)  # a string attribute picks the formula
    env = {spec.inputs[0].name: x.astype(np.float64), **{k: v for k, v in attrs.items() if not isinstance(v, str)}}
    formula = spec.formula_for(p.sweep.standard)
    t0 = time.perf_counter()
    with np.errstate(all="ignore"):
        evaluate(formula, env)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adapter", default="onnxruntime")
    ap.add_argument("--elements", type=lambda s: int(s, 0), default=1 << 24)
    ap.add_argument("--start", type=lambda s: int(s, 0), default=0xBE000000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--ops", default="hard_sigmoid,softsign,shrink")
    args = ap.parse_args()
    rng = f"0x{args.start:x}:0x{args.start + args.elements - 1:x}"
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} cores")
    print(f"float32, {args.elements:,} inputs {rng}, adapter {args.adapter}; ns/element (ratio to numpy's formula)")
    print(f"{'op':<13}" + "".join(f"{s:>17}" for s in (*STAGES, "total", "numpy")))
    pool, cpu = [], []
    for op in args.ops.split(","):
        p = prepare(args.adapter, op, None, None, "float32", {}, [rng])
        parts, t_np = [], 0.0
        chunk(p.sweep, args.start, args.start + 1023)  # loads the spec and the adapter (setup, not timed)
        t_cpu = 0.0
        for lo, hi in all_chunks(p.sweep, p.space):
            c0 = time.process_time()
            parts.append(chunk(p.sweep, lo, hi))
            t_cpu += time.process_time() - c0
            t_np += numpy_time(p, lo, hi)
        s = merge_all(parts)
        n = s.total
        per = {k: 1e9 * s.timing.get(k, 0.0) / n for k in STAGES}
        per["total"] = sum(per.values())
        npns = 1e9 * t_np / n
        print(f"{op:<13}" + "".join(f"{per[k]:>9.0f} ({per[k] / npns:>5.0f}x)" for k in (*STAGES, "total"))
              + f"{npns:>17.1f}")
        cpu.append((op, 1e9 * t_cpu / n))
        t0 = time.perf_counter()
        out = execute(p, workers=args.workers)
        wall = time.perf_counter() - t0
        assert out.summary.total == n
        pool.append((op, wall, n, out.summary.failures))
    print()
    print("CPU time of the chunk function (this process), extrapolated to 2^32 inputs on 2 idle cores:")
    for op, ns in cpu:
        print(f"  {op:<13} {ns:6.1f} ns/element -> {2 ** 32 * ns / 2e9 / 60:5.1f} min")
    print()
    print(f"local pool, {args.workers} workers (wall, including worker start-up), extrapolated to 2^32 inputs:")
    for op, wall, n, fails in pool:
        rate = n / wall
        print(f"  {op:<13} {wall:7.2f} s for {n:,} inputs = {rate / 1e6:5.2f} M inputs/s -> 2^32 in "
              f"{2 ** 32 / rate / 60:6.1f} min ({fails:,} failing)")
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")
    print()
    print("16-bit sweep in this process (all 65,536 float16 inputs, setup excluded):")
    for op in args.ops.split(","):
        p = prepare(args.adapter, op, None, None, "float16", {}, None)
        chunk(p.sweep, 0, 1023)
        t0 = time.perf_counter()
        s = chunk(p.sweep, 0, 65535)
        t = time.perf_counter() - t0
        t_np = numpy_time(p, 0, 65535)
        print(f"  {op:<13} {t:6.3f} s ({t / t_np:5.0f}x numpy's {t_np * 1e3:.2f} ms), {s.failures} failing")


if __name__ == "__main__":
    main()
