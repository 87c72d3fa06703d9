"""Render an OpSpec as a standard's own page shape in Markdown, through templates/show/<standard>.md.j2.

This module turns the model into plain view data (strings, lists, dicts); the templates only lay
it out. The DirectML tensor-support tables come out in exactly the seed documents' column shape,
newest feature level first, so that tests can compare them row by row with the seeds.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import jinja2

from specgen.render.formula_text import spell
from specgen.resources import templates_dir
from specgen.spec import model as m

TEMPLATE_DIR = "show"
OVERVIEW_TEMPLATE = "operator.md.j2"
GENERIC_TEMPLATE = "generic.md.j2"

# How each standard's pages spell the properties a `same` constraint relates.
_PROPERTY_NAMES = {
    "directml": {"data_type": "DataType", "dimension_count": "DimensionCount", "sizes": "Sizes"},
}
_PLAIN_PROPERTY_NAMES = {"data_type": "data type", "dimension_count": "number of dimensions", "sizes": "shape"}
# ONNX's page labels for the facts a version records.
_ONNX_FACT_LABELS = {"shape_inference": "shape inference"}


class UnknownName(LookupError):
    """An operator or standard that does not exist; the message names what does."""


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir() / TEMPLATE_DIR)),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True, autoescape=False)
    env.filters["cell"] = table_cell
    return env


def table_cell(value) -> str:
    """Text safe inside a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(value).split()).replace("|", "\\|")


def render_operator(spec: m.OpSpec, standard: str | None = None) -> str:
    """The page of one standard (``standard``), or the whole operator with every standard."""
    if standard is not None:
        if standard not in spec.standards:
            raise UnknownName(f"{spec.id} has no standard {standard!r}; it has: {', '.join(spec.standards)}")
        return _tidy(render_standard(spec, spec.standards[standard], depth=0))
    pages = [render_standard(spec, std, depth=1) for std in spec.standards.values()]
    overview = environment().get_template(OVERVIEW_TEMPLATE).render(op=overview_view(spec), pages=pages)
    return _tidy(overview)


def render_standard(spec: m.OpSpec, std: m.OpStandard, depth: int) -> str:
    env = environment()
    try:
        template = env.get_template(f"{std.key}.md.j2")
    except jinja2.TemplateNotFound:
        template = env.get_template(GENERIC_TEMPLATE)
    return template.render(op=standard_view(spec, std), h=lambda level: "#" * (level + depth))


def _tidy(text: str) -> str:
    """At most one blank line in a row, exactly one newline at the end."""
    lines: list[str] = []
    for line in text.rstrip().splitlines():
        if line.strip() or (lines and lines[-1].strip()):
            lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- view data

def number(value: float | str) -> str:
    """A default as the spec wrote it: 0.2, 0.5, 0.0 (repr of the float, never scientific for these);
    a string attribute's value as it is."""
    if isinstance(value, str):
        return value
    return repr(float(value))


def _choice_formulas(spec: m.OpSpec, std: m.OpStandard, names: dict) -> list[dict]:
    """A formula chosen by a string attribute: one entry per value the standard accepts, in its
    spelling, the default first."""
    if spec.choice is None:
        return []
    b = std.attributes[spec.choice.attribute]
    if b.fixed is not None:
        return [{"value": b.fixed, "fixed": True, "formula": spell(spec.choice.formulas[b.fixed], names)}]
    order = sorted(b.values, key=lambda v: v != b.default)
    return [{"value": b.values[v], "fixed": False, "default": v == b.default,
             "formula": spell(spec.choice.formulas[v], names)} for v in order]


def english_list(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def standard_view(spec: m.OpSpec, std: m.OpStandard) -> dict:
    info = std.info
    tensor_names = {t: b.name for t, b in std.tensors.items()}
    # fixed: the value; an attribute that selects the operator (operators) keeps the operator's name
    attr_names = {a: (b.name if b.name else a if b.operators else number(b.fixed)) for a, b in std.attributes.items()}
    chosen = _choice_formulas(spec, std, attr_names)
    chosen_std = _choice_formulas(spec, std, attr_names | {t: b.name for t, b in std.tensors.items()})
    kinds = {t.name: "Input" for t in spec.inputs} | {t.name: "Output" for t in spec.outputs}
    descriptions = {t.name: t.description for t in spec.inputs + spec.outputs}
    attr_decl = {a.name: a for a in spec.attributes}
    first = spec.inputs[0].name
    tied_type = {t for group in std.same("data_type") if first in group for t in group}
    tied_rank = {t for group in std.same("dimension_count") if first in group for t in group}
    versions = []
    for v in reversed(std.versions):  # newest first, as the standards' pages list them
        versions.append({
            "version": v.version,
            "label": info.label(v.version),
            "rows": [{"tensor": tensor_names[t], "kind": kinds[t], "ranks": str(s.ranks),
                      "dtypes": ", ".join(info.dtype_name(d) for d in s.dtypes),
                      # an output "same as" the first input only where a constraint ties them
                      "same_dtype": t in tied_type, "same_rank": t in tied_rank} for t, s in v.tensors.items()],
            "type_constraints": _type_constraints(std, v),
            "dtype_rows": _dtype_combinations(std, v),
            "extra_attributes": [{"name": e.name, "type": e.type, "required": e.required,
                                  "description": e.description} for e in v.extra_attributes],
            "defaults": {a: repr(x) for a, x in std.defaults(v.version).items()
                         if a in v.defaults and x is not None},  # this version's own (ONNX Selu-1)
            "facts": _facts(std, v),
            "fact": dict(v.facts),
            "source": v.source,
            "broadcast": [_broadcast_sentence(b, tensor_names) for b in v.broadcast],
        })
    in_name = tensor_names[spec.inputs[0].name]
    return {
        "id": spec.id,
        "name": spec.name,
        "summary": spec.summary,
        "title": info.title,
        "operator": std.operator,
        "domain": std.domain,
        "introduced": info.label(std.introduced) if std.introduced else None,
        "in_place": std.in_place,
        "first_input": in_name,
        "attribute_defaults": std.attribute_defaults,
        "formula": chosen[0]["formula"] if chosen else spell(spec.formula_for(std.key), attr_names),
        "formula_std": chosen_std[0]["formula"] if chosen else spell(spec.formula_for(std.key), attr_names | tensor_names),
        # the other values of a formula-selecting string attribute (the first is "formula" above)
        "choice_attribute": std.attributes[spec.choice.attribute].name if chosen else None,
        "choice_default": chosen_std[0]["value"] if chosen and not chosen[0]["fixed"] else None,
        "other_formulas_std": chosen_std[1:],
        "formula_reason": std.formula_reason,
        "output_std": tensor_names[spec.outputs[0].name],
        "tensor_type": info.tensor_type,
        "tensors": [{"name": b.name, "op_name": t, "kind": kinds[t], "description": descriptions[t],
                     "type_param": b.type_param, "index": b.index,
                     "type": info.tensor_type_name(b.type_param or "T")}
                    for t, b in std.tensors.items()],
        "attributes": [{"name": b.name, "op_name": a, "type": _attribute_type(spec, info, attr_decl[a]),
                        "description": attr_decl[a].description, "required": b.required,
                        "positional": b.positional,
                        "default": None if b.default is None else number(b.spell(b.default)),
                        "default_float32": None if b.default is None else repr(b.spell(b.default_float32)),
                        "supported": (", ".join(f"`{v}`" + (" (default)" if k == b.default else "")
                                                for k, v in b.values.items()) if b.values else None)}
                       for a, b in std.attributes.items() if b.fixed is None and not b.operators],
        "fixed_attributes": [{"op_name": a, "value": number(b.fixed)} for a, b in std.attributes.items()
                             if b.fixed is not None],
        "constraints": [_constraint_sentence(std, c, tensor_names) for c in std.constraints],
        "versions": versions,
        "version_kind": info.version_kind,
        "attribute_cast": info.attribute_cast,
        "unknown_attributes": info.unknown_attributes,
        "rules_source": info.rules_source,
        "layout_source": " ".join(info.layout_source.split()),
        "strides": info.strides,
        "zero_sizes": info.zero_sizes,
        "dtype_attributes": list(spec.dtype_attributes),
    }


def _values_cell(spec: m.OpSpec, std: m.OpStandard) -> str | None:
    """How a standard spells the values of the formula-selecting string attribute (or fixes one)."""
    if spec.choice is None:
        return None
    b = std.attributes[spec.choice.attribute]
    if b.fixed is not None:
        return f"{b.fixed} only (no such attribute)"
    text = ", ".join(f"{k}: `{b.name}={v}`" for k, v in b.values.items())
    # versions that spell the values otherwise (attribute_values: ONNX Cast-1's string `to`)
    other = [v for v in std.versions if spec.choice.attribute in v.attribute_values]
    for v in other:
        spelled = v.attribute_values[spec.choice.attribute]
        text += f"; version {v.version}: " + ", ".join(f"{k}: `{b.name}={w!r}`" for k, w in spelled.items())
    return text


_BROADCAST_WORDS = {
    "unidirectional": "{tensors} must be unidirectional broadcastable to {to} (numpy rules).",
    "multidirectional": "{tensors} and {to} must be mutually broadcastable (multidirectional, numpy rules).",
    "single_element": "{tensors} must have {to}'s shape or a single element.",
}


def _broadcast_sentence(rule: m.BroadcastRule, tensor_names: dict) -> dict:
    text = _BROADCAST_WORDS[rule.kind].format(tensors=english_list([tensor_names[t] for t in rule.tensors]),
                                              to=tensor_names[rule.to])
    return {"text": text, "source": rule.source}


def _constraint_sentence(std: m.OpStandard, c: m.Constraint, tensor_names: dict) -> dict:
    names = _PROPERTY_NAMES.get(std.key, _PLAIN_PROPERTY_NAMES)
    props = [names.get(p, p) for p in c.same]
    tensors = [tensor_names[t] for t in c.tensors]
    if std.key == "directml":
        text = f"{english_list([f'*{t}*' for t in tensors])} must have the same {english_list([f'*{p}*' for p in props])}."
    else:
        text = f"{english_list([f'`{t}`' for t in tensors])} have the same {english_list(props)}."
    return {"text": text, "source": c.source}


def _attribute_type(spec: m.OpSpec, info, attr) -> str:
    """The standard's name of an attribute's type; one that names an output's dtype (Cast's ``to``)
    has the standard's type of data-type values (``attribute_type_names.dtype``) where it gives one."""
    kind = "dtype" if attr.name in spec.dtype_attributes and "dtype" in info.attribute_type_names else attr.type
    return info.attribute_type_names.get(kind, attr.type)


def _type_constraints(std: m.OpStandard, v: m.Version) -> list[dict]:
    """ONNX shape: one entry per type parameter, with the union of its tensors' dtypes."""
    groups: dict[str, list[str]] = {}
    for t, b in std.tensors.items():
        key = b.type_param or b.name
        dtypes = groups.setdefault(key, [])
        dtypes.extend(d for d in v.tensors[t].dtypes if d not in dtypes)
    return [{"param": p, "types": [std.info.dtype_name(d) for d in ds]} for p, ds in groups.items()]


def _dtype_combinations(std: m.OpStandard, v: m.Version) -> dict:
    """oneDNN shape: the supported data type combinations, one column per tensor (Src, Dst).
    Tensors bound by a `same data_type` constraint move together; others combine freely."""
    tensors = list(std.tensors)
    header = [std.tensors[t].name[:1].upper() + std.tensors[t].name[1:] for t in tensors]
    tied = {t for group in std.same("data_type") for t in group}
    if set(tensors) <= tied:
        common = [d for d in v.tensors[tensors[0]].dtypes if all(d in v.tensors[t].dtypes for t in tensors)]
        rows = [[std.info.dtype_name(d)] * len(tensors) for d in common]
    else:
        rows = [[std.info.dtype_name(d) for d in combo]
                for combo in itertools.product(*(v.tensors[t].dtypes for t in tensors))]
    return {"header": header, "rows": rows}


def _facts(std: m.OpStandard, v: m.Version) -> list[tuple[str, str]]:
    out = []
    for key, value in v.facts.items():
        if std.key == "onnx" and key == "support_level":
            value = f"SupportType.{value}"
        label = _ONNX_FACT_LABELS.get(key, key) if std.key == "onnx" else key
        out.append((label, str(value)))
    return out


def overview_view(spec: m.OpSpec) -> dict:
    return {
        "id": spec.id,
        "name": spec.name,
        "summary": spec.summary,
        "formula": spell(spec.formula) if spec.choice is None else None,
        "formula_text": spec.formula_text.strip(),
        "inputs": [{"name": t.name, "description": t.description} for t in spec.inputs],
        "outputs": [{"name": t.name, "description": t.description} for t in spec.outputs],
        "attributes": [{"name": a.name, "type": a.type, "description": a.description} for a in spec.attributes],
        "standards": [{"key": s.key, "title": s.info.title, "operator": s.operator,
                       "versions": ", ".join(s.version_ids),
                       "formula": spell(s.formula) if s.formula is not None else None,
                       "values": _values_cell(spec, s),
                       "formula_reason": s.formula_reason,
                       "readings": [{"name": r.name, "url": r.url, "quote": " ".join(r.quote.split()),
                                     "reason": " ".join(r.reason.split()),
                                     "formula": spell(r.formula) if r.formula is not None else None,
                                     "attribute_cast": r.attribute_cast, "literal": r.literal}
                                    for r in s.readings]} for s in spec.standards.values()],
        "special_values": [{"category": sv.category, "outcomes": " or ".join(sv.default),
                            "per_standard": "; ".join(f"{k}: {' or '.join(v)}" for k, v in sv.per_standard.items()),
                            "recommended": sv.recommended or "", "reason": " ".join(sv.reason.split())}
                           for sv in spec.special_values.values()],
        "tolerance": [{"dtype": t.dtype, "metric": t.metric,
                       "value": "" if t.value is None else number(t.value),
                       "intermediate": t.intermediate or "", "reason": " ".join(t.reason.split())}
                      for t in spec.tolerance.values()],
        "examples": [{"description": e.description,
                      "attributes": ", ".join(f"{k}={number(v)}" for k, v in e.attributes.items()),
                      "inputs": {k: ", ".join(number(x) for x in v) for k, v in e.inputs.items()},
                      "outputs": {k: ", ".join(number(x) for x in v) for k, v in e.outputs.items()}}
                     for e in spec.examples],
    }
