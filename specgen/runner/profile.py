"""The behaviour profile: what the backend did where a spec may leave a choice (NaN input, ±inf
input, the sign of a zero result, subnormal inputs and outputs), counted per case and merged per
(op, dtype) and for the whole run. Reported whatever the verdict; ``--profile strict`` turns the
spec's recommended outcomes (what the golden data stores) into requirements.

Categories and their outcomes:
  nan_input, pos_inf_input, neg_inf_input: the output value ("nan", "+inf", "-inf", or the number)
  zero_result: where the expected result is a zero: "sign as expected", "sign flipped", "not zero"
  subnormal_input: "same as expected", "treated as zero (flushed)" (the backend's result for a zero
    input of the same sign in the same case), or "differs"
  subnormal_result: where the expected result is subnormal: "kept", "flushed to zero", "other"
  integer_extremes: integer dtypes, inputs at the type's min/max: "same as expected", "wrapped or saturated"
  bfloat16_rounding: bfloat16 results, finite and nonzero: "as expected (nearest even)", "1 ULP toward
    zero" (what truncating float32 to bfloat16 gives about half the time), "1 ULP away from zero", "other"
  reading: elements only one reading of the standard accepts besides its text's
    (specgen.numerics.readings): "<standard> <reading>", or "<standard> <reading> (opt-in, not
    enabled)" for failing elements only a disabled opt-in reading explains
"""
from __future__ import annotations

import numpy as np

from specgen.dtypes import is_float_numpy

CATEGORIES = ("nan_input", "pos_inf_input", "neg_inf_input", "zero_result", "subnormal_input",
              "subnormal_result", "integer_extremes", "bfloat16_rounding", "reading",
              # accumulating operators (specgen.indexing.judge.profile), per case: the accumulation type a
              # 16-bit result needed, and whether a formula with exp stayed finite on near-overflow rows
              "accumulation", "exp_overflow")
MAX_VALUES = 6  # distinct output values named per category before "other"


def _is_float(a: np.ndarray) -> bool:
    return is_float_numpy(a.dtype)


def _tiny(dtype) -> float:
    import ml_dtypes

    if np.dtype(dtype).kind != "f":  # bfloat16, float8: ml_dtypes' finfo
        return float(ml_dtypes.finfo(np.dtype(dtype)).tiny)
    return float(np.finfo(dtype).tiny)


def _value_name(v: float) -> str:
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "+inf" if v > 0 else "-inf"
    if v == 0:
        return "-0" if np.signbit(v) else "0"
    return f"{v:.6g}"


def _add(out: dict, cat: str, outcome: str, n: int = 1) -> None:
    if n:
        d = out.setdefault(cat, {})
        if outcome not in d and len(d) >= MAX_VALUES:
            outcome = "other"
        d[outcome] = d.get(outcome, 0) + n


def case_profile(x: np.ndarray, expected: np.ndarray, actual: np.ndarray) -> tuple[dict, int]:
    """(profile, deviations): counts per category and outcome, and how many of those elements
    differ from the recommended outcome (bit-exact, any NaN matching any NaN)."""
    out: dict = {}
    if x.shape != expected.shape or expected.shape != actual.shape:
        return out, 0
    x, e, a = x.reshape(-1), expected.reshape(-1), actual.reshape(-1)
    if _is_float(e) and _is_float(x):
        xf, ef, af = x.astype(np.float64), e.astype(np.float64), a.astype(np.float64)
        same = (np.isnan(ef) & np.isnan(af)) | ((ef == af) & (np.signbit(ef) == np.signbit(af)))
        special = np.zeros(x.shape, dtype=bool)
        for cat, mask in (("nan_input", np.isnan(xf)), ("pos_inf_input", np.isposinf(xf)),
                          ("neg_inf_input", np.isneginf(xf))):
            special |= mask
            for v in af[mask]:
                _add(out, cat, _value_name(v))
        zero = ef == 0
        special |= zero
        if zero.any():
            _add(out, "zero_result", "sign as expected", int(np.sum(zero & (af == 0) & (np.signbit(af) == np.signbit(ef)))))
            _add(out, "zero_result", "sign flipped", int(np.sum(zero & (af == 0) & (np.signbit(af) != np.signbit(ef)))))
            _add(out, "zero_result", "not zero", int(np.sum(zero & (af != 0))))
        tiny_in, tiny_out = _tiny(x.dtype), _tiny(e.dtype)
        sub_in = (xf != 0) & (np.abs(xf) < tiny_in)
        special |= sub_in
        if sub_in.any():
            _add(out, "subnormal_input", "same as expected", int(np.sum(sub_in & same)))
            # what the backend gives for a zero input of the same sign, where the case has one
            flushed = np.zeros(x.shape, dtype=bool)
            for neg in (False, True):
                zeros = (xf == 0) & (np.signbit(xf) == neg)
                if zeros.any():
                    f0 = af[zeros][0]
                    flushed |= sub_in & (np.signbit(xf) == neg) & ((af == f0) & (np.signbit(af) == np.signbit(f0)))
            _add(out, "subnormal_input", "treated as zero (flushed)", int(np.sum(sub_in & ~same & flushed)))
            _add(out, "subnormal_input", "differs", int(np.sum(sub_in & ~same & ~flushed)))
        sub_out = (ef != 0) & (np.abs(ef) < tiny_out)
        special |= sub_out
        if sub_out.any():
            _add(out, "subnormal_result", "kept", int(np.sum(sub_out & (af != 0) & (np.abs(af) < tiny_out))))
            _add(out, "subnormal_result", "flushed to zero", int(np.sum(sub_out & (af == 0))))
            _add(out, "subnormal_result", "other", int(np.sum(sub_out & (af != 0) & ~(np.abs(af) < tiny_out))))
        if e.dtype.name == "bfloat16" and a.dtype == e.dtype:
            _bfloat16_rounding(out, e, a, ef, af)
        return out, int(np.sum(special & ~same))
    if e.dtype.kind in "iu" and x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        ext = (x == info.min) | (x == info.max)
        if ext.any():
            _add(out, "integer_extremes", "same as expected", int(np.sum(ext & (a == e))))
            _add(out, "integer_extremes", "wrapped or saturated", int(np.sum(ext & (a != e))))
        return out, int(np.sum(ext & (a != e)))
    return out, 0


def _bfloat16_rounding(out: dict, e, a, ef, af) -> None:
    ok = np.isfinite(ef) & np.isfinite(af) & (ef != 0) & (np.signbit(ef) == np.signbit(af))
    if not ok.any():
        return
    eb = (e.view(np.uint16) & 0x7FFF).astype(np.int32)[ok]  # magnitude bits: +1 is one ULP away from zero
    ab = (a.view(np.uint16) & 0x7FFF).astype(np.int32)[ok]
    d = ab - eb
    _add(out, "bfloat16_rounding", "as expected (nearest even)", int(np.sum(d == 0)))
    _add(out, "bfloat16_rounding", "1 ULP toward zero", int(np.sum(d == -1)))
    _add(out, "bfloat16_rounding", "1 ULP away from zero", int(np.sum(d == 1)))
    _add(out, "bfloat16_rounding", "other", int(np.sum(np.abs(d) > 1)))


def reading_profile(standard: str, detail: dict) -> dict:
    """The ``reading`` category from a comparison's detail (ReadComparison.to_json): which reading
    of the standard the backend follows where the text's reading does not accept its result."""
    out: dict = {}
    if not isinstance(detail, dict):
        return out
    for name, n in sorted((detail.get("readings_only") or {}).items()):
        out[f"{standard} {name}"] = int(n)
    for name, n in sorted((detail.get("readings_opt_in") or {}).items()):
        out[f"{standard} {name} (opt-in, not enabled)"] = int(n)
    return {"reading": {k: n for k, n in out.items() if n}} if any(out.values()) else {}


def merge(into: dict, profile: dict) -> dict:
    for cat, outcomes in profile.items():
        for k, n in outcomes.items():
            d = into.setdefault(cat, {})
            d[k] = d.get(k, 0) + n
    return into


def run_profile(results) -> tuple[dict, dict]:
    """(whole run, {(op, dtype): profile}) merged from the results' per-case profiles."""
    total: dict = {}
    per: dict = {}
    for r in results:
        if r.profile:
            merge(total, r.profile)
            merge(per.setdefault((r.op, r.dtype), {}), r.profile)
    return total, dict(sorted(per.items()))


def describe(profile: dict) -> list[str]:
    """One line per category: ``nan_input: nan 12, 0 3``."""
    lines = []
    for cat in CATEGORIES:
        if cat in profile:
            parts = sorted(profile[cat].items(), key=lambda kv: -kv[1])
            lines.append(f"{cat.replace('_', ' ')}: " + ", ".join(f"{k} ×{n}" for k, n in parts))
    return lines
