"""An export owns its output folder: it is built beside the folder and swapped in as a whole, so a
re-export never leaves cases of an earlier one behind (issue 24: a harness would run stale tests).

A folder an export wrote carries a marker file; a non-empty folder without one is refused unless
the caller asks to replace it."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Callable

MARKER = ".specgen-export"


class NotAnExportFolder(Exception):
    """``--out`` names a non-empty folder that `specgen export` did not write."""


def written_by_export(path: Path) -> bool:
    return (path / MARKER).is_file()


def export_into(out: Path, fmt: str, write: Callable[[Path], dict], replace: bool = False) -> dict:
    """Run ``write(folder)`` into a new folder beside ``out`` and swap it in for ``out`` (atomically
    on Linux); ``out``'s previous content is deleted. On any failure ``out`` stays as it was.
    Refuses a non-empty ``out`` without the marker unless ``replace``."""
    from specgen.generate.tree import swap_in

    out = Path(out).absolute()
    if out.is_dir() and any(out.iterdir()) and not written_by_export(out) and not replace:
        raise NotAnExportFolder(f"{out} is not empty and was not written by `specgen export`; "
                                f"choose a new or empty folder, or pass --replace to replace it as a whole")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-export-", dir=out.parent))
    try:
        new = tmp / out.name
        new.mkdir()
        stats = write(new)
        (new / MARKER).write_text(f"written by `specgen export --format {fmt}`: the next export into this folder "
                                  f"replaces it as a whole\n", encoding="utf-8")
        swap_in(new, out, keep_exhaustive=False)
        return stats
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
