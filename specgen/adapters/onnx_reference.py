"""The ``onnx-reference`` adapter: onnx.reference.ReferenceEvaluator on one-node models.

Claims every (op, opset, dtype) the evaluator runs on a tiny input at load (the others are
unsupported with the evaluator's error). Must-reject cases: ONNX's strict checker decides.
"""
from __future__ import annotations

import numpy as np

from specgen.adapters.base import Adapter
from specgen.adapters.onnx_common import (ProbedOnnxClaims, accumulating_model, check_model_strict, is_accumulating,
                                          model_and_names, model_for_call, model_key)


class OnnxReferenceAdapter(ProbedOnnxClaims, Adapter):
    description = "onnx.reference.ReferenceEvaluator (the ONNX package's Python reference)"
    accumulating = True
    requires = ("onnx",)
    extra = "onnx"

    def __init__(self):
        self._evaluators: dict = {}
        self._unclaimed: dict[tuple, str] = {}
        self._claims = None

    def backend_version(self) -> str:
        import onnx

        return f"onnx {onnx.__version__} ReferenceEvaluator"

    def _probe_once(self, model, feeds):
        from onnx.reference import ReferenceEvaluator

        return ReferenceEvaluator(model).run(None, feeds)[0]

    def _probe_error(self, exc):
        return f"ReferenceEvaluator: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"

    def run(self, call):
        from onnx.reference import ReferenceEvaluator

        key = model_key(call)
        hit = self._evaluators.get(key)
        if hit is None:
            model, in_names, out_names = model_and_names(call)
            hit = self._evaluators[key] = (ReferenceEvaluator(model), in_names, out_names)
        ev, in_names, out_names = hit
        feeds = {std: np.require(call.inputs[n], requirements="C") for std, n in zip(in_names, call.inputs)}
        with np.errstate(all="ignore"):
            results = ev.run(out_names, feeds)
        return {n: np.asarray(r) for n, r in zip(call.outputs, results)}

    def accepts(self, call):
        if any(s is not None for s in call.strides.values()):
            return False  # ONNX tensors are dense: there is no way to pass strides
        model = accumulating_model(call, concrete=True) if is_accumulating(call) else model_for_call(call, concrete=True)[0]
        return False if check_model_strict(model) is not None else None
