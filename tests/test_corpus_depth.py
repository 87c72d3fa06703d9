"""Issue 14, attribute sweeps and exact integer semantics: fake adapters wrong in exactly one way
(integer rounding, a negative, zero or huge attribute) fail the committed corpus, only where their
defect shows; the correct fakes pass (the reference adapter passing everything is
tests/test_adapters_shipped.py)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from specgen.adapters.registry import load_object
from specgen.generate.corpus import attribute_boundary_sets, attribute_sets, crossed
from specgen.numerics.compare import compare as COMPARE
from specgen.runner.cases import Filters, load_cases, select
from specgen.runner.core import FAIL, PASS, Runner
from specgen.spec.loader import load_all

SPECS = load_all()
ALL = load_cases()
INT_CASES = [c for c in select(ALL, Filters(ops=("shrink",), kinds=("positive",), dtypes=("int8", "int32", "uint64", "int16")))
             if (c.standard, c.version) in (("onnx", "9"), ("directml", "5_1"))]
FLOAT_CASES = [c for c in select(ALL, Filters(ops=("hard_sigmoid", "shrink"), dtypes=("float32",), kinds=("positive",)))
               if (c.standard, c.version) in (("onnx", "22"), ("onnx", "9"), ("directml", "3_0"), ("directml", "5_1"))]


def run(name, cases):
    assert cases
    return Runner(load_object(name, f"fake_adapters.depth:{name}"), SPECS, compare=COMPARE, probe=False).run(cases).results


@pytest.mark.parametrize("name", ["IntegerShrink", "IntegerShrinkNearestEven"])
def test_integer_shrink_rounded_by_a_listed_mode_passes(name):
    assert [(r.case_id, r.reason) for r in run(name, INT_CASES) if r.verdict != PASS] == []


def test_integer_shrink_rounding_halves_away_fails_exactly_at_halves():
    """8 - 3.5 -> 5 is within 1 of the exact 4.5 but neither truncation nor nearest-even: the corpus
    fails it, and only where x -/+ bias ends in .5."""
    results = run("IntegerShrinkHalfAway", INT_CASES)
    failed = [(c, r) for c, r in zip(INT_CASES, results) if r.verdict == FAIL]
    assert failed and {r.verdict for r in results} <= {PASS, FAIL}
    assert {c.dtype for c, _ in failed} == {"int8", "int16", "int32", "uint64"}
    for c, r in failed:
        x = Fraction(int(r.detail["worst"]["input"]["decimal"]))
        assert (x - Fraction(c.attributes["bias"])).denominator == 2, (c.id, r.reason)
    for c, r in zip(INT_CASES, results):
        if c.attributes["bias"] == 0:  # no halves: nothing to round
            assert r.verdict == PASS, c.id


DEFECTS = {
    "NegativeAttributeAsAbs": lambda a: any(v < 0 for v in a.values()),
    "ZeroAttributeMeansDefault": lambda a: any(v == 0 for v in a.values()),
    "HugeAttributeSaturates": lambda a: any(abs(v) > 65504 for v in a.values()),
}


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_attribute_defects_fail_only_where_the_attributes_show_them(name):
    results = run(name, FLOAT_CASES)
    failed = [c for c, r in zip(FLOAT_CASES, results) if r.verdict == FAIL]
    assert failed, name
    assert all(DEFECTS[name](c.attributes) for c in failed), [c.id for c in failed if not DEFECTS[name](c.attributes)]
    defaults = [r for c, r in zip(FLOAT_CASES, results) if "default" in c.tags]
    assert defaults and all(r.verdict == PASS for r in defaults)


def test_huge_attribute_defect_is_caught_only_by_the_boundary_cases():
    results = run("HugeAttributeSaturates", FLOAT_CASES)
    failed = {c.id for c, r in zip(FLOAT_CASES, results) if r.verdict == FAIL}
    assert failed and all("/attribute-boundary[" in i for i in failed)
    # every op, standard and attribute: its huge boundary catches the defect
    for op, std in (("hard_sigmoid", "onnx"), ("shrink", "onnx"), ("hard_sigmoid", "directml"), ("shrink", "directml")):
        for k in SPECS[op].attribute_names:
            assert any(f"/{op}/" in f"/{i}" and f"/{std}-" in i and f"{k}=3.4028235e+38" in i for i in failed), (op, std, k)


def test_attribute_boundary_sets_come_from_the_spec():
    """Per settable attribute: smallest subnormal, +-largest float32, the other attributes at the
    standard's first set; none for an attribute the standard fixes or whose values are a closed
    set of integers (IsInf's detect flags take 0 and 1 only)."""
    for op, spec in SPECS.items():
        closed = {a.name for a in spec.attributes if a.int_values}
        for key, std in spec.standards.items():
            sets = attribute_boundary_sets(spec, key)
            settable = [a for a in spec.numeric_attribute_names if a not in std.fixed() and a not in closed]
            if spec.attribute_order is None:
                assert len(sets) == 3 * len(settable), (op, key)
            else:  # Clip: a boundary that crosses min <= max, or repeats another, is left out
                assert 0 < len(sets) <= 3 * len(settable) and not any(crossed(spec, s.values) for s in sets), (op, key)
            base = attribute_sets(spec, key)[0].values
            for s in sets:
                changed = [k for k in s.values if s.values[k] != base[k]]
                assert len(changed) == 1 and abs(s.values[changed[0]]) in (2.0 ** -149, float(np.finfo(np.float32).max))


def test_exhaustive_sweeps_cover_every_designed_attribute_set(monkeypatch):
    """--exhaustive writes one 65,536-pattern case per table row, 16-bit dtype and designed set."""
    import specgen.generate.corpus as cp
    from specgen.vectors import CorpusWriter

    spec = SPECS["hard_sigmoid"]
    made = []
    monkeypatch.setattr(cp, "exhaustive_case", lambda spec_, w, std, ver, dtype, aset: made.append((std.key, ver.version, dtype, aset.name)))
    n = cp.exhaustive_cases(spec, CorpusWriter())
    want = [(std.key, ver.version, d, s.name) for std in spec.standards.values() for ver in std.versions
            for d in ver.dtypes("x") if d in cp.EXHAUSTIVE_DTYPES for s in cp.attribute_sets(spec, std.key)]
    assert made == want and n == len(want) and len({m[3] for m in made}) > 5
    monkeypatch.undo()
    w = CorpusWriter()
    std = spec.standards["onnx"]
    aset = next(s for s in cp.attribute_sets(spec, "onnx") if not s.default)
    cp.exhaustive_case(spec, w, std, std.versions[-1], "float16", aset)
    (entry,) = w.cases
    assert entry["attributes"] == aset.values and aset.name in entry["tags"] and entry["id"].endswith(cp.attr_suffix(aset))


def test_nonfinite_attribute_probes_follow_the_standards_rule():
    """WebNN (nonfinite_attributes: rejected) gets NaN, +inf and -inf per settable attribute in every
    row; standards that do not forbid them get no such probe; the manifest keeps the float values."""
    neg = [c for c in ALL if c.kind == "negative" and "attribute-nonfinite" in c.tags]
    assert neg and {c.standard for c in neg} == {k for s in SPECS.values() for k, std in s.standards.items()
                                                   if std.info.nonfinite_attributes == "rejected"}
    for op, spec in SPECS.items():
        for key, std in spec.standards.items():
            if std.info.nonfinite_attributes != "rejected":
                continue
            # an attribute whose type takes them (WebNN clamp's MLNumber: nonfinite: allowed) gets none
            settable = [a for a in spec.numeric_attribute_names if a not in std.fixed()
                        and std.attributes[a].nonfinite_rejected(std.info)]
            for ver in std.versions:
                got = sorted(c.id.rsplit("/", 1)[1] for c in neg if (c.op, c.standard, c.version) == (op, key, ver.version))
                assert got == sorted(f"reject-attribute-{a}-{v}" for a in settable for v in ("nan", "inf", "neg-inf"))
    for c in neg:
        name = c.id.rsplit("/", 1)[1].removeprefix("reject-attribute-").rsplit("-", 1)[0].removesuffix("-neg")
        bad = c.attributes[name]  # the others may be infinite too (an absent WebNN clamp bound given as +-inf)
        if c.id.endswith("-nan"):
            assert np.isnan(bad), c.id
        else:
            assert bad == (-np.inf if c.id.endswith("-neg-inf") else np.inf), c.id


def test_passing_nonfinite_options_through_fails_exactly_the_attribute_value_cases():
    """Two WebNN fakes that differ only in rejecting NaN/inf options differ exactly on those cases."""
    cases = [c for c in ALL if c.kind == "negative" and c.op == "hard_sigmoid" and c.standard == "webnn"]
    loose = [r.verdict for r in run("WebNNChecksTensorsOnly", cases)]
    strict = [r.verdict for r in run("WebNNRejectsNonFinite", cases)]
    differ = {c.id for c, a, b in zip(cases, loose, strict) if a != b}
    assert differ == {c.id for c in cases if "attribute-nonfinite" in c.tags}
    assert {v for c, v in zip(cases, loose) if c.id in differ} == {FAIL}
    assert {v for c, v in zip(cases, strict) if c.id in differ} == {PASS}


def test_an_undecidable_boundary_set_is_left_out_and_said(monkeypatch):
    import specgen.generate.corpus as cp
    from specgen.errors import Problem, SpecError
    from specgen.vectors import CorpusWriter

    spec = SPECS["elu"]
    std = spec.standards["onnx"]
    stats = cp.Stats()
    oc = cp.OpCorpus(spec, CorpusWriter(), stats, None)

    def undecided(*a, **k):
        raise SpecError([Problem("specs/elu.yaml", None, "formula", "undecided at 4096 bits")])

    monkeypatch.setattr(cp, "golden", undecided)
    oc.attribute_boundaries(std, std.versions[-1], "float32")
    assert len(stats.left_out) == 3 and all("undecided at 4096 bits" in m for m in stats.left_out)
    assert stats.positive == 0
