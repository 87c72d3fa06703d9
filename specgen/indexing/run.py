"""Running an accumulating operator's designed cases through a kernel and judging each: a legal
case must give the derived output shape and dtype and pass the accumulation judge
(specgen.numerics.accumulation); a must-reject case must raise. A kernel is any callable
``kernel(case, inputs) -> {output name: array}`` (an adapter's seam: tests pass fakes).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from specgen import dtypes
from specgen.indexing.design import Case, cases
from specgen.indexing.evaluate import simulate
from specgen.indexing.golden import golden
from specgen.indexing.layout import resolve
from specgen.indexing.spec import AccSpec
from specgen.numerics.accumulation import AccumulationPolicy, judge

PASS, FAIL = "pass", "fail"


@dataclass
class Verdict:
    case: str
    verdict: str
    message: str
    notes: list = field(default_factory=list)


def policy(spec: AccSpec, standard: str, dtype: str) -> AccumulationPolicy:
    return spec.standards[standard].accumulation.get(dtype) or AccumulationPolicy((dtype, "float64"))


def expected(spec: AccSpec, case: Case, inputs: dict) -> dict:
    space = spec.index_space.for_version(case.standard, case.version)
    layout = resolve(space, spec.formula, {k: v.shape for k, v in inputs.items()}, case.attributes, spec.outputs)
    return {o: golden(spec.formula, layout, inputs, case.attributes, case.dtype, o)[0] for o in spec.outputs}, layout


def reached_by(spec: AccSpec, layout, inputs: dict, attributes: dict, output: str, test) -> np.ndarray:
    """The output elements whose inputs (along their fiber) include a value ``test`` selects: the
    formula evaluated on NaN there and 0.5 elsewhere (every operation and reduction propagates NaN;
    no NaN arises from 0.5s: no formula divides by a difference of inputs)."""
    marked = {k: np.where(test(np.asarray(v, dtype=np.float64)), np.nan, 0.5) for k, v in inputs.items()}
    with np.errstate(all="ignore"):
        value = simulate(spec.formula, layout, marked, attributes, np.float64, "sequential")
    return np.isnan(layout.arrange(output, value))


def unspecified_elements(spec: AccSpec, layout, inputs, attributes, output) -> dict:
    out = {}
    if spec.special.get("nan") == "unspecified":
        out["a NaN"] = reached_by(spec, layout, inputs, attributes, output, np.isnan)
    if spec.special.get("inf") == "unspecified":
        out["an infinity"] = reached_by(spec, layout, inputs, attributes, output, np.isinf)
    return out


def judge_case(spec: AccSpec, case: Case, kernel) -> Verdict:
    inputs = case.inputs(spec)
    try:
        got = kernel(case, inputs)
        error = None
    except Exception as exc:  # a kernel's rejection
        got, error = None, exc
    if case.kind == "negative":
        if error is not None:
            return Verdict(case.id, PASS, f"rejected: {error}")
        return Verdict(case.id, FAIL, f"accepted an illegal call ({'; '.join(case.violations)})")
    if error is not None:
        return Verdict(case.id, FAIL, f"rejected a legal call: {type(error).__name__}: {error}")
    want, layout = expected(spec, case, inputs)
    notes: list[str] = []
    for name, value in want.items():
        actual = np.asarray(got.get(name)) if name in got else None
        if actual is None:
            return Verdict(case.id, FAIL, f"no output {name}")
        if actual.shape != value.shape:
            return Verdict(case.id, FAIL, f"{name}: shape {list(actual.shape)}, expected {list(value.shape)}")
        if actual.dtype != dtypes.get(case.dtype).numpy:
            return Verdict(case.id, FAIL, f"{name}: dtype {actual.dtype}, expected {case.dtype}")
        cmp = judge(spec.formulas(), layout, inputs, case.attributes, case.dtype, value, actual,
                    policy(spec, case.standard, case.dtype), name, context=case.id,
                    report_only=unspecified_elements(spec, layout, inputs, case.attributes, name))
        notes.extend(cmp.notes)
        if not cmp.ok:
            return Verdict(case.id, FAIL, f"{name}: {cmp.summary()}", notes)
    return Verdict(case.id, PASS, "within the accumulation bound", notes)


def run(spec: AccSpec, standard: str, version: str, dtype: str, kernel, *, long: bool = False, select=None) -> list[Verdict]:
    chosen = [c for c in cases(spec, standard, version, dtype, long=long) if select is None or select(c)]
    return [judge_case(spec, c, kernel) for c in chosen]
