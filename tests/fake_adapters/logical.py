"""Fake adapters for the comparison and logical family (issue 23): truth-value outputs and Where,
computed the way a backend would, each class wrong in exactly one way or deliberately correct. The
kernel is the case's own formula evaluated with numpy (specgen.formula.numpy_eval), so no kernel
names an operator; a defect rewrites how one kind of formula is computed."""
from __future__ import annotations

import numpy as np

from specgen.adapters.base import Adapter, Claim
from specgen.formula.numpy_eval import evaluate

OPS = ("equal", "not_equal", "less", "greater", "logical_and", "logical_xor", "where", "is_nan", "is_inf")


def _formula(call) -> str:
    plain, _ = call.spec.resolve(call.attributes, call.standard)
    return plain.formula_text


class CorrectLogical(Adapter):
    """Correct: the formula in numpy (IEEE comparisons: NaN unordered, +0 == -0; a real select)."""

    description = "fake: comparisons, logical operators and Where, correct"

    def claims(self):
        dtypes = ("float32", "float16", "int32", "int64", "uint8", "bool")
        return [Claim(op=op, standard=std, dtypes=dtypes)
                for op in OPS if op in self.specs for std in ("onnx", "webnn") if std in self.specs[op].standards]

    def inputs(self, call) -> dict:
        return {k: np.asarray(v) for k, v in call.inputs.items()}

    def compute(self, call, formula: str, x: dict):
        plain, attrs = call.spec.resolve(call.attributes, call.standard)
        return evaluate(plain.formula, {**x, **attrs})

    def run(self, call):
        x = self.inputs(call)
        out = next(iter(call.outputs.values()))
        with np.errstate(all="ignore"):
            y = np.asarray(self.compute(call, _formula(call), x))
        shape = np.broadcast_shapes(*[v.shape for v in x.values()])
        return np.broadcast_to(y, shape).astype(out.dtype)


class NaNEqualsItself(CorrectLogical):
    """a == b compared as 'both NaN or equal': NaN == NaN gives true (and NaN != NaN false)."""

    def compute(self, call, formula, x):
        y = super().compute(call, formula, x)
        if formula in ("1 if a == b else 0", "1 if a != b else 0"):
            both = np.isnan(x["a"].astype(np.float64)) & np.isnan(x["b"].astype(np.float64))
            return np.where(both, 1 if "==" in formula else 0, y)
        return y


class ZerosCompareByBits(CorrectLogical):
    """Equality of the bit patterns: +0 == -0 gives false."""

    def compute(self, call, formula, x):
        y = super().compute(call, formula, x)
        if formula == "1 if a == b else 0" and x["a"].dtype.kind == "f":
            a, b = np.broadcast_arrays(x["a"], x["b"])
            bits = a.view(f"u{a.dtype.itemsize}") == b.view(f"u{b.dtype.itemsize}")
            return np.where(np.isnan(a.astype(np.float64)) | np.isnan(b.astype(np.float64)), 0, bits.astype(int))
        return y


class WhereConditionResized(CorrectLogical):
    """Where's condition repeated in memory order to the output's size (np.resize) instead of
    broadcast by numpy's rules: right wherever the condition has the output's shape or one element."""

    def inputs(self, call):
        x = super().inputs(call)
        if "condition" in x:
            shape = np.broadcast_shapes(*[v.shape for v in x.values()])
            x["condition"] = np.resize(x["condition"], shape)
        return x


class WhereByArithmetic(CorrectLogical):
    """Where as x * c + y * (1 - c): NaN or an infinity in the element not selected leaks into the
    output, and -0 selected becomes +0."""

    def compute(self, call, formula, x):
        if "condition" in x and x["x"].dtype.kind == "f":
            c = (x["condition"] != 0).astype(x["x"].dtype)
            return x["x"] * c + x["y"] * (1 - c)
        return super().compute(call, formula, x)


class LogicalAndBitwise(CorrectLogical):
    """And as a bitwise and of the bytes: WebNN's non-zero uint8 values other than 1 are not treated
    as true (2 & 1 = 0) nor the result kept to 0 or 1 (255 & 3 = 3)."""

    def compute(self, call, formula, x):
        if formula == "1 if a != 0 and b != 0 else 0":
            return np.bitwise_and(x["a"].astype(np.uint8), x["b"].astype(np.uint8))
        return super().compute(call, formula, x)


class IsInfIgnoringDetectNegative(CorrectLogical):
    """IsInf with detect_negative taken as 1 whatever the call passes: -inf gives true where the call
    asked for false."""

    def compute(self, call, formula, x):
        if "detect_negative" in formula:
            plain, attrs = call.spec.resolve(call.attributes, call.standard)
            return evaluate(plain.formula, {**x, **attrs, "detect_negative": 1.0})
        return super().compute(call, formula, x)
