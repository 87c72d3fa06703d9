"""Issue 23: attributes that become optional input tensors (ONNX Clip-11 on) or optional options (WebNN
clamp, absent: no bound). A kernel that reads an absent max as 0 fails on the cases that leave the
bounds out, and the correct kernel passes the same cases. Designed cases of Clip-11/12/13 and WebNN float32 only (breakpoints, regions)."""
from __future__ import annotations

import pytest

from specgen.adapters.registry import load_object
from specgen.numerics.compare import compare as COMPARE
from specgen.runner.cases import Filters, load_cases, select
from specgen.runner.core import FAIL, PASS, Runner
from specgen.spec.loader import load_all

SPECS = load_all()
ALL = load_cases()
CASES = [c for c in select(ALL, Filters(ops=("clip",), kinds=("positive",), dtypes=("float32", "int32")))
         if ((c.standard == "onnx" and c.version in ("11", "12", "13")) or (c.standard == "webnn" and c.dtype == "float32"))
         and any(k in c.id for k in ("/breakpoints", "/regions"))]

pytestmark = pytest.mark.skipif(not CASES, reason="the corpus has no Clip cases yet (run specgen generate)")


def run(name):
    adapter = load_object(name, f"fake_adapters.bounds:{name}", specs=SPECS)
    return Runner(adapter, SPECS, probe=False, compare=COMPARE).run(CASES).results


def test_the_correct_kernel_passes():
    assert [(r.case_id, r.reason) for r in run("CorrectBounds") if r.verdict != PASS] == []


def test_an_absent_max_read_as_zero_fails_exactly_where_max_is_absent():
    results = run("AbsentMaxAsZero")
    failed = {r.case_id for r in results if r.verdict == FAIL}
    absent = {c.id for c in CASES if "max_value" not in c.attributes_given}
    assert failed and failed <= absent
    # every float32 case without bounds holds positive inputs, which a max of 0 changes
    assert {i for i in absent if "/float32/" in i} <= failed
    assert any(i.startswith("clip/webnn-") for i in failed)  # WebNN clamp: maxValue left out of the options
