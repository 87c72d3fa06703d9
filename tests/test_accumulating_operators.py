"""The accumulating operators (specs/accumulating) are ordinary operators of the tool: listed, in
the corpus with the manifest's case records, selected by run's filters, judged by the accumulation
model through the runner (specgen.runner.core asks the spec's engine), with baselines. Samples: the
whole-corpus gates are .ci/gates/*.sh."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from specgen.adapters.registry import load_object
from specgen.cli import main
from specgen.runner.cases import Filters, load_cases, select
from specgen.runner.core import Runner
from specgen.spec.operators import accumulating, load_operators

ROOT = Path(__file__).resolve().parents[1]
SPECS = load_operators()
ACC = accumulating(SPECS)
CASES = [c for c in load_cases(ROOT / "generated" / "vectors", SPECS) if c.op in ACC]
ID = re.compile(r"^[a-z][a-z0-9_]*/[a-z]+-[a-z0-9_.-]+/(float16|float32|float64|bfloat16)/"
                r"(rank\d/[a-z0-9-]+(/[a-z0-9-]+)?|empty/[a-z-]+(/keep\d?)?|length\d+/[a-z_]+|k\d+/[a-z_]+|[a-zA-Z0-9_.-]+)$")


def _run(*args):
    result = CliRunner().invoke(main, ["run", *args, "-q", "--no-progress"])
    return result.exit_code, result.output


def test_every_accumulating_operator_has_corpus_cases_in_the_one_case_format():
    assert set(ACC) == {c.op for c in CASES} and len(ACC) == 17
    assert all(ID.match(c.id) for c in CASES), [c.id for c in CASES if not ID.match(c.id)][:5]
    for op in ACC:  # one sample per operator: the manifest's record, data verified by its sha256
        mine = [c for c in CASES if c.op == op]
        positive = next(c for c in mine if c.kind == "positive")
        negative = next(c for c in mine if c.kind == "negative")
        data = positive.load()
        assert positive.tolerance["metric"] == "accumulation"
        assert list(data) == [*SPECS[op].inputs, *SPECS[op].outputs]
        assert list(data[SPECS[op].outputs[0]].shape) == positive.shapes[SPECS[op].outputs[0]]
        assert negative.violations and list(negative.load()) == list(SPECS[op].inputs)


def test_the_corpus_leaves_long_sums_to_the_benchmarks():
    lengths = {int(m.group(1)) for c in CASES for m in [re.search(r"/(?:length|k)(\d+)/", c.id)] if m}
    assert max(lengths) == 1023 and 65537 not in lengths


def test_reference_passes_a_sample_with_its_must_reject_cases():
    code, out = _run("--adapter", "reference", "--op", "reduce_sum,softmax,gemm", "--version", "13")
    assert code == 0 and " 0 fail, 0 error, 0 unsupported" in out, out


def test_filters_select_accumulating_cases_and_name_a_typo():
    chosen = select(CASES, Filters(ops=("reduce_mean",), versions=("18",), dtypes=("float16",)))
    assert chosen and {c.op for c in chosen} == {"reduce_mean"}
    result = CliRunner().invoke(main, ["cases", "--op", "reduce_sun"])
    assert result.exit_code == 2 and "did you mean reduce_sum" in result.stderr


@pytest.mark.parametrize("kernel", ["Sequential", "Pairwise", "Reversed"])
def test_correct_kernels_in_three_summation_orders_pass(kernel):
    cases = [c for c in CASES if c.standard == "onnx" and c.version == "13" and c.op in ("reduce_sum", "softmax")
             and c.dtype == "float32" and ("length" in c.id or "reject" in c.id)]
    run = Runner(load_object(kernel, f"fake_adapters.accumulating:{kernel}", specs=SPECS), SPECS, probe=False).run(cases)
    assert run.counts()["pass"] == len(cases), [r.reason for r in run.results if r.verdict != "pass"][:3]


def test_wrong_kernels_are_caught_through_the_runner():
    def verdicts(kernel, pattern):
        cases = [c for c in CASES if re.fullmatch(pattern, c.id)]
        assert cases, pattern
        run = Runner(load_object(kernel, f"fake_adapters.accumulating:{kernel}", specs=SPECS), SPECS, probe=False)
        return run.run(cases).results

    # keepdims ignored: the derived output shape is not met
    bad = verdicts("KeepdimsIgnored", r"reduce_sum/onnx-13/float32/rank3/axes1/keep1")
    assert [(r.verdict, r.cause) for r in bad] == [("error", "wrong-shape")]
    # float16 accumulation: reported where ONNX leaves it unspecified, a failure where stash_type says float32
    stall = verdicts("HalfAccumulator", r"reduce_sum/onnx-13/float16/length1023/stall")
    assert stall[0].verdict == "pass" and any("float16 accumulation" in n for n in stall[0].notes)
    assert stall[0].profile["accumulation"] == {"float16 accumulation needed": 1}
    layer = verdicts("HalfAccumulator", r"layer_normalization/onnx-17/float16/length(8|9|1023)/(stall|cancellation)")
    assert any(r.verdict == "fail" for r in layer)


def test_onnxruntime_gate_on_a_sample_with_its_baseline():
    pytest.importorskip("onnxruntime")
    code, out = _run("--adapter", "onnxruntime", "--op", "reduce_log_sum_exp,log_softmax", "--version", "13,18",
                     "--dtype", "float16,float64", "--baseline", str(ROOT / "baselines" / "onnxruntime.yaml"), "--strict")
    assert code == 0 and " xfail" in out and " 0 fail, 0 error" in out, out


def test_generated_validators_agree_with_every_designed_case():
    """generated/validate/<op>.py of each accumulating operator (the index-space engine copied into
    validate/_index_space.py, standalone): every positive case of the corpus is legal with the
    output sizes it stores, every must-reject case is refused; and a wrong dtype, an attribute the
    version lacks and wrong output sizes are named."""
    from specgen.generate.tree import import_generated

    modules = {op: import_generated(ROOT / "generated", "validate", op) for op in ACC}
    wrong = []
    for c in CASES:
        tensors = {t: {"dtype": c.dtypes[t], "sizes": list(s)} for t, s in c.shapes.items()
                   if c.kind == "positive" or t in SPECS[c.op].inputs}
        problems = modules[c.op].validate(c.standard, c.version, tensors, {a: c.attributes[a] for a in c.attributes_given})
        if bool(problems) != (c.kind == "negative"):
            wrong.append((c.id, problems))
    assert not wrong, wrong[:5]
    text = (ROOT / "generated" / "validate" / "_index_space.py").read_text()
    assert "import specgen" not in text and "from specgen" not in text
    m = modules["reduce_sum"]
    assert m.validate("webnn", "2026-06-26", {"x": {"dtype": "float64", "sizes": [2, 3]}, "y": {"dtype": "float64", "sizes": [2, 5]}},
                      {"axes": [1], "bogus": 1}) == [
        "reduceSum (webnn 2026-06-26): attribute 'bogus' is not one of this version's (axes, keepdims)",
        "x: data type float64 is not allowed (reduceSum (webnn 2026-06-26) allows float32, float16)",
        "y: data type float64 is not allowed (reduceSum (webnn 2026-06-26) allows float32, float16)",
        "y: sizes [2, 5]; the inputs and attributes give [2]"]
