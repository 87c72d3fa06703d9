"""Fake adapters for the accumulating operators: each a kernel a backend might have, computed from
the spec's formula by the index engine (specgen.indexing.evaluate.simulate) in one accumulation
type and summation order, some deliberately wrong. They claim every ONNX version and float dtype of
the accumulating specs and run must-reject cases through the index space's shape rules."""
from __future__ import annotations

import numpy as np

from specgen.adapters.base import Adapter, Claim, Rejected
from specgen.indexing.evaluate import simulate
from specgen.indexing.layout import ShapeViolation
from specgen.indexing.reference import layout_of
from specgen.spec.operators import accumulating


class _Kernel(Adapter):
    compute = "float32"      # the accumulation type
    order = "sequential"     # the summation order

    def claims(self):
        return [Claim(op=op, standard="onnx", versions=tuple(v.version for v in s.standards["onnx"].versions),
                      dtypes=("float16", "float32"), rejects=True)
                for op, s in accumulating(self.specs).items() if "onnx" in s.standards]

    def accepts(self, call):
        try:
            layout_of(call.spec, call.standard, call.version, {k: v.shape for k, v in call.inputs.items()},
                      call.attributes)
        except ShapeViolation:
            return False
        return None

    def _result(self, call):
        spec = call.spec
        try:
            layout = layout_of(spec, call.standard, call.version, {k: v.shape for k, v in call.inputs.items()},
                               call.attributes)
        except ShapeViolation as exc:
            raise Rejected(str(exc)) from exc
        with np.errstate(all="ignore"):
            value = simulate(spec.formula, layout, dict(call.inputs), call.attributes, np.dtype(self.compute),
                             self.order, tensor_dtype=np.dtype(call.dtype))
            return {o: layout.arrange(o, value).astype(call.dtype) for o in spec.outputs}

    def run(self, call):
        return self._result(call)


class Sequential(_Kernel):
    pass


class Pairwise(_Kernel):
    order = "pairwise"


class Reversed(_Kernel):
    order = "reversed"


class HalfAccumulator(_Kernel):
    """float16 accumulation: reported where the standard leaves the type unspecified, a failure where it
    requires float32 (LayerNormalization-17's stash_type)."""
    compute = "float16"


class KeepdimsIgnored(_Kernel):
    """Drops every size-1 dimension of the result (keepdims ignored)."""

    def run(self, call):
        return {k: np.squeeze(v) for k, v in self._result(call).items()}
