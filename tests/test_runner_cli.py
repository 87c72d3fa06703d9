"""`specgen run` end to end on a small corpus written with specgen.vectors: filters, reports,
baseline gate and exit codes (docs/runner.md)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from fake_adapters.cases import standard_set, write_corpus
from specgen.cli import main
from specgen.runner.cases import _version_order
from specgen.spec.loader import load_all


def _known(standard: str) -> str:
    """The versions every spec lists for ``standard``, in the order the usage error prints them."""
    from specgen.spec.operators import load_operators

    vs = {str(v.version) for s in load_operators().values() if standard in s.standards
          for v in s.standards[standard].versions}
    return ", ".join(sorted(vs, key=_version_order))




@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    write_corpus(d, standard_set())
    return str(d)


def run(*args):
    res = CliRunner().invoke(main, ["run", *args])
    return res.exit_code, res.output


def test_correct_adapter_exits_0_and_writes_every_report(corpus, tmp_path):
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--json", str(tmp_path / "r.json"),
                    "--junit", str(tmp_path / "r.xml"), "--markdown", str(tmp_path / "r.md"))
    assert code == 0, out
    assert "11 pass, 0 fail, 0 error, 0 unsupported" in out
    data = json.loads((tmp_path / "r.json").read_text())
    assert len(data["cases"]) == 11 and data["exit_code"] == 0
    assert (tmp_path / "r.xml").read_text().startswith("<?xml")
    assert "**passed** (exit 0)" in (tmp_path / "r.md").read_text()


def test_new_failure_exits_1_and_the_rerun_command_reruns_exactly_that_case(corpus):
    code, out = run("--adapter", "fake_adapters:WrongRank5", "--corpus", corpus)
    assert code == 1
    line = next(l for l in out.splitlines() if l.strip().startswith("re-run:"))
    cmd = line.split("re-run: ", 1)[1]
    import shlex

    argv = shlex.split(cmd)
    assert argv[:4] == ["specgen", "run", "--adapter", "fake_adapters:WrongRank5"]
    code, out = run(*argv[2:])
    assert code == 1 and "0 pass, 1 fail" in out


def test_baseline_gate(corpus, tmp_path):
    b = tmp_path / "baseline.yaml"
    b.write_text("known_failures:\n  - case: '*/rank5'\n    reason: 5-D path broken (BUG-7)\n"
                 "  - case: 'softsign/*'\n    reason: stale entry\n")
    code, out = run("--adapter", "fake_adapters:WrongRank5", "--corpus", corpus, "--baseline", str(b))
    assert code == 0, out
    assert "1 xfail" in out and "softsign/*" in out and "matched no case" in out
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--baseline", str(b))
    assert code == 0 and "1 xpass" in out
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--baseline", str(b), "--strict")
    assert code == 1


def test_filters(corpus):
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--op", "shrink", "--dtype", "float32")
    assert code == 0 and "2 pass, 0 fail" in out
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--standard", "directml", "--version", "3_*")
    assert code == 0 and "3 pass" in out
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--case", "*/neg-*")
    assert code == 0 and "2 pass" in out


@pytest.mark.parametrize("args, code, message", [
    (["--op", "nosuchop"], 2, "unknown op(s) nosuchop"),
    (["--standard", "cuda"], 2, "unknown standard(s) cuda"),
    (["--case", "nothing/*"], 4, "no case matches"),
    (["--timeout", "0"], 2, "--timeout must be positive"),
    (["--dtype", "float17"], 2, "run: unknown dtype(s) float17 (did you mean float16?); known: float64, float32, float16, bfloat16, float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, int64"),
    (["--dtype", "float17,float32"], 2, "run: unknown dtype(s) float17 (did you mean float16?); known: "),
    (["--op", "softsign", "--dtype", "int8"], 2, "run: dtype(s) int8 not used by softsign; known: "),
    (["--version", "99"], 2, f"run: --version 99 matches no version of any op; known: directml {_known('directml')}; "),
    (["--standard", "onnx", "--version", "3_*"], 2, f"run: --version 3_* matches no version of onnx; known: onnx {_known('onnx')}"),
    (["--op", "shrink", "--version", "9,22"], 2, "--version 22 matches no version of shrink"),
])
def test_usage_errors(corpus, args, code, message):
    got, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, *args)
    assert got == code and message in out
    if code == 2:
        assert len(out.strip().splitlines()) == 1


def test_missing_corpus_and_bad_baseline_exit_2(tmp_path, corpus):
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", str(tmp_path / "none"))
    assert code == 2 and "manifest.json" in out and "vectors/manifest.json as in a `specgen generate --out DIR`" in out
    b = tmp_path / "b.yaml"
    b.write_text("known_failures:\n  - case: x\n")
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, "--baseline", str(b))
    assert code == 2 and f"{b}:2:5: known_failures[0]: missing required key 'reason'" in out


def test_unknown_adapter_exits_3(corpus):
    code, out = run("--adapter", "no-such-adapter", "--corpus", corpus)
    assert code == 3 and "no adapter of that name is installed" in out


def test_progress_goes_to_stderr_when_asked(corpus):
    res = CliRunner().invoke(main, ["run", "--adapter", "fake_adapters:Correct", "--corpus", corpus, "--progress"])
    assert res.exit_code == 0
    assert "11/11 (100%)" in res.stderr and "11/11" not in res.stdout  # stderr is not a terminal: plain lines


def test_timeout_isolates_a_hanging_adapter(corpus, monkeypatch):
    monkeypatch.setenv("SPECGEN_FAKE_HANG_OK", "1")
    code, out = run("--adapter", "fake_adapters:Hanging", "--corpus", corpus, "--case", "*/rank5", "--timeout", "1")
    assert code == 1
    assert "ERROR hard_sigmoid/directml-3_0/float32/rank5/rank5" in out and "timed out after 1 s" in out
    rerun = out.split("re-run:")[1].splitlines()[0]
    assert rerun.endswith("--isolate --timeout 1")


def test_write_baseline_then_gate_on_it(corpus, tmp_path):
    b = tmp_path / "b.yaml"
    code, _ = run("--adapter", "fake_adapters:WrongRank5", "--corpus", corpus, "--write-baseline", str(b))
    assert code == 1 and "hard_sigmoid/directml-3_0/float32/rank5/rank5" in b.read_text()
    assert 'reason: "TODO: ' in b.read_text()
    code, out = run("--adapter", "fake_adapters:WrongRank5", "--corpus", corpus, "--baseline", str(b), "--strict")
    assert code == 2 and f"run: {b}:" in out and ": known_failures[0].reason: entry 'hard-sigmoid-todo' has a placeholder" in out
    assert "replace the TODO reason with why this failure is known" in out
    assert len(out.strip().splitlines()) == 1
    b.write_text(b.read_text().replace('"TODO: ', '"5-D path broken (BUG-7): '))
    code, out = run("--adapter", "fake_adapters:WrongRank5", "--corpus", corpus, "--baseline", str(b), "--strict")
    assert code == 0 and "1 xfail" in out


@pytest.mark.parametrize("option", ["--json", "--junit", "--markdown", "--write-baseline"])
def test_an_unwritable_report_path_is_refused_before_the_run(corpus, tmp_path, option):
    afile = tmp_path / "afile"
    afile.write_text("")
    for path, message in ((afile / "x.out", "is not a directory"), (afile / "sub" / "x.out", "is not a directory"),
                          (tmp_path, "is a directory")):
        res = CliRunner().invoke(main, ["run", "--adapter", "fake_adapters:WrongRank5", "--corpus", corpus, option, str(path)])
        assert res.exit_code == 2, res.output
        assert res.output.startswith(f"run: {option} {path}: ") and message in res.output
        assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
        assert "specgen run: adapter" not in res.output  # nothing ran
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", corpus, option, str(tmp_path / "new" / "dir" / "r"))
    assert code == 0, out
    assert (tmp_path / "new" / "dir" / "r").is_file()


def test_a_write_error_after_the_run_is_one_line_and_exit_2(corpus, tmp_path, monkeypatch):
    def full_disk(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("specgen.commands.run._write", full_disk)
    res = CliRunner().invoke(main, ["run", "--adapter", "fake_adapters:Correct", "--corpus", corpus,
                                    "--json", str(tmp_path / "r.json")])
    assert res.exit_code == 2
    assert f"run: cannot write --json {tmp_path / 'r.json'}: No space left on device" in res.output
    assert "Traceback" not in res.output


def test_quiet_hides_the_group_table_and_the_probe_list(corpus):
    code, out = run("--adapter", "fake_adapters:Float32Only", "--corpus", corpus, "--op", "hard_sigmoid")
    assert code == 0
    assert "op            standard" in out and "unclaimed (op, version, dtype) groups probed (1 work although not claimed):" in out
    assert "  hard_sigmoid onnx-22 float16: works: ran and passed although not claimed" in out
    code, out = run("--adapter", "fake_adapters:Float32Only", "--corpus", corpus, "--op", "hard_sigmoid", "-q")
    assert code == 0 and "op            standard" not in out and "works: ran and passed" not in out
    assert "1 unclaimed (op, version, dtype) group(s) probed, 1 work although not claimed (listed without -q" in out
    code, out = run("--adapter", "fake_adapters:Float32Only", "--corpus", corpus, "--op", "hard_sigmoid", "--no-probe")
    assert "probed" not in out


def test_corpus_may_be_a_generate_out_directory(tmp_path):
    write_corpus(tmp_path / "vectors", standard_set())
    code, out = run("--adapter", "fake_adapters:Correct", "--corpus", str(tmp_path))
    assert code == 0 and "11 pass" in out
