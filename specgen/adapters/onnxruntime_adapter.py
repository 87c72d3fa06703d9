"""The ``onnxruntime`` adapter: one-node ONNX models at the opset of each version, run on
onnxruntime's CPUExecutionProvider.

Claims are what onnxruntime actually implements: at load, each (op, opset, dtype) the spec lists
is tried once on a tiny input; combinations that do not build or run are left unclaimed, and their
error (NOT_IMPLEMENTED, INVALID_GRAPH, ...) is the reason shown next to those unsupported cases.
Sessions are cached per (op, opset, dtype, attributes) with dynamic shapes. Must-reject cases are
answered by ONNX's own strict checker, then by onnxruntime building a session for the exact shapes.
"""
from __future__ import annotations

from specgen.adapters.base import Adapter, Claim, Rejected, Unsupported
from specgen.adapters.onnx_common import ProbedOnnxClaims, accepts_dense_model, model_and_names, model_key


def _ort_error(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:240]}"


class OnnxRuntimeAdapter(ProbedOnnxClaims, Adapter):
    description = "onnxruntime CPUExecutionProvider, one-node ONNX models per opset"
    accumulating = True
    requires = ("onnxruntime", "onnx")
    extra = "onnxruntime"

    def __init__(self):
        import onnxruntime as ort

        self._ort = ort
        self._sessions: dict = {}
        self._unclaimed: dict[tuple, str] = {}
        self._claims: list[Claim] | None = None

    def backend_version(self) -> str:
        import onnx

        return f"onnxruntime {self._ort.__version__} (CPUExecutionProvider), onnx {onnx.__version__}"

    def _options(self):
        so = self._ort.SessionOptions()
        so.log_severity_level = 3  # errors only: opset < 7 models warn on every load
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        return so

    def _session(self, model):
        return self._ort.InferenceSession(model.SerializeToString(), sess_options=self._options(),
                                          providers=["CPUExecutionProvider"])

    # -- claims (probed once per (op, opset, dtype); see ProbedOnnxClaims) ---------------------
    def _probe_once(self, model, feeds):
        return self._run(self._session(model), None, feeds)[0]

    # onnxruntime's Python binding takes no ml_dtypes float8 array (RuntimeError "Numpy_type 260 can't be
    # converted to MLDataType") and gives none back (float8e4m3fn comes back as its uint8 bits, the three
    # others raise "No corresponding Numpy type for Tensor Type"): float8 inputs go in as OrtValues of their
    # onnx element type built from their bytes, and a session with a float8 output runs on OrtValues, each
    # float8 result read from its buffer (one byte per element) as the type the session declares for it
    def _run(self, sess, out_names, feeds):
        import ctypes

        import numpy as np

        from specgen.adapters.onnx_common import DTYPE_TO_ONNX, ONNX_TYPE_STRINGS, float8_name
        from specgen.dtypes import get

        ort = self._ort
        wrapped = {}
        for name, arr in feeds.items():
            f8 = float8_name(arr.dtype)
            if f8 is not None:
                from onnx import TensorProto

                arr = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(
                    np.require(arr, requirements="C").view(np.uint8), getattr(TensorProto, DTYPE_TO_ONNX[f8]))
            wrapped[name] = arr
        types = {o.name: ONNX_TYPE_STRINGS.get(o.type) for o in sess.get_outputs()}
        names = list(out_names) if out_names is not None else list(types)
        float8 = {n: types[n] for n in names if types.get(n) is not None and float8_name(get(types[n]).numpy)}
        if not float8:
            return sess.run(out_names, wrapped)
        feeds_ov = {k: (v if isinstance(v, ort.OrtValue) else ort.OrtValue.ortvalue_from_numpy(np.require(v, requirements="C")))
                    for k, v in wrapped.items()}
        out = []
        for name, ov in zip(names, sess.run_with_ort_values(names, feeds_ov)):
            if name in float8:
                shape = tuple(ov.shape())
                count = int(np.prod(shape, dtype=np.int64))
                raw = ctypes.string_at(ov.data_ptr(), count) if count else b""
                out.append(np.frombuffer(raw, dtype=np.uint8).reshape(shape).view(get(float8[name]).numpy).copy())
            else:
                out.append(ov.numpy())
        return out

    def _probe_error(self, exc):
        return f"onnxruntime: {_ort_error(exc)}"

    # -- running --------------------------------------------------------------------------
    def _cached(self, call):
        key = model_key(call)
        hit = self._sessions.get(key)
        if hit is None:
            model, in_names, out_names = model_and_names(call)
            try:
                sess = self._session(model)
            except Exception as exc:
                text = _ort_error(exc)
                if "NOT_IMPLEMENTED" in text:
                    raise Unsupported(text) from exc
                raise Rejected(text) from exc
            hit = self._sessions[key] = (sess, in_names, out_names)
        return hit

    def run(self, call):
        import numpy as np

        sess, in_names, out_names = self._cached(call)
        feeds = {std: np.require(call.inputs[n], requirements="C") for std, n in zip(in_names, call.inputs)}
        results = self._run(sess, out_names, feeds)
        return dict(zip(call.outputs, results))

    def accepts(self, call):
        return accepts_dense_model(call, self._session)

    def close(self):
        self._sessions.clear()
