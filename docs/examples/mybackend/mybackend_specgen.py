"""The specgen adapter of MyBackend: what it claims, and one call. Registered in pyproject.toml
under the entry-point group ``specgen.adapters`` as ``mybackend``."""
from __future__ import annotations

import mybackend  # the backend: when it is missing, specgen lists the adapter as "not installed"
from specgen.adapters.base import Adapter, Claim, Values


class MyBackendAdapter(Adapter):
    description = "MyBackend CPU kernels"
    requires = ("mybackend",)
    rejection_errors = (mybackend.InvalidArgument,)  # the backend's own "illegal call" exception

    def backend_version(self):
        return f"mybackend {mybackend.__version__}"

    def claims(self):
        return [
            Claim(op="hard_sigmoid", standard="onnx", versions=("6", "22"), dtypes=("float32", "float64"),
                  rejects=True),  # must-reject cases run: the backend must refuse illegal calls
            Claim(op="shrink", standard="onnx", dtypes=("float32", "float16"),
                  ranks=(1, 8)),  # rejects=False (default): must-reject cases are unsupported
            Claim(op="hard_sigmoid", standard="webnn", attributes={"alpha": Values(1 / 6), "beta": Values(0.5)},
                  dtypes=("float32",), note="fast path only"),
        ]

    def run(self, call):
        # std_attributes(): every attribute under the standard's own names (lambd for ONNX Shrink),
        # defaults filled in; given_only=True passes only what the case gives, for a backend that
        # applies the standard's defaults itself
        operator = {"hardSigmoid": "HardSigmoid"}.get(call.operator, call.operator)
        mybackend.run(operator, call.inputs["x"], call.out["y"], **call.std_attributes())
        return None  # the result is in call.out
