"""Keep specgen/sweep/judge_epoch.json in step with the judge's sources (specgen.sweep.provenance).

    python tools/judge_epoch.py            # check: exit 1 when the judge's sources changed since the record
    python tools/judge_epoch.py --refresh  # the change leaves every verdict as it was: record the new digest
    python tools/judge_epoch.py --bump     # the change moves verdicts: epoch + 1 (every matrix cell is stale)
    python tools/judge_epoch.py --bump --functions sqrt,log --why "..."
                                           # it moves only formulas calling these: other cells stay current
    python tools/judge_epoch.py --bump --operators float64:sigmoid,swish --operators float32:elu --why "..."
                                           # it moves these operators' cells of these dtypes (measured)

A change to the judge is one of the two on purpose: --refresh after a refactor or a faster tier the
tests prove equal (tests/test_compare_fast.py), --bump after anything that can turn a verdict or an
error value. ``specgen matrix`` re-runs the cells of an older epoch.
"""
from __future__ import annotations

import argparse
import json
import sys

from specgen.sweep import provenance as P


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--refresh", action="store_true", help="record the current sources' digest, same epoch")
    g.add_argument("--bump", action="store_true", help="epoch + 1 and record the current sources' digest")
    ap.add_argument("--functions", default="", help="with --bump: the formula functions whose judgement moved "
                                                    "(comma-separated); default: every operator's")
    ap.add_argument("--operators", action="append", default=[], metavar="DTYPE:OP,OP",
                    help="with --bump: the operators whose cells of DTYPE moved (repeat per dtype)")
    ap.add_argument("--why", default="", help="with --bump --functions/--operators: what changed, for the record")
    args = ap.parse_args(argv)
    if (args.functions or args.operators) and not args.bump:
        ap.error("--functions and --operators go with --bump")
    rec, now = P.recorded(), P.sources_digest()
    if args.refresh or args.bump:
        epoch = rec["epoch"] + (1 if args.bump else 0)
        out = {"epoch": epoch, "sources": now}
        moved = dict(rec.get("moved", {}))
        if args.bump and (args.functions or args.operators):
            entry = {}
            if args.functions:
                from specgen.formula.functions import FUNCTIONS

                named = sorted({f.strip() for f in args.functions.split(",") if f.strip()})
                unknown = [f for f in named if f not in FUNCTIONS]
                if unknown:
                    ap.error(f"--functions: not formula functions: {', '.join(unknown)}")
                entry["functions"] = named
            if args.operators:
                entry["operators"] = _operators(ap, args.operators)
            moved[str(epoch)] = {**entry, "why": args.why}
        if moved:
            out["moved"] = moved
        P.EPOCH_FILE.write_text(json.dumps(out, indent=1) + "\n")
        print(f"judge epoch {epoch}, sources {now[:16]}")
        return 0
    if rec["sources"] != now:
        print(f"the judge's sources changed since epoch {rec['epoch']} was recorded "
              f"({', '.join(P.JUDGE_SOURCES)}): run tools/judge_epoch.py --refresh if every verdict stays "
              "as it was, --bump if verdicts change", file=sys.stderr)
        return 1
    print(f"judge epoch {rec['epoch']}: sources as recorded")
    return 0


def _operators(ap, texts: list[str]) -> dict[str, list[str]]:
    """{"dtype": [op, ...]} from --operators DTYPE:OP,OP (each dtype and op checked)."""
    from specgen import dtypes as dt
    from specgen.spec.loader import load_all

    specs = load_all()
    out: dict[str, set[str]] = {}
    for text in texts:
        dtype, sep, ops = text.partition(":")
        if not sep or dtype not in dt.DTYPES:
            ap.error(f"--operators {text!r}: expected DTYPE:OP,OP with a known dtype")
        named = {o.strip() for o in ops.split(",") if o.strip()}
        unknown = sorted(named - set(specs))
        if unknown or not named:
            ap.error(f"--operators {text!r}: not operators: {', '.join(unknown) or '(none named)'}")
        out.setdefault(dtype, set()).update(named)
    return {k: sorted(v) for k, v in sorted(out.items())}


if __name__ == "__main__":
    sys.exit(main())
