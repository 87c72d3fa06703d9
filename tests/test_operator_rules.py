"""Issue 23: rules a standard states beside its formula, each caught by a deliberately wrong kernel on the
committed corpus while the correct kernel passes the same cases. WebNN clamp must throw for minValue >
maxValue (the block's attribute_order: crossed: rejected; the must-reject case reject-attribute-order);
DirectML has one modulus operator per sign rule (the binding's operators: the call names the operator and
passes no attribute), and computing each with the other's rule fails where the signs differ."""
from __future__ import annotations

import numpy as np
import pytest

from specgen.adapters.registry import load_object
from specgen.numerics.compare import compare as COMPARE
from specgen.runner.cases import Filters, load_cases, select
from specgen.runner.core import FAIL, PASS, Runner
from specgen.runner.verdicts import Cause
from specgen.spec.loader import load_all

SPECS = load_all()
ALL = load_cases()
CLAMP = [c for c in select(ALL, Filters(ops=("clip",), dtypes=("float32",))) if c.standard == "webnn"
         and (c.kind == "negative" or any(k in c.id for k in ("/breakpoints", "/regions")))]
MODULUS = [c for c in select(ALL, Filters(ops=("mod",), kinds=("positive",), dtypes=("float32", "int32")))
           if (c.standard, c.version) == ("directml", "6_0") and any(k in c.id for k in ("/breakpoints", "/regions", "/specials"))]

pytestmark = pytest.mark.skipif(not CLAMP or not MODULUS, reason="the corpus has no WebNN clamp or DirectML modulus cases")


def run(name, cases):
    adapter = load_object(name, f"fake_adapters.operator_rules:{name}", specs=SPECS)
    return Runner(adapter, SPECS, probe=False, compare=COMPARE).run(cases).results


def test_the_correct_clamp_passes_and_rejects_every_illegal_call():
    results = run("ClampChecksOrder", CLAMP)
    assert [(r.case_id, r.reason) for r in results if r.verdict != PASS] == []
    assert {r.case_id for r in results if r.cause == Cause.REJECTED} == {c.id for c in CLAMP if c.kind == "negative"}


def test_a_clamp_that_does_not_reject_min_above_max_fails_exactly_there():
    results = run("ClampIgnoresOrder", CLAMP)
    failed = [r for r in results if r.verdict == FAIL]
    assert [(r.case_id, r.cause) for r in failed] == [("clip/webnn-2026-06-26/float32/rank4/reject-attribute-order",
                                                        Cause.ACCEPTED_ILLEGAL)]
    case = next(c for c in CLAMP if c.id == failed[0].case_id)
    assert case.attributes["min_value"] > case.attributes["max_value"] and case.kind == "negative"


def test_the_webnn_clamp_cases_give_infinite_and_absent_bounds():
    given = {(tuple(c.attributes_given), c.attributes["min_value"], c.attributes["max_value"])
             for c in CLAMP if c.kind == "positive"}
    assert ((), -np.inf, np.inf) in given  # the default: no option, no bound
    assert any(lo == -np.inf and hi == 0.5 and names for names, lo, hi in given)  # -Infinity given as an option
    assert any(lo == -0.5 and hi == np.inf and names for names, lo, hi in given)


def test_the_correct_modulus_operators_pass():
    assert [(r.case_id, r.reason) for r in run("DmlModulus", MODULUS) if r.verdict != PASS] == []
    assert {c.attributes["sign_of"] for c in MODULUS} == {"divisor", "dividend"}


def test_modulus_operators_with_the_sign_rules_swapped_fail_where_the_signs_differ():
    results = run("DmlModulusWrongSign", MODULUS)
    failed = [r for r in results if r.verdict == FAIL]
    assert {c.attributes["sign_of"] for c in MODULUS if c.id in {r.case_id for r in failed}} == {"divisor", "dividend"}
    assert {r.verdict for r in results} <= {PASS, FAIL}
    for r in failed:
        case = next(c for c in MODULUS if c.id == r.case_id)
        t = case.load()
        a, b = np.broadcast_arrays(t["a"], t["b"])
        finite = np.isfinite(a) & np.isfinite(b) & (b != 0) & (a != 0)
        # the two rules agree wherever the operands have one sign (or the remainder is 0)
        assert ((a[finite] < 0) != (b[finite] < 0)).any(), r.case_id
