"""A stand-in for the backend under test: two numpy kernels behind the kind of entry point a
native library has (one ``run`` taking the operator name and its attributes, refusing an illegal
call with its own exception). A backend team replaces this module by its real library."""
from __future__ import annotations

import numpy as np

__version__ = "0.1"

DTYPES = ("float16", "float32", "float64")


class InvalidArgument(ValueError):
    """The backend's own "illegal call" error."""


def hard_sigmoid(x, alpha, beta):
    return np.clip(x * alpha + beta, 0, 1)


def shrink(x, bias, lambd):
    return np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0))


KERNELS = {"HardSigmoid": (hard_sigmoid, ("alpha", "beta")), "Shrink": (shrink, ("bias", "lambd"))}


def run(operator: str, x: np.ndarray, out: np.ndarray, **attributes) -> None:
    """Compute ``operator`` on ``x`` into ``out``; InvalidArgument for an illegal call."""
    if operator not in KERNELS:
        raise InvalidArgument(f"unknown operator {operator}")
    kernel, names = KERNELS[operator]
    if set(attributes) != set(names):
        raise InvalidArgument(f"{operator} takes the attributes {', '.join(names)}, got {', '.join(sorted(attributes))}")
    if x.dtype.name not in DTYPES or out.dtype != x.dtype or out.shape != x.shape:
        raise InvalidArgument(f"{operator}: input {x.dtype}{x.shape}, output {out.dtype}{out.shape}")
    if not (x.flags.c_contiguous and out.flags.c_contiguous):
        raise InvalidArgument(f"{operator}: dense tensors only")
    compute = np.float32 if x.dtype == np.float16 else x.dtype  # float16 is computed in float32
    with np.errstate(all="ignore"):
        out[...] = kernel(x.astype(compute), **attributes)
