"""Accumulating operator specs (specs/accumulating/*.yaml): read and checked, every problem named by
file and key path. The block layout follows specs/*.yaml (name, id, summary, inputs, outputs,
attributes, formula, standards) plus ``index_space`` (specgen.indexing.space), ``readings`` (other
legal evaluations of the same exact value: softmax without subtracting the maximum) and per
standard ``accumulation`` (the types a kernel may accumulate in, per dtype, with the source).
"""
from __future__ import annotations

import dataclasses

import re
from dataclasses import dataclass
from pathlib import Path

from specgen import dtypes
from specgen.errors import FormulaError, Problem, SpecError
from specgen.formula import nodes as n
from specgen.formula.parser import parse_formula
from specgen.indexing.space import IndexSpace, IndexSpaceError, parse_index_space
from specgen.numerics.accumulation import AccumulationPolicy

SPEC_DIR = Path(__file__).resolve().parents[2] / "specs" / "accumulating"
ATTRIBUTE_TYPES = ("axes", "axis", "bool", "float32", "string")  # string: a closed set of ``values`` (a layout)
_TOP = {"name", "id", "summary", "inputs", "outputs", "attributes", "index_space", "formula", "readings",
        "standards", "examples", "special_values"}
SPECIAL = {"nan": ("propagate", "unspecified"), "inf": ("formula", "unspecified")}
# standards.<key>.empty: a reduction over an empty set gives the formula's identity (0, 1, -inf, ...),
# is left undefined (any value passes, reported), or cannot happen (a dimension of size 0 is rejected)
EMPTY_RULES = ("identity", "undefined", "rejected")


class Name(str):
    """A tensor name that also answers ``.name`` (the runner addresses an element-wise spec's
    tensors as objects with a name; an accumulating spec's are their names)."""

    @property
    def name(self) -> str:
        return str(self)


@dataclass(frozen=True)
class Tolerance:
    """What the manifest records of an accumulating case's tolerance: judged by the accumulation
    model (specgen.numerics.accumulation), not a ULP count."""

    metric: str = "accumulation"
    value: object = None
    intermediate: object = None


@dataclass(frozen=True)
class Attribute:
    name: str
    type: str
    default: object = None
    values: tuple = ()               # a string attribute's closed set of values


@dataclass(frozen=True)
class Version:
    version: str
    dtype_list: tuple[str, ...]
    attributes: tuple[str, ...]      # the operator attributes this version has (others: their defaults)
    as_inputs: tuple[str, ...] = ()  # attributes passed as input tensors (ONNX ReduceSum-13 axes)
    max_rank: int | None = None

    def dtypes(self, *_) -> tuple[str, ...]:
        """The dtypes this version lists (the element-wise model's OpVersion.dtypes() signature)."""
        return self.dtype_list


@dataclass(frozen=True)
class Standard:
    key: str
    operator: str
    versions: tuple[Version, ...]
    accumulation: dict               # dtype -> AccumulationPolicy
    empty: str | None                # reduction over an empty set: "identity" | "undefined" | "rejected"; None: not stated
    defaults: dict                   # attribute defaults where this standard's differ (WebNN keepDimensions false)
    # how a builder-style API takes the operator's tensors and attributes (WebNN: builder.gemm(a, b, {c,
    # alpha, aTranspose, ...})): {args: [spec names, in order], options: {the standard's option name: spec name}}
    call: dict | None = None

    readings = ()                    # the element-wise model's opt-in readings: none (a spec's readings are always on)
    attributes = {}                  # attribute bindings: the operator's names are the standard's
    tensors = {}                     # tensor bindings: likewise

    @property
    def version_ids(self) -> list[str]:
        return [v.version for v in self.versions]

    def version(self, version: str) -> Version:
        return next(v for v in self.versions if v.version == str(version))


@dataclass(frozen=True)
class AccSpec:
    id: str
    name: str
    summary: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attributes: dict
    index_space: IndexSpace
    formula: n.Node
    readings: dict                   # reading name -> formula (the spec's formula is "text")
    standards: dict
    path: str
    special: dict                    # "nan": propagate|unspecified; "inf": formula|unspecified (IEEE evaluation)
    texts: dict = None               # the formulas as the spec spells them: {"text": ..., reading name: ...}

    engine = "accumulating"          # the runner and the generator ask this to choose the judge and the designer

    @property
    def attribute_names(self) -> list[str]:
        return list(self.attributes)

    @property
    def tolerance(self) -> dict:
        return {d: Tolerance() for d in dtypes.FLOAT_DTYPES}

    def formulas(self) -> list:
        return [self.formula, *self.readings.values()]

    def defaults(self, standard: str | None = None) -> dict:
        out = {a.name: a.default for a in self.attributes.values() if a.default is not None}
        if standard is not None:
            out.update(self.standards[standard].defaults)
        return out


class AccSpecError(SpecError, IndexSpaceError):
    """A broken accumulating spec: its problems located by file, line, column and key path, as
    `specgen lint` prints those of the element-wise specs (a SpecError to every command)."""


class _Fault(IndexSpaceError):
    def __init__(self, where: str, message: str):
        self.where, self.message = where, message
        super().__init__(f"{where}: {message}")


def _fail(path, where, message):
    raise _Fault(where, message)


def _keypath(where: str) -> tuple:
    """"standards.onnx.versions[0].dtypes" -> ("standards", "onnx", "versions", 0, "dtypes")."""
    if where.startswith("("):
        return ()
    out: list = []
    for part in where.split("."):
        m = re.fullmatch(r"([^\[]*)((?:\[\d+\])*)", part)
        name, indices = (m.group(1), m.group(2)) if m else (part, "")
        if name:
            out.append(name)
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", indices))
    return tuple(out)


def load(path: Path, display: str | None = None) -> "AccSpec":
    """One accumulating spec, read as untrusted input (the YAML reader of the element-wise specs: no
    tags, size limits); every refusal an AccSpecError naming the file, line, column and key."""
    from specgen.spec.yaml_source import YamlProblems, read_document

    name = display or str(path)
    try:
        doc = read_document(path, name)
    except YamlProblems as exc:
        raise AccSpecError(exc.problems) from None
    try:
        return _load(path, doc.data)
    except _Fault as fault:
        where, message = fault.where, fault.message
        inner = re.match(r"(index_space(?:\.[\w]+|\[\d+\])+): (.*)", message, re.S)
        if where == "index_space" and inner:  # the index space's own checks name the key below it
            where, message = inner.group(1), inner.group(2)
        kp = _keypath(where)
        line, column = doc.where(kp)
        raise AccSpecError([Problem(name, line, where if kp else "", message, column)]) from None
    except (TypeError, AttributeError, KeyError, ValueError, IndexError) as exc:  # ill-typed data
        text = " ".join(str(exc).split())[:200]
        raise AccSpecError([Problem(name, None, "", f"malformed accumulating spec ({type(exc).__name__}: {text}): "
                                                    "see docs/accumulation.md for the format")]) from None


def _policy(path, where, raw) -> AccumulationPolicy:
    if not isinstance(raw, dict) or "allowed" not in raw or "source" not in raw:
        _fail(path, where, "an accumulation entry is {allowed: [types], reported: [types], source: ...}")
    for key in ("allowed", "reported"):
        for t in raw.get(key, ()):
            if t not in dtypes.FLOAT_DTYPES:
                _fail(path, f"{where}.{key}", f"{t!r} is not a float type ({', '.join(dtypes.FLOAT_DTYPES)})")
    return AccumulationPolicy(tuple(raw["allowed"]), tuple(raw.get("reported", ())))


def _load(path: Path, raw) -> AccSpec:
    p = str(path)
    if not isinstance(raw, dict):
        _fail(p, "(top)", "a spec is a mapping")
    unknown = set(raw) - _TOP
    if unknown:
        _fail(p, "(top)", f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_TOP)}")
    for key in ("name", "id", "inputs", "outputs", "index_space", "formula", "standards"):
        if key not in raw:
            _fail(p, key, "required")
    attributes = {}
    for name, a in (raw.get("attributes") or {}).items():
        if not isinstance(a, dict) or a.get("type") not in ATTRIBUTE_TYPES:
            _fail(p, f"attributes.{name}.type", f"one of {', '.join(ATTRIBUTE_TYPES)}")
        values = tuple(a.get("values") or ())
        if a["type"] == "string":
            if not values or not all(isinstance(v, str) and v for v in values):
                _fail(p, f"attributes.{name}.values", "a string attribute lists its values (non-empty strings)")
            if a.get("default") is not None and a["default"] not in values:
                _fail(p, f"attributes.{name}.default", f"{a['default']!r} is not one of its values {list(values)}")
        elif values:
            _fail(p, f"attributes.{name}.values", "only a string attribute lists values")
        attributes[name] = Attribute(name, a["type"], a.get("default"), values)
    try:
        space = parse_index_space(raw["index_space"])
    except IndexSpaceError as exc:
        _fail(p, "index_space", str(exc))
    for i, o in enumerate(space.overrides):
        for name, value in (o.get("when") or {}).items():
            a = attributes.get(name)
            if a is None:
                _fail(p, f"index_space.overrides[{i}].when", f"{name!r} is not an attribute of the operator")
            if a.values and value not in a.values:
                _fail(p, f"index_space.overrides[{i}].when", f"{value!r} is not one of {name}'s values {list(a.values)}")
    inputs, outputs = tuple(Name(t) for t in raw["inputs"]), tuple(Name(t) for t in raw["outputs"])
    for t in inputs + outputs:
        if t not in space.tensors:
            _fail(p, "index_space.tensors", f"tensor {t!r} has no dimensions declared")

    def formula(text, where):
        try:
            return parse_formula(text, inputs, attributes, index_sets=space.sets)
        except FormulaError as exc:
            _fail(p, where, f"line {exc.line}, column {exc.column}: {exc.message} (token {exc.token!r})")

    main = formula(raw["formula"], "formula")
    readings = {r["name"]: formula(r["formula"], f"readings[{i}].formula") for i, r in enumerate(raw.get("readings") or ())}
    standards = {}
    for key, s in raw["standards"].items():
        where = f"standards.{key}"
        versions = []
        for i, v in enumerate(s.get("versions") or ()):
            w = f"{where}.versions[{i}]"
            for t in v.get("dtypes", ()):
                if t not in dtypes.DTYPES:
                    _fail(p, f"{w}.dtypes", f"unknown dtype {t!r}")
            for name in v.get("attributes", ()):
                if name not in attributes:
                    _fail(p, f"{w}.attributes", f"{name!r} is not an attribute of the operator")
            versions.append(Version(str(v["version"]), tuple(v.get("dtypes", ())), tuple(v.get("attributes", ())),
                                    tuple(v.get("as_inputs", ())), v.get("max_rank")))
        if not versions:
            _fail(p, f"{where}.versions", "at least one version")
        acc = {d: _policy(p, f"{where}.accumulation.{d}", r) for d, r in (s.get("accumulation") or {}).items()}
        defaults = dict(s.get("defaults") or {})
        for name in defaults:
            if name not in attributes:
                _fail(p, f"{where}.defaults", f"{name!r} is not an attribute of the operator")
            if attributes[name].values and defaults[name] not in attributes[name].values:
                _fail(p, f"{where}.defaults", f"{defaults[name]!r} is not one of {name}'s values {list(attributes[name].values)}")
        call = s.get("call")
        if call is not None:
            if not isinstance(call, dict) or set(call) - {"args", "options"}:
                _fail(p, f"{where}.call", "a call is {args: [names], options: {option: name}}")
            for i, name in enumerate(list(call.get("args") or ()) + list((call.get("options") or {}).values())):
                if name not in inputs and name not in attributes:
                    _fail(p, f"{where}.call", f"{name!r} is neither an input nor an attribute of the operator")
            call = {"args": list(call.get("args") or ()), "options": dict(call.get("options") or {})}
        empty = s.get("empty")
        if empty is not None and empty not in EMPTY_RULES:
            _fail(p, f"{where}.empty", f"{empty!r}; allowed: {', '.join(EMPTY_RULES)}")
        standards[key] = Standard(key, s["operator"], tuple(versions), acc, empty, defaults, call)
    # a standard whose tensors cannot have a dimension of size 0 (WebNN, DirectML) rejects such shapes
    space = dataclasses.replace(space, nonzero_standards=frozenset(k for k, st in standards.items() if st.empty == "rejected"))
    special = {"nan": "propagate", "inf": "formula"}
    for key, value in (raw.get("special_values") or {}).items():
        if key == "reason":
            continue
        if key not in SPECIAL or value not in SPECIAL[key]:
            _fail(p, f"special_values.{key}", f"{value!r}; allowed: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in SPECIAL.items()))
        special[key] = value
    texts = {"text": str(raw["formula"]), **{r["name"]: str(r["formula"]) for r in raw.get("readings") or ()}}
    return AccSpec(raw["id"], raw["name"], raw.get("summary", ""), inputs, outputs, attributes, space, main,
                   readings, standards, p, special, texts)


_LOADED: dict = {}  # directory -> (the files' bytes, specs): a process reloading unchanged specs parses nothing


def load_all(directory: Path = SPEC_DIR) -> dict:
    files = sorted(Path(directory).glob("*.yaml"))
    contents = tuple((str(f), f.read_bytes()) for f in files)
    key = str(Path(directory).resolve())
    known = _LOADED.get(key)
    if known is not None and known[0] == contents:
        return dict(known[1])
    specs = {s.id: s for s in (load(f) for f in files)}
    _LOADED[key] = (contents, specs)
    return dict(specs)
