"""What judging an accumulating case needs besides the model (specgen.numerics.accumulation): the
accumulation policy of a (standard, dtype), the golden outputs of a designed case (the corpus
writer's), and the elements whose outcome the spec leaves unspecified. The runner
(specgen.runner.core, through specgen.indexing.judge) is the only harness that runs kernels.
"""
from __future__ import annotations

import numpy as np

from specgen.formula import nodes as n

from specgen.indexing.evaluate import simulate
from specgen.indexing.golden import golden
from specgen.indexing.layout import resolve
from specgen.indexing.spec import AccSpec
from specgen.numerics.accumulation import AccumulationPolicy


def policy(spec: AccSpec, standard: str, dtype: str) -> AccumulationPolicy:
    return spec.standards[standard].accumulation.get(dtype) or AccumulationPolicy((dtype, "float64"))


def expected(spec: AccSpec, case, inputs: dict) -> tuple:
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


def empty_reductions(spec: AccSpec, layout) -> list[str]:
    """The index sets the formula reduces over that have no element here (a reduced dimension of size 0)."""
    over = {node.over for f in spec.formulas() for node in n.walk(f) if isinstance(node, n.Reduce)}
    return sorted(s for s in over if s in layout.sets and layout.count(s) == 0)


def unspecified_elements(spec: AccSpec, layout, inputs, attributes, output, standard: str | None = None) -> dict:
    out = {}
    if standard is not None and spec.standards[standard].empty == "undefined" and empty_reductions(spec, layout):
        # "Reduction over an empty set of values yields undefined" (ONNX ReduceMean): any value passes
        out["an empty reduction"] = np.ones(layout.outputs[output][1], dtype=bool)
    if spec.special.get("nan") == "unspecified":
        out["a NaN"] = reached_by(spec, layout, inputs, attributes, output, np.isnan)
    if spec.special.get("inf") == "unspecified":
        out["an infinity"] = reached_by(spec, layout, inputs, attributes, output, np.isinf)
    return out
