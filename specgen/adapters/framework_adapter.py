"""The shared part of the adapters that call a framework's own functions (jax, tensorflow, litert,
tinygrad): the op mapping (specgen/adapters/<backend>_ops.yaml, read by
specgen.adapters.framework_ops), claims probed per entry and dtype, the dispatch by attribute
values, and in-place results. A subclass says how arrays cross into the framework and back.

Claims are what the framework really computes: at load each mapped function is called once per
dtype of its entry on a tiny input (attribute values inside the entry's subset); a dtype whose call
raises, or returns another dtype or shape, stays unclaimed with the framework's error as the reason
on its unsupported cases. Framework functions apply no standard's validity rules, so no
must-reject cases are claimed (as for torch).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar, Mapping

import numpy as np

from specgen.adapters import framework_ops
from specgen.adapters.base import AllOf, Adapter, Range, SameAs, Unsupported, Values


def _first_error_line(exc: BaseException) -> str:
    """The error, on one line, without source locations (``/path/file.py:696:1: ``), at most 240 characters."""
    text = re.sub(r"/\S*?\.py:\d+(?::\d+)?: ?", " ", " ".join(str(exc).split()))
    return f"{type(exc).__name__}: {text[:240]}"


def probe_attributes(spec, entry: framework_ops.Entry) -> dict[str, Any]:
    """Attribute values inside ``entry``'s subset for a probe call: a pinned value, the first value a
    string attribute lists, 0.5 otherwise (moved into a range; equal to the attribute of same_as).
    Not 1.0: a converter folds leaky_relu(x, 1) to x, which would claim what its kernel lacks."""
    values: dict[str, Any] = {}
    later = []
    for attr in framework_ops.spec_attributes(spec):
        rule = entry.rules.get(attr.name)
        rules = rule.rules if isinstance(rule, AllOf) else (rule,) if rule else ()
        value: Any = attr.values[0] if getattr(attr, "values", ()) else 0.5
        for r in rules:
            if isinstance(r, Values):
                value = r.values[0]
            elif isinstance(r, Range):
                value = min(max(value, r.lo if r.lo is not None else value), r.hi if r.hi is not None else value)
            elif isinstance(r, SameAs):
                later.append((attr.name, r.other))
        values[attr.name] = value
    for name, other in later:
        values[name] = values[other]
    return values


def probe_inputs(spec, entry: framework_ops.Entry, dtype: str) -> dict[str, np.ndarray]:
    """A 2 x 3 input per spec input (-1, 0, 1, 2, 3, 4), in ``dtype``."""
    from specgen.dtypes import get

    x = np.array([[-1, 0, 1], [2, 3, 4]]).astype(get(dtype).numpy)
    return {t.name: x.copy() for t in spec.inputs}


class FrameworkAdapter(Adapter):
    """An adapter whose kernels are a framework's functions, chosen by its YAML mapping.

    Subclasses set ``backend`` (the mapping's stem: specgen/adapters/<backend>_ops.yaml) and
    implement :meth:`import_module`, :meth:`to_framework` and :meth:`to_numpy`; they may override
    :meth:`function` (how a mapped call becomes a Python callable, e.g. LiteRT's converted model).
    """

    backend: ClassVar[str] = ""
    #: The mapping's stem when it is another backend's (LiteRT converts TensorFlow's functions).
    mapping_name: ClassVar[str] = ""
    #: Pass each input of an entry with no per-channel input as a 1-D array padded with zeros to a
    #: power of two (at least 64 elements), and cut the result back to the case's shape: for a
    #: backend that compiles a kernel per shape (tinygrad, LiteRT), a few kernels serve every case.
    #: Every mapped function is elementwise, so no element's result depends on the padding; several
    #: inputs are broadcast to one shape first. Accumulating operators are never flattened.
    flatten: ClassVar[bool] = False

    def __init__(self, module=None, mapping_path: str | Path | None = None):
        self._module = self.import_module() if module is None else module
        self._path = mapping_path or framework_ops.mapping_path(self.mapping_name or self.backend)
        self._mapping: framework_ops.OpMapping | None = None
        self._claims = None
        self._unclaimed: dict[tuple[str, str], str] = {}

    # -- the framework ---------------------------------------------------------------------
    def import_module(self):  # pragma: no cover - abstract
        """The framework's module (the root every mapped call is a path under)."""
        raise NotImplementedError

    def to_framework(self, arr: np.ndarray, dtype: str):  # pragma: no cover - abstract
        """A numpy array (bfloat16: ml_dtypes) as the framework's tensor of ``dtype``."""
        raise NotImplementedError

    def to_numpy(self, value) -> np.ndarray:  # pragma: no cover - abstract
        """The framework's result as a numpy array (bfloat16: ml_dtypes)."""
        raise NotImplementedError

    def function(self, entry: framework_ops.Entry, call):
        """The Python callable that computes ``entry`` for ``call``: by default the mapped function."""
        return framework_ops.resolve(self._module, entry.call)

    # -- the mapping -----------------------------------------------------------------------
    @property
    def mapping(self) -> framework_ops.OpMapping:
        if self._mapping is None:
            self._mapping = framework_ops.load(self.specs, self._path, self._module)
        return self._mapping

    @property
    def skipped(self) -> list[str]:
        """Entries of the mapping whose spec is not in specs/ (yet)."""
        return self.mapping.skipped

    def load_notes(self):
        return self.skipped

    # -- claims ----------------------------------------------------------------------------
    def claims(self):
        if self._claims is None:
            claims = []
            for entry in self.mapping.entries:
                works = tuple(d for d in entry.dtypes if self._probe(entry, d))
                if works:
                    claim = entry.claim(works)
                    rules = self._output_type_rules(entry, works)
                    if rules:
                        from dataclasses import replace

                        claim = replace(claim, attributes={**claim.attributes, **rules})
                    claims.append(claim)
            self._claims = claims
        return self._claims

    def _output_type_rules(self, entry: framework_ops.Entry, works) -> dict:
        """For an output type an attribute names (Cast's to): each value the entry accepts, probed
        from a claimed input type (float32 where claimed); a Values rule of those that run and return
        that type, where some do not (none needed when all do)."""
        spec = self.specs[entry.op]
        rules = {}
        for name in getattr(spec, "dtype_attributes", ()):
            attr = next(a for a in spec.attributes if a.name == name)
            rule = entry.rules.get(name)
            targets = [v for v in attr.values if rule is None or rule.check(name, v, {}) is None]
            src = "float32" if "float32" in works else works[0]
            ok = [t for t in targets if self._probe(entry, src, {name: t}, key=(entry.op, f"{name}={t}"))]
            if len(ok) < len(targets):
                rules[name] = Values(*ok)
        return rules

    def _probe(self, entry: framework_ops.Entry, dtype: str, attributes=None, key=None) -> bool:
        spec = self.specs[entry.op]
        if getattr(spec, "index_space", None) is not None:
            call = _accumulating_probe(spec, entry, dtype)
            if call is None:
                self._unclaimed[(entry.op, dtype)] = f"{self.backend}: {entry.qualified}: no standard lists {dtype}"
                return False
            inputs = call.inputs
        else:
            inputs = probe_inputs(spec, entry, dtype)
            attrs = {**probe_attributes(spec, entry), **(attributes or {})}
            for t in getattr(spec, "outputs", ()):  # an output type an attribute names: the input's where it may
                src = getattr(t, "dtype_from", None)
                if src is not None and attributes is None:
                    attr = next(a for a in spec.attributes if a.name == src)
                    rule = entry.rules.get(src)
                    if dtype in attr.values and (rule is None or rule.check(src, dtype, {}) is None):
                        attrs[src] = dtype
            call = _ProbeCall(entry.op, dtype, inputs, attrs)
        first = next(iter(inputs.values()))
        want_shape = call.outputs[next(iter(call.outputs))].shape if call.outputs else first.shape
        want = first.dtype
        out_type = spec.output_dtype(spec.outputs[0].name, call.attributes) if hasattr(spec, "output_dtype") else None
        if out_type is not None:
            from specgen.dtypes import get

            want = get(out_type).numpy
        try:
            with np.errstate(all="ignore"):
                got = self._compute(entry, call)
            # a bool result is a truth value (comparisons, logical operators; written in the output's type)
            if (got.dtype != want and got.dtype != np.bool_) or tuple(got.shape) != tuple(want_shape):
                raise TypeError(f"returned {got.dtype}{list(got.shape)} for {dtype}{list(first.shape)} input")
        except Exception as exc:  # the framework's own error is the reason shown on the unclaimed cases
            self._unclaimed[key or (entry.op, dtype)] = (f"{self.backend}: {entry.qualified} on {dtype}"
                                                         f"{' with ' + str(attributes) if attributes else ''}: "
                                                         f"{_first_error_line(exc)}")
            return False
        return True

    def why_unclaimed(self, op, standard, version, dtype):
        if self._claims is None:
            self.claims()
        why = self.mapping.absent.get(op)
        if why:
            return f"{self.backend}: {why}"
        return self._unclaimed.get((op, dtype))

    # -- running ---------------------------------------------------------------------------
    def _entry(self, call) -> framework_ops.Entry:
        for entry in self.mapping.for_op(call.op):
            if entry.accepts(call.attributes, getattr(call, "dtype", None)):
                return entry
        raise Unsupported(f"{self.backend} has no {call.op} with attributes {dict(call.attributes)} "
                          f"({Path(self._path).name})")

    def _compute(self, entry: framework_ops.Entry, call) -> np.ndarray:
        if entry.sets or entry.keywords or entry.transposed or getattr(getattr(call, "spec", None), "index_space", None):
            # keyword inputs, an accumulating operator's index sets and transposes (framework_ops.prepare)
            fn = self.function(entry, call)
            got = framework_ops.prepare(entry, call)
            args = [self.to_framework(np.require(a, requirements="C"), call.dtype) for a in got.args]
            kwargs = {k: self.to_framework(np.require(a, requirements="C"), call.dtype) for k, a in got.tensor_kwargs.items()}
            return got.finish(self.to_numpy(fn(*args, **kwargs, **got.set_kwargs, **self._resolved(entry.kwargs(call.attributes)))))
        if self.flatten and not entry.channel_of:
            return self._compute_flat(entry, call)
        fn = self.function(entry, call)
        args = []
        for name, arr in call.inputs.items():
            of = entry.channel_of.get(name)
            if of is not None:
                arr = framework_ops.channel_vector(arr, call.inputs[of].shape)
            args.append(self.to_framework(np.require(arr, requirements="C"), call.dtype))  # keeps rank 0
        return self.to_numpy(fn(*args, **self._resolved(entry.kwargs(call.attributes))))

    def _resolved(self, kwargs: dict) -> dict:
        """Keyword arguments with the data type names (framework_ops.DTypeName) as the framework's objects."""
        return {k: (framework_ops.resolve(self._module, v) if isinstance(v, framework_ops.DTypeName) else v)
                for k, v in kwargs.items()}

    def _compute_flat(self, entry: framework_ops.Entry, call) -> np.ndarray:
        # inputs broadcast against each other first (binary and ternary operators): the framework's
        # own broadcasting is not exercised, its element-wise kernel is
        arrays = dict(zip(call.inputs, np.broadcast_arrays(*call.inputs.values())))
        first = next(iter(arrays.values()))
        size = max(64, 1 << max(first.size - 1, 0).bit_length())
        args = []
        for arr in arrays.values():
            flat = np.zeros(size, dtype=arr.dtype)
            flat[:arr.size] = np.ravel(arr)
            args.append(self.to_framework(flat, call.dtype))
        fn = self.function(entry, call)
        y = self.to_numpy(fn(*args, **self._resolved(entry.kwargs(call.attributes))))
        return y[:first.size].reshape(first.shape)

    def run(self, call):
        y = self._compute(self._entry(call), call)
        declared = next(iter(call.outputs.values()), None) if getattr(call, "outputs", None) else None
        if y.dtype == np.bool_ and declared is not None and np.dtype(declared.dtype) != np.bool_:
            y = y.astype(declared.dtype)  # a truth result in the standard's output type (WebNN's uint8 0/1)
        if call.in_place:
            next(iter(call.out.values()))[...] = y
            return None
        return y


class _ProbeCall:
    """The parts of a :class:`specgen.adapters.base.Call` a probe needs."""

    def __init__(self, op: str, dtype: str, inputs: Mapping[str, np.ndarray], attributes: Mapping[str, Any],
                 spec=None, standard: str = "", version: str = "", outputs: Mapping[str, Any] | None = None):
        self.op, self.dtype, self.inputs, self.attributes = op, dtype, dict(inputs), dict(attributes)
        self.spec, self.standard, self.version, self.outputs = spec, standard, version, dict(outputs or {})
        self.in_place = False
        self.case_id = f"probe:{op}/{dtype}"


class _Shape:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype


def _accumulating_probe(spec, entry: framework_ops.Entry, dtype: str):
    """A probe call for an accumulating operator: the first positive designed case (3-long reductions)
    of the first standard and version that lists ``dtype`` and whose attributes the entry accepts."""
    from specgen.indexing.design import cases

    for key, std in spec.standards.items():
        for ver in reversed(std.versions):
            if dtype not in ver.dtypes():
                continue
            for case in cases(spec, key, ver.version, dtype, lengths=(3,)):
                if (case.kind == "positive" and re.search(r"/(length|k)3/", case.id) and all(np.size(a) for a in case.inputs(spec).values())
                        and entry.accepts(case.attributes, dtype)):
                    return _ProbeCall(entry.op, dtype, case.inputs(spec), case.attributes, spec, key, ver.version,
                                      {o: _Shape(case.shapes[o], dtype) for o in spec.outputs})
    return None
