"""What a matrix cell's verdicts were judged by, so that a cell judged by an older spec or judge is
known as stale (re-run by ``specgen matrix``, marked on the page) instead of standing as current.

A cell's verdicts are a function of four things: the inputs (the cell's identity), the backend's
outputs (its version is in the cell's ``info.backend``), the operator's spec (formula, tolerances,
special-value rules: its file and the specs folder's ``_standards.yaml``) and the judge (golden
values, the error model, compare, the sweep's summary). The spec is recorded by digest. The judge
is recorded by an **epoch**, a number kept in ``judge_epoch.json`` beside this module together with
a digest of the judge's source files (``JUDGE_SOURCES``): ``tools/judge_epoch.py`` refreshes the
digest when a change leaves every verdict as it was (a refactor, a faster tier proven equal) and
bumps the epoch when verdicts change, and a test fails while the digest is out of date, so every
change to the judge is one of the two on purpose. Source digests alone would make every refactor
re-run hours of float32 sweeps; an epoch alone would be forgotten.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # specgen/
EPOCH_FILE = Path(__file__).with_name("judge_epoch.json")
# the judge's sources, relative to the package: what decides golden values and verdicts
JUDGE_SOURCES = ("numerics/*.py", "formula/*.py", "dtypes.py",
                 "sweep/chunk.py", "sweep/judge.py", "sweep/space.py", "sweep/summary.py")
STANDARDS_FILE = "_standards.yaml"


def judge_files() -> list[Path]:
    return sorted({p for pattern in JUDGE_SOURCES for p in PACKAGE.glob(pattern)})


def sources_digest() -> str:
    """sha256 over the judge's source files (their paths relative to the package, and their bytes)."""
    h = hashlib.sha256()
    for p in judge_files():
        h.update(p.relative_to(PACKAGE).as_posix().encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


def recorded() -> dict:
    """{"epoch": N, "sources": digest} as judge_epoch.json records them."""
    return json.loads(EPOCH_FILE.read_text())


def judge_epoch() -> int:
    return int(recorded()["epoch"])


def _standards_of(spec_path: Path) -> Path | None:
    for d in spec_path.parents:
        if (d / STANDARDS_FILE).is_file():
            return d / STANDARDS_FILE
    return None


def spec_digest(spec) -> str:
    """sha256 of the operator's spec file and of its specs folder's _standards.yaml (the first
    16 hex digits: a cell's JSON stays small, and a collision needs an adversary)."""
    path = Path(spec.path)
    h = hashlib.sha256(path.read_bytes())
    std = _standards_of(path)
    if std is not None:
        h.update(b"\0" + std.read_bytes())
    return h.hexdigest()[:16]


def provenance(spec) -> dict:
    """What a cell judged now is judged by: {"judge_epoch": N, "spec": digest}."""
    return {"judge_epoch": judge_epoch(), "spec": spec_digest(spec)}


def stale_reasons(cell: dict, spec) -> list[str]:
    """Why a cell's verdicts are not those of the current spec and judge ([] when they are)."""
    have = cell.get("provenance")
    if not have:
        return ["judged before cells recorded their spec and judge"]
    if spec is None:
        return [f"its operator {cell.get('op')!r} is not in the specs"]
    now = provenance(spec)
    out = []
    if have.get("judge_epoch") != now["judge_epoch"]:
        out.append(f"judge epoch {have.get('judge_epoch')}, now {now['judge_epoch']}")
    if have.get("spec") != now["spec"]:
        out.append("its spec or _standards.yaml changed since")
    return out
