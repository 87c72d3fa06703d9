"""Fake adapters for attributes passed as optional input tensors (issue 23: ONNX Clip-11's min and
max) or left out of an options dictionary (WebNN clamp's minValue, maxValue): a clamp that reads absent bounds as the version's absent_defaults says (correct), and one that
reads an absent max as 0 (a kernel ignoring that the input is missing)."""
from __future__ import annotations

import numpy as np

from specgen.adapters.base import Adapter, Claim


class CorrectBounds(Adapter):
    description = "fake: clamp with optional bound inputs, correct"
    absent_max = None  # None: the version's absent default

    def claims(self):
        return [Claim(op="clip", standard="onnx", versions=("11", "12", "13"), dtypes=("float32", "int32")),
                Claim(op="clip", standard="webnn", dtypes=("float32",))]  # WebNN clamp: absent options

    def run(self, call):
        x = np.asarray(call.x)
        version = call.spec.standards[call.standard].version(call.version)
        absent = version.absent_values(call.dtype)
        given = set(call.attributes_given)
        lo = call.attributes["min_value"] if "min_value" in given else absent["min_value"]
        hi = call.attributes["max_value"] if "max_value" in given else (
            absent["max_value"] if self.absent_max is None else self.absent_max)
        with np.errstate(all="ignore"):
            y = np.minimum(np.maximum(x.astype(np.float64), lo), hi)
        return y.astype(x.dtype)


class AbsentMaxAsZero(CorrectBounds):
    description = "fake: clamp reading an absent max input as 0"
    absent_max = 0.0
