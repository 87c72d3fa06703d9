"""A formula over an index space, computed three ways:

``enclose``: float64 values with a rigorous bound on their distance to the exact value, for an
evaluation whose every operation is rounded with unit roundoff ``rel`` and whose sums run in any
order (Higham's gamma_{n-1} bound for a sum of n terms); the golden values (``rel`` = 2**-53, numpy's
functions) and the error model (the accumulation type's unit roundoff, a kernel's function budget)
both use it. ``simulate``: a kernel computing every operation in a given float type and summing in a
given order (sequential, reversed, pairwise, blocked): the fake backends of the tests and the
behaviour profile. ``fiber``: one output element's inputs, for an exact evaluation in mpmath.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from specgen.formula import nodes as n
from specgen.formula.functions import CONSTANTS, FUNCTIONS
from specgen.indexing.contract import contract
from specgen.indexing.layout import Layout

ORDERS = ("sequential", "reversed", "pairwise", "blocked")
BLOCK = 8


def gamma(k, u: float):
    """gamma_k = k u / (1 - k u) (Higham (3.8)); inf when k u >= 1."""
    k = np.asarray(k, dtype=np.float64)
    with np.errstate(all="ignore"):
        return np.where(k * u < 1, k * u / (1 - k * u), np.inf)


@dataclass(frozen=True)
class Rounding:
    """How each operation of the evaluation is rounded: relative ``rel`` plus absolute ``eta``
    (underflow), functions by ``function_error(name, value)`` (an absolute bound)."""

    rel: float
    eta: float
    function_error: Callable[[str, np.ndarray], np.ndarray]
    tensor_rel: float = 0.0   # the tensor type's, for in_tensor_type() and what surrounds it
    tensor_eta: float = 0.0


def _outside_casts(formula) -> set:
    """ids of the nodes a formula computes outside every in_tensor_type() (empty without one)."""
    if not any(isinstance(x, n.TensorCast) for x in n.walk(formula)):
        return set()
    inside = {id(x) for c in n.walk(formula) if isinstance(c, n.TensorCast) for x in n.walk(c.operand)}
    return {id(x) for x in n.walk(formula) if id(x) not in inside and not isinstance(x, n.TensorCast)}


def _const(name: str) -> float:
    return float(CONSTANTS[name][0])


def enclose(formula, layout: Layout, inputs: dict, attributes: dict, rounding: Rounding):
    """(value, bound) float64 arrays over the space: |exact - any evaluation's result| <= bound,
    with value itself within the bound of the exact one (inf where no bound holds)."""
    u, eta = rounding.rel, rounding.eta
    outside = _outside_casts(formula)
    placed = {name: layout.place(name, np.asarray(a, dtype=np.float64)) for name, a in inputs.items()}
    for name in layout.absent:
        placed[name] = layout.place(name, None)

    current = [u, eta]  # the rounding of the node being computed: the tensor type's outside casts

    def rnd(v, e):  # the operation's own rounding on top of the propagated error
        with np.errstate(all="ignore"):
            return e + current[0] * (np.abs(v) + e) + current[1]

    def go(node):
        saved = list(current)
        if outside:
            current[:] = ([max(u, rounding.tensor_rel), max(eta, rounding.tensor_eta)] if id(node) in outside
                          else [u, eta])
        try:
            return _go(node)
        finally:
            current[:] = saved

    def _go(node):
        with np.errstate(all="ignore"):
            if isinstance(node, n.TensorCast):
                v, e = go(node.operand)
                return v, e + rounding.tensor_rel * (np.abs(v) + e) + rounding.tensor_eta
            if isinstance(node, n.Var):
                if node.kind == "attribute":
                    return np.float64(attributes[node.name]), np.float64(0.0)
                v = placed[node.name]
                return v, np.zeros_like(v)
            if isinstance(node, n.Num):
                v = node.value
                return np.float64(v), np.float64(0.0 if float(node.exact) == v else abs(v) * 2.0 ** -53)
            if isinstance(node, n.Const):
                v = _const(node.name)
                return np.float64(v), np.float64(0.0 if math.isinf(v) else abs(v) * 2.0 ** -53)
            if isinstance(node, n.Count):
                return np.float64(layout.count(node.over)), np.float64(0.0)
            if isinstance(node, n.Unary):
                v, e = go(node.operand)
                return (-v if node.op == "-" else v), e
            if isinstance(node, n.Binary):
                return binary(node)
            if isinstance(node, n.Reduce):
                return reduce(node)
            if isinstance(node, n.Call):
                return call(node)
        raise ValueError(f"{type(node).__name__} is not supported over an index space")

    def binary(node):
        a, ea = go(node.left)
        b, eb = go(node.right)
        if node.op in "+-":
            v = a + b if node.op == "+" else a - b
            return v, rnd(v, ea + eb)
        if node.op == "*":
            v = a * b
            return v, rnd(v, np.abs(a) * eb + np.abs(b) * ea + ea * eb)
        v = a / b
        margin = np.abs(b) - eb
        e = np.where(margin > 0, (ea + np.abs(v) * eb) / np.where(margin > 0, margin, 1.0), np.inf)
        return v, rnd(v, e)

    def reduce(node):
        axes = layout.axes(layout.sets[node.over])
        count = layout.count(node.over)
        operand = node.operand
        if node.op == "sum" and isinstance(operand, n.Binary) and operand.op == "*" and axes:
            a, ea = go(operand.left)
            b, eb = go(operand.right)
            v = contract(a, b, axes)
            mag = contract(np.abs(a), np.abs(b), axes)
            spread = np.zeros_like(mag)
            if np.any(ea) or np.any(eb):
                spread = contract(np.abs(a), eb, axes) + contract(ea, np.abs(b), axes) + contract(ea, eb, axes)
            # products rounded (u) then summed in any order (gamma_{n-1}); the float64 matmul that
            # computed v and mag is itself within gamma_n(2**-53) of their exact values
            uu, ee = current
            g = gamma(max(count - 1, 0), uu) + gamma(count, 2.0 ** -53) * 2
            e = spread + uu * (mag + spread) + g * (1 + uu) * (mag + spread) + count * ee
            return v, e
        x, ex = go(operand)
        full = np.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(ex)))
        ex = np.broadcast_to(ex, full.shape)
        if axes:
            shape = list(full.shape)
            for ax in axes:
                shape[ax] = layout.sizes[layout.labels[ax]]
            full = np.broadcast_to(full, shape)
            ex = np.broadcast_to(ex, shape)
        if node.op == "sum":
            v = np.sum(full, axis=axes, keepdims=True)
            mag = np.sum(np.abs(full) + ex, axis=axes, keepdims=True)
            g = gamma(max(count - 1, 0), current[0]) + gamma(count, 2.0 ** -53)
            return v, np.sum(ex, axis=axes, keepdims=True) + g * mag + count * current[1]
        if node.op == "prod":
            v = np.prod(full, axis=axes, keepdims=True)
            upper = np.prod(np.abs(full) + ex, axis=axes, keepdims=True) * (1 + current[0]) ** max(count - 1, 0)
            return v, upper * (1 + 2.0 ** -52 * count) - np.abs(v) + count * current[1]
        # an empty set's maximum is -inf and its minimum +inf (the identities; ONNX ReduceMax/Min-18)
        pick, ident = (np.max, -np.inf) if node.op == "max" else (np.min, np.inf)
        return (pick(full, axis=axes, keepdims=True, initial=ident),
                np.max(ex, axis=axes, keepdims=True, initial=0.0) if axes else ex)

    def call(node):
        fn = FUNCTIONS[node.func]
        args = [go(a) for a in node.args]
        if node.func in ("abs", "max", "min", "clamp"):  # 1-Lipschitz, exact in floating point
            v = fn.numpy(*[a for a, _ in args])
            return v, np.maximum.reduce([np.broadcast_to(e, np.shape(v)) for _, e in args]) if len(args) > 1 else args[0][1]
        if fn.monotone and len(args) == 1:
            x, e = args[0]
            v = fn.numpy(x)
            lo, hi = fn.numpy(x - e), fn.numpy(x + e)
            lo_d, hi_d = fn.domain
            inside = (x - e >= lo_d) & (x + e <= hi_d)
            spread = np.maximum(np.abs(hi - v), np.abs(v - lo))
            spread = spread + fn.libm_rel * np.maximum(np.abs(hi), np.abs(lo))
            err = np.where(inside | (e == 0), spread, np.inf)
            return v, rnd(v, err) + rounding.function_error(node.func, v)
        raise ValueError(f"function {node.func}() has no error bound over an index space yet")

    return go(formula)


def _acc(x: np.ndarray, axis: int, op: str, dtype, order: str) -> np.ndarray:
    """Reduce axis ``axis`` of ``x`` (already in ``dtype``) in ``order``, every step rounded to dtype."""
    x = np.moveaxis(x, axis, -1)
    f = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[op]
    size = x.shape[-1]
    if size == 0:
        ident = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[op]
        return np.full(x.shape[:-1], ident, dtype=dtype)
    if order == "pairwise":
        while x.shape[-1] > 1:
            half = x.shape[-1] // 2
            paired = f(x[..., 0:2 * half:2], x[..., 1:2 * half:2]).astype(dtype)
            x = np.concatenate([paired, x[..., 2 * half:]], axis=-1) if x.shape[-1] % 2 else paired
        return x[..., 0]
    if order == "blocked":
        blocks = [_acc(x[..., i:i + BLOCK], -1, op, dtype, "sequential") for i in range(0, size, BLOCK)]
        return _acc(np.stack(blocks, axis=-1), -1, op, dtype, "sequential")
    idx = range(size) if order == "sequential" else range(size - 1, -1, -1)
    acc = None
    for i in idx:
        acc = x[..., i] if acc is None else f(acc, x[..., i]).astype(dtype)
    return acc


def simulate(formula, layout: Layout, inputs: dict, attributes: dict, dtype, order: str = "sequential",
             *, tensor_dtype=None):
    """The formula as a kernel computes it: inputs converted to ``dtype``, each operation rounded
    to ``dtype``, reductions in ``order``. The result is over the space (reduced labels size 1)."""
    dtype = np.dtype(dtype)
    placed = {name: layout.place(name, np.asarray(a).astype(dtype)) for name, a in inputs.items()}
    for name in layout.absent:
        placed[name] = layout.place(name, np.zeros((), dtype)).astype(dtype)

    def go(node):
        with np.errstate(all="ignore"):
            if isinstance(node, n.Var):
                return dtype.type(attributes[node.name]) if node.kind == "attribute" else placed[node.name]
            if isinstance(node, n.Num):
                return dtype.type(node.value)
            if isinstance(node, n.Const):
                return dtype.type(_const(node.name))
            if isinstance(node, n.Count):
                return dtype.type(layout.count(node.over))
            if isinstance(node, n.TensorCast):
                v = np.asarray(go(node.operand))
                return v if tensor_dtype is None else v.astype(tensor_dtype).astype(dtype)
            if isinstance(node, n.Unary):
                v = go(node.operand)
                return -v if node.op == "-" else v
            if isinstance(node, n.Binary):
                a, b = go(node.left), go(node.right)
                return np.asarray({"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[node.op](a, b)).astype(dtype)
            if isinstance(node, n.Reduce):
                x = np.asarray(go(node.operand))
                axes = layout.axes(layout.sets[node.over])
                shape = list(np.broadcast_shapes(x.shape, (1,) * len(layout.labels)))
                for ax in axes:
                    shape[ax] = layout.sizes[layout.labels[ax]]
                x = np.broadcast_to(x, shape)
                for ax in sorted(axes, reverse=True):
                    x = np.expand_dims(_acc(x, ax, node.op, dtype, order), ax)
                return x
            if isinstance(node, n.Call):
                args = [go(a) for a in node.args]
                return np.asarray(FUNCTIONS[node.func].numpy(*args)).astype(dtype)
        raise ValueError(f"{type(node).__name__} is not supported over an index space")

    return go(formula)
