"""The adapter example of docs/runner.md is a real package, docs/examples/mybackend/: the docs quote
its files verbatim, and it runs against the corpus and catches a planted bug (issue 24 item 4: the
example used to fail at import and on ONNX defaults)."""
from __future__ import annotations

import importlib.metadata as md
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "mybackend"
SELECTION = ["--op", "hard_sigmoid,shrink", "--version", "6,9", "--no-probe", "-q"]


def entry_point() -> tuple[str, str]:
    (name, value), = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]["entry-points"][
        "specgen.adapters"].items()
    return name, value


@pytest.fixture
def example_installed(monkeypatch):
    """The example on sys.path with its entry point faked (tests/test_adapters_discovery.py's way)."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    for module in ("mybackend", "mybackend_specgen"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    name, value = entry_point()
    eps = md.EntryPoints([md.EntryPoint(name=name, value=value, group="specgen.adapters")])
    monkeypatch.setattr(md, "entry_points", lambda **kw: eps.select(**kw) if kw else eps)
    return name


def test_the_example_passes_its_claims_and_catches_a_planted_bug(example_installed, monkeypatch):
    res = CliRunner().invoke(main, ["run", "--adapter", example_installed, *SELECTION])
    assert res.exit_code == 0, res.output
    counts = re.search(r"(\d+) pass, 0 fail, 0 error", res.output)
    assert counts and int(counts.group(1)) > 100, res.output  # must-reject cases included (rejects=True)
    import mybackend

    def shrink_with_the_threshold_bug(x, bias, lambd):  # >= and <= where the standard says > and <
        return mybackend.np.where(x <= -lambd, x + bias, mybackend.np.where(x >= lambd, x - bias, 0))

    monkeypatch.setitem(mybackend.KERNELS, "Shrink", (shrink_with_the_threshold_bug, ("bias", "lambd")))
    res = CliRunner().invoke(main, ["run", "--adapter", example_installed, *SELECTION])
    assert res.exit_code == 1, res.output
    assert "FAIL shrink/onnx-9/float32/" in res.output and "breakpoints" in res.output


def test_the_docs_quote_the_example_files_and_name_its_entry_point():
    docs = (ROOT / "docs" / "runner.md").read_text()
    for name in ("pyproject.toml", "mybackend_specgen.py"):
        assert (EXAMPLE / name).read_text() in docs, f"docs/runner.md does not quote docs/examples/mybackend/{name}"
    name, value = entry_point()
    line = f'{name} = "{value}"'
    assert line in docs and line in (ROOT / "README.md").read_text()


@pytest.mark.slow
def test_the_example_installs_with_pip_and_is_found_by_its_entry_point(tmp_path):
    """A real install (pip, the example's own pyproject.toml) into a folder on PYTHONPATH."""
    target = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                          str(EXAMPLE)], capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    name, _ = entry_point()
    run = subprocess.run([sys.executable, "-m", "specgen", "run", "--adapter", name, *SELECTION],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "(mybackend 0.1)" in run.stdout
