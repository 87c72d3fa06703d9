"""The ONNX blocks of specs/ agree with the operator schemas shipped in the onnx package.

A cross-check against an independent source: every opset version we list is a real
since_version of that operator, attribute names and defaults match (defaults are float32
values, 0.2 -> 0.20000000298023224), type constraints give exactly our dtypes, and no
since_version of the schema is missing from the spec.

Where a spec differs on purpose, DELIBERATE names the difference with its reason (data, not code):
the test then checks exactly that difference and nothing looser.
"""
import pytest

from specgen.spec.loader import load_all

onnx_defs = pytest.importorskip("onnx.defs")

ONNX_TYPES = {
    "tensor(double)": "float64", "tensor(float)": "float32", "tensor(float16)": "float16",
    "tensor(bfloat16)": "bfloat16", "tensor(int64)": "int64", "tensor(int32)": "int32",
    "tensor(int16)": "int16", "tensor(int8)": "int8", "tensor(uint64)": "uint64",
    "tensor(uint32)": "uint32", "tensor(uint16)": "uint16", "tensor(uint8)": "uint8", "tensor(bool)": "bool",
    "tensor(float8e4m3fn)": "float8e4m3fn", "tensor(float8e4m3fnuz)": "float8e4m3fnuz",
    "tensor(float8e5m2)": "float8e5m2", "tensor(float8e5m2fnuz)": "float8e5m2fnuz",
}
# dtypes specgen gained after most specs were written: a spec that lists none of them (Identity-19's tables,
# IsNaN-20's) leaves them out as it leaves out types specgen has no dtype for (unrepresentable_types)
LATE_TYPES = {t for t, d in ONNX_TYPES.items() if d.startswith("float8")}

ALL = load_all()
SPECS = {k: s for k, s in ALL.items() if "onnx" in s.standards}

# (op id, opset) -> what the spec deliberately does not say as the schema does, with the reason.
DELIBERATE = {
    **{("identity", v): {
        "unrepresentable_types": True,
        "dropped_types": ["bool"],
        **({"type_param": "T"} if v in ("1", "13") else {}),
        "reason": "specgen's dtypes are numeric tensors (specgen/dtypes.py): string, bool, complex, "
                  "float8/float4/int4/int2 tensors, sequences and optionals cannot be described, so "
                  "the spec lists the numeric part of the type constraint; and a binding has one "
                  "type_param, V (opsets 14 onwards), where opsets 1 and 13 say T; bool, a dtype since the "
                  "comparison family, is not listed yet (Identity's cases of it are future work)",
    } for v in ("1", "13", "14", "16", "19", "21", "23", "24", "25")},
    **{(op, v): {"unrepresentable_types": True,
                 "reason": "the type constraint also lists tensor(string) (Equal-19, Where), complex64 and complex128 "
                           "(Where) or the float8 types (IsNaN-20, IsInf-20), which specgen has no dtype for: the "
                           "spec lists the numeric and bool part"}
       for op, v in (("equal", "19"), ("where", "9"), ("where", "16"), ("is_nan", "20"), ("is_inf", "20"))},
    ("erf", "9"): {
        "dropped_types": ["int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8"],
        "reason": "Erf-9 lists integer tensors, which Erf-13 drops; specgen requires every version to support "
                  "all its predecessor did (specgen/spec/loader.py), so the spec lists Erf-9's float types only "
                  "(an integer erf would round erf(x), in (-1, 1), to 0 or +-1)",
    },
    # the variadic Max / Min: the spec is their two-input call, the list data_0 named by its elements
    **{(op, v): {"variadic": True,
                 "reason": "ONNX Max and Min take a variadic list data_0 of 1 to 2147483647 tensors; the spec "
                           "covers two-input calls only, its tensors a and b named data_0 and data_1 (the "
                           "list's first two elements; a one-node model's graph inputs need distinct names)"}
       for op in ("maximum", "minimum") for v in ("8", "12", "13")},
    **{("cast", v): {
        **({"unrepresentable_types": True} if v != "6" else {}),
        **({"attributes_as_facts": ["round_mode"]} if int(v) >= 24 else {}),
        "reason": "Cast's T1/T2 also list tensor(string) (9+), int4/uint4 (21+), float4e2m1 "
                  "(23+), float8e8m0 (24+), int2/uint2 (25+) and the float6 types (28), which specgen has no dtype for; "
                  "round_mode (24+) applies only to float8e8m0 targets, a type specgen has none for, so the spec "
                  "records it as a fact of the version (facts.round_mode), not an extra attribute: an extra attribute "
                  "would split the run of equal rows that designed_at_ends and rank_sweep_once rely on"}
       for v in ("6", "9", "13", "19", "21", "23", "24", "25", "28")},
    ("power", "7"): {"type_param": "T",
                     "reason": "Pow-7's exponent Y is of T; from opset 12 it has its own list T1, and a binding "
                               "has one type_param for every version, so the spec says T1 (its dtypes are T's)"},
    **{("power", v): {"same_types_as_base": ["T1"],
                      "reason": "Pow-12+'s exponent Y takes T1, a longer list than the base's T (integers of every "
                                "width, and floats for an integer base); the corpus calls Pow with an exponent of "
                                "the base's type only, so the spec lists T's types for Y and T1 as a fact "
                                "(facts.exponent_types)"}
       for v in ("12", "13", "15")},
}

# (op id, opset) that a spec leaves out on purpose, with the reason.
LEFT_OUT = {
    **{(op, v): "its legacy broadcast/axis attributes (default broadcast = 0: both inputs of one shape) need a "
                "per-version shape rule that the spec format does not have yet"
       for op in ("add", "sub", "mul", "div") for v in ("1", "6")},
    ("power", "1"): "its legacy broadcast/axis attributes need a per-version shape rule the format does not have yet",
    **{(op, v): "no broadcasting there (every input of one shape) needs a per-version shape rule the format "
                "does not have yet"
       for op in ("maximum", "minimum") for v in ("1", "6")},
    **{(op, "1"): "its legacy broadcast/axis attributes (default broadcast = 0: both inputs of one shape) need a "
                  "per-version shape rule that the spec format does not have yet"
       for op in ("equal", "less", "greater", "logical_and", "logical_or", "logical_xor")},
    ("mod", "28"): "Mod-28 lets fmod = 0 and 1 take every type (floor mod of floats, with its own special cases), "
                   "where 10 and 13 tie fmod to the tensor kind; kind_values is per standard, not per version, yet",
}


def _since_versions(op_name):
    versions = set()
    for v in range(1, 40):
        try:
            versions.add(onnx_defs.get_schema(op_name, v).since_version)
        except Exception:
            continue
    return versions


@pytest.mark.parametrize("op_id", sorted(SPECS))
def test_every_onnx_since_version_is_listed(op_id):
    std = SPECS[op_id].standards["onnx"]
    since = {str(v) for v in _since_versions(std.operator)}
    left_out = {v for (o, v) in LEFT_OUT if o == op_id}
    assert left_out <= since
    assert set(std.version_ids) == since - left_out


@pytest.mark.parametrize("op_id,version", [(k, v) for k, s in sorted(SPECS.items())
                                           for v in s.standards["onnx"].version_ids])
def test_onnx_version_matches_schema(op_id, version):
    std = SPECS[op_id].standards["onnx"]
    schema = onnx_defs.get_schema(std.operator, int(version))
    assert str(schema.since_version) == version
    entry = std.version(version)
    deliberate = DELIBERATE.get((op_id, version), {})
    # tensor names and type parameter
    names_in_schema = [i.name for i in schema.inputs] + [o.name for o in schema.outputs]
    if deliberate.get("variadic"):  # the first two elements of the variadic input list
        (first,) = [i.name for i in schema.inputs]
        names_in_schema = [first, first[:-1] + "1"] + names_in_schema[1:]
    # attributes the version takes as optional inputs (Clip-11's min, max) follow the declared inputs
    declared = [b.name for b in std.tensors.values()]
    n_in = len(SPECS[op_id].inputs)
    taken = [std.attributes[a].name for a in entry.as_inputs]
    assert declared[:n_in] + taken + declared[n_in:] == names_in_schema
    for name in taken:
        assert next(i for i in schema.inputs if i.name == name).option == onnx_defs.OpSchema.FormalParameterOption.Optional
    params = {b.type_param for b in std.tensors.values()}
    schema_params = {i.type_str for i in schema.inputs} | {o.type_str for o in schema.outputs}
    if "type_param" in deliberate:
        assert params != schema_params and schema_params == {deliberate["type_param"]}
    else:
        assert params == schema_params
    # attributes: formula attributes with defaults, plus the version's extra attributes
    # fixed: not an ONNX attribute; one whose applies_when no call of this version meets is none of its attributes
    # (Cast's saturate, float 8 targets only, before 19)
    names = {b.name: b for b in std.attributes.values()
             if b.fixed is None and b.attribute not in entry.as_inputs
             and SPECS[op_id].exists_in(b.attribute, "onnx", version)}
    extras = {e.name for e in entry.extra_attributes}
    as_facts = set(deliberate.get("attributes_as_facts", ()))
    assert as_facts <= set(entry.facts) and not as_facts & (set(names) | extras)
    assert set(schema.attributes) == set(names) | extras | as_facts
    defaults = std.defaults(version)  # the version's own where it has some (Selu-1)
    for name, binding in names.items():
        attr = schema.attributes[name]
        if binding.attribute in SPECS[op_id].dtype_attributes:
            # an output type by name (Cast's to): required, each dtype spelled as its TensorProto.DataType, the
            # enum's integer (INT) or, where the version spells it so (attribute_values: Cast-1), its name (STRING)
            from onnx import TensorProto

            spelled = std.at(version).attributes[binding.attribute].values
            by_name = all(isinstance(v, str) for v in spelled.values())
            assert attr.type == (onnx_defs.OpSchema.AttrType.STRING if by_name else onnx_defs.OpSchema.AttrType.INT)
            assert attr.required and binding.required, name
            for dtype, spelling in spelled.items():
                enum = TensorProto.DataType.Value(spelling) if by_name else spelling
                assert ONNX_TYPES[f"tensor({TensorProto.DataType.Name(enum).lower()})"] == dtype, (name, dtype)
            assert set(entry.dtypes(next(t.name for t in SPECS[op_id].outputs if t.dtype_from == binding.attribute))) \
                <= set(spelled), name
            continue
        if binding.values and all(isinstance(v, int) for v in binding.values.values()):
            # a string attribute that ONNX spells as an integer flag (Mod's fmod): INT, its default, each value in the doc
            assert attr.type == onnx_defs.OpSchema.AttrType.INT, name
            assert attr.default_value.i == binding.spell(binding.default), name
            for spelling in binding.values.values():
                assert str(spelling) in attr.description, (name, spelling)
            continue
        if binding.values:  # a string attribute: the default in ONNX's spelling, every value in the doc
            assert attr.type == onnx_defs.OpSchema.AttrType.STRING, name
            assert attr.default_value.s.decode() == binding.spell(binding.default), name
            for spelling in binding.values.values():
                assert f'"{spelling}"' in attr.description, (name, spelling)
            continue
        if binding.attribute in entry.absent_defaults:  # no default in the schema (Clip-1): the text's limits
            assert not attr.default_value.HasField("f"), name
            continue
        if attr.type == onnx_defs.OpSchema.AttrType.INT:  # an integer attribute (IsInf's detect_positive)
            assert attr.default_value.i == defaults[binding.attribute], name
            continue
        assert attr.default_value.f == defaults[binding.attribute], name
    # dtypes: exactly the type constraint of each tensor's type parameter (the base's where the spec
    # deliberately lists the base's types for another parameter, or the version has no such parameter)
    by_param = {c.type_param_str: c for c in schema.type_constraints}
    base = next(iter(std.tensors.values())).type_param
    base = base if base in by_param else next(iter(by_param))
    same_as_base = set(deliberate.get("same_types_as_base", ()))
    any_left_out = False  # some tensor's constraint lists types specgen has none for (bool outputs have none)
    assert same_as_base <= set(by_param)
    for name, tensor in entry.tensors.items():
        param = std.tensors[name].type_param
        constraint = by_param[base if param in same_as_base or param not in by_param else param]
        known = {t for t in ONNX_TYPES if t not in LATE_TYPES or ONNX_TYPES[t] in SPECS[op_id].all_dtypes()}
        expected = {ONNX_TYPES[t] for t in constraint.allowed_type_strs if t in known}
        left_out = [t for t in constraint.allowed_type_strs if t not in known]
        assert not left_out or deliberate.get("unrepresentable_types"), left_out
        any_left_out = any_left_out or bool(left_out)
        dropped = set(deliberate.get("dropped_types", ()))
        assert dropped <= expected
        assert set(tensor.dtypes) == expected - dropped
    assert any_left_out == bool(deliberate.get("unrepresentable_types"))


def test_every_deliberate_difference_names_a_listed_version_and_a_reason():
    for (op_id, version), entry in DELIBERATE.items():
        assert version in SPECS[op_id].standards["onnx"].version_ids
        assert len(entry["reason"]) > 40
    for (op_id, version), reason in LEFT_OUT.items():
        assert version not in SPECS[op_id].standards["onnx"].version_ids and len(reason) > 40


@pytest.mark.parametrize("op_id", sorted(k for k, s in ALL.items() if "onnx" not in s.standards))
def test_a_spec_without_an_onnx_block_names_no_onnx_operator(op_id):
    """ScaledTanh and ParametricSoftplus were experimental ONNX operators, dropped long ago; should the
    installed onnx define an operator of the spec's name again, the spec needs its ONNX block."""
    name = ALL[op_id].name
    assert not onnx_defs.has(name), f"onnx defines {name}: add an onnx block to specs/{op_id}.yaml"
