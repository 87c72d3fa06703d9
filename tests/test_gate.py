"""Issue 13, "a CI gate that cannot be silently wrong": each friction a first adapter author hit,
reproduced, and what specgen does now."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from fake_adapters.cases import case, standard_set, write_corpus
from specgen.cli import main
from specgen.runner.cases import Filters, load_cases, select

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    write_corpus(d, standard_set())
    return str(d)


@pytest.fixture(scope="module")
def real_ids():
    return [c.id for c in load_cases()]


def run(*args):
    res = CliRunner().invoke(main, ["run", *args])
    return res.exit_code, res.output, res.stderr


# -- case patterns: brackets in ids are literal ------------------------------------------------


def test_a_bracketed_pattern_selects_exactly_the_cases_it_names(real_ids):
    pattern = "shrink/onnx-9/int32/*[bias=0.5,threshold=1]"
    want = [i for i in real_ids if i.startswith("shrink/onnx-9/int32/") and i.endswith("[bias=0.5,threshold=1]")]
    assert want  # the corpus has such cases
    got = [c.id for c in select(load_cases(), Filters(cases=(pattern,)))]
    assert got == want
    from specgen.runner.baseline import Baseline

    b = Baseline.parse(f'known_failures:\n  - case: "{pattern}"\n    reason: r\n')
    assert [i for i in real_ids if b.find(i)] == want
    import fnmatch  # what went wrong before: [...] was a character class

    assert [i for i in real_ids if fnmatch.fnmatchcase(i, pattern)] != want


def test_every_real_id_is_a_pattern_that_matches_only_itself(real_ids):
    from specgen.patterns import matches

    bracketed = [i for i in real_ids if "[" in i][:200]
    for i in bracketed:
        assert [j for j in real_ids if matches(j, i)] == [i]


def test_cases_command_lists_the_same_selection_as_run():
    res = CliRunner().invoke(main, ["cases", "--case", "shrink/onnx-9/int32/*[bias=0.5,threshold=1]"])
    assert res.exit_code == 0
    assert res.output.split() == ["shrink/onnx-9/int32/rank4/breakpoints[bias=0.5,threshold=1]",
                                  "shrink/onnx-9/int32/rank4/regions[bias=0.5,threshold=1]"]
    res = CliRunner().invoke(main, ["cases", "--op", "shrink", "--dtype", "int32", "--count"])
    assert res.exit_code == 0 and int(res.output) > 2
    res = CliRunner().invoke(main, ["cases", "--case", "nothing/*"])
    assert res.exit_code == 4


# -- --write-baseline merges ---------------------------------------------------------------------


def test_write_baseline_merges_into_the_file_the_run_read(corpus, tmp_path):
    b = tmp_path / "b.yaml"
    passing = "hard_sigmoid/onnx-22/float32/rank3/defaults"
    b.write_text('adapter: "fake_adapters:WrongRank5"\nknown_failures:\n'
                 '  - case: "*/rank5"\n    reason: "5-D indexing bug (BUG-1)"\n'
                 '  - case: "shrink/*"\n    reason: "outside this run (BUG-2)"\n'
                 f'  - case: "{passing}"\n    reason: "fixed since (BUG-3)"\n')
    code, out, err = run("--adapter", "fake_adapters:WrongRank5", "--corpus", corpus, "--op", "hard_sigmoid",
                         "--baseline", str(b), "--write-baseline", str(b))
    assert code == 0, out
    assert f"wrote {b}: 2 entries (2 kept, 0 added with a TODO reason for 0 case(s), 1 removed because they explain no failure of this run any more)" in err
    assert f"removed: {passing} (fixed since (BUG-3))" in err
    text = b.read_text()
    assert '"*/rank5"' in text and "BUG-1" in text  # the glob and its reason, not one entry per case
    assert '"shrink/*"' in text and "BUG-2" in text  # outside the filter: kept
    assert passing not in text
    assert 'adapter: "fake_adapters:WrongRank5"' in text


def test_write_baseline_refuses_another_adapters_file(corpus, tmp_path):
    b = tmp_path / "b.yaml"
    before = 'adapter: "onnxruntime"\nknown_failures:\n  - case: "*/rank5"\n    reason: "r"\n'
    b.write_text(before)
    code, out, err = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--write-baseline", str(b))
    assert code == 2 and "is the baseline of adapter 'onnxruntime'" in err
    assert b.read_text() == before


def test_write_baseline_adds_new_failures_with_todo_and_keeps_todo_entries(corpus, tmp_path):
    b = tmp_path / "new.yaml"
    code, _, err = run("--adapter", "fake_adapters:WrongRank5", "--corpus", corpus, "--write-baseline", str(b))
    assert code == 1 and "1 added with a TODO reason" in err
    code, _, err = run("--adapter", "fake_adapters:WrongRank5", "--corpus", corpus, "--write-baseline", str(b))
    assert "1 kept, 0 added" in err  # its own TODO entry is read back, not refused


def test_baseline_check_and_prune(corpus, tmp_path):
    b = tmp_path / "b.yaml"
    b.write_text('known_failures:\n  - case: "*/rank5"\n    reason: "r"\n  - case: "gone/*"\n    reason: "old"\n')
    res = CliRunner().invoke(main, ["baseline", "check", str(b), "--corpus", corpus])
    assert res.exit_code == 1 and "'gone/*' matches no case" in res.output
    res = CliRunner().invoke(main, ["baseline", "prune", str(b), "--corpus", corpus])
    assert res.exit_code == 0 and "removed: gone/* (old)" in res.output
    res = CliRunner().invoke(main, ["baseline", "check", str(b), "--corpus", corpus])
    assert res.exit_code == 0


# -- claims are validated; a run that tests nothing is not green ----------------------------------


@pytest.mark.parametrize("fake, message", [
    ("ClaimsMisspeltOp", "claim names op 'softsgn' (did you mean softsign?), which has no spec (known: "),
    ("ClaimsUnknownVersion", "names version(s) 23, which match no version (known: 1, 22)"),
])
def test_a_claim_naming_what_does_not_exist_is_a_load_error(corpus, fake, message):
    code, out, err = run("--adapter", f"fake_adapters:{fake}", "--corpus", corpus)
    assert code == 3, out
    assert message in err


def test_a_dtype_no_claimed_version_lists_is_a_warning_and_a_generic_claim_loads():
    from specgen.adapters.registry import verify_claims
    from specgen.adapters.torch_adapter import TorchAdapter

    res = CliRunner().invoke(main, ["adapters", "fake_adapters:ClaimsUnlistedDtype"])
    assert res.exit_code == 0 and "names dtype 'bfloat16', which none of those versions lists" in res.output
    adapter = object.__new__(TorchAdapter)  # torch itself need not be installed
    claims = adapter.claims()
    good, problems, _ = verify_claims("torch", claims)
    assert problems == [] and len(good) == len(adapter.mapping.entries) >= 4


def test_a_run_in_which_nothing_is_claimed_exits_4(corpus):
    code, out, err = run("--adapter", "fake_adapters:SoftsignOnly", "--corpus", corpus, "--op", "hard_sigmoid")
    assert code == 4, out
    assert "claims none of the" in err and "nothing was tested" in err


# -- rejection is explicit -----------------------------------------------------------------------


def test_rejects_defaults_to_false_and_is_shown(corpus):
    code, out, _ = run("--adapter", "fake_adapters:DefaultClaim", "--corpus", corpus, "--kind", "negative")
    assert code == 4, out  # both must-reject cases unsupported: the claim did not say rejects=True
    assert "must-reject case: the claim does not say rejects=True" in json.dumps(out) or "0 fail" in out
    res = CliRunner().invoke(main, ["adapters", "fake_adapters:DefaultClaim"])
    assert "rejects=False: must-reject cases not run" in res.output


def test_any_exception_is_not_a_rejection(corpus, tmp_path):
    code, out, _ = run("--adapter", "fake_adapters:WritesIntoOut", "--corpus", corpus, "--case", "*neg-shape-mismatch",
                       "--json", str(tmp_path / "r.json"))
    assert code == 1
    r = json.loads((tmp_path / "r.json").read_text())["cases"][0]
    assert (r["verdict"], r["cause"]) == ("error", "crashed")
    assert "not counted as a rejection" in r["reason"] and "could not broadcast" in r["exception"]
    code, out, _ = run("--adapter", "fake_adapters:DeclaresRejection", "--corpus", corpus, "--case", "*neg-shape-mismatch")
    assert code == 0 and "1 pass" in out


def test_returning_none_without_writing_out_is_an_error_no_output(corpus):
    code, out, _ = run("--adapter", "fake_adapters:ReturnsNothing", "--corpus", corpus, "--case", "*/defaults")
    assert code == 1
    assert "ERROR hard_sigmoid/onnx-22/float32/rank3/defaults" in out
    assert "no output: run() returned None and did not write call.out['y']" in out


# -- exit codes CI can trust, one line each, no traceback ----------------------------------------


def test_ctrl_c_exits_130_and_reports_what_finished(corpus, tmp_path):
    from fake_adapters import InterruptedAtThird

    InterruptedAtThird.count = 0
    code, out, err = run("--adapter", "fake_adapters:InterruptedAtThird", "--corpus", corpus,
                         "--json", str(tmp_path / "r.json"))
    assert code == 130, out
    import re

    done = int(re.search(r"interrupted after (\d+) of 11 cases", err).group(1))
    data = json.loads((tmp_path / "r.json").read_text())
    assert 0 < done < 11 and len(data["cases"]) == done and data["exit_code"] == 130 and data["interrupted"] is True


def _default_sigint():
    """A test started in the background of a non-interactive shell inherits SIGINT ignored, and Python
    then installs no KeyboardInterrupt handler: the child gets Ctrl-C's default handling back."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)


def test_ctrl_c_on_an_isolated_run_is_130_without_a_worker_traceback(corpus):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.Popen([sys.executable, "-m", "specgen", "run", "--adapter", "fake_adapters:Slow", "--corpus", corpus,
                          "--isolate", "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True, preexec_fn=_default_sigint)
    first = p.stderr.readline()  # "progress: 0/11 ...": the run has started
    assert first.startswith("progress: 0/11"), first
    time.sleep(2)  # the worker starts (its SIGINT ignored from the start) and a case or two run
    os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group, the worker too
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert "interrupted after" in err and "specgen run: adapter" in out


@pytest.mark.parametrize("content, message", [
    (b"known_failures:\n  - case: \"x\"\n    reason: \"caf\xe9\"\n", ":3: the baseline file is not UTF-8 text (byte 0xe9"),
    (b"known_failures:\n  - case: [unclosed\n", ":3:1: <document>: YAML syntax error: "),
])
def test_an_unreadable_baseline_is_one_line_exit_2(corpus, tmp_path, content, message):
    b = tmp_path / "b.yaml"
    b.write_bytes(content)
    code, out, err = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--baseline", str(b))
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in out


def test_a_utf8_baseline_with_a_bom_loads(corpus, tmp_path):
    b = tmp_path / "b.yaml"
    b.write_bytes("\ufeffknown_failures: []\n".encode("utf-8"))
    code, _, _ = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--baseline", str(b))
    assert code == 0


@pytest.mark.parametrize("damage", ["truncate", "delete", "flip"])
def test_a_damaged_corpus_is_exit_2_naming_the_file(tmp_path, damage):
    write_corpus(tmp_path, standard_set())
    data = tmp_path / "hard_sigmoid" / "onnx-22.bin"
    if damage == "truncate":
        data.write_bytes(data.read_bytes()[:100])
    elif damage == "delete":
        data.unlink()
    else:
        raw = bytearray(data.read_bytes())
        raw[10] ^= 0xFF
        data.write_bytes(bytes(raw))
    code, out, err = run("--adapter", "fake_adapters:Correct", "--corpus", str(tmp_path))
    assert code == 2, out
    assert str(data) in err and ("sha256 mismatch" in err or damage != "flip")
    assert "Traceback" not in out and len(err.strip().splitlines()) == 1


def test_a_broken_spec_is_exit_2_without_a_traceback(corpus, monkeypatch):
    from specgen.errors import Problem, SpecError

    def broken(*a, **k):
        raise SpecError([Problem("specs/shrink.yaml", 12, "attributes.bias.default", "expected a number, got 'x'")])

    monkeypatch.setattr("specgen.spec.loader.load_all", broken)
    code, out, err = run("--adapter", "fake_adapters:Correct", "--corpus", corpus)
    assert code == 2
    assert "specs/shrink.yaml:12: attributes.bias.default: expected a number" in err and "Traceback" not in out


@pytest.mark.parametrize("command", [["list"], ["show", "shrink"]])
def test_broken_specs_are_exit_2_in_every_command_as_in_run(command, monkeypatch):
    from specgen.errors import Problem, SpecError

    def broken(*a, **k):
        raise SpecError([Problem("specs/shrink.yaml", 12, "attributes.bias.default", "expected a number, got 'x'")])

    monkeypatch.setattr("specgen.spec.loader.load_all", broken)
    res = CliRunner().invoke(main, command)
    assert res.exit_code == 2, res.output
    assert "specs/shrink.yaml:12: attributes.bias.default: expected a number" in res.stderr


def test_a_plugin_whose_own_import_fails_is_broken_not_not_installed(monkeypatch):
    import importlib.metadata as md

    eps = md.EntryPoints([md.EntryPoint(name="mine", value="fake_adapters.own_import_missing:Adapter",
                                        group="specgen.adapters")])
    monkeypatch.setattr(md, "entry_points", lambda **kw: eps.select(**kw) if kw else eps)
    res = CliRunner().invoke(main, ["adapters"])
    assert res.exit_code == 3
    assert "mine: broken" in res.output and "no_such_helper_module" in res.output


@pytest.mark.parametrize("args, code, message", [
    (["--op", "hardsigmoid"], 2, "unknown op(s) hardsigmoid (did you mean hard_sigmoid?)"),
    (["--dtype", "flaot16"], 2, "unknown dtype(s) flaot16 (did you mean float16?)"),
    (["--shard", "3/2"], 2, "--shard '3/2': K must be between 1 and N (2)"),
    (["--shard", "2/0"], 2, "--shard '2/0': N, the number of shards, must be at least 1"),
    (["--case", "nothing/*"], 4, "no case matches"),
])
def test_usage_errors_are_one_line(corpus, args, code, message):
    got, out, err = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, *args)
    assert got == code and message in err and len(err.strip().splitlines()) == 1


def test_a_misspelt_adapter_gets_a_suggestion():
    code, _, err = run("--adapter", "onnxruntme")
    assert code == 3 and "did you mean onnxruntime?" in err


def test_run_help_documents_the_exit_codes():
    res = CliRunner().invoke(main, ["run", "--help"])
    for line in ("0    no new failure", "1    a new failure", "2    usage or configuration error",
                 "3    the adapter cannot be loaded", "4    nothing selected", "130  interrupted"):
        assert line in res.output


# -- CLI conventions ---------------------------------------------------------------------------


def test_help_imports_no_command_and_no_numpy():
    code = ("import sys\nfrom specgen.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in sys.modules if m.startswith(('numpy', 'specgen.commands', 'yaml', 'jinja2'))]\n"
            "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out
    assert "run  " in out and "Run the vector corpus" in out


def test_python_dash_m_specgen():
    out = subprocess.run([sys.executable, "-m", "specgen", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("specgen, version")


def test_shards_partition_the_selection(corpus):
    ids = []
    for k in (1, 2, 3):
        res = CliRunner().invoke(main, ["cases", "--corpus", corpus, "--shard", f"{k}/3"])
        ids.append(res.output.split())
    every = CliRunner().invoke(main, ["cases", "--corpus", corpus]).output.split()
    assert sorted(sum(ids, [])) == sorted(every) and max(map(len, ids)) - min(map(len, ids)) <= 1


def test_exitfirst_and_last_failed(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("SPECGEN_CACHE_DIR", str(tmp_path))
    code, out, _ = run("--adapter", "fake_adapters:WrongAtThreshold", "--corpus", corpus)
    assert code == 1 and "1 fail" in out
    code, out, err = run("--adapter", "fake_adapters:WrongAtThreshold", "--corpus", corpus, "--last-failed")
    assert code == 1 and "0 pass, 1 fail" in out and "1 case(s) that failed last time" in err
    code, out, _ = run("--adapter", "fake_adapters:Crashing", "--corpus", corpus, "-x", "--kind", "positive")
    assert code == 1 and "0 pass, 0 fail, 1 error" in out


def test_the_suite_keeps_the_last_failed_cache_out_of_the_checkout(corpus):
    # tests/conftest.py gives the session a cache of its own: fake adapters' failures used to land in
    # the checkout's .specgen-cache/last-failed.json (issue 24 item 8)
    from specgen.commands.run import cache_file

    repo = Path(__file__).resolve().parents[1]
    code, _, _ = run("--adapter", "fake_adapters:WrongAtThreshold", "--corpus", corpus)
    assert code == 1
    written = cache_file().resolve()
    assert repo not in written.parents and "fake_adapters:WrongAtThreshold" in written.read_text()


# -- behaviour profile ---------------------------------------------------------------------------


def test_the_profile_reports_what_the_spec_leaves_open_and_strict_fails_deviations(tmp_path):
    """Softsign(±inf): the spec accepts NaN (the literal formula) or ±1 (the limit, the golden value);
    HardSigmoid(NaN) propagates NaN. A backend returning NaN for ±inf passes by default, is named in
    the profile, and fails with --profile strict."""
    import numpy as np

    from specgen.adapters.registry import load_object
    from specgen.reports import json_report, markdown, terminal
    from specgen.runner.core import Runner
    from specgen.spec.loader import load_all

    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40, 2.0], dtype=np.float32)
    c = case("softsign", x=x, attributes={}, name="specials")
    c.data["y"][:2] = [1, -1]  # the golden value is the recommended outcome, the limit (as the corpus stores it)
    cases = [c]
    loaded = load_object("literal", "fake_adapters:Correct")  # computes x / (1 + |x|): NaN at ±inf
    specs = load_all()
    run = Runner(loaded, specs).run(cases)
    r = run.results[0]
    assert r.verdict == "pass", r.reason
    assert r.profile["pos_inf_input"] == {"nan": 1} and r.profile["neg_inf_input"] == {"nan": 1}
    assert r.profile["nan_input"] == {"nan": 1}
    text = terminal.render(run)
    assert "softsign float32: nan input: nan ×1; pos inf input: nan ×1; neg inf input: nan ×1" in text
    data = json.loads(json_report.render(run))
    assert data["profile"]["whole_run"]["pos_inf_input"] == {"nan": 1}
    assert "### Behaviour where a spec may leave a choice" in markdown.render(run)
    strict = Runner(loaded, specs, profile="strict").run(cases)
    s = strict.results[0]
    assert (s.verdict, str(s.cause)) == ("fail", "strict-profile")
    assert "2 special-value element(s) differ from the spec's recommended outcome" in s.reason
    assert strict.exit_code() == 1


def test_the_json_report_matches_its_published_schema(corpus, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    from specgen.reports.json_report import schema_path

    schema = json.loads(schema_path().read_text())
    for adapter, extra in (("fake_adapters:WrongRank5", []), ("fake_adapters:Float32Only", ["--no-probe"]),
                           ("fake_adapters:Correct", ["--baseline", str(tmp_path / "b.yaml")])):
        (tmp_path / "b.yaml").write_text('known_failures:\n  - case: "*/rank5"\n    reason: "r"\n')
        code, out, _ = run("--adapter", adapter, "--corpus", corpus, "--json", str(tmp_path / "r.json"), *extra)
        data = json.loads((tmp_path / "r.json").read_text())
        jsonschema.validate(data, schema)
        assert data["specgen_version"] and data["created"].endswith("Z") and data["exit_code"] == code


def test_ctrl_c_outside_a_run_is_130_not_clicks_aborted_1(monkeypatch, capsys):
    import click

    from specgen import cli

    for exc in (KeyboardInterrupt(), click.exceptions.Abort()):
        def boom(*a, _exc=exc, **k):
            raise _exc

        monkeypatch.setattr(cli.main, "main", boom)
        with pytest.raises(SystemExit) as info:
            cli.entry()
        assert info.value.code == 130
    assert "specgen: interrupted" in capsys.readouterr().err


def test_the_full_exception_text_is_in_the_failure_details(corpus, tmp_path):
    code, out, _ = run("--adapter", "fake_adapters:MultiLineError", "--corpus", corpus, "--case", "*/defaults",
                       "--json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md"))
    assert code == 1
    assert "the real reason: kernel for HardSigmoid f16 not registered" in out  # not only the first line
    case0 = json.loads((tmp_path / "r.json").read_text())["cases"][0]
    assert "the real reason" in case0["exception"] and case0["cause"] == "crashed"
    assert "the real reason" in (tmp_path / "r.md").read_text()


def test_adapters_get_the_runners_specs_instead_of_parsing_them_again(monkeypatch):
    from specgen.adapters.registry import load_object
    from specgen.spec import loader

    specs = loader.load_all()
    calls = []
    real = loader.load_all
    monkeypatch.setattr(loader, "load_all", lambda *a, **k: calls.append(1) or real(*a, **k))
    loaded = load_object("reference", "specgen.adapters.reference:ReferenceAdapter", specs=specs)
    assert loaded.adapter.specs is specs and calls == []
    assert loaded.claims and all(c.rejects for c in loaded.claims)  # explicit, from generated/validate


def test_the_profile_names_bfloat16_truncation():
    import ml_dtypes
    import numpy as np

    from specgen.runner.profile import case_profile

    exact = np.array([1.00390625 + 2 ** -9, 1.5, 3.0 + 2 ** -7 + 2 ** -9], dtype=np.float32)  # above half an ULP
    expected = exact.astype(ml_dtypes.bfloat16)  # round to nearest even
    truncated = (exact.view(np.uint32) >> 16).astype(np.uint16).view(ml_dtypes.bfloat16)
    prof, _ = case_profile(exact.astype(ml_dtypes.bfloat16), expected, truncated)
    assert prof["bfloat16_rounding"] == {"1 ULP toward zero": 2, "as expected (nearest even)": 1}


def test_a_result_equal_to_the_sentinel_is_not_mistaken_for_no_output():
    import numpy as np

    from specgen.adapters.base import Adapter
    from specgen.runner.call import build_call
    from specgen.runner.invoke import invoke
    from specgen.spec.loader import load_all

    class WritesMinus91(Adapter):  # int8 -91 is the sentinel byte 0xA5
        def claims(self):
            return []

        def run(self, call):
            call.out["y"][...] = np.int8(-91)

    spec = load_all()["shrink"]
    c = case("shrink", version="9", dtype="int8", x=np.array([-91], dtype=np.int8),
             attributes={"bias": 0.0, "threshold": 0.0}, name="sentinel")
    call = build_call(c, c.load(), spec, ["x"], ["y"])
    o = invoke(WritesMinus91(), call)
    assert o.status == "ok" and o.outputs["y"].tolist() == [-91]


def test_progress_is_a_bar_on_a_terminal_and_plain_lines_in_ci_logs(monkeypatch):
    import io

    from specgen import progress as pg

    now = [100.0]
    monkeypatch.setattr(pg.time, "monotonic", lambda: now[0])
    quiet = io.StringIO()
    p = pg.Progress(quiet, tty=False, after=2.0)
    p(0, 10, "a")
    p(10, 10, "")
    assert quiet.getvalue() == ""  # a run shorter than 2 s shows nothing
    tty, log = io.StringIO(), io.StringIO()
    bar, lines = pg.Progress(tty, tty=True, after=2.0), pg.Progress(log, tty=False, after=2.0)
    for i, t in enumerate((103.0, 103.1, 104.0, 115.0)):
        now[0] = t
        bar(i, 10, f"case{i}")
        lines(i, 10, f"case{i}")
    now[0] = 116.0
    bar(10, 10, "")
    lines(10, 10, "")
    assert tty.getvalue().startswith("\r[") and "] 10/10 100%" in tty.getvalue() and tty.getvalue().endswith("\n")
    assert log.getvalue().splitlines() == ["progress: 0/10 (0%) case0", "progress: 3/10 (30%) case3",
                                           "progress: 10/10 (100%)"]


def test_the_profile_names_flushed_subnormal_inputs_and_results():
    import numpy as np

    from specgen.runner.profile import case_profile

    x = np.array([0.0, -0.0, 1e-40, -1e-40, 1.0], dtype=np.float32)
    expected = x / (1 + np.abs(x))  # softsign keeps subnormals
    ftz = expected.copy()
    ftz[2], ftz[3] = 0.0, -0.0  # what a flush-to-zero backend gives: f(+0), f(-0)
    prof, deviations = case_profile(x, expected, ftz)
    assert prof["subnormal_input"] == {"treated as zero (flushed)": 2}
    assert prof["subnormal_result"] == {"flushed to zero": 2}
    assert deviations == 2
