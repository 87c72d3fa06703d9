"""Semantic checks the JSON Schema cannot express, kept in one small module beside it.

- identifiers: the op id, tensor and attribute names become Python names in generated code, so
  each must be a valid identifier that is not a keyword, a builtin, numpy's or ml_dtypes' module
  name, or a name the generated modules themselves use;
- templates: ``version_label`` and ``tensor_type`` in _standards.yaml may hold only their
  documented named fields (``{version}``, ``{type_param}``), no attribute or index access, no
  conversion or format spec (specgen.spec.safe_format fills them);
- numbers: attribute defaults and test attribute values must be finite and representable in
  their storage type (a nonzero value that rounds to 0 in float32 is an error, not a silent 0.0);
- cross-file: one operator per id, per name and per standard operator name in a specs directory;
  a specs directory carries its own _standards.yaml (a regular file: never a silent fallback to
  the bundled one) and its spec files are regular files inside it.
"""
from __future__ import annotations

import builtins
import keyword
import math
import os
from pathlib import Path

import numpy as np

from specgen.errors import Problem, SpecError
from specgen.spec import safe_format
from specgen.spec.yaml_source import Document, join_keypath

# Names the generated modules (templates/reference/op.py.j2, templates/validate/op.py.j2) define
# or import at module level, and the reference function's own parameters.
GENERATED_NAMES = frozenset({
    "np", "numpy", "ml_dtypes", "Fraction", "fractions", "annotations",
    "OPERATOR", "ATTRIBUTES", "DEFAULTS", "DEFAULT_KIND", "DTYPES", "INTEGER_ROUNDING", "FORMULA", "FORMULA_EXACT",
    "OP", "STANDARDS", "check", "validate", "standard", "version",
})
RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | GENERATED_NAMES

STANDARDS_FILE = "_standards.yaml"
TEMPLATE_FIELDS = {"version_label": ("version",), "tensor_type": ("type_param",)}

_FLOAT32 = np.finfo(np.float32)


def identifier_problem(name: str) -> str | None:
    """Why ``name`` cannot be a Python name in generated code, or None when it can."""
    if not name.isidentifier() or not name.isascii():
        return f"{name!r} is not a valid identifier"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return f"{name!r} is a Python keyword"
    if name.startswith("_"):
        return f"{name!r} starts with '_', which generated code keeps for its own names"
    if name in GENERATED_NAMES:
        return f"{name!r} is a name the generated modules use"
    if name in dir(builtins):
        return f"{name!r} would shadow the Python builtin of that name"
    return None


def check_operator(doc: Document) -> list[Problem]:
    """Identifier and number checks on a schema-valid operator document."""
    data, out = doc.data, []

    def err(keypath, message):
        line, column = doc.where(keypath)
        out.append(Problem(doc.path, line, join_keypath(keypath), message, column))

    if isinstance(data.get("id"), str):
        why = identifier_problem(data["id"])
        if why:
            err(("id",), f"{why}; the id names the generated function and module: choose another id")
    for key in ("inputs", "outputs", "attributes"):
        for i, entry in enumerate(data.get(key) or []):
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                why = identifier_problem(entry["name"])
                if why:
                    err((key, i, "name"), f"{why}; {key[:-1]} names become parameters of generated code: rename it")
    types = {a["name"]: a.get("type") for a in data.get("attributes") or [] if isinstance(a, dict) and "name" in a}
    for std, block in (data.get("standards") or {}).items():
        for name, binding in ((block or {}).get("attributes") or {}).items():
            if isinstance(binding, dict) and "default" in binding:
                why = representable(binding["default"], types.get(name))
                if why:
                    err(("standards", std, "attributes", name, "default"), why)
    for i, entry in enumerate(data.get("test_attributes") or []):
        for name, value in ((entry or {}).get("values") or {}).items():
            if isinstance(value, float) and math.isinf(value) and types.get(name) in ("float32", "float64"):
                continue  # a designed infinity (an unbounded side): the standards that reject it leave the set out
            why = representable(value, types.get(name))
            if why:
                err(("test_attributes", i, "values", name), why)
    for i, entry in enumerate(data.get("examples") or []):
        for name, value in ((entry or {}).get("attributes") or {}).items():
            why = representable(value, types.get(name))
            if why:
                err(("examples", i, "attributes", name), why)
    return out


def representable(value, storage: str | None) -> str | None:
    """Why ``value`` cannot be stored as ``storage`` (float32, float64, int32, int64), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or storage is None:
        return None  # the schema and the loader say what is wrong with the type
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be finite, got {value!r}"
    if storage in ("int32", "int64"):
        if isinstance(value, float) and not value.is_integer():
            return f"must be an integer for type {storage}, got {value!r}"
        info = np.iinfo(storage)
        if not info.min <= int(value) <= info.max:
            return f"{value!r} does not fit in {storage} ({info.min} to {info.max})"
        return None
    try:
        as_float = float(value)
    except OverflowError:
        return f"{value!r} does not fit in {storage}"
    if storage == "float32":
        if abs(as_float) > float(_FLOAT32.max):
            return None  # the loader's own message ("does not fit in float32 (largest finite is ...)")
        if as_float != 0 and float(np.float32(as_float)) == 0:
            return (f"{value!r} underflows to 0 in float32 (smallest subnormal is "
                    f"{float(_FLOAT32.smallest_subnormal)!r}); write 0 if zero is meant")
    return None


def check_standards(doc: Document) -> list[Problem]:
    """_standards.yaml: the page templates hold only their documented fields."""
    out = []
    for key, entry in (doc.data.get("standards") or {}).items():
        for field, allowed in TEMPLATE_FIELDS.items():
            value = (entry or {}).get(field)
            if isinstance(value, str):
                why = safe_format.template_problem(value, allowed)
                if why:
                    line, column = doc.where(("standards", key, field))
                    out.append(Problem(doc.path, line, join_keypath(("standards", key, field)), why, column))
    return out


def standards_file(directory) -> Path:
    """The _standards.yaml of a specs directory; SpecError when it has none (reading it refuses a
    directory, a symlink loop or any other non-regular file)."""
    path = Path(directory) / STANDARDS_FILE
    if not os.path.lexists(path):
        raise SpecError([Problem(str(path), None, "", f"no {STANDARDS_FILE}: a specs directory carries its own registry "
                                                      f"of standards (copy specs/{STANDARDS_FILE})")])
    return path


def outside_directory(path: Path, directory) -> Problem | None:
    """A spec file that is a symbolic link out of its specs directory is not read."""
    try:
        inside = Path(path).resolve().is_relative_to(Path(directory).resolve())
    except (OSError, RuntimeError):  # a symlink loop: reading it reports that
        return None
    if inside:
        return None
    return Problem(str(path), None, "", "a symbolic link out of the specs directory; only files inside it are read")


def check_unique(specs: dict) -> list[Problem]:
    """One operator per id, name and standard operator name across a specs directory.

    ``specs``: {path: OpSpec}. Two files describing the same operator would give two corpora and
    two reference modules for one thing; the second file (in sorted order) gets the problem."""
    out: list[Problem] = []
    seen: dict[tuple, str] = {}
    for path, spec in specs.items():
        keys = [("name", spec.name, "name")]  # ids: the loader already refuses a second file with an id
        keys += [(f"standards.{k}.operator", (k, s.operator, s.domain), f"{s.info.title} operator {s.operator!r}")
                 for k, s in spec.standards.items()]
        for keypath, value, what in keys:
            first = seen.setdefault((keypath.split(".")[-1], value), path)
            if first != path:
                label = value if isinstance(value, str) else what
                out.append(Problem(str(path), None, keypath,
                                   f"{label!r} is already described by {first}: one operator per spec file"
                                   if isinstance(value, str) else f"{what} is already described by {first}: "
                                                                  f"one operator per spec file"))
    return out
