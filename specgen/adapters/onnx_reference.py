"""The ``onnx-reference`` adapter: onnx.reference.ReferenceEvaluator on one-node models.

Claims every (op, opset, dtype) the evaluator runs on a tiny input at load (the others are
unsupported with the evaluator's error). Must-reject cases: ONNX's strict checker decides.
"""
from __future__ import annotations

import numpy as np

from specgen.adapters.base import Adapter, Claim
from specgen.adapters.onnx_common import build_model, check_model_strict, model_for_call, onnx_specs, sample_input


class OnnxReferenceAdapter(Adapter):
    description = "onnx.reference.ReferenceEvaluator (the ONNX package's Python reference)"
    requires = ("onnx",)
    extra = "onnx"

    def __init__(self):
        self._evaluators: dict = {}
        self._unclaimed: dict[tuple, str] = {}
        self._claims = None

    def backend_version(self) -> str:
        import onnx

        return f"onnx {onnx.__version__} ReferenceEvaluator"

    def claims(self):
        if self._claims is not None:
            return self._claims
        from onnx.reference import ReferenceEvaluator

        claims = []
        for spec, std in onnx_specs():
            x_name = std.tensors[spec.inputs[0].name].name
            y_name = std.tensors[spec.outputs[0].name].name
            for v in std.versions:
                works = []
                for dtype in v.dtypes():
                    model = build_model(std.operator, std.domain, int(v.version), [x_name], [y_name],
                                        {x_name: dtype, y_name: dtype}, {})
                    try:
                        x = sample_input(dtype)
                        with np.errstate(all="ignore"):
                            out = ReferenceEvaluator(model).run(None, {x_name: x})[0]
                        if np.asarray(out).dtype != x.dtype:
                            raise TypeError(f"returned {np.asarray(out).dtype} for {x.dtype} input")
                        works.append(dtype)
                    except Exception as exc:
                        self._unclaimed[(spec.id, "onnx", v.version, dtype)] = \
                            f"ReferenceEvaluator: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
                if works:
                    claims.append(Claim(op=spec.id, standard="onnx", versions=(v.version,), dtypes=tuple(works),
                                        rejects=True))
        self._claims = claims
        return claims

    def why_unclaimed(self, op, standard, version, dtype):
        return self._unclaimed.get((op, standard, str(version), dtype))

    def run(self, call):
        from onnx.reference import ReferenceEvaluator

        key = (call.op, call.version, call.dtype, tuple(sorted((k, repr(v)) for k, v in call.std_attributes(True).items())))
        hit = self._evaluators.get(key)
        if hit is None:
            model, in_names, out_names = model_for_call(call)
            hit = self._evaluators[key] = (ReferenceEvaluator(model), in_names, out_names)
        ev, in_names, out_names = hit
        feeds = {std: np.require(call.inputs[n], requirements="C") for std, n in zip(in_names, call.inputs)}
        with np.errstate(all="ignore"):
            results = ev.run(out_names, feeds)
        return {n: np.asarray(r) for n, r in zip(call.outputs, results)}

    def accepts(self, call):
        if any(s is not None for s in call.strides.values()):
            return False  # ONNX tensors are dense: there is no way to pass strides
        model, _, _ = model_for_call(call, concrete=True)
        return False if check_model_strict(model) is not None else None
