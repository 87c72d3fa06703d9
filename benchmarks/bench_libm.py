"""Check (a script, not a test) of the libm error bounds the golden values assume
(specgen/numerics/libm.py): numpy's float64 and long double exp, expm1, log, log1p, tanh, sqrt,
pow and math.erf against mpmath (110 bits) on random points over each function's whole range and
on known hard cases (overflow/underflow thresholds, subnormals, cancellation points).

    .venv/bin/python benchmarks/bench_libm.py [--points 1000000] [--seed 1]

Prints, per function and type, the worst error in ULPs (of the exact result's binade), the 99.99th
percentile, the assumed bound and the ratio; exits 1 if any worst error reaches the bound.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from specgen.numerics.libm import HARD_CASES, LIBM, sample_points, supported, ulp_errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    bad = False
    print(f"{'function':8s} {'type':10s} {'points':>9s} {'worst':>8s} {'p99.99':>8s} {'hard':>7s} {'assumed':>8s}  time")
    for name in LIBM:
        for ftype in (np.float64, np.longdouble):
            if not supported(name, ftype):
                continue
            t0 = time.perf_counter()
            rng = np.random.default_rng(args.seed + sum(map(ord, name)))
            pts = sample_points(name, args.points, rng, ftype)
            err = ulp_errors(name, ftype, *pts) if name == "pow" else ulp_errors(name, ftype, pts)
            cases = HARD_CASES[name]
            if name == "pow":
                hard = ulp_errors(name, ftype, *(np.array([c[i] for c in cases]).astype(ftype) for i in (0, 1)))
            else:
                hard = ulp_errors(name, ftype, np.array(cases, dtype=np.float64).astype(ftype))
            worst, p = float(np.nanmax(err)), float(np.nanquantile(err, 0.9999))
            h = float(np.nanmax(hard))
            bound = LIBM[name].ulps[ftype]
            bad |= max(worst, h) >= bound
            print(f"{name:8s} {ftype.__name__:10s} {np.isfinite(err).sum():9,d} {worst:8.3f} {p:8.3f} {h:7.3f} "
                  f"{bound:8.0f}  {time.perf_counter() - t0:5.1f} s", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
