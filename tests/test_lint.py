"""`specgen lint` on the broken-spec fixtures (each with the exact lines it must print) and on the
bundled specs. Every fixture lives in tests/fixtures/broken_specs/ as NAME.yaml next to
NAME.expected: the exact `FILE:LINE:COLUMN: key.path: message` lines, file names relative to that folder.
"""
from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from specgen.cli import main
from specgen.spec.operators import load_operators

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
            if name not in ("empty_file", "comment_only", "bom_only"):
                assert line.startswith(f"{name}.yaml:"), line
                number = int(line.split(":")[1])
                assert 1 <= number <= len((FIXTURES / f"{name}.yaml").read_text().splitlines())


def test_formula_error_columns_point_at_the_token_in_the_file():
    """Line and column are positions in the spec file, also inside quoted and block scalars."""
    for name in ("formula_unknown_name", "formula_quoted_error", "formula_literal_block_error",
                 "formula_folded_block_error", "formula_plain_multiline_error", "formula_subscript",
                 "formula_attribute_access", "formula_string_literal", "formula_lambda",
                 "standard_formula_unknown_name"):
        line = (FIXTURES / f"{name}.expected").read_text().splitlines()[0]
        number, column = int(line.split(":")[1]), int(line.split(":")[2])  # FILE:LINE:COLUMN: key: message
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
    specs = list(load_operators())  # the element-wise ones, then the accumulating ones
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"lint: {len(specs)} spec(s) OK ({', '.join(specs)})"]


def test_bundled_specs_pass_when_named_as_a_directory():
    specs_dir = Path(__file__).resolve().parents[1] / "specs"
    result = run_lint(str(specs_dir))
    assert result.exit_code == 0, result.output
    assert len(result.output.splitlines()) == 1


# ----------------------------------------------------------------------------- positions inside values

@pytest.mark.parametrize("source, value_key, char, where", [
    ('formula: max(0, x.imag)\n', "formula", "x", (1, 17)),
    ('formula: "max(0, x.imag)"\n', "formula", "x", (1, 18)),
    ("formula: 'max(0, x.imag)'\n", "formula", "x", (1, 18)),
    ("formula: max(0,\n    x.imag)\n", "formula", "x", (2, 5)),
    ("formula: |\n  max(0,\n      x.imag)\n", "formula", "x", (3, 7)),
    ("formula: |-\n  max(0,\n      x.imag)\nnext: 1\n", "formula", "x", (3, 7)),
    ("formula: >\n  max(0,\n  x.imag)\n", "formula", "x", (3, 3)),
    ("formula: >\n  max(0,\n\n  x.imag)\n", "formula", "x", (4, 3)),
])
def test_characters_of_a_value_map_back_to_the_file(source, value_key, char, where):
    from specgen.spec.yaml_source import parse_text

    doc = parse_text(source, "t.yaml")
    offset = doc.data[value_key].index(char + ".imag")
    assert doc.char_position((value_key,), offset) == where
    line, column = where
    assert source.splitlines()[line - 1][column - 1] == char


@pytest.mark.parametrize("source", [
    "formula: >\n  max(0,\n    x.imag)\n",  # a more-indented line of a folded block keeps its break
    "formula: 'max(0, x.imag) + ''a'''\n",  # an escaped quote shifts every later column
    'formula: "max(0,\\tx.imag)"\n',  # an escape sequence
])
def test_unusual_values_give_no_position_rather_than_a_wrong_one(source):
    from specgen.spec.yaml_source import parse_text

    doc = parse_text(source, "t.yaml")
    assert doc.char_position(("formula",), doc.data["formula"].index("x.imag")) is None


def test_exponent_floats_are_numbers_as_in_yaml_1_2():
    from specgen.spec.yaml_source import parse_text

    doc = parse_text("a: 1e39\nb: 1.0e-3\nc: -2E+5\nd: 1_0\ne: '1e39'\nf: 0.5\n", "t.yaml")
    assert doc.data == {"a": 1e39, "b": 1e-3, "c": -2e5, "d": 10, "e": "1e39", "f": 0.5}


def test_a_standard_formula_may_leave_out_an_attribute_that_standard_fixes(tmp_path):
    """The standard_formula_attribute_unused fixture with beta fixed by ONNX lints clean: a standard
    that has no such attribute (oneDNN and WebNN HardSwish) writes its own formula without it."""
    text = (FIXTURES / "standard_formula_attribute_unused.yaml").read_text()
    text = text.replace("      beta: {name: beta, default: 0.5}\n",
                        "      beta: {fixed: 0.5, source: a standard without beta}\n")
    assert "fixed: 0.5" in text
    (tmp_path / "standard_formula_attribute_unused.yaml").write_text(text)
    (tmp_path / "_standards.yaml").write_text((Path(__file__).parents[1] / "specs" / "_standards.yaml").read_text())
    result = run_lint(str(tmp_path / "standard_formula_attribute_unused.yaml"))
    assert result.exit_code == 0, result.output


ACCUMULATING_SPECS = Path(__file__).resolve().parent.parent / "specs" / "accumulating"


@pytest.mark.parametrize("edit, where, message", [
    (("  keepdims: {type: bool", "  keepdimz: {type: bool"), "standards.onnx.versions[0].attributes",
     "'keepdims' is not an attribute of the operator"),
    (("k: {labels: [k]}", "k: {labels: [q]}"), "index_space.sets.k.labels", "'q' is no tensor's label"),
    (("dtypes: [float16, float32, float64]", "dtypes: [float16, float24]"), "standards.onnx.versions[0].dtypes",
     "unknown dtype 'float24'"),
    (("formula:", "formula: !!python/object:os.system\n  x:"), "", "tag"),
    (("inputs: [x]", "inputs: 7"), "", "malformed accumulating spec"),
])
def test_lint_and_generate_check_accumulating_specs_as_untrusted_input(tmp_path, edit, where, message):
    """The accumulating specs are linted by default (`specgen lint` counts them) and a broken one is a
    FILE:LINE:COLUMN problem (or FILE: where no place is known) in lint and generate, never a traceback."""
    specs = tmp_path / "specs"
    (specs / "accumulating").mkdir(parents=True)
    (specs / "_standards.yaml").write_text((ACCUMULATING_SPECS.parent / "_standards.yaml").read_text())
    name = "matmul.yaml" if "labels" in edit[0] else "reduce_sum.yaml"
    text = (ACCUMULATING_SPECS / name).read_text()
    assert edit[0] in text, edit
    (specs / "accumulating" / name).write_text(text.replace(edit[0], edit[1], 1))
    result = run_lint("--specs", str(specs))
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output
    line = result.output.splitlines()[0]
    assert line.startswith(str(specs / "accumulating" / name) + ":") and message in line, line
    if where:
        assert f": {where}: " in line and line.split(":")[1].isdigit() and line.split(":")[2].isdigit(), line
    generated = CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", str(tmp_path / "out")])
    assert generated.exit_code == 1 and "Traceback" not in generated.output and line in generated.output
