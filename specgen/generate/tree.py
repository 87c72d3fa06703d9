"""Build the whole generated/ tree into a directory, swap it in atomically, and compare trees."""
from __future__ import annotations

import contextlib
import filecmp
import importlib.util
import itertools
import os
import shutil
import sys
import tempfile
from pathlib import Path

from specgen.errors import Problem, SpecError
from specgen.formula.breakpoints import NotRational
from specgen.generate import corpus as cp
from specgen.generate import render
from specgen.resources import specs_in_use
from specgen.spec import provenance
from specgen.spec.loader import load_all
from specgen.vectors import CorpusWriter

EXHAUSTIVE = "exhaustive"  # generated/exhaustive: opt-in, never committed (generated/.gitignore)
README = """# generated/ — do not edit

Everything here is written by `specgen generate` from specs/*.yaml through templates/.
Change a spec or a template and run `specgen generate`; `specgen generate --check` fails when
this directory is stale.

- reference/<op>.py: standalone numpy reference per operator
- validate/<op>.py: validation tables per operator on the shared validate/_checks.py (the
  accumulating operators': on validate/_index_space.py, specgen's index-space engine)
- vectors/: the golden vector corpus (manifest.json + one .bin per operator, standard and version);
  format in docs/ARCHITECTURE.md and docs/vectors.md
- exhaustive/: all 65,536 values of each 16-bit float dtype, written by `specgen generate --exhaustive`
  (not committed)
"""
GITIGNORE = "# written by `specgen generate --exhaustive`; too big to commit\nexhaustive/\n"

_counter = itertools.count()


def import_generated(root: str | Path, kind: str, op: str):
    """Import generated/<kind>/<op>.py (kind: reference or validate) from ``root`` under a private name."""
    root = Path(root)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # never leave __pycache__ in generated/
    try:
        return _import(root, kind, op)
    finally:
        sys.dont_write_bytecode = saved


def _import(root: Path, kind: str, op: str):
    if kind == "reference":
        path = root / "reference" / f"{op}.py"
        spec = importlib.util.spec_from_file_location(f"_specgen_generated_ref_{next(_counter)}_{op}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    pkg_name = f"_specgen_generated_{kind}_{next(_counter)}"
    pkg_dir = root / kind
    pkg_spec = importlib.util.spec_from_file_location(pkg_name, pkg_dir / "__init__.py",
                                                      submodule_search_locations=[str(pkg_dir)])
    pkg = importlib.util.module_from_spec(pkg_spec)
    sys.modules[pkg_name] = pkg
    pkg_spec.loader.exec_module(pkg)
    mod_spec = importlib.util.spec_from_file_location(f"{pkg_name}.{op}", pkg_dir / f"{op}.py")
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[f"{pkg_name}.{op}"] = module
    mod_spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _generating(spec, stage: str):
    """A spec that lint accepts but the generator cannot handle (an overflow in golden values, a
    shape the designer has no case for) fails as a problem naming the spec, not a traceback:
    specs are untrusted input (issue 15). SPECGEN_TRACEBACK=1 re-raises, for debugging."""
    try:
        yield
    except SpecError:
        raise
    except (ArithmeticError, ValueError, LookupError, TypeError, MemoryError, RecursionError, NotRational) as exc:
        if os.environ.get("SPECGEN_TRACEBACK"):
            raise
        text = " ".join(str(exc).split())[:300] or "(no message)"
        raise SpecError([Problem(spec.path, None, "", f"generate cannot handle this spec while {stage}: "
                                                      f"{type(exc).__name__}: {text} (lint accepts it: this is a "
                                                      f"limit of the generator; SPECGEN_TRACEBACK=1 shows where)")]) from None


def write_code(out: Path, specs: dict, accumulating: dict | None = None) -> None:
    """Write reference/<op>.py and validate/ (the shared checks and <op>.py) for ``specs`` under
    ``out``: generated/'s code, and the reference adapter's for specs other than the bundled ones.
    ``accumulating``: the operators over index sets, which get validate/<op>.py on the shared
    validate/_index_space.py (their reference is the engine itself: specgen.indexing.reference)."""
    env = render.environment()
    for kind in ("reference", "validate"):
        (out / kind).mkdir(parents=True, exist_ok=True)
    (out / "validate" / "__init__.py").write_text(render.shared_module(env, "validate/__init__.py.j2"))
    (out / "validate" / "_checks.py").write_text(render.shared_module(env, "validate/_checks.py.j2"))
    for op_id, spec in specs.items():
        with _generating(spec, "writing its reference and validation modules"):
            (out / "reference" / f"{op_id}.py").write_text(render.reference_module(env, spec), encoding="utf-8")
            (out / "validate" / f"{op_id}.py").write_text(render.validate_module(env, spec), encoding="utf-8")
    if accumulating:
        (out / "validate" / "_index_space.py").write_text(render.index_space_module(env), encoding="utf-8")
        for op_id, spec in accumulating.items():
            with _generating(spec, "writing its validation module"):
                (out / "validate" / f"{op_id}.py").write_text(render.index_validate_module(env, spec), encoding="utf-8")


def build(out: Path, specs_dir: str | Path | None = None, exhaustive: bool = False, progress=None) -> cp.Stats:
    """Write the complete tree into ``out`` (an empty or new directory). Raises SpecError on bad specs.
    ``progress(done, total, label)`` is called after each operator (``done`` counts its standards'
    versions). Operators are designed in parallel worker processes (SPECGEN_JOBS, default: the CPUs
    this process may use) and merged in id order: the tree is byte-identical to a one-process build."""
    from specgen.spec.operators import ACCUMULATING, load_accumulating

    specs = load_all(specs_dir)
    accumulating = load_accumulating(specs_dir)
    total = sum(len(std.versions) for spec in specs.values() for std in spec.standards.values())
    out.mkdir(parents=True, exist_ok=True)
    (out / "README.md").write_text(README)
    (out / ".gitignore").write_text(GITIGNORE)
    write_code(out, specs, accumulating)
    jobs = [(ELEMENTWISE, op_id) for op_id in specs] + [(ACCUMULATING, op_id) for op_id in accumulating]
    done = 0

    def finished(kind, op_id):
        nonlocal done
        if kind == ELEMENTWISE:
            done += sum(len(std.versions) for std in specs[op_id].standards.values())
            label = op_id
        else:
            label = f"{op_id} (accumulating)"
        if progress:
            progress(done, total, label)

    results = _design_all(jobs, {ELEMENTWISE: specs, ACCUMULATING: accumulating}, out, finished)
    stats = cp.Stats()
    writer = CorpusWriter()
    for job in jobs:  # merged in the serial order, whatever order the workers finished in
        part, part_stats = results[job]
        writer.merge(part)
        stats.add(part_stats)
    sources = {op_id: render.spec_source(s) for op_id, s in specs.items()}
    sources.update({op_id: f"specs/{ACCUMULATING}/{Path(s.path).name}" for op_id, s in accumulating.items()})
    generated_from = provenance.record({**specs, **accumulating}, specs_dir or specs_in_use())  # judged by exactly these specs
    writer.write(out / "vectors", extra={"sources": sources, provenance.MANIFEST_KEY: generated_from,
                                         "note": "do not edit: written by `specgen generate`"})
    if exhaustive:
        ex_writer = CorpusWriter()
        for spec in specs.values():
            cp.exhaustive_cases(spec, ex_writer)
        ex_writer.write(out / EXHAUSTIVE, extra={"sources": sources, provenance.MANIFEST_KEY: generated_from,
                                                "note": "do not edit: written by `specgen generate --exhaustive`"})
    return stats


ELEMENTWISE = "elementwise"
_WORK: dict = {}  # what forked workers design from: {"specs": {kind: {op_id: spec}}, "out": Path}


def _design(kind: str, op_id: str) -> tuple[CorpusWriter, cp.Stats]:
    """Every case of one operator, in a writer of its own."""
    spec, out = _WORK["specs"][kind][op_id], _WORK["out"]
    writer, stats = CorpusWriter(), cp.Stats()
    with _generating(spec, "designing its golden vectors"):
        if kind == ELEMENTWISE:
            validate = import_generated(out, "validate", op_id).validate
            oc = cp.OpCorpus(spec, writer, stats, validate)
            for std in spec.standards.values():
                for ver in std.versions:
                    for dtype in cp.case_dtypes(ver, oc.inputs):
                        oc.row(std, ver, dtype)
                        oc.attribute_boundaries(std, ver, dtype)
                    oc.negatives(std, ver)
                oc.size_cases(std)
            std, ver, dtype = cp.large_case_choice(spec, oc.x)
            oc.large(std, ver, dtype)
        else:
            from specgen.indexing import corpus as accumulating_corpus
            accumulating_corpus.write(spec, writer, stats)
    return writer, stats


def generate_jobs() -> int:
    """How many worker processes generate uses: SPECGEN_JOBS, else the CPUs this process may use; 1
    (in this process) inside a daemonic process, which may not start children."""
    import multiprocessing

    if multiprocessing.current_process().daemon:
        return 1
    raw = os.environ.get("SPECGEN_JOBS", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            raise SpecError([Problem("SPECGEN_JOBS", None, "", f"must be a whole number of processes, got {raw!r}")]) from None
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _design_all(jobs: list, specs: dict, out: Path, finished) -> dict:
    """{job: (writer, stats)} for every (kind, op_id) job. After a job fails in a worker, the jobs not
    finished are designed here in order, so the error raised is the one a one-process build raises
    first (a SpecError naming the spec), not a worker's traceback."""
    _WORK.update(specs=specs, out=out)
    results: dict = {}
    workers = min(generate_jobs(), len(jobs))
    try:
        if workers > 1 and sys.platform != "win32":
            _design_in_workers(jobs, workers, results, finished)
        for job in jobs:  # every job with one process; after a worker's failure, those left
            if job not in results:
                results[job] = _design(*job)
                finished(*job)
        return results
    finally:
        _WORK.clear()


def _design_in_workers(jobs: list, workers: int, results: dict, finished) -> None:
    import concurrent.futures as cf
    import multiprocessing

    pool = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        futures = {pool.submit(_design, *job): job for job in jobs}
        for future in cf.as_completed(futures):
            try:
                results[futures[future]] = future.result()
            except Exception:  # noqa: BLE001 - the caller designs what is left and raises the error as it is
                return
            finished(*futures[future])
    finally:  # on an error or Ctrl-C: the jobs not started are dropped, not designed first
        pool.shutdown(wait=True, cancel_futures=True)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths (Linux renameat2 RENAME_EXCHANGE); False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def swap_in(new: Path, target: Path, keep_exhaustive: bool = True) -> None:
    """Replace ``target`` by ``new`` (same parent). On Linux the two trees are exchanged in one
    atomic step; elsewhere the old tree is renamed aside and the new one renamed in (a moment
    without ``target``, restored on failure). The old tree is deleted afterwards. An existing
    exhaustive/ is carried over unless ``new`` has its own."""
    if not target.exists():
        os.rename(new, target)
        return
    carried = keep_exhaustive and (target / EXHAUSTIVE).is_dir() and not (new / EXHAUSTIVE).exists()
    if carried:
        os.rename(target / EXHAUSTIVE, new / EXHAUSTIVE)
    try:
        if _exchange(new, target):
            shutil.rmtree(new, ignore_errors=True)  # ``new`` now holds the previous tree
            return
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
        os.rename(target, old / target.name)
        try:
            os.rename(new, target)
        except BaseException:
            os.rename(old / target.name, target)
            raise
    except BaseException:
        if carried and (new / EXHAUSTIVE).is_dir():
            os.rename(new / EXHAUSTIVE, target / EXHAUSTIVE)
        raise
    shutil.rmtree(old, ignore_errors=True)


class NotAGeneratedTree(Exception):
    """``--out`` names a non-empty directory that `specgen generate` did not write."""


def is_generated_tree(path: Path) -> bool:
    readme = path / "README.md"
    return readme.is_file() and readme.read_text(errors="replace").startswith(README.splitlines()[0])


def generate_into(target: Path, specs_dir=None, exhaustive: bool = False, progress=None) -> cp.Stats:
    """Build beside ``target`` and swap in; on any failure the previous tree stays untouched.
    Refuses to replace a non-empty directory that is not a generated tree."""
    target = Path(target).resolve()
    if target.exists() and (not target.is_dir() or (any(target.iterdir()) and not is_generated_tree(target))):
        raise NotAGeneratedTree(f"refusing to replace {target}: it is not a tree written by `specgen generate` "
                                f"(no generated README.md); choose an empty or new directory")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-new-", dir=target.parent))
    try:
        stats = build(tmp / "tree", specs_dir, exhaustive, progress)
        swap_in(tmp / "tree", target)
        return stats
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def tree_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and p.relative_to(root).parts[0] != EXHAUSTIVE and "__pycache__" not in p.parts}


def diff_trees(expected: Path, actual: Path) -> dict[str, list[str]]:
    """{added, removed, changed}: what regenerating would add to, remove from or change in ``actual``."""
    want, have = tree_files(expected), tree_files(actual) if actual.exists() else set()
    changed = sorted(p for p in want & have if not filecmp.cmp(expected / p, actual / p, shallow=False))
    return {"added": sorted(want - have), "removed": sorted(have - want), "changed": changed}
