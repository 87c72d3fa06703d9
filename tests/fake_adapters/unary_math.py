"""Fake adapters for the unary math family (issue 23): Round, Sin, Atanh, Acosh (with DirectML's
ScaleBias) and Floor computed the way a backend would, each class wrong in exactly one way or deliberately
correct. The function to compute comes from the case's own formula text (call.spec), so the
kernels name no operator."""
from __future__ import annotations

import numpy as np

from fake_adapters import FLOATS, Correct
from specgen.adapters.base import Claim

OPS = ("round_even", "sin", "floor", "atanh", "acosh")


def _function(call) -> str:
    """The one function the operator's formula calls (round, sin, floor)."""
    return call.spec.formula_text.split("(")[0]


def _scale_bias(call, x):
    """DirectML's g(x) = x * scale + bias in float64 (the call's ScaleBias; identity elsewhere): the
    golden values' exact g; a float32 g overflows where |x * scale| > FLT_MAX, and sin(inf) is NaN."""
    a = call.attributes
    scale, bias = float(a.get("scale", 1.0)), float(a.get("bias", 0.0))
    x = x.astype(np.float64)
    if scale == 1 and bias == 0:
        return x
    return x * scale + bias


def _half_away(v):
    return np.copysign(np.floor(np.abs(v) + 0.5), v)


def _sin_cody_waite_float32(v):
    """sin after a one-constant range reduction in float32 (r = v - k * float32(2 pi)): fine near 0,
    garbage once k * 2 pi is large (no extra precision for pi)."""
    two_pi = np.float32(2 * np.pi)
    k = np.rint(v / two_pi).astype(np.float32)
    r = (v - (k * two_pi).astype(np.float32)).astype(np.float32)
    return np.sin(r.astype(np.float64))


class CorrectUnaryMath(Correct):
    """Correct: ScaleBias in float32 first, then the function in float64, rounded once."""

    description = "fake: unary math, correct"
    standards = ("onnx", "directml", "onednn")

    def claims(self):
        return [Claim(op=op, standard=std, dtypes=FLOATS, in_place=True, strided=True, rejects=True)
                for op in OPS for std in self.standards if std in self.specs[op].standards]

    def function(self, name):
        return {"round": np.rint, "sin": np.sin, "floor": np.floor, "atanh": np.arctanh, "acosh": np.arccosh}[name]

    def compute(self, call, x):
        with np.errstate(all="ignore"):
            v = _scale_bias(call, x)
            return self.function(_function(call))(v).astype(x.dtype)


class FaithfulFloat32Sin(CorrectUnaryMath):
    """sin computed by numpy's float32 sin (a faithful libm, within a few ULP): passes."""

    def function(self, name):
        return (lambda v: np.sin(v.astype(np.float32))) if name == "sin" else super().function(name)


class RoundHalfAwayFromZero(CorrectUnaryMath):
    """C's round(): halves away from zero (2.5 -> 3), where every standard says halves to even."""

    def function(self, name):
        return _half_away if name == "round" else super().function(name)


class ScaleBiasAfterTheFunction(CorrectUnaryMath):
    """DirectML's ScaleBias applied to the result (scale * f(x) + bias) instead of the input."""

    def compute(self, call, x):
        a = call.attributes
        scale, bias = np.float32(a.get("scale", 1.0)), np.float32(a.get("bias", 0.0))
        with np.errstate(all="ignore"):
            y = self.function(_function(call))(x.astype(np.float64)).astype(np.float32)
            return ((y * scale).astype(np.float32) + bias).astype(x.dtype)


class ScaleBiasRoundedInTheTensorType(CorrectUnaryMath):
    """DirectML's ScaleBias computed as a shader does, x * scale + bias rounded in the tensor's type
    (float32 scale and bias), then the function in float64, rounded once: at atanh's pole the rounded
    argument is -1 (bias 1e-45) and the result -inf where the exact argument gives -52."""

    def compute(self, call, x):
        a = call.attributes
        t = x.dtype if x.dtype.kind == "f" else np.float32
        with np.errstate(all="ignore"):
            scale, bias = np.asarray(a.get("scale", 1.0)).astype(t), np.asarray(a.get("bias", 0.0)).astype(t)
            v = ((x.astype(t) * scale).astype(t) + bias).astype(t)
            return self.function(_function(call))(v.astype(np.float64)).astype(x.dtype)


class SinBadRangeReduction(CorrectUnaryMath):
    """sin with a float32 one-constant range reduction: wrong for large arguments."""

    def function(self, name):
        return _sin_cody_waite_float32 if name == "sin" else super().function(name)
