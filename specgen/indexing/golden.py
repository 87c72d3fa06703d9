"""Correctly rounded values of a formula over an index space: each output element is the exact
value rounded once to the output type.

A float64 enclosure (``evaluate.enclose`` with numpy's own error bounds) decides every element whose
enclosure rounds to one value of the output type; the rest are computed in mpmath on the element's
fiber (its inputs along the reduced labels) with enough bits that sums of floats are exact. An
element whose fiber holds NaN or an infinity, or is empty, gets the IEEE evaluation (the formula's
literal outcome: a NaN anywhere gives NaN, +inf + -inf gives NaN, max(x, +inf) is +inf, an empty
sum 0, an empty maximum -inf, an empty mean 0 / 0 = NaN), except where that is a finite nonzero
number and the fiber holds no NaN: there the exact value with the infinities (mpmath's, exp(-inf)
= 0) rounded once, as for a finite fiber; float64's own evaluation of it is an ULP off, by libm.
"""
from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np

from specgen import dtypes
from specgen.formula import nodes as n
from specgen.formula.functions import FUNCTIONS
from specgen.indexing.evaluate import Rounding, _const, enclose, simulate
from specgen.indexing.layout import Layout
from specgen.numerics import ulp as U

GOLDEN_ROUNDING = Rounding(rel=2.0 ** -53, eta=2.0 ** -1074,
                           function_error=lambda name, v: FUNCTIONS[name].libm_rel * np.abs(v))


def reduced_labels(formula, layout: Layout) -> set[str]:
    return {label for node in n.walk(formula) if isinstance(node, n.Reduce) for label in layout.sets[node.over]}


def _bits(inputs) -> int:
    widest = max((dtypes.by_numpy(np.asarray(a).dtype).bits for a in inputs.values()), default=32)
    return 700 if widest <= 32 else 4400


def _real(v):
    """A complex mpmath result (log or sqrt of a negative) is the real formula's NaN."""
    return mpmath.mpf("nan") if isinstance(v, mpmath.mpc) else v


def _mp_eval(formula, layout: Layout, fiber: dict, attributes: dict):
    def go(node):
        if isinstance(node, n.Var):
            return mpmath.mpf(float(attributes[node.name])) if node.kind == "attribute" else fiber[node.name]
        if isinstance(node, n.Num):
            return mpmath.mpf(node.exact.numerator) / node.exact.denominator
        if isinstance(node, n.Const):
            return {"pi": mpmath.pi, "e": mpmath.e}.get(node.name, mpmath.mpf(_const(node.name)))
        if isinstance(node, n.Count):
            return mpmath.mpf(layout.count(node.over))
        if isinstance(node, n.TensorCast):
            return go(node.operand)  # exact values: the cast is the model's concern
        if isinstance(node, n.Unary):
            v = go(node.operand)
            return -v if node.op == "-" else v
        if isinstance(node, n.Binary):
            a, b = go(node.left), go(node.right)
            return {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[node.op](a, b)
        if isinstance(node, n.Reduce):
            x = go(node.operand)
            axes = layout.axes(layout.sets[node.over])
            x = np.broadcast_to(x, np.broadcast_shapes(np.shape(x), tuple(
                layout.sizes[lab] if i in axes else 1 for i, lab in enumerate(layout.labels))))
            reducer = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[node.op]
            return reducer(x, axis=axes, keepdims=True)
        if isinstance(node, n.Call):
            fn = FUNCTIONS[node.func]
            args = [go(a) for a in node.args]
            return np.frompyfunc(lambda *xs: _real(fn.mpmath(*xs)), len(args), 1)(*args)
        raise ValueError(f"{type(node).__name__} is not supported over an index space")

    return go(formula)


def _exact_terms(formula, inputs) -> bool:
    """The formula is a sum of inputs or of products of two inputs whose float64 product is exact
    (significands of at most 26 bits: float32, float16, bfloat16): math.fsum then gives the exact
    sum rounded once to float64, no mpmath needed."""
    if not (isinstance(formula, n.Reduce) and formula.op == "sum"):
        return False
    term = formula.operand
    factors = [term] if isinstance(term, n.Var) else [term.left, term.right] if (
        isinstance(term, n.Binary) and term.op == "*") else []
    return bool(factors) and all(isinstance(f, n.Var) and f.kind == "input" for f in factors) and all(
        dtypes.by_numpy(np.asarray(a).dtype).precision * len(factors) <= 53 for a in inputs.values())


def _fsum_decides(terms: np.ndarray, out_dtype: str):
    """The exact sum of float64 ``terms`` rounded to ``out_dtype``, or None where fsum's float64
    result has neighbours that round differently (an exact midpoint: left to mpmath)."""
    r = math.fsum(terms.reshape(-1).tolist())
    lo = U.round_to(np.nextafter(r, -np.inf), out_dtype)
    hi = U.round_to(np.nextafter(r, np.inf), out_dtype)
    return lo if lo == hi else None


def golden(formula, layout: Layout, inputs: dict, attributes: dict, out_dtype: str, output: str):
    """The output ``output``'s correctly rounded values (an array of ``out_dtype``) and how many
    elements needed mpmath."""
    v, e = enclose(formula, layout, inputs, attributes, GOLDEN_ROUNDING)
    v = layout.arrange(output, np.asarray(v, dtype=np.float64))
    e = layout.arrange(output, np.asarray(e, dtype=np.float64))
    with np.errstate(all="ignore"):
        e = e + 2.0 ** -52 * np.abs(v)
        lo = U.round_to(np.nextafter(v - e, -np.inf), out_dtype)
        hi = U.round_to(np.nextafter(v + e, np.inf), out_dtype)
    out = np.array(lo, copy=True)
    undecided = ~((lo == hi) & np.isfinite(v) & np.isfinite(e))
    if not np.any(undecided):
        return _zero_signs(out, formula, layout, inputs, attributes, output), 0
    placed = {name: layout.place(name, np.asarray(a)) for name, a in inputs.items()}
    placed.update({name: layout.place(name, None) for name in layout.absent if name not in placed})  # omitted inputs
    reduced = reduced_labels(formula, layout)
    labels, _ = layout.outputs[output]
    prec = _bits(inputs)
    ieee = None
    fibers: dict = {}  # one mpmath evaluation per fiber: softmax's outputs along an axis share it
    infinite: dict = {}  # the same, with the infinities of a fiber that holds some (and no NaN): its inputs until needed
    exact_terms = _exact_terms(formula, inputs)
    for index in [tuple(int(i) for i in at) for at in np.argwhere(undecided)]:
        coord = dict(zip(labels, index))
        key = tuple((lab, coord[lab]) for lab in labels if lab not in reduced)
        if key not in fibers:
            fiber_index = tuple(slice(None) if (lab in reduced or lab not in coord) else slice(coord[lab], coord[lab] + 1)
                                for lab in layout.labels)
            fiber_in = {name: a[tuple(s if a.shape[i] > 1 else slice(0, 1) for i, s in enumerate(fiber_index))]
                        for name, a in placed.items()}
            if not all(a.size and np.all(np.isfinite(a.astype(np.float64))) for a in fiber_in.values()):
                # a NaN or an infinity, or an empty fiber (a reduction over no elements: the mean's 0 / 0):
                # the IEEE evaluation, except where it is finite and nonzero and the fiber holds no NaN
                # (softmax of a row with a -inf: exp(-inf) = 0 exactly and the rest is an exact value,
                # which float64's exp gives to an ULP that depends on the machine's libm)
                fibers[key] = None
                if all(a.size and not np.any(np.isnan(a.astype(np.float64))) for a in fiber_in.values()):
                    infinite[key] = fiber_in  # evaluated below, if an element of it needs the exact value
            elif exact_terms:
                terms = np.ones((1,) * len(layout.labels))
                for node in ([formula.operand] if isinstance(formula.operand, n.Var) else
                             [formula.operand.left, formula.operand.right]):
                    terms = terms * fiber_in[node.name].astype(np.float64)
                decided = _fsum_decides(terms, out_dtype)
                if decided is not None:
                    out[index] = decided
                    continue
            if key not in fibers:
                fibers[key] = _mp_fiber(formula, layout, fiber_in, attributes, prec)
        r = fibers[key]
        if r is None:
            if ieee is None:
                ieee = layout.arrange(output, simulate(formula, layout, inputs, attributes, np.float64, "pairwise"))
            out[index] = U.round_to(ieee[index], out_dtype)
            if key in infinite and np.isfinite(ieee[index]) and ieee[index] != 0:
                if isinstance(infinite[key], dict):
                    infinite[key] = _mp_fiber(formula, layout, infinite[key], attributes, prec)
                value = _at(infinite[key], coord, reduced, layout)
                if mpmath.isfinite(value):
                    with mpmath.workprec(prec):
                        out[index] = U.round_fraction(value, out_dtype)
            continue
        with mpmath.workprec(prec):
            out[index] = U.round_fraction(_at(r, coord, reduced, layout), out_dtype)
    return _zero_signs(out, formula, layout, inputs, attributes, output), int(np.count_nonzero(undecided))


def _mp_fiber(formula, layout: Layout, fiber_in: dict, attributes: dict, prec: int) -> np.ndarray:
    """The formula's exact values over one fiber (mpmath at ``prec`` bits; infinities kept), shaped
    to broadcast against every label of the layout."""
    with mpmath.workprec(prec):
        mp_in = {name: np.frompyfunc(lambda x: mpmath.mpf(float(x)), 1, 1)(a) for name, a in fiber_in.items()}
        r = np.asarray(_mp_eval(formula, layout, mp_in, attributes), dtype=object)
    return np.broadcast_to(r, np.broadcast_shapes(r.shape, tuple(1 for _ in layout.labels)))


def _at(r, coord: dict, reduced: set, layout: Layout):
    """The element at ``coord`` of a fiber's values (the fiber kept every reduced label whole: pick
    this element's position along those)."""
    return r[tuple(coord[lab] if lab in coord and lab in reduced and r.shape[i] > 1 else 0
                   for i, lab in enumerate(layout.labels))]


def _zero_signs(out, formula, layout: Layout, inputs: dict, attributes: dict, output: str):
    """The sign of each zero result: a rounding decides only |value| (the bound's lower end rounds
    to -0, mpmath's exact zero has no sign), so zeros take the sign IEEE arithmetic gives them: the
    float64 evaluation's where that is a zero too (-0 + -0 = -0, an empty sum +0), else +0 (x + -x)."""
    zero = out == 0
    if not np.any(zero):
        return out
    with np.errstate(all="ignore"):
        ieee = layout.arrange(output, simulate(formula, layout, inputs, attributes, np.float64, "pairwise"))
    negative = zero & (ieee == 0) & np.signbit(ieee)
    out[zero] = 0.0
    out[negative] = -0.0
    return out
