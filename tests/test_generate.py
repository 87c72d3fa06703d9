"""specgen generate: --check, drift of the committed generated/, determinism, atomicity, headers."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main
from specgen.generate import corpus as cp
from specgen.generate.tree import EXHAUSTIVE, diff_trees, generate_into, tree_files

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
REPO_GENERATED = ROOT / "generated"


def _invoke(*args):
    result = CliRunner().invoke(main, ["generate", *args])
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes is not None else "")


def _digest(root: Path) -> dict[str, str]:
    return {p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in sorted(tree_files(root))}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "generated"
    code, output = _invoke("--out", str(out))
    assert code == 0, output
    assert "positive" in output and "negative" in output
    return out


@pytest.fixture(scope="module")
def one_op(tmp_path_factory) -> tuple[Path, Path]:
    """A spec tree of one operator (HardSigmoid) and what it generates: the --check tests need a
    full generation each, and one operator exercises them as well as twenty."""
    root = tmp_path_factory.mktemp("one_op")
    specs = root / "specs"
    specs.mkdir()
    for name in ("_standards.yaml", "hard_sigmoid.yaml"):
        shutil.copy(SPECS / name, specs / name)
    out = root / "generated"
    code, output = _invoke("--specs", str(specs), "--out", str(out))
    assert code == 0, output
    return specs, out


def test_generate_then_check_exits_0(one_op):
    specs, out = one_op
    code, output = _invoke("--specs", str(specs), "--out", str(out), "--check")
    assert code == 0, output
    assert "up to date" in output


def test_committed_generated_is_up_to_date(built):
    """CI's drift gate: the generated/ in the repository is what the specs generate (``built`` is a
    fresh generation from specs/; `specgen generate --check` compares the same way, and the tests
    above and below run it)."""
    diff = diff_trees(built, REPO_GENERATED)
    assert diff == {"added": [], "removed": [], "changed": []}, \
        f"{diff}\nrun `specgen generate` and commit generated/"


def test_same_bytes_from_a_second_process(built, tmp_path):
    """Determinism: another process (different hash seed, different directory) writes the same bytes."""
    out = tmp_path / "again"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-m", "specgen.cli", "generate", "--out", str(out)], check=True, env=env,
                   cwd=tmp_path, capture_output=True)
    assert _digest(out) == _digest(built)


def _spec_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "specs"
    shutil.copytree(SPECS, dst)
    return dst


def test_editing_a_spec_makes_check_fail(one_op, tmp_path):
    specs, built = one_op
    specs = shutil.copytree(specs, tmp_path / "specs")
    path = specs / "hard_sigmoid.yaml"
    text = path.read_text()
    assert "alpha: {name: Alpha, default: 0.2}" in text
    path.write_text(text.replace("alpha: {name: Alpha, default: 0.2}", "alpha: {name: Alpha, default: 0.25}"))
    code, output = _invoke("--specs", str(specs), "--out", str(built), "--check")
    assert code == 1
    assert "stale" in output
    assert "changed: reference/hard_sigmoid.py" in output
    assert "changed: vectors/manifest.json" in output
    assert f"(run `specgen generate --specs {specs} --out {built}`)" in output  # the user's own options


def test_a_broken_spec_gives_positions_and_leaves_generated_alone(built, tmp_path):
    target = tmp_path / "generated"
    shutil.copytree(built, target)
    before = _digest(target)
    specs = _spec_copy(tmp_path)
    path = specs / "shrink.yaml"
    path.write_text(path.read_text().replace("formula: where(x > threshold,", "formula: where(x > treshold,"))
    code, output = _invoke("--specs", str(specs), "--out", str(target))
    assert code == 1
    assert "Traceback" not in output
    assert "shrink.yaml:" in output and "formula: unknown name" in output and "treshold" in output
    assert "left as it was" in output
    assert _digest(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generated", "specs"]  # no temporary leftovers


@pytest.mark.parametrize("error", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_a_run_failing_midway_leaves_the_previous_tree(built, tmp_path, monkeypatch, error):
    target = tmp_path / "generated"
    shutil.copytree(built, target)
    (target / EXHAUSTIVE).mkdir()
    (target / EXHAUSTIVE / "marker").write_text("kept")
    before = _digest(target)

    def boom(*args, **kwargs):
        raise error

    monkeypatch.setattr(cp.OpCorpus, "large", boom)
    with pytest.raises(type(error)):
        generate_into(target)
    assert _digest(target) == before
    assert (target / EXHAUSTIVE / "marker").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generated"]


def test_regenerating_keeps_an_exhaustive_sweep(built, tmp_path):
    target = tmp_path / "generated"
    shutil.copytree(built, target)
    (target / EXHAUSTIVE).mkdir()
    (target / EXHAUSTIVE / "marker").write_text("kept")
    (target / "reference" / "stray.py").write_text("# not generated\n")
    diff = diff_trees(built, target)
    assert diff == {"added": [], "removed": ["reference/stray.py"], "changed": []}


def test_every_generated_file_names_its_source_and_says_do_not_edit(built):
    for path in sorted(built.rglob("*.py")):
        head = path.read_text().splitlines()[:2]
        assert head[0].startswith("# Generated by `specgen generate` from "), path
        assert "Do not edit" in head[1], path
    for op in ("hard_sigmoid", "shrink", "softsign"):
        assert f"from specs/{op}.yaml" in (built / "reference" / f"{op}.py").read_text()
    manifest = (built / "vectors" / "manifest.json").read_text()
    assert '"generated_by": "specgen generate"' in manifest and "do not edit" in manifest
    assert "do not edit" in (built / "README.md").read_text()
    assert not list(built.rglob("__pycache__"))


def test_reference_modules_import_only_numpy_and_ml_dtypes(built):
    for path in (built / "reference").glob("*.py"):
        imports = {line.split()[1].split(".")[0] for line in path.read_text().splitlines()
                   if line.startswith(("import ", "from ")) or line.startswith("    import ")}
        # the standard library's math (erf for numpy arrays, from the function table) is allowed too
        assert imports <= {"__future__", "fractions", "math", "numpy", "ml_dtypes"}, (path, imports)


def test_check_reports_a_missing_tree(one_op, tmp_path):
    code, output = _invoke("--specs", str(one_op[0]), "--out", str(tmp_path / "nothing"), "--check")
    assert code == 1 and "missing" in output


def test_swap_in_replaces_the_tree_and_carries_the_exhaustive_sweep(tmp_path):
    from specgen.generate.tree import _exchange, swap_in
    target, new = tmp_path / "generated", tmp_path / "new"
    (target / EXHAUSTIVE).mkdir(parents=True)
    (target / "old.txt").write_text("old")
    (target / EXHAUSTIVE / "sweep.bin").write_text("sweep")
    new.mkdir()
    (new / "new.txt").write_text("new")
    swap_in(new, target)
    assert sorted(p.name for p in target.iterdir()) == [EXHAUSTIVE, "new.txt"]
    assert (target / EXHAUSTIVE / "sweep.bin").read_text() == "sweep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generated"]
    if sys.platform.startswith("linux"):
        a, b = tmp_path / "a", tmp_path / "b"
        a.mkdir()
        b.mkdir()
        (a / "x").write_text("a")
        assert _exchange(a, b) and (b / "x").read_text() == "a"  # one atomic step on Linux


def test_refuses_to_replace_a_directory_it_did_not_write(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    code, output = _invoke("--out", str(tmp_path))
    assert code == 1 and "refusing to replace" in output
    assert (tmp_path / "precious.txt").read_text() == "keep me"
