"""The ``index_space`` block of an accumulating operator's spec, read and checked.

::

    index_space:
      tensors:                      # each tensor's dimensions as labels, "..." any leading dims
        a: {dims: "... m? k"}       # "m?": dropped when the tensor has too few dimensions
        b: {dims: "... k n?"}
        c: {dims: "m n", broadcast: unidirectional, absent: 0}   # may be smaller; missing = 0
        y: {dims: "... m? n?"}      # an output: its shape is derived, never given
        scale: {dims_of: axes}      # exactly the dims of x along an axes set, in the attribute's order
      sets:                         # the index sets formulas reduce over
        k: {labels: [k]}
        axes: {axes_of: x, given_by: axes, kind: list, empty: all, noop_attribute: noop_with_empty_axes}
      keepdims: keepdims            # attribute: reduced dimensions kept with size 1 (else removed)
      overrides:                    # what a standard's versions do differently
        - {standard: onnx, versions: ["1", "11"], sets: {axis: {kind: tail}}, source: "..."}
        - {standard: webnn, versions: [...], when: {layout: nhwc}, tensors: {x: {dims: "n h w c"}}, source: "..."}

Set kinds: ``labels`` (named labels, "..." for the ellipsis dimensions); ``axes_of`` a tensor
with the axis numbers from an attribute: ``list`` (any subset, negative counts from the end,
duplicates and out-of-range rejected), ``single`` (one axis), ``tail`` (every axis from the given
one to the last: ONNX Softmax < 13's flatten to 2-D). ``empty``: what an empty list means
(``all`` axes, ``none``, or ``unspecified``: no case relies on it), ``noop_attribute`` turns an
empty list into no reduction; ``default``: the axes when the attribute is not given (``all``,
``none``, ``from K``, ``required``, or axis numbers). An override may change a set or tensor, or
declare a set only that standard has; with ``when`` it applies only to calls whose attributes have
those values (a string attribute choosing a layout).
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field


class IndexSpaceError(ValueError):
    """A malformed index_space block; the message starts with its key path."""


SET_KINDS = ("list", "single", "tail")
# an empty axes list: every axis, none (an identity), or "unspecified" (the standard does not say: no case)
EMPTY = ("all", "none", "unspecified")


def _check_default(value, where) -> None:
    text = str(value)
    if text in ("all", "none", "required") or re.fullmatch(r"-?\d+(,-?\d+)*", text):
        return
    m = re.fullmatch(r"from (-?\d+)", text)
    if m is None:
        _fail(where, f"{value!r}; allowed: all, none, required, from K (axes K to rank - 1), axis numbers \"0,2\"")
_TENSOR_KEYS = {"dims", "dims_of", "broadcast", "absent", "transposed_by", "optional"}
_SET_KEYS = {"labels", "axes_of", "given_by", "kind", "empty", "noop_attribute", "default", "negative", "duplicates"}


@dataclass(frozen=True)
class TensorDims:
    name: str
    labels: tuple[str, ...]          # "..." for the ellipsis; "m?" optional labels keep the "?"
    broadcast: str | None = None     # "unidirectional": may have fewer dims or size 1 along a label
    absent: float | None = None      # the value of an omitted optional input (Gemm's C: 0)
    transposed_by: str | None = None  # attribute that swaps the last two labels when true
    dims_of: str | None = None       # an axes set: the tensor's dims are that set's labels in the order the
                                     # attribute lists them (WebNN layerNormalization's scale: « input.shape[axes[i]] »)

    @property
    def has_ellipsis(self) -> bool:
        return "..." in self.labels


@dataclass(frozen=True)
class IndexSet:
    name: str
    labels: tuple[str, ...] = ()
    axes_of: str | None = None
    given_by: str | None = None
    kind: str = "list"
    empty: str = "all"
    noop_attribute: str | None = None
    default: str = "all"             # the attribute not given: "all" axes (ONNX Reduce*), "none", "from K" (axes
                                     # K to rank - 1: WebNN layerNormalization), "required" (no default: a
                                     # must-reject), or axis numbers
    negative: object = True          # negative axes count from the end (ONNX 11+); False: rejected (WebNN);
                                     # "unspecified": the standard does not say (ONNX 1): no case either way
    duplicates: bool = False         # a repeated axis is rejected (WebNN); True: taken once


@dataclass(frozen=True)
class IndexSpace:
    tensors: dict
    sets: dict
    keepdims: str | None = None
    overrides: tuple = field(default=())
    conditional: tuple = field(default=())  # a version's overrides with ``when``: applied by under()
    nonzero_standards: frozenset = frozenset()  # standards whose dimensions are greater than zero
    nonzero: bool = False                       # this (resolved) space rejects a dimension of size 0

    def for_version(self, standard: str, version: str) -> "IndexSpace":
        """The space as ``standard`` ``version`` defines it (its overrides applied; those with ``when``
        kept for :meth:`under`, which applies them where the call's attributes match)."""
        space = self
        conditional = []
        for o in self.overrides:
            if o["standard"] == standard and version in o["versions"]:
                if o.get("when"):
                    conditional.append(o)
                else:
                    space = _apply(space, o)
        return IndexSpace(space.tensors, space.sets, space.keepdims, (), tuple(conditional),
                          nonzero=standard in self.nonzero_standards)

    def under(self, attributes: dict) -> "IndexSpace":
        """The space for a call with these attributes: every ``when`` override whose attribute values
        match applied (WebNN instanceNormalization's layout "nhwc" puts the channel last)."""
        space = self
        for o in self.conditional:
            if all(attributes.get(k) == v for k, v in o["when"].items()):
                space = _apply(space, o)
        return IndexSpace(space.tensors, space.sets, space.keepdims, (), (), nonzero=self.nonzero)


def _fail(where: str, message: str):
    raise IndexSpaceError(f"{where}: {message}")


def _tensor(name, raw, where) -> TensorDims:
    if isinstance(raw, str):
        raw = {"dims": raw}
    if not isinstance(raw, dict) or ("dims" in raw) == ("dims_of" in raw):
        _fail(where, "a tensor's entry is {dims: \"LABELS\", ...} or {dims_of: AXES_SET, ...}")
    unknown = set(raw) - _TENSOR_KEYS
    if unknown:
        _fail(where, f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_TENSOR_KEYS)}")
    if "dims_of" in raw:
        if raw.get("broadcast") is not None or raw.get("transposed_by") is not None:
            _fail(where, "a dims_of tensor has exactly the set's dimensions (no broadcast, no transposed_by)")
        return TensorDims(name, (), None, raw.get("absent"), None, str(raw["dims_of"]))
    labels = tuple(str(raw["dims"]).split())
    if labels.count("...") > 1:
        _fail(f"{where}.dims", "at most one '...'")
    plain = [label.rstrip("?") for label in labels if label != "..."]
    if len(set(plain)) != len(plain):
        _fail(f"{where}.dims", f"a label repeats in {raw['dims']!r}")
    for label in plain:
        if not label.isidentifier():
            _fail(f"{where}.dims", f"label {label!r} is not a name")
    if raw.get("broadcast") not in (None, "unidirectional"):
        _fail(f"{where}.broadcast", f"{raw.get('broadcast')!r}; allowed: unidirectional")
    return TensorDims(name, labels, raw.get("broadcast"), raw.get("absent"), raw.get("transposed_by"))


def _set(name, raw, tensors, where) -> IndexSet:
    if not isinstance(raw, dict):
        _fail(where, "an index set is {labels: [...]} or {axes_of: TENSOR, given_by: ATTRIBUTE}")
    unknown = set(raw) - _SET_KEYS
    if unknown:
        _fail(where, f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_SET_KEYS)}")
    if ("labels" in raw) == ("axes_of" in raw):
        _fail(where, "give exactly one of labels or axes_of")
    if "axes_of" in raw:
        if raw["axes_of"] not in tensors:
            _fail(f"{where}.axes_of", f"{raw['axes_of']!r} is not a tensor of the index space")
        if "given_by" not in raw:
            _fail(where, "axes_of needs given_by (the attribute or input holding the axes)")
        if raw.get("kind", "list") not in SET_KINDS:
            _fail(f"{where}.kind", f"{raw.get('kind')!r}; allowed: {', '.join(SET_KINDS)}")
        if raw.get("empty", "all") not in EMPTY:
            _fail(f"{where}.empty", f"{raw.get('empty')!r}; allowed: {', '.join(EMPTY)}")
        _check_default(raw.get("default", "all"), f"{where}.default")
        return IndexSet(name, (), raw["axes_of"], raw["given_by"], raw.get("kind", "list"),
                        raw.get("empty", "all"), raw.get("noop_attribute"), str(raw.get("default", "all")),
                        raw.get("negative", True), bool(raw.get("duplicates", False)))
    labels = tuple(raw["labels"])
    known = {label.rstrip("?") for t in tensors.values() for label in t.labels}
    for label in labels:
        if label not in known:
            _fail(f"{where}.labels", f"{label!r} is no tensor's label")
    return IndexSet(name, labels)


def _apply(space: IndexSpace, override: dict) -> IndexSpace:
    sets = dict(space.sets)
    for name, changes in (override.get("sets") or {}).items():
        if name not in sets:  # a set only this standard has (WebNN batchNormalization's axis)
            sets[name] = _set(name, changes, space.tensors, f"index_space.overrides: set {name}")
            continue
        base = sets[name]
        unknown = set(changes) - set(base.__dict__)
        if unknown:
            raise IndexSpaceError(f"index_space.overrides: set {name}: unknown key(s) {sorted(unknown)}")
        if "empty" in changes and changes["empty"] not in EMPTY:
            raise IndexSpaceError(f"index_space.overrides: set {name}: empty {changes['empty']!r}; allowed: {', '.join(EMPTY)}")
        if "kind" in changes and changes["kind"] not in SET_KINDS:
            raise IndexSpaceError(f"index_space.overrides: set {name}: kind {changes['kind']!r}; allowed: {', '.join(SET_KINDS)}")
        if "default" in changes:
            _check_default(changes["default"], f"index_space.overrides: set {name}.default")
            changes = {**changes, "default": str(changes["default"])}
        sets[name] = IndexSet(**{**base.__dict__, **changes})
    tensors = dict(space.tensors)
    for name, changes in (override.get("tensors") or {}).items():
        if name not in tensors:
            raise IndexSpaceError(f"index_space.overrides: tensor {name!r} is not declared")
        base = tensors[name]
        changes = dict(changes)
        if "dims" in changes:
            changes["labels"] = tuple(str(changes.pop("dims")).split())
            changes.setdefault("dims_of", None)
        if changes.get("dims_of") is not None:
            changes["labels"] = ()
        unknown = set(changes) - set(base.__dict__)
        if unknown:
            raise IndexSpaceError(f"index_space.overrides: tensor {name}: unknown key(s) {sorted(unknown)}")
        tensors[name] = TensorDims(**{**base.__dict__, **changes})
    keepdims = override.get("keepdims", space.keepdims)
    return IndexSpace(tensors, sets, keepdims, space.overrides, space.conditional, space.nonzero_standards, space.nonzero)


def parse_index_space(raw, where: str = "index_space") -> IndexSpace:
    """Read the block; any error names its key path."""
    if not isinstance(raw, dict):
        _fail(where, "must be a mapping with tensors and sets")
    unknown = set(raw) - {"tensors", "sets", "keepdims", "overrides"}
    if unknown:
        _fail(where, f"unknown key(s) {sorted(unknown)}")
    tensors = {name: _tensor(name, value, f"{where}.tensors.{name}") for name, value in (raw.get("tensors") or {}).items()}
    if not tensors:
        _fail(f"{where}.tensors", "declare every tensor's dimensions")
    sets = {name: _set(name, value, tensors, f"{where}.sets.{name}") for name, value in (raw.get("sets") or {}).items()}
    overrides = []
    for i, o in enumerate(raw.get("overrides") or ()):
        w = f"{where}.overrides[{i}]"
        if not isinstance(o, dict) or "standard" not in o or "versions" not in o:
            _fail(w, "an override is {standard, versions, sets/tensors, source}")
        if "source" not in o:
            _fail(w, "an override states its source")
        when = o.get("when")
        if when is not None and (not isinstance(when, dict) or not when or
                                 not all(isinstance(k, str) and isinstance(v, (str, int, float)) for k, v in when.items())):
            _fail(f"{w}.when", "when is {attribute: value, ...}: the override applies to calls with those values")
        overrides.append(copy.deepcopy(o))
    space = IndexSpace(tensors, sets, raw.get("keepdims"), tuple(overrides))
    _check_dims_of(space, where)
    for o in overrides:  # every override must apply cleanly
        _check_dims_of(_apply(space, copy.deepcopy(o)), f"{where}.overrides")
    return space


def _check_dims_of(space: IndexSpace, where: str) -> None:
    for name, t in space.tensors.items():
        if t.dims_of is not None:
            s = space.sets.get(t.dims_of)
            if s is None or s.axes_of is None:
                _fail(f"{where}.tensors.{name}.dims_of", f"{t.dims_of!r} is not an axes set (axes_of) of the index space")
