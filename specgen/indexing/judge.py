"""The accumulating engine's side of the runner (specgen.runner.core asks a spec's engine): the
comparison of one case's output by the accumulation model (specgen.numerics.accumulation.judge:
any summation order, the accumulation types the standard allows, every reading), and the behaviour
profile's facts (which accumulation type a float16 result needed, whether a formula with exp
stayed finite on the near-overflow rows)."""
from __future__ import annotations

import numpy as np

from specgen.formula import nodes as n
from specgen.indexing.layout import resolve
from specgen.indexing.run import policy, unspecified_elements
from specgen.numerics.accumulation import judge

NARROW_NOTE = "accumulation, which the standard leaves unspecified"


def compare(spec, standard: str, dtype: str, inputs: dict, attributes: dict, expected, actual, *, version: str):
    """The Comparison of ``actual`` with the golden ``expected`` for the spec's (single) output."""
    output, = spec.outputs
    space = spec.index_space.for_version(standard, version)
    layout = resolve(space, spec.formula, {k: np.shape(v) for k, v in inputs.items()}, attributes, spec.outputs)
    return judge(spec.formulas(), layout, inputs, attributes, dtype, np.asarray(expected), np.asarray(actual),
                 policy(spec, standard, dtype), output,
                 report_only=unspecified_elements(spec, layout, inputs, attributes, output, standard))


def _calls_exp(spec) -> bool:
    return any(isinstance(c, n.Call) and c.func == "exp" for f in spec.formulas() for c in n.walk(f))


def profile(spec, result) -> dict:
    """{category: {outcome: 1}} for one judged case (specgen.runner.profile's shape)."""
    out: dict = {}
    notes = " ".join(str(x) for x in (getattr(result, "notes", None) or ()))
    if result.dtype in ("float16", "bfloat16"):
        narrow = NARROW_NOTE in notes
        out["accumulation"] = {(f"{result.dtype} accumulation needed" if narrow else "float32 or wider"): 1}
    if _calls_exp(spec) and "near_overflow" in (result.tags or ()):
        # rows of values near 100 (float32) or 12 (float16): exp overflows there unless the maximum is
        # subtracted; a kernel that does not subtract it fails them (inf, NaN, or a clamped log of inf)
        out["exp_overflow"] = {("fails: exp overflowed (no max subtraction)" if result.verdict != "pass"
                                else "finite (max subtracted)"): 1}
    return out
