"""Evaluate a parsed formula with numpy, and spell it as numpy source for the reference emitter.

``evaluate(node, env)`` computes in whatever dtype numpy's promotion gives the arrays in ``env``.
With ``dtype=...`` every intermediate result is rounded to that dtype, one rounding per
operation: the "naive kernel" evaluation order that the error model must accept.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from specgen.formula import nodes as n
from specgen.formula.functions import CONSTANTS, FUNCTIONS

_BIN = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}
_CMP = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
        "==": np.equal, "!=": np.not_equal}


def evaluate(node: n.Node, env: Mapping[str, object], dtype=None):
    """Value of ``node`` with names bound by ``env``; intermediates rounded to ``dtype`` if given."""
    with np.errstate(all="ignore"):
        return _eval(node, env, np.dtype(dtype) if dtype is not None else None)


def _cast(value, dtype):
    if dtype is None:
        return value
    return np.asarray(value).astype(dtype)


def _eval(node, env, dtype):
    if isinstance(node, n.Num):
        return _cast(np.float64(node.value), dtype) if dtype is not None else np.float64(node.value)
    if isinstance(node, n.Const):
        return _cast(np.float64(CONSTANTS[node.name][0]), dtype)
    if isinstance(node, n.Var):
        if node.name not in env:
            raise KeyError(f"formula needs a value for {node.name!r}")
        return _cast(env[node.name], dtype)
    if isinstance(node, n.Unary):
        v = _eval(node.operand, env, dtype)
        return _cast(np.negative(v) if node.op == "-" else v, dtype)
    if isinstance(node, n.Binary):
        return _cast(_BIN[node.op](_eval(node.left, env, dtype), _eval(node.right, env, dtype)), dtype)
    if isinstance(node, n.Compare):
        return _CMP[node.op](_eval(node.left, env, dtype), _eval(node.right, env, dtype))
    if isinstance(node, n.Logical):
        combine = np.logical_and if node.op == "and" else np.logical_or
        out = _eval(node.operands[0], env, dtype)
        for operand in node.operands[1:]:
            out = combine(out, _eval(operand, env, dtype))
        return out
    if isinstance(node, n.Not):
        return np.logical_not(_eval(node.operand, env, dtype))
    if isinstance(node, n.Call):
        fn = FUNCTIONS[node.func]
        args = [_eval(a, env, dtype) for a in node.args]
        return _cast(fn.numpy(*args), dtype)
    raise TypeError(f"not a formula node: {node!r}")


_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "unary": 7, "atom": 9}


def to_numpy_source(node: n.Node, names: Mapping[str, str] | None = None) -> str:
    """numpy source text for ``node``: ``max(0, min(alpha*x+beta, 1))`` becomes
    ``np.maximum(0.0, np.minimum(alpha * x + beta, 1.0))``. ``names`` renames variables."""
    return _src(node, names or {})[0]


def _paren(text_prec, want):
    text, prec = text_prec
    return f"({text})" if prec < want else text


def _src(node, names):
    if isinstance(node, n.Num):
        return repr(float(node.value)), _PREC["atom"]
    if isinstance(node, n.Const):
        return {"inf": "np.inf", "pi": "np.pi", "e": "np.e"}[node.name], _PREC["atom"]
    if isinstance(node, n.Var):
        return names.get(node.name, node.name), _PREC["atom"]
    if isinstance(node, n.Unary):
        inner = _paren(_src(node.operand, names), _PREC["unary"])
        return (f"-{inner}" if node.op == "-" else inner), _PREC["unary"]
    if isinstance(node, n.Binary):
        p = _PREC[node.op]
        left = _paren(_src(node.left, names), p)
        right = _paren(_src(node.right, names), p + 1)  # left-associative
        return f"{left} {node.op} {right}", p
    if isinstance(node, n.Compare):
        p = _PREC["cmp"]
        return f"{_paren(_src(node.left, names), p + 1)} {node.op} {_paren(_src(node.right, names), p + 1)}", p
    if isinstance(node, n.Logical):
        fn = "np.logical_and" if node.op == "and" else "np.logical_or"
        out = _src(node.operands[0], names)[0]
        for operand in node.operands[1:]:
            out = f"{fn}({out}, {_src(operand, names)[0]})"
        return out, _PREC["atom"]
    if isinstance(node, n.Not):
        return f"np.logical_not({_src(node.operand, names)[0]})", _PREC["atom"]
    if isinstance(node, n.Call):
        fn = FUNCTIONS[node.func]
        args = [_src(a, names)[0] for a in node.args]
        if node.func in ("min", "max") and len(args) > 2:
            npname = "np.minimum" if node.func == "min" else "np.maximum"
            out = args[0]
            for a in args[1:]:
                out = f"{npname}({out}, {a})"
            return out, _PREC["atom"]
        return fn.numpy_source.format(*args), _PREC["atom"]
    raise TypeError(f"not a formula node: {node!r}")
