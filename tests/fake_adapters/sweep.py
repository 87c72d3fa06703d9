"""Fake adapters for sweep tests: a correct float kernel that is wrong, raises, hangs or kills its
process on chosen bit patterns (set through environment variables so spawned workers see them)."""
from __future__ import annotations

import os
import time

import numpy as np

from specgen.adapters.base import Adapter, Claim

from . import _kernel


def _bits_env(name):
    out = []
    for part in os.environ.get(name, "").split(","):
        if part.strip():
            a, _, b = part.partition(":")
            out.append((int(a, 0), int(b or a, 0)))
    return out


def _hit(x, ranges):
    u = x.view(f"uint{x.dtype.itemsize * 8}")
    m = np.zeros(x.shape, dtype=bool)
    for a, b in ranges:
        m |= (u >= a) & (u <= b)
    return m


class SweepFake(Adapter):
    """Correct in float32 arithmetic, except: SWEEP_FAKE_WRONG (bit ranges "a:b,c") one ULP up,
    SWEEP_FAKE_RAISE raise, SWEEP_FAKE_DIE os._exit(9), SWEEP_FAKE_SLEEP seconds per call."""

    description = "sweep test fake"

    def claims(self):
        return [Claim(op=op, standard="*", dtypes=("float32", "float16", "float64"))
                for op in ("hard_sigmoid", "shrink", "softsign")]

    def run(self, call):
        x = call.x
        delay = float(os.environ.get("SWEEP_FAKE_SLEEP", "0") or 0)
        if delay:
            time.sleep(delay)
        if _hit(x, _bits_env("SWEEP_FAKE_DIE")).any():
            os._exit(9)
        if _hit(x, _bits_env("SWEEP_FAKE_RAISE")).any():
            raise ValueError("fake backend refuses this input")
        with np.errstate(all="ignore"):
            y = _kernel(call.op, x, call.attributes, compute=np.float64 if x.dtype == np.float64 else np.float32,
                        standard=call.standard)
        wrong = _hit(x, _bits_env("SWEEP_FAKE_WRONG"))
        if wrong.any():
            u = y.view(f"uint{y.dtype.itemsize * 8}")
            u[wrong] += 1
        return y
