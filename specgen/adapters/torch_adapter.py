"""The ``torch`` adapter: native torch.nn.functional functions, only where their semantics are a
subset of a spec.

- ``hardsigmoid`` is HardSigmoid with alpha = 1/6, beta = 0.5. 1/6 is not a float32 value: the
  attribute a standard stores is float32(1/6) = 0.16666667163372040, so the claim is for
  alpha == float32(1/6) (``Values(1/6)`` rounds the same way) and beta == 0.5. torch does not
  multiply by that float32; its CPU kernel computes min(max(x + 3, 0), 6) / 6. The two
  differ by |x| * 5e-9 at most, and whether that difference is inside the bound is for the error
  model to judge, case by case: no tolerance is loosened for torch. (It is, in float16 and
  bfloat16; it is not in float32 and float64: see docs/runner.md.)
- ``softsign`` is Softsign (x / (1 + |x|)).
- ``softshrink(lambd)`` is Shrink with bias == threshold == lambd (lambd >= 0, torch refuses < 0).
- ``hardshrink(lambd)`` is Shrink with bias == 0 and threshold == lambd.

All standards are claimed (the formula is the same in each); attribute limits pick the cases.
torch applies no standard's validity rules, so no must-reject cases are claimed.
"""
from __future__ import annotations

from specgen.adapters.base import Adapter, AllOf, Claim, Range, SameAs, Unsupported, Values

FLOATS = ("float32", "float64", "float16", "bfloat16")


class TorchAdapter(Adapter):
    description = "PyTorch CPU: hardsigmoid, softsign, softshrink/hardshrink as spec subsets"
    requires = ("torch",)
    extra = "torch"

    def __init__(self):
        import torch

        self._torch = torch

    def backend_version(self) -> str:
        return f"torch {self._torch.__version__} (CPU)"

    def claims(self):
        common = dict(standard="*", versions=("*",), dtypes=FLOATS, rejects=False, strided=True, in_place=True)
        return [
            Claim(op="hard_sigmoid", attributes={"alpha": Values(1 / 6), "beta": Values(0.5)},
                  note="torch.nn.functional.hardsigmoid: (x+3)/6 clamped; alpha = float32(1/6), beta = 0.5", **common),
            Claim(op="softsign", note="torch.nn.functional.softsign", **common),
            Claim(op="shrink", attributes={"bias": Values(0.0)},
                  note="torch.nn.functional.hardshrink(lambd=threshold)", **common),
            Claim(op="shrink", attributes={"bias": AllOf(SameAs("threshold"), Range(0.0, None))},
                  note="torch.nn.functional.softshrink(lambd=threshold)", **common),
        ]

    def _tensor(self, arr):
        import numpy as np

        torch = self._torch
        if arr.dtype.name == "bfloat16":
            return torch.from_numpy(np.require(arr, requirements="C").view(np.uint16).astype(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(arr)  # keeps strides (non-contiguous views stay views)

    def _numpy(self, t):
        import ml_dtypes

        if t.dtype == self._torch.bfloat16:
            return t.contiguous().view(self._torch.int16).numpy().view(ml_dtypes.bfloat16)
        return t.numpy()

    def run(self, call):
        F = self._torch.nn.functional
        x = self._tensor(call.x)
        a = call.attributes
        if call.op == "hard_sigmoid":
            fn = lambda t: F.hardsigmoid(t)  # noqa: E731
        elif call.op == "softsign":
            fn = F.softsign
        elif call.op == "shrink" and a.get("bias", 0.0) == 0.0:
            fn = lambda t: F.hardshrink(t, lambd=a["threshold"])  # noqa: E731
        elif call.op == "shrink" and a.get("bias") == a.get("threshold"):
            fn = lambda t: F.softshrink(t, lambd=a["threshold"])  # noqa: E731
        else:
            raise Unsupported(f"torch has no {call.op} with attributes {a}")
        y = fn(x)
        if call.in_place:
            out = next(iter(call.out.values()))
            if out.dtype.name == "bfloat16":
                out[...] = self._numpy(y)
            else:
                self._tensor(out).copy_(y)
            return None
        return self._numpy(y)
