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


class DTypeName(str):
    """An argument naming a data type under the framework's module (``dtype: true`` in the mapping);
    the adapter passes the object it names (torch.float16)."""


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
    keywords: Mapping[str, str] = field(default_factory=dict)  # spec input -> the keyword it is passed as
    transposed: tuple[str, ...] = ()  # inputs passed with the index space's transposed_by applied
    types: Mapping[str, str] = field(default_factory=dict)  # attribute -> "bool" | "int" (else float or string)
    over: Mapping[str, str] = field(default_factory=dict)  # input -> index set: passed over exactly its dims

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

    def accepts(self, attributes: Mapping[str, Any], dtype: str | None = None) -> bool:
        """Do these attribute values (operator names), and ``dtype`` when given, fall in this entry's subset?"""
        if dtype is not None and dtype not in self.dtypes:
            return False
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
            if kind == "set":
                continue  # resolved per call from the index engine's layout (prepare)
            value = v if kind == "value" else attributes[v]
            if kind == "map":
                table, as_dtype = table[0], table[1] if len(table) > 1 else False
                if value in table:
                    value = table[value]
                elif value not in table.values():  # a standard's own spelling that is the framework's too passes
                    raise KeyError(f"{self.qualified}: no {backend} value for {v}={value!r} "
                                   f"(mapped: {', '.join(map(str, table))})")
                if as_dtype:  # a data type name under the framework's module (resolved by the adapter)
                    out[kw] = DTypeName(str(value))
                    continue
            kind_of = self.types.get(v) if kind != "value" else None
            out[kw] = (bool(int(value)) if kind_of == "bool" else int(value) if kind_of == "int" else
                       value if isinstance(value, (str, bool)) else float(value))
        return out

    @property
    def sets(self) -> dict:
        """keyword -> (index set, input, as) of the arguments an accumulating operator's index set gives."""
        return {kw: tuple(a[1:]) for kw, a in self.arguments.items() if a[0] == "set"}


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


def spec_attributes(spec) -> list:
    """The spec's attribute objects: an element-wise spec lists them, an accumulating one maps names to them."""
    return list(spec.attributes.values()) if isinstance(spec.attributes, dict) else list(spec.attributes)


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
        attrs = spec_attributes(spec)
        names = [a.name for a in attrs]  # string attributes (GELU's approximate) included
        types = {a.name: {"bool": "bool", "axis": "int"}[a.type] for a in attrs if getattr(a, "type", None) in ("bool", "axis")}
        inputs = [t.name for t in spec.inputs]
        space = getattr(spec, "index_space", None)  # an accumulating operator's (specgen.indexing.space)
        consumed: set[str] = set()  # attributes the index engine applies (a set's axes, a transpose flag)
        arguments: dict[str, tuple] = {}
        for kw, arg in item.get("arguments", {}).items():
            if isinstance(arg, dict) and "value" in arg:
                arguments[kw] = ("value", arg["value"])
            elif isinstance(arg, dict) and "set" in arg:
                sets = space.sets if space is not None else {}
                if arg["set"] not in sets:
                    problem(at + ("arguments", kw, "set"), f"{op} has no index set {arg['set']!r} "
                                                           f"(its sets: {', '.join(sets) or 'none: not an accumulating operator'})")
                    continue
                if arg["of"] not in inputs:
                    problem(at + ("arguments", kw, "of"), f"{op} has no input {arg['of']!r} (its inputs: {', '.join(inputs)})")
                    continue
                s = sets[arg["set"]]
                consumed.update(a for a in (s.given_by, s.noop_attribute) if a)
                for o in getattr(space, "overrides", ()):  # a standard that gives the set by another attribute (DirectML's Axes)
                    changed = (o.get("sets") or {}).get(arg["set"]) or {}
                    consumed.update(changed[k] for k in ("given_by", "noop_attribute") if changed.get(k))
                arguments[kw] = ("set", arg["set"], arg["of"], arg["as"])
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
                arguments[kw] = ("map", arg["attribute"], dict(arg["map"]), bool(arg.get("dtype")))
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
        layouts, keywords, transposed, over = {}, {}, [], {}
        for tensor, lay in item.get("inputs", {}).items():
            bad = next((t for t in (tensor, lay.get("channel_of", tensor)) if t not in inputs), None)
            if bad is not None:
                problem(at + ("inputs", tensor), f"{op} has no input {bad!r} (its inputs: {', '.join(inputs)})")
                continue
            if "channel_of" in lay:
                layouts[tensor] = lay["channel_of"]
            if "keyword" in lay:
                keywords[tensor] = lay["keyword"]
            if "over" in lay:
                if space is None or lay["over"] not in space.sets:
                    problem(at + ("inputs", tensor, "over"), f"{op} has no index set {lay['over']!r}")
                    continue
                over[tensor] = lay["over"]
            if lay.get("apply_transpose"):
                by = space.tensors[tensor].transposed_by if space is not None and tensor in space.tensors else None
                if by is None:
                    problem(at + ("inputs", tensor, "apply_transpose"),
                            f"{op}'s index_space gives input {tensor!r} no transposed_by attribute")
                    continue
                consumed.add(by)
                transposed.append(tensor)
        passed = {a[1] for a in arguments.values() if a[0] in ("attr", "map")} | consumed
        for name in names:
            r = item.get("attributes", {}).get(name, {})
            pinned = len(r.get("values", ())) == 1 or ("same_as" in r and r["same_as"] in passed)
            if name not in passed and not pinned:
                problem(at, f"attribute {name!r} of {op} is neither passed to {backend} (arguments) nor pinned to one value "
                            f"(attributes: {{{name}: {{values: [v]}}}}): the claim would cover values {backend} ignores")
        if module is not None and not callable(resolve(module, item["call"])):
            version = getattr(module, "__version__", "?")
            problem(at + ("call",), f"{backend} {version} has no function {prefix}.{item['call']}")
        result.entries.append(Entry(op, item["call"], arguments, rules, layouts,
                                    tuple(item.get("dtypes", data["dtypes"])), " ".join(item["note"].split()),
                                    doc.line(at), prefix, keywords, tuple(transposed), types, over=over))
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


@dataclass
class Prepared:
    """A call as the framework function takes it: positional and keyword arrays (numpy, in the case's
    dtype), keyword values from the index sets, and ``finish`` to turn the function's result (as numpy)
    into the output's declared shape."""

    args: list
    tensor_kwargs: dict
    set_kwargs: dict
    finish: Any
    reshaped: bool = False  # an accumulating operator's result: finish() gives the declared shape


def _absent(dims, layout, value, dtype) -> np.ndarray:
    """An omitted optional input as the framework takes it: its ``absent`` value over the dimensions its
    labels name (batch_norm's weight has the channel's size; WebNN's scale follows its axes set), a
    scalar where its dims have an ellipsis (broadcast by the function)."""
    if dims.dims_of is not None:
        labels = layout.sets.get(dims.dims_of, ())
    elif not dims.has_ellipsis:
        labels = [label.rstrip("?") for label in dims.labels if label.rstrip("?") in layout.sizes]
    else:
        return np.asarray(value, dtype=dtype)
    return np.full([layout.sizes[label] for label in labels], value, dtype=dtype)


def _over(layout, name: str, arr: np.ndarray, set_name: str) -> np.ndarray:
    """``arr`` (input ``name``) as an array over exactly the dims of ``set_name``, in the set's order:
    broadcast along the set where it has size 1 or lacks the dimension (shape (1,) for an empty set)."""
    labels = layout.sets[set_name]
    placed = layout.place(name, np.asarray(arr))
    outside = [i for i, label in enumerate(layout.labels) if label not in labels]
    if any(placed.shape[i] != 1 for i in outside):
        raise ValueError(f"{name} varies along a dimension outside the index set {set_name}")
    full = np.broadcast_to(placed, tuple(layout.sizes[label] if label in labels else 1 for label in layout.labels))
    squeezed = full.reshape([layout.sizes[label] for label in layout.labels if label in labels])
    present = [label for label in layout.labels if label in labels]
    out = np.transpose(squeezed, [present.index(label) for label in labels])
    return np.ascontiguousarray(out).reshape(out.shape or (1,))


def prepare(entry: Entry, call) -> Prepared:
    """The arrays and set arguments of ``call`` for ``entry``. Element-wise operators: the inputs in the
    spec's order (a channel_of input as its 1-D vector). Accumulating operators (an ``index_space``):
    the layout the spec's engine resolves for the case's standard and version (specgen.indexing.layout)
    gives each set argument; an omitted optional input is its ``absent`` value; apply_transpose swaps
    the last two axes where the tensor's transposed_by attribute is true. Names no operator."""
    spec = getattr(call, "spec", None)
    space = getattr(spec, "index_space", None)
    layout = None
    if space is not None:
        from specgen.indexing.layout import resolve

        layout = resolve(space.for_version(call.standard, str(call.version)), spec.formula,
                         {k: np.shape(v) for k, v in call.inputs.items()}, call.attributes, spec.outputs)
    inputs = dict(call.inputs)
    if layout is not None:
        first = next(iter(call.inputs.values()))
        own = space.for_version(call.standard, str(call.version)).under(call.attributes)
        for name, value in layout.absent.items():
            inputs[name] = _absent(own.tensors[name], layout, value, first.dtype)
        for name in entry.transposed:
            by = space.tensors[name].transposed_by
            if name in call.inputs and bool(int(call.attributes.get(by) or 0)):
                inputs[name] = np.swapaxes(inputs[name], -1, -2)
    set_kwargs: dict = {}
    merged = None  # (input, its shape after the permutation, the permutation) where a set was merged into one axis
    for kw, (set_name, of, as_) in entry.sets.items():
        own = layout.tensors[of]
        axes = [own.index(label) for label in layout.sets[set_name]]
        x = inputs[of]
        if as_ == "sizes" and not axes:
            # an empty set (WebNN layerNormalization's axes: []): one new unit axis to normalise over,
            # the statistics of one element each (count 1), removed again by finish
            inputs[of] = x.reshape(x.shape + (1,))
            merged = (of, inputs[of].shape, tuple(range(x.ndim + 1)))
            set_kwargs[kw] = (1,)
        elif as_ == "sizes" and axes != list(range(x.ndim - len(axes), x.ndim)):
            # the framework normalises over the trailing dimensions: the set's axes moved to the end
            # in the set's order (WebNN layerNormalization's axes in any order), moved back after
            order = [a for a in range(x.ndim) if a not in axes] + axes
            inputs[of] = np.transpose(x, order)
            merged = (of, inputs[of].shape, tuple(order))
            set_kwargs[kw] = tuple(int(x.shape[a]) for a in axes)
        elif as_ == "sizes":
            set_kwargs[kw] = tuple(int(x.shape[a]) for a in axes)
        elif as_ == "axes" and axes:
            set_kwargs[kw] = tuple(axes)
        elif as_ == "axis" and len(axes) == 1:
            set_kwargs[kw] = axes[0]
        elif as_ == "axis" and axes and axes == list(range(axes[0], axes[0] + len(axes))):  # adjacent: merged in place
            inputs[of] = x.reshape(x.shape[:axes[0]] + (int(np.prod([x.shape[a] for a in axes])),) + x.shape[axes[-1] + 1:])
            merged = (of, x.shape, tuple(range(x.ndim)))
            set_kwargs[kw] = axes[0]
        else:
            # not adjacent, or empty (the framework's empty dim reduces every axis): the set's axes
            # moved to the end and merged into one (a new unit axis for an empty set)
            order = [a for a in range(x.ndim) if a not in axes] + axes
            moved = np.transpose(x, order)
            inputs[of] = moved.reshape(moved.shape[:x.ndim - len(axes)] + (int(np.prod([x.shape[a] for a in axes])),))
            merged = (of, moved.shape, tuple(order))
            set_kwargs[kw] = inputs[of].ndim - 1 if as_ == "axis" else (inputs[of].ndim - 1,)
    for name, set_name in entry.over.items():
        if layout is not None and name in inputs:
            inputs[name] = _over(layout, name, inputs[name], set_name)
    args, tensor_kwargs = [], {}
    for name, arr in inputs.items():
        of = entry.channel_of.get(name)
        if of is not None:
            arr = channel_vector(arr, call.inputs[of].shape)
        if name in entry.keywords:
            tensor_kwargs[entry.keywords[name]] = arr
        else:
            args.append(arr)
    shape = tuple(next(iter(call.outputs.values())).shape) if layout is not None else None

    def finish(y: np.ndarray) -> np.ndarray:
        if shape is None:
            return y
        if merged is not None and y.shape == inputs[merged[0]].shape:  # not reduced: the merge undone
            of, moved_shape, order = merged
            y = np.transpose(y.reshape(moved_shape), np.argsort(order))
        return np.ascontiguousarray(y).reshape(shape)

    return Prepared(args, tensor_kwargs, set_kwargs, finish, shape is not None)
