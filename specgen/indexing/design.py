"""Designed cases for an accumulating operator, from its index space alone (no operator is named):
every axis subset up to rank 4 with negative spellings, keepdims both ways, the empty list, a reduced
or kept dimension of size 0 (the standard's empty-reduction rule: identity, undefined or rejected); reduced
lengths 1, 2, 3, 7, 8, 9, 64, 1023 and (``long=True``) 65,537; values that expose order and precision
(cancellation, float running sums that stall or saturate, NaN/±inf in one position, all-equal and
one-dominant rows, near-overflow for exp); and must-reject cases (out-of-range, negative where the
standard has none, duplicate axes, mismatched shared dimensions, wrong ranks). Inputs come from a
seed derived from the case id, so long cases need not be stored.
"""
from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass, field

import numpy as np

from specgen import dtypes
from specgen.formula import nodes as n
from specgen.indexing.layout import ShapeViolation, _tensor_labels, resolve, set_axes
from specgen.indexing.spec import AccSpec

LENGTHS = (1, 2, 3, 7, 8, 9, 64, 1023)
LONG = 65537
VALUE_DESIGNS = ("random", "cancellation", "stall", "saturate", "nan", "inf", "equal", "dominant", "near_overflow")


@dataclass
class Case:
    id: str
    op: str
    standard: str
    version: str
    dtype: str
    kind: str                      # "positive" | "negative"
    shapes: dict
    attributes: dict               # every attribute the call means (defaults filled in)
    given: tuple                   # attributes the call passes explicitly
    tags: tuple = ()
    violations: list = field(default_factory=list)
    design: str = "random"

    def seed(self) -> int:
        return int.from_bytes(hashlib.sha256(self.id.encode()).digest()[:8], "little")

    def inputs(self, spec: AccSpec) -> dict:
        """The input tensors, generated from the case id (the same every time)."""
        rng = np.random.default_rng(self.seed())
        space = spec.index_space.for_version(self.standard, self.version)
        return {name: design_values(self.design if name in designed_inputs(space) else "positive", shape,
                                    self.dtype, rng)
                for name, shape in self.shapes.items() if name in spec.inputs and shape is not None}


def designed_inputs(space) -> set:
    """The inputs the value designs shape: those whose elements a reduction runs over (an axes set's
    tensor, the tensors holding a reduced label); the others (scale, bias, C) get moderate values."""
    out = set()
    for s in space.sets.values():
        if s.axes_of is not None:
            out.add(s.axes_of)
        for name, t in space.tensors.items():
            if any(lab.rstrip("?") in s.labels or (lab == "..." and "..." in s.labels) for lab in t.labels):
                out.add(name)
    return out or set(space.tensors)


def applies(design: str, dtype: str) -> bool:
    """Whether a value design means what it says for ``dtype``: ``saturate`` needs a type whose
    largest value a float32 accumulator passes without overflowing (float16: 65504; bfloat16 has
    float32's range, so its saturating sum overflows a float32 accumulator too, and no design exists)."""
    if design == "saturate":
        f = dtypes.get(dtype)
        return f.bits < 32 and float(f.max_finite) < float(dtypes.get("float32").max_finite) / 4
    return True


def design_values(design: str, shape, dtype: str, rng) -> np.ndarray:
    f = dtypes.get(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    x = rng.uniform(-1.0, 1.0, size)
    if design == "positive":
        x = rng.uniform(0.5, 2.0, size)
    elif design == "cancellation" and size >= 2:
        big = 2.0 ** (f.precision + 2)
        x[0::2] *= 1e-3
        x[0], x[1] = big, -big  # huge values of both signs with small ones: the order decides what survives
    elif design == "stall":
        # 1s after 2**(precision+1): a running sum in the type stalls (x + 1 rounds back to x)
        x = np.ones(size)
        x[0] = 2.0 ** (f.precision + 1)
    elif design == "saturate" and f.bits < 32:
        # a 16-bit running sum passes the type's largest finite value and comes back (exact result
        # finite): a float32 accumulator never overflows here, a float16 one does
        top = f.max_finite * 0.75
        x = np.tile([top, top, -top, -top], size // 4 + 1)[:size]
    elif design in ("nan", "inf"):
        x[rng.integers(size)] = np.nan if design == "nan" else rng.choice([np.inf, -np.inf])
    elif design == "equal":
        x[:] = x[0]
    elif design == "dominant":
        x *= 0.1
        x[rng.integers(size)] = 30.0
    elif design == "near_overflow":
        # exp(x) overflows the type where x > log(max): 100 for float32, 12 for float16 (exact results finite)
        x = np.log(f.max_finite) + rng.uniform(0.5, 1.5, size) * (1 if f.bits >= 32 else 0.3)
        if f.bits >= 32:
            x[:] = 100.0 + rng.uniform(-1, 1, size)
    return np.asarray(x, dtype=np.float64).astype(f.numpy).reshape(shape)


def _axis_sets(space, settable) -> dict:
    """The axes sets a case can choose (their attribute is one this version has); a set whose attribute
    the version lacks keeps its default and is designed through the label path."""
    return {name: s for name, s in space.sets.items() if s.axes_of is not None and s.given_by in settable}


def _shape_dims_of(space, shapes: dict, attrs: dict) -> dict:
    """Shapes of the dims_of tensors not given: the dims of their set's tensor along the set, in the
    attribute's order (None where the attribute is not legal: the tensor is then omitted)."""
    out = dict(shapes)
    for name, t in space.tensors.items():
        if t.dims_of is None or out.get(name) is not None:
            continue
        of = space.sets[t.dims_of].axes_of
        if out.get(of) is None:
            continue
        axes = set_axes(space, t.dims_of, len(out[of]), attrs)
        if axes is None:  # a must-reject axis: shaped as the set's default would have it (or x's first axis)
            given_by = space.sets[t.dims_of].given_by
            axes = set_axes(space, t.dims_of, len(out[of]), {k: v for k, v in attrs.items() if k != given_by})
            axes = axes if axes is not None else tuple(range(min(1, len(out[of]))))
        out[name] = [int(out[of][a]) for a in axes]
    return out


def _attrs_for(spec, standard, version, extra: dict) -> tuple[dict, tuple]:
    attrs = spec.defaults(standard)
    attrs.update(extra)
    given = tuple(sorted(extra))
    # an attribute the version lacks keeps the operator's default
    return attrs, given


def _base_shapes(spec: AccSpec, space, length: int, rank: int) -> dict:
    """Input shapes where every named label has size ``length`` along reduced sets, small otherwise."""
    reduced = {lab for s in space.sets.values() for lab in s.labels}
    shapes = {}
    for name in spec.inputs:
        t = space.tensors[name]
        dims = []
        for lab in t.labels:
            if lab == "...":
                fill = max(rank - (len(t.labels) - 1), 0)
                dims.extend([length if "..." in reduced else 3] * fill if t.broadcast is None else [])
            else:
                dims.append(length if lab.rstrip("?") in reduced else 3 if lab.rstrip("?") != "n" else 5)
        if t.broadcast == "unidirectional" and "..." in t.labels:
            dims = None  # set from x below
        shapes[name] = dims
    return shapes


def cases(spec: AccSpec, standard: str, version: str, dtype: str, *, long: bool = False, structure: bool = True,
          lengths: tuple[int, ...] | None = None, long_designs: tuple[str, ...] = VALUE_DESIGNS) -> list[Case]:
    """The designed cases of one (standard, version, dtype). ``structure=False`` leaves out the
    shape cases (axis subsets, ranks, shape variants, must-reject), which do not depend on the
    dtype; ``lengths`` replaces the reduced lengths (LENGTHS); ``long_designs``: the value designs at
    lengths of 1,023 and more (the others at 8 and 9 only)."""
    version_space = spec.index_space.for_version(standard, version)
    space = version_space.under(spec.defaults(standard))  # the layout of the default attribute values
    out: list[Case] = []
    prefix = f"{spec.id}/{standard}-{version}/{dtype}"
    formula = spec.formula

    settable = set(next(v for v in spec.standards[standard].versions if v.version == version).attributes)
    axis_sets = _axis_sets(space, settable)

    def add(tag, shapes, extra, design="random", kind="positive", omit=()):
        if not applies(design, dtype):
            return None
        if set(extra) - settable - {None}:
            return None  # this version has no such attribute (ONNX ReduceSum-11's noop_with_empty_axes)
        extra = {k: v for k, v in extra.items() if k is not None}
        attrs, given = _attrs_for(spec, standard, version, extra)
        shapes = {k: (None if k in omit else v) for k, v in _shape_dims_of(version_space.under(attrs), shapes, attrs).items()}
        case = Case(f"{prefix}/{tag}", spec.id, standard, version, dtype, kind, shapes, attrs, given, (tag,), design=design)
        try:
            layout = resolve(version_space, formula, shapes, attrs, spec.outputs)
            if kind == "negative":
                return None  # not actually illegal under this standard
            case.shapes = {**shapes, **{o: list(layout.outputs[o][1]) for o in spec.outputs}}
        except ShapeViolation as exc:
            if kind == "positive":
                return None
            case.violations = exc.violations
        out.append(case)
        return case

    lengths = tuple(lengths if lengths is not None else LENGTHS) + ((LONG,) if long else ())
    if axis_sets:
        (set_name, s), = list(axis_sets.items())[:1]
        x = s.axes_of
        others = [t for t in spec.inputs if t != x]
        ordered = [t for t in spec.inputs if space.tensors[t].dims_of == set_name]
        for rank in range(1, 5) if structure else ():
            shape = [2, 3, 4, 5][:rank]
            def with_others(sh, extra):
                shapes = {x: sh}
                chosen = set(extra.get(s.given_by) or ())
                for t in others:
                    # a broadcast partner (DirectML's Scale): x's rank, x's size along the chosen axes, 1
                    # elsewhere; a dims_of partner: from the set (_shape_dims_of); others omitted
                    dims = space.tensors[t]
                    shapes[t] = ([d if a in chosen else 1 for a, d in enumerate(sh)]
                                 if dims.broadcast == "unidirectional" and dims.has_ellipsis else None)
                return shapes
            if s.kind == "list":
                for k in range(0 if s.empty != "unspecified" else 1, rank + 1):
                    for subset in itertools.combinations(range(rank), k):
                        keeps = (0, 1) if space.keepdims in settable else (None,)  # DirectML: keepdims fixed
                        for keep in keeps:
                            extra = {s.given_by: list(subset)}
                            if keep is not None:
                                extra[space.keepdims] = keep
                            add(f"rank{rank}/axes{''.join(map(str, subset)) or '-'}/keep{'' if keep is None else keep}",
                                with_others(shape, extra), extra)
                            if subset and keep in (1, None) and s.negative is True:
                                neg = [a - rank for a in subset]
                                add(f"rank{rank}/axes{''.join(map(str, subset))}/negative", with_others(shape, extra), {**extra, s.given_by: neg})
                            if len(subset) >= 2 and keep in (1, None) and ordered:
                                # the order matters (a dims_of tensor follows it): reversed, and a partner
                                # shaped in ascending order while the axes are reversed (must-reject)
                                rev = list(reversed(subset))
                                add(f"rank{rank}/axes{''.join(map(str, rev))}/keep{'' if keep is None else keep}",
                                    with_others(shape, extra), {**extra, s.given_by: rev})
                                add(f"rank{rank}/axes{''.join(map(str, rev))}/reject-order",
                                    {**with_others(shape, extra), **{t: [shape[a] for a in subset] for t in ordered}},
                                    {**extra, s.given_by: rev}, kind="negative")
                add(f"rank{rank}/axes-default", with_others(shape, {}), {})
                if s.noop_attribute:
                    add(f"rank{rank}/axes-empty-noop", with_others(shape, {}), {s.given_by: [], s.noop_attribute: 1})
            else:
                for a in range(rank):
                    for spelled in sorted({a, a - rank} if s.negative is True else {a}):
                        add(f"rank{rank}/axis{spelled}", _fill(spec, space, {x: shape}, a), {s.given_by: spelled})
            # must-reject: out of range, duplicates, negative where none
            bad = [rank] if s.kind != "list" else [[rank]]
            probes = [("out-of-range", rank)] + ([("out-of-range-negative", -rank - 1), ("negative", -1)]
                                                  if s.negative != "unspecified" else [])
            for tag, value in probes:
                v = value if s.kind != "list" else [value]
                add(f"rank{rank}/reject-{tag}", _fill(spec, space, {x: shape}, 0), {s.given_by: v}, kind="negative")
            if s.kind == "list" and rank >= 2:
                add(f"rank{rank}/reject-duplicate", {x: shape}, {s.given_by: [0, 0]}, kind="negative")
                add(f"rank{rank}/reject-duplicate-negative", {x: shape}, {s.given_by: [0, -rank]}, kind="negative")
        if structure and s.kind == "list" and spec.standards[standard].empty is not None:
            # a dimension of size 0: reduced (the standard's empty-reduction rule: the identity, any value,
            # or a must-reject where dimensions are greater than zero) or kept (an empty output)
            keeps = (0, 1) if space.keepdims in settable else (None,)
            for tag, shape, extra in ([(f"reduced/keep{k if k is not None else ''}", [2, 0],
                                        {s.given_by: [1], **({space.keepdims: k} if k is not None else {})}) for k in keeps]
                                      + [("default-axes", [0], {}), ("kept", [0, 3], {s.given_by: [1]})]):
                for kind in ("positive", "negative"):
                    add(f"empty/{tag}", {x: shape, **{t: None for t in others}}, extra, kind=kind)
        # lengths and value designs along the last axis
        for length in lengths:
            shape = [2, length]
            extra = {s.given_by: [1] if s.kind == "list" else 1}
            for design in (VALUE_DESIGNS if length in (8, 9) else long_designs if length >= 1023 else ("random",)):
                add(f"length{length}/{design}", _fill(spec, space, {x: shape}, 1), extra, design=design)
        for t in _optional(spec, space) if structure else ():  # an optional input omitted (its absent value)
            extra = {s.given_by: [1] if s.kind == "list" else 1}
            add(f"length8/without_{t}", _fill(spec, space, {x: [2, 8]}, 1), extra, omit=(t,))
    else:
        for length in lengths:
            designs = ("random", "cancellation", "nan", "inf")
            for design in (designs if length in (8, 9) else tuple(d for d in designs if d in long_designs)
                           if length >= 1023 else ("random",)):
                add(f"k{length}/{design}", _label_shapes(spec, space, length), {}, design=design)
        for t in _optional(spec, space) if structure else ():  # an optional input omitted (its absent value)
            add(f"k8/without_{t}", _label_shapes(spec, space, 8), {}, omit=(t,))
        for tag, shapes in _label_variants(spec, space) if structure else ():
            add(tag, shapes, {})
            add(tag, shapes, {}, kind="negative")
        for name, value in _bool_attributes(spec, standard, version) if structure else ():
            extra = {name: value}
            add(f"{name}{value}", _label_shapes(spec, version_space.under({**spec.defaults(standard), **extra}), 7, attrs=extra), extra)
    return [c for c in out if c is not None]


def _optional(spec, space) -> list:
    """The inputs this standard's version may omit (an ``absent`` value: WebNN's scale and bias, Gemm-11's C)."""
    return [t for t in spec.inputs if space.tensors[t].absent is not None]


def _fill(spec, space, shapes: dict, axis: int) -> dict:
    """Shapes for every input: partners of ``x`` with labels take x's sizes (trailing for
    unidirectional ones, from ``axis`` on)."""
    (x, shape), = shapes.items()
    out = dict(shapes)
    # x's labels at this rank: a partner's label takes x's size along it (1 where x lacks it)
    x_labels = _tensor_labels(space.tensors[x], len(shape), {}, []) or ()
    along = dict(zip(x_labels, shape))
    for t in spec.inputs:
        if t == x:
            continue
        dims = space.tensors[t]
        if dims.dims_of is not None:
            out[t] = None  # shaped from the set's attribute (_shape_dims_of)
        elif dims.broadcast == "unidirectional" and dims.has_ellipsis:
            out[t] = list(shape[axis:])
        else:
            out[t] = [along.get(lab.rstrip("?"), 1) for lab in dims.labels if lab != "..."]
    return out


def _label_shapes(spec, space, length: int, attrs=None) -> dict:
    """Shapes for a contraction: the reduced label of length ``length``, others 3 and 5, a batch of 2."""
    # a set of several labels (WebNN instanceNormalization's h and w): the first has the length, the others 2
    reduced = {lab for s in space.sets.values() for lab in s.labels[:1]}
    also = {lab for s in space.sets.values() for lab in s.labels[1:]}
    sizes: dict = {}
    shapes = {}
    for name in spec.inputs:
        t = space.tensors[name]
        if t.dims_of is not None:
            shapes[name] = None  # shaped from the set's attribute (_shape_dims_of)
            continue
        labels = [lab.rstrip("?") for lab in t.labels]
        if t.transposed_by and attrs and attrs.get(t.transposed_by):
            fixed = [i for i, lab in enumerate(labels) if lab != "..."]
            labels[fixed[-2]], labels[fixed[-1]] = labels[fixed[-1]], labels[fixed[-2]]
        dims = []
        for lab in labels:
            if lab == "...":  # a reduced ellipsis (ONNX InstanceNormalization's spatial dims) has the length
                dims.append(length if "..." in reduced else 2)
            else:
                size = sizes.setdefault(lab, length if lab in reduced else 2 if lab in also else
                                        3 + len([k for k in sizes if k not in also]))
                dims.append(size)
        shapes[name] = dims
    return shapes


def _label_variants(spec, space):
    """Shapes that are legal under some standard and not others, or under none: a mismatched shared
    label, one dimension more or fewer, vectors, size-1 and rank-0 broadcast partners."""
    base = _label_shapes(spec, space, 4)
    names = [t for t in spec.inputs if base.get(t)]
    first = names[0]
    yield "mismatched-inner", {**base, first: base[first][:-1] + [base[first][-1] + 1]}
    for t in names:
        yield f"{t}-rank-plus-one", {**base, t: [2] + base[t]}
        yield f"{t}-vector", {**base, t: base[t][-1:]}
        yield f"{t}-rank0", {**base, t: []}
        if space.tensors[t].broadcast:
            yield f"{t}-size1", {**base, t: [1] * len(base[t])}


def _bool_attributes(spec, standard, version):
    names = [v for v in spec.standards[standard].versions if v.version == version][0].attributes
    for name in names:
        a = spec.attributes[name]
        if a.type == "bool":
            yield name, 1
        if a.type == "float32":
            yield name, 0.5
        if a.type == "string":  # every value but the standard's default (a layout's other spelling)
            default = spec.defaults(standard).get(name)
            yield from ((name, v) for v in a.values if v != default)
