"""The spec format as JSON Schema: specgen/schemas/{operator,standards}.schema.json.

The schemas are the single description of the format's shape (types, enumerations, ranges,
patterns, required and unknown keys); editors validate and complete specs against them
(``# yaml-language-server: $schema=...``) and docs/spec-format.md is generated from them.
``validate`` runs a well-kept validator (``jsonschema``) over a document read by
specgen.spec.yaml_source and maps every error back to the file's line and column and the key
path, in the same ``FILE:LINE:COLUMN: key.path: message`` form as every other problem. Rules the
schema cannot express (names declared elsewhere, versions in order, cross-file uniqueness) are in
specgen.spec.semantic and specgen.spec.loader.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import jsonschema
from jsonschema.exceptions import best_match

from specgen.errors import Problem
from specgen.spec.yaml_source import Document, join_keypath

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"
SCHEMAS = {"operator": "operator.schema.json", "standards": "standards.schema.json",
           "framework_ops": "framework_ops.schema.json",  # specgen/adapters/<backend>_ops.yaml (framework_ops.py)
           "torch_ops": "framework_ops.schema.json",  # the name torch's mapping was first validated under
           "baseline": "baseline.schema.json"}  # baselines/*.yaml (specgen.runner.baseline)

_TYPE_WORDS = {"string": "a string", "object": "a mapping", "array": "a list", "number": "a number",
               "integer": "an integer", "boolean": "true or false", "null": "null"}


def schema_path(kind: str) -> Path:
    return SCHEMA_DIR / SCHEMAS[kind]


@lru_cache(maxsize=None)
def schema(kind: str) -> dict:
    return json.loads(schema_path(kind).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator(kind: str):
    # the bundled schemas are checked against their metaschema by tests/test_untrusted_specs.py, not
    # here: check_schema costs 0.2 s in every process that loads a spec (each CLI call)
    return jsonschema.validators.validator_for(schema(kind))(schema(kind))


def validate(doc: Document, kind: str) -> list[Problem]:
    """Every schema violation in ``doc`` (kind: "operator" or "standards"), in file order."""
    problems: dict[tuple, Problem] = {}
    for error in _validator(kind).iter_errors(doc.data):
        for keypath, message in _explain(error):
            line, column = doc.where(keypath)
            key = (keypath, message)
            if key not in problems:
                problems[key] = Problem(doc.path, line, join_keypath(keypath), message, column)
    return sorted(problems.values(), key=lambda p: (p.line or 0, p.column or 0, p.keypath, p.message))


def value_kind(value) -> str:
    """How an error message names a YAML value's type (``boolean true``, ``number 1.5``, ``a list``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        return f"string {value!r}" if len(value) < 40 else "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _choices(values) -> str:
    return ", ".join("true" if v is True else "false" if v is False else str(v) for v in values)


def _explain(error) -> list[tuple[tuple, str]]:
    """(key path, message) pairs for one jsonschema error, worded like the rest of lint."""
    path = tuple(error.absolute_path)
    v, value, sch = error.validator, error.instance, error.schema
    if isinstance(sch, dict) and "x-message" in sch and v == "not":
        return [(path, sch["x-message"])]
    if "propertyNames" in error.relative_schema_path and isinstance(value, str):  # a key, checked as a name
        keypath = path + (value,)
        if v in ("enum", "const"):
            allowed = error.validator_value if v == "enum" else [error.validator_value]
            return [(keypath, f"unknown key {value!r}; expected one of: {_choices(allowed)}")]
        if v == "pattern":
            return [(keypath, f"{value!r} is not a valid {sch.get('x-what', 'key')}")]
    if v in ("anyOf", "oneOf"):
        # the branch of the instance's own type says most ("min: -1" rather than "not 'unspecified'")
        typed = [e for e in error.context if e.validator != "type" and e.validator != "const"
                 and e.validator != "enum"]
        if typed and isinstance(value, (dict, list)):
            return _explain(best_match(typed))
        if isinstance(value, list) and all(not isinstance(x, (dict, list)) for x in value):
            inner = [e for e in error.context if e.absolute_path != error.absolute_path]
            if inner:
                return _explain(best_match(inner))
        enums = [b["enum"] for b in map(_resolve, sch.get("anyOf", sch.get("oneOf", []))) if "enum" in b]
        if enums and not isinstance(value, (dict, list)):
            lists = any(_resolve(b).get("type") == "array" for b in sch.get("anyOf", sch.get("oneOf", [])))
            return [(path, f"{value_kind(value)} is not allowed; expected one of: {_choices(enums[0])}"
                           + (" (or a list of them)" if lists else ""))]
        return [(path, f"must be {_describe(sch)}, got {value_kind(value)}")]
    if v == "required":
        return [(path, f"missing required key {k!r}") for k in error.validator_value
                if isinstance(value, dict) and k not in value]
    if v == "additionalProperties":
        allowed = sorted(sch.get("properties", {}))
        out = []
        for k in value:
            if k not in allowed:
                out.append((path + (k,), f"unknown key {k!r}; expected one of: {', '.join(allowed)}"))
        return out
    if v == "type":
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return [(path, f"must be {' or '.join(_TYPE_WORDS[t] for t in types)}, got {value_kind(value)}")]
    if v in ("enum", "const"):
        allowed = error.validator_value if v == "enum" else [error.validator_value]
        return [(path, f"{value_kind(value)} is not allowed; expected one of: {_choices(allowed)}")]
    if v == "pattern":
        return [(path, f"{value!r} is not a valid {sch.get('x-what', 'value')}")]
    if v == "minLength":
        return [(path, "must be a non-empty string" if error.validator_value == 1
                 else f"must be at least {error.validator_value} characters")]
    if v == "maxLength":
        return [(path, f"is {len(value)} characters long; the limit is {error.validator_value}")]
    if v == "minItems":
        return [(path, f"must list at least {error.validator_value} item{'s' if error.validator_value != 1 else ''}")]
    if v == "maxItems":
        return [(path, f"lists {len(value)} items; the limit is {error.validator_value}")]
    if v == "minProperties":
        return [(path, f"must have at least {error.validator_value} entr{'ies' if error.validator_value != 1 else 'y'}")]
    if v == "uniqueItems":
        dup = sorted({str(x) for x in value if value.count(x) > 1})
        return [(path, f"lists an item twice: {', '.join(dup)}")]
    if v == "minimum":
        return [(path, f"must be >= {error.validator_value}, got {value_kind(value)}")]
    if v == "maximum":
        return [(path, f"must be <= {error.validator_value}, got {value_kind(value)}")]
    return [(path, error.message)]  # pragma: no cover - every keyword the schemas use is handled above


def _describe(sch: dict) -> str:
    """Words for what an anyOf accepts: "a mapping {min, max} or 'unspecified'"."""
    parts = []
    for branch in sch.get("anyOf", sch.get("oneOf", [])):
        branch = _resolve(branch)
        if "const" in branch:
            parts.append(repr(branch["const"]))
        elif "enum" in branch:
            parts.append("one of " + _choices(branch["enum"]))
        elif branch.get("type") == "object" and branch.get("required"):
            parts.append("a mapping {" + ", ".join(branch["required"]) + "}")
        elif "type" in branch:
            types = branch["type"] if isinstance(branch["type"], list) else [branch["type"]]
            parts.append(" or ".join(_TYPE_WORDS[t] for t in types))
    return " or ".join(parts) or "a valid value"


def _resolve(branch: dict) -> dict:
    ref = branch.get("$ref")
    if not ref:
        return branch
    name = ref.rsplit("/", 1)[1]
    for kind in SCHEMAS:
        found = schema(kind).get("$defs", {}).get(name)
        if found is not None:
            return _resolve(found)
    return branch
