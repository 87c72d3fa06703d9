"""Why a result is catastrophic, in words a person reads at a glance.

compare() fails, whatever the error model's interval says, a result that no rounding explains
where the exact value is finite: an infinity (an intermediate overflowed), a NaN, or a zero where
the exact value rounds to a normal number (a total cancellation). ``explain`` names the formula's
node where a naive evaluation in the output dtype loses the value ("exp(x) overflowed at
x = 100: exact 100, got inf"; "1 + exp(x) cancelled at x = -20: exact 2.06e-9, got 0"): the
innermost operation, on the branches the evaluation takes, whose operands are fine and whose
result is not. When the naive evaluation does not show it, the reason says what was got.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from specgen.formula import nodes as n
from specgen.formula.numpy_eval import evaluate
from specgen.numerics import ulp as U
from specgen.render.formula_text import spell

VERB = {"inf-mismatch": "overflowed", "nan-mismatch": "gave NaN", "cancellation": "cancelled"}


def short(value: float) -> str:
    """3 significant digits, no exponent padding: 2.06e-9, 100, inf, 0."""
    v = float(value)
    if np.isnan(v):
        return "NaN"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{v:.3g}").replace("e+", "e")


def explain(formula, inputs: Mapping[str, float], attributes: Mapping[str, float], dtype: str, kind: str,
            at: str, exact: float, got: float) -> str:
    """The reason of one catastrophic element: ``inputs`` and ``attributes`` its values (floats),
    ``at`` the inputs as the report spells them (``x = 100``), ``exact`` the golden value."""
    tail = f"exact {short(exact)}, got {short(got)}"
    if np.isnan(float(exact)) and not np.isnan(float(got)):  # sqrt(-2) = 1.0: nothing in the formula was lost
        return f"a number where there is no real value at {at}: {tail}"
    node = culprit(formula, inputs, attributes, dtype, kind)
    if node is None:
        what = {"inf-mismatch": "an infinity", "nan-mismatch": "NaN", "cancellation": "a zero"}.get(kind, "a value")
        e = float(exact)
        where = "the exact value is finite" if np.isfinite(e) else f"the exact value is {short(e)}"  # a pole: +-inf
        return f"{what} where {where} at {at}: {tail}"
    if isinstance(node, n.Var):
        return f"{node.name} = {short(attributes[node.name])} overflowed in {dtype} at {at}: {tail}"
    return f"{spell(node)} {VERB[kind]} at {at}: {tail}"


def culprit(formula, inputs: Mapping[str, float], attributes: Mapping[str, float], dtype: str, kind: str):
    """The innermost node of ``formula`` (on the branches a naive evaluation in ``dtype`` takes)
    where the value is lost: an attribute that the dtype cannot hold (it becomes an infinity), for
    ``inf-mismatch`` an operation with finite operands and an infinite result, for ``nan-mismatch`` one with numeric operands and a NaN result, for ``cancellation``
    a sum or difference that drops a nonzero operand (1 + 2e-9 = 1 in float32) or cancels to 0.
    None when there is none."""
    tt = U.fmt(dtype).numpy
    with np.errstate(over="ignore"):  # an attribute beyond the dtype's range is held as inf, as a kernel would
        env = {k: np.asarray(v).astype(tt) for k, v in inputs.items()}
        env.update({k: tt.type(v) for k, v in attributes.items()})

    def value(node):
        with np.errstate(all="ignore"):
            return float(np.asarray(evaluate(node, env, dtype=tt)).reshape(-1)[0])

    def lost(node) -> bool:
        if isinstance(node, n.Var) and node.name in attributes:  # held in the dtype: FLT_MAX is inf in float16
            return bool(np.isinf(value(node)) and np.isfinite(attributes[node.name]))
        if not isinstance(node, (n.Binary, n.Call, n.Unary)):
            return False
        ops = [value(c) for c in n.children(node)]
        v = value(node)
        if kind == "inf-mismatch":
            return bool(np.isinf(v) and all(np.isfinite(o) for o in ops))
        if kind == "nan-mismatch":
            return bool(np.isnan(v) and not any(np.isnan(o) for o in ops))
        if kind == "cancellation" and isinstance(node, n.Binary) and node.op in "+-":
            left, right = ops
            return bool((v == 0 and left != 0 and right != 0)
                        or (right != 0 and v == left) or (left != 0 and v == (right if node.op == "+" else -right)))
        return False

    def visit(node):
        if isinstance(node, n.Call) and node.func in ("where", "select"):
            taken = node.args[1] if value(node.args[0]) else node.args[2]
            return visit(taken)
        for child in n.children(node):
            found = visit(child)
            if found is not None:
                return found
        return node if lost(node) else None

    return visit(formula)
