"""Load and validate spec files into the typed model.

``check_file`` returns every problem it finds (``specgen lint`` prints them all);
``load_spec``/``load_all`` raise SpecError listing them. Checks are about meaning, not only shape:
known dtypes, ordered feature levels that only ever add support, defaults of the declared type,
every formula name declared and every declared name used, standard mappings that name only
declared tensors and attributes, tolerances for every dtype a table lists, examples that agree
with the formula.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from specgen import dtypes as dt
from specgen.errors import FormulaError, Problem, SpecError
from specgen.formula.nodes import names as formula_names
from specgen.formula.numpy_eval import evaluate
from specgen.formula.parser import parse_formula
from specgen.resources import specs_in_use
from specgen.spec import model as m
from specgen.spec import input_transforms, load_cache, schema, semantic
from specgen.spec.schema import value_kind as _kind
from specgen.spec.yaml_source import Document, YamlProblems, join_keypath, read_document

STANDARDS_FILE = "_standards.yaml"
ATTRIBUTE_TYPES = ("float32", "float64", "int64", "int32", "string")
EXTRA_ATTRIBUTE_TYPES = ("float32", "float64", "int64", "int32", "ints", "floats", "string")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MISSING = object()
# what an optional attribute or input stands for when a call leaves it out (Version.absent_values)
ABSENT_KINDS = ("lowest", "highest", "neg_inf", "pos_inf")


# ----------------------------------------------------------------------------- helpers

class _Checker:
    """Collects problems for one document, each with the line of the key path it concerns."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.problems: list[Problem] = []

    def err(self, keypath, message: str) -> None:
        line, column = self.doc.where(keypath)
        self.problems.append(Problem(self.doc.path, line, join_keypath(tuple(keypath)), message, column))

    def keys(self, mapping: dict, keypath, required: tuple, optional: tuple = ()) -> None:
        for key in required:
            if key not in mapping:
                self.err(keypath, f"missing required key {key!r}")
        allowed = set(required) | set(optional)
        for key in mapping:
            if key not in allowed:
                self.err(tuple(keypath) + (key,), f"unknown key {key!r}; expected one of: {', '.join(sorted(allowed))}")

    def mapping(self, value, keypath, what="a mapping") -> dict | None:
        if isinstance(value, dict):
            return value
        self.err(keypath, f"must be {what}, got {_kind(value)}")
        return None

    def seq(self, value, keypath, what="a list") -> list | None:
        if isinstance(value, list):
            return value
        self.err(keypath, f"must be {what}, got {_kind(value)}")
        return None

    def text(self, value, keypath, pattern: re.Pattern | None = None, hint: str = "") -> str | None:
        if not isinstance(value, str) or not value.strip():
            self.err(keypath, f"must be a non-empty string, got {_kind(value)}")
            return None
        if pattern is not None and not pattern.match(value):
            self.err(keypath, f"{value!r} is not a valid {hint}")
            return None
        return value

    def number(self, value, keypath, what="a number") -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.err(keypath, f"must be {what}, got {_kind(value)}")
            return None
        return float(value)

    def boolean(self, value, keypath) -> bool | None:
        if not isinstance(value, bool):
            self.err(keypath, f"must be true or false, got {_kind(value)}")
            return None
        return value


def _version_key(version: str) -> tuple:
    parts = re.split(r"[_.-]", version)  # 3_0, 1.2, and dated snapshots (2026-06-26)
    return tuple(int(p) if p.isdigit() else math.inf for p in parts)


# ----------------------------------------------------------------------------- standards registry

def load_standards(path: str | Path | None = None) -> dict[str, m.StandardInfo]:
    path = Path(path) if path else specs_in_use() / STANDARDS_FILE
    try:
        doc = read_document(path)
    except YamlProblems as exc:
        raise SpecError(exc.problems) from None
    found = schema.validate(doc, "standards") or semantic.check_standards(doc)
    if found:
        raise SpecError(found)
    c = _Checker(doc)
    out: dict[str, m.StandardInfo] = {}
    c.keys(doc.data, (), ("standards",))
    block = c.mapping(doc.data.get("standards"), ("standards",))
    for key, raw in (block or {}).items():
        kp = ("standards", key)
        entry = c.mapping(raw, kp)
        if entry is None:
            continue
        c.keys(entry, kp, ("title", "version_kind", "version_label", "version_format", "attribute_defaults",
                           "dtype_names", "tensor_type", "attribute_type_names", "layout"),
               ("attribute_cast", "unknown_attributes", "nonfinite_attributes", "rules_source", "input_transforms",
                "cumulative_versions", "addressing_per_width"))
        if entry.get("attribute_cast", "float32") not in ("float32", "input"):
            c.err(kp + ("attribute_cast",), "must be float32 (attributes stored as float32) or input "
                                            "(cast to the input tensor's data type)")
        if entry.get("unknown_attributes", "rejected") not in ("rejected", "ignored"):
            c.err(kp + ("unknown_attributes",), "must be rejected or ignored")
        if entry.get("nonfinite_attributes", "allowed") not in ("allowed", "rejected"):
            c.err(kp + ("nonfinite_attributes",), "must be allowed or rejected")
        layout = c.mapping(entry.get("layout"), kp + ("layout",)) or {}
        c.keys(layout, kp + ("layout",), ("strides", "zero_sizes", "source"), ("zero_strides",))
        for flag in ("strides", "zero_sizes", "zero_strides"):
            if flag in layout:
                c.boolean(layout[flag], kp + ("layout", flag))
        if entry.get("attribute_defaults") not in ("applied", "typical", "none"):
            c.err(kp + ("attribute_defaults",), "must be one of applied, typical, none")
        names = c.mapping(entry.get("dtype_names"), kp + ("dtype_names",)) or {}
        for d in names:
            if d not in dt.DTYPES:
                c.err(kp + ("dtype_names", d), f"unknown dtype {d!r}; known: {', '.join(dt.DTYPES)}")
        try:
            re.compile(str(entry.get("version_format", "")))
        except re.error as exc:
            c.err(kp + ("version_format",), f"not a regular expression: {exc}")
        transforms = _input_transforms(c, entry.get("input_transforms"), kp + ("input_transforms",))
        if c.problems:
            continue
        out[key] = m.StandardInfo(key=key, title=entry["title"], version_kind=entry["version_kind"],
                                  version_label=entry["version_label"], version_format=entry["version_format"],
                                  attribute_defaults=entry["attribute_defaults"], dtype_names=dict(names),
                                  tensor_type=entry["tensor_type"],
                                  attribute_type_names=dict(entry["attribute_type_names"] or {}),
                                  strides=layout["strides"], zero_sizes=layout["zero_sizes"],
                                  zero_strides=bool(layout.get("zero_strides", False)),
                                  layout_source=str(layout.get("source", "")),
                                  attribute_cast=entry.get("attribute_cast", "float32"),
                                  unknown_attributes=entry.get("unknown_attributes", "rejected"),
                                  nonfinite_attributes=entry.get("nonfinite_attributes", "allowed"),
                                  rules_source=" ".join(str(entry.get("rules_source", "")).split()),
                                  input_transforms=transforms,
                                  cumulative_versions=" ".join(str(entry.get("cumulative_versions", "")).split()),
                                  addressing_per_width=" ".join(str(entry.get("addressing_per_width", "")).split()))
    if c.problems:
        raise SpecError(c.problems)
    return out


# ----------------------------------------------------------------------------- operator specs

TOP_REQUIRED = ("name", "id", "summary", "inputs", "outputs", "attributes", "formula", "special_values",
                "tolerance", "standards")
TOP_OPTIONAL = ("examples", "test_attributes", "special_pairs", "rank_sweep_once", "broadcast_once", "designed_at_ends",
                "attribute_order")


def spec_files(directory: str | Path | None = None) -> list[Path]:
    directory = Path(directory) if directory else specs_in_use()
    return sorted(p for p in directory.glob("*.yaml") if not p.name.startswith("_"))


def check_file(path: str | Path, standards: dict[str, m.StandardInfo] | None = None,
               display: str | None = None) -> tuple[m.OpSpec | None, list[Problem]]:
    """Validate one spec file: (the model, []) when valid, else (None, every problem found)."""
    standards = standards if standards is not None else load_standards()
    try:
        doc = read_document(path, display)
    except YamlProblems as exc:
        return None, exc.problems
    found = schema.validate(doc, "operator")  # shape first: the builder below expects well-typed data
    if found:
        every = found + _meaning_beside(doc, standards, Path(path), found)
        return None, sorted(every, key=lambda p: (p.line or 0, p.column or 0))
    c = _Checker(doc)
    c.problems.extend(semantic.check_operator(doc))
    spec = _OpBuilder(c, standards, Path(path)).build()
    if c.problems:
        return None, c.problems
    return spec, []


def _meaning_beside(doc, standards, path: Path, shape_problems: list[Problem]) -> list[Problem]:
    """The meaning checks of a document the schema rejected, on the parts the schema accepted, so
    that every problem of a file shows in one lint run (a misspelt key and a misspelt function used
    to show one at a time; issue 24). Problems at or under a key path the schema flagged are left
    out, and so are those at a key path that holds a flagged one (the same problem seen from
    above, and those of the whole document); the builder expects well-typed data, so where the rejected parts
    trip it, what it found before that is kept and the rest waits for the next run."""
    c = _Checker(doc)
    try:
        c.problems.extend(semantic.check_operator(doc))
        _OpBuilder(c, standards, path).build()
    except Exception:  # noqa: BLE001 - ill-typed data the schema has already reported
        pass
    flagged = {p.keypath for p in shape_problems}
    seen = {(p.line, p.keypath, p.message) for p in shape_problems}
    out = []
    for p in c.problems:
        covered = not p.keypath or any(_under(p.keypath, k) or _under(k, p.keypath) for k in flagged)
        if not covered and (p.line, p.keypath, p.message) not in seen:
            seen.add((p.line, p.keypath, p.message))
            out.append(p)
    return out


def _under(inner: str, outer: str) -> bool:
    """Key path ``inner`` is ``outer`` or lies under it (a problem of the whole document, "", is
    about the document only)."""
    return inner == outer or (bool(outer) and inner.startswith((outer + ".", outer + "[")))


def _input_transforms(c: _Checker, raw, kp) -> dict[str, m.InputTransform]:
    """A standard's input_transforms (schema-checked): each formula parsed with ``input`` and the
    transform's attributes as its only names, defaults and identities finite float32 values."""
    out: dict[str, m.InputTransform] = {}
    for key, t in (raw or {}).items():
        tkp = kp + (key,)
        attrs = {}
        for name, a in t["attributes"].items():
            for field_ in ("default", "identity"):
                v = a[field_]
                if isinstance(v, bool) or not math.isfinite(float(v)) or not math.isfinite(float(np.float32(v))):
                    c.err(tkp + ("attributes", name, field_), f"must be a finite float32 value, got {v!r}")
            attrs[name] = m.TransformAttribute(str(a["name"]), float(np.float32(a["default"])),
                                               float(np.float32(a["identity"])), str(a.get("description", "")))
        try:
            node = parse_formula(str(t["formula"]), [m.InputTransform.PLACEHOLDER], list(attrs))
        except FormulaError as exc:
            c.err(tkp + ("formula",), str(exc))
            continue
        tests = []
        for i, values in enumerate(t.get("test_values") or []):
            if set(values) != set(attrs):
                c.err(tkp + ("test_values", i), f"needs a value for exactly {', '.join(attrs)}")
            tests.append({k: float(np.float32(v)) for k, v in values.items()})
        rr = t.get("rounded_reading")
        out[key] = m.InputTransform(key, str(t["formula"]), node, attrs, tuple(tests),
                                    " ".join(str(t["source"]).split()),
                                    " ".join(str(t.get("float_tensors_only", "")).split()),
                                    (str(rr["name"]), str(rr["url"]), " ".join(str(rr["reason"]).split())) if rr else None)
    return out


def load_spec(path: str | Path, standards: dict[str, m.StandardInfo] | None = None) -> m.OpSpec:
    spec, problems = check_file(path, standards)
    if problems:
        raise SpecError(problems)
    assert spec is not None
    return spec


# load_all's results by directory, with the bytes they were read from: a process that loads the same
# unchanged specs again (each CLI command run in-process, the tests' many runs) gets the same frozen
# specs back instead of parsing and validating every file again (about 2.5 s for 65 specs); another
# process gets them from the on-disk cache (specgen.spec.load_cache, about 0.1 s)
_LOADED: dict[str, tuple[tuple, dict[str, m.OpSpec]]] = {}


def _contents(directory: Path) -> tuple | None:
    """What load_all would read in ``directory``: every file's path and bytes (None: unreadable)."""
    try:
        files = [semantic.standards_file(directory), *spec_files(directory)]
        return tuple((str(p), Path(p).read_bytes()) for p in files)
    except OSError:
        return None


def load_all(directory: str | Path | None = None) -> dict[str, m.OpSpec]:
    """Every operator spec in a directory (default: the specs in use, resources.specs_in_use), keyed by id, sorted."""
    directory = Path(directory) if directory else specs_in_use()
    contents = _contents(directory)
    if contents is None:  # unreadable: the loader's own errors, nothing remembered
        return dict(_load_all(directory))
    known = _LOADED.get(str(directory))
    if known is not None and known[0] == contents:
        return dict(known[1])
    specs = load_cache.get(contents)
    if specs is None:
        specs = _load_all(directory)
        load_cache.put(contents, specs)
    _LOADED[str(directory)] = (contents, specs)
    return dict(specs)


def _load_all(directory: Path) -> dict[str, m.OpSpec]:
    standards = load_standards(semantic.standards_file(directory))
    problems: list[Problem] = []
    specs: dict[str, m.OpSpec] = {}
    by_path: dict[str, m.OpSpec] = {}
    for path in spec_files(directory):
        outside = semantic.outside_directory(path, directory)
        if outside is not None:
            problems.append(outside)
            continue
        spec, found = check_file(path, standards)
        problems.extend(found)
        if spec is not None:
            if spec.id in specs:
                problems.append(Problem(str(path), None, "id", f"id {spec.id!r} is also used by {specs[spec.id].path}"))
            specs[spec.id] = spec
            by_path[str(path)] = spec
    problems.extend(semantic.check_unique(by_path))
    if problems:
        raise SpecError(problems)
    return dict(sorted(specs.items()))


class _OpBuilder:
    def attribute_order(self, raw, attributes) -> tuple[str, str] | None:
        """attribute_order {lower, upper, reason}: two declared numeric attributes."""
        if not isinstance(raw, dict):
            return None
        numeric = {a.name for a in attributes if a.type != "string"}
        names = []
        for key in ("lower", "upper"):
            if raw.get(key) not in numeric:
                self.c.err(("attribute_order", key), f"{raw.get(key)!r} is not a declared numeric attribute "
                                                     f"(declared: {', '.join(sorted(numeric)) or 'none'})")
            names.append(raw.get(key))
        if names[0] == names[1]:
            self.c.err(("attribute_order", "upper"), "must name another attribute than lower")
        return tuple(names) if not self.c.problems else None

    def __init__(self, c: _Checker, standards: dict[str, m.StandardInfo], path: Path):
        self.c = c
        self.standards = standards
        self.path = path
        self.data = c.doc.data

    def build(self) -> m.OpSpec | None:
        c, data = self.c, self.data
        c.keys(data, (), TOP_REQUIRED, TOP_OPTIONAL)
        name = c.text(data.get("name"), ("name",), _NAME, "operator name (letters, digits, _)") if "name" in data else None
        op_id = c.text(data.get("id"), ("id",), _ID, "id (lower_snake_case)") if "id" in data else None
        if op_id and op_id != self.path.stem and not self.path.stem.startswith("_"):
            c.err(("id",), f"id {op_id!r} must match the file name {self.path.name!r}")
        summary = c.text(data.get("summary"), ("summary",)) if "summary" in data else None
        inputs = self.tensors("inputs")
        outputs = self.tensors("outputs")
        tensor_names = [t.name for t in inputs + outputs]
        if len(set(tensor_names)) != len(tensor_names):
            c.err(("outputs",), "tensor names must be unique across inputs and outputs")
        attributes = self.attributes()
        attr_names = [a.name for a in attributes]
        clash = set(attr_names) & set(tensor_names)
        for n_ in sorted(clash):
            c.err(("attributes",), f"{n_!r} is both a tensor and an attribute")
        formula, choice = self.formula([t.name for t in inputs], attributes)
        std_keys = [k for k in (data.get("standards") or {})] if isinstance(data.get("standards"), dict) else []
        specials = self.special_values(std_keys)
        op_standards = self.standards_block(inputs, outputs, attributes)
        listed = [d for s in op_standards.values() for v in s.versions for d in v.dtypes()]
        tolerance = self.tolerance(listed)
        examples = self.examples(inputs, outputs, attributes, formula, choice)
        test_attributes = self.test_attributes(attributes)
        self.check_excluded(attributes, op_standards, examples, test_attributes)
        self.check_dtype_from(outputs, op_standards)
        if c.problems:
            return None
        spec = m.OpSpec(id=op_id, name=name, summary=summary, inputs=tuple(inputs), outputs=tuple(outputs),
                        attributes=tuple(attributes), formula_text=_formula_text(data["formula"]), formula=formula,
                        special_values=specials, tolerance=tolerance, examples=tuple(examples),
                        standards=op_standards, path=str(self.path), test_attributes=tuple(test_attributes),
                        choice=choice, special_pairs=isinstance(data.get("special_pairs"), dict),
                        rank_sweep_once=isinstance(data.get("rank_sweep_once"), dict),
                        broadcast_once=isinstance(data.get("broadcast_once"), dict),
                        designed_at_ends=isinstance(data.get("designed_at_ends"), dict),
                        attribute_order=self.attribute_order(data.get("attribute_order"), attributes))
        try:
            return input_transforms.apply(spec)
        except input_transforms.TransformError as exc:
            c.err(exc.key_path, str(exc))
            return None

    # -- declarations
    def tensors(self, key: str) -> list[m.TensorDecl]:
        c = self.c
        if key not in self.data:
            return []
        items = c.seq(self.data[key], (key,))
        out = []
        if items is not None and not items:
            c.err((key,), f"an operator needs at least one {key[:-1]}")
        for i, raw in enumerate(items or []):
            kp = (key, i)
            entry = c.mapping(raw, kp)
            if entry is None:
                continue
            c.keys(entry, kp, ("name",), ("description",) + (("dtype_from",) if key == "outputs" else ()))
            nm = c.text(entry.get("name"), kp + ("name",), _NAME, "tensor name") if "name" in entry else None
            src = None
            if "dtype_from" in entry:
                src = c.text(entry.get("dtype_from"), kp + ("dtype_from",), _NAME, "attribute name")
                declared = {a.get("name"): a for a in (self.data.get("attributes") or []) if isinstance(a, dict)}
                a = declared.get(src)
                if src and a is None:
                    c.err(kp + ("dtype_from",), f"{src!r} is not a declared attribute")
                elif src and (a.get("type") != "string" or not isinstance(a.get("values"), list)
                              or any(v not in dt.DTYPES for v in a["values"])):
                    c.err(kp + ("dtype_from",), f"attribute {src!r} must be a string attribute whose values are "
                          f"dtypes ({', '.join(dt.DTYPES)})")
            if nm:
                out.append(m.TensorDecl(nm, str(entry.get("description", "")), src or None))
        return out

    def attributes(self) -> list[m.Attribute]:
        c = self.c
        if "attributes" not in self.data:
            return []
        items = c.seq(self.data["attributes"], ("attributes",))
        out: list[m.Attribute] = []
        for i, raw in enumerate(items or []):
            kp = ("attributes", i)
            entry = c.mapping(raw, kp)
            if entry is None:
                continue
            c.keys(entry, kp, ("name", "type"), ("description", "values", "exclude", "applies_when"))
            nm = c.text(entry.get("name"), kp + ("name",), _NAME, "attribute name") if "name" in entry else None
            excluded, excluded_reason = self.excluded_values(entry, kp)
            typ = entry.get("type")
            if "type" in entry and typ not in ATTRIBUTE_TYPES:
                c.err(kp + ("type",), f"unknown attribute type {typ!r}; expected one of: {', '.join(ATTRIBUTE_TYPES)}")
                typ = None
            int_values: tuple[int, ...] = ()
            if typ in ("int64", "int32") and "values" in entry:
                items = c.seq(entry["values"], kp + ("values",)) or []
                if not items or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
                    c.err(kp + ("values",), "an integer attribute's values are integers")
                elif len(set(items)) != len(items):
                    c.err(kp + ("values",), "a value is listed twice")
                else:
                    int_values = tuple(items)
                values = ()
            else:
                values = self.attribute_values(entry, kp, typ)
            if nm and any(a.name == nm for a in out):
                c.err(kp + ("name",), f"attribute {nm!r} is declared twice")
                continue
            applies = self.applies_when(entry, kp, typ) if "applies_when" in entry else None
            if nm:  # kept with an unknown type (None) so the rest of the file is not checked against a hole
                out.append(m.Attribute(nm, typ, str(entry.get("description", "")), values, excluded, excluded_reason,
                                       int_values, applies))
        return out

    def applies_when(self, entry, kp, typ) -> tuple[str, tuple[str, ...]] | None:
        """An attribute that exists only for some values of the string attribute: ``applies_when:
        {<string attribute>: [values]}`` (ONNX Cast's saturate, float 8 targets only)."""
        c, akp = self.c, kp + ("applies_when",)
        block = c.mapping(entry["applies_when"], akp, "a mapping {string attribute: [its values]}")
        if block is None:
            return None
        if typ == "string":
            c.err(akp, "only a numeric attribute can depend on the string attribute (the string attribute is the "
                       "formula's choice)")
            return None
        if len(block) != 1:
            c.err(akp, f"must name exactly one string attribute, got {len(block)}")
            return None
        (name, listed), = block.items()
        declared = {a.get("name"): a for a in (self.data.get("attributes") or []) if isinstance(a, dict)}
        other = declared.get(name)
        if other is None or other.get("type") != "string":
            strings = [n_ for n_, a in declared.items() if a.get("type") == "string"]
            c.err(akp + (name,), f"{name!r} is not a declared string attribute (string attributes: "
                                 f"{', '.join(map(str, strings)) or 'none'})")
            return None
        items = c.seq(listed, akp + (name,), "a list of values") or []
        values = other.get("values") if isinstance(other.get("values"), list) else []
        out = []
        for j, v in enumerate(items):
            if v not in values:
                c.err(akp + (name, j), f"{v!r} is not a value of attribute {name!r} (values: {', '.join(map(str, values))})")
            elif v in out:
                c.err(akp + (name, j), f"value {v!r} is listed twice")
            else:
                out.append(v)
        if isinstance(listed, list) and not listed:
            c.err(akp + (name,), "must list at least one value")
        return (name, tuple(out)) if out and len(out) == len(items) else None

    def attribute_values(self, entry, kp, typ) -> tuple[str, ...]:
        """The values of a string attribute (operator spelling); only string attributes have them."""
        c = self.c
        if typ != "string":
            if "values" in entry and typ is not None:
                c.err(kp + ("values",), f"only a string attribute has values (this one is {typ})")
            return ()
        if "values" not in entry:
            c.err(kp, "a string attribute needs values: the values it takes, each selecting a formula")
            return ()
        items = c.seq(entry["values"], kp + ("values",)) or []
        out: list[str] = []
        for j, v in enumerate(items):
            t = c.text(v, kp + ("values", j), _ID, "value (lower_snake_case)")
            if t and t in out:
                c.err(kp + ("values", j), f"value {t!r} is listed twice")
            elif t:
                out.append(t)
        return tuple(out)

    def excluded_values(self, entry, kp) -> tuple[tuple[float, ...], str]:
        """An attribute's `exclude: {values: [...], reason: ...}`: values the operator is not defined for."""
        c = self.c
        if "exclude" not in entry:
            return (), ""
        ekp = kp + ("exclude",)
        block = c.mapping(entry["exclude"], ekp, "a mapping {values, reason}")
        if block is None:
            return (), ""
        c.keys(block, ekp, ("values", "reason"))
        reason = c.text(block["reason"], ekp + ("reason",)) if "reason" in block else ""
        values = c.seq(block.get("values"), ekp + ("values",)) if "values" in block else None
        out = []
        for i, v in enumerate(values or []):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                c.err(ekp + ("values", i), f"must be a finite number, got {v!r}")
            else:
                out.append(float(v))
        if values is not None and not values:
            c.err(ekp + ("values",), "must list at least one value")
        return tuple(out), str(reason or "")

    def check_excluded(self, attributes, standards, examples, test_attributes):
        """No default, fixed value, example or test set may use a value its attribute excludes."""
        c = self.c
        by_name = {a.name: a for a in attributes}
        for key, std in standards.items():
            for name, b in std.attributes.items():
                a = by_name.get(name)
                for what, v in (("default", b.default), ("fixed", b.fixed)):
                    if a is not None and v is not None and not a.allows(v):
                        c.err(("standards", key, "attributes", name, what),
                              f"{v!r} is excluded for attribute {name!r} ({a.excluded_reason})")
        for kp, values in ([(("examples", i, "attributes"), ex.attributes) for i, ex in enumerate(examples)]
                           + [(("test_attributes", i, "values"), t.values) for i, t in enumerate(test_attributes)]):
            for name, v in values.items():
                a = by_name.get(name)
                if a is not None and not a.allows(v):
                    c.err(kp + (name,), f"{v!r} is excluded for attribute {name!r} ({a.excluded_reason})")

    def formula(self, inputs, attributes: list[m.Attribute]):
        """(the formula, None), or for a formula chosen by a string attribute (None, the Choice)."""
        if "formula" not in self.data:
            return None, None
        numeric = [a.name for a in attributes if a.type != "string"]
        strings = {a.name: a for a in attributes if a.type == "string"}
        self.conditioned = [a for a in attributes if a.applies_when is not None]
        raw = self.data["formula"]
        if not isinstance(raw, dict):
            for a in self.conditioned:
                self.c.err(("attributes", self.attribute_index(a.name), "applies_when"),
                           "the formula is chosen by no string attribute (formula: {by, formulas}): nothing "
                           "for the attribute to depend on")
            for nm in strings:
                self.c.err(("formula",), f"string attribute {nm!r} is declared but the formula does not use it "
                                         "(a string attribute selects a formula: formula: {by: " + nm + ", formulas: ...})")
            return self.parse_positioned(raw, ("formula",), inputs, numeric), None
        return None, self.chosen_formula(raw, inputs, numeric, strings)

    def chosen_formula(self, raw, inputs, numeric, strings) -> m.Choice | None:
        c, kp = self.c, ("formula",)
        c.keys(raw, kp, ("by", "formulas"))
        by = raw.get("by")
        if by not in strings:
            c.err(kp + ("by",), f"{by!r} is not a declared string attribute (string attributes: "
                                f"{', '.join(strings) or 'none'})")
            return None
        for nm in strings:
            if nm != by:
                c.err(kp + ("by",), f"string attribute {nm!r} is declared but selects no formula (only one may: {by!r})")
        block = c.mapping(raw.get("formulas"), kp + ("formulas",))
        if block is None:
            return None
        declared = strings[by].values
        if not declared:
            return None  # already reported: the attribute has no values
        nodes: dict[str, object] = {}
        texts: dict[str, str] = {}
        for value, text in block.items():
            if value not in declared:
                c.err(kp + ("formulas", value), f"{value!r} is not a value of attribute {by!r} "
                                                f"(values: {', '.join(declared)})")
                continue
            node = self.parse_positioned(text, kp + ("formulas", value), inputs, numeric, check_unused=False)
            if node is not None:
                nodes[value], texts[value] = node, text
        for value in declared:
            if value not in block:
                c.err(kp + ("formulas",), f"no formula for value {value!r} of attribute {by!r}")
        if len(nodes) != len(declared):
            return None
        used = set().union(*(formula_names(n_) for n_ in nodes.values()))
        for nm in inputs:
            if nm not in used:
                c.err(kp, f"input {nm!r} is declared but no formula uses it")
        for nm in numeric:
            if nm not in used:
                c.err(kp, f"attribute {nm!r} is declared but no formula uses it")
        for a in self.conditioned:
            name, listed = a.applies_when
            if name != by:
                c.err(("attributes", self.attribute_index(a.name), "applies_when", name),
                      f"{name!r} does not select the formula (formula: {{by: {by}}}): an attribute can depend "
                      f"only on the string attribute that does")
                continue
            for value, node in nodes.items():
                if value not in listed and a.name in formula_names(node):
                    c.err(kp + ("formulas", value), f"uses attribute {a.name!r}, which does not exist with "
                                                    f"{by} = {value} (its applies_when: {', '.join(listed)})")
        return m.Choice(by, {v: nodes[v] for v in declared}, {v: texts[v] for v in declared})

    def attribute_index(self, name) -> int:
        """The position of a declared attribute in the file (for a problem's key path)."""
        items = self.data.get("attributes") or []
        return next((i for i, a in enumerate(items) if isinstance(a, dict) and a.get("name") == name), 0)

    def parse_positioned(self, text, kp, inputs, attributes, check_unused: bool = True, may_ignore=()):
        """Parse a formula found at keypath kp; problems carry the file line and column of the token.
        Every input and attribute must be used (unless check_unused is off: a formula chosen by a
        string attribute is checked with its siblings), except those in may_ignore (a standard's own
        formula need not use an attribute that standard fixes: it has no such attribute)."""
        c = self.c
        if not isinstance(text, str):
            c.err(kp, f"must be a formula string, got {_kind(text)}")
            return None
        try:
            node = parse_formula(text, inputs, attributes)
        except FormulaError as exc:
            line, col = self.formula_position(text, exc, kp)
            where = "" if col else f"formula line {exc.line}, column {exc.column}: "
            c.problems.append(Problem(c.doc.path, line, join_keypath(kp), f"{where}{exc.message} (token {exc.token!r})",
                                      col))
            return None
        used = formula_names(node)
        if not check_unused:
            return node
        for nm in inputs:
            if nm not in used:
                c.err(kp, f"input {nm!r} is declared but the formula does not use it")
        for nm in attributes:
            if nm not in used and nm not in may_ignore:
                c.err(kp, f"attribute {nm!r} is declared but the formula does not use it")
        return node

    def formula_position(self, text: str, exc: FormulaError, kp=("formula",)) -> tuple[int | None, int]:
        """File line and column of a formula error, for plain, quoted and block (| >) scalars alike.

        The parser counts lines and columns within the formula with its leading blank lines
        stripped; the YAML layer maps a character of the value back to the file.
        """
        lines = text.strip("\n").splitlines() or [""]
        offset = len(text) - len(text.lstrip("\n"))
        offset += sum(len(ln) + 1 for ln in lines[:exc.line - 1]) + exc.column - 1
        mapped = self.c.doc.char_position(kp, min(offset, max(len(text) - 1, 0)))
        if mapped is not None:
            return mapped
        pos = self.c.doc.pos(kp)  # an unusual scalar: the value's first line; the column is the formula's
        return (pos.value_line if pos else None), None

    def check_dtype_from(self, outputs, op_standards) -> None:
        """An output whose dtype an attribute chooses (dtype_from): every dtype a version's table lists
        for it must be a value the standard spells for that attribute (its binding's values)."""
        for t in outputs:
            if t.dtype_from is None:
                continue
            for key, s in op_standards.items():
                b = s.attributes.get(t.dtype_from)
                if b is None:
                    continue  # an undeclared attribute: reported where dtype_from names it
                for i, v in enumerate(s.versions):
                    own = t.dtype_from in v.attribute_values
                    spelled = set((v.attribute_values[t.dtype_from] if own else b.values) or {})
                    missing = [d for d in v.dtypes(t.name) if d not in spelled]
                    if missing:
                        where = (f"versions[{i}].attribute_values.{t.dtype_from}" if own
                                 else f"attributes.{t.dtype_from}.values")
                        self.c.err(("standards", key, "versions", i, "tensors", t.name),
                                   f"{t.name}'s dtypes {', '.join(missing)} have no spelling in "
                                   f"{where} (the output's type is that attribute's value)")

    # -- semantics
    def special_values(self, std_keys) -> dict[str, m.SpecialValue]:
        c = self.c
        block = c.mapping(self.data.get("special_values"), ("special_values",)) if "special_values" in self.data else None
        if block is None:
            return {}
        for cat in m.REQUIRED_SPECIALS:
            if cat not in block:
                c.err(("special_values",), f"missing {cat!r}: say what it gives, or 'unspecified' where the standards are silent")
        out = {}
        for cat, raw in block.items():
            kp = ("special_values", cat)
            if cat not in m.SPECIAL_OUTCOMES:
                c.err(kp, f"unknown special-value category {cat!r}; expected one of: {', '.join(m.SPECIAL_OUTCOMES)}")
                continue
            entry = c.mapping(raw, kp)
            if entry is None:
                continue
            allowed = m.SPECIAL_OUTCOMES[cat]
            extra = ("float_inputs", "in_corpus") if cat == "integer_overflow" else ()
            c.keys(entry, kp, ("default", "reason"), ("recommended",) + extra + tuple(std_keys))
            default = self._outcomes(entry.get("default"), kp + ("default",), allowed)
            float_inputs = (self._outcomes(entry["float_inputs"], kp + ("float_inputs",), allowed)
                            if "float_inputs" in entry else None)
            in_corpus = entry.get("in_corpus", False)
            if not isinstance(in_corpus, bool):
                c.err(kp + ("in_corpus",), f"must be true or false, not {in_corpus!r}")
                in_corpus = False
            per = {}
            for key in std_keys:
                if key in entry:
                    per[key] = self._outcomes(entry[key], kp + (key,), allowed)
            rec = entry.get("recommended")
            if rec is not None and rec not in allowed:
                c.err(kp + ("recommended",), f"{rec!r} is not an outcome of {cat}; expected one of: {', '.join(allowed)}")
            if "reason" in entry:
                c.text(entry["reason"], kp + ("reason",))
            out[cat] = m.SpecialValue(cat, default or (), per, rec, str(entry.get("reason", "")),
                                      float_inputs or None, in_corpus)
        return out

    def _outcomes(self, raw, kp, allowed) -> tuple[str, ...]:
        values = raw if isinstance(raw, list) else [raw]
        if not values:
            self.c.err(kp, "must name at least one outcome")
        for v in values:
            if v not in allowed:
                self.c.err(kp, f"{v!r} is not an allowed outcome; expected one of: {', '.join(allowed)}")
                return ()
        if "unspecified" in values and len(values) > 1:
            self.c.err(kp, "'unspecified' cannot be combined with other outcomes")
        return tuple(values)

    def tolerance(self, listed_dtypes) -> dict[str, m.Tolerance]:
        c = self.c
        block = c.mapping(self.data.get("tolerance"), ("tolerance",)) if "tolerance" in self.data else None
        if block is None:
            return {}
        out = {}
        for dtype, raw in block.items():
            kp = ("tolerance", dtype)
            if dtype not in dt.DTYPES:
                c.err(kp, f"unknown dtype {dtype!r}; known: {', '.join(dt.DTYPES)}")
                continue
            entry = c.mapping(raw, kp)
            if entry is None:
                continue
            c.keys(entry, kp, ("metric", "reason"), ("value", "intermediate"))
            metric = entry.get("metric")
            value = entry.get("value")
            inter = entry.get("intermediate")
            if metric not in m.TOLERANCE_METRICS:
                c.err(kp + ("metric",), f"unknown metric {metric!r}; expected one of: {', '.join(m.TOLERANCE_METRICS)}")
                continue
            if metric in ("ulp", "abs"):
                v = c.number(value, kp + ("value",), f"a non-negative number for metric {metric}") if "value" in entry else None
                if "value" not in entry:
                    c.err(kp, f"metric {metric} needs a 'value'")
                elif v is not None and (v < 0 or not math.isfinite(v)):
                    c.err(kp + ("value",), f"must be a finite number >= 0, got {value!r}")
            elif "value" in entry and metric == "exact":
                c.err(kp + ("value",), "metric exact takes no value")
            if metric == "model":
                if not dt.DTYPES[dtype].is_float:
                    c.err(kp + ("metric",), f"metric model applies to floating-point dtypes, not {dtype}")
                if inter is None:
                    c.err(kp, "metric model needs 'intermediate': the narrowest dtype intermediates may be rounded to")
                elif inter not in dt.FLOAT_DTYPES:
                    c.err(kp + ("intermediate",), f"must be a floating-point dtype, got {inter!r}")
            elif inter is not None:
                c.err(kp + ("intermediate",), f"'intermediate' only applies to metric model, not {metric}")
            if "reason" in entry:
                c.text(entry["reason"], kp + ("reason",))
            out[dtype] = m.Tolerance(dtype, metric, None if value is None else float(value), inter,
                                     str(entry.get("reason", "")))
        for dtype in dict.fromkeys(listed_dtypes):
            if dtype not in block:
                c.err(("tolerance",), f"no tolerance for {dtype}, which a standard table lists")
        return out

    def examples(self, inputs, outputs, attributes, formula, choice=None) -> list[m.Example]:
        c = self.c
        if "examples" not in self.data:
            return []
        items = c.seq(self.data["examples"], ("examples",))
        out = []
        in_names = [t.name for t in inputs]
        out_names = [t.name for t in outputs]
        attr_names = [a.name for a in attributes]
        for i, raw in enumerate(items or []):
            kp = ("examples", i)
            before = len(c.problems)
            entry = c.mapping(raw, kp)
            if entry is None:
                continue
            c.keys(entry, kp, ("attributes",) + tuple(in_names) + tuple(out_names), ("description",))
            attrs = c.mapping(entry.get("attributes"), kp + ("attributes",)) if "attributes" in entry else {}
            for key in attrs or {}:
                if key not in attr_names:
                    c.err(kp + ("attributes", key), f"{key!r} is not a declared attribute")
            absent = {a.name for a in attributes if attrs is not None and not a.applies(attrs)}
            for key in attr_names:
                if attrs is not None and key not in attrs and key not in absent:
                    c.err(kp + ("attributes",), f"missing a value for attribute {key!r}")
                elif attrs is not None and key in attrs and key in absent:
                    c.err(kp + ("attributes", key), f"attribute {key!r} does not exist in this call (its "
                                                    f"applies_when does not hold): leave it out")
            arrays = {}
            for key in in_names + out_names:
                seq = c.seq(entry.get(key), kp + (key,), "a list of numbers") if key in entry else None
                if seq is None:
                    continue
                nums = [c.number(v, kp + (key, j)) for j, v in enumerate(seq)]
                if None not in nums:
                    arrays[key] = tuple(nums)
            lengths = {len(v) for v in arrays.values()}
            if len(lengths) > 1:
                c.err(kp, "input and output lists must have the same length")
                continue
            node = formula
            strings = {a.name for a in attributes if a.type == "string"}
            if strings and choice is None:
                continue  # the chosen formula has problems of its own, already reported
            if choice is not None and attrs is not None and choice.attribute in attrs:
                node = choice.formulas.get(attrs[choice.attribute])
                if node is None:
                    c.err(kp + ("attributes", choice.attribute), f"unknown value {attrs[choice.attribute]!r} of attribute "
                                                                 f"{choice.attribute!r}; values: {', '.join(choice.formulas)}")
            for key, v in (attrs or {}).items():
                if isinstance(v, str) and key not in strings:
                    c.err(kp + ("attributes", key), f"must be a number, got {_kind(v)}")
            if len(c.problems) > before or node is None or attrs is None:
                continue
            if not formula_names(node) <= set(in_names) | set(attrs):
                continue  # the formula uses an attribute this call does not have (applies_when): already reported
            env = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items() if k in in_names}
            env.update({k: np.float64(np.float32(v)) for k, v in attrs.items() if not isinstance(v, str)})
            got = evaluate(node, env)
            out_type = next((attrs.get(t.dtype_from) for t in outputs if t.name == out_names[0] and t.dtype_from), None)
            if isinstance(out_type, str) and out_type in dt.DTYPES:  # the output's type is an attribute's value (Cast)
                got = np.array([dt.cast_value(float(g), out_type) for g in np.ravel(got)]).reshape(np.shape(got))
            want = np.asarray(arrays[out_names[0]], dtype=np.float64)
            for j, (g, w) in enumerate(zip(np.broadcast_to(got, want.shape).tolist(), want.tolist())):
                if not (g == w or (math.isnan(g) and math.isnan(w)) or abs(g - w) <= 1e-12 * max(1.0, abs(w))):
                    c.err(kp + (out_names[0], j), f"the formula gives {g!r} for {in_names[0]}={arrays[in_names[0]][j]!r}, "
                                                  f"the example says {w!r}")
            out.append(m.Example(str(entry.get("description", "")),
                                 {k: (v if isinstance(v, str) else float(v)) for k, v in attrs.items()},
                                 {k: arrays[k] for k in in_names}, {k: arrays[k] for k in out_names}))
        return out

    def test_attributes(self, attributes) -> list[m.TestAttributes]:
        """Named attribute sets the vectors must cover (a backend's fixed parameters, say)."""
        c = self.c
        if "test_attributes" not in self.data:
            return []
        items = c.seq(self.data["test_attributes"], ("test_attributes",)) or []
        declared = [a.name for a in attributes if a.type != "string"]  # a test set is numeric; the corpus crosses it with every value
        out: list[m.TestAttributes] = []
        for i, raw in enumerate(items):
            kp = ("test_attributes", i)
            entry = c.mapping(raw, kp)
            if entry is None:
                continue
            c.keys(entry, kp, ("name", "values", "reason"))
            name = c.text(entry.get("name"), kp + ("name",), _ID, "set name (lower_snake_case)") if "name" in entry else None
            if name and any(t.name == name for t in out):
                c.err(kp + ("name",), f"attribute set {name!r} is named twice")
            if "reason" in entry:
                c.text(entry["reason"], kp + ("reason",))
            values = c.mapping(entry.get("values"), kp + ("values",)) if "values" in entry else None
            if values is None:
                continue
            ok = True
            for key in declared:
                if key not in values:
                    c.err(kp + ("values",), f"missing a value for attribute {key!r}")
                    ok = False
            for key, v in values.items():
                if key not in declared:
                    c.err(kp + ("values", key), f"{key!r} is not a declared attribute")
                    ok = False
                elif c.number(v, kp + ("values", key)) is None:
                    ok = False
                elif math.isnan(v) or (math.isfinite(v) and abs(v) > float(np.finfo(np.float32).max)):
                    # an infinity is a value (an unbounded side of Clip); a standard that rejects it
                    # (nonfinite_attributes) leaves the set out of its positive cases
                    c.err(kp + ("values", key), f"{v!r} is not a float32 value or an infinity")
                    ok = False
            if ok and name:
                out.append(m.TestAttributes(name, {k: float(values[k]) for k in declared}, str(entry.get("reason", ""))))
        return out

    # -- standards
    def standards_block(self, inputs, outputs, attributes) -> dict[str, m.OpStandard]:
        c = self.c
        block = c.mapping(self.data.get("standards"), ("standards",)) if "standards" in self.data else None
        if block is None:
            return {}
        if not block:
            c.err(("standards",), "an operator needs at least one standard")
        out = {}
        for key, raw in block.items():
            kp = ("standards", key)
            info = self.standards.get(key)
            if info is None:
                c.err(kp, f"unknown standard {key!r}; known: {', '.join(self.standards)} (see specs/{STANDARDS_FILE})")
                continue
            entry = c.mapping(raw, kp)
            if entry is None:
                continue
            built = _StandardBuilder(c, info, kp, entry, inputs, outputs, attributes, self).build()
            if built is not None:
                out[key] = built
        return out


class _StandardBuilder:
    def __init__(self, c, info, kp, entry, inputs, outputs, attributes, op_builder):
        self.op_builder = op_builder
        self.c, self.info, self.kp, self.entry = c, info, kp, entry
        self.inputs, self.outputs, self.attributes = inputs, outputs, attributes
        self.tensor_order = [t.name for t in inputs + outputs]

    def build(self) -> m.OpStandard | None:
        c, kp, e, info = self.c, self.kp, self.entry, self.info
        before = len(c.problems)
        c.keys(e, kp, ("operator", "tensors", "attributes", "versions", "in_place"),
               ("domain", "introduced", "constraints", "attribute_defaults", "formula", "broadcast", "readings",
                "input_transform", "attribute_order"))
        operator = c.text(e.get("operator"), kp + ("operator",)) if "operator" in e else None
        crossed_rejected, crossed_source = False, None
        if "attribute_order" in e:
            okp = kp + ("attribute_order",)
            block = c.mapping(e["attribute_order"], okp, "a mapping {crossed, source}")
            if block is not None:
                c.keys(block, okp, ("crossed",), ("source",))
                if block.get("crossed") not in ("rejected", "accepted"):
                    c.err(okp + ("crossed",), f"must be rejected or accepted, got {block.get('crossed')!r}")
                crossed_rejected = block.get("crossed") == "rejected"
                if "source" in block:
                    crossed_source = c.text(block["source"], okp + ("source",))
                if "attribute_order" not in self.op_builder.data:
                    c.err(okp, "the spec names no ordered pair of attributes (top-level attribute_order)")
        in_place = e.get("in_place")
        if "in_place" in e and in_place not in (True, False, "unspecified"):
            c.err(kp + ("in_place",), f"must be true, false or unspecified, got {_kind(in_place)}")
        mode = e.get("attribute_defaults", info.attribute_defaults)
        if mode not in ("applied", "typical", "none"):
            c.err(kp + ("attribute_defaults",), "must be one of applied, typical, none")
        tensors = self.tensor_bindings()
        attrs = self.attribute_bindings(mode)
        constraints = self.constraints()
        versions = self.versions(attrs)
        formula = formula_text = formula_reason = None
        if "formula" in e:
            fkp = kp + ("formula",)
            block = c.mapping(e["formula"], fkp, "a mapping {expression, reason}")
            if block is not None:
                c.keys(block, fkp, ("expression", "reason"))
                if "reason" in block:
                    formula_reason = c.text(block["reason"], fkp + ("reason",))
                if any(a.type == "string" for a in self.attributes):
                    c.err(fkp, "an operator whose formula a string attribute selects has no per-standard formula "
                               "(a standard spells the values instead: attributes: {name: {values: ...}})")
                elif "expression" in block:
                    formula_text = block["expression"]
                    formula = self.op_builder.parse_positioned(
                        formula_text, fkp + ("expression",), [t.name for t in self.inputs],
                        [a.name for a in self.attributes],
                        may_ignore={n for n, b in attrs.items() if b.fixed is not None})
        readings = self.readings(attrs, [v.version for v in versions]) if "readings" in e else ()
        introduced = e.get("introduced")
        all_versions_ok = isinstance(e.get("versions"), list) and len(versions) == len(e["versions"])
        if introduced is not None and versions and all_versions_ok and str(introduced) != versions[0].version:
            c.err(kp + ("introduced",), f"says {introduced!r} but the first table is {versions[0].version!r}")
        transform = None
        if "input_transform" in e:
            t = e["input_transform"]
            tkp = kp + ("input_transform",)
            if t.get("transform") not in info.input_transforms:
                c.err(tkp + ("transform",), f"{info.title} has no input transform {t.get('transform')!r}; known: "
                      f"{', '.join(info.input_transforms) or 'none'} (specs/{STANDARDS_FILE} input_transforms)")
            if t.get("input") not in [x.name for x in self.inputs]:
                c.err(tkp + ("input",), f"{t.get('input')!r} is not a declared input")
            transform = (t.get("transform"), t.get("input"))
        if len(c.problems) > before:
            return None
        return m.OpStandard(key=info.key, info=info, operator=operator, domain=e.get("domain"), input_transform=transform,
                            introduced=None if introduced is None else str(introduced),
                            in_place=None if in_place == "unspecified" else in_place, attribute_defaults=mode,
                            tensors=tensors, attributes=attrs, constraints=tuple(constraints),
                            versions=tuple(versions), formula=formula, formula_text=formula_text,
                            formula_reason=formula_reason, readings=readings,
                            crossed_rejected=crossed_rejected, crossed_source=crossed_source)

    def readings(self, attrs, version_ids) -> tuple[m.Reading, ...]:
        """The standard's readings besides its text's: each a name, its source (url, quote), a reason
        and what differs (formula, attribute_cast, literal)."""
        c, kp = self.c, self.kp + ("readings",)
        items = c.seq(self.entry["readings"], kp)
        out: list[m.Reading] = []
        seen: set[str] = set()
        for i, raw in enumerate(items or ()):
            rkp = kp + (i,)
            e = c.mapping(raw, rkp)
            if e is None:
                continue
            c.keys(e, rkp, ("name", "source", "reason"), ("formula", "attribute_cast", "literal", "versions"))
            applies: tuple[str, ...] = ()
            if "versions" in e:
                listed = c.seq(e["versions"], rkp + ("versions",), "a list of version ids")
                for j, v in enumerate(listed or ()):
                    if str(v) not in version_ids:
                        c.err(rkp + ("versions", j), f"{v!r} is not a version of this standard; known: "
                                                     f"{', '.join(version_ids)}")
                applies = tuple(str(v) for v in listed or ())
            name = c.text(e.get("name"), rkp + ("name",), READING_NAME,
                          "reading name (lowercase letters, digits and '-', starting with a letter)") if "name" in e else None
            if name == m.TEXT_READING:
                c.err(rkp + ("name",), f"{m.TEXT_READING!r} is the text's own reading, which every standard has")
            elif name in seen:
                c.err(rkp + ("name",), f"reading {name!r} is already declared for this standard")
            seen.add(name)
            src = c.mapping(e.get("source"), rkp + ("source",), "a mapping {url, quote}") if "source" in e else None
            url = quote = None
            if src is not None:
                c.keys(src, rkp + ("source",), ("url", "quote"))
                url = c.text(src.get("url"), rkp + ("source", "url"), URL, "URL (https://...)") if "url" in src else None
                quote = c.text(src.get("quote"), rkp + ("source", "quote")) if "quote" in src else None
            reason = c.text(e.get("reason"), rkp + ("reason",)) if "reason" in e else None
            flags = {}
            for flag in ("attribute_cast", "literal"):
                v = e.get(flag, False)
                if not isinstance(v, bool):
                    c.err(rkp + (flag,), f"must be true or false, got {_kind(v)}")
                flags[flag] = v is True
            formula = formula_text = None
            if "formula" in e:
                if any(a.type == "string" for a in self.attributes):
                    c.err(rkp + ("formula",), "an operator whose formula a string attribute selects has no "
                                              "per-reading formula")
                else:
                    formula_text = e["formula"]
                    formula = self.op_builder.parse_positioned(
                        formula_text, rkp + ("formula",), [t.name for t in self.inputs],
                        [a.name for a in self.attributes],
                        may_ignore={n for n, b in attrs.items() if b.fixed is not None})
            if "formula" not in e and not flags["attribute_cast"] and not flags["literal"]:
                c.err(rkp, "a reading must differ from the text: give it a formula, attribute_cast or literal")
            if name and url and quote and reason and (formula is not None or "formula" not in e):
                out.append(m.Reading(name=name, url=url, quote=quote, reason=reason, formula=formula,
                                     formula_text=formula_text, versions=applies, **flags))
        return tuple(out)

    def tensor_bindings(self) -> dict[str, m.TensorBinding]:
        c, kp = self.c, self.kp + ("tensors",)
        block = c.mapping(self.entry.get("tensors"), kp) if "tensors" in self.entry else None
        if block is None:
            return {}
        out = {}
        for name, raw in block.items():
            if name not in self.tensor_order:
                c.err(kp + (name,), f"{name!r} is not a declared input or output (declared: {', '.join(self.tensor_order)})")
                continue
            entry = c.mapping(raw, kp + (name,))
            if entry is None:
                continue
            c.keys(entry, kp + (name,), ("name",), ("type_param", "index"))
            std_name = c.text(entry.get("name"), kp + (name, "name")) if "name" in entry else None
            index = entry.get("index")
            if index is not None and (isinstance(index, bool) or not isinstance(index, int) or index < 0):
                c.err(kp + (name, "index"), f"must be a non-negative integer, got {_kind(index)}")
            if std_name:
                out[name] = m.TensorBinding(name, std_name, entry.get("type_param"), index)
        for name in self.tensor_order:
            if name not in block:
                c.err(kp, f"no {self.info.title} name for tensor {name!r}")
        return {n_: out[n_] for n_ in self.tensor_order if n_ in out}

    def attribute_bindings(self, mode) -> dict[str, m.AttributeBinding]:
        c, kp = self.c, self.kp + ("attributes",)
        block = c.mapping(self.entry.get("attributes"), kp) if "attributes" in self.entry else None
        if block is None:
            return {}
        declared = {a.name: a for a in self.attributes}
        out = {}
        for name, raw in block.items():
            akp = kp + (name,)
            if name not in declared:
                c.err(akp, f"{name!r} is not a declared attribute (declared: {', '.join(declared) or 'none'})")
                continue
            entry = c.mapping(raw, akp)
            if entry is None:
                continue
            if "fixed" in entry:  # the standard has no such attribute; its function uses this value
                c.keys(entry, akp, ("fixed",), ("source",))
                if declared[name].type == "string":
                    fixed = self.string_value(entry["fixed"], declared[name], akp + ("fixed",))
                else:
                    fixed = self.default_value(entry["fixed"], declared[name].type or "float32", akp + ("fixed",))
                if fixed is not None:
                    out[name] = m.AttributeBinding(name, None, None, False, fixed)
                continue
            if declared[name].type == "string":
                binding = self.string_binding(name, entry, akp, declared[name], mode)
                if binding is not None:
                    out[name] = binding
                continue
            c.keys(entry, akp, ("name",), ("default", "required", "absent", "nonfinite"))
            std_name = c.text(entry.get("name"), akp + ("name",)) if "name" in entry else None
            absent = entry.get("absent")
            if absent is not None and absent not in ABSENT_KINDS:
                c.err(akp + ("absent",), f"must be one of {', '.join(ABSENT_KINDS)}, got {absent!r}")
                absent = None
            nonfinite = entry.get("nonfinite")
            if nonfinite is not None and nonfinite not in ("allowed", "rejected"):
                c.err(akp + ("nonfinite",), f"must be allowed or rejected, got {nonfinite!r}")
                nonfinite = None
            if absent is not None and ("default" in entry or entry.get("required")):
                c.err(akp + ("absent",), "an attribute a call may leave out (absent) has no default and is not required")
            required = entry.get("required", mode == "none" and absent is None)
            if not isinstance(required, bool):
                c.err(akp + ("required",), f"must be true or false, got {_kind(required)}")
                required = False
            default = entry.get("default", _MISSING)
            value = None
            if default is not _MISSING:
                if declared[name].type is not None:
                    value = self.default_value(default, declared[name].type, akp + ("default",))
                if mode == "none":
                    c.err(akp + ("default",), f"{self.info.title} attributes have no defaults (attribute_defaults: none)")
                elif required:
                    c.err(akp + ("default",), "a required attribute cannot have a default")
            elif mode in ("applied", "typical") and not required and absent is None:
                c.err(akp, f"no default: {self.info.title} gives defaults ({mode}); add one, mark it required: true "
                           "or say what a call that leaves it out stands for (absent)")
            if mode == "none" and not required and absent is None:
                c.err(akp + ("required",), f"{self.info.title} attributes are all required (attribute_defaults: none)")
            if std_name:
                out[name] = m.AttributeBinding(name, std_name, value, required, absent=absent, nonfinite=nonfinite)
        for name in declared:
            if name not in block:
                c.err(kp, f"no {self.info.title} name for attribute {name!r}")
            elif name in out and declared[name].applies_when is not None and out[name].default is None \
                    and out[name].fixed is None:
                c.err(kp + (name,), f"{name!r} exists only with {declared[name].applies_when[0]} = "
                                    f"{', '.join(declared[name].applies_when[1])} (applies_when): a call that leaves it "
                                    f"out needs a default (or a fixed value)")
        return {n_: out[n_] for n_ in declared if n_ in out}

    def string_value(self, value, attr: m.Attribute, kp) -> str | None:
        """A value of a string attribute in the operator's spelling (fixed: the standard has no name for it)."""
        if not isinstance(value, str):
            self.c.err(kp, f"must be a value of string attribute {attr.name!r} ({', '.join(attr.values)}), got {_kind(value)}")
            return None
        if not attr.values:
            return None  # already reported: the attribute has no values
        if value not in attr.values:
            self.c.err(kp, f"unknown value {value!r} of attribute {attr.name!r}; values: {', '.join(attr.values)}")
            return None
        return value

    def string_binding(self, name, entry, akp, attr: m.Attribute, mode) -> m.AttributeBinding | None:
        """A string attribute the standard has: its name, its spelling of each value it accepts
        (``values``), and a default in that spelling."""
        c = self.c
        if "operators" in entry:  # one operator of the standard per value (DirectML's MODULUS_FLOOR / _TRUNCATE)
            c.keys(entry, akp, ("operators",), ("source",))
            ops = c.mapping(entry["operators"], akp + ("operators",))
            if ops is None or not attr.values:
                return None
            values: dict[str, str] = {}
            for value, op_name in ops.items():
                if value not in attr.values:
                    c.err(akp + ("operators", value), f"unknown value {value!r} of attribute {name!r}; values: {', '.join(attr.values)}")
                elif not isinstance(op_name, str) or not op_name:
                    c.err(akp + ("operators", value), f"must be the name of a {self.info.title} operator, got {_kind(op_name)}")
                elif op_name in values.values():
                    c.err(akp + ("operators", value), f"{op_name!r} names two values")
                else:
                    values[value] = op_name
            if self.entry.get("operator") not in values.values():
                c.err(akp + ("operators",), f"the block's operator {self.entry.get('operator')!r} is none of these")
            return m.AttributeBinding(name, None, None, False, values=values, operators=True)
        c.keys(entry, akp, ("name", "values"), ("default", "required", "kind_values", "positional"))
        std_name = c.text(entry.get("name"), akp + ("name",)) if "name" in entry else None
        positional = entry.get("positional", False)
        if not isinstance(positional, bool):
            c.err(akp + ("positional",), f"must be true or false, got {_kind(positional)}")
            positional = False
        elif positional and not entry.get("required", False):
            c.err(akp + ("positional",), "a positional argument must be required: true (the call always passes it)")
        spelled = c.mapping(entry.get("values"), akp + ("values",)) if "values" in entry else None
        if spelled is None or not attr.values:
            return None  # a missing values mapping is the schema's to report; no declared values: reported
        values: dict[str, str] = {}
        for value, spelling in spelled.items():
            if value not in attr.values:
                c.err(akp + ("values", value), f"unknown value {value!r} of attribute {name!r}; values: {', '.join(attr.values)}")
            elif isinstance(spelling, bool) or not isinstance(spelling, (str, int)) or spelling == "":
                c.err(akp + ("values", value), f"must be the {self.info.title} spelling of {value!r} (a string or an integer), got {_kind(spelling)}")
            elif spelling in values.values():
                c.err(akp + ("values", value), f"{spelling!r} spells two values")
            else:
                values[value] = spelling
        required = entry.get("required", mode == "none")
        if not isinstance(required, bool):
            c.err(akp + ("required",), f"must be true or false, got {_kind(required)}")
            required = False
        default = None
        if "default" in entry:
            back = {v: k for k, v in values.items()}
            if entry["default"] not in back:
                c.err(akp + ("default",), f"{entry['default']!r} is not {self.info.title}'s spelling of a value of "
                                          f"{name!r} (its spellings: {', '.join(map(str, values.values()))})")
            else:
                default = back[entry["default"]]
            if mode == "none":
                c.err(akp + ("default",), f"{self.info.title} attributes have no defaults (attribute_defaults: none)")
            elif required:
                c.err(akp + ("default",), "a required attribute cannot have a default")
        elif mode in ("applied", "typical") and not required:
            c.err(akp, f"no default: {self.info.title} gives defaults ({mode}); add one or mark it required: true")
        kind_values = None
        if isinstance(entry.get("kind_values"), dict):
            kind_values = {}
            for kind, listed in entry["kind_values"].items():
                listed = listed if isinstance(listed, list) else []
                for v in listed:
                    if v not in values:
                        c.err(akp + ("kind_values", kind), f"{v!r} is not a value {self.info.title} accepts ({', '.join(values)})")
                kind_values[kind] = tuple(v for v in listed if v in values)
        if std_name is None:
            return None
        return m.AttributeBinding(name, std_name, default, required, values=values, kind_values=kind_values,
                                  positional=positional)

    def default_value(self, value, typ, kp) -> float | None:
        c = self.c
        if typ in ("float32", "float64"):
            v = c.number(value, kp, f"a {typ} number")
            if v is None:
                return None
            if not math.isfinite(v):
                c.err(kp, f"default must be finite, got {value!r}")
                return None
            if typ == "float32" and abs(v) > float(np.finfo(np.float32).max):
                c.err(kp, f"{value!r} does not fit in float32 (largest finite is {float(np.finfo(np.float32).max)!r})")
                return None
            return v
        if isinstance(value, bool) or not isinstance(value, int):
            c.err(kp, f"must be an integer for type {typ}, got {_kind(value)}")
            return None
        return float(value)

    def constraints(self) -> list[m.Constraint]:
        c, kp = self.c, self.kp + ("constraints",)
        if "constraints" not in self.entry:
            return []
        items = c.seq(self.entry["constraints"], kp) or []
        out = []
        for i, raw in enumerate(items):
            ikp = kp + (i,)
            entry = c.mapping(raw, ikp)
            if entry is None:
                continue
            c.keys(entry, ikp, ("tensors", "same"), ("source",))
            tensors = c.seq(entry.get("tensors"), ikp + ("tensors",)) if "tensors" in entry else None
            same = c.seq(entry.get("same"), ikp + ("same",)) if "same" in entry else None
            ok = tensors is not None and same is not None
            for t in tensors or []:
                if t not in self.tensor_order:
                    c.err(ikp + ("tensors",), f"{t!r} is not a declared input or output")
                    ok = False
            if tensors is not None and len(tensors) < 2:
                c.err(ikp + ("tensors",), "a 'same' constraint relates at least two tensors")
                ok = False
            for s in same or []:
                if s not in m.SAME_PROPERTIES:
                    c.err(ikp + ("same",), f"unknown property {s!r}; expected one of: {', '.join(m.SAME_PROPERTIES)}")
                    ok = False
            if ok:
                out.append(m.Constraint(tuple(tensors), tuple(same), entry.get("source")))
        return out

    def broadcast(self, raw, kp) -> list[m.BroadcastRule]:
        """Broadcast rules: a list of {kind, tensors, to, source}; [] (or none given): no broadcasting."""
        c = self.c
        items = c.seq(raw, kp, "a list of {kind, tensors, to, source}")
        out = []
        input_names = [t.name for t in self.inputs]
        for i, item in enumerate(items or []):
            ikp = kp + (i,)
            entry = c.mapping(item, ikp)
            if entry is None:
                continue
            c.keys(entry, ikp, ("kind", "tensors", "to"), ("source",))
            kind = entry.get("kind")
            if kind not in m.BROADCAST_KINDS:
                c.err(ikp + ("kind",), f"must be one of {', '.join(m.BROADCAST_KINDS)}, got {kind!r}")
                continue
            tensors = c.seq(entry.get("tensors"), ikp + ("tensors",)) or []
            to = entry.get("to")
            bad = [t for t in [*tensors, to] if t not in input_names]
            if bad or not tensors:
                c.err(ikp + ("tensors",) if not bad or bad[0] != to else ikp + ("to",),
                      f"{bad[0]!r} is not a declared input" if bad else "names no input")
                continue
            if to in tensors and kind != "multidirectional":  # multidirectional is symmetric: listing `to`
                # says it may be the smaller input too (binary arithmetic: either operand broadcasts)
                c.err(ikp + ("to",), f"{to!r} cannot broadcast to itself")
                continue
            source = entry.get("source")
            if source is not None:
                source = c.text(source, ikp + ("source",))
            out.append(m.BroadcastRule(kind, tuple(str(t) for t in tensors), str(to), source))
        return out

    def versions(self, attrs) -> list[m.Version]:
        c, kp, info = self.c, self.kp + ("versions",), self.info
        self.standard_broadcast = (self.broadcast(self.entry["broadcast"], self.kp + ("broadcast",))
                                   if "broadcast" in self.entry else [])
        if "versions" not in self.entry:
            return []
        items = c.seq(self.entry["versions"], kp) or []
        if not items and isinstance(self.entry["versions"], list):
            c.err(kp, f"needs at least one {info.version_kind}")
        out: list[m.Version] = []
        for i, raw in enumerate(items):
            vkp = kp + (i,)
            entry = c.mapping(raw, vkp)
            if entry is None:
                continue
            c.keys(entry, vkp, ("version",), ("ranks", "dtypes", "tensors", "extra_attributes", "facts", "source",
                                              "broadcast", "defaults", "as_inputs", "absent_defaults",
                                              "attribute_values"))
            version = entry.get("version")
            if isinstance(version, bool) or not isinstance(version, (str, int)):
                c.err(vkp + ("version",), f"must be a string such as \"3_0\" or \"22\", got {_kind(version)}")
                continue
            version = str(version)
            if not re.match(info.version_format, version):
                c.err(vkp + ("version",), f"{version!r} is not a {info.title} {info.version_kind} (expected {info.version_format})")
                continue
            if any(v.version == version for v in out):
                c.err(vkp + ("version",), f"{info.version_kind} {version} is listed twice")
                continue
            tensors = self.version_tensors(entry, vkp)
            extras = self.extra_attributes(entry, vkp, attrs)
            facts = entry.get("facts", {})
            if not isinstance(facts, dict) or any(isinstance(v, (dict, list)) for v in facts.values()):
                c.err(vkp + ("facts",), "must be a mapping of names to plain values")
                facts = {}
            if tensors is None:
                continue
            if "broadcast" in entry:
                broadcast = self.broadcast(entry["broadcast"], vkp + ("broadcast",))
            else:
                broadcast = self.standard_broadcast
            defaults = self.version_defaults(entry, vkp, attrs) if "defaults" in entry else {}
            as_inputs, absent = self.version_inputs(entry, vkp)
            # an optional attribute's binding (absent) holds in every version that does not say otherwise
            absent = {**{n: b.absent for n, b in attrs.items() if b.absent is not None}, **absent}
            spelled = self.version_values(entry, vkp, attrs) if "attribute_values" in entry else {}
            v = m.Version(version, tensors, extras, dict(facts), entry.get("source"), c.doc.line(vkp),
                          tuple(broadcast), defaults, as_inputs, absent, spelled)
            if out:
                self.check_growth(out[-1], v, vkp)
            out.append(v)
        return out

    def version_inputs(self, entry, vkp) -> tuple[tuple[str, ...], dict[str, str]]:
        """A version's attributes taken as optional input tensors (as_inputs) and what an absent one
        stands for (absent_defaults): declared numeric attributes only, absent_defaults only for them."""
        c = self.c
        declared = {a.name: a for a in self.attributes}
        names = entry.get("as_inputs", [])
        out = []
        for i, name in enumerate(names if isinstance(names, list) else []):
            if name not in declared or declared[name].type == "string":
                c.err(vkp + ("as_inputs", i), f"{name!r} is not a declared numeric attribute "
                                             f"(declared: {', '.join(declared) or 'none'})")
            else:
                out.append(name)
        absent = entry.get("absent_defaults", {})
        block = {}
        for name, kind in (absent.items() if isinstance(absent, dict) else ()):
            if name not in declared or declared[name].type == "string":
                c.err(vkp + ("absent_defaults", name), f"{name!r} is not a declared numeric attribute")
            elif kind in ABSENT_KINDS:
                block[name] = kind
        return tuple(out), block

    def version_values(self, entry, vkp, attrs) -> dict[str, dict]:
        """A version's own spelling of string attributes' values (ONNX Cast-1's `to`: "FLOAT" where the
        block says 1), replacing the binding's values in that version's calls (the values it accepts):
        only for a string attribute the block spells (values), each value one the block spells, each
        spelling once, the block's default among them."""
        c, kp = self.c, vkp + ("attribute_values",)
        block = c.mapping(entry["attribute_values"], kp)
        if block is None:
            return {}
        out = {}
        for name, raw in block.items():
            b = attrs.get(name)
            if b is None or not b.values or b.operators:
                c.err(kp + (name,), f"{name!r} is no attribute whose values {self.info.title} spells in this block "
                                    f"(a string attribute's binding with values)")
                continue
            spelled = c.mapping(raw, kp + (name,))
            if spelled is None:
                continue
            values: dict = {}
            for value, spelling in spelled.items():
                if value not in b.values:
                    c.err(kp + (name, value), f"{value!r} is not a value the block spells for {name!r} "
                                              f"({', '.join(b.values)})")
                elif isinstance(spelling, bool) or not isinstance(spelling, (str, int)) or spelling == "":
                    c.err(kp + (name, value), f"must be the {self.info.title} spelling of {value!r} (a string or an "
                                              f"integer), got {_kind(spelling)}")
                elif spelling in values.values():
                    c.err(kp + (name, value), f"{spelling!r} spells two values")
                else:
                    values[value] = spelling
            if b.default is not None and b.default not in spelled:
                c.err(kp + (name,), f"no spelling for {b.default!r}, the block's default")
            out[name] = values
        return out

    def version_defaults(self, entry, vkp, attrs) -> dict[str, float]:
        """A version's own attribute defaults (ONNX Selu-1): only for attributes this standard names and
        gives a default for (not fixed, not required), values of the attribute's type."""
        c, kp = self.c, vkp + ("defaults",)
        block = c.mapping(entry["defaults"], kp)
        if block is None:
            return {}
        declared = {a.name: a for a in self.attributes}
        out = {}
        for name, raw in block.items():
            b = attrs.get(name)
            if name not in declared:
                c.err(kp + (name,), f"{name!r} is not a declared attribute (declared: {', '.join(declared) or 'none'})")
            elif b is None or b.fixed is not None or b.default is None:
                c.err(kp + (name,), f"{name!r} has no {self.info.title} default to replace (a version may only "
                                    "change a default the standard block gives)")
            else:
                value = self.default_value(raw, declared[name].type or "float32", kp + (name,))
                if value is not None:
                    if not declared[name].allows(value):
                        c.err(kp + (name,), f"{value!r} is excluded for attribute {name!r} ({declared[name].excluded_reason})")
                    out[name] = value
        return out

    def version_tensors(self, entry, vkp) -> dict[str, m.TensorSupport] | None:
        c = self.c
        overrides = c.mapping(entry.get("tensors"), vkp + ("tensors",)) if "tensors" in entry else {}
        if overrides is None:
            return None
        for name in overrides:
            if name not in self.tensor_order:
                c.err(vkp + ("tensors", name), f"{name!r} is not a declared input or output")
                return None
        out = {}
        for name in self.tensor_order:
            src = overrides.get(name) or {}
            if not isinstance(src, dict):
                c.err(vkp + ("tensors", name), f"must be a mapping, got {_kind(src)}")
                return None
            if src:
                c.keys(src, vkp + ("tensors", name), (), ("ranks", "dtypes"))
            rkp = vkp + ("tensors", name, "ranks") if "ranks" in src else vkp + ("ranks",)
            dkp = vkp + ("tensors", name, "dtypes") if "dtypes" in src else vkp + ("dtypes",)
            ranks_raw = src.get("ranks", entry.get("ranks", _MISSING))
            dtypes_raw = src.get("dtypes", entry.get("dtypes", _MISSING))
            if ranks_raw is _MISSING:
                c.err(vkp, f"no ranks for tensor {name!r}: give 'ranks' (or 'ranks: unspecified')")
                return None
            if dtypes_raw is _MISSING:
                c.err(vkp, f"no dtypes for tensor {name!r}")
                return None
            ranks = self.ranks(ranks_raw, rkp)
            dtypes = self.dtypes(dtypes_raw, dkp)
            if ranks is None or dtypes is None:
                return None
            out[name] = m.TensorSupport(name, ranks, dtypes)
        return out

    def ranks(self, raw, kp) -> m.Ranks | None:
        c = self.c
        if raw == "unspecified":
            return m.Ranks(None, None, unspecified=True)
        entry = c.mapping(raw, kp, "a mapping {min, max} or 'unspecified'")
        if entry is None:
            return None
        c.keys(entry, kp, ("min", "max"))
        lo, hi = entry.get("min"), entry.get("max")
        if isinstance(lo, bool) or not isinstance(lo, int) or lo < 0:
            c.err(kp + ("min",), f"must be an integer >= 0, got {_kind(lo)}")
            return None
        if hi is not None and (isinstance(hi, bool) or not isinstance(hi, int)):
            c.err(kp + ("max",), f"must be an integer or null (unbounded), got {_kind(hi)}")
            return None
        if hi is not None and lo > hi:
            c.err(kp, f"min {lo} is greater than max {hi}")
            return None
        return m.Ranks(lo, hi)

    def dtypes(self, raw, kp) -> tuple[str, ...] | None:
        c = self.c
        items = c.seq(raw, kp, "a list of dtypes")
        if items is None:
            return None
        if not items:
            c.err(kp, "must list at least one dtype")
            return None
        ok = True
        for d in items:
            if d not in dt.DTYPES:
                c.err(kp, f"unknown dtype {d!r}; known: {', '.join(dt.DTYPES)}")
                ok = False
            elif d not in self.info.dtype_names:
                c.err(kp, f"{self.info.title} has no name for dtype {d!r} (specs/{STANDARDS_FILE})")
                ok = False
        dup = sorted({d for d in items if items.count(d) > 1})
        if dup:
            c.err(kp, f"dtype listed twice: {', '.join(map(str, dup))}")
            ok = False
        return tuple(items) if ok else None

    def extra_attributes(self, entry, vkp, attrs) -> tuple[m.ExtraAttribute, ...]:
        c = self.c
        if "extra_attributes" not in entry:
            return ()
        items = c.seq(entry["extra_attributes"], vkp + ("extra_attributes",)) or []
        out = []
        for i, raw in enumerate(items):
            ekp = vkp + ("extra_attributes", i)
            e = c.mapping(raw, ekp)
            if e is None:
                continue
            c.keys(e, ekp, ("name", "type"), ("required", "description"))
            nm = c.text(e.get("name"), ekp + ("name",)) if "name" in e else None
            typ = e.get("type")
            if typ not in EXTRA_ATTRIBUTE_TYPES:
                c.err(ekp + ("type",), f"unknown attribute type {typ!r}; expected one of: {', '.join(EXTRA_ATTRIBUTE_TYPES)}")
                continue
            if nm and any(b.name == nm for b in attrs.values()):
                c.err(ekp + ("name",), f"{nm!r} is already the {self.info.title} name of a formula attribute")
                continue
            if nm:
                out.append(m.ExtraAttribute(nm, typ, bool(e.get("required", False)), str(e.get("description", ""))))
        return tuple(out)

    def check_growth(self, prev: m.Version, cur: m.Version, vkp) -> None:
        """Versions must be in increasing order and each must support all its predecessor did."""
        c, info = self.c, self.info
        if _version_key(cur.version) <= _version_key(prev.version):
            c.err(vkp + ("version",), f"{info.version_kind}s must be listed in increasing order: "
                                      f"{cur.version} comes after {prev.version}")
            return
        for name, support in cur.tensors.items():
            before = prev.tensors[name]
            dropped = [d for d in before.dtypes if d not in support.dtypes]
            if dropped:
                c.err(vkp, f"{info.version_kind} {cur.version} is not a superset of {prev.version}: "
                           f"tensor {name!r} drops {', '.join(dropped)}")
            if not support.ranks.covers(before.ranks):
                c.err(vkp, f"{info.version_kind} {cur.version} is not a superset of {prev.version}: "
                           f"tensor {name!r} ranks {support.ranks} do not cover {before.ranks}")


READING_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
URL = re.compile(r"^https://\S+$")


def _formula_text(raw) -> str:
    """The formula as text: a chosen formula reads ``<by>=<value>: <formula>``, one per line."""
    if isinstance(raw, dict):
        return "\n".join(f"{raw['by']}={v}: {str(t).strip()}" for v, t in (raw.get("formulas") or {}).items())
    return raw
