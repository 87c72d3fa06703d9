"""Readings (issue 19 item 1): an element passes if any enabled reading of the standard accepts it,
and the report says which reading matched. Each behaviour is a fake adapter computing one reading
in the tensor's type (tests/fake_adapters/readings.py), run over the committed corpus."""
from __future__ import annotations

import fnmatch
import re
from dataclasses import replace

import numpy as np
import pytest

from specgen.adapters.registry import load_object
from specgen.errors import SpecError
from specgen.numerics.readings import compare_readings
from specgen.runner.cases import load_cases
from specgen.runner.core import Runner
from specgen.spec.loader import load_all

SPECS = load_all()


@pytest.fixture(scope="module")
def corpus():
    return load_cases()


def run(cls: str, cases, glob: str, readings=()):
    chosen = [c for c in cases if fnmatch.fnmatch(c.id, glob) and c.kind == "positive"]
    assert chosen, glob
    loaded = load_object(cls, f"fake_adapters.readings:{cls}", specs=SPECS)
    return Runner(loaded, SPECS, probe=False, readings=readings).run(chosen).results


def verdicts(results) -> set:
    return {r.verdict for r in results}


def test_webnn_prelu_expression_passes(corpus):
    (r,) = run("WebnnPrelu", corpus, "prelu/webnn-2026-06-26/float16/rank5/sweep")
    assert r.verdict == "pass", r.reason


def test_shrink9_function_body_on_integers_passes_as_the_named_reading(corpus):
    results = run("ShrinkFunctionBody", corpus, "shrink/onnx-9/*int[0-9]*/*")
    assert verdicts(results) == {"pass"}, [r.reason for r in results if r.verdict != "pass"][:3]
    matched = [r for r in results if r.detail.get("readings_only", {}).get("onnx-function-body")]
    assert matched, "no case reports the function body as the reading it matched"
    assert matched[0].detail["readings"]["onnx-function-body"] >= 1
    # the behaviour profile says which reading the backend follows
    assert matched[0].profile["reading"]["onnx onnx-function-body"] == matched[0].detail["readings_only"]["onnx-function-body"]


@pytest.mark.parametrize("cls, glob", [("LeakyReluFunctionBody", "leaky_relu/onnx-16/float16/*"),
                                       ("CeluFunctionBody", "celu/onnx-28/float16/*")])
def test_function_bodies_with_attributes_cast_to_the_tensor_type_pass(corpus, cls, glob):
    results = run(cls, corpus, glob)
    # what the body gives in float16 may overflow or be NaN (an alpha beyond float16's range casts to
    # inf, 1e-45 casts to 0, x / 0.35 overflows above 22,925): catastrophic results, which no reading
    # excuses by default (a literal reading is opt-in); every other element passes as the cast reading
    failed = [r for r in results if r.verdict != "pass"]
    assert len(failed) < len(results) / 4
    def catastrophic(r):
        return r.detail["worst"]["actual"]["decimal"].lstrip("+-") in ("inf", "nan")

    assert all(catastrophic(r) for r in failed), [(r.case_id, r.detail["worst"]) for r in failed if not catastrophic(r)][:3]


def test_literal_reading_passes_only_when_enabled(corpus):
    results = run("SoftplusLiteral", corpus, "softplus/onnx-22/float32/*", readings=("onnx-function-body-literal",))
    assert verdicts(results) == {"pass"}
    assert results[0].rerun.endswith(" --reading onnx-function-body-literal")  # the re-run judges it the same way


def test_literal_softplus_overflow_fails_by_default_naming_the_reading(corpus):
    results = run("SoftplusLiteral", corpus, "softplus/onnx-22/float32/*")
    failed = [r for r in results if r.verdict == "fail"]
    assert failed and all("opt-in reading 'onnx-function-body-literal'" in r.reason for r in failed)


def _shrink_body_opt_in():
    """Shrink with its function body declared opt-in (literal): the opt-in mechanism on a real spec."""
    spec = SPECS["shrink"]
    std = spec.standards["onnx"]
    reading = replace(std.reading("onnx-function-body"), name="opt-in-body", literal=True)
    return replace(spec, standards={**spec.standards, "onnx": replace(std, readings=(reading,))})


def test_opt_in_reading_is_reported_by_default_and_accepted_when_enabled():
    spec = _shrink_body_opt_in()
    x = np.array([8, 0, -8], dtype=np.int8)
    expected = np.array([4, 0, -4], dtype=np.int8)  # the text: 8 - 3.5 = 4.5, truncated
    actual = np.array([5, 0, -5], dtype=np.int8)  # the body: 8 - CastLike(3.5) = 8 - 3
    attrs = {"bias": 3.5, "threshold": 1.0}
    off = compare_readings(spec, "onnx", "int8", {"x": x}, attrs, expected, actual)
    assert not off.ok and off.mismatches == 2
    assert "2 failing element(s) match only the opt-in reading 'opt-in-body'" in off.summary()
    on = compare_readings(spec, "onnx", "int8", {"x": x}, attrs, expected, actual, enabled=("opt-in-body",))
    assert on.ok and on.to_json()["readings_only"] == {"opt-in-body": 2}


def test_a_reading_applies_only_to_its_versions():
    """LeakyRelu-1 and -6 have no function body: alpha cast to float16 is LeakyRelu-16's reading only."""
    x = np.array([-np.inf, -2.0], dtype=np.float16)
    alpha = {"alpha": 1e-45}  # 0 in float16: the body computes 0 * -inf = NaN, the text 1e-45 * -inf = -inf
    expected = np.array([-np.inf, -0.0], dtype=np.float16)
    body = np.array([np.nan, -0.0], dtype=np.float16)
    spec = SPECS["leaky_relu"]
    assert compare_readings(spec, "onnx", "float16", {"x": x}, alpha, expected, body, version="16").ok
    assert not compare_readings(spec, "onnx", "float16", {"x": x}, alpha, expected, body, version="6").ok


def test_any_of_keeps_failures_no_reading_explains():
    x = np.array([1.0, -2.0, -4.0], dtype=np.float32)
    slope = np.full(3, 0.5, dtype=np.float32)
    expected = np.array([1.0, -1.0, -2.0], dtype=np.float32)
    actual = np.array([1.0, -1.0, 7.0], dtype=np.float32)
    c = compare_readings(SPECS["prelu"], "webnn", "float32", {"x": x, "slope": slope}, {}, expected, actual)
    assert not c.ok and c.mismatches == 1 and c.worst.index == (2,)


def _load_with_reading(tmp_path, reading_yaml: str):
    import shutil

    from specgen.resources import specs_dir

    (tmp_path / "specs").mkdir()
    for name in ("_standards.yaml", "relu.yaml"):  # the spec with the reading and what it needs, not all 65
        shutil.copy(specs_dir() / name, tmp_path / "specs" / name)
    path = tmp_path / "specs" / "relu.yaml"
    text = path.read_text()
    head, sep, tail = text.partition("  onnx:\n")
    path.write_text(head + sep + "    readings:\n" + reading_yaml + tail)
    return load_all(tmp_path / "specs")


@pytest.mark.parametrize("field, value, message", [
    ("versions", '["17"]', "readings[0].versions[0]: '17' is not a version of this standard"),
    ("literal", "yes-please", "readings[0].literal: must be true or false"),
    ("name", "text", "readings[0].name: 'text' is the text's own reading"),
])
def test_a_bad_reading_names_file_line_and_field(tmp_path, field, value, message):
    entry = {"name": "cast", "source": "{url: 'https://x.org', quote: q}", "reason": "r", "attribute_cast": "true"}
    entry[field] = value
    yaml = "".join(("      - " if i == 0 else "        ") + f"{k}: {v}\n" for i, (k, v) in enumerate(entry.items()))
    with pytest.raises(SpecError) as err:
        _load_with_reading(tmp_path, yaml)
    assert re.search(r"relu\.yaml:\d+:\d+: standards\.onnx\." + re.escape(message), str(err.value)), str(err.value)


def test_cli_reading_option_enables_by_name_and_rejects_unknown_names():
    from click.testing import CliRunner

    from specgen.cli import main

    args = ["run", "--adapter", "fake_adapters.readings:SoftplusLiteral", "--case", "softplus/onnx-22/float32/rank4/*",
            "--no-probe", "-q"]
    ok = CliRunner().invoke(main, [*args, "--reading", "onnx-function-body-literal"])
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(main, [*args, "--reading", "onnx-function-bodee"])
    assert bad.exit_code == 2 and "no standard of the specs declares reading(s) onnx-function-bodee" in bad.output
