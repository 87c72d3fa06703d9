"""An index space resolved for concrete shapes and attributes: every label's size, each tensor's
labels, each index set's labels, the output shapes; or the violations a kernel must reject.

Ellipsis dimensions are labelled ``…0`` (the last), ``…1``, ... and broadcast as numpy does;
a named label must have one size in every tensor (the inner dimension of a matmul), except that a
``broadcast: unidirectional`` tensor may have size 1 or fewer (right-aligned) dimensions.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specgen.formula import nodes as n
from specgen.indexing.space import IndexSpace, TensorDims


class ShapeViolation(ValueError):
    """The shapes or attributes are not legal for the operator: a must-reject case."""

    def __init__(self, violations: list[str]):
        self.violations = list(violations)
        super().__init__("; ".join(self.violations))


def _ellipsis(k: int) -> str:
    return f"…{k}"


def _truthy(value) -> bool:
    return bool(value) and value not in ("0", "false")


def _pattern(t: TensorDims, attributes) -> list[str]:
    labels = list(t.labels)
    if t.transposed_by and _truthy(attributes.get(t.transposed_by)):
        fixed = [i for i, label in enumerate(labels) if label != "..."]
        if len(fixed) >= 2:
            i, j = fixed[-2], fixed[-1]
            labels[i], labels[j] = labels[j], labels[i]
    return labels


def _tensor_labels(t: TensorDims, rank: int, attributes, problems: list[str]) -> tuple[str, ...] | None:
    pattern = _pattern(t, attributes)
    fixed = [label for label in pattern if label != "..."]
    required = [label for label in fixed if not label.endswith("?")]
    if t.broadcast == "unidirectional" and not t.has_ellipsis:
        if rank > len(fixed):
            problems.append(f"{t.name}: rank {rank}; at most {len(fixed)} ({' '.join(fixed)})")
            return None
        return tuple(label.rstrip("?") for label in fixed[len(fixed) - rank:])
    if rank < len(required) or (not t.has_ellipsis and rank > len(fixed)):
        want = (f"at least {len(required)}" if t.has_ellipsis else
                str(len(fixed)) if len(fixed) == len(required) else f"{len(required)} to {len(fixed)}")
        problems.append(f"{t.name}: rank {rank}; expected {want} ({' '.join(t.labels)})")
        return None
    drop = max(0, len(fixed) - rank)
    kept = []
    for label in pattern:
        if label.endswith("?") and drop:
            drop -= 1
            continue
        kept.append(label)
    extra = rank - (len(kept) - (1 if "..." in kept else 0))
    out: list[str] = []
    for label in kept:
        if label == "...":
            out.extend(_ellipsis(extra - 1 - j) for j in range(extra))
        else:
            out.append(label.rstrip("?"))
    return tuple(out)


@dataclass(frozen=True)
class Layout:
    labels: tuple[str, ...]                  # the space's labels in array-axis order
    sizes: dict                              # label -> size
    tensors: dict                            # present input -> its labels (dimension order)
    sets: dict                               # index set -> its labels
    outputs: dict                            # output -> (its labels, its shape)
    absent: dict                             # omitted optional input -> its value

    def axes(self, labels) -> tuple[int, ...]:
        return tuple(self.labels.index(label) for label in labels)

    def count(self, set_name: str) -> int:
        return int(np.prod([self.sizes[label] for label in self.sets[set_name]], dtype=np.int64))

    def place(self, name: str, array: np.ndarray) -> np.ndarray:
        """``array`` (the tensor's own shape) as an array over the space (size 1 where it lacks a label)."""
        if name in self.absent:
            return np.full((1,) * len(self.labels), self.absent[name], dtype=array.dtype if array is not None else np.float64)
        own = self.tensors[name]
        order = sorted(range(len(own)), key=lambda i: self.labels.index(own[i]))
        moved = np.transpose(array, order)
        shape = [1] * len(self.labels)
        for i in order:
            shape[self.labels.index(own[i])] = array.shape[i]
        return moved.reshape(shape)

    def full_shape(self) -> tuple[int, ...]:
        return tuple(self.sizes[label] for label in self.labels)

    def arrange(self, name: str, result: np.ndarray) -> np.ndarray:
        """A formula's result over the space as the output ``name``'s array."""
        labels, shape = self.outputs[name]
        along = dict(zip(labels, shape))  # a reduced label kept by keepdims has size 1 here
        target = tuple(along.get(label, 1) for label in self.labels)
        full = np.broadcast_to(result, np.broadcast_shapes(np.shape(result), target))
        index = tuple(slice(None) if label in along else 0 for label in self.labels)
        picked = np.asarray(full[index])
        kept = [label for label in self.labels if label in along]
        order = [kept.index(label) for label in labels]
        return np.ascontiguousarray(np.transpose(picked, order)).reshape(shape)


def present_labels(node, layout_tensors: dict, sets: dict) -> set[str]:
    """The labels a formula's result varies along (a reduction removes its set's)."""
    if isinstance(node, n.Var):
        return set(layout_tensors.get(node.name, ()))
    if isinstance(node, n.Reduce):
        return present_labels(node.operand, layout_tensors, sets) - set(sets[node.over])
    out: set[str] = set()
    for child in n.children(node):
        out |= present_labels(child, layout_tensors, sets)
    return out


def _axes_set(s, layout_tensors, attributes, problems) -> tuple[str, ...]:
    labels = layout_tensors.get(s.axes_of)
    if labels is None:
        return ()
    rank = len(labels)
    value = attributes.get(s.given_by)
    if value is None:
        if s.default == "all":
            return labels
        if s.default == "none":
            return ()
        if s.default == "required":
            problems.append(f"{s.given_by}: required (this standard has no default)")
            return ()
        if s.default.startswith("from "):
            return labels[min(int(s.default[5:]), rank):]
        value = int(s.default) if s.kind != "list" else [int(v) for v in s.default.split(",")]
    if s.kind == "list":
        values = [int(v) for v in np.atleast_1d(np.asarray(value, dtype=np.int64)).tolist()] if np.size(value) else []
        if not values:
            if s.noop_attribute and _truthy(attributes.get(s.noop_attribute)):
                return ()
            return labels if s.empty == "all" else ()
        seen: list[int] = []
        for v in values:
            if v < 0 and s.negative is False:
                problems.append(f"{s.given_by}: negative axis {v} (this standard takes 0 to rank - 1)")
                continue
            if not -rank <= v < rank:
                problems.append(f"{s.given_by}: axis {v} is out of range for rank {rank} ({s.axes_of})")
                continue
            a = v % rank
            if a in seen and not s.duplicates:
                problems.append(f"{s.given_by}: axis {a} appears more than once ({values})")
            seen.append(a)
        # in the order given (a dims_of tensor follows it; resolve sorts the others), each axis once
        return tuple(labels[a] for a in dict.fromkeys(seen))
    if np.ndim(value) != 0:
        problems.append(f"{s.given_by}: one axis expected, got {value!r}")
        return ()
    v = int(value)
    if v < 0 and s.negative is False:
        problems.append(f"{s.given_by}: negative axis {v} (this standard takes 0 to rank - 1)")
        return ()
    if not -rank <= v < rank:
        problems.append(f"{s.given_by}: axis {v} is out of range for rank {rank} ({s.axes_of})")
        return ()
    a = v % rank
    return labels[a:] if s.kind == "tail" else (labels[a],)


def set_axes(space: IndexSpace, set_name: str, rank: int, attributes: dict) -> tuple[int, ...] | None:
    """The axis numbers (in the attribute's order) an axes set takes for a ``rank``-dimensional
    tensor, or None where the attribute is not legal (the designer shapes dims_of tensors with it)."""
    problems: list[str] = []
    space = space.under(attributes)
    s = space.sets[set_name]
    labels = tuple(str(i) for i in range(rank))
    got = _axes_set(s, {s.axes_of: labels}, attributes, problems)
    return None if problems else tuple(int(label) for label in got)


def resolve(space: IndexSpace, formula, shapes: dict, attributes: dict, outputs) -> Layout:
    """The layout for these input shapes and attributes; ShapeViolation lists every problem."""
    space = space.under(attributes)  # the overrides that hold for these attribute values (a layout string)
    problems: list[str] = []
    tensors: dict[str, tuple[str, ...]] = {}
    absent: dict[str, float] = {}
    for name, t in space.tensors.items():
        if name in outputs:
            continue
        if t.dims_of is not None and shapes.get(name) is not None:
            continue  # labelled once its set is known (below)
        if name not in shapes or shapes[name] is None:
            if t.absent is None:
                problems.append(f"{name}: a required input is missing")
            else:
                absent[name] = float(t.absent)
            continue
        if space.nonzero and 0 in [int(d) for d in shapes[name]]:
            problems.append(f"{name}: a dimension of size 0 in {list(shapes[name])} (this standard's dimensions are "
                            f"greater than zero)")
        labels = _tensor_labels(t, len(shapes[name]), attributes, problems)
        if labels is not None:
            tensors[name] = labels
    sizes: dict[str, int] = {}
    for name, labels in tensors.items():
        uni = space.tensors[name].broadcast == "unidirectional"
        for label, size in zip(labels, shapes[name]):
            size = int(size)
            if label not in sizes or (sizes[label] == 1 and not uni):
                if label in sizes and sizes[label] == 1 and size != 1 and not label.startswith("…"):
                    owner = next(t for t, ls in tensors.items() if label in ls and t != name)
                    if space.tensors[owner].broadcast != "unidirectional":
                        problems.append(f"dimension {label}: {owner} has 1, {name} has {size}")
                        continue
                sizes[label] = size
            elif size != sizes[label] and not (size == 1 and (uni or label.startswith("…"))):
                others = [t for t, ls in tensors.items() if label in ls and t != name]
                problems.append(f"dimension {label}: {', '.join(others)} {'have' if len(others) > 1 else 'has'} "
                                f"{sizes[label]}, {name} has {size}")
    # a unidirectional tensor may not be larger than the rest along any label
    for name, labels in tensors.items():
        if space.tensors[name].broadcast == "unidirectional":
            for label in labels:
                if not any(label in tensors[o] for o in tensors if space.tensors[o].broadcast != "unidirectional"):
                    problems.append(f"{name}: dimension {label} is not one of the broadcast target's")
    ellipsis = sorted((label for label in sizes if label.startswith("…")), key=lambda s: -int(s[1:]))
    named: list[str] = []
    for name, labels in tensors.items():
        for label in labels:
            if not label.startswith("…") and label not in named:
                named.append(label)
    space_labels = tuple(ellipsis + named)
    sets: dict[str, tuple[str, ...]] = {}
    failed: set[str] = set()  # sets whose attribute is in error: their dims_of tensors are not checked
    for name, s in space.sets.items():
        if s.axes_of is not None:
            before = len(problems)
            sets[name] = _axes_set(s, tensors, attributes, problems)
            if len(problems) > before or s.axes_of not in tensors:
                failed.add(name)
            elif not any(t.dims_of == name for t in space.tensors.values()):
                # the attribute's order matters only to a dims_of tensor: otherwise in axis order
                sets[name] = tuple(label for label in tensors[s.axes_of] if label in sets[name])
        else:
            chosen: list[str] = []
            for label in s.labels:
                chosen.extend(ellipsis if label == "..." else [label] if label in sizes else [])
            sets[name] = tuple(chosen)
    for name, t in space.tensors.items():  # tensors shaped by an axes set: exactly its dims, in its order
        if name in outputs or t.dims_of is None or shapes.get(name) is None or t.dims_of in failed:
            continue
        want = sets.get(t.dims_of, ())
        got = tuple(int(d) for d in shapes[name])
        expected = tuple(sizes.get(label) for label in want)
        if got != expected:
            problems.append(f"{name}: shape {list(got)}; expected {list(expected)} ({t.dims_of}: "
                            f"the dimensions of {space.sets[t.dims_of].axes_of} along them, in their order)")
            continue
        tensors[name] = want
    if problems:
        raise ShapeViolation(problems)
    present = present_labels(formula, tensors, sets)
    keep = space.keepdims is not None and _truthy(attributes.get(space.keepdims, 1))
    out: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {}
    for name in outputs:
        t = space.tensors[name]
        labels, shape = [], []
        for label in t.labels:
            for lab in (ellipsis if label == "..." else [label.rstrip("?")]):
                if lab not in sizes:
                    continue  # an optional label no input has (matmul of a vector)
                if lab in present:
                    labels.append(lab)
                    shape.append(sizes[lab])
                elif keep:
                    labels.append(lab)
                    shape.append(1)
        missing = present - set(labels)
        if missing:
            raise ValueError(f"index_space: output {name} lacks the label(s) {sorted(missing)} its formula varies along")
        out[name] = (tuple(labels), tuple(shape))
    return Layout(space_labels, sizes, tensors, sets, out, absent)
