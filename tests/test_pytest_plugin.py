"""The pytest front end: `pytest --specgen-adapter NAME` collects corpus cases as items named by
case id; -k, --junitxml and xdist come from pytest. Inert without the option."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from fake_adapters.cases import standard_set, write_corpus

pytest_plugins = ["pytester"]

TESTS = str(Path(__file__).resolve().parent)




@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    write_corpus(d, standard_set())
    return str(d)


def test_inert_without_the_option(pytester):
    pytester.makepyfile("def test_one():\n    pass\n")
    res = pytester.runpytest("-p", "no:cacheprovider")
    res.assert_outcomes(passed=1)
    assert "specgen::" not in "\n".join(res.outlines)


def test_cases_become_items_named_by_case_id(pytester, corpus):
    res = pytester.runpytest("-p", "no:cacheprovider", "--specgen-adapter", "fake_adapters:WrongRank5",
                             "--specgen-corpus", corpus, "--collect-only", "-q")
    text = "\n".join(res.outlines)
    assert "hard_sigmoid/directml-3_0/float32/rank5/rank5" in text
    assert "11 tests collected" in text


def test_the_projects_own_tests_are_not_collected_unless_named(pytester, corpus):
    # run from a project's root, `pytest --specgen-adapter` used to collect and run the project's
    # tests too (issue 24 item 8: 29.7 s against 6.8 s from specgen's own checkout)
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_project.py").write_text("def test_project():\n    pass\n")
    args = ("-p", "no:cacheprovider", "--specgen-adapter", "fake_adapters:WrongRank5", "--specgen-corpus", corpus,
            "--collect-only", "-q")
    text = "\n".join(pytester.runpytest(*args).outlines)
    assert "11 tests collected" in text and "test_project" not in text
    text = "\n".join(pytester.runpytest(*args, "tests").outlines)
    assert "12 tests collected" in text and "test_project" in text


def test_verdicts_map_to_outcomes_and_k_and_junit_work(pytester, corpus, tmp_path):
    xml = tmp_path / "j.xml"
    res = pytester.runpytest("-p", "no:cacheprovider", "--specgen-adapter", "fake_adapters:WrongRank5",
                             "--specgen-corpus", corpus, "-k", "rank5 or defaults or neg", f"--junitxml={xml}")
    res.assert_outcomes(passed=4, failed=1)
    text = "\n".join(res.outlines)
    assert "re-run: specgen run --adapter fake_adapters:WrongRank5 --case hard_sigmoid/directml-3_0/float32/rank5/rank5" in text
    assert 'name="hard_sigmoid/directml-3_0/float32/rank5/rank5"' in xml.read_text()


def test_unsupported_is_skipped_and_baseline_is_xfail(pytester, corpus, tmp_path):
    b = tmp_path / "b.yaml"
    b.write_text("known_failures:\n  - case: '*/rank5'\n    reason: 5-D broken\n")
    res = pytester.runpytest("-p", "no:cacheprovider", "--specgen-adapter", "fake_adapters:Float32Only",
                             "--specgen-corpus", corpus, "--specgen-op", "hard_sigmoid", "-rs")
    res.assert_outcomes(passed=8, skipped=1)
    assert "unsupported: dtype float16 is not claimed" in "\n".join(res.outlines)
    res = pytester.runpytest("-p", "no:cacheprovider", "--specgen-adapter", "fake_adapters:WrongRank5",
                             "--specgen-corpus", corpus, "--specgen-baseline", str(b), "--specgen-case", "*rank5*")
    res.assert_outcomes(xfailed=1)


def test_bad_adapter_is_a_usage_error(pytester, corpus):
    res = pytester.runpytest("-p", "no:cacheprovider", "--specgen-adapter", "nope", "--specgen-corpus", corpus)
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert "no adapter of that name is installed" in "\n".join(res.errlines)


@pytest.mark.parametrize("option, message", [
    (["--specgen-dtype", "float17"], "specgen: unknown dtype(s) float17 (did you mean float16?); known: float64, float32"),
    (["--specgen-dtype", "float17,float32"], "specgen: unknown dtype(s) float17 (did you mean float16?); known: "),
    (["--specgen-version", "99"], "specgen: --version 99 matches no version of any op; known: "),
    (["--specgen-op", "nosuchop"], "specgen: unknown op(s) nosuchop; known: "),
])
def test_filter_typos_are_usage_errors(pytester, corpus, option, message):
    res = pytester.runpytest("-p", "no:cacheprovider", "--specgen-adapter", "fake_adapters:Correct",
                             "--specgen-corpus", corpus, *option)
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert message in "\n".join(res.errlines)


def _has_compare() -> bool:
    try:
        import specgen.numerics.compare  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not _has_compare(),
                    reason="the error model (specgen.numerics) is not in this checkout yet")
def test_xdist_distributes_the_cases(pytester, corpus, monkeypatch):
    pytest.importorskip("xdist")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([TESTS, os.environ.get("PYTHONPATH", "")]))
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--specgen-adapter", "fake_adapters:Correct",
                                        "--specgen-corpus", corpus, "-n", "2")
    res.assert_outcomes(passed=11)
