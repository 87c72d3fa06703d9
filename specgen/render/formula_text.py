"""Spell a parsed formula back in the formula language, with a standard's names for its variables.

``max(0, min(alpha * x + beta, 1))`` with DirectML's names reads ``max(0, min(Alpha * x + Beta, 1))``.
Numbers keep the spelling of the spec; parentheses appear only where precedence needs them.
"""
from __future__ import annotations

from typing import Mapping

from specgen.formula import nodes as n

_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "unary": 7, "atom": 9}


def spell(node: n.Node, names: Mapping[str, str] | None = None) -> str:
    return _spell(node, names or {})[0]


def _wrap(text_prec: tuple[str, int], want: int) -> str:
    text, prec = text_prec
    return f"({text})" if prec < want else text


def _spell(node: n.Node, names: Mapping[str, str]) -> tuple[str, int]:
    if isinstance(node, n.Num):
        return node.text, _PREC["atom"]
    if isinstance(node, (n.Const, n.Var)):
        return names.get(node.name, node.name), _PREC["atom"]
    if isinstance(node, n.Unary):
        return f"{node.op}{_wrap(_spell(node.operand, names), _PREC['unary'])}", _PREC["unary"]
    if isinstance(node, n.Binary):
        p = _PREC[node.op]
        left = _wrap(_spell(node.left, names), p)
        right = _wrap(_spell(node.right, names), p + 1)  # left-associative: a - (b - c) keeps its parentheses
        return f"{left} {node.op} {right}", p
    if isinstance(node, n.Compare):
        p = _PREC["cmp"]
        return f"{_wrap(_spell(node.left, names), p + 1)} {node.op} {_wrap(_spell(node.right, names), p + 1)}", p
    if isinstance(node, n.Logical):
        p = _PREC[node.op]
        return f" {node.op} ".join(_wrap(_spell(o, names), p + 1) for o in node.operands), p
    if isinstance(node, n.Not):
        return f"not {_wrap(_spell(node.operand, names), _PREC['not'])}", _PREC["not"]
    if isinstance(node, n.Call):
        return f"{node.func}({', '.join(_spell(a, names)[0] for a in node.args)})", _PREC["atom"]
    raise TypeError(f"not a formula node: {node!r}")
