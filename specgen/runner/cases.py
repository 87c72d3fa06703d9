"""The cases the runner works on.

Corpus cases come from ``specgen.vectors.load_corpus(dir).cases`` (the generator's format module,
docs/ARCHITECTURE.md); the runner needs only the fields listed in :class:`CaseLike` and
``load()``. :class:`MemoryCase` is the same shape held in memory (tests, probes, the subprocess
worker).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Protocol, Sequence

import numpy as np

from specgen.patterns import matches
from specgen.text import did_you_mean


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


class CorpusMismatch(CorpusError):
    """The corpus was generated from other specs than those in use."""


def load_cases(corpus_dir: str | Path | None = None, specs: dict | None = None) -> list:
    """Every case of the corpus (through specgen.vectors, the format module). With ``specs`` (the
    specs in use), CorpusMismatch when the corpus was generated from other specs (spec/provenance)."""
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
    if specs is not None:
        from specgen.spec.provenance import differences

        found = differences(corpus.manifest, corpus.cases, specs)
        if found:
            raise CorpusMismatch(mismatch_message(directory, specs, found))
    return list(corpus.cases)


def mismatch_message(directory: Path, specs: dict, found: list[str], shown: int = 5) -> str:
    from specgen.resources import SPECS_ENV

    where = Path(next(iter(specs.values())).path).parent if specs else "(none)"
    more = f"; and {len(found) - shown} more" if len(found) > shown else ""
    return (f"the corpus at {directory} was not generated from the specs in use ({where}): "
            f"{'; '.join(found[:shown])}{more}. Judge it with the specs it was generated from "
            f"(--specs DIR or {SPECS_ENV}=DIR), or regenerate it: specgen generate --specs {where} --out DIR")


@dataclass(frozen=True)
class Filters:
    ops: tuple[str, ...] = ()
    standards: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()  # case ids or patterns (specgen.patterns: * is the only wildcard, brackets are literal)
    kinds: tuple[str, ...] = ()

    def match(self, case) -> bool:
        if self.ops and case.op not in self.ops:
            return False
        if self.standards and case.standard not in self.standards:
            return False
        if self.versions and not any(matches(str(case.version), v) for v in self.versions):
            return False
        if self.dtypes and case.dtype not in self.dtypes:
            return False
        if self.kinds and getattr(case, "kind", "positive") not in self.kinds:
            return False
        if self.cases and not any(matches(case.id, p) for p in self.cases):
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
    from specgen.spec.provenance import specs_in_use_note

    bad = [o for o in filters.ops if o not in specs]
    if bad:
        return (f"unknown op(s) {', '.join(bad)}{did_you_mean(bad[0], specs)}; known: {', '.join(specs)} "
                f"({specs_in_use_note(specs)})")
    known_std = sorted({s for spec in specs.values() for s in spec.standards})
    bad = [s for s in filters.standards if s not in known_std]
    if bad:
        return f"unknown standard(s) {', '.join(bad)}{did_you_mean(bad[0], known_std)}; known: {', '.join(known_std)}"
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
        return f"unknown dtype(s) {', '.join(bad)}{did_you_mean(bad[0], DTYPES)}; known: {', '.join(DTYPES)}"
    if cases is not None:
        scope = Filters(ops=filters.ops, standards=filters.standards, versions=filters.versions)
        dtypes.update(c.dtype for c in selected if scope.match(c))
        bad = [d for d in filters.dtypes if d not in dtypes]
        if bad:
            return (f"dtype(s) {', '.join(bad)} not used by {where}"
                    f"{' version ' + ','.join(filters.versions) if filters.versions else ''}; "
                    f"known: {', '.join(d for d in DTYPES if d in dtypes)}")
    every = {v for vs in versions.values() for v in vs}
    bad = [g for g in filters.versions if not any(matches(v, g) for v in every)]
    if bad:
        known = "; ".join(f"{key} {', '.join(sorted(vs, key=_version_order))}" for key, vs in sorted(versions.items()))
        return f"--version {', '.join(bad)} matches no version of {where}; known: {known}"
    return None


def _version_order(v: str):
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in v.replace("_", ".").split("."))


def select(cases: Iterable, filters: Filters) -> list:
    if filters.ops:  # the cheap test first: most selections name an operator of tens of thousands of cases
        ops = frozenset(filters.ops)
        cases = [c for c in cases if c.op in ops]
    return [c for c in cases if filters.match(c)]


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) -> (K, N); ValueError with the reason otherwise."""
    k, sep, n = str(text).partition("/")
    if not sep or not k.strip().isdigit() or not n.strip().isdigit():
        raise ValueError(f"--shard {text!r}: expected K/N, e.g. 2/4")
    k_, n_ = int(k), int(n)
    if n_ < 1:
        raise ValueError(f"--shard {text!r}: N, the number of shards, must be at least 1")
    if not 1 <= k_ <= n_:
        raise ValueError(f"--shard {text!r}: K must be between 1 and N ({n_})")
    return k_, n_


def shard(cases: list, k: int, n: int) -> list:
    """The K-th of N disjoint shards (1-based): every N-th case in id order, so the N shards of a CI
    matrix together run each selected case exactly once and have sizes within one of each other."""
    ordered = sorted(cases, key=lambda c: c.id)
    return [c for i, c in enumerate(ordered) if i % n == k - 1]


def data_problem(cases: Iterable) -> str | None:
    """A cheap check before the run that every case's data is where the manifest says (the file
    exists and is long enough); sha256 is verified when each case is loaded. One line naming the
    file, or None."""
    sizes: dict[Path, int | None] = {}
    for c in cases:
        root, name, nbytes = getattr(c, "root", None), getattr(c, "file", None), getattr(c, "nbytes", 0)
        if root is None or not name or not nbytes:
            continue
        path = Path(root) / name
        if path not in sizes:
            try:
                sizes[path] = path.stat().st_size
            except OSError:
                sizes[path] = None
        size = sizes[path]
        if size is None:
            return f"corpus data file {path} is missing (case {c.id}); regenerate with `specgen generate`"
        if size < c.offset + nbytes:
            return (f"corpus data file {path} is truncated: {size} bytes, case {c.id} needs bytes up to "
                    f"{c.offset + nbytes}; regenerate with `specgen generate`")
    return None
