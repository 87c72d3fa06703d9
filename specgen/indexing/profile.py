"""Behaviour profile of a backend on accumulating operators (issue 21, item 5): facts, not
verdicts. From the designed cases' verdicts: the accumulation type its float16 results need (a
result only float16 accumulation explains is noted by the judge), and whether it stays finite on the
near-overflow rows where a formula that does not subtract the maximum overflows (softmax,
log-softmax, log-sum-exp)."""
from __future__ import annotations


def facts(verdicts, dtype: str) -> dict:
    out = {}
    if dtype in ("float16", "bfloat16"):
        narrow = [v.case for v in verdicts if any(f"{dtype} accumulation" in note for note in v.notes)]
        out["accumulation"] = (f"{dtype} (only a {dtype} accumulator explains {len(narrow)} case(s), e.g. {narrow[0]})"
                               if narrow else "float32 or wider (no designed case needed a 16-bit accumulator)")
    near = [v for v in verdicts if v.case.endswith("/near_overflow")]
    if near:
        overflowed = [v.case for v in near if v.verdict != "pass" and ("inf-mismatch" in v.message or "nan-mismatch" in v.message)]
        out["overflow"] = (f"overflows where the exact value is finite in {len(overflowed)} of {len(near)} near-overflow "
                           f"case(s) (no max subtraction), e.g. {overflowed[0]}" if overflowed else
                           f"finite on all {len(near)} near-overflow case(s) (subtracts the maximum or equivalent)")
    return out
