"""Which classes of case the corpus holds, per operator x standard x version x dtype, against the
classes the spec allows there (``specgen coverage``; issue 14).

``CLASSES`` is the one table: per class, how a case is recognised (its manifest ``tags``, its
``kind``, or, for a property of the data, the stored input values) and when the class is allowed
(a fact of the spec's standard, version and dtype). A class that is allowed and has no case is a
gap. Nothing here names an operator or an attribute: the attribute-set classes take the designed
sets from the generator's design rules (``specgen.generate.corpus``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from specgen import dtypes as dt

# cases larger than this are never loaded to look at their data (a generated-on-the-fly recipe
# case of 2**31 elements is recognised by its tags only)
DATA_LIMIT = 1 << 20


@dataclass(frozen=True)
class Cell:
    """One operator x standard x version x dtype, with the spec objects the rules read."""

    spec: object
    std: object
    ver: object
    dtype: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.spec.id, self.std.key, self.ver.version, self.dtype)


@dataclass(frozen=True)
class CaseClass:
    name: str
    description: str
    allowed: Callable[[Cell], bool]  # the spec allows (so the corpus must hold) this class here
    tags: tuple[str, ...] = ()  # a case with any of these tags belongs to the class
    kind: str | None = None  # or a case of this kind ("negative")
    data: Callable[[dict], bool] | None = None  # or a positive case whose stored inputs show it
    scope: str = "dtype"  # "dtype": cases of the cell's dtype; "row": any case of the table row
    needs_all: Callable[[Cell], Iterable[str]] | None = None  # every one of these tags must occur
    # or every one of these (label, attributes, values) must be found in a positive case's stored
    # primary input under those attributes: (label, attribute values, the input values it needs)
    needs_values: Callable[[Cell], Iterable[tuple[str, dict, tuple]]] | None = None


def _float(cell: Cell) -> bool:
    return dt.get(cell.dtype).is_float


def _settable_attributes(cell: Cell) -> bool:
    fixed = cell.std.fixed()
    return any(a not in fixed for a in cell.spec.numeric_attribute_names)


def _open_attributes(cell: Cell) -> bool:
    """Settable attributes that take any value (a closed integer set, ONNX IsInf's flags, has no
    boundaries beyond its values; nor has a float-only input transform's attribute on an integer
    tensor, DirectML's ScaleBias: corpus.attribute_boundary_sets leaves them out)."""
    from specgen.generate.corpus import float_only_transform_attributes

    fixed = cell.std.fixed()
    closed = {a.name for a in cell.spec.attributes if a.int_values}
    closed |= set(float_only_transform_attributes(cell.spec, cell.std.key, cell.dtype))
    return any(a not in fixed and a not in closed for a in cell.spec.numeric_attribute_names)


def _latest(cell: Cell) -> bool:
    return cell.ver is cell.std.versions[-1]


def _size_case_version(cell: Cell) -> bool:
    """The version the size cases of the cell's dtype are built at (corpus.size_case_version)."""
    from specgen.generate.corpus import size_case_version

    from specgen.generate.corpus import sweeps_once

    return cell.ver is size_case_version(cell.std, cell.dtype, cell.spec.inputs[0].name, sweeps_once(cell.spec, cell.std),
                                         [t.name for t in cell.spec.inputs])


def _own_rank_sweep(cell: Cell) -> bool:
    """A version whose table repeats its predecessor's has no rank sweep of its own (the
    corpus's rule: corpus.same_table_as_previous)."""
    from specgen.generate.corpus import sweeps_row

    return sweeps_row(cell.spec, cell.std, cell.ver, cell.dtype, [t.name for t in cell.spec.inputs])


def _addressed(cell: Cell) -> bool:
    """The version gets the dtype's addressing cases (corpus.addresses_row: where its designed cases
    are, for one dtype per combination of element widths where the standard says addressing_per_width)."""
    from specgen.generate.corpus import addresses_row

    return addresses_row(cell.spec, cell.std, cell.ver, cell.dtype, [t.name for t in cell.spec.inputs])


def _layouts(cell: Cell) -> bool:
    """Strided layouts: where the row has addressing cases, or a larger rank than before (corpus.new_max_rank_row)."""
    from specgen.generate.corpus import new_max_rank_row

    inputs = [t.name for t in cell.spec.inputs]
    return bool(cell.std.info.strides) and (_addressed(cell) or new_max_rank_row(cell.spec, cell.std, cell.ver, cell.dtype, inputs))


def _designed_sets(cell: Cell) -> list[str]:
    from specgen.generate.corpus import attribute_sets

    # the row's own sets, as the corpus designs them (per dtype: attributes held in the tensor type,
    # an input transform kept at its identity for integer tensors, Mod's fmod by tensor kind)
    return [s.name for s in attribute_sets(cell.spec, cell.std.key, cell.ver.version, cell.dtype)]


def _designed(cell: Cell) -> bool:
    """The version gets the dtype's designed cases (corpus.designs_row: spec designed_at_ends)."""
    from specgen.generate.corpus import designs_row

    return designs_row(cell.spec, cell.std, cell.ver, cell.dtype)


def _has_crossings(cell: Cell) -> bool:
    return _designed(cell) and _float(cell) and any(True for _ in _crossing_needs(cell))


def _crossing_needs(cell: Cell):
    """Per designed attribute set and threshold crossing (specgen.formula.thresholds): the two
    values of the cell's dtype either side of the crossing, which some case must hold."""
    from specgen.generate.corpus import attribute_sets, designed_crossings
    from specgen.generate.design import neighbourhood

    for aset in attribute_sets(cell.spec, cell.std.key, cell.ver.version):
        for c in designed_crossings(cell.spec, cell.std, aset, cell.dtype):
            either_side = tuple(float(v) for v in neighbourhood(c.value, cell.dtype, 0).astype(np.float64))
            yield f"{aset.name}: {c.label} at x = {float(c.value):.9g}", dict(aset.values), either_side


def _inputs(arrays: dict, case) -> list[np.ndarray]:
    return [np.asarray(arrays[k]) for k in arrays if k in case.inputs_named]


def _has_special(inputs: list[np.ndarray]) -> bool:
    with np.errstate(invalid="ignore"):
        return any(not np.all(np.isfinite(v.astype(np.float64))) for v in inputs if dt.by_numpy(v.dtype).is_float)


def _has_subnormal(inputs: list[np.ndarray]) -> bool:
    from specgen.numerics.ulp import fmt

    for v in inputs:
        if not dt.by_numpy(v.dtype).is_float:
            continue
        with np.errstate(invalid="ignore"):
            a = np.abs(v.astype(np.float64))
            if np.any((a > 0) & (a < fmt(v.dtype).min_normal)):
                return True
    return False


CLASSES: tuple[CaseClass, ...] = (
    CaseClass("regions", "seeded samples of every region of the formula", _designed, tags=("regions",)),
    CaseClass("thresholds", "inputs either side of every input where a function's argument crosses one of its "
              "critical arguments (exp overflow, saturation, ...; specgen.formula.thresholds), from the stored data",
              _has_crossings, needs_values=_crossing_needs),
    CaseClass("breakpoints", "every breakpoint with its ULP neighbours", _designed, tags=("breakpoints",)),
    CaseClass("specials", "NaN or infinite inputs (from the stored data)", lambda c: _float(c) and _designed(c),
              data=_has_special),
    CaseClass("subnormals", "subnormal inputs (from the stored data)", lambda c: _float(c) and _designed(c),
              data=_has_subnormal),
    CaseClass("ranks", "the rank sweep: every rank the row allows (capped where unbounded; none where a "
              "version repeats its predecessor's table; addressing_per_width: one dtype per element widths)", _own_rank_sweep,
              tags=("rank-sweep",)),
    CaseClass("attribute-sets", "every designed attribute set (defaults, examples, test_attributes, generic sets)",
              lambda c: _settable_attributes(c) and _designed(c), needs_all=_designed_sets),
    CaseClass("attribute-boundaries", "each attribute at its subnormal and huge boundary values "
              "(the standard's latest version; not the integer attributes with a closed set of values, nor a "
              "float-only input transform's on integer tensors; "
              "one-input operators: corpus.OpCorpus.attribute_boundaries makes none for several inputs)",
              lambda c: _open_attributes(c) and _latest(c) and len(c.spec.inputs) == 1,
              tags=("attribute-boundary",)),
    CaseClass("layouts", "strided layouts whose memory order differs from the logical order (where the row's "
              "designed cases are, or its largest rank is new; addressing_per_width: one dtype per element widths)",
              _layouts, tags=("layout",)),
    CaseClass("in-place", "the output aliasing the input (where the row's designed cases are; addressing_per_width: "
              "one dtype per element widths)", lambda c: c.std.in_place is True and _addressed(c), tags=("in-place",)),
    CaseClass("sizes", "tensor sizes at the boundaries kernels get wrong (vector tails, 2^16; the "
              "standard's latest version listing the dtype with its own rank sweep; addressing_per_width: "
              "one dtype per element widths)", _size_case_version, tags=("size-boundary",)),
    CaseClass("must-reject", "illegal calls the rules reject (per table row)", lambda c: True, kind="negative",
              scope="row"),
    CaseClass("nonfinite-attribute-rejects", "NaN and infinite attribute values, where the standard rejects them "
              "(nonfinite_attributes: rejected; per table row)",
              lambda c: any(a not in c.std.fixed() and c.std.attributes[a].nonfinite_rejected(c.std.info)
                            for a in c.spec.numeric_attribute_names),
              tags=("attribute-nonfinite",), scope="row"),
)
CLASS_NAMES = tuple(k.name for k in CLASSES)


@dataclass
class CellCoverage:
    cell: Cell
    present: dict[str, int] = field(default_factory=dict)  # class -> number of cases
    missing: list[str] = field(default_factory=list)  # allowed, no case
    not_allowed: list[str] = field(default_factory=list)
    incomplete: dict[str, list[str]] = field(default_factory=dict)  # needs_all classes: the tags not seen
    covered: dict[str, list[str]] = field(default_factory=dict)  # needs_values classes: the needs found

    def to_json(self) -> dict:
        op, std, ver, dtype = self.cell.key
        return {"op": op, "standard": std, "version": ver, "dtype": dtype, "present": dict(self.present),
                "missing": list(self.missing), "not_allowed": list(self.not_allowed),
                "incomplete": {k: list(v) for k, v in self.incomplete.items()},
                "covered": {k: list(v) for k, v in self.covered.items()}}


class _CaseView:
    """What the rules read from a case: its fields, and its stored inputs when it is small."""

    def __init__(self, case, spec):
        self.case = case
        self.tags = set(case.tags or ())
        self.inputs_named = {t.name for t in spec.inputs}
        self._arrays = None

    def elements(self) -> int:
        return sum(int(np.prod(s, dtype=np.int64)) if s else 1 for s in (self.case.shapes or {}).values())

    def inputs(self) -> list[np.ndarray] | None:
        if self.case.kind != "positive" or self.elements() > DATA_LIMIT:
            return None
        if self._arrays is None:
            self._arrays = _inputs(self.case.load(), self)
        return self._arrays


def cells(specs: dict, ops: Iterable[str] = ()) -> list[Cell]:
    """Every op x standard x version x dtype of the specs' tables (the primary input's dtypes)."""
    out = []
    for op_id, spec in sorted(specs.items()):
        if ops and op_id not in ops:
            continue
        from specgen.generate.corpus import case_dtypes

        inputs = [t.name for t in spec.inputs]
        for std in spec.standards.values():
            for ver in std.versions:
                for dtype in case_dtypes(ver, inputs):
                    out.append(Cell(spec, std, ver, dtype))
    return out


def coverage(specs: dict, cases: Iterable, ops: Iterable[str] = ()) -> list[CellCoverage]:
    """Each cell's classes: present (with case counts), missing (allowed, no case), not allowed."""
    ops = tuple(ops)
    by_row: dict[tuple[str, str, str], list] = {}
    for c in cases:
        if c.op in specs and (not ops or c.op in ops):
            by_row.setdefault((c.op, c.standard, str(c.version)), []).append(c)
    views: dict[int, _CaseView] = {}
    out = []
    for cell in cells(specs, ops):
        row = by_row.get(cell.key[:3], [])
        cov = CellCoverage(cell)
        for cls in CLASSES:
            if not cls.allowed(cell):
                cov.not_allowed.append(cls.name)
                continue
            pool = row if cls.scope == "row" else [c for c in row if c.dtype == cell.dtype]
            n = _count(cls, pool, cell, views, cov)
            if n:
                cov.present[cls.name] = n
            else:
                cov.missing.append(cls.name)
        out.append(cov)
    return out


def _count(cls: CaseClass, pool: list, cell: Cell, views: dict, cov: CellCoverage) -> int:
    if cls.needs_values is not None:
        return _count_values(cls, pool, cell, views, cov)
    if cls.needs_all is not None:
        seen = set().union(*(set(c.tags or ()) for c in pool if c.kind == "positive")) if pool else set()
        need = list(cls.needs_all(cell))
        lacking = [t for t in need if t not in seen]
        if lacking:
            cov.incomplete[cls.name] = lacking
            return 0
        return sum(1 for c in pool if c.kind == "positive" and set(c.tags or ()) & set(need))
    n = 0
    for c in pool:
        if cls.kind is not None and c.kind == cls.kind:
            n += 1
        elif cls.tags and (c.kind == "positive" or cls.scope == "row") and set(c.tags or ()) & set(cls.tags):
            n += 1
        elif cls.data is not None and c.kind == "positive":
            view = views.setdefault(id(c), _CaseView(c, cell.spec))
            arrays = view.inputs()
            if arrays is not None and cls.data(arrays):
                n += 1
    return n


def _count_values(cls: CaseClass, pool: list, cell: Cell, views: dict, cov: CellCoverage) -> int:
    """Cases holding the needed values; every need no case holds is listed in ``incomplete``. A
    case is read only when its attributes are the need's and it is small (DATA_LIMIT)."""
    x = cell.spec.inputs[0].name
    held: dict[int, set] = {}

    def values_of(c) -> set:
        if id(c) not in held:
            view = views.setdefault(id(c), _CaseView(c, cell.spec))
            if view.elements() > DATA_LIMIT:
                held[id(c)] = set()
            else:
                v = np.asarray(c.load()[x]).astype(np.float64).ravel()
                held[id(c)] = set(np.unique(v[np.isfinite(v)]).tolist())
        return held[id(c)]

    lacking, used = [], set()
    for label, attributes, needed in cls.needs_values(cell):
        # the designed case of the class first (cheap), then any other case with the same attributes
        candidates = sorted((c for c in pool if c.kind == "positive" and dict(c.attributes or {}) == attributes),
                            key=lambda c: cls.name not in set(c.tags or ()))
        holder = next((c for c in candidates if set(needed) <= values_of(c)), None)
        if holder is None:
            lacking.append(label)
        else:
            used.add(id(holder))
            cov.covered.setdefault(cls.name, []).append(label)
    if lacking:
        cov.incomplete[cls.name] = lacking
        return 0
    return len(used)


def gaps(report: list[CellCoverage]) -> list[tuple[tuple[str, str, str, str], str]]:
    return [(cov.cell.key, name) for cov in report for name in cov.missing]


def render_text(report: list[CellCoverage]) -> list[str]:
    """One line per cell: the classes present (with case counts) and the missing ones; then a summary
    of the gaps per class."""
    lines = []
    for cov in report:
        op, std, ver, dtype = cov.cell.key
        have = ", ".join(f"{k} {v}" + (f" ({len(cov.covered[k])} crossings)" if k in cov.covered else "")
                         for k, v in cov.present.items())
        line = f"{op} {std}-{ver} {dtype}: {have}"
        if cov.missing:
            detail = [m + (f" (lacks {', '.join(cov.incomplete[m])})" if m in cov.incomplete else "") for m in cov.missing]
            line += f"; MISSING {', '.join(detail)}"
        lines.append(line)
    per_class: dict[str, int] = {}
    for _, name in gaps(report):
        per_class[name] = per_class.get(name, 0) + 1
    if per_class:
        lines.append(f"coverage: {sum(per_class.values())} gap(s) in {sum(1 for c in report if c.missing)} of "
                     f"{len(report)} cells: " + ", ".join(f"{k} {v}" for k, v in sorted(per_class.items())))
    else:
        lines.append(f"coverage: no gap in {len(report)} cells (every allowed class has a case)")
    return lines


def to_json(report: list[CellCoverage]) -> dict:
    return {"classes": [{"name": k.name, "description": k.description, "scope": k.scope,
                         "detected_by": ("tags " + ", ".join(k.tags)) if k.tags else
                                        (f"kind {k.kind}" if k.kind else ("data" if k.data else (
                                            "the stored inputs either side of every threshold crossing"
                                            if k.needs_values else "every designed set's tag")))}
                        for k in CLASSES],
            "cells": [c.to_json() for c in report], "gaps": len(gaps(report))}
