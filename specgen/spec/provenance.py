"""Which specs a corpus was generated from, and whether it goes with the specs in use.

``specgen generate`` records in the manifest, under ``specs``, the sha256 of every spec file and of
the standards registry it read (text with line endings normalized, so a checkout with CRLF line
endings agrees). Every command that judges or lists a corpus checks it against the specs in use
before it reads a case: an operator, a standard's version or a tolerance that differs is named,
and then any other change of a spec file (a formula, an attribute range: what decides the golden
values). A corpus written before this record existed is checked on what its cases carry (operator,
standard, version, tolerance)."""
from __future__ import annotations

import hashlib
from pathlib import Path

from specgen.spec import semantic

MANIFEST_KEY = "specs"


def file_sha256(path: str | Path) -> str:
    text = Path(path).read_bytes().replace(b"\r\n", b"\n")
    return hashlib.sha256(text).hexdigest()


def record(specs: dict, directory: str | Path) -> dict:
    """What a manifest records of the specs it was generated from."""
    return {"standards": file_sha256(semantic.standards_file(directory)),
            "operators": {op_id: file_sha256(spec.path) for op_id, spec in sorted(specs.items())}}


def chosen_folder(specs: dict) -> str | None:
    """The folder ``specs`` were read from, when it is not the bundled specs/ (None then): what a
    re-run command must name with --specs."""
    from specgen.resources import specs_dir

    if not specs:
        return None
    folder = Path(next(iter(specs.values())).path).parent.resolve()
    return None if folder == specs_dir().resolve() else str(folder)


def specs_in_use_note(specs: dict) -> str:
    """Which specs folder is in use and how to choose another, for a message about an unknown name."""
    from specgen.resources import SPECS_ENV

    folder = chosen_folder(specs)
    return (f"the specs in {folder}" if folder else "the bundled specs") + \
        f"; --specs DIR or {SPECS_ENV}=DIR uses another specs folder"


def tolerance_record(spec, dtype: str) -> dict:
    """A case's tolerance as the manifest carries it."""
    t = spec.tolerance.get(dtype)
    if t is None:
        return {"metric": None, "value": None, "intermediate": None}
    return {"metric": t.metric, "value": t.value, "intermediate": t.intermediate}


def _short(digest) -> str:
    return f"{digest[:12]}..." if isinstance(digest, str) else repr(digest)


def differences(manifest: dict, cases, specs: dict) -> list[str]:
    """Every way the corpus (its manifest and cases) and the specs in use (``specs``, as loaded from
    one directory) disagree, one phrase each, at most one per operator, most specific first; [] when
    they go together."""
    found: list[str] = []
    named: set[str] = set()  # ops with a specific difference: their file hash is not repeated
    seen: set[tuple] = set()
    for case in cases:
        key = (case.op, case.standard, str(case.version), case.dtype)
        if key in seen or case.op in named:
            continue
        seen.add(key)
        spec = specs.get(case.op)
        if spec is None:
            found.append(f"operator {case.op!r} is in the corpus but not in the specs in use")
            named.add(case.op)
            continue
        std = spec.standards.get(case.standard)
        versions = [str(v.version) for v in std.versions] if std is not None else []
        if str(case.version) not in versions:
            has = f"versions {', '.join(versions)}" if std is not None else f"no standard {case.standard!r}"
            found.append(f"{case.op} {case.standard}-{case.version} is in the corpus but the spec in use has {has}")
            named.add(case.op)
            continue
        want = tolerance_record(spec, case.dtype)
        have = dict(case.tolerance or {})
        if have and have != want:
            found.append(f"{case.op} {case.dtype} tolerance: the corpus has {_tolerance_text(have)}, "
                         f"the spec in use {_tolerance_text(want)}")
            named.add(case.op)
    recorded = manifest.get(MANIFEST_KEY)
    if not isinstance(recorded, dict):
        return found
    operators = recorded.get("operators") or {}
    for op_id, digest in sorted(operators.items()):
        spec = specs.get(op_id)
        if op_id in named or spec is None:
            continue
        now = file_sha256(spec.path)
        if now != digest:
            found.append(f"{spec.path} is not the file {op_id} was generated from "
                         f"(sha256 {_short(now)}, the corpus records {_short(digest)})")
    if not specs:
        return found
    standards = semantic.standards_file(Path(next(iter(specs.values())).path).parent)
    now = file_sha256(standards)
    if recorded.get("standards") not in (None, now):
        found.append(f"{standards} is not the registry of standards the corpus was generated from "
                     f"(sha256 {_short(now)}, the corpus records {_short(recorded.get('standards'))})")
    return found


def _tolerance_text(t: dict) -> str:
    parts = [f"{k} {t.get(k)}" for k in ("metric", "value", "intermediate") if t.get(k) is not None]
    return ", ".join(parts) or "none"
