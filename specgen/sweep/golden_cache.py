"""Golden values of sweep chunks kept on disk, so that the next sweep of the same inputs (the same
operator, standard, dtype, attributes and input space, another backend) reads them instead of
computing them again: for a transcendental operator's float32 sweep the golden values are 40-80% of
the work, and the accuracy matrix sweeps each operator once per backend.

Opt-in: ``specgen sweep --golden-cache DIR`` / ``specgen matrix --golden-cache DIR`` (environment
variable ``SPECGEN_GOLDEN_CACHE``, which the sweep's worker processes inherit). A chunk's file is the
golden values' bytes in the sweep's dtype (4 bytes per float32 input: 16 GiB for every float32 bit
pattern of one operator), named by a digest of what decides them: the sweep's inputs (operator,
standard, dtype, attributes, further inputs held, input space, chunk bounds), the operator's spec
file (``provenance.spec_digest``) and the judge's source files (``provenance.sources_digest``), so a
changed spec or judge never reads an older value. Nothing is evicted: delete DIR (or a sweep's
folder in it) when done. A file that cannot be read, or holds the wrong number of bytes, is computed
again and rewritten; writes go to a temporary name first (a reader never sees half a file).
"""
from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from specgen import dtypes as dt

ENV = "SPECGEN_GOLDEN_CACHE"


def directory() -> Path | None:
    """The cache folder this process uses (None: no cache)."""
    d = os.environ.get(ENV, "")
    return Path(d) if d else None


@lru_cache(maxsize=None)
def _judge_digest() -> str:
    from specgen.sweep.provenance import sources_digest

    return sources_digest()


_KEYS: dict = {}  # (sweep, spec file) -> folder name: a chunk's load and store, every chunk of a sweep


def sweep_key(sweep, spec) -> str:
    """The folder name of a sweep's golden values: a digest of everything but the backend (computed
    once per sweep and process: the spec file is read once, not at every chunk)."""
    key = (sweep, str(spec.path), _judge_digest())
    if key not in _KEYS:
        _KEYS[key] = _sweep_key(sweep, spec)
    return _KEYS[key]


def _sweep_key(sweep, spec) -> str:
    from specgen.sweep.provenance import spec_digest

    ident = sweep.identity()
    what = {k: ident[k] for k in ("op", "standard", "dtype", "attributes", "space")}
    what["extra_inputs"] = ident.get("extra_inputs", {})
    what["spec"] = spec_digest(spec)
    what["judge"] = _judge_digest()
    text = json.dumps(what, sort_keys=True, default=repr)
    return f"{sweep.op}-{sweep.dtype}-{hashlib.sha256(text.encode()).hexdigest()[:20]}"


def _path(root: Path, sweep, spec, lo: int, hi: int) -> Path:
    return root / sweep_key(sweep, spec) / f"{lo:x}-{hi:x}.bin"


def load(sweep, spec, lo: int, hi: int) -> np.ndarray | None:
    """The golden values of indices lo..hi (inclusive) if the cache holds them, else None."""
    root = directory()
    if root is None:
        return None
    path = _path(root, sweep, spec, lo, hi)
    want = dt.get(sweep.dtype).numpy
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if len(raw) != (hi - lo + 1) * np.dtype(want).itemsize:
        return None
    return np.frombuffer(raw, dtype=want).copy()


def store(sweep, spec, lo: int, hi: int, values: np.ndarray) -> None:
    """Keep the golden values of indices lo..hi; a cache that cannot be written is skipped (the
    sweep's result does not depend on it)."""
    root = directory()
    if root is None:
        return
    path = _path(root, sweep, spec, lo, hi)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(np.ascontiguousarray(values, dtype=dt.get(sweep.dtype).numpy).tobytes())
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
