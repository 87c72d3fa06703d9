"""Issue 25, end to end: a team writes a spec for an operator specgen does not ship
(tests/fixtures/own_specs/team_bump.yaml) and uses every command on it with --specs (or
SPECGEN_SPECS); a corpus generated from one set of specs is never judged by another (exit 2,
naming the difference). One small corpus, generated once, serves every step."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main
from specgen.resources import SPECS_ENV, specs_dir

pytest_plugins = ["pytester"]

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "own_specs" / "team_bump.yaml"
WRONG = "fake_adapters.team_bump:TeamBumpWrong"


def specgen(*args, env=None):
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    return result.exit_code, result.output  # stdout and stderr as a terminal shows them


def own_specs(directory: Path, edit=None) -> Path:
    """A team's specs folder: the registry of standards and the team's operator (``edit`` changes
    the operator's text)."""
    directory.mkdir(parents=True)
    shutil.copy(specs_dir() / "_standards.yaml", directory)
    text = FIXTURE.read_text()
    (directory / FIXTURE.name).write_text(edit(text) if edit else text)
    return directory


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    """(specs folder, generated tree) of the team's operator: `specgen lint` and `generate` pass."""
    root = tmp_path_factory.mktemp("own")
    specs = own_specs(root / "myspecs")
    code, out = specgen("lint", "--specs", specs)
    assert code == 0 and "1 spec(s) OK (team_bump)" in out, out
    code, out = specgen("generate", "--specs", specs, "--out", root / "mygen", "--no-progress")
    assert code == 0, out
    return specs, root / "mygen"


def test_the_corpus_records_the_specs_it_was_generated_from(story):
    specs, gen = story
    manifest = json.loads((gen / "vectors" / "manifest.json").read_text())
    assert set(manifest["specs"]["operators"]) == {"team_bump"}
    assert len(manifest["specs"]["standards"]) == 64


def test_run_judges_the_own_op_with_the_reference_and_a_wrong_adapter(story):
    specs, gen = story
    code, out = specgen("run", "--specs", specs, "--adapter", "reference", "--corpus", gen, "-q")
    assert code == 0, out
    assert " 0 fail, 0 error" in out and " pass," in out
    code, out = specgen("run", "--specs", specs, "--adapter", WRONG, "--corpus", gen, "-q")
    assert code == 1, out
    assert "FAIL team_bump/onnx-1/" in out
    assert f"--specs {specs.resolve()}" in out  # the re-run command names the specs folder


def test_the_environment_variable_names_the_specs_as_the_option_does(story):
    specs, gen = story
    code, out = specgen("run", "--adapter", "reference", "--corpus", gen, "-q", env={SPECS_ENV: str(specs)})
    assert code == 0, out
    code, out = specgen("cases", "--corpus", gen, "--op", "team_bump", "--count", env={SPECS_ENV: str(specs)})
    assert code == 0 and int(out.strip()) > 0, out


def test_a_plugin_may_claim_an_op_of_the_specs_in_use_only(story):
    specs, _ = story
    code, out = specgen("adapters", "--specs", specs, WRONG)
    assert code == 0 and "claims: team_bump onnx versions 1" in out, out
    code, out = specgen("adapters", WRONG)
    assert code == 3 and "claim names op 'team_bump', which has no spec" in out, out
    assert "--specs DIR or SPECGEN_SPECS=DIR" in out


def test_cases_coverage_export_show_and_list_use_the_own_specs(story, tmp_path):
    specs, gen = story
    code, out = specgen("cases", "--specs", specs, "--corpus", gen, "--dtype", "float16")
    assert code == 0 and out.splitlines() and all(line.startswith("team_bump/onnx-1/") for line in out.splitlines())
    code, out = specgen("coverage", "--specs", specs, "--corpus", gen)
    assert code == 0 and "team_bump onnx-1 float16:" in out, out
    code, out = specgen("export", "--specs", specs, "--corpus", gen, "--format", "npz", "--out", tmp_path / "npz")
    assert code == 0, out
    assert list((tmp_path / "npz").rglob("*.npz"))
    code, out = specgen("show", "--specs", specs, "team_bump")
    assert code == 0 and out.startswith("# TeamBump (`team_bump`)"), out
    code, out = specgen("list", "--specs", specs)
    assert code == 0 and out.splitlines()[1].split()[:2] == ["team_bump", "TeamBump"], out


def test_sweep_a_small_dtype_of_the_own_op(story):
    """One worker process: the worker reads the team's specs too (the reference's code for them)."""
    specs, _ = story
    code, out = specgen("sweep", "--specs", specs, "--adapter", "reference", "--op", "team_bump", "--dtype", "float16",
                        "--workers", "1", "--no-progress")
    assert code == 0 and "65,536 inputs (complete), 0 failing" in out, out
    code, out = specgen("sweep", "--specs", specs, "--adapter", WRONG, "--op", "team_bump", "--dtype", "float16",
                        "--workers", "0", "--no-progress", "--range", "0x3c00:0x3cff")
    assert code == 1 and f"--specs {specs.resolve()}" in out, out


def test_baseline_check_reads_the_corpus_with_the_specs_in_use(story, tmp_path):
    specs, gen = story
    baseline = tmp_path / "known.yaml"
    baseline.write_text("known_failures:\n  - case: 'team_bump/onnx-1/float16/*'\n    reason: deliberately wrong\n")
    code, out = specgen("baseline", "check", "--specs", specs, "--corpus", gen, baseline)
    assert code == 0, out
    code, out = specgen("baseline", "check", "--corpus", gen, baseline)
    assert code == 2 and "not generated from the specs in use" in out, out


def test_the_pytest_plugin_takes_the_specs_folder(story, pytester):
    specs, gen = story
    base = ["-p", "no:cacheprovider", "--specgen-corpus", str(gen), "--specgen-dtype", "float16"]
    res = pytester.runpytest(*base, "--specgen-adapter", "reference", "--specgen-specs", str(specs))
    assert res.ret == 0
    assert res.parseoutcomes()["passed"] > 0
    res = pytester.runpytest(*base, "--specgen-adapter", WRONG, "--specgen-specs", str(specs))
    assert res.parseoutcomes()["failed"] > 0
    res = pytester.runpytest(*base, "--specgen-adapter", "reference")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert "not generated from the specs in use" in "\n".join(res.errlines)


# -- a corpus is never judged by other specs than those it was generated from -----------------------


@pytest.mark.parametrize("edit, difference", [
    (None, "operator 'team_bump' is in the corpus but not in the specs in use"),
    (lambda t: t.replace('version: "1"', 'version: "2"'),
     "team_bump onnx-1 is in the corpus but the spec in use has versions 2"),
    (lambda t: t.replace("intermediate: float32", "intermediate: float64"),
     "team_bump float32 tolerance: the corpus has metric model, intermediate float32, the spec in use metric "
     "model, intermediate float64"),
    (lambda t: t.replace("formula: x / (1 + x * x)", "formula: x / (x * x + 1)"),  # a change cases do not show
     "team_bump.yaml is not the file team_bump was generated from (sha256 "),
], ids=["bundled-specs", "version", "tolerance", "formula"])
def test_a_corpus_judged_by_other_specs_is_a_usage_error_naming_the_difference(story, tmp_path, edit, difference):
    _, gen = story
    other = ["--specs", own_specs(tmp_path / "other", edit)] if edit else []
    code, out = specgen("run", *other, "--adapter", "reference", "--corpus", gen, "-q")
    assert code == 2, out
    assert f"run: the corpus at {gen / 'vectors'} was not generated from the specs in use" in out
    assert difference in out


def test_the_bundled_corpus_is_not_judged_by_a_team_s_specs(story):
    specs, _ = story
    code, out = specgen("coverage", "--specs", specs)
    # the message names the first few operators in sorted order ("and N more"), whichever they are
    assert code == 2 and re.search(r"operator '\w+' is in the corpus but not in the specs in use", out), out


def test_an_unknown_op_names_the_specs_in_use(story):
    _, gen = story
    code, out = specgen("run", "--adapter", "reference", "--corpus", gen, "--op", "team_bump")
    assert code == 2 and "unknown op(s) team_bump" in out and "the bundled specs; --specs DIR" in out, out


def test_the_issue_s_story_specs_copied_beside_the_own_op(story, tmp_path):
    """`cp specs/*.yaml myspecs/ && cp my_op.yaml myspecs/`: specs with more operators than a corpus
    judge it (the team's corpus and the bundled one alike: the record is of content, not of paths)."""
    _, gen = story
    both = tmp_path / "myspecs"
    shutil.copytree(specs_dir(), both)
    shutil.copy(FIXTURE, both)
    code, out = specgen("run", "--specs", both, "--adapter", "reference", "--corpus", gen, "--op", "team_bump", "-q")
    assert code == 0 and " 0 fail, 0 error" in out, out
    code, out = specgen("cases", "--specs", both, "--op", "softsign", "--count")
    assert code == 0 and int(out.strip()) > 0, out
