"""What can be swept, read from the loaded specs (no operator is named here): the element-wise
operators with one tensor input, and those whose further tensor inputs are swept over a small grid
of values (PRelu's slope); per operator and standard, the attribute sets worth sweeping (the
standard's defaults, each of the spec's designed ``test_attributes`` sets, each value of a
string attribute that picks the formula).

``sweep_units(specs)`` lists them all; ``specgen matrix`` and benchmarks/bench_golden.py use it, so a
new operator in specs/ joins both without code.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specgen import dtypes as dt
from specgen.numerics.compare import resolve_attributes

# A second tensor input (PRelu's slope) is swept at each of these values: the signs, zero, the
# identity and the common leaky slopes, a slope that is not a power of two and one above 1.
SECOND_INPUT_GRID = (-1.0, -0.25, 0.0, 0.01, 0.2, 0.25, 1.0 / 3.0, 1.0, 2.5)
PREFERRED_STANDARDS = ("onnx", "webnn", "directml", "onednn")


@dataclass(frozen=True)
class SweepUnit:
    """One operator at one attribute set (and one value of each further input) in one standard."""

    op: str
    standard: str
    attribute_set: str  # "defaults", a test_attributes name, or "<choice value>" / "<choice>+<set>"
    attributes: tuple  # ((name, value), ...) as the sweep takes them (operator's names; strings kept)
    extra_inputs: tuple = ()  # ((name, value), ...): further tensor inputs held at one value

    @property
    def label(self) -> str:
        parts = [self.op] + ([self.attribute_set] if self.attribute_set != "defaults" else [])
        parts += [f"{k}={v:g}" for k, v in self.extra_inputs]
        return " ".join(parts)

    @property
    def key(self) -> str:
        """A file-name-safe identifier."""
        tail = "".join(f"-{k}{v:g}" for k, v in self.extra_inputs)
        return f"{self.op}-{self.attribute_set}{tail}".replace("+", "_").replace(".", "p")


def standard_for(spec, preferred: tuple[str, ...] = PREFERRED_STANDARDS) -> str | None:
    """The first standard of ``preferred`` the operator has whose defaults give every attribute a
    value (DirectML's Linear has none), else None."""
    for key in preferred:
        if key not in spec.standards:
            continue
        try:
            for choice in spec.choice_values or (None,):
                plain, numeric = spec.resolve({spec.choice.attribute: choice} if choice else {}, key)
                resolve_attributes(plain, key, numeric)
        except (KeyError, ValueError):
            continue
        return key
    return None


def expressible(std, values: dict) -> bool:
    """Whether a call in the standard can pass these attribute values: none is fixed by the standard
    to another value (ONNX HardSwish has no alpha or beta: DirectML's set is not an ONNX call)."""
    for name, value in values.items():
        b = std.attributes.get(name)
        if b is None:
            return False
        if b.fixed is not None and not isinstance(b.fixed, str) and float(np.float32(b.fixed)) != float(np.float32(value)):
            return False
    return True


def sweepable(spec) -> bool:
    """Element-wise with one output and one or two inputs: the first swept, a second held at the grid
    values. Where (a boolean condition and two values) is not: its swept input would be the
    condition, and the grid holds one further input, not two. Nor is Cast: its output's type is
    an attribute's (``dtype_from``), and a sweep's call asks for the input's type (every element
    came back 'wrong dtype'). Nor are the operators whose output is never a float (IsNaN, IsInf and
    the comparisons: a truth value, bool or uint8): a sweep judges outputs of the input's type, in
    ULPs (onnxruntime refused every IsNaN call, 'output arg (Y) ... does not match expected type
    (tensor(bool))'); their corpus cases judge them exactly."""
    if len(spec.outputs) != 1 or not 1 <= len(spec.inputs) <= 2 or getattr(spec.outputs[0], "dtype_from", None) is not None:
        return False
    out = spec.outputs[0].name
    return any(dt.get(d).is_float for std in spec.standards.values() for v in std.versions for d in v.dtypes(out))


def sweep_standard(spec) -> str | None:
    """The standard an operator is swept by when the adapter names none: the first preferred one
    whose defaults give every attribute a value, else the first preferred one it has (DirectML's
    ParametricSoftplus, which no standard gives defaults: swept at its designed sets)."""
    return standard_for(spec) or next((k for k in PREFERRED_STANDARDS if k in spec.standards), None)


def float_choices(spec, standard: str) -> tuple[str, ...]:
    """The values of the operator's string attribute (the formulas it picks) that the standard's call
    gives for floating-point tensors, a sweep's: not ONNX Mod's fmod = 0 (Python's %), for which "T is
    constrained to integer data types" (onnxruntime refused every float call of it, 'error' at every
    input). Empty for an operator without such an attribute."""
    if spec.choice is None:
        return ()
    binding = spec.standards[standard].attributes.get(spec.choice.attribute)
    return tuple(c for c in spec.choice_values if binding is None or binding.accepts_for(c, True))


def units(spec, standard: str | None = None) -> list[SweepUnit]:
    """The sweep units of one operator (empty where no standard gives its attributes values)."""
    with_defaults = standard_for(spec, (standard,) if standard else PREFERRED_STANDARDS)
    if standard is None:
        standard = sweep_standard(spec)
    if standard is None or standard not in spec.standards or not sweepable(spec):
        return []
    choices = float_choices(spec, standard) or (None,)
    # the designed sets complete the attributes where the defaults do not
    sets: list[tuple[str, dict]] = [("defaults", {})] if with_defaults else []
    sets += [(t.name, {k: float(np.float32(v)) for k, v in t.values.items()}) for t in spec.test_attributes
             if expressible(spec.standards[standard], t.values)]
    extra_names = [t.name for t in spec.inputs[1:]]
    grids = [()] if not extra_names else [((extra_names[0], v),) for v in SECOND_INPUT_GRID]
    out = []
    for choice in choices:
        for set_name, values in sets:
            attrs = dict(values)
            if choice is not None:
                attrs[spec.choice.attribute] = choice
            name = set_name if choice is None else (choice if set_name == "defaults" else f"{choice}+{set_name}")
            if not with_defaults and not _complete(spec, standard, attrs):
                continue
            for extra in grids:
                out.append(SweepUnit(spec.id, standard, name, tuple(sorted(attrs.items())), extra))
    return out


def _complete(spec, standard: str, attrs: dict) -> bool:
    try:
        plain, numeric = spec.resolve(attrs, standard)
        resolve_attributes(plain, standard, numeric)
    except (KeyError, ValueError):
        return False
    return True


def sweep_units(specs: dict) -> list[SweepUnit]:
    """Every sweep unit of every loaded operator, in operator order."""
    out = []
    for op_id in sorted(specs):
        out.extend(units(specs[op_id]))
    return out
