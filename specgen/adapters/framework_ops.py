"""A framework adapter's op mapping (specgen/adapters/<backend>_ops.yaml: torch_ops.yaml, jax_ops.yaml,
tensorflow_ops.yaml, tinygrad_ops.yaml), read, checked and turned into claims and calls. Imports no
framework: the adapter passes the framework's module in, so the mapping logic is tested without it
(tests/test_torch_ops.py with a fake ``torch``, tests/test_framework_adapter.py with a fake framework).

Checks, each a :class:`specgen.errors.Problem` naming the file, line and key path:

- the file's shape: specgen/schemas/framework_ops.schema.json;
- against the loaded specs: every attribute an entry passes or limits, and every input it lays
  out, is the spec's; every attribute of the spec is passed to the framework or pinned to one value
  (so an entry cannot claim values the function ignores); ``same_as`` names another attribute of
  the spec; a value map covers every value a string attribute of the spec lists;
- against the framework (when its module is given): ``call`` resolves to a callable under it.

An entry whose op has no spec is not an error: it is skipped, with a note, until the spec exists.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from specgen.adapters.base import AllOf, AttrRule, ChannelOf, Claim, Range, SameAs, Values
from specgen.errors import Problem, SpecError

HERE = Path(__file__).resolve().parent


def mapping_path(backend: str) -> Path:
    """The shipped mapping of a backend: specgen/adapters/<backend>_ops.yaml."""
    return HERE / f"{backend}_ops.yaml"


@dataclass(frozen=True)
class Entry:
    """One framework function as a subset of one operator."""

    op: str
    call: str  # dotted path under the framework's module
    arguments: Mapping[str, Any]  # keyword -> ("attr", name), ("value", literal) or ("map", name, {v: framework v})
    rules: Mapping[str, AttrRule]
    channel_of: Mapping[str, str]  # spec input -> the input whose axis 1 it runs along
    dtypes: tuple[str, ...]
    note: str
    line: int | None = None
    module: str = "torch"  # the prefix of ``call`` in notes and messages

    @property
    def qualified(self) -> str:
        """The function as the framework's users spell it (torch.nn.functional.relu, jax.nn.relu)."""
        return f"{self.module}.{self.call}"

    def claim(self, dtypes: tuple[str, ...] | None = None, **flags) -> Claim:
        """The claim of this entry: every standard and version of the op, ``dtypes`` (default: the
        entry's), in-place and strided unless ``flags`` say otherwise, no must-reject cases."""
        options = {"in_place": True, "strided": True, **flags}
        return Claim(op=self.op, standard="*", versions=("*",), dtypes=self.dtypes if dtypes is None else dtypes,
                     attributes=dict(self.rules), shapes={t: ChannelOf(of) for t, of in self.channel_of.items()},
                     rejects=False, note=f"{self.qualified}: {self.note}", **options)

    def accepts(self, attributes: Mapping[str, Any]) -> bool:
        """Do these attribute values (operator names) fall in this entry's subset?"""
        for name, rule in self.rules.items():
            if name in attributes:
                v = attributes[name]
                if rule.check(name, v if isinstance(v, str) else float(v), attributes):
                    return False
        return True

    def kwargs(self, attributes: Mapping[str, Any]) -> dict:
        out = {}
        backend = self.module.split(".")[0]
        for kw, (kind, v, *table) in self.arguments.items():
            value = v if kind == "value" else attributes[v]
            if kind == "map":
                table = table[0]
                if value in table:
                    value = table[value]
                elif value not in table.values():  # a standard's own spelling that is the framework's too passes
                    raise KeyError(f"{self.qualified}: no {backend} value for {v}={value!r} "
                                   f"(mapped: {', '.join(map(str, table))})")
            out[kw] = value if isinstance(value, (str, bool)) else float(value)
        return out


@dataclass
class OpMapping:
    entries: list[Entry]
    skipped: list[str] = field(default_factory=list)  # notes: entries whose spec is not in specs/
    absent: dict[str, str] = field(default_factory=dict)  # op -> why the framework has no function for it
    backend: str = ""
    module: str = ""

    def for_op(self, op: str) -> list[Entry]:
        return [e for e in self.entries if e.op == op]


def resolve(module, path: str):
    """module.<path> (``nn.functional.relu``, ``Tensor.relu``), or None."""
    obj = module
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _rule(spec_rule: dict) -> AttrRule:
    parts: list[AttrRule] = []
    if "values" in spec_rule:
        parts.append(Values(*spec_rule["values"]))
    if "same_as" in spec_rule:
        parts.append(SameAs(spec_rule["same_as"]))
    if "min" in spec_rule or "max" in spec_rule:
        parts.append(Range(spec_rule.get("min"), spec_rule.get("max")))
    return parts[0] if len(parts) == 1 else AllOf(*parts)


def load(specs: Mapping[str, Any], path: str | Path, module=None) -> OpMapping:
    """The checked mapping; raises :class:`SpecError` with every problem found. ``module``: the
    framework's module, to check that every ``call`` exists (None: not checked)."""
    from specgen.spec.schema import validate
    from specgen.spec.yaml_source import YamlProblems, join_keypath, read_document

    try:
        doc = read_document(path)
    except YamlProblems as exc:
        raise SpecError(exc.problems) from None
    problems = validate(doc, "framework_ops")
    if problems:
        raise SpecError(problems)

    def problem(keypath, message):
        line, column = doc.where(keypath)
        problems.append(Problem(doc.path, line, join_keypath(keypath), message, column))

    data = doc.data
    backend = data["backend"]
    prefix = data.get("module", backend)
    result = OpMapping([], backend=backend, module=prefix)
    for item in data.get("absent", []):
        result.absent[item["op"]] = item["reason"]
    for i, item in enumerate(data["functions"]):
        at = ("functions", i)
        op = item["op"]
        spec = specs.get(op)
        if spec is None:
            result.skipped.append(f"{op}: {prefix}.{item['call']} not claimed, no spec {op!r} in the specs in use "
                                  f"({doc.path}:{doc.line(at)})")
            continue
        names = [a.name for a in spec.attributes]  # string attributes (GELU's approximate) included
        inputs = [t.name for t in spec.inputs]
        arguments: dict[str, tuple] = {}
        for kw, arg in item.get("arguments", {}).items():
            if isinstance(arg, dict) and "value" in arg:
                arguments[kw] = ("value", arg["value"])
            elif isinstance(arg, dict):
                if arg["attribute"] not in names:
                    problem(at + ("arguments", kw, "attribute"),
                            f"{op} has no attribute {arg['attribute']!r} (its attributes: {', '.join(names) or 'none'})")
                    continue
                values = getattr(next(a for a in spec.attributes if a.name == arg["attribute"]), "values", ()) or ()
                unmapped = [v for v in values if v not in arg["map"]]
                if unmapped:
                    problem(at + ("arguments", kw, "map"), f"no {backend} value for {arg['attribute']} = "
                                                           f"{', '.join(map(repr, unmapped))} (map every value the spec lists)")
                arguments[kw] = ("map", arg["attribute"], dict(arg["map"]))
            elif arg not in names:
                problem(at + ("arguments", kw), f"{op} has no attribute {arg!r} (its attributes: {', '.join(names) or 'none'})")
            else:
                arguments[kw] = ("attr", arg)
        rules = {}
        for name, r in item.get("attributes", {}).items():
            if name not in names:
                problem(at + ("attributes", name), f"{op} has no attribute {name!r} (its attributes: {', '.join(names) or 'none'})")
                continue
            if "same_as" in r and r["same_as"] not in names:
                problem(at + ("attributes", name, "same_as"), f"{op} has no attribute {r['same_as']!r} (its attributes: {', '.join(names)})")
                continue
            rules[name] = _rule(r)
        passed = {a[1] for a in arguments.values() if a[0] in ("attr", "map")}
        for name in names:
            r = item.get("attributes", {}).get(name, {})
            pinned = len(r.get("values", ())) == 1 or ("same_as" in r and r["same_as"] in passed)
            if name not in passed and not pinned:
                problem(at, f"attribute {name!r} of {op} is neither passed to {backend} (arguments) nor pinned to one value "
                            f"(attributes: {{{name}: {{values: [v]}}}}): the claim would cover values {backend} ignores")
        layouts = {}
        for tensor, lay in item.get("inputs", {}).items():
            if tensor not in inputs or lay["channel_of"] not in inputs:
                bad = tensor if tensor not in inputs else lay["channel_of"]
                problem(at + ("inputs", tensor), f"{op} has no input {bad!r} (its inputs: {', '.join(inputs)})")
                continue
            layouts[tensor] = lay["channel_of"]
        if module is not None and not callable(resolve(module, item["call"])):
            version = getattr(module, "__version__", "?")
            problem(at + ("call",), f"{backend} {version} has no function {prefix}.{item['call']}")
        result.entries.append(Entry(op, item["call"], arguments, rules, layouts,
                                    tuple(item.get("dtypes", data["dtypes"])), " ".join(item["note"].split()),
                                    doc.line(at), prefix))
    if problems:
        raise SpecError(problems)
    return result


def channel_vector(slope: np.ndarray, of_shape) -> np.ndarray:
    """A slope that varies along axis 1 of ``of_shape`` only (or one element) as the 1-D array torch's
    prelu takes: its values along that axis."""
    if slope.size == 1:
        return np.array(slope.reshape(1), copy=True)
    full = np.broadcast_to(slope, tuple(of_shape))
    index = tuple(slice(None) if i == 1 else 0 for i in range(len(of_shape)))
    return np.array(full[index], copy=True)  # a writable copy: torch warns on read-only arrays
