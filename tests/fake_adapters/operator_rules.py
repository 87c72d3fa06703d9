"""Fake adapters for rules a standard states beside its formula (issue 23): WebNN clamp's "If
options.minValue is greater than options.maxValue, then throw a TypeError" (a kernel that checks it,
and one that clamps a crossed pair instead of throwing), and DirectML's two modulus operators, one per
sign rule, which the call names by ``Call.std_operator`` (a kernel that computes each with the other's
rule). The tensor rules come from the generated validation module, so only the rule under test differs."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from specgen.adapters.base import Adapter, Claim, Rejected

ROOT = Path(__file__).resolve().parents[2]
_VALIDATE: dict = {}


def _tensor_problems(call) -> list[str]:
    """The generated validator's verdict on the call's tensors alone (no attributes)."""
    from specgen.generate.tree import import_generated

    if call.op not in _VALIDATE:
        _VALIDATE[call.op] = import_generated(ROOT / "generated", "validate", call.op).validate
    tensors = {n: {"dtype": call.dtype if n in call.inputs else call.outputs[n].dtype,
                   "sizes": list(call.inputs[n].shape if n in call.inputs else call.outputs[n].shape),
                   "strides": call.strides.get(n)} for n in [*call.inputs, *call.outputs]}
    return _VALIDATE[call.op](call.standard, call.version, tensors, {})


class ClampChecksOrder(Adapter):
    """WebNN clamp, correct: absent bounds are no bound, a crossed pair (after the float32 cast) throws."""

    description = "fake: WebNN clamp, rejects minValue > maxValue"
    checks_order = True

    def claims(self):
        return [Claim(op="clip", standard="webnn", dtypes=("float32",), rejects=True)]

    def run(self, call):
        problems = _tensor_problems(call)
        if problems:
            raise Rejected(problems[0])
        given = call.std_attributes(given_only=True)
        lo = float(np.float32(given.get("minValue", -math.inf)))
        hi = float(np.float32(given.get("maxValue", math.inf)))
        if self.checks_order and lo > hi:
            raise Rejected("TypeError: minValue is greater than maxValue")
        with np.errstate(all="ignore"):
            return np.minimum(np.maximum(call.x, np.float32(lo)), np.float32(hi)).astype(call.x.dtype)


class ClampIgnoresOrder(ClampChecksOrder):
    """WebNN clamp clamping a crossed pair (to maxValue) instead of throwing a TypeError."""

    description = "fake: WebNN clamp, accepts minValue > maxValue"
    checks_order = False


class DmlModulus(Adapter):
    """DirectML's MODULUS_FLOOR (the divisor's sign, Python's %) and MODULUS_TRUNCATE (the dividend's,
    C's fmod), chosen by the operator the call names."""

    description = "fake: DirectML modulus operators, correct"
    rules = {"DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC": np.mod,
             "DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC": np.fmod}

    def claims(self):
        return [Claim(op="mod", standard="directml", dtypes=("float32", "int32"))]

    def run(self, call):
        assert call.std_attributes() == {}, "the operator is the choice: no attribute is passed"
        a, b = (np.asarray(v) for v in call.inputs.values())
        with np.errstate(all="ignore"):
            return self.rules[call.std_operator](a, b).astype(a.dtype)


class DmlModulusWrongSign(DmlModulus):
    """Each DirectML modulus operator computed with the other's sign rule."""

    description = "fake: DirectML modulus operators with the sign rules swapped"
    rules = {"DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC": np.fmod,
             "DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC": np.mod}
