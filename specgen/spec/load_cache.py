"""An on-disk cache of loaded spec folders: a process that loads specs it has loaded before (every CLI
command, every worker process a run, sweep or test starts) unpickles them in about 0.1 s instead of
parsing and validating every file again (about 2.5 s for 65 specs, most of it YAML positions and
JSON Schema validation).

An entry is keyed by the SHA-256 of everything a load depends on: every file the load reads (path
and bytes), the source of this package (every ``.py`` and ``.json`` under specgen/, so an edit to the
loader, the model or the formula classes misses) and the Python version. Only successful loads are
stored: a folder with problems is parsed again every time, so its errors are always the loader's own.
An entry that cannot be read (truncated, from another pickle protocol, any exception) counts as a
miss and is rewritten. Writes are atomic (a temporary file, then ``os.replace``), so a reader never
sees half an entry; a folder that cannot be written (read-only home) just disables the cache.

The folder is ``$SPECGEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/specgen/specs``, else
``~/.cache/specgen/specs``; ``SPECGEN_NO_CACHE=1`` turns the cache off. Pickle runs code when it
loads, so entries are trusted as much as the user's own cache folder (as black's cache is); the
folder is created private (0700). At most ``KEEP`` entries are kept, the least recently used go.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

KEEP = 32
_PACKAGE = Path(__file__).resolve().parents[1]


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is off."""
    if os.environ.get("SPECGEN_NO_CACHE", "") not in ("", "0"):
        return None
    given = os.environ.get("SPECGEN_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "specgen" / "specs"


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of the package's own source (every .py and .json under specgen/) and the Python version."""
    h = hashlib.sha256(sys.version.encode())
    for p in sorted(_PACKAGE.rglob("*")):
        if p.suffix in (".py", ".json") and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(_PACKAGE)).encode() + b"\0")
            h.update(p.read_bytes())
    return h.hexdigest()


def key(contents: tuple) -> str:
    """The entry's name for a load that read ``contents`` ((path, bytes), ...)."""
    h = hashlib.sha256(code_digest().encode())
    for path, data in contents:
        h.update(path.encode() + b"\0" + len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def get(contents: tuple):
    """The stored load for ``contents``, or None (no cache, no entry, an unreadable entry)."""
    d = cache_dir()
    if d is None:
        return None
    path = d / f"{key(contents)}.pickle"
    try:
        with open(path, "rb") as f:
            value = pickle.load(f)
        os.utime(path)  # recently used: kept when older entries are pruned
        return value
    except Exception:  # noqa: BLE001 - no entry, or an unreadable one: a miss (put() rewrites it)
        return None


def put(contents: tuple, value) -> None:
    """Store a successful load; never raises (a cache that cannot be written is no cache)."""
    d = cache_dir()
    if d is None:
        return
    try:
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".partial")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, d / f"{key(contents)}.pickle")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _prune(d)
    except Exception:  # noqa: BLE001 - read-only or full disk, unpicklable value: no cache
        return


def _prune(d: Path) -> None:
    entries = sorted(d.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for p in entries[KEEP:]:
        p.unlink(missing_ok=True)
