"""The typed model of an operator spec. Built only by specgen.spec.loader, after validation.

Nothing here knows about generators, vectors or adapters (docs/ARCHITECTURE.md: data flows one way, no back edges).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import math

import numpy as np

from specgen.formula.nodes import Node
from specgen.spec.safe_format import fill

SAME_PROPERTIES = ("data_type", "dimension_count", "sizes")

# Outcome vocabulary per special-value category (validated by the loader).
SPECIAL_OUTCOMES = {
    "nan": ("formula", "nan", "zero", "unspecified"),
    "pos_inf": ("formula", "limit", "nan", "unspecified"),
    "neg_inf": ("formula", "limit", "nan", "unspecified"),
    "signed_zero": ("formula", "any", "unspecified"),
    "subnormal": ("preserve", "flush_allowed", "unspecified"),
    "integer_rounding": ("toward_zero", "nearest_even", "nearest_away", "floor", "unspecified"),
    "integer_overflow": ("saturate", "wrap", "unspecified"),
}
REQUIRED_SPECIALS = ("nan", "pos_inf", "neg_inf", "signed_zero", "subnormal")

TOLERANCE_METRICS = ("exact", "ulp", "abs", "model")

# How an input may have a shape other than the tensor it is combined with (BroadcastRule.kind):
#   unidirectional    numpy rules, one way: ``tensors`` broadcast to ``to`` (ONNX PRelu 7+)
#   multidirectional  numpy rules among ``tensors`` and ``to``; the output has the broadcast shape
#   single_element    ``tensors`` either have ``to``'s sizes or hold exactly one element (ONNX PRelu 1, 6)
BROADCAST_KINDS = ("unidirectional", "multidirectional", "single_element")


@dataclass(frozen=True)
class Ranks:
    """Supported dimension counts: [min, max]; max None means unbounded; unspecified: not stated."""

    min: int | None
    max: int | None
    unspecified: bool = False

    def allows(self, rank: int) -> bool:
        if self.unspecified:
            return rank >= 0
        return rank >= (self.min or 0) and (self.max is None or rank <= self.max)

    def covers(self, other: "Ranks") -> bool:
        if self.unspecified or other.unspecified:
            return self.unspecified or not other.unspecified
        lo_ok = (self.min or 0) <= (other.min or 0)
        hi_ok = self.max is None or (other.max is not None and other.max <= self.max)
        return lo_ok and hi_ok

    def __str__(self) -> str:
        if self.unspecified:
            return "unspecified"
        if self.max is None:
            return f"{self.min} or more"
        if self.min == self.max:
            return str(self.min)
        return f"{self.min} to {self.max}"


@dataclass(frozen=True)
class TensorSupport:
    tensor: str
    ranks: Ranks
    dtypes: tuple[str, ...]


@dataclass(frozen=True)
class ExtraAttribute:
    """An attribute a standard version has that plays no part in the formula (ONNX consumed_inputs)."""

    name: str
    type: str
    required: bool
    description: str


@dataclass(frozen=True)
class BroadcastRule:
    """Which inputs may take a shape other than ``to``'s, and how (BROADCAST_KINDS)."""

    kind: str
    tensors: tuple[str, ...]
    to: str
    source: str | None = None

    def to_data(self) -> dict:
        return {"kind": self.kind, "tensors": list(self.tensors), "to": self.to}


@dataclass(frozen=True)
class Version:
    version: str
    tensors: dict[str, TensorSupport]  # by the operator's tensor name, inputs then outputs
    extra_attributes: tuple[ExtraAttribute, ...] = ()
    facts: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    line: int | None = None
    broadcast: tuple[BroadcastRule, ...] = ()  # none: every input has the sizes its constraints say
    # Attribute defaults this version has instead of the standard's (ONNX Selu-1: 1.6732 and 1.0507
    # where Selu-6 and -22 have the SELU constants), as written in the spec.
    defaults: dict[str, float] = field(default_factory=dict)
    # Attributes this version takes as optional scalar input tensors of the tensor type (ONNX Clip-11:
    # min, max), in input order after the declared inputs, and what an absent one stands for by the
    # tensor's dtype: "lowest" / "highest" (numeric_limits<T>), replacing the standard's default.
    as_inputs: tuple[str, ...] = ()
    absent_defaults: dict[str, str] = field(default_factory=dict)
    # A string attribute's values as this version spells them, where they differ from the standard
    # block's binding (ONNX Cast-1: ``to`` a STRING, the TensorProto DataType name "FLOAT", where 6 and
    # later take the enum's integer): attribute -> {operator value -> spelling}; OpStandard.at applies it.
    attribute_values: dict[str, dict] = field(default_factory=dict)

    def absent_values(self, dtype: str) -> dict[str, float]:
        """The values absent ``as_inputs`` attributes stand for with a tensor of ``dtype``."""
        from specgen import dtypes as _dt

        d = _dt.get(dtype)
        low, high = (-d.max_finite, d.max_finite) if d.is_float else d.int_range  # ints exact
        # neg_inf / pos_inf: no bound (WebNN clamp's absent minValue / maxValue); an integer type has no
        # infinity, and a bound at its limit bounds nothing
        inf_low, inf_high = (-math.inf, math.inf) if d.is_float else d.int_range
        limits = {"lowest": low, "highest": high, "neg_inf": inf_low, "pos_inf": inf_high}
        return {name: limits[kind] for name, kind in self.absent_defaults.items()}

    def as_input_values(self, values: dict, dtype: str) -> dict:
        """``values`` with the attributes this version takes as input tensors held as a tensor of
        ``dtype`` holds them: rounded to nearest even for a float type, truncated towards zero and kept
        within the range of an integer type (a bound beyond it bounds no more than the type's limit)."""
        from specgen import dtypes as _dt

        d = _dt.get(dtype)
        out = dict(values)
        for name in self.as_inputs:
            v = out.get(name)
            if v is None or isinstance(v, str):
                continue
            if d.is_float:
                out[name] = _dt.cast_value(float(v), dtype)
            else:
                lo, hi = d.int_range  # Python ints: INT64_MAX is no float
                out[name] = lo if v <= lo else hi if v >= hi else int(math.trunc(v))
        return out

    def dtypes(self, tensor: str | None = None) -> tuple[str, ...]:
        if tensor is not None:
            return self.tensors[tensor].dtypes
        seen: list[str] = []
        for support in self.tensors.values():
            seen.extend(d for d in support.dtypes if d not in seen)
        return tuple(seen)

    def ranks(self, tensor: str | None = None) -> Ranks:
        if tensor is not None:
            return self.tensors[tensor].ranks
        return next(iter(self.tensors.values())).ranks


@dataclass(frozen=True)
class TensorBinding:
    tensor: str  # the operator's name (x)
    name: str  # the standard's name (InputTensor, X, src)
    type_param: str | None = None
    index: int | None = None


@dataclass(frozen=True)
class AttributeBinding:
    attribute: str  # the operator's name (threshold)
    name: str | None  # the standard's name (Threshold, lambd); None where the standard fixes the value
    default: float | str | None  # a string attribute's default in the operator's spelling
    required: bool
    fixed: float | str | None = None  # the standard has no such attribute: its function uses this value (ONNX Softplus: 1)
    # A string attribute: the operator's value -> the standard's spelling (ONNX Gelu: erf -> 'none'),
    # one entry per value the standard accepts.
    values: dict[str, str | int] | None = None
    # the values (operator spelling) a call accepts per kind of tensor type, "float" / "integer" (ONNX Mod:
    # fmod = 1 for floating-point, 0 for integer types); a kind not listed accepts every value
    kind_values: dict[str, tuple[str, ...]] | None = None
    # a builder API's call takes it as an argument after the inputs, not in its options dictionary
    # (WebNN cast(input, dataType, options)); a string attribute only, always required
    positional: bool = False
    # an optional attribute without a default: a call may leave it out, and it then stands for this
    # ("lowest" | "highest" | "neg_inf" | "pos_inf": Version.absent_values; WebNN clamp's minValue: neg_inf)
    absent: str | None = None
    # NaN and the infinities as values: "allowed" / "rejected", where the attribute's type differs from
    # the standard's rule (WebNN's MLNumber is bigint or unrestricted double); None: the standard's rule
    nonfinite: str | None = None
    # a string attribute the standard has no parameter for: it has one operator per value (DirectML's
    # MODULUS_FLOOR and MODULUS_TRUNCATE for Mod's sign_of), ``values`` spells each value as that
    # operator's name, and a call of a value names that operator and passes no attribute
    operators: bool = False

    def nonfinite_rejected(self, info) -> bool:
        """Does the standard reject NaN and infinite values of this attribute?"""
        return (self.nonfinite or info.nonfinite_attributes) == "rejected"

    def accepts_for(self, value, is_float: bool) -> bool:
        """Does a call with floating-point (else integer) inputs accept this value (operator spelling)?"""
        listed = (self.kind_values or {}).get("float" if is_float else "integer")
        return listed is None or value in listed

    def must_be_given(self, attribute_defaults: str) -> bool:
        """Must a call pass this attribute? When the binding says required, or when the standard gives
        no defaults (oneDNN) and there is none; never for a value the standard fixes."""
        if self.fixed is not None or self.operators:
            return False
        return self.required or (attribute_defaults == "none" and self.default is None)

    @property
    def default_float32(self) -> float | str | None:
        """The default as the float32 the attribute stores (ONNX: 0.2 -> 0.20000000298023224); a
        fixed value is the default no call can change. A string attribute's value is returned as is."""
        value = self.fixed if self.fixed is not None else self.default
        if isinstance(value, str):
            return value
        return None if value is None else float(np.float32(value))

    def spell(self, value):
        """The standard's spelling of an operator value of a string attribute (others unchanged)."""
        return self.values.get(value, value) if self.values and isinstance(value, str) else value


@dataclass(frozen=True)
class Constraint:
    tensors: tuple[str, ...]
    same: tuple[str, ...]
    source: str | None = None


@dataclass(frozen=True)
class TransformAttribute:
    """One attribute of an input transform: the standard's name, its default (the transform
    absent) and the value that leaves the input unchanged (what every other standard uses)."""

    name: str
    default: float
    identity: float
    description: str = ""


@dataclass(frozen=True)
class InputTransform:
    """A transform of an input that a standard offers on many operators (DirectML's ScaleBias:
    f(scale * x + bias)), declared once in specs/_standards.yaml (``input_transforms``) and opted
    into by an operator's block (``input_transform``); specgen.spec.input_transforms applies it."""

    key: str
    formula_text: str  # in the formula language; ``input`` stands for the operator's input
    formula: Node
    attributes: dict[str, TransformAttribute]  # operator attribute name -> binding facts
    test_values: tuple[dict[str, float], ...]
    source: str
    float_tensors_only: str = ""  # why integer tensors keep the identity (the standard does not say)
    # (name, url, reason) of the reading the opting standard gets: the function at the rounded
    # transformed input (Reading.rounded_input); None: none
    rounded_reading: tuple[str, str, str] | None = None

    PLACEHOLDER = "input"


@dataclass(frozen=True)
class StandardInfo:
    """A standard as described in specs/_standards.yaml."""

    key: str
    title: str
    version_kind: str
    version_label: str
    version_format: str
    attribute_defaults: str  # "applied" | "typical" | "none"
    dtype_names: dict[str, str]
    tensor_type: str
    attribute_type_names: dict[str, str]
    strides: bool = False  # tensors may be strided (non-contiguous)
    zero_sizes: bool = True  # a dimension of size 0 is legal
    zero_strides: bool = False  # an input stride of 0 repeats it along that dimension (DirectML broadcasting)
    layout_source: str = ""
    # How attribute values reach the computation: "float32" (DirectML, ONNX and oneDNN store them
    # as 32-bit floats) or "input" (WebNN casts each option to the input tensor's data type).
    attribute_cast: str = "float32"
    # An attribute the operator does not have: "rejected", or "ignored" (WebNN options are WebIDL
    # dictionaries, whose unknown members are skipped).
    unknown_attributes: str = "rejected"
    # NaN or an infinity as a floating-point attribute: "allowed" (not forbidden) or "rejected"
    # (WebNN: WebIDL ``double``, not ``unrestricted double``, throws a TypeError).
    nonfinite_attributes: str = "allowed"
    rules_source: str = ""
    input_transforms: dict[str, InputTransform] = field(default_factory=dict)
    # why each version supports everything its predecessor did (DirectML's feature levels): a dtype's
    # designed cases are made where its meaning first appears and in the latest version (corpus.designs_row)
    cumulative_versions: str = ""
    # why a kernel's addressing depends on element widths, not types: a row's addressing cases are made
    # for one dtype per combination of tensor widths (corpus.addresses_row)
    addressing_per_width: str = ""

    def cast_attributes(self, values, dtype: str) -> dict[str, float]:
        """Attribute values as the standard computes with them for a tensor of ``dtype``: float32,
        or (attribute_cast: input) cast once more to ``dtype``: rounded to nearest even for a float type
        (WebNN's ConvertToFloat), and for an integer type its ConvertToInt (NaN is 0, the value is
        clamped to the type's range and rounded to the nearest integer, ties to even)."""
        out = {k: (v if isinstance(v, str) else _float32_attribute(v)) for k, v in values.items()}
        if self.attribute_cast == "input":
            from specgen import dtypes as _dt

            d = _dt.DTYPES.get(dtype)
            if d is not None and d.is_float:
                out = {k: (v if isinstance(v, str) else _dt.cast_value(v, dtype)) for k, v in values.items()}
            elif d is not None and d.kind in ("int", "uint"):
                out = {k: (v if isinstance(v, str) else _convert_to_int(v, d.int_range)) for k, v in out.items()}
        return out

    def label(self, version: str) -> str:
        return fill(self.version_label, version=version)  # never str.format on spec text (issue 15)

    def tensor_type_name(self, type_param: str) -> str:
        return fill(self.tensor_type, type_param=type_param)

    def dtype_name(self, dtype: str) -> str:
        return self.dtype_names[dtype]


def _convert_to_int(v: float, limits: tuple[int, int]) -> float:
    """WebNN's ConvertToInt(v, bitLength, signedness): NaN is +0, then min(max(v, lower), upper),
    rounded to the nearest integer, ties to even (as a float, as every attribute value)."""
    if math.isnan(v):
        return 0.0
    lo, hi = limits
    if v <= lo:
        return float(lo)
    if v >= hi:
        return float(hi)
    return float(round(v)) + 0.0  # Python's round: ties to even; + 0.0 makes -0 +0


def _float32_attribute(v) -> float:
    """An attribute value as float32 stores it; a finite value beyond float32's range is no float32
    attribute (the float64 limit an absent optional input stands for: Version.absent_defaults) and is kept."""
    v = float(v)
    if math.isfinite(v) and abs(v) > float(np.finfo(np.float32).max):
        return v
    return float(np.float32(v))


@dataclass(frozen=True)
class Reading:
    """One more normative reading of a standard besides its text's formula (the default reading,
    ``TEXT_READING``): ONNX's function body, WebNN's expression. The judge accepts an element that
    any enabled reading accepts and reports which one matched (specgen.numerics.readings)."""

    name: str
    url: str
    quote: str  # the reading's words in its source, short
    reason: str  # what differs from the text and why it stands as a reading
    formula: Node | None = None  # its own formula; None: the standard's
    formula_text: str | None = None
    # attributes CastLike the tensor type before use: rounded to a float tensor type, truncated
    # towards zero for an integer one (ONNX function bodies, Shrink-9: CastLike(bias, input))
    attribute_cast: bool = False
    # evaluated as written in the tensor type, overflow and cancellation included: opt-in (never
    # accepted unless enabled by name: specgen run --reading NAME)
    literal: bool = False
    versions: tuple[str, ...] = ()  # the standard's versions it applies to (ONNX: the opsets with a body); () = all
    # (input name, the transform's formula over that input): the reading judges its formula (the
    # untransformed function) at the transformed input as a kernel rounds it (an input transform's
    # rounded_reading: specgen.numerics.readings.rounded_inputs); None: the inputs as given
    rounded_input: tuple[str, Node] | None = None

    def applies(self, version: str | None) -> bool:
        return not self.versions or version is None or str(version) in self.versions


TEXT_READING = "text"  # the reading every standard has: its text's formula (the operator's, or the standard's own)


@dataclass(frozen=True)
class OpStandard:
    key: str
    info: StandardInfo
    operator: str
    domain: str | None
    introduced: str | None
    in_place: bool | None  # None: the standard does not say
    attribute_defaults: str
    tensors: dict[str, TensorBinding]
    attributes: dict[str, AttributeBinding]
    constraints: tuple[Constraint, ...]
    versions: tuple[Version, ...]
    formula: Node | None = None  # this standard's own formula where it differs from the operator's
    formula_text: str | None = None
    formula_reason: str | None = None
    readings: tuple[Reading, ...] = ()  # readings besides the text's (TEXT_READING)
    # (transform key, input name): the standard transforms that input before the formula
    # (applied by specgen.spec.input_transforms when the operator is loaded)
    input_transform: tuple[str, str] | None = None
    # the standard rejects a call whose ordered pair (the spec's attribute_order) is crossed, compared
    # as the standard computes with the values (WebNN clamp: "If options.minValue is greater than
    # options.maxValue, then throw a TypeError", after casting both to the input's data type)
    crossed_rejected: bool = False
    crossed_source: str | None = None

    def reading(self, name: str) -> Reading:
        for r in self.readings:
            if r.name == name:
                return r
        raise KeyError(f"{self.info.title} {self.operator} has no reading {name!r}; "
                       f"known: {', '.join((TEXT_READING,) + tuple(r.name for r in self.readings))}")

    def operator_for(self, attributes) -> str:
        """The standard's operator a call with these attribute values names: the block's, or the one a
        string attribute's value selects (``operators``: DirectML's MODULUS_FLOOR / MODULUS_TRUNCATE)."""
        for name, b in self.attributes.items():
            if b.operators and attributes.get(name) is not None:
                return b.spell(attributes[name])
        return self.operator

    def at(self, version: str | None) -> "OpStandard":
        """The block as one version calls it: the bindings of the attributes that version spells
        otherwise (``attribute_values``: ONNX Cast-1's string ``to``) with its spellings; the block
        itself where the version has none (or ``version`` is None)."""
        if version is None:
            return self
        v = self.version(version)
        if not v.attribute_values:
            return self
        from dataclasses import replace

        key = (id(self), v.version)
        hit = _AT.get(key)
        if hit is not None and hit[0] is self:
            return hit[1]
        attrs = {name: (replace(b, values=dict(v.attribute_values[name])) if name in v.attribute_values else b)
                 for name, b in self.attributes.items()}
        out = replace(self, attributes=attrs)
        _AT[key] = (self, out)
        return out

    def version(self, version: str) -> Version:
        for v in self.versions:
            if v.version == str(version):
                return v
        raise KeyError(f"{self.info.title} {self.operator} has no {self.info.version_kind} {version!r}; "
                       f"known: {', '.join(v.version for v in self.versions)}")

    @property
    def version_ids(self) -> tuple[str, ...]:
        return tuple(v.version for v in self.versions)

    def defaults(self, version: str | None = None) -> dict[str, float | None]:
        """Each attribute's default as stored (float32), None where the standard has none (a fixed
        attribute's value counts as its default); with ``version``, that version's own defaults
        where it has some (ONNX Selu-1)."""
        out = {name: b.default_float32 for name, b in self.attributes.items()}
        if version is not None:
            out.update({k: float(np.float32(v)) for k, v in self.version(version).defaults.items()})
        return out

    def version_defaults(self) -> dict[str, dict[str, float]]:
        """Versions with defaults of their own: {version: {attribute: float32 value}}."""
        return {v.version: {k: float(np.float32(x)) for k, x in v.defaults.items()} for v in self.versions if v.defaults}

    def fixed(self) -> dict[str, float]:
        """Attributes the standard does not have, with the value its function uses (float32)."""
        return {name: b.default_float32 for name, b in self.attributes.items() if b.fixed is not None}

    def same(self, prop: str) -> list[tuple[str, ...]]:
        return [c.tensors for c in self.constraints if prop in c.same]


_AT: dict = {}  # (id(block), version) -> (block, the block as that version spells it): OpStandard.at


@dataclass(frozen=True)
class Attribute:
    name: str
    type: str
    description: str
    values: tuple[str, ...] = ()  # type string: the values it takes (the operator's spelling)
    # Values the operator is not defined for (Celu's alpha = 0 divides by zero): never a default, an
    # example or a test value, and the corpus leaves them out of its attribute sets.
    excluded: tuple[float, ...] = ()
    excluded_reason: str = ""
    # an integer attribute's closed set of values (ONNX IsInf's detect_positive: 0, 1): the corpus's
    # attribute sets take only these, crossed with each other
    int_values: tuple[int, ...] = ()
    # (string attribute, its values): the attribute exists only in a call whose string attribute has one
    # of these values (ONNX Cast's saturate: "only applies for float 8 conversion", to a float8 type);
    # elsewhere a call leaves it out and the formula chosen there does not use it (OpSpec.applicable)
    applies_when: tuple[str, tuple[str, ...]] | None = None

    def applies(self, values) -> bool:
        """Whether this attribute exists in a call with these attribute values (operator spelling)."""
        if self.applies_when is None:
            return True
        name, listed = self.applies_when
        return (values or {}).get(name) in listed

    def allows(self, value) -> bool:
        if isinstance(value, str):
            return True
        return not any(float(np.float32(value)) == float(np.float32(e)) for e in self.excluded)


@dataclass(frozen=True)
class Choice:
    """A formula chosen by the value of a string attribute (GELU's approximate: erf | tanh). The
    choice is resolved before any numerics (OpSpec.resolve), so golden values, the error model and
    the comparer only ever see a plain numeric operator."""

    attribute: str
    formulas: dict[str, Node]  # value -> formula, one per declared value
    texts: dict[str, str]


@dataclass(frozen=True)
class TensorDecl:
    name: str
    description: str
    # an output whose data type is the value of this string attribute in a call (ONNX Cast's to)
    dtype_from: str | None = None


@dataclass(frozen=True)
class SpecialValue:
    category: str
    default: tuple[str, ...]
    per_standard: dict[str, tuple[str, ...]]
    recommended: str | None
    reason: str
    # integer_overflow only: the outcomes where the inputs are floating-point (ONNX/WebNN Cast: a float
    # out of an integer type's range is undefined, an integer wraps), and whether designed cases keep
    # such inputs (judged by the outcome) instead of leaving them out
    float_inputs: tuple[str, ...] | None = None
    in_corpus: bool = False

    def outcomes(self, standard: str | None = None, float_inputs: bool = False) -> tuple[str, ...]:
        """Accepted outcomes for a standard; ('unspecified',) means report, never fail."""
        if float_inputs and self.float_inputs is not None:
            return self.float_inputs
        if standard is not None and standard in self.per_standard:
            return self.per_standard[standard]
        return self.default


@dataclass(frozen=True)
class Tolerance:
    dtype: str
    metric: str  # exact | ulp | abs | model
    value: float | None
    intermediate: str | None  # for "model": the narrowest type intermediates may be rounded to
    reason: str


@dataclass(frozen=True)
class Example:
    description: str
    attributes: dict[str, float]
    inputs: dict[str, tuple[float, ...]]
    outputs: dict[str, tuple[float, ...]]


@dataclass(frozen=True)
class TestAttributes:
    """A named attribute set the vectors must cover, beyond defaults and generic sets."""

    name: str
    values: dict[str, float]
    reason: str


@dataclass(frozen=True)
class OpSpec:
    id: str
    name: str
    summary: str
    inputs: tuple[TensorDecl, ...]
    outputs: tuple[TensorDecl, ...]
    attributes: tuple[Attribute, ...]
    formula_text: str
    formula: Node
    special_values: dict[str, SpecialValue]
    tolerance: dict[str, Tolerance]
    examples: tuple[Example, ...]
    standards: dict[str, OpStandard]
    path: str
    test_attributes: tuple[TestAttributes, ...] = ()
    choice: Choice | None = None  # formula chosen by a string attribute; formula is then None
    special_pairs: bool = False  # the corpus pairs every special value of the inputs (spec key special_pairs)
    rank_sweep_once: bool = False  # a dtype's rank sweep only where its row changes (spec key rank_sweep_once)
    broadcast_once: bool = False  # a dtype's broadcast forms only where its row changes (spec key broadcast_once)
    # a dtype's designed cases only in the first and latest version of a run of equal rows (spec key designed_at_ends)
    designed_at_ends: bool = False
    # (lower, upper): two attributes a generic attribute set keeps in order (Clip's min <= max); crossed
    # values come only from the spec's own examples and test_attributes (spec key attribute_order)
    attribute_order: tuple[str, str] | None = None

    @property
    def numeric_attribute_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes if a.type != "string")

    def output_dtype(self, tensor: str, attributes) -> str | None:
        """The dtype a call gives an output whose type an attribute chooses (``dtype_from``: ONNX
        Cast's to), from ``attributes`` (operator spelling; None where the output has no such rule
        or the attribute is not there)."""
        for t in self.outputs:
            if t.name == tensor and t.dtype_from is not None:
                v = (attributes or {}).get(t.dtype_from)
                return v if isinstance(v, str) else None
        return None

    def inapplicable(self, values) -> tuple[str, ...]:
        """The attributes that do not exist in a call with these attribute values (their applies_when
        does not hold: ONNX Cast's saturate with a target that is no float 8 type)."""
        return tuple(a.name for a in self.attributes if not a.applies(values))

    def accepted_values(self, name: str, standard: str, version: str | None = None) -> tuple:
        """The values (operator spelling) of string attribute ``name`` a call of ``standard`` (at
        ``version``) can take: its binding's values (that version's own spelling: OpStandard.at), its
        fixed value, and for an attribute naming an output's dtype (dtype_from) only the dtypes the
        version's table lists for that output."""
        std = self.standards[standard].at(version)
        b = std.attributes[name]
        accepted = [b.fixed] if b.fixed is not None else list(b.values or self.choice_values)
        if version is not None and name in self.dtype_attributes:
            ver = std.version(version)
            listed = {d for t in self.outputs if t.dtype_from == name for d in ver.dtypes(t.name)}
            accepted = [v for v in accepted if v in listed]
        return tuple(accepted)

    def exists_in(self, name: str, standard: str, version: str | None = None) -> bool:
        """Whether attribute ``name`` is one a call of ``standard`` (at ``version``) can have: always,
        except an attribute whose applies_when lists no value of its string attribute such a call can
        take (ONNX Cast's saturate before 19, whose tables list no float 8 type)."""
        a = next(a for a in self.attributes if a.name == name)
        if a.applies_when is None:
            return True
        other, listed = a.applies_when
        return any(v in listed for v in self.accepted_values(other, standard, version))

    @property
    def dtype_attributes(self) -> tuple[str, ...]:
        """The attributes that choose an output's dtype (``dtype_from``)."""
        return tuple(t.dtype_from for t in self.outputs if t.dtype_from is not None)

    def choice_value(self, attributes, standard: str | None = None) -> str | None:
        """The value of the choice attribute a call computes with: given, else the standard's
        default or fixed value (operator spelling; the standard's spelling is accepted too)."""
        if self.choice is None:
            return None
        name = self.choice.attribute
        std = self.standards.get(standard) if standard is not None else None
        value = (attributes or {}).get(name)
        if value is None and std is not None and name in std.attributes:
            b = std.attributes[name]
            if b.name and b.name in (attributes or {}):
                value = attributes[b.name]
            if value is None:
                value = b.fixed if b.fixed is not None else b.default
        if value is None:
            raise KeyError(f"{self.id}: no value for attribute {name!r}"
                           + (f" and no {standard} default" if standard else ""))
        if std is not None and name in std.attributes and std.attributes[name].values:
            back = {v: k for k, v in std.attributes[name].values.items()}
            if value not in self.choice.formulas and value in back:
                value = back[value]
        if value not in self.choice.formulas:
            raise ValueError(f"{self.id}: attribute {name}={value!r} is not one of "
                             f"{', '.join(map(repr, self.choice.formulas))}")
        return value

    def resolve(self, attributes=None, standard: str | None = None) -> tuple["OpSpec", dict]:
        """(the plain numeric operator this call computes, its numeric attributes): the formula the
        choice attribute selects, with that attribute taken out of the spec and of ``attributes``.
        An operator without a choice is returned unchanged."""
        if self.choice is None:
            return self, dict(attributes or {})
        value = self.choice_value(attributes, standard)
        name = self.choice.attribute
        plain = _variant(self, value)
        kept = set(plain.attribute_names)
        rest = {k: v for k, v in (attributes or {}).items() if not isinstance(v, str) and k != name
                and (k in kept or k not in self.attribute_names)}
        return plain, rest

    @property
    def choice_values(self) -> tuple[str, ...]:
        return tuple(self.choice.formulas) if self.choice else ()

    @property
    def tensor_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.inputs + self.outputs)

    @property
    def attribute_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    def formula_for(self, standard: str | None) -> Node:
        """The formula a standard defines: its own override where it has one, else the operator's."""
        if self.choice is not None:
            raise ValueError(f"{self.id}: the formula depends on attribute {self.choice.attribute!r}; "
                             f"resolve it first (OpSpec.resolve)")
        if standard is not None and standard in self.standards and self.standards[standard].formula is not None:
            return self.standards[standard].formula
        return self.formula

    def formula_text_for(self, standard: str | None) -> str:
        if standard is not None and standard in self.standards and self.standards[standard].formula_text:
            return self.standards[standard].formula_text
        return self.formula_text

    def standard(self, key: str) -> OpStandard:
        try:
            return self.standards[key]
        except KeyError:
            raise KeyError(f"{self.name} has no {key!r} standard; it has: {', '.join(self.standards)}") from None

    def all_dtypes(self) -> tuple[str, ...]:
        seen: list[str] = []
        for std in self.standards.values():
            for v in std.versions:
                seen.extend(d for d in v.dtypes() if d not in seen)
        return tuple(seen)


_VARIANTS: dict[tuple[int, str], tuple[OpSpec, OpSpec]] = {}


def _variant(spec: OpSpec, value: str) -> OpSpec:
    """The plain operator of one value of ``spec``'s choice attribute (cached per spec object)."""
    from dataclasses import replace

    key = (id(spec), value)
    hit = _VARIANTS.get(key)
    if hit is not None and hit[0] is spec:
        return hit[1]
    name = spec.choice.attribute
    # the attribute itself and those that do not exist with this value (applies_when: Cast's saturate
    # with a target that is no float 8 type) are no attributes of the plain operator
    gone = {name} | {a.name for a in spec.attributes if not a.applies({name: value})}
    standards = {k: replace(s, attributes={a: b for a, b in s.attributes.items() if a not in gone})
                 for k, s in spec.standards.items()}
    examples = tuple(replace(e, attributes={a: v for a, v in e.attributes.items() if a not in gone})
                     for e in spec.examples if e.attributes.get(name, value) == value)
    attributes = tuple(replace(a, applies_when=None) if a.applies_when else a
                       for a in spec.attributes if a.name not in gone)
    test_attributes = tuple(replace(t, values={k: v for k, v in t.values.items() if k not in gone})
                            for t in spec.test_attributes)
    out = replace(spec, formula=spec.choice.formulas[value], formula_text=spec.choice.texts[value], choice=None,
                  attributes=attributes, standards=standards, examples=examples, test_attributes=test_attributes)
    _VARIANTS[key] = (spec, out)
    return out
