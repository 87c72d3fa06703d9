"""The adapter API: what a backend team implements to have specgen check their backend.

An adapter is a class, registered in the backend's own package under the entry-point group
``specgen.adapters``::

    # pyproject.toml of the backend's package
    [project.entry-points."specgen.adapters"]
    mybackend = "mybackend_specgen:MyAdapter"

    # mybackend_specgen.py
    from specgen.adapters.base import Adapter, Claim, Values

    class MyAdapter(Adapter):
        description = "MyBackend CPU kernels"
        requires = ("mybackend",)           # modules that must import; else "not installed"

        def claims(self):
            return [
                Claim(op="hard_sigmoid", standard="onnx", versions=("6", "22"),
                      dtypes=("float32", "float16")),
                Claim(op="shrink", standard="directml", versions=("3_0",), dtypes=("float32",),
                      ranks=(1, 8), in_place=True, strided=True),
            ]

        def run(self, call):                # one case; return the output array(s)
            import mybackend
            return mybackend.hard_sigmoid(call.inputs["x"], **call.attributes)

        def accepts(self, call):            # optional: would the backend accept this call?
            return mybackend.validate(...)  # True / False; None = "run it and see"

The runner (specgen.runner) only runs a case when a claim covers it; everything else is reported
as *unsupported*, never failed. Claims are checked against behaviour: a claimed case that raises is
a failure, an unclaimed dtype that works is reported.

The :class:`Call` an adapter receives uses the operator's names from the spec (``x``, ``y``,
``alpha``, ``threshold``); ``call.std_attributes()`` and ``call.std_tensors`` give the standard's own
names (``lambd``, ``InputTensor``). Attribute values are float32-rounded (DESIGN.md §2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np


class Unsupported(Exception):
    """Raised by ``Adapter.run`` to decline a call (the backend has no kernel for it).

    Inside the adapter's claim this is a failure of the claim; outside it, the case is unsupported."""


class NotInstalled(Exception):
    """Raised by an adapter's constructor when its backend is absent (a missing library, no device,
    no generated code): the adapter is reported "not installed" and skipped, not "broken"."""


class Rejected(Exception):
    """Raised by ``Adapter.run`` when the backend refused the call as illegal (validation error).

    For a must-reject (negative) case this is the right answer; for a legal case it is a failure."""


# ---------------------------------------------------------------------------------------------
# Attribute limits


def _f32(v):
    """float32-rounded number; a string attribute value (GELU's approximate) stays a string."""
    return v if isinstance(v, str) else float(np.float32(v))


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a == b or (math.isnan(a) and math.isnan(b))


class AttrRule:
    """A limit on one attribute's value (compared after float32 rounding)."""

    def check(self, name: str, value: float, attributes: Mapping[str, float]) -> str | None:
        """None when allowed, else why not."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True)
class Values(AttrRule):
    """Only these values (each float32-rounded; strings as given), e.g. ``Values(1/6)`` for torch's
    hardsigmoid, ``Values("none", "tanh")``."""

    values: tuple[float | str, ...]

    def __init__(self, *values: float | str):
        object.__setattr__(self, "values", tuple(_f32(v) for v in values))

    def check(self, name, value, attributes):
        if any(_same(_f32(value), v) for v in self.values):
            return None
        return f"{name}={value!r} is not one of {', '.join(repr(v) for v in self.values)}"

    def describe(self):
        return "= " + " or ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class Range(AttrRule):
    """lo <= value <= hi (either end None: unbounded)."""

    lo: float | None = None
    hi: float | None = None

    def check(self, name, value, attributes):
        if isinstance(value, str):
            return f"{name}={value!r} is not a number"
        if math.isnan(value) or (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            return f"{name}={value!r} is outside {self.describe()}"
        return None

    def describe(self):
        lo = "-inf" if self.lo is None else repr(self.lo)
        hi = "inf" if self.hi is None else repr(self.hi)
        return f"in [{lo}, {hi}]"


@dataclass(frozen=True)
class SameAs(AttrRule):
    """Equal to another attribute (torch softshrink: bias == threshold == lambd)."""

    other: str

    def check(self, name, value, attributes):
        other = attributes.get(self.other)
        if other is None or not _same(_f32(value), _f32(other)):
            return f"{name}={value!r} differs from {self.other}={other!r}"
        return None

    def describe(self):
        return f"= {self.other}"


@dataclass(frozen=True)
class AllOf(AttrRule):
    rules: tuple[AttrRule, ...]

    def __init__(self, *rules: AttrRule):
        object.__setattr__(self, "rules", tuple(rules))

    def check(self, name, value, attributes):
        for rule in self.rules:
            why = rule.check(name, value, attributes)
            if why:
                return why
        return None

    def describe(self):
        return " and ".join(r.describe() for r in self.rules)


class ShapeRule:
    """A limit on one input tensor's shape, given the shapes of all the case's tensors."""

    def check(self, name: str, shapes: Mapping[str, Sequence[int]]) -> str | None:
        """None when allowed, else why not."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class ChannelOf(ShapeRule):
    """One element, or values varying only along axis ``axis`` of tensor ``of`` (the tensor's shape,
    aligned to ``of``'s last axis, is 1 everywhere else): torch's prelu weight."""

    of: str
    axis: int = 1

    def check(self, name, shapes):
        shape, ref = list(shapes.get(name, ())), list(shapes.get(self.of, ()))
        if int(np.prod(shape)) == 1:
            return None
        pad = [1] * (len(ref) - len(shape)) + shape
        if len(shape) <= len(ref) and len(ref) > self.axis and all(
                d == 1 for i, d in enumerate(pad) if i != self.axis) and pad[self.axis] == ref[self.axis]:
            return None
        return (f"{name} of shape {tuple(shape)} is neither one element nor along axis {self.axis} of "
                f"{self.of} {tuple(ref)}")

    def describe(self):
        return f"one element or along axis {self.axis} of {self.of}"


# ---------------------------------------------------------------------------------------------
# Claims


@dataclass(frozen=True)
class Claim:
    """What an adapter says it implements. A case is run only when one of its claims covers it.

    op:          spec id (``hard_sigmoid``)
    standard:    standard key (``onnx``, ``directml``, ``onednn``) or ``"*"`` for any
    versions:    version ids or glob patterns (``("6", "22")``, ``("*",)``)
    dtypes:      tensor dtypes claimed; empty = every dtype the version lists
    ranks:       (min, max) rank, None = no limit
    attributes:  per attribute an :class:`AttrRule` (``{"alpha": Values(1/6), "beta": Values(0.5)}``)
    shapes:      per input tensor a :class:`ShapeRule` (``{"slope": ChannelOf("x")}``)
    in_place:    the output may alias the input (in-place cases are run)
    strided:     non-contiguous inputs are accepted (strided cases are run)
    rejects:     the adapter refuses illegal calls, so must-reject (negative) cases are run.
                 Default False: a must-reject case is then *unsupported*. With True, such a case
                 passes only when ``accepts()`` returns False, or ``run`` raises :class:`Rejected`
                 or an exception type listed in the adapter's ``rejection_errors``.
    max_elements: largest tensor size claimed, None = no limit
    note:        one line shown by ``specgen adapters`` and in reports
    """

    op: str
    standard: str = "*"
    versions: tuple[str, ...] = ("*",)
    dtypes: tuple[str, ...] = ()
    ranks: tuple[int | None, int | None] = (None, None)
    attributes: Mapping[str, AttrRule] = field(default_factory=dict)
    shapes: Mapping[str, ShapeRule] = field(default_factory=dict)
    in_place: bool = False
    strided: bool = False
    rejects: bool = False
    max_elements: int | None = None
    note: str = ""

    def __post_init__(self):
        if isinstance(self.versions, str):
            object.__setattr__(self, "versions", (self.versions,))
        if isinstance(self.dtypes, str):
            object.__setattr__(self, "dtypes", (self.dtypes,))
        object.__setattr__(self, "versions", tuple(str(v) for v in self.versions))

    # -- matching ---------------------------------------------------------------------------
    def covers_version(self, op: str, standard: str, version: str) -> bool:
        from specgen.patterns import matches

        return (self.op == op and self.standard in ("*", standard)
                and any(matches(str(version), p) for p in self.versions))

    def unclaimed(self, case) -> tuple[str, str] | None:
        """None when the claim covers the case, else (cause, why) for the first part it does not
        cover; cause is one of ``unclaimed-version``, ``-dtype``, ``-rejection``, ``-rank``,
        ``-size``, ``-attribute``, ``-shape``, ``-in-place``, ``-strided`` (specgen.runner.verdicts.Cause)."""
        if not self.covers_version(case.op, case.standard, case.version):
            return "unclaimed-version", f"{case.op} {case.standard}-{case.version} is not claimed"
        if getattr(case, "kind", "positive") == "negative":
            return None if self.rejects else ("unclaimed-rejection",
                                              "must-reject case: the claim does not say rejects=True")
        if self.dtypes and case.dtype not in self.dtypes:
            return "unclaimed-dtype", f"dtype {case.dtype} is not claimed (claimed: {', '.join(self.dtypes)})"
        shapes = dict(case.shapes)
        rank = len(next(iter(shapes.values()))) if shapes else 0
        lo, hi = self.ranks
        if (lo is not None and rank < lo) or (hi is not None and rank > hi):
            return ("unclaimed-rank",
                    f"rank {rank} is not claimed (claimed: {lo if lo is not None else 0} to {hi if hi is not None else 'any'})")
        if self.max_elements is not None:
            size = max((int(np.prod(s)) for s in shapes.values()), default=0)
            if size > self.max_elements:
                return "unclaimed-size", f"{size} elements is more than the claimed {self.max_elements}"
        for name, rule in self.attributes.items():
            if name in case.attributes:
                value = case.attributes[name]
                why = rule.check(name, value if isinstance(value, str) else float(value), case.attributes)
                if why:
                    return "unclaimed-attribute", f"attribute {why}"
        for name, rule in self.shapes.items():
            why = rule.check(name, shapes)
            if why:
                return "unclaimed-shape", why
        if case.in_place and not self.in_place:
            return "unclaimed-in-place", "in-place (output aliasing input) is not claimed"
        if any(s is not None for s in (case.strides or {}).values()) and not self.strided:
            return "unclaimed-strided", "non-contiguous (strided) input is not claimed"
        return None

    def describe(self) -> str:
        parts = [f"{self.op} {self.standard} versions {','.join(self.versions)}",
                 f"dtypes {','.join(self.dtypes) if self.dtypes else 'all listed'}"]
        lo, hi = self.ranks
        if lo is not None or hi is not None:
            parts.append(f"ranks {lo if lo is not None else 0}..{hi if hi is not None else 'any'}")
        for name, rule in self.attributes.items():
            parts.append(f"{name} {rule.describe()}")
        for name, rule in self.shapes.items():
            parts.append(f"{name} {rule.describe()}")
        if self.max_elements is not None:
            parts.append(f"<= {self.max_elements} elements")
        flags = [f for f, on in (("in-place", self.in_place), ("strided", self.strided)) if on]
        flags.append("rejects=True: must-reject cases run" if self.rejects
                     else "rejects=False: must-reject cases not run")
        parts.append(", ".join(flags))
        text = "; ".join(parts)
        return f"{text}  ({self.note})" if self.note else text

    def to_json(self) -> dict:
        return {"op": self.op, "standard": self.standard, "versions": list(self.versions),
                "dtypes": list(self.dtypes), "ranks": list(self.ranks),
                "attributes": {k: r.describe() for k, r in self.attributes.items()},
                "shapes": {k: r.describe() for k, r in self.shapes.items()},
                "in_place": self.in_place, "strided": self.strided, "rejects": self.rejects,
                "max_elements": self.max_elements, "note": self.note}


def covering(claims: Sequence[Claim], case) -> tuple[Claim | None, str | None, str | None]:
    """(the first claim that covers ``case``, None, None) or (None, cause, why) with the most
    specific reason none does (a claim for the case's version explains more than one for another)."""
    reasons = []
    for claim in claims:
        got = claim.unclaimed(case)
        if got is None:
            return claim, None, None
        reasons.append(got)
    specific = [r for r in reasons if r[0] != "unclaimed-version"]
    if specific:
        return None, specific[0][0], specific[0][1]
    return None, "unclaimed-version", f"{case.op} {case.standard}-{case.version} is not claimed"


# ---------------------------------------------------------------------------------------------
# The call an adapter receives


@dataclass
class OutputInfo:
    shape: tuple[int, ...]
    dtype: str  # canonical dtype name


@dataclass
class Call:
    """One operator invocation, built by the runner from a case.

    inputs:      operator tensor name -> numpy array (bfloat16 via ml_dtypes); may be a
                 non-contiguous view when the case is strided
    outputs:     operator tensor name -> OutputInfo (the shape and dtype the caller declares)
    out:         operator tensor name -> preallocated output buffer. For an in-place case it *is*
                 the input array (aliasing); the adapter must write the result there.
    attributes:  every attribute value the case uses (float32-rounded), operator names
    attributes_given: the attributes the backend call passes explicitly (ONNX: defaults omitted)
    strides:     the element strides the case declares per tensor (None: dense). Input arrays and
                 output buffers already have them; for an illegal stride list that numpy cannot
                 express (a must-reject case) the arrays stay dense and only this field has it.
    """

    case_id: str
    op: str
    standard: str
    version: str
    dtype: str
    kind: str
    inputs: dict[str, np.ndarray]
    outputs: dict[str, OutputInfo]
    out: dict[str, np.ndarray]
    attributes: dict[str, float]
    attributes_given: tuple[str, ...]
    in_place: bool = False
    violations: tuple[str, ...] = ()
    spec: Any = None  # specgen.spec.model.OpSpec when available
    strides: dict = field(default_factory=dict)  # declared element strides per tensor (None: dense)
    # runner-owned: the allocation each tensor lies in (specgen.runner.call.Memory), checked after run()
    memory: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def x(self) -> np.ndarray:
        """The first input (every op specgen ships so far is unary)."""
        return next(iter(self.inputs.values()))

    @property
    def rank(self) -> int:
        return self.x.ndim

    def _standard(self):
        """The spec's block of the call's standard, as the call's version spells it (OpStandard.at: ONNX
        Cast-1's STRING to)."""
        if self.spec is None:
            return None
        std = self.spec.standards.get(self.standard)
        if std is None or not self.version or not hasattr(std, "at"):
            return std
        try:
            return std.at(self.version)
        except KeyError:  # a version the spec does not list (a must-reject probe, a fake spec): the block's own
            return std

    def std_attributes(self, given_only: bool = False) -> dict[str, float]:
        """Attributes under the standard's own names (threshold -> lambd for ONNX Shrink), string
        values in its spelling (approximate erf -> ONNX 'none'); an attribute the standard fixes
        (it has no such attribute) is never passed."""
        std = self._standard()
        names = self.attributes_given if given_only else tuple(self.attributes)
        out = {}
        for name in names:
            if name not in self.attributes:
                continue
            if std is not None and name in std.attributes and (std.attributes[name].fixed is not None
                                                                 or std.attributes[name].operators):
                continue  # no such attribute: a fixed value, or the operator itself (std_operator)
            binding = std.attributes.get(name) if std is not None else None
            std_name = binding.name if binding is not None else name
            # a string attribute's value in the standard's spelling (GELU approximate erf -> ONNX 'none')
            value = binding.spell(self.attributes[name]) if binding is not None else self.attributes[name]
            declared = next((a for a in getattr(self.spec, "attributes", ()) or ()
                             if getattr(a, "name", None) == name), None)
            if getattr(declared, "type", None) in ("int64", "int32") and isinstance(value, float) \
                    and value.is_integer():
                value = int(value)  # an integer attribute (ONNX IsInf's detect_positive) passed as one
            out[std_name] = value
        return out

    @property
    def std_operator(self) -> str | None:
        """The standard's operator this call names: its block's, or the one a string attribute's value
        selects where the standard has an operator per value (DirectML's MODULUS_FLOOR / _TRUNCATE)."""
        std = self._standard()
        return None if std is None else std.operator_for(self.attributes)

    @property
    def std_tensors(self) -> dict[str, str]:
        """Operator tensor name -> the standard's name (x -> X for ONNX HardSigmoid)."""
        std = self._standard()
        names = list(self.inputs) + list(self.outputs)
        return {n: (std.tensors[n].name if std is not None and n in std.tensors else n) for n in names}

    @property
    def operator(self) -> str | None:
        """The standard's operator name (``HardSigmoid``), when the spec is known."""
        std = self._standard()
        return std.operator if std is not None else None


# ---------------------------------------------------------------------------------------------
# The adapter base class


class Adapter:
    """Base class of every adapter. Subclasses implement :meth:`claims` and :meth:`run`.

    Class attributes:
      name:        set by the registry from the entry-point name (override only for tests)
      description: one line for ``specgen adapters``
      requires:    importable module names the backend needs; when one is missing the adapter is
                   reported "not installed" (with ``extra``) and skipped, never a crash
      extra:       the pip extra that installs the backend (``specgen[onnxruntime]``)
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    requires: ClassVar[tuple[str, ...]] = ()
    extra: ClassVar[str | None] = None

    #: exception types the backend raises when it refuses an illegal call (its validation errors).
    #: On a must-reject case only :class:`Rejected` and these count as a rejection; any other
    #: exception is a crash (*error*).
    rejection_errors: ClassVar[tuple[type[BaseException], ...]] = ()

    #: methods every adapter must define (checked at load, pluggy-style)
    REQUIRED_METHODS: ClassVar[dict[str, tuple[str, ...]]] = {"claims": (), "run": ("call",)}

    @property
    def specs(self) -> dict:
        """The loaded operator specs ({id: OpSpec}) the runner gave this adapter at load; loaded
        here only when the adapter was constructed outside the registry."""
        got = self.__dict__.get("_specs")
        if got is None:
            from specgen.spec.operators import load_operators

            got = self.__dict__["_specs"] = load_operators()
        return got

    def backend_version(self) -> str:
        """The version of the backend under test (shown in reports)."""
        return ""

    def claims(self) -> Sequence[Claim]:  # pragma: no cover - abstract
        raise NotImplementedError

    def run(self, call: Call):  # pragma: no cover - abstract
        """Run one case. Return an array (single output), a dict of arrays by operator output name,
        or None after writing ``call.out``. For an in-place call write the result into
        ``call.out`` (which aliases the input); the runner reads the buffer."""
        raise NotImplementedError

    def accepts(self, call: Call) -> bool | None:
        """Would the backend accept this call? None (the default): the runner runs it; raising
        :class:`Rejected` (or one of ``rejection_errors``) is then the rejection."""
        return None

    def load_notes(self) -> Sequence[str]:
        """Optional: lines shown as warnings when the adapter loads (``specgen adapters``, ``run``), e.g.
        the entries of a data-driven op mapping that claim nothing yet because their spec is absent."""
        return ()

    def why_unclaimed(self, op: str, standard: str, version: str, dtype: str) -> str | None:
        """Optional: why the adapter does not claim this (op, standard, version, dtype), e.g. the
        backend's own "not implemented" message. Shown next to *unsupported* cases."""
        return None

    def close(self) -> None:
        """Release backend resources (sessions, devices)."""
