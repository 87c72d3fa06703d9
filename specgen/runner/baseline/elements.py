"""Failing elements against signatures: which clause of which entry explains each element
(``specgen.numerics.compare.Failing``: kind, inputs, error per failing element), and how an element
is described when it is known or new."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from specgen import dtypes as dt
from specgen.runner.baseline.model import MEASURED_KINDS, Clause

SPECIAL_CLASSES = ("nan", "+inf", "-inf", "+0", "-0", "subnormal")
# what each written class stands for, in the fine classes of value_classes()
CLASS_MEMBERS = {"nan": {"nan"}, "+inf": {"+inf"}, "-inf": {"-inf"}, "inf": {"+inf", "-inf"}, "+0": {"+0"},
                 "-0": {"-0"}, "zero": {"+0", "-0"}, "subnormal": {"subnormal"}, "normal": {"normal"},
                 "finite": {"+0", "-0", "subnormal", "normal"}}


def smallest_normal(dtype: str) -> float:
    """The smallest positive normal number of a float dtype (0 for integer dtypes: no subnormals)."""
    d = dt.DTYPES.get(dtype)
    return d.min_normal if d is not None and d.is_float else 0.0


def value_classes(values: np.ndarray, dtype: str) -> np.ndarray:
    """The fine class of each value: nan, +inf, -inf, +0, -0, subnormal or normal."""
    v = np.asarray(values, dtype=np.float64)
    out = np.full(v.shape, "normal", dtype=object)
    tiny = smallest_normal(dtype)
    with np.errstate(invalid="ignore"):
        out[(np.abs(v) < tiny) & (v != 0)] = "subnormal"
        out[(v == 0) & ~np.signbit(v)] = "+0"
        out[(v == 0) & np.signbit(v)] = "-0"
        out[np.isposinf(v)] = "+inf"
        out[np.isneginf(v)] = "-inf"
        out[np.isnan(v)] = "nan"
    return out


@lru_cache(maxsize=512)
def _condition(text: str, names: tuple):
    from specgen.formula.parser import parse_formula

    return parse_formula(text, list(names), [])


def condition_mask(clause: Clause, inputs: dict, attributes: dict, n: int) -> np.ndarray:
    """Where the clause's ``where`` holds (all False when it names something the case lacks)."""
    from specgen.formula.numpy_eval import evaluate

    env = {k: np.asarray(v, dtype=np.float64) for k, v in inputs.items()}
    for k, v in (attributes or {}).items():
        if k not in env and isinstance(v, (int, float)) and not isinstance(v, bool):
            env[k] = np.float64(v)
    if not clause.where_names <= set(env):
        return np.zeros(n, dtype=bool)
    node = _condition(clause.where, tuple(sorted(clause.where_names)))
    with np.errstate(all="ignore"):
        value = evaluate(node, {k: env[k] for k in clause.where_names})
    return np.broadcast_to(np.asarray(value, dtype=bool), (n,)).copy()


def fits(clause: Clause, kinds: np.ndarray, classes: dict, inputs: dict, error: np.ndarray,
         attributes: dict) -> np.ndarray:
    """Which elements the clause explains: kind, input classes, condition and size all fit."""
    n = kinds.size
    mask = np.isin(kinds, list(clause.kinds))
    for name, written in clause.inputs.items():
        if name not in classes:
            return np.zeros(n, dtype=bool)
        allowed = set().union(*(CLASS_MEMBERS[c] for c in written))
        mask &= np.isin(classes[name], list(allowed))
    if clause.where and mask.any():
        mask &= condition_mask(clause, inputs, attributes, n)
    if clause.max_ulp is not None and mask.any():
        measured = np.isin(kinds, MEASURED_KINDS)
        with np.errstate(invalid="ignore"):
            small = error <= clause.max_ulp
        mask &= ~measured | small
    return mask


def why_not(clauses, kind: str, cls: dict, values: dict, error: float, attributes: dict) -> str:
    """Why an element escapes a signature: the first condition of the nearest clause it fails."""
    same = [c for c in clauses if kind in c.kinds]
    if not same:
        return f"{kind} is not in its signature ({', '.join(sorted({k for c in clauses for k in c.kinds}))})"
    c = same[0]
    for name, written in c.inputs.items():
        allowed = set().union(*(CLASS_MEMBERS[w] for w in written))
        if cls.get(name) not in allowed:
            return f"{name} = {fmt(values.get(name))} is not in {{{', '.join(written)}}}"
    if c.where:
        one = {k: np.array([v]) for k, v in values.items()}
        if not condition_mask(c, one, attributes, 1)[0]:
            return f"'{c.where}' does not hold"
    if c.max_ulp is not None and kind in MEASURED_KINDS:
        return f"error {fmt(error, 3)} ULP > max_ulp {c.max_ulp:g}"
    return "no clause fits"  # pragma: no cover - fits() and why_not() agree


def fmt(v, digits: int = 6) -> str:
    if v is None:
        return "?"
    v = float(v)
    if np.isnan(v):
        return "NaN"
    if np.isinf(v):
        return "+inf" if v > 0 else "-inf"
    if v == 0:
        return "-0" if np.signbit(v) else "0"
    return f"{v:.{digits}g}"


def describe(kind: str, values: dict, error: float) -> str:
    """``2.0 ULP at x = -0.0279`` / ``nan-mismatch at x = +inf``."""
    where = ", ".join(f"{k} = {fmt(v)}" for k, v in values.items())
    what = f"{fmt(error, 3)} ULP" if kind in MEASURED_KINDS and np.isfinite(error) else kind
    return f"{what} at {where}" if where else what


def signatures_meet(a, b) -> bool:
    """Whether two entries' signatures can both explain one failure: some clauses share a kind and
    no input that both constrain has classes apart (conditions are not compared)."""
    if a.clauses is None or b.clauses is None:
        return True
    for x in a.clauses:
        for y in b.clauses:
            if not set(x.kinds) & set(y.kinds):
                continue
            apart = any(name in y.inputs and not (set().union(*(CLASS_MEMBERS[c] for c in x.inputs[name]))
                                                  & set().union(*(CLASS_MEMBERS[c] for c in y.inputs[name])))
                        for name in x.inputs)
            if not apart:
                return True
    return False
