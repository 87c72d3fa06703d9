"""Input transforms a standard offers on many operators, applied to an operator once it is loaded.

DirectML's unary element-wise operators take an optional DML_SCALE_BIAS and compute
f(scale * x + bias). specs/_standards.yaml declares such a transform once per standard
(``input_transforms``: its formula over the placeholder ``input``, its attributes with the
standard's names, defaults and identity values, and the attribute sets the corpus must cover);
an operator's block opts in with ``input_transform: {transform: scale_bias, input: x}``. Applying it:

- the transform's attributes become attributes of the operator (float32, as DML_SCALE_BIAS's
  FLOATs are); the opting standard binds them with its names and defaults, every other standard
  fixes them at their identity values (scale 1, bias 0), so its formula and cases are unchanged;
- the opting standard's formula (its own or the operator's) and its readings' formulas get the
  transformed input in place of the input: sin(x) becomes sin(scale * x + bias);
- the transform's test values become test_attributes sets, and every example is completed with
  the identity values;
- a transform with a ``rounded_reading`` gives the opting standard that reading: the untransformed
  function judged at the transformed input as a kernel rounds it (specgen.numerics.readings).

Nothing here names an operator: the prefix is data of the standard, once for every operator.
"""
from __future__ import annotations

import re
from dataclasses import replace

from specgen.formula import nodes as n
from specgen.spec import model as m


class TransformError(ValueError):
    """An operator cannot take the transform (a name clash, a formula chosen by a string attribute)."""

    def __init__(self, key_path: tuple, message: str):
        super().__init__(message)
        self.key_path = key_path


def apply(spec: m.OpSpec) -> m.OpSpec:
    """``spec`` with every standard's input transform applied (unchanged when none has one)."""
    users = [(k, s) for k, s in spec.standards.items() if s.input_transform is not None]
    for key, std in users:
        spec = _apply_one(spec, key, std.info.input_transforms[std.input_transform[0]], std.input_transform[1])
    return spec


def _apply_one(spec: m.OpSpec, std_key: str, t: m.InputTransform, input_name: str) -> m.OpSpec:
    kp = ("standards", std_key, "input_transform")
    if spec.choice is not None:
        raise TransformError(kp, f"{t.key}: an operator whose formula a string attribute selects cannot take an "
                                 f"input transform yet")
    taken = set(spec.attribute_names) | set(spec.tensor_names)
    clash = sorted(set(t.attributes) & taken)
    if clash:
        raise TransformError(kp, f"{t.key}'s attribute(s) {', '.join(clash)} clash with the operator's own names")
    std = spec.standards[std_key]
    transformed = n.substitute(t.formula, {m.InputTransform.PLACEHOLDER: n.Var(input_name, "input")})
    text = "(" + re.sub(rf"\b{m.InputTransform.PLACEHOLDER}\b", input_name, t.formula_text) + ")"

    def prefixed(node, node_text):
        return (n.substitute(node, {input_name: transformed}),
                re.sub(rf"\b{re.escape(input_name)}\b", lambda _: text, node_text))

    formula, formula_text = prefixed(std.formula or spec.formula, std.formula_text or spec.formula_text)
    readings = tuple(replace(r, formula=prefixed(r.formula, r.formula_text)[0], formula_text=prefixed(r.formula, r.formula_text)[1])
                     if r.formula is not None else r for r in std.readings)
    if t.rounded_reading is not None:
        # the function at the transformed input as a kernel rounds it (specgen.numerics.readings):
        # the untransformed formula, its input replaced by the rounded transform at judge time
        name, url, reason = t.rounded_reading
        if any(r.name == name for r in readings):
            raise TransformError(kp, f"{t.key}'s reading {name} clashes with a reading of the standard")
        readings += (m.Reading(name=name, url=url, quote=f"{t.formula_text} ({t.key})",
                               reason=reason, formula=std.formula or spec.formula,
                               formula_text=std.formula_text or spec.formula_text,
                               rounded_input=(input_name, transformed)),)
    bindings = {name: m.AttributeBinding(name, a.name, a.default, False) for name, a in t.attributes.items()}
    standards = {}
    for key, s in spec.standards.items():
        if key == std_key:
            s = replace(s, attributes={**s.attributes, **bindings}, formula=formula, formula_text=formula_text,
                        formula_reason=s.formula_reason or f"{t.source} (input transform {t.key})", readings=readings)
        else:
            fixed = {name: m.AttributeBinding(name, None, None, False, fixed=a.identity) for name, a in t.attributes.items()}
            s = replace(s, attributes={**s.attributes, **fixed})
        standards[key] = s
    identity = {name: a.identity for name, a in t.attributes.items()}
    others = std.defaults()
    # a standard without defaults (DirectML Clip's required Min and Max): the spec's first example's values
    first = spec.examples[0].attributes if spec.examples else {}
    others = {k: (first.get(k) if v is None else v) for k, v in others.items()}
    missing = [k for k in spec.numeric_attribute_names if others.get(k) is None]
    if missing and t.test_values:
        raise TransformError(kp, f"{t.key}'s test values need {std.info.title} defaults for {', '.join(missing)}")
    tests = tuple(m.TestAttributes(f"{std_key}_{t.key}_{i + 1}",
                                   {**{k: others[k] for k in spec.numeric_attribute_names}, **values},
                                   f"{std.info.title} {t.key}: {t.source}") for i, values in enumerate(t.test_values))
    attributes = tuple(m.Attribute(name, "float32", a.description or f"{t.key} ({a.name})") for name, a in t.attributes.items())
    examples = tuple(replace(e, attributes={**identity, **e.attributes}) for e in spec.examples)
    own_tests = tuple(replace(t_, values={**identity, **t_.values}) for t_ in spec.test_attributes)
    return replace(spec, attributes=spec.attributes + attributes, standards=standards,
                   test_attributes=own_tests + tests, examples=examples)
