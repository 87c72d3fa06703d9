"""Issue 23, the binary arithmetic family: deliberately wrong kernels run through the runner on the
committed corpus are each caught where their defect shows (integer Div flooring where ONNX
truncates, Mod with the wrong sign, pow(0, 0) = NaN), and the correct kernel passes the same cases.
A sample of designed cases per defect (breakpoints, regions and special pairs of one row per dtype),
not the whole corpus; and the corpus checks of the new capabilities: no integer zero divisor is left,
special pairs cover 0 ** 0, Mod's fmod follows the tensor kind."""
from __future__ import annotations

import numpy as np
import pytest

from specgen.adapters.registry import load_object
from specgen.numerics.compare import compare as COMPARE
from specgen.runner.cases import Filters, load_cases, select
from specgen.runner.core import FAIL, PASS, Runner
from specgen.spec.loader import load_all

SPECS = load_all()
ALL = load_cases()
DESIGNED = ("/breakpoints", "/regions", "/specials")


def _cases(op, version, dtypes):
    return [c for c in select(ALL, Filters(ops=(op,), kinds=("positive",), dtypes=dtypes))
            if (c.standard, c.version) == ("onnx", version) and any(k in c.id for k in DESIGNED)]


DIV_INT = _cases("div", "14", ("int32", "int64"))
MOD_INT = _cases("mod", "13", ("int32",))
MOD_FLOAT = _cases("mod", "13", ("float32",))
POW = _cases("power", "15", ("float32", "float16"))


def run(name, cases):
    assert cases
    adapter = load_object(name, f"fake_adapters.elementwise_arith:{name}", specs=SPECS)
    return Runner(adapter, SPECS, probe=False, compare=COMPARE).run(cases).results


def _number(text: str):
    """A reported input: exact for integers (int64 extremes do not fit a float)."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def _pairs(result):
    worst = result.detail["worst"]["inputs"]
    return _number(worst["a"]["decimal"]), _number(worst["b"]["decimal"])


def test_the_correct_kernel_passes():
    bad = [(r.case_id, r.reason) for r in run("CorrectArith", DIV_INT + MOD_INT + MOD_FLOAT + POW)
           if r.verdict != PASS]
    assert bad == []


def test_integer_div_flooring_fails_where_the_signs_differ():
    results = run("FlooringIntegerDiv", DIV_INT)
    failed = [r for r in results if r.verdict == FAIL]
    assert failed and {r.verdict for r in results} <= {PASS, FAIL}
    for r in failed:
        a, b = _pairs(r)
        assert (a < 0) != (b < 0) and a % b != 0, (r.case_id, a, b)


@pytest.mark.parametrize("cases", [MOD_INT, MOD_FLOAT], ids=["fmod=0-int32", "fmod=1-float32"])
def test_mod_with_the_wrong_sign_fails(cases):
    results = run("ModWithTheWrongSign", cases)
    failed = [r for r in results if r.verdict == FAIL]
    assert failed
    for r in failed:
        a, b = _pairs(r)
        assert np.isnan(a) or np.isnan(b) or np.isinf(a) or np.isinf(b) or (a < 0) != (b < 0), (r.case_id, a, b)


def test_pow_zero_to_the_zero_as_nan_fails_at_the_special_pairs():
    results = run("PowZeroToZeroIsNaN", POW)
    failed = {r.case_id for r in results if r.verdict == FAIL}
    assert any("/specials-b" in c for c in failed)
    for r in results:
        if r.verdict == FAIL:
            assert _pairs(r) == (0.0, 0.0) or 0.0 in _pairs(r), r.case_id


def test_integer_cases_hold_no_zero_divisor_and_special_pairs_hold_zero_to_the_zero():
    for case in select(ALL, Filters(ops=("div", "mod"), kinds=("positive",), dtypes=("int8", "uint8"))):
        assert not (case.load()["b"] == 0).any(), case.id  # an integer division by zero has no value
    pairs = [c for c in POW if "/specials-b" in c.id]
    t = pairs[0].load()
    assert ((t["a"] == 0) & (t["b"] == 0)).any() and (t["c"][(t["a"] == 0) & (t["b"] == 0)] == 1).all()


def test_mod_fmod_follows_the_tensor_kind():
    """ONNX Mod: fmod = 0 constrains T to integer types, fmod = 1 to floating-point ones (kind_values)."""
    mods = select(ALL, Filters(ops=("mod",), kinds=("positive",), standards=("onnx",)))
    assert mods
    for case in mods:
        want = "dividend" if case.dtype.startswith(("float", "bfloat")) else "divisor"
        assert case.attributes["sign_of"] == want, case.id
    rejects = {c.id.split("/")[-1] for c in select(ALL, Filters(ops=("mod",), kinds=("negative",)))}
    assert {"reject-sign-of-divisor-float64", "reject-sign-of-dividend-int16"} <= rejects
