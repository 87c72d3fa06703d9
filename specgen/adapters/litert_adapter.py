"""The ``litert`` adapter: LiteRT (formerly TensorFlow Lite; the runtime behind Chromium's WebNN CPU
path) running one-function models built in memory. Each mapped TensorFlow function
(specgen/adapters/tensorflow_ops.yaml, the tensorflow adapter's mapping) is traced as a
``tf.function`` over a 1-D input of unknown length, with the case's attribute values as constants,
converted by ``tf.lite.TFLiteConverter`` to LiteRT builtin operators only (no TensorFlow fallback
ops, no optimisation or quantisation), and run by ``ai_edge_litert.interpreter.Interpreter`` on the
CPU (its builtin kernels; XNNPACK is the interpreter's default delegate for float32).

Models are cached per (entry, dtype, attribute values); inputs cross as 1-D arrays padded to a
power of two (``flatten``), the interpreter is resized to that length. Claims are probed per entry
and dtype (specgen.adapters.framework_adapter): what does not convert to builtins or does not run
stays unclaimed with LiteRT's or the converter's error.
"""
from __future__ import annotations

import numpy as np

from specgen.adapters.framework_adapter import FrameworkAdapter
from specgen.adapters.framework_ops import resolve
from specgen.adapters.tensorflow_adapter import import_tensorflow


class LiteRTAdapter(FrameworkAdapter):
    description = ("LiteRT interpreter (ai-edge-litert) on CPU: TensorFlow functions converted to one-op "
                   "LiteRT models in memory (mapping: specgen/adapters/tensorflow_ops.yaml)")
    requires = ("ai_edge_litert", "tensorflow")
    extra = "litert"
    backend = "litert"
    mapping_name = "tensorflow"
    flatten = True

    def import_module(self):
        from ai_edge_litert import interpreter

        self._interpreter = interpreter
        self._models: dict = {}
        return import_tensorflow()

    def backend_version(self) -> str:
        from importlib.metadata import version

        return (f"ai-edge-litert {version('ai-edge-litert')} interpreter (CPU), models converted by "
                f"tensorflow {self._module.__version__}")

    def to_framework(self, arr, dtype):
        return arr

    def to_numpy(self, value):
        return value

    def _convert(self, entry, dtype, kwargs):
        tf = self._module
        fn = resolve(tf, entry.call)
        tf_dtype = getattr(tf, dtype)

        @tf.function(input_signature=[tf.TensorSpec([None], tf_dtype, name="x")])
        def model(x):
            return fn(x, **kwargs)

        concrete = model.get_concrete_function()
        converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], model)
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
        content = converter.convert()
        interp = self._interpreter.Interpreter(model_content=content, num_threads=1)
        interp.allocate_tensors()
        return interp

    def function(self, entry, call):
        kwargs = entry.kwargs(call.attributes)
        key = (entry.op, entry.call, call.dtype, tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
        interp = self._models.get(key)
        if interp is None:
            interp = self._models[key] = self._convert(entry, call.dtype, kwargs)

        def run(x, **_):  # the attribute values are constants of the converted model
            (inp,), (out,) = interp.get_input_details(), interp.get_output_details()
            if list(inp["shape"]) != list(x.shape):
                interp.resize_tensor_input(inp["index"], list(x.shape))
                interp.allocate_tensors()
                (inp,), (out,) = interp.get_input_details(), interp.get_output_details()
            interp.set_tensor(inp["index"], x)
            interp.invoke()
            return np.array(interp.get_tensor(out["index"]))
        return run

    def close(self):
        self.__dict__.get("_models", {}).clear()
