"""The ``tensorflow`` adapter: TensorFlow's functions (tf.nn, tf.math) on its CPU kernels, eager,
only where their semantics are a subset of a spec. The mapping is data:
specgen/adapters/tensorflow_ops.yaml (the format of every framework adapter,
specgen.adapters.framework_ops); claims are probed per entry and dtype at load
(specgen.adapters.framework_adapter). TensorFlow's log noise is turned down before it is imported
(TF_CPP_MIN_LOG_LEVEL=2, unless already set)."""
from __future__ import annotations

import os

import numpy as np

from specgen.adapters.framework_adapter import FrameworkAdapter


def import_tensorflow():
    """tensorflow, imported with its C++ log limited to errors, on the CPU only."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.config.set_visible_devices([], "GPU")
    return tf


class TensorFlowAdapter(FrameworkAdapter):
    description = "TensorFlow CPU kernels, eager: tf.nn / tf.math functions as subsets of the specs (mapping: specgen/adapters/tensorflow_ops.yaml)"
    requires = ("tensorflow",)
    extra = "tensorflow"
    backend = "tensorflow"

    def import_module(self):
        return import_tensorflow()

    def backend_version(self) -> str:
        return f"tensorflow {self._module.__version__} (CPU, eager)"

    def to_framework(self, arr, dtype):
        return self._module.constant(arr)  # bfloat16: TensorFlow's bfloat16 is ml_dtypes'

    def to_numpy(self, value):
        return np.array(value.numpy())
