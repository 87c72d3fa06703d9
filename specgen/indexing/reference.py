"""The reference computation of an accumulating operator (what the ``reference`` adapter runs for
them): the spec's formula evaluated by the index engine (specgen.indexing.evaluate.simulate) over
the layout the spec's index space gives (where the text's formula overflows, a reading's that does
not), in long double (float64 where the platform has no wider
type: a product of 1,023 values in (-1, 1) underflows float64 before it meets an infinity), summed
sequentially, then converted to the output type. Shapes the index space refuses raise
ShapeViolation (a must-reject case: the reference rejects it)."""
from __future__ import annotations

import numpy as np

from specgen import dtypes
from specgen.indexing.evaluate import simulate
from specgen.indexing.layout import resolve

WIDE = np.longdouble if np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant else np.float64


def layout_of(spec, standard: str, version: str, shapes: dict, attributes: dict):
    """The layout of a call, or ShapeViolation naming every problem."""
    space = spec.index_space.for_version(standard, version)
    return resolve(space, spec.formula, shapes, attributes, spec.outputs)


def compute(spec, standard: str, version: str, inputs: dict, attributes: dict, dtype: str) -> dict:
    layout = layout_of(spec, standard, version, {k: np.shape(v) for k, v in inputs.items()}, attributes)
    wide = {k: np.asarray(v).astype(np.float64).astype(WIDE) for k, v in inputs.items()}
    out = {}
    with np.errstate(all="ignore"):
        values = [simulate(f, layout, wide, attributes, WIDE, "sequential") for f in spec.formulas()]
        for o in spec.outputs:
            # the text's formula, and where it overflows another reading's (ReduceLogSumExp's text is
            # log(sum(exp(x))): exp(2^26) is inf even in long double; its max-subtracting reading is finite)
            got = layout.arrange(o, values[0])
            for other in values[1:]:
                other = layout.arrange(o, other)
                got = np.where(~np.isfinite(got) & np.isfinite(other), other, got)
            out[o] = got.astype(np.float64).astype(dtypes.get(dtype).numpy)
    return out
