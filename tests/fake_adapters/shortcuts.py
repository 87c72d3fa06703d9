"""Softplus kernels with the shortcuts and early overflows that the corpus's ``thresholds`` cases
exist to catch (issue 19 item 5), and the stable kernel they are measured against. ONNX Softplus
(y = log(1 + exp(x))) in float32 and float64, every operation rounded to the tensor's type."""
from __future__ import annotations

import numpy as np

from specgen.adapters.base import Adapter, Claim


def stable_softplus(x: np.ndarray) -> np.ndarray:
    """max(x, 0) + log1p(exp(-|x|)) in the tensor's type: correct everywhere, never overflows."""
    with np.errstate(all="ignore"):
        return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


class StableSoftplus(Adapter):
    """Correct: the stable form."""

    description = "fake: softplus, stable form"
    dtypes = ("float32", "float64")

    def claims(self):
        return [Claim(op="softplus", standard="onnx", dtypes=self.dtypes, in_place=True, strided=True, rejects=False)]

    def compute(self, x: np.ndarray) -> np.ndarray:
        return stable_softplus(x)

    def run(self, call):
        x = np.asarray(call.x)
        with np.errstate(all="ignore"):
            y = self.compute(x).astype(x.dtype)
        if call.in_place:
            next(iter(call.out.values()))[...] = y
            return None
        return y


class SoftplusReturnsXAbove10(StableSoftplus):
    """softplus(x) = x for x > 10 (48 ULP off at x = 10 in float32, 6.4 at x = 12)."""

    threshold = 10.0

    def compute(self, x):
        return np.where(x > self.threshold, x, stable_softplus(x))


class SoftplusReturnsXAbove20(SoftplusReturnsXAbove10):
    """PyTorch's threshold = 20: right in float32 (softplus(20) rounds to 20 there), wrong in float64
    (log1p(exp(-20)) = 2.1e-9 is about 600,000 ULP of 20)."""

    threshold = 20.0


class SoftplusEarlyOverflow(StableSoftplus):
    """log1p(exp(x)) with an exp that overflows one binade early: inf once exp(x) passes half the
    type's largest finite value (x > ln(max / 2): 88.03 in float32 instead of 88.72)."""

    def compute(self, x):
        limit = np.log(np.finfo(x.dtype).max / 2)
        return np.log1p(np.where(x > limit, np.inf, np.exp(x)).astype(x.dtype))
