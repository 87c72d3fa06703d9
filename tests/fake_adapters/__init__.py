"""Fake adapters for the runner's own tests: real adapter classes (not mocks of specgen), each wrong
in one specific way. They implement HardSigmoid and Shrink the way a backend would, in numpy.

Each claims the ONNX and DirectML blocks of both ops for float32 and float16, in-place and strided
calls, and rejection of illegal calls; ``ClaimsOnly`` variants narrow that where a test needs it.
"""
from __future__ import annotations

import os
import signal
import time

import numpy as np

from specgen.adapters.base import Adapter, Claim, Rejected

FLOATS = ("float32", "float16")


def _shrink(xd, t, b, zero, standard, strict=True):
    """Shrink in the standard's test order (ONNX tests x < -lambd first; it matters only for a
    negative threshold). ``strict=False`` is the threshold defect: >= and <= instead of > and <."""
    above = xd > t if strict else xd >= t
    below = xd < -t if strict else xd <= -t
    if standard == "onnx":
        return np.where(below, xd + b, np.where(above, xd - b, zero))
    return np.where(above, xd - b, np.where(below, xd + b, zero))


def _kernel(op, x, a, compute=np.float32, standard="directml"):
    """A correct kernel: every operation rounded to ``compute`` (float32 by default), cast back."""
    xd = x.astype(compute)
    if op == "hard_sigmoid":
        alpha, beta = compute(a["alpha"]), compute(a["beta"])
        v = (xd * alpha).astype(compute) + beta
        y = np.maximum(np.minimum(v, compute(1)), compute(0))
        y = np.where(np.isnan(v), v, y)
    elif op == "shrink":
        t, b = compute(a["threshold"]), compute(a["bias"])
        y = _shrink(xd, t, b, compute(0), standard)
    elif op == "softsign":
        y = xd / (compute(1) + np.abs(xd))
    else:  # pragma: no cover
        raise ValueError(op)
    return y.astype(x.dtype)


def _legal(call) -> bool:
    """The standards' rules for the ops the fakes implement (dtype, rank, same shapes)."""
    spec = call.spec
    std = spec.standards[call.standard]
    v = std.version(call.version)
    x = call.x
    if call.dtype not in v.dtypes() or not v.ranks().allows(x.ndim):
        return False
    y = next(iter(call.outputs.values()))
    return tuple(y.shape) == tuple(x.shape) and y.dtype == call.dtype and x.size > 0


class Correct(Adapter):
    """Correct: float32 arithmetic, one rounding per operation (onnxruntime's evaluation order)."""

    description = "fake: correct"
    ops = ("hard_sigmoid", "shrink", "softsign")
    in_place = True
    strided = True
    validates = True

    def claims(self):
        return [Claim(op=op, standard=std, dtypes=FLOATS, in_place=self.in_place, strided=self.strided,
                      rejects=True)
                for op in self.ops for std in ("onnx", "directml")]

    def compute(self, call, x):
        with np.errstate(all="ignore"):
            return _kernel(call.op, x, call.attributes, standard=call.standard)

    def accepts(self, call):
        return _legal(call)

    def run(self, call):
        if self.validates and not _legal(call):
            raise Rejected("illegal call")
        y = self.compute(call, np.asarray(call.x))
        if call.in_place:
            next(iter(call.out.values()))[...] = y
            return None
        return y


class RoundsDifferently(Correct):
    """Correct but not bit-identical: float16 tensors computed in float32 and rounded once at the
    end; float32 tensors computed in float64. Inside the error bound: must pass."""

    description = "fake: correct, other rounding"

    def compute(self, call, x):
        wide = np.float64 if x.dtype == np.float32 else np.float32
        with np.errstate(all="ignore"):
            return _kernel(call.op, x, call.attributes, compute=wide, standard=call.standard)


class IgnoresAttribute(Correct):
    """Ignores alpha (always 0.2, the ONNX default) and bias (always 0)."""

    def compute(self, call, x):
        a = dict(call.attributes)
        if "alpha" in a:
            a["alpha"] = float(np.float32(0.2))
        if "bias" in a:
            a["bias"] = 0.0
        with np.errstate(all="ignore"):
            return _kernel(call.op, x, a, standard=call.standard)


class WrongAtThreshold(Correct):
    """Shrink with x >= threshold (not >): wrong exactly at x = +-threshold."""

    def compute(self, call, x):
        if call.op != "shrink":
            return super().compute(call, x)
        t, b = np.float32(call.attributes["threshold"]), np.float32(call.attributes["bias"])
        xd = x.astype(np.float32)
        with np.errstate(all="ignore"):
            y = _shrink(xd, t, b, np.float32(0), call.standard, strict=False)
        return y.astype(x.dtype)


class ShrinkOnlyWrongAtThreshold(WrongAtThreshold):
    """Claims one operator (Shrink), wrong at the threshold: the rest of a corpus is unsupported."""

    ops = ("shrink",)


class WrongRank5(Correct):
    """Wrong for rank >= 5: the last axis is processed reversed (a broken 5-D indexing path)."""

    def compute(self, call, x):
        y = super().compute(call, x)
        return np.ascontiguousarray(y[..., ::-1]) if x.ndim >= 5 else y


class WrongLarge(Correct):
    """Wrong for tensors over 65,536 elements: elements past the first 65,536 are left as the input."""

    def compute(self, call, x):
        y = super().compute(call, x)
        if x.size > 65536:
            flat = y.reshape(-1).copy()
            flat[65536:] = x.reshape(-1)[65536:]
            y = flat.reshape(y.shape)
        return y


class WrongInPlace(Correct):
    """Wrong when in-place: computes into a new array and returns it; the aliased buffer keeps x."""

    def run(self, call):
        return self.compute(call, np.asarray(call.x))


class WrongStrided(Correct):
    """Wrong for non-contiguous input: reads the underlying memory as if it were contiguous."""

    def run(self, call):
        x = call.x
        if not x.flags.c_contiguous:
            x = np.lib.stride_tricks.as_strided(x, shape=x.shape,
                                                strides=np.empty(x.shape, dtype=x.dtype).strides)
        y = self.compute(call, np.array(x))
        if call.in_place:
            next(iter(call.out.values()))[...] = y
            return None
        return y


class AcceptsIllegal(Correct):
    """Accepts every call, legal or not (no validation)."""

    validates = False

    def accepts(self, call):
        return True


class RunsIllegal(Correct):
    """No accepts(); runs illegal calls without raising (the runner must notice it ran)."""

    validates = False

    def accepts(self, call):
        return None


class WrongDtype(Correct):
    """Returns float64 whatever the input dtype."""

    def compute(self, call, x):
        return super().compute(call, x).astype(np.float64)


class WrongShape(Correct):
    """Returns the output flattened."""

    def compute(self, call, x):
        return super().compute(call, x).reshape(-1)


class Crashing(Correct):
    """Raises on every run."""

    def run(self, call):
        raise RuntimeError("backend exploded: illegal instruction in kernel")


class CrashingFloat16(Correct):
    """Claims float16 but its float16 kernel is missing (raises): a broken claim."""

    def run(self, call):
        if call.dtype == "float16":
            raise NotImplementedError("float16 kernel not built")
        return super().run(call)


class Float32Only(Correct):
    """Claims float32 only, but float16 works too (the runner's probe should say so)."""

    def claims(self):
        return [Claim(op=op, standard=std, dtypes=("float32",), in_place=True, strided=True, rejects=True)
                for op in self.ops for std in ("onnx", "directml")]


class Float32OnlyBrokenFloat16(Float32Only):
    """Claims float32; its float16 HardSigmoid only clamps x to [0, 1] (no alpha, no beta): right
    where the result saturates at 1, wrong everywhere else."""

    def compute(self, call, x):
        if call.dtype == "float16" and call.op == "hard_sigmoid":
            return np.clip(x, 0, 1).astype(x.dtype)
        return super().compute(call, x)


class Float32OnlyExplained(Float32Only):
    """Float32Only whose adapter explains float16 (as onnxruntime explains what it tried at load):
    the explanation is reported instead of probing."""

    def why_unclaimed(self, op, standard, version, dtype):
        return "float16 kernel not built in this configuration" if dtype == "float16" else None


class Version22Only(Correct):
    """Claims ONNX HardSigmoid-22 only, though the same kernel serves opset 6 (a probe should say so)."""

    def claims(self):
        return [Claim(op="hard_sigmoid", standard="onnx", versions=("22",), dtypes=FLOATS, rejects=True)]


class Segfaulting(Correct):
    """Kills its own process (as a native crash would). Only for --isolate."""

    def run(self, call):
        if os.environ.get("SPECGEN_FAKE_SEGFAULT_OK") != "1":  # never kill the test process itself
            raise RuntimeError("Segfaulting fake used without isolation")
        os.kill(os.getpid(), signal.SIGSEGV)


class Hanging(Correct):
    """Never returns (sleeps far longer than the test timeout). Only for --isolate."""

    def run(self, call):
        if os.environ.get("SPECGEN_FAKE_HANG_OK") != "1":
            raise RuntimeError("Hanging fake used without isolation")
        time.sleep(120)


class HangsOrCrashes(Correct):
    """Hangs on float16, kills its process when alpha == 0.5, correct otherwise. Only for --isolate."""

    def run(self, call):
        if call.dtype == "float16":
            return Hanging.run(self, call)
        if call.attributes.get("alpha") == 0.5:
            return Segfaulting.run(self, call)
        return super().run(call)


class HardSigmoidSixth(Correct):
    """Claims HardSigmoid only with alpha = 1/6, beta = 0.5 (like torch's hardsigmoid) and computes
    it correctly: fl(fl(alpha*x) + beta) with alpha = float32(1/6)."""

    def claims(self):
        from specgen.adapters.base import Values

        return [Claim(op="hard_sigmoid", standard="*", dtypes=FLOATS, rejects=True,
                      attributes={"alpha": Values(1 / 6), "beta": Values(0.5)})]


class HardSigmoidSixthByDivision(HardSigmoidSixth):
    """torch's CPU formulation: min(max(x + 3, 0), 6) / 6 in float32. Not an evaluation order of
    alpha*x + beta: x + 3 is rounded before the division, which can cost more than the bound."""

    def compute(self, call, x):
        xd = x.astype(np.float32)
        y = np.minimum(np.maximum(xd + np.float32(3), np.float32(0)), np.float32(6)) / np.float32(6)
        return y.astype(x.dtype)


# -- broken plugins (for discovery tests) --------------------------------------------------------


class NoRun:
    """Has claims() but no run()."""

    def claims(self):
        return []


class RunWithoutArgument(Adapter):
    def claims(self):
        return []

    def run(self):  # wrong signature: no call argument
        return None


class ClaimsRaise(Correct):
    def claims(self):
        raise ValueError("cannot enumerate devices")


class ClaimsNotClaims(Correct):
    def claims(self):
        return [{"op": "hard_sigmoid"}]


class NeedsMissingBackend(Correct):
    requires = ("specgen_no_such_backend_module",)
    extra = "nosuch"


NOT_A_CLASS = 42


# -- issue 13: adapters a first-time author writes, each with one surprise ---------------------


class ClaimsMisspeltOp(Correct):
    def claims(self):
        return [Claim(op="softsgn", standard="onnx")]


class ClaimsUnknownVersion(Correct):
    def claims(self):
        return [Claim(op="softsign", standard="onnx", versions=("23",))]


class ClaimsUnlistedDtype(Correct):
    def claims(self):
        return [Claim(op="softsign", standard="onnx", versions=("1",), dtypes=("bfloat16",))]


class SoftsignOnly(Correct):
    """Claims Softsign only: a run of HardSigmoid cases tests nothing."""

    def claims(self):
        return [Claim(op="softsign", standard="*", dtypes=FLOATS)]


class DefaultClaim(Correct):
    """Claims without saying rejects=...: must-reject cases must then be unsupported, not run."""

    validates = False

    def accepts(self, call):
        return None

    def claims(self):
        return [Claim(op="hard_sigmoid", standard=std, dtypes=FLOATS, in_place=True, strided=True)
                for std in ("onnx", "directml")]


class WritesIntoOut(Correct):
    """No validation and no accepts(): writes into call.out, so a mis-sized output buffer makes numpy
    raise ValueError (could not broadcast): a crash, not the backend refusing the call."""

    validates = False

    def accepts(self, call):
        return None

    def run(self, call):
        call.out["y"][...] = self.compute(call, np.asarray(call.x))


class DeclaresRejection(WritesIntoOut):
    """The same, but declares ValueError as its backend's validation error."""

    rejection_errors = (ValueError,)


class ReturnsNothing(Correct):
    """Returns None without writing call.out (a forgotten copy-out)."""

    def run(self, call):
        self.compute(call, np.asarray(call.x))
        return None


class InterruptedAtThird(Correct):
    """Ctrl-C arrives while the third case runs."""

    count = 0

    def run(self, call):
        type(self).count += 1
        if type(self).count == 3:
            raise KeyboardInterrupt
        return super().run(call)


class Slow(Correct):
    """Half a second per case (for interrupting a real process)."""

    def run(self, call):
        time.sleep(0.5)
        return super().run(call)


class MultiLineError(Correct):
    """Raises with the real reason on the second line (as OpenVINO's errors do)."""

    def run(self, call):
        raise RuntimeError("Exception from src/inference/src/core.cpp:112:\n"
                           "[ GENERAL_ERROR ] the real reason: kernel for HardSigmoid f16 not registered")
