"""`specgen lint` on the broken-spec fixtures (each with the exact lines it must print) and on the
bundled specs. Every fixture lives in tests/fixtures/broken_specs/ as NAME.yaml next to
NAME.expected: the exact `FILE:LINE: key.path: message` lines, file names relative to that folder.
"""
from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main
from specgen.spec.loader import load_all

FIXTURES = Path(__file__).parent / "fixtures" / "broken_specs"
CASES = sorted(p.stem for p in FIXTURES.glob("*.yaml"))


def run_lint(*args: str):
    return CliRunner().invoke(main, ["lint", *args])


def test_there_are_enough_fixtures_and_each_has_its_expected_lines():
    assert len(CASES) >= 30
    assert sorted(p.stem for p in FIXTURES.glob("*.expected")) == CASES


@pytest.mark.parametrize("name", CASES)
def test_broken_spec_prints_exactly_its_expected_lines(name, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    result = run_lint(f"{name}.yaml")
    expected = (FIXTURES / f"{name}.expected").read_text().splitlines()
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert result.stdout.splitlines() == expected
    assert result.stderr.splitlines() == [f"lint: {len(expected)} problem(s) in 1 file(s)"]


@pytest.mark.parametrize("name", CASES)
def test_fixture_file_name_equals_its_id(name):
    """A fixture breaks one thing; its id still matches its file name unless that is the point."""
    text = (FIXTURES / f"{name}.yaml").read_text()
    ids = [ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("id:")]
    if name == "id_mismatch":
        assert ids == ["hard_sigmoid"]
    elif ids:
        assert ids == [name]


def test_every_expected_line_names_its_file_and_a_line_where_the_file_has_one():
    for name in CASES:
        for line in (FIXTURES / f"{name}.expected").read_text().splitlines():
            assert line.startswith(f"{name}.yaml")
            if name not in ("empty_file", "comment_only"):
                assert line.startswith(f"{name}.yaml:"), line
                number = int(line.split(":")[1])
                assert 1 <= number <= len((FIXTURES / f"{name}.yaml").read_text().splitlines())


def test_formula_error_columns_point_at_the_token_in_the_file():
    """Line and column are positions in the spec file, also inside quoted and block scalars."""
    for name in ("formula_unknown_name", "formula_quoted_error", "formula_literal_block_error",
                 "formula_folded_block_error", "formula_plain_multiline_error", "formula_subscript",
                 "formula_attribute_access", "formula_string_literal", "formula_lambda"):
        line = (FIXTURES / f"{name}.expected").read_text().splitlines()[0]
        number = int(line.split(":")[1])
        column = int(line.split("column ")[1].split(":")[0])
        token = ast.literal_eval(line.rsplit("(token ", 1)[1][:-1])  # the message shows repr(token)
        source_line = (FIXTURES / f"{name}.yaml").read_text().splitlines()[number - 1]
        assert source_line[column - 1:].startswith(token), (name, source_line, column, token)


def test_alias_bomb_is_refused_without_expanding():
    start = time.perf_counter()
    result = run_lint(str(FIXTURES / "alias_bomb.yaml"))
    assert result.exit_code == 1
    assert time.perf_counter() - start < 2


def test_several_broken_files_in_one_run_list_every_problem(monkeypatch):
    monkeypatch.chdir(FIXTURES)
    names = ["duplicate_key", "unknown_dtype", "formula_injection"]
    result = run_lint(*(f"{n}.yaml" for n in names))
    expected = [ln for n in names for ln in (FIXTURES / f"{n}.expected").read_text().splitlines()]
    assert result.exit_code == 1
    assert result.stdout.splitlines() == expected
    assert result.stderr.splitlines() == [f"lint: {len(expected)} problem(s) in 3 file(s)"]


def test_missing_file_is_a_problem_not_a_traceback():
    result = run_lint("no/such/spec.yaml")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["no/such/spec.yaml: <document>: no such file"]


def test_bundled_specs_pass_with_one_summary_line():
    result = run_lint()
    specs = list(load_all())
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"lint: {len(specs)} spec(s) OK ({', '.join(specs)})"]


def test_bundled_specs_pass_when_named_as_a_directory():
    specs_dir = Path(__file__).resolve().parents[1] / "specs"
    result = run_lint(str(specs_dir))
    assert result.exit_code == 0, result.output
    assert len(result.output.splitlines()) == 1
