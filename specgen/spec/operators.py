"""Every operator of a specs folder: the element-wise specs (``specgen.spec.loader``) and the
accumulating ones in its ``accumulating/`` subfolder (``specgen.indexing.spec``: reductions,
softmax, contractions, normalizations). Both kinds are ordinary operators of the runner, the
corpus and the adapters; a spec's ``engine`` ("elementwise" by default, "accumulating") says
which designer and which judge serve it."""
from __future__ import annotations

from pathlib import Path

ACCUMULATING = "accumulating"


def engine(spec) -> str:
    return getattr(spec, "engine", "elementwise")


def accumulating_dir(directory: str | Path | None = None) -> Path:
    from specgen.resources import specs_in_use

    return Path(directory or specs_in_use()) / ACCUMULATING


def load_accumulating(directory: str | Path | None = None) -> dict:
    """The accumulating specs of a specs folder ({} when it has no accumulating/ subfolder). The
    specs already loaded from the same bytes are returned again (specgen.indexing.spec.load_all
    compares every file, as specgen.spec.loader.load_all does): the tests' and the runner's repeated
    loads cost a read, not a parse and a validation per file (1.3 s for 17 specs)."""
    folder = accumulating_dir(directory)
    if not folder.is_dir():
        return {}
    from specgen.indexing.spec import load_all

    return load_all(folder)


def load_operators(directory: str | Path | None = None) -> dict:
    """{id: spec} of every operator, the element-wise ones first (their order is the corpus's)."""
    from specgen.spec.loader import load_all

    specs = load_all(directory)
    for op_id, spec in load_accumulating(directory).items():
        if op_id in specs:
            from specgen.indexing.space import IndexSpaceError

            raise IndexSpaceError(f"{spec.path}: operator id {op_id!r} is also {specs[op_id].path}")
        specs[op_id] = spec
    return specs


def elementwise(specs: dict) -> dict:
    return {k: s for k, s in specs.items() if engine(s) == "elementwise"}


def accumulating(specs: dict) -> dict:
    return {k: s for k, s in specs.items() if engine(s) == ACCUMULATING}
