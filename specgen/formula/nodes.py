"""Node types of a parsed formula. Plain frozen dataclasses: no behaviour beyond structure.

Every consumer (numpy evaluation, the reference emitter, exact evaluation, the error model,
breakpoint analysis) walks these nodes; none of them ever sees Python source or ``ast``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterator, Union


@dataclass(frozen=True)
class Num:
    """A numeric literal, kept as written so that exact consumers can read it as a rational."""

    text: str
    pos: tuple[int, int] = field(default=(0, 0), compare=False)

    @property
    def value(self) -> float:
        return float(self.text)

    @property
    def exact(self) -> Fraction:
        return Fraction(self.text)


@dataclass(frozen=True)
class Const:
    """A named constant: inf, pi or e."""

    name: str
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Var:
    """An input tensor or an attribute of the operator."""

    name: str
    kind: str  # "input" | "attribute"
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Unary:
    op: str  # "-" | "+"
    operand: "Node"
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Binary:
    op: str  # "+" | "-" | "*" | "/"
    left: "Node"
    right: "Node"
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Compare:
    op: str  # "<" | "<=" | ">" | ">=" | "==" | "!="
    left: "Node"
    right: "Node"
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Logical:
    op: str  # "and" | "or"
    operands: tuple["Node", ...]
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Not:
    operand: "Node"
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Call:
    """A call of a function from the fixed table (specgen.formula.functions). ``a if c else b``
    parses to ``where(c, a, b)`` and ``a ** b`` to ``pow(a, b)``."""

    func: str
    args: tuple["Node", ...]
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Reduce:
    """A reduction over a named index set of the operator's index space (``reduce_sum(x, axes)``):
    ``op`` is "sum", "prod", "max" or "min"; the result keeps the reduced dimensions with size 1,
    so it combines with unreduced terms by broadcasting (softmax's ``x - reduce_max(x, axis)``).
    Only specs with an ``index_space`` may use it (specgen.indexing)."""

    op: str
    operand: "Node"
    over: str
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class Count:
    """The number of elements an index set spans (``count(axes)``: a mean's divisor)."""

    over: str
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True)
class TensorCast:
    """``in_tensor_type(expr)``: the standard casts this value to the tensor's type (ONNX
    LayerNormalization: "finally cast Normalized back to the original type of X"). Exact values
    ignore it; the error model rounds it to the tensor type and computes what surrounds it in the
    tensor type, what it encloses in the accumulation type."""

    operand: "Node"
    pos: tuple[int, int] = field(default=(0, 0), compare=False)


Node = Union[Num, Const, Var, Unary, Binary, Compare, Logical, Not, Call, Reduce, Count, TensorCast]


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, (Unary, Not, Reduce, TensorCast)):
        return (node.operand,)
    if isinstance(node, (Binary, Compare)):
        return (node.left, node.right)
    if isinstance(node, Logical):
        return node.operands
    if isinstance(node, Call):
        return node.args
    return ()


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children."""
    yield node
    for child in children(node):
        yield from walk(child)


def names(node: Node, kind: str | None = None) -> set[str]:
    return {n.name for n in walk(node) if isinstance(n, Var) and (kind is None or n.kind == kind)}


def substitute(node: Node, bound: dict) -> Node:
    """``node`` with every variable named in ``bound`` replaced by its node (structure only)."""
    if isinstance(node, Var) and node.name in bound:
        return bound[node.name]
    if isinstance(node, Unary):
        return Unary(node.op, substitute(node.operand, bound), node.pos)
    if isinstance(node, (Binary, Compare)):
        return type(node)(node.op, substitute(node.left, bound), substitute(node.right, bound), node.pos)
    if isinstance(node, Logical):
        return Logical(node.op, tuple(substitute(o, bound) for o in node.operands), node.pos)
    if isinstance(node, Not):
        return Not(substitute(node.operand, bound), node.pos)
    if isinstance(node, Call):
        return Call(node.func, tuple(substitute(a, bound) for a in node.args), node.pos)
    return node
