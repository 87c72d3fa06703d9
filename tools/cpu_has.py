#!/usr/bin/env python3
"""Exit 0 when this machine's CPU has every feature named (numpy's spelling: AVX512F, AVX2, NEON;
a leading '!' for one it must lack), else 1, saying which is not so. The gates of backends whose
baseline was written on one kind of CPU use it (.ci/gates/*.sh): XNNPACK's and OpenVINO's kernels
are chosen by instruction set, so their results, and the baseline's entries, differ between AVX-512
and AVX2 machines (baseline entries can say so one by one: `cpu:` in docs/runner.md).

    .venv/bin/python tools/cpu_has.py AVX512F
"""
from __future__ import annotations

import sys

from specgen.runner.baseline.model import BaselineError, cpu_condition, cpu_features, cpu_matches


def main(argv: list[str]) -> int:
    try:
        wanted = cpu_condition(argv, "tools/cpu_has.py")
    except BaselineError as exc:
        print(exc, file=sys.stderr)
        return 2
    if cpu_matches(wanted):
        return 0
    have = cpu_features()
    off = [c for c in wanted if cpu_matches((c,), have) is False]
    print(f"this CPU does not match: {', '.join(off)} (it has {', '.join(sorted(k for k, v in have.items() if v))})")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
