"""``specgen coverage``: the class table, gaps found in a corpus that lacks a class, the seed
operators' coverage, the command's output and exit codes."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sampling import sampled

from specgen.cli import main
from specgen.coverage import CLASS_NAMES, CLASSES, coverage, gaps, render_text
from specgen.runner.cases import load_cases
from specgen.spec.loader import load_all

SPECS = load_all()
CASES = load_cases()
SEEDS = ("hard_sigmoid", "shrink", "softsign")
# classes whose cases come from another branch; none since issue-14-layouts merged
PENDING: set[str] = set()


@pytest.fixture(scope="module")
def seed_report():
    return coverage(SPECS, CASES, SEEDS)


def test_every_class_has_one_detection_rule_and_one_allowed_rule():
    assert len(set(CLASS_NAMES)) == len(CLASSES)
    for k in CLASSES:
        rules = [bool(k.tags), k.kind is not None, k.data is not None, k.needs_all is not None,
                 k.needs_values is not None]
        assert sum(rules) == 1, k.name
        assert callable(k.allowed) and k.scope in ("dtype", "row")


def test_seed_operators_have_no_gap(seed_report):
    assert gaps(seed_report) == []


@pytest.mark.parametrize("op", sampled(SPECS))
def test_no_operator_has_a_gap(op):
    """Every class the spec allows has a case (a sample of the operators; every one under -m slow)."""
    assert gaps(coverage(SPECS, CASES, (op,))) == []


def test_the_seed_operators_only_gaps_are_the_pending_classes(seed_report):
    """Every class this branch's corpus provides is present wherever the spec allows it."""
    other = [(key, name) for key, name in gaps(seed_report) if name not in PENDING]
    assert other == []
    present = {name for cov in seed_report for name in cov.present}
    allowed = {name for cov in seed_report for name in CLASS_NAMES if name not in cov.not_allowed}
    assert "thresholds" not in allowed  # the seed operators' formulas call no function with critical arguments
    assert present >= allowed - PENDING


def test_an_allowed_class_with_no_case_is_a_gap():
    """Remove each class's cases from one cell in turn: the cell reports exactly that class missing."""
    cell_cases = [c for c in CASES if c.op == "shrink" and c.standard == "directml" and c.version == "5_1"]
    full = {cov.cell.dtype: cov for cov in coverage(SPECS, cell_cases, ("shrink",)) if cov.cell.ver.version == "5_1"}
    assert not full["float16"].missing or set(full["float16"].missing) <= PENDING
    drops = {
        "regions": lambda c: "regions" in c.tags,
        "breakpoints": lambda c: "breakpoints" in c.tags,
        "in-place": lambda c: "in-place" in c.tags,
        "layouts": lambda c: "layout" in c.tags and c.kind == "positive",
        "sizes": lambda c: "size-boundary" in c.tags,
        "attribute-boundaries": lambda c: "attribute-boundary" in c.tags,
        "attribute-sets": lambda c: "softshrink" in c.tags,  # one designed set (the spec's test_attributes)
        "must-reject": lambda c: c.kind == "negative",
    }
    for name, drop in drops.items():
        # the size cases of a dtype are built at the latest version with its own rank sweep (DirectML's
        # levels are cumulative: 3_0, where ranks 1 to 8 first appear)
        version = "3_0" if name == "sizes" else "5_1"
        cases = [c for c in CASES if c.op == "shrink" and c.standard == "directml" and c.version == version]
        kept = [c for c in cases if not drop(c)]
        cov = next(v for v in coverage(SPECS, kept, ("shrink",)) if v.cell.ver.version == version and v.cell.dtype == "float16")
        assert set(cov.missing) - PENDING == {name}, (name, cov.missing)


def test_nonfinite_attribute_rejects_are_required_only_where_the_standard_rejects_them():
    webnn = [c for c in CASES if c.op == "hard_sigmoid" and c.standard == "webnn"]
    kept = [c for c in webnn if "attribute-nonfinite" not in c.tags]
    for cases, gap in ((webnn, False), (kept, True)):
        cov = [v for v in coverage(SPECS, cases, ("hard_sigmoid",)) if v.cell.std.key == "webnn"]
        assert cov and all(("nonfinite-attribute-rejects" in v.missing) == gap for v in cov)
    onnx = [v for v in coverage(SPECS, CASES, ("hard_sigmoid",)) if v.cell.std.key == "onnx"]
    assert all("nonfinite-attribute-rejects" in v.not_allowed for v in onnx)


def test_data_classes_come_from_the_stored_values():
    """Specials and subnormals are read from the data: a corpus without NaN/inf or subnormal inputs
    lacks them whatever the tags say."""
    import numpy as np

    from fake_adapters.cases import case

    plain = case("softsign", x=np.linspace(-3, 3, 24), name="regions")
    odd = case("softsign", x=np.array([np.nan, np.inf, 1e-40, 1.0]), name="breakpoints")
    (cov,) = [v for v in coverage(SPECS, [plain], ("softsign",)) if v.cell.key == ("softsign", "onnx", "22", "float32")]
    assert {"specials", "subnormals"} <= set(cov.missing)
    (cov,) = [v for v in coverage(SPECS, [plain, odd], ("softsign",)) if v.cell.key == ("softsign", "onnx", "22", "float32")]
    assert cov.present.get("specials") == 1 and cov.present.get("subnormals") == 1


def test_the_command_prints_cells_and_exits_1_on_a_gap(tmp_path):
    from fake_adapters.cases import case, write_corpus

    write_corpus(tmp_path, [case("softsign", name="regions")])
    r = CliRunner().invoke(main, ["coverage", "--op", "softsign", "--corpus", str(tmp_path)])
    assert r.exit_code == 1
    assert "softsign onnx-22 float32: regions 1; MISSING breakpoints" in r.output
    assert r.output.strip().splitlines()[-1].startswith("coverage: ")
    r = CliRunner().invoke(main, ["coverage", "--op", "softsign", "--corpus", str(tmp_path), "--json"])
    data = json.loads(r.output)
    cell = next(c for c in data["cells"] if (c["standard"], c["version"], c["dtype"]) == ("onnx", "22", "float32"))
    assert cell["present"] == {"regions": 1} and "breakpoints" in cell["missing"] and data["gaps"] > 0
    from specgen.coverage_accumulating import CLASS_NAMES as ACC_CLASS_NAMES

    assert [k["name"] for k in data["classes"]] == list(CLASS_NAMES) + list(ACC_CLASS_NAMES)


def test_the_command_rejects_an_unknown_operator():
    r = CliRunner().invoke(main, ["coverage", "--op", "shrinkk"])
    assert r.exit_code == 2 and "did you mean shrink" in r.output


def test_a_threshold_crossing_without_its_inputs_is_a_gap_naming_it():
    """The thresholds class reads the stored inputs: without the thresholds cases (or with one that
    lacks a crossing's neighbours) the cell reports which crossing of which attribute set is missing."""
    import numpy as np

    from specgen.runner.cases import MemoryCase

    cell_cases = [c for c in CASES if c.op == "softplus" and c.standard == "onnx" and c.version == "22"]

    def float32(cases):
        return next(v for v in coverage(SPECS, cases, ("softplus",)) if v.cell.key[1:] == ("onnx", "22", "float32"))
    full = float32(cell_cases)
    assert full.missing == [] and [m.split(" (")[0].split(": exp ")[1] for m in full.covered["thresholds"]] == [
        "underflow", "subnormal", "negligible-next-to-one", "one-negligible", "overflow"]
    assert "thresholds 1 (5 crossings)" in render_text([full])[0]
    cov = float32([c for c in cell_cases if "thresholds" not in c.tags])
    assert cov.missing == ["thresholds"]
    assert any("exp(steepness * x): exp overflow (float32) at x = 88.72" in m for m in cov.incomplete["thresholds"])
    # the designed case with its inputs beyond 80 left out: the overflow crossing (and only it) is missing
    case = next(c for c in cell_cases if "thresholds" in c.tags and c.dtype == "float32")
    data = case.load()
    keep = np.asarray(data["x"]).astype(np.float64) < 80
    cut = MemoryCase(id=case.id, op=case.op, standard=case.standard, version=case.version, dtype=case.dtype,
                     data={k: np.asarray(v)[keep] for k, v in data.items()}, kind="positive", violations=(),
                     shapes={k: [int(keep.sum())] for k in data}, dtypes=dict(case.dtypes), strides={},
                     in_place=False, attributes=dict(case.attributes), attributes_given=tuple(case.attributes_given),
                     tolerance=dict(case.tolerance), tags=tuple(case.tags))
    cov = float32([c for c in cell_cases if c is not case] + [cut])
    assert cov.missing == ["thresholds"] and [m.split(": ", 1)[1].split(" at ")[0] for m in cov.incomplete["thresholds"]] == [
        "exp(steepness * x): exp overflow (float32)"]


# ----------------------------------------------------------------------------- accumulating operators

def _acc():
    from specgen.spec.operators import load_accumulating

    return load_accumulating()


def test_accumulating_operators_have_classes_and_the_committed_corpus_no_gap():
    """reduce_sum, matmul and instance_normalization: every designed class is held by the corpus,
    and each class is allowed in some cell (the tags' patterns match the designer's)."""
    from specgen import coverage_accumulating as acc

    ops = ("reduce_sum", "matmul", "instance_normalization", "gemm")
    report = acc.coverage(_acc(), CASES, ops)
    assert report and gaps(report) == []
    assert {name for cov in report for name in cov.present} == set(acc.CLASS_NAMES)
    cell = next(c for c in report if c.cell.key == ("reduce_sum", "onnx", "13", "float32"))
    assert {"lengths", "value-designs", "axes", "empty", "must-reject"} <= set(cell.present)


def test_an_accumulating_cell_without_a_class_is_a_gap_naming_the_tags():
    from specgen import coverage_accumulating as acc

    row = [c for c in CASES if c.op == "reduce_sum" and c.standard == "onnx" and c.version == "13"]
    drops = {"value-designs": lambda c: any(t.startswith(("length8/", "length9/")) and not t.endswith("/random")
                                            for t in c.tags),
             "empty": lambda c: any(t.startswith("empty/") for t in c.tags),
             "must-reject": lambda c: c.kind == "negative"}
    for name, drop in drops.items():
        (cov,) = [v for v in acc.coverage(_acc(), [c for c in row if not drop(c)], ("reduce_sum",))
                  if v.cell.key == ("reduce_sum", "onnx", "13", "float32")]
        assert cov.missing == [name], (name, cov.missing)
    # one tag short: missing, with the tag named
    short = [c for c in row if "length8/nan" not in c.tags or c.dtype != "float32"]
    (cov,) = [v for v in acc.coverage(_acc(), short, ("reduce_sum",)) if v.cell.key == ("reduce_sum", "onnx", "13", "float32")]
    assert cov.missing == ["value-designs"] and cov.incomplete["value-designs"] == ["length8/nan"]


def test_the_command_covers_accumulating_operators():
    r = CliRunner().invoke(main, ["coverage", "--op", "reduce_sum", "--json"])
    data = json.loads(r.output)
    assert r.exit_code == 0, r.output[-2000:]
    assert {c["op"] for c in data["cells"]} == {"reduce_sum"} and data["gaps"] == 0
    assert "empty" in {k["name"] for k in data["classes"]}
