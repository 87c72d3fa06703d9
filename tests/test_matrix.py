"""The accuracy matrix (specgen matrix, specgen.sweep.catalog/matrix/matrix_page): what is sweepable
comes from the specs; a sweep and `specgen run`'s comparison give the same verdicts on the same
inputs; a small shard of the matrix runs, resumes and renders."""
from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner

from specgen.cli import main
from specgen.numerics.compare import compare
from specgen.spec.loader import load_all
from specgen.sweep import catalog
from specgen.sweep import judge as J

SPECS = load_all()


def test_catalog_reads_operators_sets_and_second_inputs_from_the_specs():
    units = catalog.sweep_units(SPECS)
    by_op = {}
    for u in units:
        by_op.setdefault(u.op, []).append(u)
    one_input = {k for k, s in SPECS.items() if len(s.inputs) == 1 and catalog.sweepable(s)}
    assert len(one_input) >= 40 and one_input <= set(by_op)  # every sweepable one-input operator has a unit
    for op, spec in SPECS.items():
        if op not in by_op:
            assert not catalog.sweepable(spec), op
            continue
        std = spec.standards[by_op[op][0].standard]
        # every formula a string attribute picks, where the standard's call gives it for float tensors
        choices = catalog.float_choices(spec, by_op[op][0].standard)
        if len(spec.inputs) > 1:  # further inputs: one unit per grid value
            for choice in choices or (None,):  # per formula a string attribute picks
                values = sorted(dict(u.extra_inputs)[spec.inputs[1].name] for u in by_op[op]
                                if choice is None or dict(u.attributes).get(spec.choice.attribute) == choice)
                assert values == sorted(catalog.SECOND_INPUT_GRID)
        for choice in spec.choice_values:
            swept = any(dict(u.attributes).get(spec.choice.attribute) == choice for u in by_op[op])
            assert swept == (choice in choices), (op, choice)
        for t in spec.test_attributes:  # a designed set is swept where the standard can pass it
            assert any(u.attribute_set.endswith(t.name) for u in by_op[op]) == catalog.expressible(std, t.values)
    assert len({u.key for u in units}) == len(units)
    assert "where" not in by_op  # a boolean condition and two held values: not sweepable by this grid
    assert "cast" not in by_op  # its output type is an attribute's: a sweep's call asks for the input's
    assert not {"is_nan", "is_inf", "equal", "less"} & set(by_op)  # a truth value: no float output to judge in ULPs
    # the matrix plans a cell of every unit (ParametricSoftplus, which no standard gives defaults, had none)
    from specgen.sweep.matrix import plan

    planned = plan(SPECS, ["onnxruntime"], ["float16", "bfloat16", "float32", "float64"])
    assert {c.unit.key for c in planned} == {u.key for u in units}
    # ONNX Mod's fmod = 0 (the divisor's sign) is for integer tensors only: its float cells were 'error' throughout
    assert {dict(u.attributes)["sign_of"] for u in by_op["mod"]} == {"dividend"}


def test_a_sweep_of_an_absent_optional_input_uses_the_dtypes_limit_and_refuses_a_truth_value_output():
    """ONNX Clip-11+ takes min and max as optional inputs; absent, they are numeric_limits<T>::lowest()
    and max() of the tensor's type: clip(+inf) is 65504 in float16, which the sweep judged against
    FLT_MAX (+inf) until it took the corpus's rule. IsNaN gives bool: not a sweep's output."""
    from specgen.sweep.run import SweepUsageError, execute, prepare

    for dtype, limit in (("float16", 65504.0), ("bfloat16", float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)),
                         ("float32", float(np.finfo(np.float32).max))):
        p = prepare("reference", "clip", "onnx", None, dtype, {})
        assert p.sweep.attrs["max_value"] == limit and p.sweep.attrs["min_value"] == -limit, dtype
        assert p.sweep.attributes_given == ()  # left out of the call, as the corpus's default set
    p = prepare("reference", "clip", "onnx", None, "float16", {"min_value": -0.5})
    assert (p.sweep.attrs["min_value"], p.sweep.attrs["max_value"]) == (-0.5, 65504.0)
    p = prepare("reference", "clip", "onnx", None, "float16", {}, ["0x7bff:0x7c00", "0xfbff:0xfc00"])
    s = execute(p, workers=0).summary
    assert s.failures == 0 and s.total == 4  # +-inf clipped to +-65504, as the reference computes
    with pytest.raises(SweepUsageError, match="gives bool for float16 inputs"):
        prepare("reference", "is_nan", "onnx", None, "float16", {})
    # ONNX Mod's default fmod = 0 is for integer tensors only (onnxruntime refuses it for floats)
    with pytest.raises(SweepUsageError, match=r"sign_of=divisor \(fmod=0\) for integer tensors only.*sign_of=dividend"):
        prepare("reference", "mod", "onnx", None, "float16", {}, extra_inputs={"b": 1.0})
    assert prepare("reference", "mod", "onnx", None, "float16", {"sign_of": "dividend"},
                   extra_inputs={"b": 1.0}).sweep.attrs["sign_of"] == "dividend"


def _perturbed(expected: np.ndarray, rng) -> np.ndarray:
    """The golden values with one ULP up, a NaN, an infinity and a flipped sign here and there."""
    a = expected.copy()
    u = a.view(np.uint16)
    pick = rng.choice(a.size, 600, replace=False)
    u[pick[:200]] += 1
    a[pick[200:300]] = np.nan
    a[pick[300:400]] = np.inf
    a[pick[400:]] = -a[pick[400:]]
    return a


def test_a_sweep_and_a_run_agree_on_the_same_inputs():
    """One code path: the sweep's per-element judge (judge_elements) and `specgen run`'s comparison
    (compare) count the same failures of each kind, on every float16 input, for an operator with a
    transcendental formula, one with a string attribute and one with a second input."""
    rng = np.random.default_rng(4)
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    for op, attrs, extra in (("sigmoid", {}, {}), ("gelu", {"approximate": "tanh"}, {}), ("prelu", {}, {"slope": 0.25})):
        spec = SPECS[op]
        ctx = J.Context(spec, "onnx", "float16", attrs, extra)
        expected = ctx.golden(x)
        actual = _perturbed(expected, rng)
        swept = ctx.judge(x, actual, expected)
        counts = {J.KINDS[k]: int(n) for k, n in zip(*np.unique(swept.kind, return_counts=True)) if k != J.PASS}
        run = compare(spec, "onnx", "float16", ctx.inputs(x), attrs, expected, actual)
        assert counts == run.kinds and sum(counts.values()) == run.mismatches > 0, op


def test_a_sweeps_golden_values_use_the_attributes_the_standard_computes_with():
    """WebNN casts its options to the input's type: HardSigmoid's alpha = 0.2 is 0.19995 in float16.
    The sweep's golden values (and so its golden-equal tier and the expected values it reports) are
    those of the cast alpha, as the corpus's and `specgen run`'s are, not of the float32 one."""
    from specgen.numerics.compare import resolve_attributes
    from specgen.numerics.exact import golden

    spec = SPECS["hard_sigmoid"]
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    ctx = J.Context(spec, "webnn", "float16", {})
    assert ctx.attributes["alpha"] == float(np.float16(0.2))
    cast = golden(spec, {"x": x}, resolve_attributes(spec, "webnn", {}, "float16"), "float16", "webnn").y
    plain = golden(spec, {"x": x}, resolve_attributes(spec, "webnn", {}), "float16", "webnn").y
    got = ctx.golden(x)
    assert np.array_equal(got.view(np.uint16), cast.view(np.uint16))
    assert not np.array_equal(got.view(np.uint16), plain.view(np.uint16))  # x = -1.5049: 0.19910, not 0.19897


def _fake_matrix(tmp_path, ops: str, plots: bool = False):
    """(args, results folder, page, JSON) of `specgen matrix` over the fake sweep adapter, float16, in this process."""
    root, md, js = tmp_path / "acc", tmp_path / "accuracy.md", tmp_path / "accuracy.json"
    args = ["matrix", "--adapter", "fake_adapters.sweep:SweepFake", "--dtype", "float16", "--ops", ops,
            "--workers", "0", "--results", str(root), "--markdown", str(md), "--json", str(js)]
    return args + ([] if plots else ["--no-plots"]), root, md, js


def test_a_matrix_shard_runs_resumes_and_renders(tmp_path):
    r = CliRunner()
    args, root, md, js = _fake_matrix(tmp_path, "softsign,shrink")
    res = r.invoke(main, args + ["--shard", "2/2"])  # 3 cells (shrink, shrink softshrink, softsign): the 2nd
    assert res.exit_code == 0, res.output
    assert "1 cells, 0 already done, 1 to run" in res.output and "shrink softshrink" in res.output
    res = r.invoke(main, args + ["--shard", "2/2"])
    assert "1 already done, 0 to run" in res.output
    data = json.loads(js.read_text())
    assert data["format"] == "specgen-accuracy/1" and len(data["cells"]) == 1
    cell = data["cells"][0]
    assert cell["total"] == 65536 and cell["failures"] == 0 and cell["specials"]["nan"]["count"] > 0
    text = md.read_text()
    assert "## float16" in text and "| shrink softshrink | pass · " in text


def test_an_empty_cell_is_explained_with_the_command_that_fills_it(tmp_path):
    r = CliRunner()
    args, root, md, _ = _fake_matrix(tmp_path, "softsign,shrink")
    assert r.invoke(main, args).exit_code == 0
    assert "An empty cell" not in md.read_text()  # one backend, every row swept
    src = sorted(root.glob("float16/*/*.json"))[0]  # a second backend with one of the three cells swept
    (root / "float16" / "other").mkdir()
    (root / "float16" / "other" / src.name).write_text(json.dumps({**json.loads(src.read_text()), "adapter": "other"}))
    assert r.invoke(main, args + ["--render-only"]).exit_code == 0
    text = md.read_text()
    assert "An empty cell has not been swept" in text and "`specgen matrix --adapter A --dtype float16`" in text
    assert sum(1 for t in text.splitlines() if t.startswith("| s") and t.endswith(" |  |")) == 2
    # what the specs can sweep and no cell holds is named, with the command that sweeps it
    absent = next(t for t in text.splitlines() if t.startswith("Sweepable, and in no cell of this page: "))
    assert "prelu" in absent and "softsign" not in absent and "`specgen matrix --ops " in absent


def test_a_held_input_and_a_sampled_space_keep_apart():
    """A held input (PRelu's slope) and a sampled space with breakpoint values (HardSigmoid's) are
    separate parts of the sweep's identity (shards of other slopes do not merge)."""
    from specgen.sweep.run import prepare

    p = prepare("fake_adapters.sweep:SweepFake", "prelu", "onnx", None, "float64", {}, samples=4,
                extra_inputs={"slope": 0.1}, ignore_claims=True)
    ident = p.sweep.identity()
    assert ident["extra_inputs"] == {"slope": 0.1} and ident["space"]["kind"] == "sample"
    p = prepare("fake_adapters.sweep:SweepFake", "hard_sigmoid", "onnx", None, "float32", {}, samples=4, sample=True)
    ident = p.sweep.identity()
    assert ident["space"]["breakpoint_values"] and "extra_inputs" not in ident  # alpha x + beta = 0 and 1
    assert "extra_inputs" not in prepare("fake_adapters.sweep:SweepFake", "softsign", "onnx", None, "float16", {}).sweep.identity()


def test_a_cell_judged_by_another_spec_or_judge_is_stale_marked_and_run_again(tmp_path, monkeypatch):
    """A cell records the judge epoch and its spec's digest (specgen.sweep.provenance); one of an
    older epoch, or without the record, is marked † on the page with why, and `specgen matrix` runs it
    again; a float32 cell's finished chunks from another judge are dropped, never merged."""
    from specgen.sweep import matrix as M
    from specgen.sweep import provenance as P

    record = {**P.recorded(), "moved": {}}  # bumps that name no functions: every operator moves
    monkeypatch.setattr(P, "recorded", lambda: record)

    r = CliRunner()
    args, root, md, _ = _fake_matrix(tmp_path, "softsign")
    assert r.invoke(main, args).exit_code == 0
    (cell_path,) = root.glob("float16/*/softsign-defaults.json")
    d = json.loads(cell_path.read_text())
    assert d["provenance"] == P.provenance(SPECS["softsign"]) and "†" not in md.read_text()
    d["provenance"]["judge_epoch"] -= 1
    cell_path.write_text(json.dumps(d))
    assert r.invoke(main, args + ["--render-only"]).exit_code == 0
    text = md.read_text()
    assert "| softsign | pass · 0.50 †" in text and "**1 cells are stale**" in text
    assert f"judge epoch {P.judge_epoch() - 1}, now {P.judge_epoch()}" in text
    del d["provenance"]
    cell_path.write_text(json.dumps(d))
    assert "judged before cells recorded" in " ".join(M.cell_facts({**d, "_path": str(cell_path)}, SPECS)["stale"])
    res = r.invoke(main, args)
    assert "0 already done, 1 to run" in res.output and "†" not in md.read_text()

    cell = M.plan(SPECS, ["fake_adapters.sweep:SweepFake"], ["float32"], ops={"softsign"})[0]
    chunks = cell.chunks(root)
    chunks.mkdir(parents=True)
    (chunks / "old-chunk.json").write_text("{}")  # finished under a judge that recorded nothing
    now = P.provenance(SPECS["softsign"])
    M._fresh_chunks(cell, root, now, SPECS["softsign"])
    assert not (chunks / "old-chunk.json").exists()
    (chunks / "kept.json").write_text("{}")
    M._fresh_chunks(cell, root, now, SPECS["softsign"])  # same spec and judge: the chunks stay
    assert (chunks / "kept.json").exists()
    M._fresh_chunks(cell, root, {**now, "spec": "another"}, SPECS["softsign"])
    assert not (chunks / "kept.json").exists()


def test_a_bump_that_names_functions_moves_only_the_operators_that_call_them(tmp_path, monkeypatch):
    """tools/judge_epoch.py --bump --functions sqrt: a cell of the older epoch whose operator calls
    no sqrt keeps its verdicts (not stale, its float32 chunks kept); Sqrt's and GELU's (sqrt(2/pi))
    are stale; a later bump that names nothing moves every operator."""
    from specgen.sweep import matrix as M
    from specgen.sweep import provenance as P

    record = {"epoch": 5, "sources": P.sources_digest(), "moved": {"5": {"functions": ["sqrt"], "why": "t"}}}
    monkeypatch.setattr(P, "recorded", lambda: record)
    old = {"provenance": {}}
    for op, stale in (("softsign", False), ("relu", False), ("sqrt", True), ("gelu", True)):
        old["provenance"] = {**P.provenance(SPECS[op]), "judge_epoch": 4}
        assert bool(P.stale_reasons({**old, "op": op}, SPECS[op])) is stale, op
    assert "gelu" in {op for op, s in SPECS.items() if "sqrt" in P.functions_called(s)}
    cell = M.plan(SPECS, ["fake_adapters.sweep:SweepFake"], ["float32"], ops={"softsign"})[0]
    chunks = cell.chunks(tmp_path)
    chunks.mkdir(parents=True)
    (chunks / M.PROVENANCE_FILE).write_text(json.dumps({**P.provenance(SPECS["softsign"]), "judge_epoch": 4}))
    (chunks / "kept.json").write_text("{}")
    M._fresh_chunks(cell, tmp_path, P.provenance(SPECS["softsign"]), SPECS["softsign"])
    assert (chunks / "kept.json").exists()
    record["epoch"], record["moved"]["6"] = 6, {}  # a bump that names no functions
    old["provenance"] = {**P.provenance(SPECS["relu"]), "judge_epoch": 4}
    assert P.stale_reasons({**old, "op": "relu"}, SPECS["relu"]) == ["judge epoch 4, now 6"]
    M._fresh_chunks(cell, tmp_path, P.provenance(SPECS["softsign"]), SPECS["softsign"])
    assert not (chunks / "kept.json").exists()


def test_a_bump_that_names_operators_per_dtype_moves_only_those_cells(tmp_path, monkeypatch):
    """--bump --operators float64:sigmoid: sigmoid's float64 cells are stale, its float32 cells and
    every other operator's cells keep their verdicts; the float32 chunks of a named cell are dropped."""
    from specgen.sweep import matrix as M
    from specgen.sweep import provenance as P

    record = {"epoch": 5, "sources": P.sources_digest(),
              "moved": {"5": {"operators": {"float64": ["sigmoid"], "float32": ["elu"]}, "why": "t"}}}
    monkeypatch.setattr(P, "recorded", lambda: record)
    for op, dtype, stale in (("sigmoid", "float64", True), ("sigmoid", "float32", False), ("elu", "float32", True),
                             ("elu", "float64", False), ("relu", "float64", False)):
        old = {"op": op, "dtype": dtype, "provenance": {**P.provenance(SPECS[op]), "judge_epoch": 4}}
        assert bool(P.stale_reasons(old, SPECS[op])) is stale, (op, dtype)
    for dtype, kept in (("float64", True), ("float32", False)):
        cell = M.plan(SPECS, ["fake_adapters.sweep:SweepFake"], [dtype], ops={"elu"})[0]
        chunks = cell.chunks(tmp_path)
        chunks.mkdir(parents=True, exist_ok=True)
        (chunks / M.PROVENANCE_FILE).write_text(json.dumps({**P.provenance(SPECS["elu"]), "judge_epoch": 4}))
        (chunks / "kept.json").write_text("{}")
        M._fresh_chunks(cell, tmp_path, P.provenance(SPECS["elu"]), SPECS["elu"])
        assert (chunks / "kept.json").exists() is kept, dtype


def test_judge_epoch_tool_records_operators_per_dtype(tmp_path, monkeypatch):
    import importlib.util

    from specgen.sweep import provenance as P

    spec = importlib.util.spec_from_file_location("judge_epoch_tool", Path(__file__).parents[1] / "tools/judge_epoch.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    record = tmp_path / "judge_epoch.json"
    record.write_text(json.dumps({"epoch": 7, "sources": "x"}))
    monkeypatch.setattr(P, "EPOCH_FILE", record)
    assert tool.main(["--bump", "--operators", "float64:swish,sigmoid", "--operators", "float32:elu",
                      "--why", "measure"]) == 0
    got = json.loads(record.read_text())
    assert got["epoch"] == 8 and got["moved"]["8"] == {
        "operators": {"float32": ["elu"], "float64": ["sigmoid", "swish"]}, "why": "measure"}
    with pytest.raises(SystemExit):
        tool.main(["--bump", "--operators", "float64:no_such_op"])
    with pytest.raises(SystemExit):
        tool.main(["--bump", "--operators", "float99:elu"])


def test_the_judge_epoch_record_matches_the_judge_sources():
    """specgen/sweep/judge_epoch.json holds the digest of the judge's sources: a change to the judge
    must say whether it moves verdicts (tools/judge_epoch.py --bump: every matrix cell goes stale) or
    not (--refresh)."""
    from specgen.sweep import provenance as P

    assert P.judge_files() and all(p.suffix == ".py" for p in P.judge_files())
    assert P.recorded()["sources"] == P.sources_digest(), (
        "the judge's sources changed: run `python tools/judge_epoch.py --refresh` if every verdict stays as it "
        "was, `--bump` if verdicts change (every matrix cell then runs again)")


def test_only_a_failing_cell_gets_a_plot(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    args, root, md, _ = _fake_matrix(tmp_path, "softsign", plots=True)
    monkeypatch.setenv("SWEEP_FAKE_WRONG", "0x3dff:0x3e01")
    assert CliRunner().invoke(main, args).exit_code == 0
    (png,) = root.glob("float16/*/softsign-defaults.png")
    assert png.read_bytes().startswith(b"\x89PNG") and png.name in md.read_text()
    monkeypatch.delenv("SWEEP_FAKE_WRONG")
    cell = next(root.glob("float16/*/softsign-defaults.json"))
    data = json.loads(cell.read_text())
    data["provenance"]["spec"] = "an older spec"  # stale: run again, now passing
    cell.write_text(json.dumps(data))
    assert CliRunner().invoke(main, args).exit_code == 0
    assert not list(root.glob("float16/*/*.png"))


def test_the_backends_line_names_every_version_its_cells_were_measured_with(tmp_path):
    """Cells of one adapter measured on two machines (torch's version names the ISA ATen runs) are
    not shown as one version: the line lists each with its count of cells and a mark, and each cell
    carries the mark of the version it was measured with."""
    r = CliRunner()
    args, root, md, _ = _fake_matrix(tmp_path, "softsign,shrink")
    assert r.invoke(main, args).exit_code == 0
    line = next(t for t in md.read_text().splitlines() if t.startswith("Backends: "))
    assert "cells)" not in line
    cells = sorted(root.glob("float16/*/*.json"))
    assert len(cells) >= 2
    for i, cell in enumerate(cells):
        d = json.loads(cell.read_text())
        d["info"]["backend"] = "another machine's version" if i == 0 else "this machine's version"
        cell.write_text(json.dumps(d))
    assert r.invoke(main, args + ["--render-only"]).exit_code == 0
    line = next(t for t in md.read_text().splitlines() if t.startswith("Backends: "))
    assert f"¹ this machine's version ({len(cells) - 1} cells)" in line and "² another machine's version (1 cells)" in line
    rows = [t for t in md.read_text().splitlines() if t.startswith("| soft") or t.startswith("| shrink")]
    assert sum(t.count("²") for t in rows) == 1 and sum(t.count("¹") for t in rows) == len(cells) - 1  # each cell's mark


def test_a_cells_json_keeps_the_worst_failures_of_a_few_binades_and_of_each_kind():
    """A float64 cell fails in up to 4,096 binades; its JSON keeps the KEEP_WORST worst failures and
    the worst of each failure kind, and the page's worst element is among them."""
    from types import SimpleNamespace
    from specgen.sweep import matrix as M
    from specgen.sweep.summary import Record

    fails = {f"+{i}": Record(i, i, 0, 1, float(i), 2.0, "value") for i in range(200)}
    fails.update({f"-{i}": Record(1000 + i, i, 0, 1, 1e300, None, "cancellation") for i in range(20)})
    fails["-99"] = Record(5000, 99, 0, 1, 7.0, None, "nan-mismatch")
    s = SimpleNamespace(worst_fail=fails, worst={})
    keep = M.kept_fail_binades(s)
    assert len(keep) == M.KEEP_WORST + 1 and {"-99", "+199"} <= keep  # NaN first, then 15 cancellations, best value
    assert max(fails.items(), key=lambda kv: kv[1].key_fail())[0] in keep
    trimmed = M.trim_summary({"worst": {}, "worst_fail": {k: r.to_json() for k, r in fails.items()}, "profile": {"1": 1}}, s)
    assert set(trimmed["worst_fail"]) == keep and trimmed["profile"] == {}


def test_the_committed_cells_stay_small():
    """docs/accuracy/ is committed: a cell's JSON keeps a bounded summary (no per-bin profile, the
    worst elements of a few binades) and a plot is a thumbnail, so 750 cells are a few MB. A failing
    float64 cell once wrote 507 KB of per-binade records; this catches the next such growth."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "docs" / "accuracy"
    cells = [p for p in root.glob("*/*/*.json")]
    assert len(cells) > 100
    big = [(p.relative_to(root), p.stat().st_size) for p in cells if p.stat().st_size > 32_000]
    big += [(p.relative_to(root), p.stat().st_size) for p in root.glob("*/*/*.png") if p.stat().st_size > 24_000]
    assert not big, big


def test_no_committed_cell_measures_a_correctly_rounded_output_past_two_ulp():
    """compare's error measure counts from the golden value where the float64 formula is off it
    by more than an ULP (measure_reference): an output bit-identical to the correctly rounded value
    measures at most 2 ULP in every committed cell (one of the golden value's binade: two of the
    binade below where it is a power of two); before, softplus's and the ELU family's read up to
    1e+307 ULP."""
    from specgen.sweep.summary import Summary

    root = Path(__file__).resolve().parents[1] / "docs" / "accuracy"
    bad = []
    for p in sorted(root.glob("*/*/*.json")):
        d = json.loads(p.read_text())
        if d.get("status") != "swept" or not d.get("summary"):
            continue
        s = Summary.from_json(d["summary"])
        bad += [(str(p.relative_to(root)), k, r.error) for k, r in s.worst.items()
                if r.actual == r.expected and r.error is not None and 2.0 < float(r.error) < float("inf")]
    assert not bad, bad[:5]


def test_the_committed_page_is_rendered_from_the_committed_cells(tmp_path):
    """docs/accuracy.md and docs/accuracy.json are generated from docs/accuracy/: a cell added or
    changed without `specgen matrix --render-only` is drift (the page would show what is not there)."""
    from pathlib import Path

    from specgen.sweep import matrix_page

    docs = Path(__file__).resolve().parent.parent / "docs"
    page, js = tmp_path / "accuracy.md", tmp_path / "accuracy.json"
    root = tmp_path / "accuracy"
    root.symlink_to(docs / "accuracy")
    (tmp_path / "accuracy-findings.md").symlink_to(docs / "accuracy-findings.md")
    matrix_page.write(root, page, js, "specgen matrix --render-only", load_all())
    assert page.read_text() == (docs / "accuracy.md").read_text(), "docs/accuracy.md: run specgen matrix --render-only"
    assert json.loads(js.read_text()) == json.loads((docs / "accuracy.json").read_text()), "docs/accuracy.json"


def test_a_cell_the_engine_cannot_sweep_is_named_in_one_line_and_the_rest_run(tmp_path, monkeypatch):
    """One cell raising (a golden value no enclosure decides, a unit prepare refuses) does not end the
    matrix with a traceback: the cell is named with its error, the others are swept and rendered, and
    the exit code is 1."""
    from specgen.sweep import matrix as M

    real = M.run_cell

    def run_cell(cell, *a, **k):
        if cell.unit.op == "shrink":
            raise ValueError("undecided at 4096 bits")
        return real(cell, *a, **k)

    monkeypatch.setattr(M, "run_cell", run_cell)
    args, root, md, _ = _fake_matrix(tmp_path, "softsign,shrink")
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 1, res.output
    assert "float16 fake_adapters.sweep:SweepFake shrink: not swept: ValueError: undecided at 4096 bits" in res.output
    assert "Traceback" not in res.output and "2 cell(s) not swept" in res.output
    assert "| softsign | pass" in md.read_text()
