"""Manifest + binary data of a vector corpus (format 1).

A corpus directory holds ``manifest.json`` and one ``.bin`` file per (operator, standard, version)
(``hard_sigmoid/onnx-22.bin``). A case's data is the concatenation, in the order of its ``stored``
list (the operator's inputs, then its outputs; negative cases store inputs only), of each tensor's
elements in row-major logical order, little-endian, dense (``strides`` describe how a backend call
must lay the tensor out in memory, not how it is stored). ``sha256`` is of exactly those bytes.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from specgen import dtypes as dt
from specgen.vectors import recipe as rc
from specgen.vectors.codec import case_seed, from_bytes, to_bytes  # noqa: F401 (case_seed: re-exported)

FORMAT = 2  # 2: entries may carry a ``recipe`` instead of stored bytes (specgen.vectors.recipe)
READABLE = (1, 2)
MANIFEST = "manifest.json"
GENERATED_BY = "specgen generate"

_FIELDS = ("id", "op", "standard", "version", "dtype", "kind", "violations", "shapes", "dtypes", "strides",
           "in_place", "attributes", "attributes_given", "tolerance", "tags", "stored", "file", "offset", "nbytes",
           "sha256")


_FIELD_SET = frozenset(_FIELDS)


class CorpusError(Exception):
    """A corpus that cannot be read: missing files, bad manifest, data that fails its sha256."""


@dataclass
class Case:
    """One case of the corpus; fields mirror the manifest entry (see docs/ARCHITECTURE.md)."""

    id: str
    op: str
    standard: str
    version: str
    dtype: str
    kind: str  # "positive" | "negative"
    violations: list[str]
    shapes: dict[str, list[int]]
    dtypes: dict[str, str]
    strides: dict[str, list[int] | None]
    in_place: bool
    attributes: dict[str, Any]
    attributes_given: list[str]
    tolerance: dict[str, Any]
    tags: list[str]
    stored: list[str]
    file: str | None
    offset: int
    nbytes: int
    sha256: str
    root: Path | None = field(default=None, repr=False, compare=False)
    # a generated-on-the-fly member (specgen.vectors.recipe): {generator, source, seed, counts, rank, count}
    recipe: dict | None = None
    source: "Case | None" = field(default=None, repr=False, compare=False)
    family: dict | None = field(default=None, repr=False, compare=False)  # shared by a family's members

    @property
    def negative(self) -> bool:
        return self.kind == "negative"

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in _FIELDS}
        if self.recipe is not None:
            out["recipe"] = dict(self.recipe)
        return out

    @classmethod
    def from_json(cls, entry: dict, root: Path | None = None) -> "Case":
        if not _FIELD_SET.issubset(entry):
            missing = [k for k in _FIELDS if k not in entry]
            raise CorpusError(f"case {entry.get('id', '?')!r}: manifest entry lacks {', '.join(missing)}")
        fields = {k: entry[k] for k in _FIELDS}
        fields["attributes"] = decode_attributes(fields["attributes"])
        return cls(**fields, root=root)

    def raw(self) -> bytes:
        """The case's bytes, checked against its sha256 (a recipe's: its family's)."""
        if self.recipe is not None:
            return b"".join(to_bytes(a, self.dtypes[n]) for n, a in self.load().items())
        if self.nbytes == 0:
            data = b""
        else:
            if self.root is None or self.file is None:
                raise CorpusError(f"{self.id}: no data file")
            path = self.root / self.file
            try:
                with open(path, "rb") as fh:
                    fh.seek(self.offset)
                    data = fh.read(self.nbytes)
            except OSError as exc:
                raise CorpusError(f"{self.id}: cannot read {path}: {exc}") from None
            if len(data) != self.nbytes:
                raise CorpusError(f"{self.id}: {path} ends after {len(data)} of {self.nbytes} bytes at offset {self.offset}")
        digest = hashlib.sha256(data).hexdigest()
        if digest != self.sha256:
            raise CorpusError(f"{self.id}: sha256 mismatch (manifest {self.sha256[:12]}..., data {digest[:12]}...)")
        return data

    def load(self) -> dict[str, np.ndarray]:
        """{tensor: ndarray} for the stored tensors (bfloat16 as ml_dtypes.bfloat16), sha256-verified."""
        if self.recipe is not None:
            return self._materialise()
        data = self.raw()
        out: dict[str, np.ndarray] = {}
        pos = 0
        for name in self.stored:
            shape = self.shapes[name]
            d = dt.get(self.dtypes[name])
            count = int(np.prod(shape, dtype=np.int64)) if shape else 1
            size = count * d.bits // 8
            out[name] = from_bytes(data[pos:pos + size], self.dtypes[name], shape)
            pos += size
        if pos != len(data):
            raise CorpusError(f"{self.id}: {len(data)} bytes stored, shapes account for {pos}")
        return out


    def _materialise(self) -> dict[str, np.ndarray]:
        """A recipe member's tensors; the first member loaded verifies the whole family's sha256."""
        r = self.recipe
        if self.source is None:
            raise CorpusError(f"{self.id}: recipe source case {r.get('source')!r} is not in the corpus")
        src = self.source.load()
        src = {k: src[k] for k in self.stored}
        fam = self.family if self.family is not None else {}
        if not fam.get("verified"):
            digest, _, tensors = rc.digest(src, r["seed"], r["counts"], r["rank"], self.dtypes, keep=r["count"])
            if digest != self.sha256:
                raise CorpusError(f"{self.id}: recipe sha256 mismatch (manifest {self.sha256[:12]}..., generated "
                                  f"{digest[:12]}...): the generator or its source changed")
            fam["verified"] = True
            return tensors
        return rc.member(src, r["seed"], r["count"], r["rank"])


def _members(entry: dict, root: Path | None) -> list[Case]:
    """The cases of one recipe entry: one per count, ``<id>-<count>``."""
    r = entry["recipe"]
    if r.get("generator") != rc.GENERATOR:
        raise CorpusError(f"case {entry.get('id')!r}: unknown recipe generator {r.get('generator')!r} "
                          f"(this specgen knows {rc.GENERATOR!r})")
    family: dict = {}
    out = []
    for count in r["counts"]:
        fields = {k: entry[k] for k in _FIELDS}
        fields["id"] = f"{entry['id']}-{count}"
        fields["attributes"] = decode_attributes(fields["attributes"])  # an infinity, as Case.from_json reads it
        fields["shapes"] = {k: rc.shape_of(count, r["rank"]) for k in entry["stored"]}
        out.append(Case(**fields, root=root, recipe={**r, "count": count}, family=family))
    return out


@dataclass
class Corpus:
    root: Path
    cases: list[Case]
    manifest: dict

    def select(self, op: str | None = None, standard: str | None = None, version: str | None = None,
               dtype: str | None = None, kind: str | None = None) -> list[Case]:
        return [c for c in self.cases
                if (op is None or c.op == op) and (standard is None or c.standard == standard)
                and (version is None or c.version == str(version)) and (dtype is None or c.dtype == dtype)
                and (kind is None or c.kind == kind)]


# load_corpus's last results, each with the manifest bytes it was parsed from: a process that reads the
# same unchanged corpus again (each CLI command run in-process, the tests' many runs, a pytest plugin
# session) gets the cases back without parsing the manifest again (about 2 s for 37,000 cases). The
# bytes are compared whole, so an edited or regenerated manifest is always parsed afresh.
_LOADED: dict[str, tuple[bytes, list, dict]] = {}
_LOADED_KEEP = 4


def load_corpus(directory: str | Path | None = None) -> Corpus:
    """Read a corpus directory (default: the repository's or wheel's generated/vectors). The cases are
    shared with other loads of the same unchanged manifest in this process: treat them as read-only."""
    if directory is None:
        from specgen.resources import generated_dir
        directory = generated_dir() / "vectors"
    root = Path(directory)
    path = root / MANIFEST
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(f"no corpus at {root}: {MANIFEST} is missing (run `specgen generate`)") from None
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read the manifest: {exc}") from None
    key = str(root.resolve())
    known = _LOADED.get(key)
    if known is not None and known[0] == raw:
        return Corpus(root, list(known[1]), known[2])
    corpus = _parse_corpus(Path(key), path, raw)  # cases read their data by absolute path: shared across a chdir
    _LOADED.pop(key, None)
    _LOADED[key] = (raw, corpus.cases, corpus.manifest)
    while len(_LOADED) > _LOADED_KEEP:
        _LOADED.pop(next(iter(_LOADED)))
    return Corpus(root, list(corpus.cases), corpus.manifest)


def _parse_corpus(root: Path, path: Path, raw: bytes) -> Corpus:
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        raise CorpusError(f"{path}: cannot read the manifest: {exc}") from None
    if manifest.get("format") not in READABLE:
        raise CorpusError(f"{path}: format {manifest.get('format')!r}; this specgen reads formats "
                          f"{', '.join(map(str, READABLE))}")
    cases = []
    for e in manifest.get("cases", []):
        if "recipe" in e:
            missing = [k for k in _FIELDS if k not in e]
            if missing:
                raise CorpusError(f"case {e.get('id', '?')!r}: manifest entry lacks {', '.join(missing)}")
            cases.extend(_members(e, root))
        else:
            cases.append(Case.from_json(e, root))
    by_id = {c.id: c for c in cases}
    for c in cases:
        if c.recipe is not None:
            c.source = by_id.get(c.recipe["source"])
    return Corpus(root, cases, manifest)


def dump_manifest(cases: list[dict], extra: dict | None = None) -> str:
    """The manifest text: sorted keys, cases sorted by id, no timestamps, one trailing newline."""
    head = {"format": FORMAT, "generated_by": GENERATED_BY}
    head.update(extra or {})
    lines = [json.dumps(c, sort_keys=True, allow_nan=False) for c in sorted(cases, key=lambda c: c["id"])]
    # one case per line: small, and a regenerated corpus diffs case by case
    fields = ",\n".join(f" {json.dumps(k)}: {json.dumps(head[k], sort_keys=True)}" for k in sorted(head))
    return "{\n" + fields + ',\n "cases": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"


NONFINITE = "nonfinite"  # JSON has no NaN or infinity: such an attribute is {"nonfinite": "nan" | "inf" | "-inf"}


def encode_attributes(attributes: dict) -> dict:
    """Attribute values for the manifest: a NaN or infinite float as {"nonfinite": "nan"|"inf"|"-inf"}."""
    out = {}
    for k, v in attributes.items():
        if isinstance(v, float) and not math.isfinite(v):
            v = {NONFINITE: "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
        out[k] = v
    return out


def decode_attributes(attributes: dict) -> dict:
    """The manifest's attribute values back as Python values (encode_attributes reversed)."""
    return {k: (float(v[NONFINITE]) if type(v) is dict and len(v) == 1 and NONFINITE in v else v)
            for k, v in attributes.items()}


class CorpusWriter:
    """Collects cases in memory, grouped into one data file per (op, standard, version)."""

    def __init__(self):
        self._blobs: dict[str, bytearray] = {}
        self._cases: list[dict] = []
        self._ids: set[str] = set()

    def add(self, *, id: str, op: str, standard: str, version: str, dtype: str, kind: str,
            violations: list[str], shapes: dict, dtypes: dict, strides: dict, in_place: bool,
            attributes: dict, attributes_given: list[str], tolerance: dict, tags: list[str],
            tensors: dict[str, np.ndarray], file: str) -> dict:
        if id in self._ids:
            raise ValueError(f"duplicate case id {id!r}")
        self._ids.add(id)
        data = b"".join(to_bytes(arr, dtypes[name]) for name, arr in tensors.items())
        for name, arr in tensors.items():
            if list(np.shape(arr)) != list(shapes[name]):
                raise ValueError(f"{id}: tensor {name} has shape {list(np.shape(arr))}, manifest says {shapes[name]}")
        blob = self._blobs.setdefault(file, bytearray())
        entry = {"id": id, "op": op, "standard": standard, "version": str(version), "dtype": dtype, "kind": kind,
                 "violations": list(violations), "shapes": {k: [int(s) for s in v] for k, v in shapes.items()},
                 "dtypes": dict(dtypes), "strides": dict(strides), "in_place": bool(in_place),
                 "attributes": encode_attributes(attributes), "attributes_given": list(attributes_given),
                 "tolerance": dict(tolerance), "tags": list(tags), "stored": list(tensors),
                 "file": file if data else None, "offset": len(blob) if data else 0, "nbytes": len(data),
                 "sha256": hashlib.sha256(data).hexdigest()}
        blob.extend(data)
        self._cases.append(entry)
        return entry

    def add_recipe(self, *, id: str, source: str, seed: int, counts: list[int], rank: int, sha256: str,
                   nbytes: int, tags: list[str]) -> dict:
        """A family of generated-on-the-fly cases (specgen.vectors.recipe) gathered from the
        already added case ``source``: the source's fields, no stored bytes."""
        if id in self._ids:
            raise ValueError(f"duplicate case id {id!r}")
        src = next((c for c in self._cases if c["id"] == source), None)
        if src is None or src["kind"] != "positive":
            raise ValueError(f"{id}: recipe source {source!r} is not a positive case of this corpus")
        self._ids.add(id)
        entry = {**src, "id": id, "shapes": {}, "strides": {k: None for k in src["strides"]}, "in_place": False,
                 "tags": list(tags), "file": None, "offset": 0, "nbytes": int(nbytes), "sha256": sha256,
                 "recipe": {"generator": rc.GENERATOR, "source": source, "seed": int(seed), "counts": list(counts),
                            "rank": int(rank)}}
        self._cases.append(entry)
        return entry

    @property
    def cases(self) -> list[dict]:
        return list(self._cases)

    def merge(self, other: "CorpusWriter") -> None:
        """Take ``other``'s cases and data files (written apart, e.g. one operator in a worker process):
        its files must be new here (the offsets in its entries are into its own files)."""
        clash = sorted(set(other._blobs) & set(self._blobs))
        if clash:
            raise ValueError(f"data file {clash[0]!r} is written by both corpora")
        again = sorted(other._ids & self._ids)
        if again:
            raise ValueError(f"duplicate case id {again[0]!r}")
        self._blobs.update(other._blobs)
        self._cases.extend(other._cases)
        self._ids.update(other._ids)

    def write(self, directory: str | Path, extra: dict | None = None) -> list[Path]:
        """Write data files and manifest under ``directory``; returns the paths written."""
        root = Path(directory)
        written = []
        for file in sorted(self._blobs):
            path = root / file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(bytes(self._blobs[file]))
            written.append(path)
        root.mkdir(parents=True, exist_ok=True)
        (root / MANIFEST).write_text(dump_manifest(self._cases, extra))
        written.append(root / MANIFEST)
        return written
