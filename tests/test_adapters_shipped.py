"""The adapters shipped with specgen, on small filtered subsets of the committed corpus."""
from __future__ import annotations

import numpy as np
import pytest

from fake_adapters.cases import case
from specgen.adapters.registry import AdapterLoadError, load
from specgen.runner.cases import Filters, load_cases, select
from specgen.runner.core import ERROR, FAIL, PASS, UNSUPPORTED, Runner
from specgen.spec.loader import load_all

try:
    from specgen.numerics.compare import compare as COMPARE
except ImportError:  # pragma: no cover - until the error model lands
    from fake_adapters.stub_compare import compare as COMPARE

SPECS = load_all()
CASES = load_cases()


def run(name, **filters):
    cases = select(CASES, Filters(**{k: tuple(v) for k, v in filters.items()}))
    assert cases, filters
    return Runner(load(name), SPECS, compare=COMPARE).run(cases)


def test_reference_adapter_passes_a_cross_section_of_the_corpus():
    # every op, standard and layout, positive and must-reject; the whole corpus runs in CI via
    # `specgen run --adapter reference` (docs/runner.md)
    result = run("reference", cases=("*/rank4/*", "*/in-place", "*/strided", "*/rank0/*", "*large*"))
    counts = result.counts()
    assert counts[PASS] == len(result.results), [(r.case_id, r.reason) for r in result.results if r.verdict != PASS][:5]
    kinds = {(r.kind, r.in_place, r.strided) for r in result.results}
    assert {("positive", False, False), ("negative", False, False), ("positive", True, False),
            ("positive", False, True)} <= kinds


def test_onnxruntime_claims_only_what_it_implements_and_says_why_not():
    loaded = load("onnxruntime")
    claimed = {(c.op, c.versions[0]): set(c.dtypes) for c in loaded.claims}
    assert claimed[("hard_sigmoid", "22")] == {"float32", "float16"}
    assert ("hard_sigmoid", "1") not in claimed  # no opset-1 kernel at all
    why = loaded.adapter.why_unclaimed("hard_sigmoid", "onnx", "22", "float64")
    assert "NOT_IMPLEMENTED" in why


def test_onnxruntime_hard_sigmoid_float32_passes_and_rejects_illegal_calls():
    result = run("onnxruntime", ops=("hard_sigmoid",), standards=("onnx",), versions=("22",), dtypes=("float32",))
    bad = [(r.case_id, r.verdict, r.reason) for r in result.results if r.verdict != PASS]
    assert bad == []
    result = run("onnxruntime", ops=("hard_sigmoid",), versions=("22",), kinds=("negative",))
    assert len(result.results) >= 5
    assert [(r.case_id, r.reason) for r in result.results if r.verdict != PASS] == []


def test_onnxruntime_unimplemented_dtype_is_unsupported_with_the_backend_message():
    result = run("onnxruntime", ops=("hard_sigmoid",), versions=("22",), dtypes=("float64",), kinds=("positive",))
    assert {r.verdict for r in result.results} == {UNSUPPORTED}
    assert "NOT_IMPLEMENTED" in result.results[0].reason
    (probe,) = result.probes
    assert probe.outcome == "does not run" and "NOT_IMPLEMENTED" in probe.message


def test_onnxruntime_near_the_cancellation_is_judged_by_the_error_model():
    # issue 3: fl(fl(alpha*x)+beta) at x = 0xc01fffff is millions of ULP from the once-rounded value
    x = np.array([0xC01FFFFF, 0xC0200000, 0xC01FFFFE], dtype=np.uint32).view(np.float32)
    c = case("hard_sigmoid", x=x, given=(), name="cancellation")
    (r,) = Runner(load("onnxruntime"), SPECS, compare=COMPARE, probe=False).run([c]).results
    assert r.verdict == PASS, r.reason


def test_onnx_reference_evaluator_runs_softsign():
    result = run("onnx-reference", ops=("softsign",), versions=("22",), dtypes=("float32",))
    assert any(r.verdict == PASS for r in result.results)
    # onnx 1.23's evaluator cannot take a 0-d tensor for Softsign (TypeError from its unary-op base)
    errors = [r for r in result.results if r.verdict == ERROR]
    assert all("/rank0/" in r.case_id and "TypeError" in r.reason for r in errors)




def test_torch_adapter_claims_the_subsets_and_judges_hardsigmoid_honestly():
    pytest.importorskip("torch")
    loaded = load("torch")
    sixth = case("hard_sigmoid", attributes={"alpha": 1 / 6, "beta": 0.5}, given=("alpha", "beta"), name="sixth",
                 x=np.linspace(-3.5, 3.5, 1001))
    other = case("hard_sigmoid", name="defaults")
    soft = case("shrink", version="9", attributes={"bias": 0.5, "threshold": 0.5}, name="soft")
    hard = case("shrink", version="9", attributes={"bias": 0.0, "threshold": 0.75}, name="hard")
    neither = case("shrink", version="9", attributes={"bias": 0.25, "threshold": 0.5}, name="neither")
    sign = case("softsign", version="22", name="softsign")
    got = {r.case_id.split("/")[-1]: r for r in
           Runner(loaded, SPECS, compare=COMPARE, probe=False).run([sixth, other, soft, hard, neither, sign]).results}
    assert got["defaults"].verdict == UNSUPPORTED and got["neither"].verdict == UNSUPPORTED
    for name in ("sixth", "soft", "hard", "softsign"):
        assert got[name].verdict == PASS, (name, got[name].reason)


def test_torch_adapter_is_not_installed_without_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(AdapterLoadError) as info:
            load("torch")
        assert info.value.status == "not installed"
    else:
        pytest.skip("torch is installed")
