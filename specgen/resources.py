"""Where the bundled specs/ and templates/ are, for an editable checkout and an installed wheel alike."""
from __future__ import annotations

import os
from pathlib import Path

#: the environment variable naming the specs folder in use (``--specs`` sets it for the command's run)
SPECS_ENV = "SPECGEN_SPECS"

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    bundled = _PACKAGE / "_bundled" / name  # inside a built wheel (see pyproject force-include)
    if bundled.is_dir():
        return bundled
    checkout = _PACKAGE.parent / name  # editable install or running from the repository
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"specgen cannot find its {name}/ directory (looked in {bundled} and {checkout})")


def specs_dir() -> Path:
    return _find("specs")


def specs_in_use() -> Path:
    """The specs folder every command, the pytest plugin and the library read by default:
    $SPECGEN_SPECS when set (``--specs DIR`` sets it for one command), else the bundled specs/."""
    chosen = os.environ.get(SPECS_ENV)
    if not chosen:
        return specs_dir()
    path = Path(chosen)
    if not path.is_dir():
        raise FileNotFoundError(f"{SPECS_ENV}={chosen}: no such directory (the specs folder in use)")
    return path


def templates_dir() -> Path:
    return _find("templates")


def repo_root() -> Path | None:
    """The checkout root when running from a repository (where generated/ lives), else None."""
    root = _PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "specs").is_dir() else None


def generated_dir() -> Path:
    """generated/ (reference/, validate/, vectors/): the checkout's, or the one bundled in a wheel."""
    return _find("generated")
