"""``python -m specgen.indexing.gate BACKEND [OP ...] [--latest] [--long]``: every ONNX version and float type of the
accumulating specs (specs/accumulating) through onnxruntime or onnx's reference, judged; prints
one line per (op, version, dtype) and each failing case with its reason."""
from __future__ import annotations

import sys
import warnings

from specgen.indexing.onnx_kernel import kernel
from specgen.indexing.profile import facts
from specgen.indexing.run import PASS, run
from specgen.indexing.spec import load_all


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    backend, ops = argv[0], set(argv[1:])
    long = "--long" in ops
    latest = "--latest" in ops
    ops -= {"--long", "--latest"}
    warnings.simplefilter("ignore")
    failed = 0
    for op, spec in load_all().items():
        if ops and op not in ops or "onnx" not in spec.standards:
            continue
        versions = spec.standards["onnx"].versions
        for version in versions[-1:] if latest else versions:
            for dtype in version.dtypes():
                if dtype == "bfloat16":
                    continue
                verdicts = run(spec, "onnx", version.version, dtype, kernel(backend, spec), long=long)
                bad = [v for v in verdicts if v.verdict != PASS]
                notes = sorted({note.split(" element(s) ")[-1] for v in verdicts for note in v.notes})
                print(f"{op} onnx-{version.version} {dtype}: {len(verdicts) - len(bad)}/{len(verdicts)} pass"
                      + (f"; notes: {notes}" if notes else ""), flush=True)
                profile = facts(verdicts, dtype)
                if profile:
                    print("  PROFILE " + "; ".join(f"{k}: {v}" for k, v in profile.items()), flush=True)
                for v in bad:
                    print(f"  FAIL {v.case}: {v.message[:300]}", flush=True)
                failed += len(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
