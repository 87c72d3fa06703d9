"""The accuracy matrix (specgen matrix, specgen.sweep.catalog/matrix/matrix_page): what is sweepable
comes from the specs; a sweep and `specgen run`'s comparison give the same verdicts on the same
inputs; a small shard of the matrix runs, resumes and renders."""
from __future__ import annotations

import json

import numpy as np
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
    one_input = {k for k, s in SPECS.items() if len(s.inputs) == 1}
    assert one_input <= set(by_op)  # every one-input operator has a unit
    for op, spec in SPECS.items():
        if len(spec.inputs) > 1:  # further inputs: one unit per grid value
            for choice in spec.choice_values or (None,):  # per formula a string attribute picks (Mod's two)
                values = sorted(dict(u.extra_inputs)[spec.inputs[1].name] for u in by_op[op]
                                if choice is None or dict(u.attributes).get(spec.choice.attribute) == choice)
                assert values == sorted(catalog.SECOND_INPUT_GRID)
        for choice in spec.choice_values:  # every formula a string attribute picks
            assert any(dict(u.attributes).get(spec.choice.attribute) == choice for u in by_op[op])
        for t in spec.test_attributes:  # a designed set is swept where the standard can pass it
            std = spec.standards[by_op[op][0].standard]
            assert any(u.attribute_set.endswith(t.name) for u in by_op[op]) == catalog.expressible(std, t.values)
    assert len({u.key for u in units}) == len(units)


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


def test_a_matrix_shard_runs_resumes_and_renders(tmp_path):
    r = CliRunner()
    root, md, js = tmp_path / "acc", tmp_path / "accuracy.md", tmp_path / "accuracy.json"
    args = ["matrix", "--adapter", "fake_adapters.sweep:SweepFake", "--dtype", "float16", "--ops", "softsign,shrink",
            "--workers", "0", "--results", str(root), "--markdown", str(md), "--json", str(js), "--no-plots"]
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
