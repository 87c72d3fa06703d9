"""The ``openvino`` adapter: one-node ONNX models at the opset of each version, read by OpenVINO's
ONNX frontend and compiled for its CPU plugin.

Route: OpenVINO imports ONNX itself (``Core.read_model`` on the serialized model), so the models
are the ones onnxruntime and the reference evaluator run (specgen/adapters/onnx_common.py).
The CPU plugin refuses a dynamic rank, so each model has the call's rank with dynamic dimensions
and is compiled once per (op, opset, dtype, attributes, ranks).

Precision: ``INFERENCE_PRECISION_HINT`` is pinned to f32. Left alone, the CPU plugin runs float32
graphs in bf16 (or f16) on CPUs with AMX/avx512_bf16, which would test the CPU rather than the
kernels; with f32 a float32 model runs in float32 everywhere. float16/bfloat16 models keep their
own types (the hint only lowers f32). ``NUM_STREAMS`` 1 and ``INFERENCE_NUM_THREADS`` 1: a
single-case, single-thread run, like the other adapters.

Claims: each (op, opset, dtype) the specs list is tried once on a tiny input (ProbedOnnxClaims);
what the ONNX frontend or the CPU plugin does not take stays unclaimed with its error. Must-reject
cases: ONNX's strict checker, then OpenVINO compiling the model for the exact shapes.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from specgen.adapters.base import Adapter, Claim, Rejected
from specgen.adapters.onnx_common import ProbedOnnxClaims, accepts_dense_model, call_key, model_for_call

#: Compiled models kept at once: each holds its own executor threads (about two), so caching every
#: model of the corpus (about 2400) would leave thousands of threads and a process that takes
#: minutes to exit; the corpus comes op by op, so a small LRU misses little.
MAX_COMPILED = 32

#: The CPU plugin's configuration (see the module docstring for why).
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": "1", "INFERENCE_NUM_THREADS": "1"}


def _ov_error(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip() and not ln.strip().startswith("Exception from")]
    return f"{type(exc).__name__}: {' '.join(lines)[:240]}"


class OpenVINOAdapter(ProbedOnnxClaims, Adapter):
    description = "OpenVINO CPU plugin (f32 inference precision), one-node ONNX models through its ONNX frontend"
    requires = ("openvino", "onnx")
    extra = "openvino"
    probe_rank = 2  # the CPU plugin refuses a dynamic rank

    def __init__(self):
        import openvino

        self._ov = openvino
        self._core = openvino.Core()
        self._compiled: OrderedDict = OrderedDict()
        self._unclaimed: dict[tuple, str] = {}
        self._claims: list[Claim] | None = None

    def backend_version(self) -> str:
        import onnx

        return f"openvino {self._ov.__version__} (CPU, {', '.join(f'{k}={v}' for k, v in CPU_CONFIG.items())}), onnx {onnx.__version__}"

    def _compile(self, model):
        read = self._core.read_model(model.SerializeToString(), b"")
        return self._core.compile_model(read, "CPU", CPU_CONFIG)

    # -- tensors: bfloat16 goes by its bits (OpenVINO's Python API shows bf16 memory as float16) --
    def _tensor(self, arr: np.ndarray):
        ov = self._ov
        arr = np.require(arr, requirements="C")
        if arr.dtype.name == "bfloat16":
            t = ov.Tensor(ov.Type.bf16, ov.Shape(list(arr.shape)))
            t.data.view(np.uint16)[...] = arr.view(np.uint16)
            return t
        return ov.Tensor(arr)  # a copy: the call's input buffers stay untouched

    def _numpy(self, t) -> np.ndarray:
        if t.element_type == self._ov.Type.bf16:
            import ml_dtypes

            return t.data.view(np.uint16).view(ml_dtypes.bfloat16).copy()
        return np.array(t.data, copy=True)

    def _infer(self, compiled, feeds: dict):
        req = compiled.create_infer_request()
        req.infer({name: self._tensor(a) for name, a in feeds.items()})
        return [self._numpy(req.get_output_tensor(i)) for i in range(len(compiled.outputs))]

    # -- claims (probed once per (op, opset, dtype); see ProbedOnnxClaims) ---------------------
    def _probe_once(self, model, feeds):
        return self._infer(self._compile(model), feeds)[0]

    def _probe_error(self, exc):
        return f"openvino: {_ov_error(exc)}"

    # -- running --------------------------------------------------------------------------
    def _cached(self, call):
        key = call_key(call, ranked=True)
        hit = self._compiled.get(key)
        if hit is not None:
            self._compiled.move_to_end(key)
            return hit
        model, in_names, out_names = model_for_call(call, ranked=True)
        try:
            compiled = self._compile(model)
        except Exception as exc:
            raise Rejected(f"openvino: {_ov_error(exc)}") from exc
        hit = self._compiled[key] = (compiled, in_names, out_names)
        while len(self._compiled) > MAX_COMPILED:
            self._compiled.popitem(last=False)
        return hit

    def run(self, call):
        compiled, in_names, _ = self._cached(call)
        with np.errstate(all="ignore"):
            results = self._infer(compiled, {std: call.inputs[n] for std, n in zip(in_names, call.inputs)})
        return dict(zip(call.outputs, results))

    def accepts(self, call):
        return accepts_dense_model(call, self._compile)

    def close(self):
        self._compiled.clear()
