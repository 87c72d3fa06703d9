"""The vector corpus designed from the specs: positive cases with golden outputs, negative
(must-reject) cases from the generated validation rules, and the opt-in exhaustive 16-bit sweep.

Case ids: ``<op>/<standard>-<version>/<dtype>/rank<r>/<content>[<attributes>]`` where the
attribute suffix (``[alpha=-0.5,beta=0.25]``, ``[approximate=tanh]``) is left off for the standard's
defaults.

A string attribute that selects the formula (GELU's approximate) is crossed with every numeric
attribute set; each case is computed by the plain operator its value selects (OpSpec.resolve), so
golden values and the breakpoint design never see the string.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from specgen import dtypes as dt
from specgen.errors import SpecError
from specgen.generate import rules
from specgen.generate.design import (Stream, analyse_formula, breakpoint_values, conversion_values, region_values,
                                     specials, threshold_crossings, threshold_values)
from specgen.numerics.exact import golden
from specgen.spec.provenance import tolerance_record
from specgen.vectors import CorpusWriter

# shapes of the rank sweep: sizes that are not multiples of common vector widths
RANK_SHAPES = {0: [], 1: [1031], 2: [7, 13], 3: [3, 5, 7], 4: [2, 3, 5, 7], 5: [1, 2, 3, 5, 7],
               6: [2, 1, 3, 1, 5, 7], 7: [1, 2, 1, 3, 1, 5, 7], 8: [2, 1, 1, 3, 1, 5, 1, 7]}
IN_PLACE_DIMS = [2, 3, 5, 7]  # 210 elements: three 64-element chunks and a tail of 18
IN_PLACE_MIN = 8  # fewest changing inputs an in-place case is built from (Tanh float16: 14 of 27 designed)
IN_PLACE_DRAWS = 16  # pairs drawn per pool element for several inputs
# tails past a multiple of 64 elements (every case costs each full-corpus run ~2-5 ms, so not all
# 63): the main dtype gets, for every vector width W = 2..64, a tail of 1 and of W - 1 (63, 31,
# 15, 7, 3), for W = 8, 16, 32 also W and W + 1 (a remainder loop one vector wide and one more),
# and 47, 48; the other dtypes 1, 15, 16, 17, 31, 33, 63
SIZE_TAILS = tuple(128 + t for t in (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63))
SIZE_TAILS_OTHER = tuple(128 + t for t in (1, 15, 16, 17, 31, 33, 63))
SIZE_2_16 = (2**16 + 1,)  # past where a 16-bit element index or count wraps
LARGE_DIMS = [67, 1031]  # 69,077 elements: over 65,536 and a prime-ish row length
PER_REGION = 12
GENERIC_VALUES = (0.35, 0.65, 0.95, 1.25)
# the unknown-attribute probe takes the first of these names that the spec does not use anywhere
PROBE_ATTRIBUTE_NAMES = ("gamma", "delta", "kappa", "unknown_attribute")
# values the other inputs are held at while one input's breakpoints are designed (several inputs)
HELD_FLOAT = (0.35, -0.65)
HELD_INT = (3, -2)


def f32(v: float) -> float:
    return float(np.float32(v))


@dataclass
class AttrSet:
    name: str
    values: dict[str, float]
    default: bool = False
    # attributes at the standard's default that a call leaves out (where the standard applies defaults) and
    # the case id does not name: the numeric defaults crossed with a value of a string attribute that has
    # no default (Cast's saturate = 1 with to = float8e4m3fn)
    omitted: tuple[str, ...] = ()


def _golden(resolved, inputs, dtype: str, standard: str):
    """golden() of a resolved (plain operator, numeric attributes) pair."""
    spec, attributes = resolved
    return golden(spec, inputs, attributes, dtype, standard)


def tensor_dtype(ver, tensor: str, dtype: str) -> str:
    """The dtype ``tensor`` has in a case of ``dtype``: that dtype where the version's table lists it
    for the tensor, else the one dtype the table lists (a comparison's tensor(bool) or uint8 output,
    Where's bool condition)."""
    allowed = ver.dtypes(tensor)
    if dtype in allowed or len(allowed) != 1:
        return dtype
    if all(s.dtypes == allowed for s in ver.tensors.values()):
        return dtype  # one dtype for the whole row (ONNX Celu-12: float32): a probe's dtype applies to every tensor
    return allowed[0]


def case_dtypes(ver, inputs: list[str]) -> list[str]:
    """The dtypes a version's cases are made for: every dtype its table lists for an input (Where:
    its values' types, ONNX's bool among them), in the order listed."""
    listed = dict.fromkeys(d for t in inputs for d in ver.dtypes(t))
    # only those every tensor can have in a case (oneDNN Select: bool is the condition's alone)
    ok = [d for d in listed if all(tensor_dtype(ver, t, d) in ver.dtypes(t) for t in ver.tensors)]
    # two that give every tensor the same dtype make the same cases under two labels (DirectML IF at
    # 2_0: the condition's uint8 and the values' float16 both give a uint8 condition and float16
    # values): the one most tensors have is kept
    rows: dict[tuple, str] = {}
    for d in ok:
        key = tuple(tensor_dtype(ver, t, d) for t in ver.tensors)
        if key not in rows or key.count(d) > key.count(rows[key]):
            rows[key] = d
    return [d for d in ok if d in rows.values()]


TRUTH_VALUES = np.array([False, True])  # every value of a bool tensor: its design is both


# dtypes specgen gained after most operators' tables were written (see must_reject's unlisted dtype)
LATE_DTYPES = ("bool",) + tuple(n for n, d in dt.DTYPES.items() if d.is_float and d.bits == 8)


def held_values(dtype: str) -> list:
    """The values the other inputs are held at while one input's breakpoints are designed."""
    d = dt.get(dtype)
    if d.kind == "bool":
        return [True, False]
    if d.is_float:
        return [f32(v) for v in HELD_FLOAT]
    return [v if d.kind == "int" else abs(v) for v in HELD_INT]


def _fmt(v: float | str) -> str:
    """Shortest float32 spelling: 0.35, -0.5, 0, 3.5, 1e-08; a string value as it is."""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and np.isfinite(v) and abs(v) > float(np.finfo(np.float32).max):
        return repr(v)  # a float64 tensor's limit (absent_defaults), beyond float32
    text = str(np.float32(v))
    return text if "e" in text else text.rstrip("0").rstrip(".")


def attribute_sets(spec, standard: str, version: str | None = None, dtype: str | None = None) -> list[AttrSet]:
    """The numeric sets (numeric_sets), each with every value of the formula-selecting string
    attribute the standard accepts: its default with the default set first, then the others
    (``approximate-tanh``). With ``dtype``, only the values a call of that tensor type accepts (ONNX
    Mod: floating-point inputs require fmod = 1, integer ones fmod = 0: the binding's ``kind_values``)."""
    sets = numeric_sets(spec, standard, version)
    std_ = spec.standards[standard]
    float_only = float_only_transform_attributes(spec, standard, dtype)
    if float_only:  # integer tensors keep the transform at its identity
        sets = [s_ for s_ in sets if all(s_.values.get(k) == a.identity for k, a in float_only.items())]
    if version is not None and dtype is not None:
        # attributes a version takes as optional inputs: absent (the default set), they stand for the
        # dtype's limits (ONNX Clip-11: numeric_limits<T>::lowest() / max())
        ver = spec.standards[standard].version(version)
        absent = ver.absent_values(dtype)
        if absent:
            sets = [AttrSet(s_.name, {**s_.values, **absent}, s_.default) if s_.default else s_ for s_ in sets]
        if ver.as_inputs:
            # given, they are tensors of the input's type: the values it holds, and sets that become
            # equal there (0.35 and 0.65 are both 0 in int32) are one set
            cast, seen = [], set()
            for s_ in sets:
                values = ver.as_input_values(s_.values, dtype)
                key = tuple(sorted(values.items()))
                if key not in seen:
                    seen.add(key)
                    cast.append(AttrSet(s_.name, values, s_.default))
            sets = cast
    if std_.crossed_rejected:
        # the standard rejects a crossed pair (compared as it computes with the values): such a set is
        # a must-reject case of its own (negative_probes), not a positive one
        sets = [s_ for s_ in sets if not crossed(spec, std_.info.cast_attributes(s_.values, dtype) if dtype else s_.values)]
    if spec.choice is None:
        return sets
    name = spec.choice.attribute
    b = spec.standards[standard].attributes[name]
    first = b.fixed if b.fixed is not None else b.default
    # the binding's values (the version's own spelling), for an output type only those the version's table lists
    accepted = list(spec.accepted_values(name, standard, version))
    if dtype is not None and b.kind_values:
        accepted = [v for v in accepted if b.accepts_for(v, dt.get(dtype).is_float)]
        first = first if first in accepted else None
    order = ([first] if first is not None else []) + [v for v in accepted if v != first]
    own_defaults = std_.defaults(version)
    out, seen = [], set()
    for s_ in sets:
        for i, value in enumerate(order):
            default = s_.default and i == 0 and first is not None
            label = s_.name if i == 0 and first is not None else (
                f"{name}-{value}" if s_.default else f"{s_.name}-{name}-{value}")
            values = {**s_.values, name: value}
            gone = spec.inapplicable(values)  # attributes that do not exist with this value (applies_when)
            if any(values.get(k) != own_defaults.get(k) for k in gone if k in values):
                continue  # the set differs from another only in an attribute this value does not have
            values = {k: v for k, v in values.items() if k not in gone}
            key = tuple(sorted((k, repr(v)) for k, v in values.items()))
            if key in seen:
                continue
            seen.add(key)
            # the numeric defaults with another value than the string attribute's default: left out of the call
            omitted = tuple(k for k in s_.values if k in values) if s_.default and not default else ()
            out.append(AttrSet(label.replace("_", "-"), values, default, omitted))
    return out


def numeric_sets(spec, standard: str, version: str | None = None) -> list[AttrSet]:
    """The standard's defaults (when it has them), every other standard's defaults, the spec's
    example and test_attributes sets, and generic sets that make every attribute matter: distinct values,
    reversed, negated, mixed signs, each attribute zero in turn, and a wide (x10) set. Numeric
    attributes only (a string attribute is crossed with these by attribute_sets)."""
    names = list(spec.numeric_attribute_names)
    if not names:
        return [AttrSet("default", {}, True)]
    sets: list[AttrSet] = []
    # a version's own defaults where it has some (ONNX Selu-1)
    std = spec.standards[standard]
    own = {k: v for k, v in std.defaults(version).items() if k in names}
    # an optional attribute without a default (binding absent): the default set leaves it out, and it
    # stands for its absent value (attribute_sets puts the dtype's value in: ±inf, or an integer type's limits)
    own.update({k: ABSENT_PLACEHOLDER[b.absent] for k, b in std.attributes.items()
                if k in own and own[k] is None and b.absent is not None})
    if all(v is not None for v in own.values()):
        sets.append(AttrSet("default", dict(own), True))
    for key, s in spec.standards.items():
        d = {k: v for k, v in s.defaults().items() if k in names}
        if key != standard and all(v is not None for v in d.values()):
            sets.append(AttrSet(f"{key}-defaults", dict(d)))
    for i, ex in enumerate(spec.examples):
        # an attribute that does not exist in the example's call (applies_when) stands at the default there
        sets.append(AttrSet(f"example-{i + 1}", {k: f32(ex.attributes[k]) if k in ex.attributes else own[k]
                                                 for k in names}))
    fixed = {k: v for k, v in spec.standards[standard].fixed().items() if k in names}
    for t in spec.test_attributes:
        if any(not np.isfinite(t.values[k]) and k in std.attributes and std.attributes[k].nonfinite_rejected(std.info)
               for k in names):
            continue  # an infinity this standard rejects (its must-reject probes have it)
        sets.append(AttrSet(t.name.replace("_", "-"), {k: f32(t.values[k]) for k in names}))
    declared = {a.name: a for a in spec.attributes}
    closed = [k for k in names if declared[k].int_values]
    if closed and len(closed) == len(names):  # integer flags (ONNX IsInf): every combination of their values
        import itertools

        for combo in itertools.product(*[declared[k].int_values for k in closed]):
            sets.append(AttrSet("-".join(f"{k}-{v}" for k, v in zip(closed, combo)).replace("_", "-"),
                                {k: float(v) for k, v in zip(closed, combo)}))
        if fixed:
            sets = [AttrSet(s.name, {**s.values, **fixed}, s.default) for s in sets]
        return _dedupe_sets(spec, sets, names, declared)
    base = [GENERIC_VALUES[i % len(GENERIC_VALUES)] for i in range(len(names))]
    sets.append(AttrSet("distinct", {k: f32(v) for k, v in zip(names, base)}))
    sets.append(AttrSet("reversed", {k: f32(v) for k, v in zip(names, reversed(base))}))
    negative = {k: f32(-v) for k, v in zip(names, base)}
    if spec.attribute_order is not None and crossed(spec, negative):
        # an ordered pair (Clip's min, max) negated in order, so that a standard rejecting a crossed pair
        # (WebNN clamp) has negative values of both too
        lower, upper = spec.attribute_order
        negative = {**negative, lower: negative[upper], upper: negative[lower]}
    sets.append(AttrSet("negative", negative))
    sets.append(AttrSet("mixed-signs", {k: f32(v if i % 2 == 0 else -v) for i, (k, v) in enumerate(zip(names, base))}))
    for k in names:
        sets.append(AttrSet(f"zero-{k}", {n_: (0.0 if n_ == k else f32(v)) for n_, v in zip(names, base)}))
    sets.append(AttrSet("wide", {k: f32(10 * v) for k, v in zip(names, base)}))
    if fixed:  # the standard has no such attribute: every set uses its fixed value
        sets = [AttrSet(s.name, {**s.values, **fixed}, s.default) for s in sets]
    return _dedupe_sets(spec, sets, names, declared)


# the value an absent optional attribute stands for before the dtype is known (attribute_sets replaces it)
ABSENT_PLACEHOLDER = {"neg_inf": float("-inf"), "pos_inf": float("inf"),
                      "lowest": -float(np.finfo(np.float32).max), "highest": float(np.finfo(np.float32).max)}


def _dedupe_sets(spec, sets, names, declared) -> list[AttrSet]:
    out, seen = [], set()
    own = {t.name.replace("_", "-") for t in spec.test_attributes} | {f"example-{i + 1}" for i in range(len(spec.examples))}
    for s in sets:
        key = tuple(s.values[k] for k in names)
        if crossed(spec, s.values) and s.name not in own:
            continue  # a generic set that crosses an ordered pair (spec attribute_order)
        if any(not declared[k].allows(v) for k, v in s.values.items() if k in declared):
            continue  # a value the operator is not defined for (attribute `exclude`)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


# each attribute's own boundaries, as the float32 the attribute stores (the other attributes at the
# standard's first set): the smallest subnormal, and the largest finite of either sign (0 and
# ordinary negative values are already generic sets of attribute_sets)
ATTRIBUTE_BOUNDARIES = (("subnormal", 2.0 ** -149), ("huge", float(np.finfo(np.float32).max)),
                        ("neg-huge", -float(np.finfo(np.float32).max)))
BOUNDARY_PER_REGION = 4  # region samples of an attribute-boundary case (the breakpoints are all there)


def float_only_transform_attributes(spec, standard: str, dtype: str | None) -> dict:
    """The attributes (name -> its transform attribute, with ``identity``) of the standard's input
    transform when it applies to float tensors only (``float_tensors_only``) and ``dtype`` is an
    integer type: those stay at their identity. Otherwise {}."""
    std_ = spec.standards[standard]
    if dtype is None or dt.get(dtype).is_float or not std_.input_transform:
        return {}
    t = std_.info.input_transforms[std_.input_transform[0]]
    return dict(t.attributes) if t.float_tensors_only else {}


def crossed(spec, values: dict) -> bool:
    """Whether ``values`` put the spec's ordered pair (attribute_order) in the wrong order."""
    if spec.attribute_order is None:
        return False
    lower, upper = spec.attribute_order
    lo, hi = values.get(lower), values.get(upper)
    return lo is not None and hi is not None and lo > hi


def attribute_boundary_sets(spec, standard: str, version: str | None = None, dtype: str | None = None, *,
                            tensor_dtype: str | None = None) -> list[AttrSet]:
    """One set per attribute the standard lets a call set and per boundary value: that attribute at
    the boundary, the others at the standard's first designed set (its defaults where it has
    them), so a kernel right at the defaults but wrong at one attribute's boundary fails. With
    ``version`` and ``dtype``, the first set of that row (absent inputs at the dtype's limits).
    ``tensor_dtype`` (default ``dtype``): an integer tensor gets no boundary of an input transform
    that applies to float tensors only (DirectML's ScaleBias stays at its identity there)."""
    fixed = spec.standards[standard].fixed()
    base = attribute_sets(spec, standard, version, dtype)[0].values
    out = []
    closed = {a.name for a in spec.attributes if a.int_values}  # flags take their listed values only
    closed |= set(float_only_transform_attributes(spec, standard, tensor_dtype or dtype))
    for k in spec.numeric_attribute_names:
        if k in fixed or k in closed:
            continue
        for label, value in ATTRIBUTE_BOUNDARIES:
            values = {**base, k: f32(value)}
            if values != base and all(o.values != values for o in out) and not crossed(spec, values):
                # one already at that bound in the base (Clip's absent max = FLT_MAX), or two at the same bounds
                out.append(AttrSet(f"boundary-{k}-{label}", values))
    return out


def designed_crossings(spec, std, aset: AttrSet, dtype: str) -> list:
    """The threshold crossings (specgen.formula.thresholds) of the primary input under the attribute
    values the standard computes with, for the ``thresholds`` case of ``aset``; none for an
    operator of several inputs (its other inputs would move them)."""
    if len(spec.inputs) > 1:
        return []
    resolved, values = spec.resolve(std.info.cast_attributes(aset.values, dtype), std.key)
    return threshold_crossings(resolved, std.key, values, dtype, spec.inputs[0].name)


def same_table_as_previous(std, ver, dtype: str, once: bool = False) -> bool:
    """Whether ``ver`` lists ``dtype`` with exactly its predecessor's table: every tensor's dtypes and
    ranks, extra attributes, version defaults and broadcast rules. ``once`` (the spec's
    rank_sweep_once): the other dtypes the versions list do not count, only this dtype's row."""
    i = std.versions.index(ver)
    if i == 0:
        return False
    prev = std.versions[i - 1]

    def table(v):
        return ({t: ((dtype in s.dtypes) if once else s.dtypes, str(s.ranks)) for t, s in v.tensors.items()},
                v.extra_attributes, v.defaults, v.broadcast, v.as_inputs, v.absent_defaults, v.attribute_values)
    return dtype in prev.dtypes() and table(prev) == table(ver)


def sweeps_once(spec, std) -> bool:
    """Whether a dtype's rank sweep is made only where its own row changes (the spec's
    rank_sweep_once, or a standard whose versions are cumulative)."""
    return bool(spec.rank_sweep_once or std.info.cumulative_versions)


def same_meaning_as_previous(std, ver, dtype: str) -> bool:
    """Whether ``ver``'s predecessor lists ``dtype`` with the same meaning: the same tensors take
    it, with the same extra attributes, version defaults, broadcast rules, attributes taken as
    inputs and their absent values; ranks and the other dtypes aside (what a cumulative standard's
    later version adds)."""
    i = std.versions.index(ver)
    if i == 0:
        return False
    prev = std.versions[i - 1]

    def meaning(v):
        return ({t: dtype in s.dtypes for t, s in v.tensors.items()}, v.extra_attributes, v.defaults, v.broadcast,
                v.as_inputs, v.absent_defaults, v.attribute_values)
    return dtype in prev.dtypes() and meaning(prev) == meaning(ver)


def designs_row(spec, std, ver, dtype: str) -> bool:
    """Whether ``ver`` gets the designed cases of ``dtype`` (breakpoints, regions, thresholds): always,
    except for a version strictly inside a run of versions whose rows for that dtype repeat their
    predecessor's, which only the run's first and latest have. A run: (spec designed_at_ends) rows
    that are the same (same_table_as_previous); (a standard's cumulative_versions) rows with the same
    meaning (same_meaning_as_previous: a later level that only adds dtypes or ranks)."""
    if std.info.cumulative_versions:
        same = same_meaning_as_previous
    elif spec.designed_at_ends:
        def same(std_, v, d):
            return same_table_as_previous(std_, v, d, True)
    else:
        return True
    if not same(std, ver, dtype):
        return True
    i = std.versions.index(ver)
    return i == len(std.versions) - 1 or not same(std, std.versions[i + 1], dtype)


def width_key(ver, dtype: str, tensors=None) -> tuple:
    """The element width (bits) of every tensor in a case of ``dtype`` at ``ver`` (tensor_dtype)."""
    names = list(tensors) if tensors is not None else list(ver.tensors)
    return tuple(dt.get(tensor_dtype(ver, t, dtype)).bits for t in names)


def addressing_dtype(std, ver, dtype: str, inputs: list[str], prefer: str | None = None) -> bool:
    """Whether ``dtype`` carries its row's addressing cases: always, except (the standard's
    addressing_per_width) where another dtype of the row, earlier in its order (``prefer`` first),
    gives every tensor the same element widths."""
    if not std.info.addressing_per_width:
        return True
    listed = case_dtypes(ver, inputs)
    order = ([prefer] if prefer in listed else []) + [d for d in listed if d != prefer]
    key = width_key(ver, dtype)
    return next(d for d in order if width_key(ver, d) == key) == dtype


def sweeps_row(spec, std, ver, dtype: str, inputs: list[str]) -> bool:
    """Whether ``ver`` gets a rank sweep of ``dtype``: where the dtype's row is not its predecessor's
    again (same_table_as_previous; sweeps_once), for its width's dtype (addressing_dtype: the shapes
    of a sweep test a kernel's addressing at every rank, and that dtype's sweep has the same ranks)."""
    return (not same_table_as_previous(std, ver, dtype, sweeps_once(spec, std))
            and addressing_dtype(std, ver, dtype, inputs))


def addresses_row(spec, std, ver, dtype: str, inputs: list[str]) -> bool:
    """Whether ``ver`` gets the addressing cases of ``dtype`` (strided, layouts, zero-stride
    broadcast forms, in-place): where its designed cases are (designs_row; a cumulative standard's
    later version adds no addressing of its own) and it is its width's dtype (addressing_dtype)."""
    return designs_row(spec, std, ver, dtype) and addressing_dtype(std, ver, dtype, inputs)


def new_max_rank_row(spec, std, ver, dtype: str, inputs: list[str]) -> bool:
    """A row without addressing cases of its own (addresses_row) whose rank sweep is its own and
    whose largest tested rank no earlier version of the dtype had: it keeps the largest-rank layout
    case (layout-max-rank), for its width's dtype."""
    if addresses_row(spec, std, ver, dtype, inputs) or not sweeps_row(spec, std, ver, dtype, inputs):
        return False
    top = max(rules.tested_ranks(ver.ranks(inputs[0])))
    earlier = [max(rules.tested_ranks(v.ranks(inputs[0]))) for v in std.versions[:std.versions.index(ver)]
               if dtype in case_dtypes(v, inputs)]
    return top not in earlier


def size_case_version(std, dtype: str, x: str, once: bool = False, inputs=None):
    """The version whose rank sweep the size cases of ``dtype`` gather from: the latest listing
    the dtype with a rank sweep of its own (not a repeat of its predecessor's table). None also for
    a dtype whose size cases another dtype of its element widths makes (the standard's
    addressing_per_width: size_dtypes)."""
    inputs = inputs or [x]
    ver = _own_sweep_version(std, dtype, inputs, once or bool(std.info.cumulative_versions))
    if ver is None or not std.info.addressing_per_width:
        return ver
    return ver if dtype in size_dtypes(std, inputs, once) else None


def _own_sweep_version(std, dtype: str, inputs: list[str], once: bool):
    """The latest version with a rank sweep of ``dtype`` (its row not its predecessor's again, and
    its width's dtype there: addressing_dtype)."""
    own = [v for v in std.versions if dtype in case_dtypes(v, inputs)
           and not same_table_as_previous(std, v, dtype, once) and addressing_dtype(std, v, dtype, inputs)]
    return own[-1] if own else None


def size_dtypes(std, inputs: list[str], once: bool = False) -> list[str]:
    """The dtypes that get size cases: every dtype of the standard's tables, or (addressing_per_width)
    the first with a rank sweep of its own (_own_sweep_version) of each combination of tensor widths
    there, float32 (the main dtype) first."""
    dtypes = list(dict.fromkeys(d for v in std.versions for d in case_dtypes(v, inputs)))
    if not std.info.addressing_per_width:
        return dtypes
    once = once or bool(std.info.cumulative_versions)
    main = "float32" if "float32" in dtypes else dtypes[0]
    seen, out = set(), []
    for d in [main] + [d for d in dtypes if d != main]:
        ver = _own_sweep_version(std, d, inputs, once)
        if ver is None:
            continue
        key = width_key(ver, d)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return [d for d in dtypes if d in out]


def given_attributes(aset: AttrSet, std) -> list[str]:
    """The attributes a call passes: none for the defaults of a standard that applies them (ONNX),
    never one the standard fixes (it has no such attribute)."""
    if aset.default and std.attribute_defaults == "applied":
        return []
    fixed = std.fixed()
    left_out = set(aset.omitted) if std.attribute_defaults == "applied" else set()
    return [k for k in aset.values if k not in fixed and k not in left_out]


def attr_suffix(aset: AttrSet) -> str:
    if aset.default or not aset.values:
        return ""
    return "[" + ",".join(f"{k}={_fmt(v)}" for k, v in aset.values.items() if k not in aset.omitted) + "]"


def _unique(values: np.ndarray, dtype: str) -> np.ndarray:
    d = dt.get(dtype)
    bits = np.asarray(values, dtype=d.numpy).view(d.uint_view)
    _, idx = np.unique(bits, return_index=True)
    return np.asarray(values, dtype=d.numpy)[np.sort(idx)]


def _fit_rank(dims: list[int], rank: int) -> list[int]:
    """Shape of the given rank holding dims' elements (leading 1s, or merged leading dims)."""
    dims = list(dims)
    if rank == 0:
        return []
    while len(dims) > rank:
        dims = [dims[0] * dims[1]] + dims[2:]
    return [1] * (rank - len(dims)) + dims


_tolerance = tolerance_record  # the record the runner checks the specs in use against


def content_rank(ranks) -> int:
    tested = rules.tested_ranks(ranks)
    return 4 if 4 in tested else min([r for r in tested if r >= 1] or tested)


@dataclass
class Stats:
    positive: int = 0
    negative: int = 0
    elements: int = 0
    proven_float64: int = 0
    exact: int = 0
    special: int = 0
    unsolved: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # designed cases whose golden values cannot be decided

    def add(self, other: "Stats") -> None:
        """Count ``other``'s cases too (one operator's, designed in a worker process)."""
        for name in ("positive", "negative", "elements", "proven_float64", "exact", "special"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.unsolved.extend(other.unsolved)
        self.left_out.extend(other.left_out)


class OpCorpus:
    """Builds every case of one operator into a CorpusWriter."""

    def __init__(self, spec, writer: CorpusWriter, stats: Stats, validate: Callable | None):
        self.spec = spec
        self.w = writer
        self.stats = stats
        self.validate = validate
        self.inputs = [t.name for t in spec.inputs]
        self.outputs = [t.name for t in spec.outputs]
        self.x = self.inputs[0]  # the primary input: a case's rank and shape are its
        self.y = self.outputs[0]
        self.others = self.inputs[1:]
        self.made: dict[str, dict] = {}  # case id -> tensors of the positive cases made so far (sources of recipes)
        self.ver = None  # the table row being built: each tensor's dtype follows it (tensor_dtype)

    def tdtype(self, tensor: str, dtype: str, aset: AttrSet | None = None) -> str:
        """A tensor's dtype in a case of ``dtype``: an output whose type an attribute names
        (``dtype_from``: Cast's to) has the value ``aset`` gives it, else the version's table decides."""
        chosen = self.spec.output_dtype(tensor, aset.values) if aset is not None else None
        if chosen is not None:
            return chosen
        return tensor_dtype(self.ver, tensor, dtype) if self.ver is not None else dtype

    def keeps_overflow(self, dtype: str) -> bool:
        """Whether designed cases keep inputs whose integer result overflows or has no value: the
        spec's integer_overflow says so (in_corpus), and judges them by its outcome."""
        sv = self.spec.special_values.get("integer_overflow")
        return bool(sv and sv.in_corpus)

    def gold(self, aset, std, inputs, dtype):
        """golden() of a case of ``dtype``, its output in the output tensor's own dtype (a bool
        output is computed as the integers 0 and 1)."""
        out = self.tdtype(self.y, dtype, aset)
        g = _golden(self.numeric(aset, std, dtype), inputs, "uint8" if out == "bool" else out, std.key)
        if out == "bool":
            g.y = g.y.astype(bool)
        return g

    def numeric(self, aset, std, dtype=None):
        """(the plain operator this attribute set computes, its numeric attribute values): a
        string attribute's value picks the formula here, before any numerics."""
        values = std.info.cast_attributes(aset.values, dtype) if dtype is not None else dict(aset.values)
        return self.spec.resolve(values, std.key)

    # -- one positive case
    def positive(self, std, ver, dtype, rank, label, aset, values, *, shape=None, tags=(), in_place=False,
                 strides=None, file=None):
        """``values``: the primary input's values (the other inputs are paired with values from their
        own designed pools), or a dict of every input's array, already shaped."""
        spec = self.spec
        case_id = f"{spec.id}/{std.key}-{ver.version}/{dtype}/rank{rank}/{label}{attr_suffix(aset)}"
        self.ver = ver
        if isinstance(values, dict):
            inputs = {k: np.asarray(v, dtype=dt.get(self.tdtype(k, dtype)).numpy) for k, v in values.items()}
        else:
            values = np.asarray(values, dtype=dt.get(self.tdtype(self.x, dtype)).numpy)
            shape = list(shape) if shape is not None else _fit_rank([values.size], rank)
            inputs = {self.x: values.reshape(shape)}
            for k in self.others:
                inputs[k] = self.fill(self.pool(aset, dtype, std, f"{case_id}#{k}", k), values.size,
                                      f"{case_id}#{k}").reshape(shape)
        g = None
        if self.others:
            inputs, g = self._no_overflow_paired(inputs, aset, dtype, std)
        if g is None:
            g = self.gold(aset, std, inputs, dtype)
        if g.overflow.any() and not self.keeps_overflow(dtype):
            raise AssertionError(f"{case_id}: integer overflow in designed values")
        if g.undefined is not None and g.undefined.any() and not self.keeps_overflow(dtype):
            raise AssertionError(f"{case_id}: integer results without a value (division by zero) in designed values")
        given = given_attributes(aset, std)
        tensors = {**inputs, self.y: g.y}
        self.w.add(id=case_id, op=spec.id, standard=std.key, version=ver.version, dtype=dtype, kind="positive",
                   violations=[], shapes={k: list(v.shape) for k, v in tensors.items()},
                   dtypes={k: self.tdtype(k, dtype, aset) for k in tensors},
                   strides={k: (strides or {}).get(k) for k in tensors},
                   in_place=in_place, attributes=dict(aset.values), attributes_given=given,
                   tolerance=_tolerance(spec, dtype), tags=[label.split("/")[0], aset.name, *tags],
                   tensors=tensors, file=file or f"{spec.id}/{std.key}-{ver.version}.bin")
        self.made[case_id] = tensors
        st = self.stats
        st.positive += 1
        st.elements += g.y.size
        st.proven_float64 += g.proven_float64
        st.exact += g.exact
        st.special += g.special
        return case_id

    def _no_overflow_paired(self, inputs, aset, dtype, std):
        """Integer results that overflow (unspecified by the specs) are avoided by setting the
        primary input to 0 there (several inputs: dropping an element would break the pairing);
        integer results that do not exist (a division by zero) by setting the elements of the other
        inputs that feed them to 1, keeping each input's own shape (a broadcast divisor stays small).
        Where a 0 primary input still overflows (0 - INT_MIN), the other inputs feeding it are set to 0.
        Returns (inputs, their golden values, or None where none was computed)."""
        if dt.get(dtype).is_float:
            return inputs, None
        for attempt in range(3):
            g = self.gold(aset, std, inputs, dtype)
            if g.undefined is not None and g.undefined.any():
                inputs = {k: (_set_feeding(v, g.undefined, 1) if k != self.x else v) for k, v in inputs.items()}
                g = self.gold(aset, std, inputs, dtype)
            if not g.overflow.any():
                return inputs, g
            if attempt:  # the primary input is 0 there already
                inputs = {k: (_set_feeding(v, g.overflow, 0) if k != self.x else v) for k, v in inputs.items()}
                continue
            x = np.array(np.broadcast_to(inputs[self.x], g.overflow.shape))
            if inputs[self.x].shape == x.shape:
                x[g.overflow] = 0
            else:  # a broadcast primary input (multidirectional rules) keeps its own shape
                x = _set_feeding(inputs[self.x], g.overflow, 0)
            inputs = {**inputs, self.x: x}
        return inputs, None


    def _no_overflow(self, values, aset, dtype, std):
        """Drop integer inputs whose result overflows (the spec leaves overflow unspecified), unless
        the spec keeps them (integer_overflow in_corpus)."""
        if len(values) == 0 or self.keeps_overflow(dtype):
            return values
        if dt.get(dtype).is_float and not self.spec.dtype_attributes:
            return values
        g = self.gold(aset, std, {self.x: values}, dtype)
        return values[~g.overflow]

    def design(self, aset, dtype, var=None, held_index: int = 0, std=None):
        """The breakpoint analysis of ``var`` (default: the primary input) with the other inputs
        held at one of the held values."""
        var = var or self.x
        others = {k: held_values(self.tdtype(k, dtype))[held_index] for k in self.inputs if k != var}
        # the attribute values the standard computes with (WebNN casts options to the input's dtype)
        if std is not None:
            spec, values = self.numeric(aset, std, dtype)
        else:
            spec, values = self.spec.resolve(aset.values)
        return analyse_formula(spec, {**values, **others}, var)

    def crossings(self, aset, dtype, std):
        return designed_crossings(self.spec, std, aset, dtype)

    def pool(self, aset, dtype, std, case_id, var=None) -> np.ndarray:
        var = var or self.x
        vd = self.tdtype(var, dtype)  # the input's own dtype (WebNN Where's uint8 condition)
        if vd == "bool":
            return TRUTH_VALUES
        design = self.design(aset, dtype, var, std=std)
        vals = np.concatenate([breakpoint_values(design, vd), specials(vd),
                               region_values(design, vd, PER_REGION, Stream(case_id))])
        vals = _unique(vals, vd)
        return self._no_overflow(vals, aset, dtype, std) if not self.others else vals

    def fill(self, pool: np.ndarray, count: int, case_id: str) -> np.ndarray:
        if count <= len(pool):
            idx = np.sort(Stream(case_id + "#pick").below(len(pool), count)) if count < len(pool) else np.arange(count)
            return pool[idx] if count < len(pool) else pool
        extra = pool[Stream(case_id + "#fill").below(len(pool), count - len(pool))]
        return np.concatenate([pool, extra])

    # -- all cases of one table row and dtype
    def row(self, std, ver, dtype):
        spec = self.spec
        self.ver = ver
        ranks = ver.ranks(self.x)
        r0 = content_rank(ranks)
        prefix = f"{spec.id}/{std.key}-{ver.version}/{dtype}"
        sets = attribute_sets(spec, std.key, ver.version, dtype)
        for aset in (sets if designs_row(spec, std, ver, dtype) else []):
            if self.others:
                self.multi_input_contents(std, ver, dtype, r0, aset)
                continue
            design = self.design(aset, dtype, std=std)
            self.note_unsolved(design)
            bp = [breakpoint_values(design, dtype), specials(dtype)]
            target = self.spec.output_dtype(self.y, aset.values)
            if target is not None and target != dtype:  # an output type an attribute names (Cast's to)
                bp.append(conversion_values(dtype, target))
            bp = _unique(np.concatenate(bp), dtype)
            self.positive(std, ver, dtype, r0, "breakpoints", aset, self._no_overflow(bp, aset, dtype, std))
            rid = f"{prefix}/rank{r0}/regions{attr_suffix(aset)}"
            reg = _unique(region_values(design, dtype, PER_REGION, Stream(rid)), dtype)
            self.positive(std, ver, dtype, r0, "regions", aset, self._no_overflow(reg, aset, dtype, std))
            found = self.crossings(aset, dtype, std)
            if found:
                tid = f"{prefix}/rank{r0}/thresholds{attr_suffix(aset)}"
                self.positive(std, ver, dtype, r0, "thresholds", aset,
                              _unique(threshold_values(found, dtype, Stream(tid)), dtype))
        first = sets[0]
        # a version whose table repeats its predecessor's (ONNX Identity 14..25 change only in types
        # specgen cannot describe) keeps its designed cases but not the rank sweep, which would be
        # the predecessor's sweep again under another case id
        # a version whose table repeats its predecessor's for this dtype, or another dtype of its
        # widths (addressing_per_width), has no sweep of its own (sweeps_row)
        repeats = not sweeps_row(spec, std, ver, dtype, self.inputs)
        for rank in ([] if repeats else rules.tested_ranks(ranks)):
            shape = RANK_SHAPES[rank]
            cid = f"{prefix}/rank{rank}/sweep{attr_suffix(first)}"
            values = self.fill(self.pool(first, dtype, std, cid), int(np.prod(shape, dtype=np.int64)), cid)
            self.positive(std, ver, dtype, rank, "sweep", first, values, shape=shape, tags=("rank-sweep",))
        shape = _fit_rank([2, 3, 5, 7], r0)
        count = int(np.prod(shape))
        # addressing cases: where the row's designed cases are, for one dtype per combination of
        # element widths (addresses_row); a later cumulative version with a larger rank keeps its
        # largest-rank layout (new_max_rank_row)
        addressing = addresses_row(spec, std, ver, dtype, self.inputs)
        if std.in_place and addressing:
            self.in_place_cases(std, ver, dtype, r0, sets)
        if rules.layout(std.info)["strides"] and addressing:
            cid = f"{prefix}/rank{r0}/strided{attr_suffix(first)}"
            values = self.fill(self.pool(first, dtype, std, cid), count, cid)
            self.positive(std, ver, dtype, r0, "strided", first, values, shape=shape,
                          strides={**{k: padded_strides(shape) for k in self.inputs},
                                   **{k: interleaved_strides(shape) for k in self.outputs}})
        if rules.layout(std.info)["strides"] and (addressing or new_max_rank_row(spec, std, ver, dtype, self.inputs)):
            self.layout_cases(std, ver, dtype, r0, first, max_rank_only=not addressing)
        if self.others and not (spec.broadcast_once and same_table_as_previous(std, ver, dtype, True)):
            # a cumulative standard's broadcast rules are part of a row's meaning: its forms where the
            # designed cases are; zero-stride forms are addressing (addresses_row)
            if designs_row(spec, std, ver, dtype):
                self.broadcast_cases(std, ver, dtype, r0, first, stride_forms=addressing)

    def note_unsolved(self, design):
        for u in design.unsolved:
            if u not in self.stats.unsolved:
                self.stats.unsolved.append(u)

    # -- several inputs
    def multi_input_contents(self, std, ver, dtype, r0, aset):
        """Per input: its breakpoints and specials with the other inputs held at each held value;
        then every input's regions, paired."""
        prefix = f"{self.spec.id}/{std.key}-{ver.version}/{dtype}"
        for var in self.inputs:
            blocks = {k: [] for k in self.inputs}
            for h in range(len(HELD_FLOAT)):
                vd = self.tdtype(var, dtype)
                if vd == "bool":
                    bp = TRUTH_VALUES
                else:
                    design = self.design(aset, dtype, var, h, std=std)
                    self.note_unsolved(design)
                    bp = _unique(np.concatenate([breakpoint_values(design, vd), specials(vd)]), vd)
                for k in self.inputs:
                    kd = self.tdtype(k, dtype)
                    blocks[k].append(bp if k == var else np.full(bp.shape, held_values(kd)[h], dtype=dt.get(kd).numpy))
            values = {k: np.concatenate(v) for k, v in blocks.items()}
            shape = _fit_rank([values[self.x].size], r0)
            self.positive(std, ver, dtype, r0, f"breakpoints-{var}", aset,
                          {k: v.reshape(shape) for k, v in values.items()}, tags=("breakpoints",))
        if self.spec.special_pairs:  # every special value of the primary input against every one of each other
            def sp_of(t):
                d = self.tdtype(t, dtype)
                return TRUTH_VALUES if d == "bool" else specials(d)
            sp = sp_of(self.x)
            for k in self.others:
                sk = sp_of(k)
                held = {o: held_values(self.tdtype(o, dtype))[0] for o in self.others if o != k}
                shape = _fit_rank([sp.size * sk.size], r0)
                pairs = {self.x: np.repeat(sp, sk.size), k: np.tile(sk, sp.size),
                         **{o: np.full(sp.size * sk.size, v, dtype=dt.get(self.tdtype(o, dtype)).numpy)
                            for o, v in held.items()}}
                self.positive(std, ver, dtype, r0, f"specials-{k}", aset,
                              {t: v.reshape(shape) for t, v in pairs.items()}, tags=("specials",))
        rid = f"{prefix}/rank{r0}/regions{attr_suffix(aset)}"
        pools = {k: TRUTH_VALUES if self.tdtype(k, dtype) == "bool" else
                 _unique(region_values(self.design(aset, dtype, k, std=std), self.tdtype(k, dtype), PER_REGION,
                                       Stream(f"{rid}#{k}")), self.tdtype(k, dtype))
                 for k in self.inputs}
        count = max(len(p) for p in pools.values())
        shape = _fit_rank([count], r0)
        self.positive(std, ver, dtype, r0, "regions", aset,
                      {k: self.fill(p, count, f"{rid}#{k}").reshape(shape) for k, p in pools.items()})

    def broadcast_cases(self, std, ver, dtype, r0, aset, stride_forms: bool = True):
        """One case per broadcast form the version allows for each input that may broadcast: from
        its broadcast rules (numpy shapes) and, where the standard broadcasts by zero strides
        (DirectML), zero-stride layouts of the full shape."""
        if r0 == 0:
            return
        shape = _fit_rank([2, 3, 5, 7], r0)
        prefix = f"{self.spec.id}/{std.key}-{ver.version}/{dtype}/rank{r0}"
        forms: list[tuple[str, str, list[int], list[int] | None]] = []  # (input, form, sizes, strides)
        for rule in ver.broadcast:
            for t in rule.tensors:
                for form, sizes in broadcast_forms(rule.kind, shape):
                    forms.append((t, form, sizes, None))
        if std.info.zero_strides and std.info.strides and stride_forms:
            for t in self.others:
                if t in {x for r in ver.broadcast for x in r.tensors}:
                    continue
                for form, sizes in broadcast_forms("unidirectional", shape):
                    if form in ("full", "one"):
                        continue
                    compact = [1] * (len(shape) - len(sizes)) + sizes
                    forms.append((t, f"strides-{form}", shape, zero_strides(shape, compact)))
        for t, form, sizes, strides in forms:
            cid = f"{prefix}/broadcast-{t}-{form}{attr_suffix(aset)}"
            count = int(np.prod(shape))
            inputs = {}
            for k in self.inputs:
                pool = self.pool(aset, dtype, std, f"{cid}#{k}", k)
                if k != t:
                    inputs[k] = self.fill(pool, count, f"{cid}#{k}").reshape(shape)
                    continue
                compact = sizes if strides is None else [1 if s == 0 else n for n, s in zip(shape, strides)]
                small = self.fill(pool, int(np.prod(compact, dtype=np.int64)), f"{cid}#{k}").reshape(compact)
                inputs[k] = small if strides is None else np.ascontiguousarray(np.broadcast_to(small, shape))
            if strides is not None:
                inputs[t] = self._zero_stride_safe(inputs, t, small, shape, aset, dtype, std)
            self.positive(std, ver, dtype, r0, f"broadcast-{t}-{form}", aset, inputs,
                          strides={t: strides} if strides else None, tags=("broadcast",))
        for rule in ver.broadcast:  # numpy rules both ways: each input smaller than the output somewhere
            others = [t for t in rule.tensors if t != rule.to]
            if rule.kind != "multidirectional" or rule.to not in rule.tensors or not others or len(shape) < 2:
                continue
            sizes = {rule.to: [shape[0], 1] + shape[2:], others[0]: [shape[1]] + [1] * (len(shape) - 2)}
            cid = f"{prefix}/broadcast-two-way{attr_suffix(aset)}"
            inputs = {}
            for k in self.inputs:
                pool = self.pool(aset, dtype, std, f"{cid}#{k}", k)
                s_ = sizes.get(k, shape)
                inputs[k] = self.fill(pool, int(np.prod(s_, dtype=np.int64)), f"{cid}#{k}").reshape(s_)
            self.positive(std, ver, dtype, r0, "broadcast-two-way", aset, inputs, tags=("broadcast",))

    def _zero_stride_safe(self, inputs, t, small, shape, aset, dtype, std):
        """Input ``t`` read with zero strides (stored expanded, one value per broadcast row): integer
        results that overflow or have no value (unspecified; the corpus avoids them) are avoided at the
        compact tensor, one value per row (0, then 1 where that leaves a result without a value), so
        the expanded tensor stays constant along its zero-stride dimensions; positive() would change
        single elements, which a kernel reading with zero strides never sees."""
        full = np.ascontiguousarray(np.broadcast_to(small, shape))
        if dt.get(dtype).is_float or self.keeps_overflow(dtype):
            return full
        axes = tuple(i for i, (n_, c) in enumerate(zip(shape, small.shape)) if c == 1 and n_ != 1)
        for _ in range(3):
            g = self.gold(aset, std, {**inputs, t: full}, dtype)
            undefined = g.undefined if g.undefined is not None else np.zeros(g.overflow.shape, dtype=bool)
            if not (g.overflow.any() or undefined.any()):
                break
            over = np.any(g.overflow.reshape(shape), axis=axes, keepdims=True)
            undef = np.any(undefined.reshape(shape), axis=axes, keepdims=True)
            small = np.where(undef, np.ones_like(small), np.where(over, np.zeros_like(small), small))
            full = np.ascontiguousarray(np.broadcast_to(small, shape))
        return full

    # -- aliasing (issue 14): every attribute set that can make the output differ from the input
    def in_place_cases(self, std, ver, dtype, r0, sets):
        """In-place cases of one row: the defaults and a non-default set (the first under which
        most drawn inputs change, else the one with the most changing inputs), each filled only with inputs whose output differs from the input (bit for
        bit, NaN counting as equal to NaN) at every position, preferring those whose output also
        changes when applied again, so that a kernel that skips an element or reads one it has
        already overwritten (first, last, at any vector chunk boundary) gives a wrong element."""
        shape = _fit_rank(IN_PLACE_DIMS, r0)
        count = int(np.prod(shape, dtype=np.int64))
        prefix = f"{self.spec.id}/{std.key}-{ver.version}/{dtype}/rank{r0}"
        found = []
        for aset in sets:
            if not aset.default and any(not f[0].default and f[3] for f in found):
                break  # a non-default set under which most inputs change is found
            cid = f"{prefix}/in-place{attr_suffix(aset)}"
            got = self._changing_inputs(aset, dtype, std, cid)
            if got is not None:
                inputs, drawn = got
                found.append((aset, inputs, cid, 2 * len(inputs[self.x]) >= drawn))
        others = [f for f in found if not f[0].default]
        chosen = [f[:3] for f in found if f[0].default]
        if others:  # the first under which most inputs change, else the first of those with the most changing
            chosen.append(next((f[:3] for f in others if f[3]), None) or max(others, key=lambda f: len(f[1][self.x]))[:3])
        if not chosen:  # f(x) == x for every input (Identity): still a case, since a kernel that clears
            aset = sets[0]  # or pre-fills its output before reading the input fails it in place
            cid = f"{prefix}/in-place{attr_suffix(aset)}"
            chosen = [(aset, {k: self.pool(aset, dtype, std, f"{cid}#{k}", k) for k in self.inputs}, cid)]
        for aset, inputs, cid in chosen:
            idx = self.fill(np.arange(len(inputs[self.x])), count, cid)
            values = {k: v[idx].reshape(shape) for k, v in inputs.items()}
            self.positive(std, ver, dtype, r0, "in-place", aset, values, in_place=True)

    def _changing_inputs(self, aset, dtype, std, cid) -> tuple[dict, int] | None:
        """The designed inputs (paired, for several inputs) under which f(x) != x, and f(f(x)) !=
        f(x) where at least IN_PLACE_MIN of them allow it, with how many were drawn; None when
        fewer than IN_PLACE_MIN change."""
        pools = {k: self.pool(aset, dtype, std, f"{cid}#{k}", k) for k in self.inputs}
        # several inputs: pairs drawn beyond the pools' sizes, since most random integer pairs overflow
        n = max(len(p) for p in pools.values()) * (IN_PLACE_DRAWS if self.others else 1)
        inputs = {k: self.fill(p, n, f"{cid}#{k}") for k, p in pools.items()}
        if self.others:
            inputs, _ = self._no_overflow_paired(inputs, aset, dtype, std)
        attrs = std.info.cast_attributes(aset.values, dtype)
        y = golden(self.spec, inputs, attrs, dtype, std.key)
        keep = _differs(y.y, inputs[self.x], dtype) & ~y.overflow
        again = golden(self.spec, {**inputs, self.x: np.where(keep, y.y, inputs[self.x])}, attrs, dtype, std.key)
        twice = keep & _differs(again.y, y.y, dtype) & ~again.overflow
        keep = twice if twice.sum() >= IN_PLACE_MIN else keep
        if keep.sum() < IN_PLACE_MIN:
            return None
        return {k: v[keep] for k, v in inputs.items()}, n

    # -- layouts whose memory order differs from the logical order (issue 14)
    def layout_cases(self, std, ver, dtype, r0, aset, max_rank_only: bool = False):
        """Where the standard has strides: the primary input in column-major order and the output
        in another order (``layout-permuted``), every dimension padded (``layout-padded``), a zero
        stride on the primary input where the standard broadcasts by zero strides
        (``layout-broadcast-stride``), and the largest tested rank with permuted, padded strides on
        every tensor (``layout-max-rank``). The other inputs take the primary input's layout.
        Each layout is checked against the generated validation rules (a legal call)."""
        if r0 < 2:
            return
        ranks = ver.ranks(self.x)
        shape = _fit_rank([2, 3, 5, 7], r0)
        r_max = max(rules.tested_ranks(ranks))
        big = [2] * (r_max - 1) + [3]
        forms = [("layout-permuted", shape, permuted_strides(shape, column_major(r0)),
                  permuted_strides(shape, rotated(r0))),
                 ("layout-padded", shape, permuted_strides(shape, list(range(r0)), 1),
                  permuted_strides(shape, list(range(r0)), 2)),
                 ("layout-max-rank", big, permuted_strides(big, column_major(r_max), 1),
                  permuted_strides(big, rotated(r_max), 2))]
        for label, sh, xs, ys in forms:
            if max_rank_only and label != "layout-max-rank":
                continue
            self._layout_case(std, ver, dtype, label, aset, sh, {**{k: xs for k in self.inputs},
                                                                   **{k: ys for k in self.outputs}})
        if std.info.zero_strides and not max_rank_only:
            compact = [1 if i % 2 == 0 else n_ for i, n_ in enumerate(shape)]
            self._layout_case(std, ver, dtype, "layout-broadcast-stride", aset, shape,
                              {self.x: zero_strides(shape, compact)}, compact=compact)

    def _layout_case(self, std, ver, dtype, label, aset, shape, strides, compact=None):
        cid = f"{self.spec.id}/{std.key}-{ver.version}/{dtype}/rank{len(shape)}/{label}{attr_suffix(aset)}"
        count = int(np.prod(shape, dtype=np.int64))
        inputs = {}
        for k in self.inputs:
            pool = self.pool(aset, dtype, std, f"{cid}#{k}", k)
            if k == self.x and compact is not None:
                small = self.fill(pool, int(np.prod(compact, dtype=np.int64)), f"{cid}#{k}").reshape(compact)
            else:
                inputs[k] = self.fill(pool, count, f"{cid}#{k}").reshape(shape)
        if compact is not None:
            # integer overflow (unspecified) is avoided at the compact tensor: one value serves a whole row
            attrs = std.info.cast_attributes(aset.values, dtype)
            for _ in range(3):
                inputs[self.x] = np.ascontiguousarray(np.broadcast_to(small, shape))
                over = golden(self.spec, inputs, attrs, dtype, std.key).overflow
                if not over.any():
                    break
                axes = tuple(i for i, n_ in enumerate(compact) if n_ == 1 and shape[i] != 1)
                small = np.where(np.any(over, axis=axes, keepdims=True), np.zeros_like(small), small)
        tensors = {k: {"dtype": self.tdtype(k, dtype), "sizes": list(shape), "strides": strides.get(k)}
                   for k in self.inputs + self.outputs}
        given = {k: aset.values[k] for k in given_attributes(aset, std)}
        problems = self.validate(std.key, ver.version, tensors, given) if self.validate else []
        if problems:
            raise AssertionError(f"{cid}: the generated rules reject this layout: {'; '.join(problems)}")
        self.positive(std, ver, dtype, len(shape), label, aset, inputs, strides=strides, tags=("layout",))

    # -- size boundaries as generated-on-the-fly cases (issue 14)
    def size_cases(self, std):
        """Per dtype of the standard (at size_case_version: the latest with its own rank sweep): recipes that gather the
        elements of the row's largest sweep case into tensors of 128 + t elements (``size-tail``;
        SIZE_TAILS for the standard's main dtype, float32 where listed, SIZE_TAILS_OTHER for the
        others) and, for the main dtype, of 2**16 + 1 elements (``size-index16``, tagged
        ``size-2^16``: an element index or count that wraps at 16 bits). Ids ``<label>-<count>``. See specgen.vectors.recipe: no data is stored, the
        manifest holds the seed and the sha256. The test-time budget decides the split (a
        65,537-element case takes ~0.5 s to judge, and each standard's runs go through all)."""
        from specgen.vectors import recipe

        dtypes = list(dict.fromkeys(d for v in std.versions for d in case_dtypes(v, self.inputs)))
        main = "float32" if "float32" in dtypes else dtypes[0]
        for dtype in dtypes:
            first = attribute_sets(self.spec, std.key, dtype=dtype)[0]  # the sweep cases' (the sources') attributes
            ver = size_case_version(std, dtype, self.x, sweeps_once(self.spec, std), self.inputs)
            if ver is None:
                continue
            prefix = f"{self.spec.id}/{std.key}-{ver.version}/{dtype}/"
            sources = [(cid, t) for cid, t in self.made.items() if cid.startswith(prefix) and "/sweep" in cid
                       and len({v.shape for v in t.values()}) == 1]
            if not sources:
                continue
            source_id, tensors = max(sources, key=lambda s: (s[1][self.x].size, s[0]))
            rank = tensors[self.x].ndim
            families = [("size-tail", "size-tail", SIZE_TAILS if dtype == main else SIZE_TAILS_OTHER)]
            if dtype == main:
                families.append(("size-index16", "size-2^16", SIZE_2_16))
            for label, family, counts in families:
                fid = f"{prefix}rank{rank}/{label}"
                seed, digest, nbytes = recipe.choose_seed(fid, tensors, counts,
                                                          {n: dt.by_numpy(v.dtype).name for n, v in tensors.items()}, self.y)
                self.w.add_recipe(id=fid, source=source_id, seed=seed, counts=list(counts), rank=rank,
                                  sha256=digest, nbytes=nbytes, tags=["size-boundary", family, first.name])
                self.stats.positive += len(counts)

    def large(self, std, ver, dtype):
        self.ver = ver
        ranks = ver.ranks(self.x)
        rank = 2 if ranks.allows(2) else content_rank(ranks)
        shape = _fit_rank(LARGE_DIMS, rank)
        first = attribute_sets(self.spec, std.key, ver.version, dtype)[0]
        cid = f"{self.spec.id}/{std.key}-{ver.version}/{dtype}/rank{rank}/large{attr_suffix(first)}"
        values = self.fill(self.pool(first, dtype, std, cid), int(np.prod(shape)), cid)
        self.positive(std, ver, dtype, rank, "large", first, values, shape=shape, tags=("large",))

    # -- each attribute at its own boundary values (issue 14)
    def attribute_boundaries(self, std, ver, dtype):
        """One case per attribute boundary set (attribute_boundary_sets): that set's breakpoints with
        their neighbours, the specials and a few samples of every region, at the content rank. Left
        out where the cast makes a finite value infinite (WebNN casts options to a float16 tensor's
        type: 3.4e38 becomes inf; an absent bound's infinity stays) or where every designed integer result
        overflows (integer_overflow is the spec's question, not a boundary of the attribute). A
        set whose golden values cannot be decided (an enclosure beyond float64's exponent range) is
        left out and listed in ``Stats.left_out``, which ``specgen generate`` prints. Only
        the standard's latest version: an attribute's range does not change between versions, and
        every version's cases would cost generate time for the same kernel paths."""
        if self.others or ver is not std.versions[-1]:
            return
        self.ver = ver
        r0 = content_rank(ver.ranks(self.x))
        prefix = f"{self.spec.id}/{std.key}-{ver.version}/{dtype}"
        seen = set()
        row = (ver.version, dtype) if ver.as_inputs or ver.absent_defaults else (None, None)
        for aset in attribute_boundary_sets(self.spec, std.key, *row, tensor_dtype=dtype):
            if ver.as_inputs:  # given as tensors of the input's type: the values it holds (attribute_sets)
                aset = AttrSet(aset.name, ver.as_input_values(aset.values, dtype), aset.default)
                key = tuple(sorted(aset.values.items()))
                if key in seen or crossed(self.spec, aset.values):
                    continue
                seen.add(key)
            cast = std.info.cast_attributes(aset.values, dtype)
            if any(not np.isfinite(v) and np.isfinite(aset.values[k]) for k, v in cast.items() if not isinstance(v, str)):
                continue  # the cast made a finite value infinite (an infinity given as such stays)
            cid = f"{prefix}/rank{r0}/attribute-boundary{attr_suffix(aset)}"
            design = self.design(aset, dtype, std=std)
            self.note_unsolved(design)
            values = _unique(np.concatenate([breakpoint_values(design, dtype), specials(dtype),
                                             region_values(design, dtype, BOUNDARY_PER_REGION, Stream(cid))]), dtype)
            try:
                values = self._no_overflow(values, aset, dtype, std)
                if len(values) == 0:
                    continue
                self.positive(std, ver, dtype, r0, "attribute-boundary", aset, values)
            except SpecError as exc:  # a limit of the golden machinery at these extremes: said, not hidden
                self.stats.left_out.append(f"{cid}: {exc.problems[0].message}")

    # -- negative cases of one table row
    def negatives(self, std, ver):
        for probe in negative_probes(self.spec, std, ver, self.inputs, self.outputs):
            violations = self.validate(std.key, ver.version, probe.tensors, probe.attributes)
            if not violations:
                raise AssertionError(f"{self.spec.id} {std.key} {ver.version}: probe {probe.name} is not rejected by the rules")
            xd = probe.tensors[self.x]
            dtype, sizes = xd["dtype"], xd["sizes"]
            case_id = f"{self.spec.id}/{std.key}-{ver.version}/{dtype}/rank{len(sizes)}/reject-{probe.name}"
            stored = {}
            for k in self.inputs:
                kd = probe.tensors[k]
                count = int(np.prod(kd["sizes"], dtype=np.int64)) if kd["sizes"] else 1
                stored[k] = negative_inputs(kd["dtype"], count, case_id if k == self.x else f"{case_id}#{k}").reshape(kd["sizes"])
            self.w.add(id=case_id, op=self.spec.id, standard=std.key, version=ver.version, dtype=dtype, kind="negative",
                       violations=violations, shapes={t: d["sizes"] for t, d in probe.tensors.items()},
                       dtypes={t: d["dtype"] for t, d in probe.tensors.items()},
                       strides={t: d.get("strides") for t, d in probe.tensors.items()}, in_place=False,
                       attributes=probe.attributes, attributes_given=list(probe.attributes),
                       tolerance=_tolerance(self.spec, dtype), tags=["negative", probe.rule, *probe.tags],
                       tensors=stored, file=f"{self.spec.id}/{std.key}-{ver.version}.bin")
            self.stats.negative += 1


def _set_feeding(values: np.ndarray, mask: np.ndarray, value) -> np.ndarray:
    """``values`` (broadcast against ``mask``'s shape) with every element that feeds a masked output
    element set to ``value``; the array keeps its own shape."""
    values = np.asarray(values)
    lead = mask.ndim - values.ndim
    feeds = mask.any(axis=tuple(range(lead))) if lead else mask
    axes = tuple(i for i, n in enumerate(values.shape) if n == 1 and feeds.shape[i] != 1)
    if axes:
        feeds = feeds.any(axis=axes, keepdims=True)
    out = values.copy()
    out[np.broadcast_to(feeds, values.shape)] = value
    return out


def padded_strides(shape: list[int]) -> list[int]:
    """Row-major strides with the innermost rows padded by one element."""
    strides, acc = [], 1
    for i, n_ in enumerate(reversed(shape)):
        strides.append(acc)
        acc *= n_ + (1 if i == 0 else 0)
    return list(reversed(strides))


def broadcast_forms(kind: str, shape: list[int]) -> list[tuple[str, list[int]]]:
    """(form name, sizes) of an input that broadcasts against ``shape`` by ``kind``: a scalar, one
    element, one value per channel (dimension 1 of an N, C, ... layout), a lower-rank tensor (the
    last dimension) and the full shape."""
    rank = len(shape)
    if kind == "single_element":
        return [("one", [1] * rank), ("scalar", [])]
    forms = [("scalar", []), ("one", [1])]
    if rank >= 2:
        forms.append(("channel", [shape[1]] + [1] * (rank - 2)))
    if rank >= 2:
        forms.append(("lower-rank", [shape[-1]]))
    return forms


def zero_strides(shape: list[int], compact: list[int]) -> list[int]:
    """Element strides of a dense ``compact`` tensor read as ``shape``: 0 where it broadcasts."""
    dense = [1] * len(compact)
    for i in range(len(compact) - 2, -1, -1):
        dense[i] = dense[i + 1] * compact[i + 1]
    return [0 if c == 1 and n != 1 else s for n, c, s in zip(shape, compact, dense)]


def permuted_strides(shape: list[int], order: list[int], pad: int = 0) -> list[int]:
    """Element strides laying ``shape`` out with its dimensions in memory ``order`` (outermost
    first), each dimension's extent padded by ``pad`` elements."""
    strides = [0] * len(shape)
    acc = 1
    for d in reversed(order):
        strides[d] = acc
        acc *= shape[d] + pad
    return strides


def column_major(rank: int) -> list[int]:
    """The memory order with the first dimension innermost."""
    return list(reversed(range(rank)))


def rotated(rank: int) -> list[int]:
    """The last dimension outermost, then the others in order (row-major for rank < 3, where
    column-major is the only other order)."""
    return [rank - 1] + list(range(rank - 1)) if rank >= 3 else list(range(rank))


def _differs(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    """Elementwise: a and b are different values (bits; any NaN equals any NaN)."""
    d = dt.get(dtype)
    a, b = np.asarray(a, dtype=d.numpy), np.asarray(b, dtype=d.numpy)
    bits = a.view(d.uint_view) != b.view(d.uint_view)
    if d.is_float:
        nan_a, nan_b = np.isnan(a.astype(np.float64)), np.isnan(b.astype(np.float64))
        bits = np.where(nan_a | nan_b, nan_a != nan_b, bits)
    return bits


def interleaved_strides(shape: list[int]) -> list[int]:
    """Row-major strides with every element two apart."""
    strides, acc = [], 2
    for n_ in reversed(shape):
        strides.append(acc)
        acc *= n_
    return list(reversed(strides))


def negative_inputs(dtype: str, count: int, case_id: str) -> np.ndarray:
    d = dt.get(dtype)
    s = Stream(case_id)
    if d.is_float:
        return (s.unit(count) * 8 - 4).astype(d.numpy)
    return (s.below(100, count) - (50 if d.kind == "int" else 0)).astype(d.numpy)


@dataclass
class Probe:
    name: str
    rule: str
    tensors: dict
    attributes: dict
    tags: tuple = ()  # case classes besides "negative" and the rule (specgen coverage reads tags)


def probe_attribute_name(spec) -> str:
    """A name no standard gives this operator (nor any of its versions' extra attributes)."""
    used = set(spec.attribute_names)
    for std in spec.standards.values():
        used |= {b.name for b in std.attributes.values() if b.name}
        used |= {e.name for v in std.versions for e in v.extra_attributes}
    return next(n for n in PROBE_ATTRIBUTE_NAMES if n not in used)


def probe_value(binding) -> str:
    """A value of a string attribute that neither the operator nor the standard spells."""
    taken = set(binding.values) | set(binding.values.values())
    return next(v for v in ("unknown", "unknown_value", "unknown_value_2") if v not in taken)


def negative_probes(spec, std, ver, inputs: list[str], outputs: list[str]) -> list[Probe]:
    """One call per rule of the table row that breaks exactly that rule (as far as possible)."""
    std = std.at(ver.version)  # the version's own spelling of string attributes (ONNX Cast-1's to)
    x, y = inputs[0], outputs[0]
    ranks = ver.ranks(x)
    r0 = content_rank(ranks)
    dtype = case_dtypes(ver, inputs)[0]  # a dtype every tensor can have (oneDNN Select: not the condition's bool)
    base = _fit_rank([5], r0) if r0 else []
    sets = attribute_sets(spec, std.key, ver.version, dtype)
    fixed = std.fixed()  # attributes the standard does not have are never passed
    attrs = {k: v for k, v in sets[0].values.items() if k not in fixed}
    names = inputs + outputs

    def call(xd=None, xs=base, yd=None, ys=base, xst=None, yst=None, **other):
        """Every tensor dense with the base dtype and sizes; x and y (the first input and output)
        and any other tensor (``<name>=(dtype, sizes)``) as given. A tensor whose dtype is not
        given has x's where its table lists it, else the one its table lists (tensor_dtype)."""
        out = {}
        given = xd if xd is not None else dtype
        for t in names:
            d, s_, st = (xd, xs, xst) if t == x else (yd, ys, yst) if t == y else (None, base, None)
            if t in other:
                d, s_ = other[t]
            elif d is None:
                d = tensor_dtype(ver, t, given)  # an unlisted dtype applies to every input
            out[t] = {"dtype": d, "sizes": list(s_), "strides": st}
        return out

    def labelled(t: str, what: str) -> str:
        return f"output-{what}" if t == y else f"{t}-{what}"

    out = []
    # bool and the float8 types count as unlisted only for an operator that lists them somewhere: the tables
    # written before specgen had those dtypes leave them out without saying the standard rejects them (ONNX
    # Identity takes bool, and float8 from opset 19)
    unlisted = [d for d in std.info.dtype_names if d not in ver.dtypes(x)
                and (d not in LATE_DTYPES or d in spec.all_dtypes())]
    if unlisted:
        out.append(Probe(f"dtype-{unlisted[0]}", "dtype", call(unlisted[0], base), attrs))
    if not ranks.unspecified and ranks.max is not None:
        r = ranks.max + 1
        big = [1] * (r - 1) + [5]
        out.append(Probe(f"rank-{r}", "rank", call(xs=big, ys=big, **_same_as_x(ver, std, x, names, big)), attrs))
    if not ranks.unspecified and (ranks.min or 0) > 0:
        r = ranks.min - 1
        s = [1] * max(r - 1, 0) + [5] if r else []
        out.append(Probe(f"rank-{r}", "rank", call(xs=s, ys=s, **_same_as_x(ver, std, x, names, s)), attrs))
    for t in names[1:]:
        same = {p for c in std.constraints for p in c.same if x in c.tensors and t in c.tensors}
        ref = x
        if "data_type" not in same:  # a constraint without x (Where: x, y and the output, not the condition)
            c2 = next((c for c in std.constraints if "data_type" in c.same and t in c.tensors and c.tensors[0] != t), None)
            if c2 is not None:
                same, ref = same | {"data_type"}, c2.tensors[0]
        if "data_type" in same:
            other = [d for d in ver.dtypes(ref) if d != tensor_dtype(ver, ref, dtype)] or unlisted
            if other:
                out.append(Probe(labelled(t, "dtype"), "data_type", _with(call, t, y, yd=other[0]), attrs))
        elif len(ver.dtypes(t)) == 1:  # a tensor of one type of its own (a comparison's bool output)
            other = [d for d in ver.dtypes(x) if d != ver.dtypes(t)[0]]
            if other:
                out.append(Probe(labelled(t, "dtype"), "dtype", _with(call, t, y, yd=other[0]), attrs))
        if "dimension_count" in same and base:
            # another rank the table allows if there is one (else the output also breaks the rank rule)
            alt = [r for r in rules.tested_ranks(ranks) if r != len(base) and r >= 1] or [len(base) - 1]
            out.append(Probe(labelled(t, "rank"), "dimension_count", _with(call, t, y, ys=_fit_rank([5], alt[0])), attrs))
        if "sizes" in same and base:
            out.append(Probe(labelled(t, "sizes"), "sizes", _with(call, t, y, ys=base[:-1] + [base[-1] + 1]), attrs))
    for rule in ver.broadcast:
        if base:
            for t in rule.tensors:
                # sizes that broadcast under no reading: the last dimension one longer
                out.append(Probe(f"{t}-broadcast", "broadcast", call(**{t: (tensor_dtype(ver, t, dtype), [base[-1] + 1])}),
                                 attrs))
            if rule.kind == "multidirectional":
                # the output is the broadcast shape; here the inputs' shape, so one longer is wrong
                out.append(Probe("output-broadcast-shape", "broadcast", call(ys=base[:-1] + [base[-1] + 1]), attrs))
    for a, b in std.attributes.items():
        if b.must_be_given(std.attribute_defaults):
            out.append(Probe(f"missing-{a}", "required-attribute", call(), {k: v for k, v in attrs.items() if k != a}))
    for a, b in std.attributes.items():
        if b.values and not b.operators:  # a string attribute: a value outside the standard's list is illegal
            out.append(Probe(f"{a}-value", "attribute-value", call(), {**attrs, a: probe_value(b)}))
    for a, b in std.attributes.items():
        for is_float in (True, False):  # a value one kind of tensor type does not accept (ONNX Mod: fmod = 0 with floats)
            kind = [d for d in ver.dtypes(x) if dt.get(d).is_float == is_float]
            refused = [v for v in (b.values or ()) if not b.accepts_for(v, is_float)] if b.kind_values else []
            if kind and refused:
                out.append(Probe(f"{a}-{refused[0]}-{kind[0]}".replace("_", "-"), "attribute-value",
                                 call(kind[0], base, kind[0], base), {**attrs, a: refused[0]}))
    here = {e.name for e in ver.extra_attributes}
    for other_ver in std.versions:
        for e in other_ver.extra_attributes:
            if e.name not in here:
                value = [] if e.type in ("ints", "floats") else 0
                out.append(Probe(f"attribute-{e.name}", "version-attribute", call(), {**attrs, e.name: value}))
                here.add(e.name)
    if std.info.unknown_attributes == "rejected":  # WebNN: WebIDL dictionaries ignore unknown members
        unknown = probe_attribute_name(spec)
        out.append(Probe(f"attribute-{unknown}", "unknown-attribute", call(), {**attrs, unknown: 1.0}))
    out.extend(nonfinite_attribute_probes(spec, std, call, attrs))
    out.extend(crossed_probes(spec, std, call, attrs, dtype))
    layout = rules.layout(std.info)
    if base and not layout["zero_sizes"]:
        z = base[:-1] + [0]
        out.append(Probe("zero-size", "zero-size", call(xs=z, ys=z, **_same_as_x(ver, std, x, names, z)), attrs))
    if base:
        dense = padded_strides(base)
        if layout["strides"]:
            # DirectML's Strides are UINT, oneDNN's rules (as the specs hold them) non-negative: a
            # reversed layout is a must-reject case wherever strides exist
            out.append(Probe("strides-negative", "strides", call(xst=[-s for s in dense]), attrs,
                             ("layout", "layout-reversed")))
            overlap = [0] * (len(base) - 1) + [0]
            out.append(Probe("strides-overlap", "strides", call(yst=overlap), attrs))
            out.append(Probe("strides-short", "strides", call(xst=dense[1:] if len(dense) > 1 else []), attrs))
        else:
            out.append(Probe("strides-given", "strides", call(xst=interleaved_strides(base)), attrs))
    return out


NONFINITE_ATTRIBUTE_VALUES = (("nan", float("nan")), ("inf", float("inf")), ("neg-inf", float("-inf")))


def nonfinite_attribute_probes(spec, std, call, attrs: dict) -> list[Probe]:
    """Where the standard rejects NaN and infinite attribute values (``nonfinite_attributes:
    rejected``; WebNN's options are WebIDL ``double``): each attribute a call can set at NaN, +inf and
    -inf, the others as in the row's other probes."""
    fixed = std.fixed()
    return [Probe(f"attribute-{k}-{label}", "attribute-nonfinite", call(), {**attrs, k: value})
            for k in spec.numeric_attribute_names if k not in fixed and std.attributes[k].nonfinite_rejected(std.info)
            for label, value in NONFINITE_ATTRIBUTE_VALUES]


def crossed_probes(spec, std, call, attrs: dict, dtype: str) -> list[Probe]:
    """Where the standard rejects a crossed ordered pair (its block's attribute_order: crossed:
    rejected; WebNN clamp's minValue > maxValue): one call with the pair crossed as the standard
    compares it, the spec's first crossed test_attributes set (else lower 1, upper -1)."""
    if not std.crossed_rejected or spec.attribute_order is None:
        return []
    lower, upper = spec.attribute_order
    pairs = [(f32(t.values[lower]), f32(t.values[upper])) for t in spec.test_attributes
             if crossed(spec, t.values)] + [(1.0, -1.0)]
    for lo, hi in pairs:
        values = {**attrs, lower: lo, upper: hi}
        if crossed(spec, std.info.cast_attributes(values, dtype)):
            return [Probe("attribute-order", "attribute-order", call(), values)]
    return []


def _with(call, t: str, y: str, yd=None, ys=None):
    """A call where tensor ``t`` (the output ``y`` or another tensor) has another dtype or sizes."""
    if t == y:
        kw = {}
        if yd is not None:
            kw["yd"] = yd
        if ys is not None:
            kw["ys"] = ys
        return call(**kw)
    base = call()
    d = yd if yd is not None else base[t]["dtype"]
    s = ys if ys is not None else base[t]["sizes"]
    return call(**{t: (d, s)})


def _same_as_x(ver, std, x, names, sizes) -> dict:
    """Other inputs follow x's sizes where a broadcast rule would otherwise make them legal anyway."""
    first = case_dtypes(ver, names)[0] if names else ver.dtypes(x)[0]
    return {t: (tensor_dtype(ver, t, first), sizes) for t in names[1:] if t in {n for r in ver.broadcast for n in r.tensors}}


def large_case_choice(spec, x: str):
    """(standard, version, dtype) of the operator's one large case: ONNX's latest float16 if any."""
    keys = ["onnx"] + [k for k in spec.standards if k != "onnx"]
    inputs = [t.name for t in spec.inputs]
    for key in keys:
        std = spec.standards.get(key)
        if std is None:
            continue
        ver = std.versions[-1]
        if "float16" in case_dtypes(ver, inputs):
            return std, ver, "float16"
    std = next(iter(spec.standards.values()))
    return std, std.versions[-1], case_dtypes(std.versions[-1], inputs)[0]


EXHAUSTIVE_DTYPES = ("float16", "bfloat16")


def exhaustive_cases(spec, writer: CorpusWriter) -> int:
    """All 65,536 bit patterns of each 16-bit float dtype, per table row listing it, for every
    designed attribute set (attribute_sets: the defaults, the spec's examples and test_attributes,
    the generic sets); one data file per row and dtype."""
    x = spec.inputs[0].name
    count = 0
    for std in spec.standards.values():
        for ver in std.versions:
            for dtype in ver.dtypes(x):
                if dtype not in EXHAUSTIVE_DTYPES:
                    continue
                for aset in attribute_sets(spec, std.key, ver.version, dtype):
                    exhaustive_case(spec, writer, std, ver, dtype, aset)
                    count += 1
    return count


def exhaustive_case(spec, writer: CorpusWriter, std, ver, dtype: str, aset: AttrSet) -> None:
    """One exhaustive case: every 16-bit pattern of ``dtype`` as the primary input (the other inputs
    held at HELD_FLOAT[0]) with the attribute set ``aset``."""
    x, y = spec.inputs[0].name, spec.outputs[0].name
    others = [t.name for t in spec.inputs[1:]]
    d = dt.get(dtype)
    rank = content_rank(ver.ranks(x))
    shape = _fit_rank([256, 256], rank)
    values = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(d.numpy).reshape(shape)
    inputs = {x: values, **{k: np.full(shape, HELD_FLOAT[0], dtype=d.numpy) for k in others}}
    g = _golden(spec.resolve(std.info.cast_attributes(aset.values, dtype), std.key), inputs, dtype, std.key)
    tensors = {**inputs, y: g.y}
    writer.add(id=f"{spec.id}/{std.key}-{ver.version}/{dtype}/rank{rank}/exhaustive{attr_suffix(aset)}",
               op=spec.id, standard=std.key, version=ver.version, dtype=dtype, kind="positive",
               violations=[], shapes={k: shape for k in tensors}, dtypes={k: dtype for k in tensors},
               strides={k: None for k in tensors}, in_place=False, attributes=dict(aset.values),
               attributes_given=given_attributes(aset, std), tolerance=_tolerance(spec, dtype),
               tags=["exhaustive", aset.name], tensors=tensors,
               file=f"{spec.id}/{std.key}-{ver.version}-{dtype}.bin")


def breakpoint_problems(spec) -> list[str]:
    """The equations of ``spec``'s formulas (each standard's) whose breakpoints cannot be located with
    any attribute set the corpus uses, the other inputs held at each held value: for ``specgen lint``."""
    from specgen.formula.breakpoints import analyse

    out: list[str] = []
    for key, std in spec.standards.items():
        dtypes = [d for v in std.versions for d in v.dtypes(spec.inputs[0].name)]
        held = held_values(next((d for d in dtypes if dt.get(d).is_float), dtypes[0])) if dtypes else [1.0]
        for aset in attribute_sets(spec, key):
            plain, numeric = spec.resolve(aset.values, key)
            node = plain.formula_for(key)
            for inp in spec.inputs:
                for value in held if len(spec.inputs) > 1 else held[:1]:
                    others = {**numeric, **{o.name: value for o in spec.inputs if o.name != inp.name}}
                    for u in analyse(node, inp.name, others).unsolved:
                        msg = f"breakpoints of {u} cannot be located (standard {key}, attributes {aset.name})"
                        if msg not in out:
                            out.append(msg)
    return out
