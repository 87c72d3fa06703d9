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

FORMAT = 1
MANIFEST = "manifest.json"
GENERATED_BY = "specgen generate"

_FIELDS = ("id", "op", "standard", "version", "dtype", "kind", "violations", "shapes", "dtypes", "strides",
           "in_place", "attributes", "attributes_given", "tolerance", "tags", "stored", "file", "offset", "nbytes",
           "sha256")


class CorpusError(Exception):
    """A corpus that cannot be read: missing files, bad manifest, data that fails its sha256."""


def case_seed(case_id: str, salt: str = "") -> int:
    """A 64-bit seed derived from a case id (sha256; never Python's salted hash())."""
    return int.from_bytes(hashlib.sha256(f"{salt}{case_id}".encode()).digest()[:8], "little")


def _le(dtype: np.dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    return dtype.newbyteorder("<") if dtype.itemsize > 1 and dtype.kind in "iuf" else dtype


def to_bytes(array: np.ndarray, dtype_name: str) -> bytes:
    d = dt.get(dtype_name)
    arr = np.ascontiguousarray(np.asarray(array, dtype=d.numpy))
    return arr.view(d.uint_view).astype(_le(d.uint_view), copy=False).tobytes()


def from_bytes(data: bytes, dtype_name: str, shape) -> np.ndarray:
    d = dt.get(dtype_name)
    raw = np.frombuffer(data, dtype=_le(d.uint_view)).astype(d.uint_view)
    return raw.view(d.numpy).reshape(tuple(shape))


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

    @property
    def negative(self) -> bool:
        return self.kind == "negative"

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in _FIELDS}

    @classmethod
    def from_json(cls, entry: dict, root: Path | None = None) -> "Case":
        missing = [k for k in _FIELDS if k not in entry]
        if missing:
            raise CorpusError(f"case {entry.get('id', '?')!r}: manifest entry lacks {', '.join(missing)}")
        fields = {k: entry[k] for k in _FIELDS}
        fields["attributes"] = decode_attributes(fields["attributes"])
        return cls(**fields, root=root)

    def raw(self) -> bytes:
        """The case's bytes, checked against its sha256."""
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


def load_corpus(directory: str | Path | None = None) -> Corpus:
    """Read a corpus directory (default: the repository's or wheel's generated/vectors)."""
    if directory is None:
        from specgen.resources import generated_dir
        directory = generated_dir() / "vectors"
    root = Path(directory)
    path = root / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise CorpusError(f"no corpus at {root}: {MANIFEST} is missing (run `specgen generate`)") from None
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{path}: cannot read the manifest: {exc}") from None
    if manifest.get("format") != FORMAT:
        raise CorpusError(f"{path}: format {manifest.get('format')!r}; this specgen reads format {FORMAT}")
    cases = [Case.from_json(e, root) for e in manifest.get("cases", [])]
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
    return {k: (float(v[NONFINITE]) if isinstance(v, dict) and set(v) == {NONFINITE} else v)
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

    @property
    def cases(self) -> list[dict]:
        return list(self._cases)

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
