"""Used only while specgen.numerics.compare is not in the checkout: a crude comparison with the
same call signature and result shape (ok, total, mismatches, worst, notes, kind, summary()).
It allows |actual - expected| <= 4 * eps(dtype) * max(1, |x|) elementwise, NaN == NaN."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class StubComparison:
    ok: bool
    total: int
    mismatches: int
    worst: dict | None
    kind: str | None = None
    notes: list = field(default_factory=list)
    first: list = field(default_factory=list)

    def summary(self):
        if self.ok:
            return f"{self.total} elements within bound"
        w = self.worst
        return (f"{self.mismatches} of {self.total} elements out of bound; worst at {w['index']}: "
                f"expected {w['expected']['decimal']}, got {w['actual']['decimal']}")


def _hex(v, dtype):
    a = np.asarray(v, dtype=dtype)
    return "0x" + a.view(f"uint{a.dtype.itemsize * 8}").tobytes()[::-1].hex()


def compare(spec, standard_key, case_dtype, inputs, attributes, expected, actual):
    e = np.asarray(expected).astype(np.float64)
    a = np.asarray(actual).astype(np.float64)
    x = np.asarray(inputs["x"]).astype(np.float64)
    eps = float(np.finfo(np.asarray(expected).dtype).eps) if np.asarray(expected).dtype.kind == "f" else 0.0
    with np.errstate(all="ignore"):
        err = np.abs(a - e)
        bound = 4 * eps * np.maximum(1.0, np.abs(x)) if eps else np.ones_like(e)
        bad = ~((err <= bound) | (np.isnan(a) & np.isnan(e)) | (a == e))
    n = int(bad.sum())
    worst = None
    if n:
        idx = np.unravel_index(int(np.argmax(np.where(bad, np.nan_to_num(err, nan=np.inf), -1))), e.shape)
        d = np.asarray(expected).dtype
        worst = {"index": list(map(int, idx)),
                 "input": {"decimal": repr(float(x[idx])), "hex": _hex(np.asarray(inputs["x"])[idx], d)},
                 "expected": {"decimal": repr(float(e[idx])), "hex": _hex(np.asarray(expected)[idx], d)},
                 "actual": {"decimal": repr(float(a[idx])), "hex": _hex(np.asarray(actual)[idx], d)},
                 "error_ulps": float(err[idx] / eps) if eps else float(err[idx]), "bound_ulps": 4.0}
    return StubComparison(ok=n == 0, total=int(e.size), mismatches=n, worst=worst, kind="value" if n else None)
