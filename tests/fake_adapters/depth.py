"""Fake adapters for the corpus-depth tests (issue 14): integer Shrink rounded each way, and kernels
right at the default attributes but wrong at another designed attribute set or at an attribute's
boundary value. Each is a real Adapter subclass wrong in exactly one way."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from fake_adapters import FLOATS, Correct, _kernel
from specgen.adapters.base import Claim

INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _half_away(q: Fraction) -> int:
    m = math.floor(abs(q) + Fraction(1, 2))  # exact: math.copysign would go through float
    return -m if q < 0 else m


ROUNDINGS = {"trunc": int, "nearest_even": round, "half_away": _half_away}


class IntegerShrink(Correct):
    """Integer Shrink computed exactly and truncated (ONNX's reference: astype): correct."""

    description = "fake: integer shrink, truncation"
    rounding = "trunc"

    def claims(self):
        return [Claim(op="shrink", standard=std, dtypes=INTS, in_place=True, strided=True, rejects=True)
                for std in ("onnx", "directml")]

    def compute(self, call, x):
        t, b = Fraction(call.attributes["threshold"]), Fraction(call.attributes["bias"])
        lo, hi = np.iinfo(x.dtype).min, np.iinfo(x.dtype).max
        rnd = ROUNDINGS[self.rounding]
        out = []
        for v in x.ravel().tolist():
            q = Fraction(v)
            if call.standard == "onnx":
                r = q + b if q < -t else q - b if q > t else Fraction(0)
            else:
                r = q - b if q > t else q + b if q < -t else Fraction(0)
            out.append(min(max(rnd(r), lo), hi))
        return np.array(out, dtype=object).astype(x.dtype).reshape(x.shape)


class IntegerShrinkNearestEven(IntegerShrink):
    """Round-to-nearest-even: the spec's other accepted rounding; correct."""

    rounding = "nearest_even"


class IntegerShrinkHalfAway(IntegerShrink):
    """Rounds halves away from zero (8 - 3.5 -> 5): within 1 of the exact value, but neither
    accepted rounding; wrong only where x - bias ends in .5."""

    rounding = "half_away"


class _AttributeDefect(Correct):
    """Correct except where ``wrong(attributes)`` holds; there the kernel runs with ``alter``."""

    description = "fake: attribute defect"

    def claims(self):
        return [Claim(op=op, standard=std, dtypes=FLOATS, in_place=True, strided=True, rejects=True)
                for op in self.ops for std in ("onnx", "directml")]

    def wrong(self, attributes) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def alter(self, attributes) -> dict:  # pragma: no cover - overridden
        raise NotImplementedError

    def compute(self, call, x):
        a = dict(call.attributes)
        if self.wrong(a):
            a = self.alter(a)
        with np.errstate(all="ignore"):
            return _kernel(call.op, x, a, standard=call.standard)


class NegativeAttributeAsAbs(_AttributeDefect):
    """Takes |attribute| (a kernel that assumes a non-negative threshold or slope): right at the
    defaults (all non-negative), wrong at every designed set with a negative attribute."""

    def wrong(self, a):
        return any(v < 0 for v in a.values())

    def alter(self, a):
        return {k: abs(v) for k, v in a.items()}


class ZeroAttributeMeansDefault(_AttributeDefect):
    """Reads an attribute of exactly 0 as "not set" and uses the ONNX default (a protobuf-style
    bug): right at the defaults, wrong where a designed set has a zero attribute that is not its
    default."""

    DEFAULTS = {"alpha": 0.2, "beta": 0.5, "bias": 0.0, "threshold": 0.5}

    def wrong(self, a):
        return any(v == 0 and self.DEFAULTS.get(k, 0) != 0 for k, v in a.items())

    def alter(self, a):
        return {k: (float(np.float32(self.DEFAULTS[k])) if v == 0 and k in self.DEFAULTS else v) for k, v in a.items()}


class HugeAttributeSaturates(_AttributeDefect):
    """Clamps attributes to +-65504 (a kernel that stores them as float16 with saturation): right
    at every ordinary set, wrong only at an attribute's huge boundary value."""

    def wrong(self, a):
        return any(abs(v) > 65504 for v in a.values())

    def alter(self, a):
        return {k: float(np.clip(v, -65504, 65504)) for k, v in a.items()}


class WebNNChecksTensorsOnly(Correct):
    """WebNN hardSigmoid/elu-style: checks dtypes, ranks and shapes but passes NaN and infinite
    options through (as an ``unrestricted double`` would): wrong only on the attribute-nonfinite cases."""

    ops = ("hard_sigmoid",)

    def claims(self):
        return [Claim(op=op, standard="webnn", dtypes=FLOATS, rejects=True) for op in self.ops]


class WebNNRejectsNonFinite(WebNNChecksTensorsOnly):
    """The same with WebIDL ``double`` options: NaN and +-inf throw. Correct."""

    def accepts(self, call):
        return super().accepts(call) and all(math.isfinite(v) for v in call.attributes.values())

    def run(self, call):
        if not all(math.isfinite(v) for v in call.attributes.values()):
            from specgen.adapters.base import Rejected
            raise Rejected("TypeError: not a finite double")
        return super().run(call)
