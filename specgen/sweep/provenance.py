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

A bump may name the formula functions whose judgement it moved (``moved``: epoch -> {"functions",
"why"}; ``tools/judge_epoch.py --bump --functions sqrt,log``): a cell of an older epoch whose
operator's formulas call none of the functions every later bump names keeps its verdicts (and a
float32 cell its finished chunks). It may name operators per dtype instead, or as well
(``"operators": {"float64": ["sigmoid", ...]}``; ``--operators float64:sigmoid,swish``), when a
measurement over the cells' inputs showed which moved (a change to the reported error that only
some formulas' float64 evaluation reaches). A bump that names neither moves every cell.
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


def functions_called(spec) -> set[str]:
    """Every formula function the operator's formulas call: its own, each standard's, each choice's
    (GELU's erf and tanh), each reading's."""
    from specgen.formula import nodes as n

    roots = [spec.formula] + [std.formula for std in spec.standards.values()]
    roots += list(spec.choice.formulas.values()) if getattr(spec, "choice", None) is not None else []
    roots += [r.formula for std in spec.standards.values() for r in getattr(std, "readings", ())]
    return {node.func for root in roots if root is not None for node in n.walk(root) if isinstance(node, n.Call)}


def moved_between(old: int, new: int, spec, dtype: str | None = None) -> bool:
    """Whether a bump after epoch ``old`` up to ``new`` can have moved this operator's verdicts in
    ``dtype`` (None: in any dtype): one that names no functions and no operators moves every
    operator; one that names some, the operators that call those functions and the operators it
    names for the dtype."""
    moved = recorded().get("moved", {})
    called = None
    for epoch in range(int(old) + 1, int(new) + 1):
        entry = moved.get(str(epoch), {})
        named, ops = entry.get("functions") or [], entry.get("operators") or {}
        if not named and not ops:
            return True
        if named:
            called = functions_called(spec) if called is None else called
            if called & set(named):
                return True
        listed = ops.values() if dtype is None else [ops.get(dtype, [])]
        if any(spec.id in group for group in listed):
            return True
    return False


def epoch_moved(had, now: int, spec, dtype: str | None = None) -> bool:
    """Whether a record of judge epoch ``had`` (None or not a number: unknown) may judge this operator
    (in ``dtype``; None: in any) otherwise than epoch ``now``."""
    if had == now:
        return False
    return not isinstance(had, int) or moved_between(min(had, now), max(had, now), spec, dtype)


def same_judgement(had: dict | None, now: dict, spec, dtype: str | None = None) -> bool:
    """Two provenance records judge alike: the same spec digest, and epochs no bump between them
    moved for this operator (in ``dtype``)."""
    return bool(had) and had.get("spec") == now["spec"] and not epoch_moved(had.get("judge_epoch"),
                                                                              now["judge_epoch"], spec, dtype)


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
    if epoch_moved(have.get("judge_epoch"), now["judge_epoch"], spec, cell.get("dtype")):
        out.append(f"judge epoch {have.get('judge_epoch')}, now {now['judge_epoch']}")
    if have.get("spec") != now["spec"]:
        out.append("its spec or _standards.yaml changed since")
    return out
