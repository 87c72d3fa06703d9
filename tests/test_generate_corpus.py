"""The committed corpus covers what the specs allow: every (standard, version, dtype, rank), every
attribute set, every region and breakpoint, special values, negatives per table row."""
from __future__ import annotations

import collections
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np

from specgen import dtypes as dt
from specgen.generate import rules
from specgen.generate.corpus import LATE_DTYPES, attribute_sets, case_dtypes, crossed, held_values, numeric_sets
from specgen.generate.design import analyse_formula, region_index, regions
from specgen.numerics.ulp import round_fraction, step
from specgen.generate.tree import import_generated
from specgen.spec.loader import load_all
from specgen.vectors import load_corpus

ROOT = Path(__file__).resolve().parent.parent
SPECS = load_all()
X = {op: spec.inputs[0].name for op, spec in SPECS.items()}  # each operator's primary input

CORPUS = load_corpus(ROOT / "generated" / "vectors")
# the element-wise operators' cases (the accumulating ones, designed from an index space: test_accumulating_operators.py)
CASES = [c for c in CORPUS.cases if c.op in SPECS]
POSITIVE = [c for c in CASES if c.kind == "positive"]
NEGATIVE = [c for c in CASES if c.kind == "negative"]
VALIDATE = {op: import_generated(ROOT / "generated", "validate", op).validate for op in SPECS}
# attribute values: numbers (an infinity: Clip's unbounded side, min_value=-inf), or a string attribute's value
# (lower_snake_case: approximate=tanh)
_VALUE = r"[a-z_]+=(?:[-+0-9.e]+|-?inf|[a-z][a-z0-9_]*)"
ID = re.compile(r"^[a-z_]+/[a-z]+-[a-z0-9_.-]+/[a-z0-9]+/rank\d+/[a-z0-9_-]+(\[" + _VALUE + "(," + _VALUE + r")*\])?$")


def _dtypes(op, ver):
    """The dtypes a row's cases are made for (every input's, where every tensor can have it: Where's bool)."""
    return case_dtypes(ver, [t.name for t in SPECS[op].inputs])


def _rows():
    for op, spec in SPECS.items():
        for key, std in spec.standards.items():
            for ver in std.versions:
                yield op, spec, key, std, ver


def test_ids_are_unique_and_readable():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    bad = [i for i in ids if not ID.match(i)]
    assert not bad, bad[:5]


def test_every_standard_version_dtype_and_rank_has_cases():
    have = collections.defaultdict(set)
    for c in POSITIVE:
        have[(c.op, c.standard, c.version, c.dtype)].add(len(c.shapes[X[c.op]]))
    from specgen.generate.corpus import addressing_dtype, case_dtypes, sweeps_row, width_key

    for op, spec, key, std, ver in _rows():
        inputs = [t.name for t in spec.inputs]
        for dtype in _dtypes(op, ver):
            ranks = set(rules.tested_ranks(ver.ranks(X[op])))
            # a version repeating its predecessor's table has its rank sweep there; a dtype whose
            # widths an earlier dtype of the row has (addressing_per_width) has that dtype's sweep
            owner, od = ver, dtype
            while not sweeps_row(spec, std, owner, od, inputs):
                if not addressing_dtype(std, owner, od, inputs):
                    od = next(d for d in case_dtypes(owner, inputs) if width_key(owner, d) == width_key(owner, od))
                else:
                    owner = std.versions[std.versions.index(owner) - 1]
            assert ranks <= have[(op, key, owner.version, od)], (op, key, ver.version, dtype)
    # and nothing outside the tables
    for c in POSITIVE:
        ver = SPECS[c.op].standards[c.standard].version(c.version)
        assert c.dtype in _dtypes(c.op, ver) and ver.ranks(X[c.op]).allows(len(c.shapes[X[c.op]])), c.id


def test_every_attribute_set_per_row_and_dtype():
    names = collections.defaultdict(set)
    for c in POSITIVE:
        names[(c.op, c.standard, c.version, c.dtype)].add(c.tags[1])
    from specgen.generate.corpus import designs_row

    for op, spec, key, std, ver in _rows():
        for dtype in _dtypes(op, ver):
            if not designs_row(spec, std, ver, dtype):  # inside a run of equal rows (designed_at_ends, cumulative_versions)
                continue
            want = {a.name for a in attribute_sets(spec, key, ver.version, dtype)}
            assert want <= names[(op, key, ver.version, dtype)], (op, key, ver.version, dtype)


def test_attribute_sets_make_every_attribute_matter():
    for op, spec in SPECS.items():
        for key in spec.standards:
            sets = [s.values for s in attribute_sets(spec, key)]
            fixed = spec.standards[key].fixed()
            for a in spec.attribute_names:
                if a in fixed:  # the standard has no such attribute: every set uses its value
                    assert all(s[a] == fixed[a] for s in sets if a in s), (op, key, a)  # applies_when: absent
                    continue
                binding = spec.standards[key].attributes[a]
                if binding.values:  # a string attribute: every value the standard accepts, with every numeric set
                    numeric = {tuple(sorted(s.values.items())) for s in numeric_sets(spec, key)}
                    defaults = spec.standards[key].defaults()
                    for value in binding.values:
                        # without the attributes that do not exist with this value (applies_when: Cast's saturate
                        # with a target that is no float 8 type), and none of their other values
                        gone = set(spec.inapplicable({a: value}))
                        want = {tuple((k, v) for k, v in t if k not in gone) for t in numeric
                                if all(v == defaults[k] for k, v in t if k in gone)}
                        assert {tuple(sorted((k, v) for k, v in s.items() if k != a))
                                for s in sets if s[a] == value} == want, (op, key, a, value)
                    continue
                declared = next(d for d in spec.attributes if d.name == a)
                if declared.int_values:  # an integer attribute with a closed set of values: each of them
                    assert {s[a] for s in sets if a in s} == {float(v) for v in declared.int_values}, (op, key, a)
                    continue
                zero_allowed = declared.allows(0.0)  # Celu: alpha != 0
                assert any(s[a] < 0 for s in sets) and any(s[a] == 0 for s in sets) == zero_allowed, (op, key, a)
            if len(spec.numeric_attribute_names) == 2 and not fixed:
                a, b = spec.numeric_attribute_names
                assert any(s[a] > s[b] for s in sets) and any(s[a] < s[b] for s in sets)
    onednn = [s for s in attribute_sets(SPECS["hard_sigmoid"], "onednn")]
    assert not any(s.default for s in onednn)  # no defaults: every set is explicit
    assert {"alpha": np.float32(0.2), "beta": 0.5} in [s.values for s in onednn]


def test_attributes_given_follow_the_standard():
    for c in POSITIVE:
        std = SPECS[c.op].standards[c.standard]
        if "default" in c.tags and std.attribute_defaults == "applied":
            assert c.attributes_given == [], c.id
        elif c.attributes:  # every attribute but those the standard fixes (it has no such attribute)
            fixed = SPECS[c.op].standards[c.standard].fixed()
            expected = [a for a in c.attributes if a not in fixed]
            assert set(c.attributes_given) <= set(expected), c.id
            # the numeric defaults crossed with a value of a string attribute without a default (Cast's saturate = 1
            # with to = float8e4m3fn) are left out where the standard applies defaults, and named by no case id
            left_out = set(expected) - set(c.attributes_given)
            defaults = std.defaults(c.version)
            assert not left_out or (std.attribute_defaults == "applied" and SPECS[c.op].choice is not None
                                    and all(c.attributes[a] == defaults[a] and f"{a}=" not in c.id for a in left_out)), c.id


def _computed(c) -> dict:
    """The attribute values the case's standard computes with (WebNN casts options to the input's dtype)."""
    return SPECS[c.op].standards[c.standard].info.cast_attributes(c.attributes, c.dtype)


def _as_fraction(v):
    return Fraction(int(v)) if np.asarray(v).dtype.kind in "iu" else Fraction(float(v))


def _holds_values(region, dtype) -> bool:
    """Whether some finite value of ``dtype`` lies strictly inside the open region."""
    a, b = region
    d = dt.get(dtype)
    if not d.is_float:
        info = np.iinfo(d.numpy)
        lo = info.min if a is None else max(info.min, math.floor(a) + 1)
        hi = info.max if b is None else min(info.max, math.ceil(b) - 1)
        return lo <= hi
    if a is None and b is None:
        return True
    top = Fraction(d.max_finite)
    if a is None or b is None:  # unbounded on one side: some finite value beyond the other bound
        return (b > -top) if a is None else (a < top)
    if a >= top:
        return False
    if a < -top:  # below every finite value of the dtype (a float32 bound in a float16 row)
        return -top < b
    first = np.array([round_fraction(a, dtype)]).astype(d.numpy)
    if Fraction(float(first[0])) <= a:
        first = step(first, 1, dtype)
    return Fraction(float(first[0])) < b


def test_every_region_is_populated_and_the_middle_dominates():
    for c in POSITIVE:
        if "regions" not in c.tags:
            continue
        spec = SPECS[c.op]
        data = c.load()
        for var in [t.name for t in spec.inputs]:
            vd = c.dtypes[var]  # the input's own dtype (Where's condition: bool, both its values)
            if vd == "bool":
                continue
            # the other inputs are held at the first held value while an input's regions are designed
            held = {t.name: held_values(c.dtypes[t.name])[0] for t in spec.inputs if t.name != var}
            plain, numeric = spec.resolve(_computed(c), c.standard)  # a string attribute picks the formula
            design = analyse_formula(plain, {**numeric, **held}, var)
            idx = region_index(data[var].ravel(), design.bounds)
            for k, region in enumerate(regions(design.bounds, vd)):
                if _holds_values(region, vd):
                    assert (idx == 2 * k).sum() > 0, (c.id, var, k, region)
        if c.op == "hard_sigmoid" and c.attributes["alpha"] != 0 and dt.get(c.dtype).is_float:
            y = c.load()["y"].astype(np.float64)
            linear = ((y > 0) & (y < 1)).mean()
            assert linear >= 0.25, (c.id, linear)


def _breakpoint_designs(c):
    """(input, analysis) pairs a breakpoints case was designed from: one input's breakpoints with
    the other inputs held at each held value (one input: its breakpoints at the attributes)."""
    spec = SPECS[c.op]
    names = [t.name for t in spec.inputs]
    var = next((t.split("-", 1)[1] for t in c.tags if t.startswith("breakpoints-")), names[0])
    spec, computed = spec.resolve(_computed(c), c.standard)  # a string attribute picks the formula
    if len(names) == 1:
        return [(var, analyse_formula(spec, computed, var))]
    return [(var, analyse_formula(spec, {**computed, **{k: held_values(c.dtypes[k])[i] for k in names if k != var}}, var))
            for i in range(len(held_values(c.dtype)))]


def test_breakpoints_are_bracketed_one_ulp_either_side():
    for c in POSITIVE:
        if "breakpoints" not in c.tags:
            continue
        data = c.load()
        for var, design in _breakpoint_designs(c):
            if c.dtypes[var] == "bool":
                continue  # a truth value's design is both its values
            d = dt.get(c.dtypes[var])
            x = set(data[var].ravel().view(d.uint_view).tolist())
            for bp in design.breakpoints:
                if not d.is_float:
                    want = {math.floor(bp.value), math.ceil(bp.value)}
                    want = {v for v in want if np.iinfo(d.numpy).min <= v <= np.iinfo(d.numpy).max}
                    vals = {int(v) for v in data[var].ravel()}
                    assert want <= vals, (c.id, bp)
                    continue
                near = np.array([round_fraction(bp.value, c.dtypes[var])]).astype(d.numpy)
                if not np.isfinite(near.astype(np.float64))[0]:
                    continue
                for k in (-1, 0, 1):
                    assert int(step(near, k, c.dtypes[var]).view(d.uint_view)[0]) in x, (c.id, bp, k)


def test_special_values_in_every_float_row():
    seen = collections.defaultdict(set)
    for c in POSITIVE:
        if "breakpoints" not in c.tags or not dt.get(c.dtype).is_float:
            continue
        # the first input of the case's dtype (Where: x, not the bool condition)
        x = c.load()[next(t.name for t in SPECS[c.op].inputs if c.dtypes[t.name] == c.dtype)].astype(np.float64).ravel()
        key = (c.op, c.standard, c.version, c.dtype)
        if np.isnan(x).any():
            seen[key].add("nan")
        d = dt.get(c.dtype)
        if ((x == np.inf).any() and (x == -np.inf).any()) or not d.has_inf:  # float8 e4m3fn, fnuz: no inf
            seen[key].add("inf")
        if (any(v == 0 and np.signbit(v) for v in x) or not d.signed_zero) and any(v == 0 and not np.signbit(v) for v in x):
            seen[key].add("zeros")  # fnuz: no -0
        tiny = d.min_normal
        if ((np.abs(x) < tiny) & (x != 0)).any():
            seen[key].add("subnormal")
    from specgen.generate.corpus import designs_row

    for op, spec, key, std, ver in _rows():
        for dtype in _dtypes(op, ver):
            if dt.get(dtype).is_float and designs_row(spec, std, ver, dtype):  # (designed_at_ends: the run's ends)
                assert seen[(op, key, ver.version, dtype)] == {"nan", "inf", "zeros", "subnormal"}, (op, key, ver.version, dtype)


def test_positive_cases_are_legal_and_negative_cases_are_rejected_for_their_messages():
    for c in POSITIVE:
        tensors = {t: {"dtype": c.dtypes[t], "sizes": c.shapes[t], "strides": c.strides[t]} for t in c.shapes}
        attrs = {k: v for k, v in c.attributes.items() if k in c.attributes_given}
        assert VALIDATE[c.op](c.standard, c.version, tensors, attrs) == [], c.id
    for c in NEGATIVE:
        tensors = {t: {"dtype": c.dtypes[t], "sizes": c.shapes[t], "strides": c.strides[t]} for t in c.shapes}
        assert c.violations and VALIDATE[c.op](c.standard, c.version, tensors, c.attributes) == c.violations, c.id


def test_negative_cases_cover_every_rule_of_every_table_row():
    rules_seen = collections.defaultdict(set)
    for c in NEGATIVE:
        rules_seen[(c.op, c.standard, c.version)].add(c.tags[1])
    for op, spec, key, std, ver in _rows():
        want = {"unknown-attribute"} if std.info.unknown_attributes == "rejected" else set()
        # bool and float8 count only for an operator that lists them somewhere (corpus.negative_probes)
        if [d for d in std.info.dtype_names if d not in ver.dtypes(X[op]) and (d not in LATE_DTYPES or d in spec.all_dtypes())]:
            want.add("dtype")
        r = ver.ranks(X[op])
        if not r.unspecified and (r.max is not None or (r.min or 0) > 0):
            want.add("rank")
        same = {p for cst in std.constraints for p in cst.same}
        want |= same
        if any(b.required for b in std.attributes.values()):
            want.add("required-attribute")
        if any(e for v in std.versions for e in v.extra_attributes) and not ver.extra_attributes:
            want.add("version-attribute")
        if not rules.layout(SPECS[op].standards[key].info)["zero_sizes"]:
            want.add("zero-size")
        want.add("strides")
        assert want <= rules_seen[(op, key, ver.version)], (op, key, ver.version, want - rules_seen[(op, key, ver.version)])
    ids = {c.id for c in NEGATIVE}
    assert "hard_sigmoid/directml-3_0/float32/rank9/reject-rank-9" in ids
    assert "hard_sigmoid/onnx-6/float64/rank4/reject-attribute-consumed_inputs" in ids
    assert "hard_sigmoid/onednn-current/float32/rank4/reject-missing-alpha" in ids


def test_in_place_strided_large_and_awkward_sizes():
    from specgen.generate.corpus import addresses_row

    in_place = {(c.op, c.standard, c.version, c.dtype) for c in POSITIVE if c.in_place}
    strided_rows = {(c.op, c.standard, c.version, c.dtype) for c in POSITIVE if "strided" in c.tags}
    for op, spec, key, std, ver in _rows():
        for dtype in _dtypes(op, ver):
            row = (op, key, ver.version, dtype)
            here = addresses_row(spec, std, ver, dtype, [t.name for t in spec.inputs])
            assert (row in in_place) == (bool(std.in_place) and here), row
            assert (row in strided_rows) == (rules.layout(std.info)["strides"] and here), row
    strided = [c for c in POSITIVE if c.strides[X[c.op]] is not None]
    assert strided and all(rules.layout(SPECS[c.op].standards[c.standard].info)["strides"] for c in strided)
    for op in SPECS:
        assert any(np.prod(c.shapes[X[c.op]]) > 65536 for c in POSITIVE if c.op == op), op
    dims = {d for c in POSITIVE for d in c.shapes[X[c.op]]}
    assert {7, 13, 1031} <= dims


def test_tolerances_come_from_the_spec():
    for c in POSITIVE:
        t = SPECS[c.op].tolerance[c.dtype]
        assert c.tolerance == {"metric": t.metric, "value": t.value, "intermediate": t.intermediate}, c.id


def _bytes(path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and "exhaustive" not in p.parts)


def test_the_committed_corpus_stays_small():
    # the project's budget per operator: about 1.25 MB of committed generated/ (vectors, its share of the
    # manifest, reference and validation code); 42 operators measured 36.5 MB (0.87 MB each) when the
    # unary math family (issue 23) took the tree past issue 10's fixed 25 MB for 20 operators. Each
    # operator's vectors about 1 MB (0.3-0.9 MB for one input; Sign's ten dtypes 1.3 MB; PRelu's two inputs 1.8 MB)
    from specgen.spec.operators import load_operators

    every = load_operators()  # the accumulating operators included (their code is the index engine: no modules)
    assert _bytes(ROOT / "generated") < 1.25 * 10 ** 6 * len(every)
    for op in every:
        assert _bytes(ROOT / "generated" / "vectors" / op) < 2 * 2 ** 20, op


def test_every_test_attribute_set_of_a_spec_has_cases_in_every_standard():
    """specs' test_attributes (PyTorch's hardsigmoid and softshrink parameters) reach the corpus."""
    for op, spec in SPECS.items():
        for t in spec.test_attributes:
            want = {k: float(np.float32(v)) for k, v in t.values.items()}
            for key in spec.standards:
                fixed = spec.standards[key].fixed()
                if any(fixed[k] != want[k] for k in fixed):
                    continue  # a standard that fixes an attribute to another value cannot take the set
                std = spec.standards[key]
                if std.crossed_rejected and crossed(spec, want):
                    continue  # a crossed pair the standard rejects (WebNN clamp): a must-reject case instead
                if any(np.isinf(want[k]) and std.attributes[k].nonfinite_rejected(std.info) for k in want if k in std.attributes):
                    continue  # an infinity the standard rejects
                hits = [c for c in POSITIVE if c.op == op and c.standard == key and c.attributes == want]
                assert hits, (op, t.name, key)


GAMMA_SPEC = """\
name: Scale
id: scale
summary: gamma times x (a test operator whose attribute has the unknown-attribute probe's first name).
inputs:
  - {name: x, description: The input tensor.}
outputs:
  - {name: y, description: The output tensor.}
attributes:
  - {name: gamma, type: float32, description: The scale.}
formula: gamma * x
special_values:
  nan: {default: formula, reason: NaN propagates.}
  pos_inf: {default: formula, reason: The literal formula.}
  neg_inf: {default: formula, reason: The literal formula.}
  signed_zero: {default: any, reason: Not checked.}
  subnormal: {default: flush_allowed, reason: Flushing is allowed.}
tolerance:
  float32: {metric: model, intermediate: float32, reason: One rounded product.}
standards:
  onnx:
    operator: Scale
    domain: ai.onnx
    in_place: unspecified
    tensors:
      x: {name: X, type_param: T}
      y: {name: Y, type_param: T}
    attributes:
      gamma: {name: gamma, default: 1.5}
    constraints:
      - tensors: [x, y]
        same: [data_type, dimension_count, sizes]
    versions:
      - version: "1"
        ranks: {min: 1, max: 2}
        dtypes: [float32]
"""


def test_an_attribute_named_like_the_unknown_attribute_probe_gets_another_probe_name(tmp_path):
    """The unknown-attribute probe used to be hard-coded as 'gamma' (SCALED_ELU and Selu have one)."""
    import shutil

    from specgen.generate.tree import build

    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(ROOT / "specs" / "_standards.yaml", specs / "_standards.yaml")
    (specs / "scale.yaml").write_text(GAMMA_SPEC)
    build(tmp_path / "out", specs)
    ids = [c.id for c in load_corpus(tmp_path / "out" / "vectors").cases]
    assert "scale/onnx-1/float32/rank1/reject-attribute-delta" in ids
    assert not any("reject-attribute-gamma" in i for i in ids)


def test_attribute_sets_leave_out_excluded_values():
    """An attribute's `exclude` values (Celu's alpha = 0 divides by zero) are in no attribute set, while
    the generic sets that would have used them are still there with the other values."""
    import dataclasses

    spec = load_all()["hard_sigmoid"]
    plain = attribute_sets(spec, "directml")
    assert any(s.values["alpha"] == 0.0 for s in plain)
    alpha = dataclasses.replace(spec.attributes[0], excluded=(0.0,), excluded_reason="test")
    excluded = dataclasses.replace(spec, attributes=(alpha,) + spec.attributes[1:])
    sets = attribute_sets(excluded, "directml")
    assert sets and all(s.values["alpha"] != 0.0 for s in sets)
    assert len(sets) == len(plain) - sum(s.values["alpha"] == 0.0 for s in plain)


def test_a_version_with_its_own_defaults_gets_them_in_its_default_cases():
    """ONNX Selu-1's defaults are 1.6732 and 1.0507, Selu-6's the SELU constants: each opset's
    'default' cases (attributes omitted, so the backend applies its own) expect that opset's values."""
    by_version = {}
    for c in POSITIVE:
        if c.op == "selu" and c.standard == "onnx" and "default" in c.tags:
            assert c.attributes_given == [], c.id
            by_version.setdefault(c.version, set()).add(tuple(sorted(c.attributes.items())))
    f32 = lambda v: float(np.float32(v))  # noqa: E731
    assert by_version["1"] == {(("alpha", f32(1.6732)), ("gamma", f32(1.0507)))}
    for v in ("6", "22"):
        assert by_version[v] == {(("alpha", f32(1.67326319217681884765625)), ("gamma", f32(1.05070102214813232421875)))}
    assert SPECS["selu"].standards["onnx"].defaults("1") != SPECS["selu"].standards["onnx"].defaults("6")


def test_a_version_that_repeats_its_predecessors_table_has_no_rank_sweep_of_its_own():
    """ONNX Identity 14..25 list the numeric types of 13 (they differ only in types specgen cannot
    describe): their designed cases stay, the rank sweep is 13's; every other row keeps its sweep."""
    from specgen.generate.corpus import designs_row, sweeps_row

    sweeps = {(c.op, c.standard, c.version, c.dtype) for c in POSITIVE if "rank-sweep" in c.tags}
    designed = {(c.op, c.standard, c.version, c.dtype) for c in POSITIVE if "breakpoints" in c.tags}
    for op, spec, key, std, ver in _rows():
        for dtype in _dtypes(op, ver):
            row = (op, key, ver.version, dtype)
            assert (row in designed) == designs_row(spec, std, ver, dtype), row
            assert (row in sweeps) == sweeps_row(spec, std, ver, dtype, [t.name for t in spec.inputs]), row
    assert ("identity", "onnx", "13", "float32") in sweeps and ("identity", "onnx", "14", "float32") not in sweeps
    assert ("identity", "onnx", "13", "bfloat16") in sweeps  # new at 13: its own sweep


def test_a_cumulative_standard_designs_a_dtype_where_it_appears_and_addresses_once_per_width():
    """DirectML's feature levels are cumulative and its addressing depends on element widths
    (specs/_standards.yaml cumulative_versions, addressing_per_width). ADD: 1_0 FLOAT32/FLOAT16 (4-5
    dims), 2_1 adds INT32/UINT32, 3_0 1-8 dims, 4_1 the 64-bit integers, 5_1 the 8- and 16-bit ones."""
    add = [c for c in POSITIVE if c.op == "add" and c.standard == "directml"]

    def rows(pred):
        return {(c.version, c.dtype) for c in add if pred(c)}

    latest = {("5_1", d) for d in SPECS["add"].standards["directml"].version("5_1").dtypes("a")}
    # designed where a dtype first appears and at the latest level, not at 3_0 (ranks only) nor 2_1 for float32
    assert rows(lambda c: "breakpoints" in c.tags) == {("1_0", "float32"), ("1_0", "float16"), ("2_1", "int32"),
                                                       ("2_1", "uint32"), ("4_1", "int64"), ("4_1", "uint64")} | latest
    # one dtype per element width sweeps the ranks, where they change or the width is new
    assert rows(lambda c: "rank-sweep" in c.tags) == {("1_0", "float32"), ("1_0", "float16"), ("3_0", "float32"),
                                                      ("3_0", "float16"), ("4_1", "int64"), ("5_1", "int8")}
    # addressing (in-place, strided, layouts) where the designed cases are, one dtype per width
    addressed = {("1_0", "float32"), ("1_0", "float16"), ("4_1", "int64"), ("5_1", "float32"), ("5_1", "float16"),
                 ("5_1", "int64"), ("5_1", "int8")}
    assert rows(lambda c: c.in_place) == rows(lambda c: "strided" in c.tags) == addressed
    # 3_0's largest rank (8) is new: its own layout-max-rank case
    assert rows(lambda c: "/layout-max-rank" in c.id) == addressed | {("3_0", "float32"), ("3_0", "float16")}
    # must-reject cases at every level
    levels = {c.version for c in CASES if c.op == "add" and c.standard == "directml" and c.kind == "negative"}
    assert levels == {v.version for v in SPECS["add"].standards["directml"].versions}


def test_case_dtypes_that_give_every_tensor_the_same_dtype_are_one_row():
    """DirectML IF at 2_0 lists uint8 for the condition and float16 alone for the values: a "uint8" row
    would be the float16 row again (uint8 condition, float16 values) under another label."""
    ver = SPECS["where"].standards["directml"].version("2_0")
    assert case_dtypes(ver, ["condition", "x", "y"]) == ["float16"]
    ver = SPECS["where"].standards["directml"].version("3_0")
    assert "uint8" in case_dtypes(ver, ["condition", "x", "y"]) and "float16" in case_dtypes(ver, ["condition", "x", "y"])
