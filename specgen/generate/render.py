"""Reference and validation modules rendered from the spec through templates/ (Jinja2)."""
from __future__ import annotations

import jinja2

from specgen import dtypes as dt
from specgen.formula import nodes as n
from specgen.formula.functions import FUNCTIONS
from specgen.formula.numpy_eval import to_numpy_source
from specgen.generate import literals, rules
from specgen.numerics.exact import rewrite, stored_outcome
from specgen.generate.literals import FILTERS, Code, comment, pyrepr
from specgen.resources import templates_dir

COMMAND = "specgen generate"

_INT_CONVERTERS = {
    "toward_zero": "int",
    "nearest_even": "round",
    "floor": "lambda q: q.__floor__()",
    "nearest_away": "lambda q: int(q + Fraction(1, 2)) if q >= 0 else -int(-q + Fraction(1, 2))",
}


def environment() -> jinja2.Environment:
    """Templates of generated Python: every ``{{ ... }}`` must go through a filter of
    specgen.generate.literals (``finalize`` refuses anything else), so spec text reaches a
    generated module only as an escaped literal or a checked identifier."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined, autoescape=False, finalize=literals.finalize)
    env.filters.update(FILTERS)
    return env


def spec_source(spec) -> str:
    from pathlib import Path
    return f"specs/{Path(spec.path).name}"


def _rational_literals(node):
    """The formula with every numeric literal spelled Fraction('...') (exact integer path)."""
    if isinstance(node, n.Num):
        return n.Var(f"Fraction({node.text!r})", "input")
    if isinstance(node, n.Unary):
        return n.Unary(node.op, _rational_literals(node.operand))
    if isinstance(node, (n.Binary, n.Compare)):
        return type(node)(node.op, _rational_literals(node.left), _rational_literals(node.right))
    if isinstance(node, n.Logical):
        return n.Logical(node.op, tuple(_rational_literals(o) for o in node.operands))
    if isinstance(node, n.Not):
        return n.Not(_rational_literals(node.operand))
    if isinstance(node, n.Call):
        return n.Call(node.func, tuple(_rational_literals(a) for a in node.args))
    return node


def _accepted(std, spec) -> dict[str, str]:
    """A standard's values of the formula-selecting string attribute: operator value -> its spelling
    (a fixed value is spelled as the operator spells it: the standard has no name for it)."""
    b = std.attributes[spec.choice.attribute]
    return {b.fixed: b.fixed} if b.fixed is not None else dict(b.values)


def reference_module(env: jinja2.Environment, spec) -> str:
    inputs = [t.name for t in spec.inputs]
    attrs = list(spec.numeric_attribute_names)
    choice = spec.choice.attribute if spec.choice else None
    all_dtypes = spec.all_dtypes()
    integer = [d for d in all_dtypes if not d.startswith(("float", "bfloat"))]
    default_std = "onnx" if "onnx" in spec.standards else next(iter(spec.standards))
    rounding = stored_outcome(spec, "integer_rounding") if integer else "toward_zero"
    fixes = []
    call_attrs = "".join(f", _attrs[{pyrepr(a)}]" for a in attrs)
    for category in ("nan", "pos_inf", "neg_inf"):
        outcome = stored_outcome(spec, category)
        if outcome == "nan":
            fixes.append(Code(f"_y = np.where(_{category}, np.nan, _y)  # {category}: nan"))
        elif outcome == "zero":
            fixes.append(Code(f"_y = np.where(_{category}, 0.0, _y)  # {category}: zero"))
        elif outcome == "limit":
            fixes.append(Code(f"_y = np.where(_{category}, _fn(*_limit_inputs(_wide){call_attrs}), _y)  # {category}: the limit"))
    special_text = ", ".join(f"{c} -> {stored_outcome(spec, c)}" for c in ("nan", "pos_inf", "neg_inf"))
    overflow = spec.special_values.get("integer_overflow")
    formulas = _formulas(spec)
    helpers = []
    for f in formulas:
        for sub in n.walk(rewrite(f["node"])):
            if isinstance(sub, n.Call) and FUNCTIONS[sub.func].helper_source not in helpers:
                helpers.append(FUNCTIONS[sub.func].helper_source)
    ctx = {
        "helpers": [Code(h.strip()) for h in helpers if h],  # the function table's own source
        "command": COMMAND, "sources": spec_source(spec), "op": spec, "inputs": inputs, "attributes": attrs,
        "defaults": {k: {a: v for a, v in s.defaults().items() if a in attrs} for k, s in spec.standards.items()},
        "version_defaults": {k: s.version_defaults() for k, s in spec.standards.items() if s.version_defaults()},
        "absent_defaults": {k: {v.version: dict(v.absent_defaults) for v in s.versions if v.absent_defaults}
                            for k, s in spec.standards.items() if any(v.absent_defaults for v in s.versions)},
        "default_kind": {k: s.attribute_defaults for k, s in spec.standards.items()},
        "cast_to_input": [k for k, s in spec.standards.items() if s.info.attribute_cast == "input"],
        "dtypes": {k: {v.version: list(v.dtypes(inputs[0])) for v in s.versions} for k, s in spec.standards.items()},
        "output_dtypes": {k: {v.version: list(v.dtypes(spec.outputs[0].name)) for v in s.versions}
                          for k, s in spec.standards.items()},
        # per standard: the input whose data type the output has (a same-data_type constraint), else None
        "output_source": {k: next((inputs.index(t) for c in s.constraints if "data_type" in c.same
                                   and spec.outputs[0].name in c.tensors for t in c.tensors if t in inputs), None)
                          for k, s in spec.standards.items()},
        "integer_dtypes": integer, "integer_rounding": rounding,
        "integer_converter": Code(_INT_CONVERTERS.get(rounding, "int")),
        "integer_overflow": overflow.default[0] if overflow else "unspecified",
        "output_from": _output_from(spec, choice),
        # ml_dtypes formats besides bfloat16 the spec's tables list (float8): numpy names them by their own
        # spelling (float8_e4m3fn), rounded like bfloat16 through a round-to-odd float32 step
        "ml_floats": {d: dt.get(d).numpy.name for d in all_dtypes
                      if dt.get(d).is_float and dt.get(d).bits == 8},
        "formula_block": _formula_block(formulas, inputs + attrs, bool(integer), spec),
        "choice": choice,
        "choices": {k: _accepted(s, spec) for k, s in spec.standards.items()} if choice else {},
        "choice_defaults": {k: s.defaults()[choice] for k, s in spec.standards.items()} if choice else {},
        "signature": Code(", ".join([literals.ident(i) for i in inputs]
                                    + [f"{literals.ident(a)}=None" for a in attrs + ([choice] if choice else [])]
                                    + ["*", f"standard={pyrepr(default_std)}", "version=None"])),
        "attribute_dict": Code("{" + ", ".join(f"{pyrepr(a)}: {literals.ident(a)}" for a in attrs) + "}"),
        "input_list": Code(", ".join(f"np.asarray({literals.ident(i)})" for i in inputs)),
        "input_doc": " and ".join(f"``{i}``" for i in inputs),
        "special_fixes": fixes, "special_text": special_text, "standards": list(spec.standards),
    }
    return env.get_template("reference/op.py.j2").render(ctx)


def _output_from(spec, choice) -> str | None:
    """The attribute whose value is the output's dtype (dtype_from), which must be the one choosing the
    formula (the generated function resolves that value once)."""
    src = spec.outputs[0].dtype_from
    if src is not None and src != choice:
        raise ValueError(f"{spec.id}: output dtype attribute {src!r} must be the formula's choice attribute")
    return src


def _formulas(spec) -> list[dict]:
    """Each distinct formula once (the operator's first), with the standards that use it; for a
    formula chosen by a string attribute, one per value (``value``), with the standards accepting it."""
    if spec.choice is not None:
        out = []
        for value in spec.choice_values:
            node = spec.choice.formulas[value]
            out.append({"node": node, "suffix": f"_{value}", "value": value,
                        "text": f"{spec.choice.attribute}={value}: {spec.choice.texts[value].strip()}",
                        "standards": [k for k, s in spec.standards.items() if value in _accepted(s, spec)],
                        "numpy_source": to_numpy_source(rewrite(node)),
                        "exact_source": to_numpy_source(_rational_literals(node))})
        return out
    out: list[dict] = []
    for key in [None] + list(spec.standards):
        node = spec.formula_for(key)
        for f in out:
            if f["node"] == node:
                if key is not None:
                    f["standards"].append(key)
                break
        else:
            out.append({"node": node, "suffix": "" if not out else f"_{key}",
                        "text": spec.formula_text_for(key).strip(),
                        "standards": [] if key is None else [key],
                        "numpy_source": to_numpy_source(rewrite(node)),
                        "exact_source": to_numpy_source(_rational_literals(node))})
    return out


def _table(formulas, prefix, spec=None) -> str:
    """Source of the dict from standard key to its formula function, in spec order (a chosen
    formula: standard key -> value -> function)."""
    if spec is not None and spec.choice is not None:
        rows = []
        for k in spec.standards:
            fns = [f"{pyrepr(f['value'])}: {prefix}{f['suffix']}" for f in formulas if k in f["standards"]]
            rows.append(f"{pyrepr(k)}: {{{', '.join(fns)}}}")
        return "{" + ", ".join(rows) + "}"
    items = [(k, f"{prefix}{f['suffix']}") for f in formulas for k in f["standards"]]
    return "{" + ", ".join(f"{pyrepr(k)}: {fn}" for k, fn in items) + "}"


def _formula_block(formulas, args, integer: bool, spec=None) -> Code:
    """The formula functions (one per distinct formula) and the FORMULA table by standard."""
    signature = ", ".join(literals.ident(a) for a in args)
    parts = []
    for f in formulas:
        note = f"# {comment(', '.join(f['standards']) + ': ' + f['text'])}\n" if f["suffix"] else ""
        if f.get("value"):
            note = f"# {comment(f['text'])}\n"
        parts.append(f"{note}def _formula{f['suffix']}({signature}):\n    return {f['numpy_source']}")
        if integer:
            parts.append(f"def _formula_exact{f['suffix']}({signature}):\n    return {f['exact_source']}")
    what = ("# The formula each standard defines, by the value of "
            f"{spec.choice.attribute!r} it is chosen by." if spec is not None and spec.choice
            else "# The formula each standard defines.")
    tables = what + "\nFORMULA = " + _table(formulas, "_formula", spec)
    if integer:
        tables += "\nFORMULA_EXACT = " + _table(formulas, "_formula_exact", spec)
    return Code("\n\n\n".join(parts + [tables]))


def validation_tables(spec) -> tuple[dict, dict]:
    op = {"id": spec.id, "name": spec.name, "inputs": [t.name for t in spec.inputs],
          "outputs": [t.name for t in spec.outputs], "attributes": list(spec.attribute_names)}
    standards = {}
    for key, s in spec.standards.items():
        required = [a for a, b in s.attributes.items() if b.must_be_given(s.attribute_defaults)]
        layout = rules.layout(s.info)
        standards[key] = {
            "title": s.info.title, "operator": s.operator, "version_kind": s.info.version_kind,
            "version_label": s.info.version_label,
            "tensor_names": {t: b.name for t, b in s.tensors.items()},
            # an attribute that selects the operator (operators) has no name of the standard's: its own
            "attribute_names": {a: b.name or a for a, b in s.attributes.items() if b.fixed is None},
            # string attributes: operator value -> the standard's spelling, every value it accepts
            **({"attribute_values": {a: dict(b.values) for a, b in s.attributes.items() if b.values}}
               if any(b.values for b in s.attributes.values()) else {}),
            # string attributes whose values depend on the kind of tensor type (ONNX Mod's fmod)
            **({"attribute_kind_values": {a: {"accepted": {k: [b.spell(v) for v in vs] for k, vs in b.kind_values.items()},
                                              "default": None if b.default is None else b.spell(b.default)}
                                          for a, b in s.attributes.items() if b.kind_values}}
               if any(b.kind_values for b in s.attributes.values()) else {}),
            "required": required,
            "constraints": [[list(c.tensors), list(c.same)] for c in s.constraints],
            "strides": layout["strides"], "zero_sizes": layout["zero_sizes"],
            "unknown_attributes": s.info.unknown_attributes,
            "nonfinite_attributes": s.info.nonfinite_attributes,
            # attributes whose type takes NaN and the infinities where the standard's rule does not (WebNN's MLNumber)
            **({"nonfinite_allowed": [a for a, b in s.attributes.items() if b.nonfinite == "allowed"]}
               if any(b.nonfinite == "allowed" for b in s.attributes.values()) else {}),
            # the ordered pair (spec attribute_order) a call may not cross, compared as the standard computes
            **({"crossed_rejected": list(spec.attribute_order), "attribute_cast": s.info.attribute_cast}
               if s.crossed_rejected and spec.attribute_order else {}),
            "versions": {v.version: {
                "tensors": {t: {"dtypes": list(sup.dtypes),
                                "ranks": None if sup.ranks.unspecified else [sup.ranks.min or 0, sup.ranks.max]}
                            for t, sup in v.tensors.items()},
                "extra_attributes": {e.name: e.type for e in v.extra_attributes},
                # a version's own spelling of string attributes' values (ONNX Cast-1's STRING to), replacing the block's
                **({"attribute_values": {a: dict(vals) for a, vals in v.attribute_values.items()}}
                   if v.attribute_values else {}),
                **({"broadcast": [b.to_data() for b in v.broadcast]} if v.broadcast else {})} for v in s.versions},
        }
    return op, standards


def validate_example(spec) -> str:
    """A legal call of the spec's first standard at its latest version (the module's docstring example)."""
    key, std = next(iter(spec.standards.items()))
    ver = std.versions[-1]
    rank = min(max(ver.ranks(t.name).min or 0, 2) if not ver.ranks(t.name).unspecified else 2
               for t in spec.inputs + spec.outputs)
    sizes = [2, 3, 4, 5, 6, 7, 8, 9][:rank]
    tensors = {t.name: {"dtype": ver.dtypes(t.name)[0], "sizes": sizes} for t in spec.inputs + spec.outputs}
    required = {a: (next(iter(b.values.values())) if b.values else 0.5) for a, b in std.attributes.items()
                if b.must_be_given(std.attribute_defaults)}
    is_float = dt.get(tensors[spec.inputs[0].name]["dtype"]).is_float
    for a, b in std.attributes.items():  # a value the example's tensor kind accepts (ONNX Mod's fmod = 1 for floats)
        if a not in required and b.kind_values and b.values and (b.default is None or not b.accepts_for(b.default, is_float)):
            accepted = [v for v in b.values if b.accepts_for(v, is_float)]
            if accepted:
                required[a] = b.spell(accepted[0])
    described = "{" + ", ".join(f"{pyrepr(t)}: {pyrepr(d)}" for t, d in tensors.items()) + "}"  # one line
    return Code(f"validate({pyrepr(key)}, {pyrepr(ver.version)}, {described}, {pyrepr(required)})")


def validate_module(env: jinja2.Environment, spec) -> str:
    op, standards = validation_tables(spec)
    return env.get_template("validate/op.py.j2").render(
        command=COMMAND, sources=spec_source(spec), op=spec, op_data=pyrepr(op), standards_data=pyrepr(standards),
        example=validate_example(spec))


def shared_module(env: jinja2.Environment, template: str) -> str:
    return env.get_template(template).render(command=COMMAND, sources=f"templates/{template}")


# ------------------------------------------------------------------ accumulating operators' validators

_ENGINE_MODULES = ("space.py", "layout.py")  # specgen/indexing/: copied into validate/_index_space.py
_ENGINE_IMPORTS = ("from specgen.formula import nodes as n", "from specgen.indexing.space import ")


def index_space_engine() -> Code:
    """The index-space engine's own source (specgen/indexing/space.py and layout.py: parsing the
    index space, resolving shapes), for the generated validators of the accumulating operators: one
    code path, so a generated validator derives exactly the shapes and violations the corpus has.
    Their imports of specgen are dropped (layout's ``n`` is the module's small stand-in for formula
    nodes); any other import of specgen is refused: the generated package stands alone."""
    from pathlib import Path

    parts = []
    for name in _ENGINE_MODULES:
        text = (Path(__file__).resolve().parents[1] / "indexing" / name).read_text(encoding="utf-8")
        kept = []
        for line in text.splitlines():
            if line.startswith("from __future__ ") or line.startswith(_ENGINE_IMPORTS):
                continue
            if "specgen" in line and line.lstrip().startswith(("import ", "from ")):
                raise ValueError(f"specgen/indexing/{name} imports {line.strip()!r}: the generated validators "
                                 f"copy that module and cannot import specgen")
            kept.append(line)
        parts.append(f"# ---- specgen/indexing/{name}\n" + "\n".join(kept).strip("\n") + "\n")
    return Code("\n\n".join(parts))


def _label_tree(node):
    """The formula as the labels it varies along need it: ("var", name), ("reduce", set, child),
    ("node", children) (literal data for the generated module)."""
    if isinstance(node, n.Var):
        return ("var", node.name)
    if isinstance(node, n.Reduce):
        return ("reduce", node.over, _label_tree(node.operand))
    return ("node", tuple(_label_tree(c) for c in n.children(node)))


def _index_space_data(space) -> dict:
    def fields(obj):
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(obj).items()}

    return {"tensors": {name: fields(t) for name, t in space.tensors.items()},
            "sets": {name: fields(s) for name, s in space.sets.items()},
            "keepdims": space.keepdims, "overrides": [dict(o) for o in space.overrides],
            "nonzero_standards": sorted(space.nonzero_standards)}


def index_validation_tables(spec) -> tuple[dict, dict]:
    op = {"id": spec.id, "name": spec.name, "inputs": list(spec.inputs), "outputs": list(spec.outputs),
          "attributes": list(spec.attributes), "index_space": _index_space_data(spec.index_space),
          "formula": _label_tree(spec.formula)}
    standards = {key: {"operator": std.operator, "empty": std.empty, "defaults": spec.defaults(key),
                       "versions": {v.version: {"dtypes": list(v.dtypes()), "attributes": list(v.attributes),
                                                "as_inputs": list(v.as_inputs), "max_rank": v.max_rank}
                                    for v in std.versions}}
                 for key, std in spec.standards.items()}
    return op, standards


def index_validate_example(spec) -> Code:
    """A legal call of the spec's first standard at its latest version, from its designed cases."""
    from specgen.indexing.design import cases

    key, std = next(iter(spec.standards.items()))
    ver = std.versions[-1]
    case = next(c for c in cases(spec, key, ver.version, ver.dtypes()[0], lengths=(3,)) if c.kind == "positive")
    tensors = {t: {"dtype": case.dtype, "sizes": list(s)} for t, s in case.shapes.items() if s is not None}
    given = {a: case.attributes[a] for a in case.given}
    described = "{" + ", ".join(f"{pyrepr(t)}: {pyrepr(d)}" for t, d in tensors.items()) + "}"
    return Code(f"validate({pyrepr(key)}, {pyrepr(ver.version)}, {described}, {pyrepr(given)})")


def index_validate_module(env: jinja2.Environment, spec) -> str:
    op, standards = index_validation_tables(spec)
    return env.get_template("validate/index_op.py.j2").render(
        command=COMMAND, sources=f"specs/accumulating/{__import__('pathlib').Path(spec.path).name}", op=spec,
        op_data=pyrepr(op), standards_data=pyrepr(standards), example=index_validate_example(spec))


def index_space_module(env: jinja2.Environment) -> str:
    return env.get_template("validate/_index_space.py.j2").render(
        command=COMMAND, sources="templates/validate/_index_space.py.j2 and specgen/indexing/" + ", ".join(_ENGINE_MODULES),
        engine=index_space_engine())
