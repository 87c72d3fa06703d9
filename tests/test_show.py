"""`specgen show` and `specgen list`: the seed round trip and the command line.

The round trip: the tables of the seed documents (../shared/seeds/ when present, always the copy in
tests/fixtures/seed_tables.yaml) must come back row for row from `specgen show OP --standard S`.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import seed_pages as sp
from specgen.cli import main
from specgen.formula.parser import parse_formula
from specgen.render.formula_text import spell
from specgen.render.show import render_operator, render_standard
from specgen.spec.loader import load_all

FIXTURE = yaml.safe_load((Path(__file__).parent / "fixtures" / "seed_tables.yaml").read_text())
SEEDS = FIXTURE["seeds"]
BEYOND = FIXTURE["beyond_seeds"]
HAVE_SEEDS = sp.SEEDS.is_dir()
needs_seeds = pytest.mark.skipif(not HAVE_SEEDS, reason="../shared/seeds is not present; the fixture copy is used")


@pytest.fixture(scope="module")
def specs():
    return load_all()


def show(*args: str):
    result = CliRunner().invoke(main, ["show", *args])
    assert "Traceback" not in result.output
    return result


def shown(op: str, standard: str) -> str:
    result = show(op, "--standard", standard)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return result.stdout


def _level_key(table: dict) -> tuple[int, ...]:
    level = table["heading"].split("DML_FEATURE_LEVEL_")[1].split()[0]
    return tuple(int(p) for p in level.split("_"))


# ----------------------------------------------------------------------------- the fixture is the seeds

@needs_seeds
def test_fixture_holds_exactly_what_the_seed_documents_say():
    assert sp.parse_seeds() == SEEDS


# ----------------------------------------------------------------------------- DirectML

@pytest.mark.parametrize("op", ["hard_sigmoid", "softsign", "shrink"])
def test_directml_tables_round_trip_row_for_row(op):
    expected = SEEDS["directml"][op]["tables"] + BEYOND.get("directml", {}).get(op, {}).get("tables", [])
    expected = sorted(expected, key=_level_key, reverse=True)  # newest first, as the pages list them
    rendered = sp.directml_tables(shown(op, "directml"))
    assert [t["heading"] for t in rendered] == [t["heading"] for t in expected]
    assert rendered == expected


def test_shrink_has_no_1_0_table_and_its_5_1_table_is_marked_as_not_from_the_seed():
    page = shown("shrink", "directml")
    assert "DML_FEATURE_LEVEL_1_0" not in page
    assert "This operator was introduced in `DML_FEATURE_LEVEL_2_0`." in page.splitlines()
    tables = sp.directml_tables(page)
    assert tables[0]["heading"] == "DML_FEATURE_LEVEL_5_1 and above"
    assert "Source: current DirectML documentation (not in the seed document)." in page.splitlines()


@pytest.mark.parametrize("op", ["hard_sigmoid", "softsign", "shrink"])
def test_directml_page_states_the_seed_sentences(op):
    seed = SEEDS["directml"][op]
    page = shown(op, "directml")
    lines = page.splitlines()
    for key in ("availability", "in_place", "constraint"):
        assert seed[key] in lines, key
    assert sp.directml_sentences(page)["typical_defaults"] == seed["typical_defaults"]


@needs_seeds
@pytest.mark.parametrize("op", ["hard_sigmoid", "softsign"])
def test_directml_tensor_support_section_is_the_seed_text_verbatim(op):
    seed = (sp.SEEDS / sp.DIRECTML_SEEDS[op]).read_text()
    section = seed.split("## Tensor support", 1)[1].split("\n## ", 1)[0]
    page = shown(op, "directml")
    assert page.split("## Tensor support", 1)[1].rstrip() == section.rstrip()


def test_directml_members_carry_the_standard_types(specs):
    page = shown("hard_sigmoid", "directml")
    assert page.splitlines()[0] == "# DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC"
    assert page.count("Type: `const DML_TENSOR_DESC*`") == 2
    assert page.count("Type: `FLOAT`") == 2
    for member in ("InputTensor", "OutputTensor", "Alpha", "Beta"):
        assert f"### `{member}`" in page.splitlines()
    assert "f(x) = max(0, min(Alpha * x + Beta, 1))" in page.splitlines()


# ----------------------------------------------------------------------------- ONNX

def test_onnx_type_constraints_defaults_and_attributes_match_the_seed():
    rendered = sp.onnx_versions(shown("hard_sigmoid", "onnx"))
    for version, seed in SEEDS["onnx"]["hard_sigmoid"]["versions"].items():
        assert rendered[version] == seed, version
    assert rendered["6"]["types"]["T"] == ["tensor(double)", "tensor(float)", "tensor(float16)"]
    assert rendered["1"]["attributes"] == ["alpha", "beta", "consumed_inputs"]
    assert rendered["6"]["defaults"] == {"alpha": "0.20000000298023224", "beta": "0.5"}


def test_onnx_versions_newest_first_and_opset_22_adds_bfloat16():
    page = shown("hard_sigmoid", "onnx")
    versions = list(sp.onnx_versions(page))
    assert versions == ["22", "6", "1"]
    assert "tensor(bfloat16)" in sp.onnx_versions(page)["22"]["types"]["T"]
    assert "tensor(bfloat16)" not in sp.onnx_versions(page)["6"]["types"]["T"]


def test_onnx_shrink_uses_onnx_names_and_float32_defaults():
    page = shown("shrink", "onnx")
    v9 = sp.onnx_versions(page)["9"]
    assert v9["defaults"] == {"bias": "0.0", "lambd": "0.5"}
    assert "tensor(bfloat16)" not in v9["types"]["T"]
    assert len(v9["types"]["T"]) == 11


# ----------------------------------------------------------------------------- oneDNN Graph

def test_onednn_data_type_rows_and_required_attributes_match_the_seed():
    page = shown("hard_sigmoid", "onednn")
    seed = SEEDS["onednn"]["hard_sigmoid"]
    table = sp.onednn_data_types(page)
    assert table["rows"] == seed["data_types"]["rows"] == [["f32", "f32"], ["bf16", "bf16"], ["f16", "f16"]]
    assert all(full.startswith(cut) for full, cut in zip(table["header"], seed["data_types"]["header"]))
    assert table["header"] == ["Src", "Dst"]
    assert sp.onednn_attributes(page) == seed["attributes"]
    assert "default" not in page.split("## Operation attributes")[1].split("##")[0].lower()


# ----------------------------------------------------------------------------- the whole operator

@pytest.mark.parametrize("op", ["hard_sigmoid", "softsign", "shrink"])
def test_show_without_standard_renders_every_standard_formula_specials_and_tolerances(op, specs):
    result = show(op)
    assert result.exit_code == 0, result.output
    page = result.stdout
    spec = specs[op]
    assert page.splitlines()[0] == f"# {spec.name} (`{op}`)"
    for section in ("## Formula", "## Special values", "## Tolerance"):
        assert section in page.splitlines()
    assert spec.formula_text.strip() in page
    for std in spec.standards.values():
        assert f"## {std.operator}" in page.splitlines()
    for category in spec.special_values:
        assert f"| {category} |" in page
    for dtype in spec.tolerance:
        assert f"| {dtype} |" in page
    expected = sorted(SEEDS["directml"][op]["tables"] + BEYOND.get("directml", {}).get(op, {}).get("tables", []),
                      key=_level_key, reverse=True)
    assert sp.directml_tables(page) == expected


def test_operator_can_be_named_by_its_standard_name():
    assert show("HardSigmoid", "--standard", "directml").stdout == shown("hard_sigmoid", "directml")


def test_a_standard_without_a_template_falls_back_to_the_generic_page(specs):
    spec = specs["hard_sigmoid"]
    std = dataclasses.replace(spec.standards["onnx"], key="some_future_standard")
    page = render_standard(spec, std, depth=0)
    assert "| X | Input | 0 or more | tensor(bfloat16), tensor(double), tensor(float), tensor(float16) |" in page
    assert "| alpha | float | 0.20000000298023224 | no |" in page


# ----------------------------------------------------------------------------- errors

def test_unknown_operator_exits_2_with_one_line_naming_the_operators(specs):
    result = show("hard_sigmoyd")
    assert result.exit_code == 2
    assert result.stdout == ""
    from specgen.spec.operators import load_operators

    known = ", ".join(load_operators())  # the accumulating operators too
    assert result.stderr.splitlines() == [f"show: unknown operator 'hard_sigmoyd'; known: {known} (the "
                                          f"bundled specs; --specs DIR or SPECGEN_SPECS=DIR uses another specs folder)"]


def test_unknown_standard_exits_2_with_one_line_naming_the_standards():
    result = show("hard_sigmoid", "--standard", "coreml")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["show: hard_sigmoid has no standard 'coreml'; it has: directml, onnx, onednn, webnn"]
    result = show("softsign", "--standard", "onednn")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["show: softsign has no standard 'onednn'; it has: directml, onnx, webnn"]


def test_list_shows_operators_with_standards_and_versions(specs):
    result = CliRunner().invoke(main, ["list"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["OPERATOR", "NAME", "STANDARDS", "(VERSIONS)"]
    # the element-wise operators, then the accumulating ones (specs/accumulating): operators like any other
    listed = [ln.split()[0] for ln in lines[1:]]
    assert listed[:len(specs)] == list(specs)
    assert "" not in lines and "matmul" in listed[len(specs):]
    assert any(ln.startswith("matmul ") and "onnx (1, 9, 13)" in ln for ln in lines)
    row = next(ln for ln in lines if ln.startswith("hard_sigmoid "))
    assert row.split(None, 2)[2] == "directml (1_0, 2_0, 3_0); onnx (1, 6, 22); onednn (current); webnn (2026-06-26)"


# ----------------------------------------------------------------------------- the formula as pages spell it

@pytest.mark.parametrize("text", [
    "max(0, min(alpha * x + beta, 1))", "x / (1 + abs(x))", "a - (b - c)", "(a - b) - c", "-(x * x)",
    "where(x > threshold, x - bias, where(x < -threshold, x + bias, 0))", "x ** 2 / (1 + a)",
    "not (x > a and x < b) or x == 0", "a / (b * c)", "-x ** 2",
])
def test_spelled_formula_parses_back_to_the_same_tree(text):
    names = ("x", "a", "b", "c"), ("alpha", "beta", "threshold", "bias")
    node = parse_formula(text, *names)
    assert parse_formula(spell(node), *names) == node


def test_spell_renames_variables_only():
    node = parse_formula("max(0, min(alpha * x + beta, 1))", ["x"], ["alpha", "beta"])
    assert spell(node, {"alpha": "Alpha", "beta": "Beta"}) == "max(0, min(Alpha * x + Beta, 1))"


def test_render_operator_rejects_a_standard_the_op_lacks(specs):
    with pytest.raises(LookupError, match="it has: directml, onnx"):
        render_operator(specs["softsign"], "onednn")


def test_a_standards_own_formula_is_what_its_page_shows():
    """ONNX Shrink tests x < -lambd first; its page says so, DirectML's keeps x > Threshold first."""
    from click.testing import CliRunner

    from specgen.cli import main

    onnx = CliRunner().invoke(main, ["show", "shrink", "--standard", "onnx"]).output
    assert "output = where(input < -lambd, input + bias, where(input > lambd, input - bias, 0))" in onnx
    assert "tests x < -lambd first" in onnx
    dml = CliRunner().invoke(main, ["show", "shrink", "--standard", "directml"]).output
    assert "f(x) = where(x > Threshold, x - Bias, where(x < -Threshold, x + Bias, 0))" in dml


def test_webnn_output_types_are_the_output_s_own_unless_a_constraint_ties_them(specs):
    """The tensor-limits table says "same as input" only where a same-data_type constraint ties the
    output to the first input (Relu); a comparison's output is uint8, Cast's is the type its
    dataType argument names (an MLOperandDataType, set by a method step)."""
    def limits(op):
        page = render_standard(specs[op], specs[op].standards["webnn"], 1)
        return page, [line for line in page.splitlines() if line.startswith("| *output* |")][0]

    _, relu = limits("relu")
    assert relu.startswith("| *output* | same as input |") and "| same as input |" in relu
    _, equal = limits("equal")
    assert equal.startswith("| *output* | uint8 |")
    cast, row = limits("cast")
    assert row.startswith("| *output* | float32, float16, int32,") and "same as input | 0 to 5" in row
    assert "MLOperand cast(MLOperand input, MLOperandDataType dataType," in cast
    assert "1. Set *output*'s dataType to dataType." in cast


def test_a_version_that_spells_the_choice_otherwise_is_shown_with_its_spelling():
    """ONNX Cast-1 names the target type by string ("FLOAT"); 6 and later by the enum's integer."""
    from click.testing import CliRunner

    from specgen.cli import main

    out = CliRunner().invoke(main, ["show", "cast"]).output
    row = next(line for line in out.splitlines() if line.startswith("| ONNX | `Cast`"))
    assert "float32: `to=1`" in row and "version 1: float32: `to='FLOAT'`" in row and "float64: `to='DOUBLE'`" in row
