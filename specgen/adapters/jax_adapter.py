"""The ``jax`` adapter: JAX's functions (jax.nn, jax.numpy) on XLA's CPU kernels, only where their
semantics are a subset of a spec. The mapping is data: specgen/adapters/jax_ops.yaml (the format of
every framework adapter, specgen.adapters.framework_ops); claims are probed per entry and dtype at
load (specgen.adapters.framework_adapter).

float64 needs JAX's ``jax_enable_x64`` flag: the adapter sets it when it loads (without it, JAX
silently computes float64 inputs in float32). The CPU device is forced (``jax_platforms=cpu``)."""
from __future__ import annotations

import numpy as np

from specgen.adapters.framework_adapter import FrameworkAdapter


class JaxAdapter(FrameworkAdapter):
    description = "JAX on XLA's CPU kernels: jax.nn / jax.numpy functions as subsets of the specs (mapping: specgen/adapters/jax_ops.yaml)"
    requires = ("jax",)
    extra = "jax"
    backend = "jax"
    # XLA compiles a kernel per shape: element-wise cases run on 1-D arrays padded to a power of two,
    # so a few kernels serve the corpus (its 20,000 element-wise cases took 40+ minutes otherwise)
    flatten = True

    def import_module(self):
        import jax

        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
        return jax

    def backend_version(self) -> str:
        import jaxlib

        return f"jax {self._module.__version__}, jaxlib {jaxlib.__version__} (CPU, jax_enable_x64)"

    def to_framework(self, arr, dtype):
        return self._module.numpy.asarray(arr)

    def to_numpy(self, value):
        return np.array(value)  # a writable copy
