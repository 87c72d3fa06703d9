"""The cases the runner works on.

Corpus cases come from ``specgen.vectors.load_corpus(dir).cases`` (the generator's format module,
docs/ARCHITECTURE.md); the runner needs only the fields listed in :class:`CaseLike` and
``load()``. :class:`MemoryCase` is the same shape held in memory (tests, probes, the subprocess
worker).
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Protocol, Sequence

import numpy as np


class CaseLike(Protocol):  # pragma: no cover - typing only
    id: str
    op: str
    standard: str
    version: str
    dtype: str
    kind: str
    violations: Sequence[str]
    shapes: dict
    dtypes: dict
    strides: dict
    in_place: bool
    attributes: dict
    attributes_given: Sequence[str]
    tolerance: dict
    tags: Sequence[str]

    def load(self) -> dict[str, np.ndarray]: ...


@dataclass
class MemoryCase:
    """A case held in memory: the corpus case's fields plus its arrays."""

    id: str
    op: str
    standard: str
    version: str
    dtype: str
    data: dict[str, np.ndarray]
    kind: str = "positive"
    violations: tuple[str, ...] = ()
    shapes: dict = field(default_factory=dict)
    dtypes: dict = field(default_factory=dict)
    strides: dict = field(default_factory=dict)
    in_place: bool = False
    attributes: dict = field(default_factory=dict)
    attributes_given: tuple[str, ...] = ()
    tolerance: dict = field(default_factory=dict)
    tags: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.shapes:
            self.shapes = {k: list(np.shape(v)) for k, v in self.data.items()}
        if not self.dtypes:
            from specgen.dtypes import by_numpy

            self.dtypes = {k: by_numpy(np.asarray(v).dtype).name for k, v in self.data.items()}
        self.version = str(self.version)

    def load(self) -> dict[str, np.ndarray]:
        return {k: np.array(v, copy=True) for k, v in self.data.items()}


def default_corpus_dir() -> Path:
    try:
        from specgen.resources import generated_dir

        return generated_dir() / "vectors"
    except (ImportError, FileNotFoundError):
        from specgen.resources import repo_root

        root = repo_root()
        return (root / "generated" / "vectors") if root else Path("generated/vectors")


class CorpusError(Exception):
    """The corpus cannot be read (missing, malformed, or specgen.vectors not available)."""


def load_cases(corpus_dir: str | Path | None = None) -> list:
    """Every case of the corpus (through specgen.vectors, the format module)."""
    directory = Path(corpus_dir) if corpus_dir else default_corpus_dir()
    try:
        from specgen.vectors import load_corpus
    except ImportError as exc:
        raise CorpusError(f"specgen.vectors is not available ({exc}); the corpus cannot be read") from exc
    if not (directory / "manifest.json").is_file() and (directory / "vectors" / "manifest.json").is_file():
        directory = directory / "vectors"  # a `specgen generate --out DIR` directory: its corpus is DIR/vectors
    if not (directory / "manifest.json").is_file():
        raise CorpusError(f"no corpus at {directory} (no manifest.json, nor vectors/manifest.json as in a "
                          f"`specgen generate --out DIR` directory); run `specgen generate` first")
    try:
        corpus = load_corpus(directory)
    except Exception as exc:
        raise CorpusError(f"cannot read the corpus at {directory}: {type(exc).__name__}: {exc}") from exc
    return list(corpus.cases)


@dataclass(frozen=True)
class Filters:
    ops: tuple[str, ...] = ()
    standards: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()  # case ids or glob patterns (an exact id matches itself, brackets and all)
    kinds: tuple[str, ...] = ()

    def match(self, case) -> bool:
        if self.ops and case.op not in self.ops:
            return False
        if self.standards and case.standard not in self.standards:
            return False
        if self.versions and not any(fnmatch.fnmatchcase(str(case.version), v) for v in self.versions):
            return False
        if self.dtypes and case.dtype not in self.dtypes:
            return False
        if self.kinds and getattr(case, "kind", "positive") not in self.kinds:
            return False
        if self.cases and not any(case.id == p or fnmatch.fnmatchcase(case.id, p) for p in self.cases):
            return False
        return True

    def describe(self) -> str:
        parts = [f"{k}={','.join(v)}" for k, v in (("op", self.ops), ("standard", self.standards),
                 ("version", self.versions), ("dtype", self.dtypes), ("case", self.cases), ("kind", self.kinds)) if v]
        return " ".join(parts) or "all cases"


def filter_problem(filters: Filters, specs: dict, cases: Iterable | None = None) -> str | None:
    """Why the filters cannot be meant (a typo), as one line naming the bad value and what is known;
    None when they are fine. Ops and standards are checked against the specs; a dtype must be one
    the selected ops and standards list (or, given ``cases``, one some of their cases use: must-reject
    cases use dtypes a version does not list) and each ``--version`` glob must match a version of
    them. Without ``cases`` only the dtype's name is checked (specgen.dtypes)."""
    from specgen.dtypes import DTYPES

    bad = [o for o in filters.ops if o not in specs]
    if bad:
        return f"unknown op(s) {', '.join(bad)}; known: {', '.join(specs)}"
    known_std = sorted({s for spec in specs.values() for s in spec.standards})
    bad = [s for s in filters.standards if s not in known_std]
    if bad:
        return f"unknown standard(s) {', '.join(bad)}; known: {', '.join(known_std)}"
    ops = [specs[o] for o in (filters.ops or specs)]
    pairs = [(key, std) for spec in ops for key, std in spec.standards.items()
             if not filters.standards or key in filters.standards]
    where = " ".join(filter(None, [",".join(filters.ops), ",".join(filters.standards)])) or "any op"
    versions: dict[str, set[str]] = {}
    dtypes: set[str] = set()
    for key, std in pairs:
        for v in std.versions:
            versions.setdefault(key, set()).add(str(v.version))
            dtypes.update(v.dtypes())
    selected = []
    if cases is not None:
        scope = Filters(ops=filters.ops, standards=filters.standards)
        selected = [c for c in cases if scope.match(c)]
        for c in selected:
            versions.setdefault(c.standard, set()).add(str(c.version))
    bad = [d for d in filters.dtypes if d not in DTYPES]
    if bad:
        return f"unknown dtype(s) {', '.join(bad)}; known: {', '.join(DTYPES)}"
    if cases is not None:
        scope = Filters(ops=filters.ops, standards=filters.standards, versions=filters.versions)
        dtypes.update(c.dtype for c in selected if scope.match(c))
        bad = [d for d in filters.dtypes if d not in dtypes]
        if bad:
            return (f"dtype(s) {', '.join(bad)} not used by {where}"
                    f"{' version ' + ','.join(filters.versions) if filters.versions else ''}; "
                    f"known: {', '.join(d for d in DTYPES if d in dtypes)}")
    every = {v for vs in versions.values() for v in vs}
    bad = [g for g in filters.versions if not any(fnmatch.fnmatchcase(v, g) for v in every)]
    if bad:
        known = "; ".join(f"{key} {', '.join(sorted(vs, key=_version_order))}" for key, vs in sorted(versions.items()))
        return f"--version {', '.join(bad)} matches no version of {where}; known: {known}"
    return None


def _version_order(v: str):
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in v.replace("_", ".").split("."))


def select(cases: Iterable, filters: Filters) -> list:
    return [c for c in cases if filters.match(c)]
