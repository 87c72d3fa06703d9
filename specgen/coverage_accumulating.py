"""``specgen coverage`` for the accumulating operators (reductions, normalizations, softmax, matmul):
which classes of case the corpus holds per operator x standard x version x dtype, against the
classes the index-space designer (specgen.indexing.design) gives that cell.

The element-wise table (specgen.coverage.CLASSES) reads facts of an element-wise spec (breakpoints,
regions, ranks per dtype); an accumulating operator's cases are designed from its index space
instead, so its classes are those of the designer's case tags. What a cell needs is what the
designer gives it for the spec as it is now (``specgen.indexing.corpus.designed``: no golden value
is computed), so a corpus made before a spec changed, made by another tool, or cut down, shows its
gaps by name. Nothing here names an operator: the classes are patterns of the designer's tags.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from specgen.coverage import Cell, CellCoverage


@dataclass(frozen=True)
class AccClass:
    name: str
    description: str
    pattern: str  # a designed case's tag matches it (re.search)
    kind: str = "positive"


CLASSES: tuple[AccClass, ...] = (
    AccClass("lengths", "the reduced lengths kernels split differently (1, 2, 3, 7, 8, 9, 64; 1,023 in the "
             "standard's latest version), random values", r"^(length|k)\d+/random$"),
    AccClass("value-designs", "values that expose order and precision at lengths 8 and 9: cancellation, "
             "running sums that stall or saturate, one NaN, one infinity, all equal, one dominant, near overflow",
             r"^(length|k)[89]/(?!random$)(?!without_)"),
    AccClass("long-designs", "the designs whose outcome depends on the length, at 1,023 (the latest version)",
             r"^(length|k)1023/(?!random$)"),
    AccClass("axes", "every axis subset up to rank 4, keepdims both ways, negative spellings, the default axes "
             "(structural dtype)", r"^rank\d+/(axes|axis)"),
    AccClass("empty", "a reduced or kept dimension of size 0, by the standard's empty-reduction rule",
             r"^empty/"),
    AccClass("optional-inputs", "each optional input omitted (its absent value)", r"/without_"),
    AccClass("shape-variants", "shapes legal under some standard and not others (mismatched shared labels, "
             "broadcast partners, ranks)", r"(mismatched|-rank-plus-one|-vector|-rank0|-size1)"),
    AccClass("attribute-values", "each boolean attribute at its other value (transposes)", r"^[A-Za-z_]+[01]$"),
    AccClass("must-reject", "illegal calls the index space rejects", r"", kind="negative"),
)
CLASS_NAMES = tuple(k.name for k in CLASSES)


def _matches(cls: AccClass, kind: str, tags: Iterable[str]) -> bool:
    return kind == cls.kind and any(re.search(cls.pattern, t) for t in tags)


def _tags(case) -> set[str]:
    return set(case.tags or ())


def cells(specs: dict, ops: Iterable[str] = ()) -> list[Cell]:
    """Every accumulating op x standard x version x listed dtype."""
    ops = tuple(ops)
    return [Cell(spec, std, ver, dtype) for op_id, spec in sorted(specs.items()) if not ops or op_id in ops
            for std in spec.standards.values() for ver in std.versions for dtype in ver.dtypes()]


def coverage(specs: dict, cases: Iterable, ops: Iterable[str] = ()) -> list[CellCoverage]:
    """Each cell's classes: present (case counts), missing (the designer gives the cell some, the
    corpus none; ``incomplete`` names up to five of the designed tags it lacks), not allowed (the
    designer gives none)."""
    from specgen.indexing.corpus import designed

    ops = tuple(ops)
    held: dict[tuple, list] = {}
    for c in cases:
        if c.op in specs and (not ops or c.op in ops):
            held.setdefault((c.op, c.standard, str(c.version), c.dtype), []).append(c)
    wanted: dict[tuple, list] = {}
    for op_id, spec in sorted(specs.items()):
        if ops and op_id not in ops:
            continue
        for key, std in spec.standards.items():
            for ver in std.versions:
                for d in designed(spec, key, ver):
                    wanted.setdefault((op_id, key, ver.version, d.dtype), []).append(d)
    out = []
    for cell in cells(specs, ops):
        cov = CellCoverage(cell)
        want, have = wanted.get(cell.key, []), held.get(cell.key, [])
        for cls in CLASSES:
            need = {t for d in want if _matches(cls, d.kind, (*d.tags, d.design)) for t in d.tags}
            if not need:
                cov.not_allowed.append(cls.name)
                continue
            found = [c for c in have if _matches(cls, c.kind, _tags(c))]
            seen = set().union(*(_tags(c) for c in found)) if found else set()
            lacking = sorted(need - seen)
            if found and not lacking:
                cov.present[cls.name] = len(found)
            else:
                cov.missing.append(cls.name)
                if found:
                    cov.incomplete[cls.name] = lacking[:5] + ([f"{len(lacking) - 5} more"] if len(lacking) > 5 else [])
        out.append(cov)
    return out


def to_json_classes() -> list[dict]:
    return [{"name": k.name, "description": k.description, "scope": "dtype", "engine": "accumulating",
             "detected_by": f"kind {k.kind}" + (f", tags matching {k.pattern!r}" if k.pattern else "")}
            for k in CLASSES]
