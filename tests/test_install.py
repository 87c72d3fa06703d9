"""An installed (non-editable) specgen finds its bundled specs/ and templates/.

Builds a wheel from this checkout, installs it with --no-deps --no-index into a fresh venv whose
dependencies come from the running interpreter's site-packages (a .pth line, placed after the venv's
own site-packages, so the wheel's specgen is the one imported), and runs that venv's `specgen`
from a directory outside the repository.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # builds a wheel and a venv (~20 s): `-m slow`


def _run(args, cwd, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _check(result):
    assert result.returncode == 0, f"{result.args}\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("install")
    wheels = tmp / "wheels"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, REPO]
    if importlib.util.find_spec("hatchling") is not None:
        build.insert(4, "--no-build-isolation")  # build offline with the hatchling already here
    _check(_run(build, cwd=tmp))
    (wheel,) = wheels.glob("specgen-*.whl")

    venv = tmp / "venv"
    _check(_run([sys.executable, "-m", "venv", venv], cwd=tmp))
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    purelib = _check(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp)).stdout.strip()
    deps = sysconfig.get_paths()["purelib"]  # numpy, jinja2, ... of the interpreter running the tests
    Path(purelib, "_specgen_test_dependencies.pth").write_text(deps + "\n")
    _check(_run([python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel], cwd=tmp))
    outside = tmp / "elsewhere"
    outside.mkdir()
    return {"venv": venv, "bin": bin_dir, "python": python, "cwd": outside, "wheel": wheel}


def test_wheel_bundles_specs_and_templates(installed):
    import zipfile

    names = zipfile.ZipFile(installed["wheel"]).namelist()
    assert "specgen/_bundled/specs/_standards.yaml" in names
    assert "specgen/_bundled/specs/hard_sigmoid.yaml" in names
    assert "specgen/_bundled/templates/show/directml.md.j2" in names
    assert "specgen/schemas/operator.schema.json" in names and "specgen/schemas/standards.schema.json" in names


def test_installed_package_imports_from_the_venv_and_finds_bundled_files(installed):
    code = ("import specgen, specgen.resources as r; print(specgen.__file__); "
            "print(r.specs_dir()); print(r.templates_dir())")
    out = _check(_run([installed["python"], "-c", code], cwd=installed["cwd"])).stdout.splitlines()
    venv = str(installed["venv"].resolve())
    assert all(line.startswith(venv) for line in out), out
    assert out[1].endswith(os.path.join("_bundled", "specs"))
    assert out[2].endswith(os.path.join("_bundled", "templates"))


def test_installed_specgen_lint_passes_outside_the_repository(installed):
    result = _check(_run([installed["bin"] / "specgen", "lint"], cwd=installed["cwd"]))
    ids = [p.stem for folder in (REPO / "specs", REPO / "specs" / "accumulating")  # element-wise first, as lint lists them
           for p in sorted(folder.glob("*.yaml")) if not p.name.startswith("_")]
    assert result.stdout.splitlines() == [f"lint: {len(ids)} spec(s) OK ({', '.join(ids)})"]


def test_installed_specgen_show_renders_from_bundled_templates(installed):
    result = _check(_run([installed["bin"] / "specgen", "show", "hard_sigmoid"], cwd=installed["cwd"]))
    assert "## Special values" in result.stdout.splitlines()
    assert "| InputTensor | Input | 1 to 8 | FLOAT32, FLOAT16 |" in result.stdout.splitlines()
    result = _check(_run([installed["bin"] / "specgen", "show", "hard_sigmoid", "--standard", "directml"],
                         cwd=installed["cwd"]))
    assert "### DML_FEATURE_LEVEL_3_0 and above" in result.stdout.splitlines()
    result = _check(_run([installed["bin"] / "specgen", "list"], cwd=installed["cwd"]))
    assert "hard_sigmoid" in result.stdout
