"""specgen sweep: the chunk function, mergeable summaries, executors, shards, resume, crashes, reports."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from specgen.cli import main
from specgen.sweep import execute as X
from specgen.sweep.chunk import chunk
from specgen.sweep.run import execute, prepare
from specgen.sweep.summary import MergeError, Summary, merge_all

FAKE = "fake_adapters.sweep:SweepFake"
ROOT = Path(__file__).resolve().parents[1]


def _prep(op="shrink", dtype="float16", ranges=("0x3c00:0x3fff",), attributes=None, adapter=FAKE, **kw):
    return prepare(adapter, op, "onnx", None, dtype, attributes or {}, list(ranges) if ranges else None, **kw)


def _det(s: Summary) -> str:
    return json.dumps(s.to_json(timing=False), sort_keys=True)


def _inline(p, chunk_size):
    from dataclasses import replace

    sweep = replace(p.sweep, chunk_size=chunk_size)
    return [chunk(sweep, lo, hi) for lo, hi in X.all_chunks(sweep, p.space)]


def test_summaries_merge_the_same_whatever_the_grouping(monkeypatch):
    monkeypatch.setenv("SWEEP_FAKE_WRONG", "0x3d00:0x3d7f,0x3e05,0x3fff")
    p = _prep()
    whole = _inline(p, 1 << 16)
    assert len(whole) == 1
    ref = _det(whole[0])
    for size in (64, 100, 333):
        parts = _inline(p, size)
        assert _det(merge_all(parts)) == ref
        assert _det(merge_all(parts[::-1])) == ref  # order does not matter
        half = len(parts) // 2
        tree = merge_all([merge_all(parts[:half:2] + parts[1:half:2]), merge_all(parts[half:])])
        assert _det(tree) == ref  # nor grouping
    s = whole[0]
    assert s.counts == {"pass": 1024 - 130, "value": 130}
    assert s.n_runs == 3 and s.runs == [[0x3d00, 0x3d7f], [0x3e05, 0x3e05], [0x3fff, 0x3fff]]
    assert [r.bits for r in s.first[:2]] == [0x3d00, 0x3d01]
    assert all(r.kind == "value" and r.error > r.bound for r in s.first)


def test_runs_list_is_capped_and_still_exact_below_the_cut(monkeypatch):
    from specgen.sweep import summary as S

    every_other = ",".join(hex(b) for b in range(0x3c00, 0x4000, 2))
    monkeypatch.setenv("SWEEP_FAKE_WRONG", every_other)
    monkeypatch.setattr(S, "RUNS", 10)
    p = _prep()
    ref = merge_all(_inline(p, 1 << 16))
    for size in (7, 64):
        got = merge_all(_inline(p, size))
        assert _det(got) == _det(ref)
    assert ref.n_runs == 512 and len(ref.runs) == 10 and ref.runs_cut == 0x3c14
    assert ref.runs[0] == [0x3c00, 0x3c00]


def test_merge_refuses_other_sweeps_and_overlaps():
    p = _prep()
    a = chunk(p.sweep, 0x3c00, 0x3c0f)
    b = chunk(p.sweep, 0x3c08, 0x3c1f)
    with pytest.raises(MergeError, match="overlap"):
        a.merge(b)
    q = _prep(attributes=None, op="softsign")
    c = chunk(q.sweep, 0x3c10, 0x3c1f)
    with pytest.raises(MergeError, match="not parts of the same sweep"):
        a.merge(c)
    assert Summary.from_json(json.loads(json.dumps(a.to_json()))).to_json() == a.to_json()


def test_local_pool_gives_the_bytes_of_one_process(monkeypatch):
    monkeypatch.setenv("SWEEP_FAKE_WRONG", "0x3d10:0x3d1f")
    p = _prep(chunk_size=100)
    ref = _det(merge_all(_inline(p, 1 << 16)))
    out = execute(p, workers=2)
    assert out.info["complete"] and _det(out.summary) == ref


def test_a_crashing_backend_is_bisected_to_the_inputs(monkeypatch):
    monkeypatch.setenv("SWEEP_FAKE_DIE", "0x3c05,0x3c31")
    monkeypatch.setenv("SWEEP_FAKE_RAISE", "0x3c20")
    p = _prep(ranges=("0x3c00:0x3c3f",), chunk_size=16)
    out = execute(p, workers=2)
    s = out.summary
    assert out.info["complete"] and s.total == 64
    assert s.counts["error"] == 3 and s.counts["pass"] == 61
    assert [r.bits for r in s.first] == [0x3c05, 0x3c20, 0x3c31]
    assert any("died" in m for m in s.errors) and any("refuses" in m for m in s.errors)


def test_float32_local_pool_and_dask_localcluster_are_bit_identical():
    # 2^15 inputs in 8 chunks on one worker each: the merge of chunks that finish in any order is what
    # is compared; more workers or inputs only add process start-up (the pool's 2 workers: bisect test)
    pytest.importorskip("dask.distributed")
    pytest.importorskip("onnxruntime")
    p = prepare("onnxruntime", "hard_sigmoid", "onnx", "22", "float32", {},
                ["0xc0100000:0xc0107fff"], chunk_size=1 << 12)
    local = execute(p, workers=1)
    dask = execute(p, workers=1, scheduler="dask")
    assert local.info["complete"] and dask.info["complete"]
    assert local.summary.total == 1 << 15
    assert _det(local.summary) == _det(dask.summary)


def test_shards_merge_into_the_full_sweep_and_other_sweeps_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SWEEP_FAKE_WRONG", "0x3dff:0x3e01")
    base = ["sweep", "--adapter", FAKE, "--op", "shrink", "--dtype", "float16", "--range", "0x3c00:0x3fff",
            "--chunk-size", "100", "--workers", "0", "--no-progress"]
    r = CliRunner()
    full = r.invoke(main, base + ["--json", str(tmp_path / "full.json")])
    assert full.exit_code == 1, full.output
    for k in (1, 2, 3):
        res = r.invoke(main, base + ["--shard", f"{k}/3", "--json", str(tmp_path / f"s{k}.json")])
        assert res.exit_code in (0, 1), res.output
    m = r.invoke(main, ["sweep-merge", *(str(tmp_path / f"s{k}.json") for k in (1, 2, 3)),
                        "--json", str(tmp_path / "merged.json"), "--markdown", str(tmp_path / "merged.md")])
    assert m.exit_code == 1, m.output
    a = json.loads((tmp_path / "full.json").read_text())["summary"]
    b = json.loads((tmp_path / "merged.json").read_text())["summary"]
    a.pop("timing"), b.pop("timing")
    assert a == b and b["n_runs"] == 1 and b["runs"] == [[0x3dff, 0x3e01]]
    assert "re-run" in m.output.replace("Re-run", "re-run") or "--range 0x3dff:0x3dff" in (tmp_path / "merged.md").read_text()
    other = r.invoke(main, base + ["--attributes", "bias=0.25", "--shard", "1/3",
                                   "--json", str(tmp_path / "other.json")])
    assert other.exit_code in (0, 1), other.output
    bad = r.invoke(main, ["sweep-merge", str(tmp_path / "s2.json"), str(tmp_path / "other.json")])
    assert bad.exit_code == 2 and "not parts of the same sweep" in bad.output
    dup = r.invoke(main, ["sweep-merge", str(tmp_path / "s2.json"), str(tmp_path / "s2.json")])
    assert dup.exit_code == 2 and "overlap" in dup.output


def test_resume_runs_only_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("SWEEP_FAKE_WRONG", "0x3c80")
    p = _prep(chunk_size=128)
    first = execute(p, workers=0, shard=(1, 2), resume=str(tmp_path / "r"))
    assert first.summary.total == 512
    from dataclasses import replace

    finer = replace(p, sweep=replace(p.sweep, chunk_size=64))  # another grid: what is saved still counts
    again = execute(finer, workers=0, resume=str(tmp_path / "r"))
    assert again.info["complete"] and again.info["elements_this_run"] == 512
    assert _det(again.summary) == _det(merge_all(_inline(p, 1 << 16)))
    other = _prep(op="softsign", chunk_size=128)
    with pytest.raises(MergeError, match="holds another sweep"):
        execute(other, workers=0, resume=str(tmp_path / "r"))


def test_ctrl_c_exits_130_and_keeps_finished_chunks(tmp_path):
    env = dict(os.environ, SWEEP_FAKE_SLEEP="0.3", PYTHONPATH=str(ROOT / "tests"))
    cmd = [sys.executable, "-m", "specgen.cli", "sweep", "--adapter", FAKE, "--op", "softsign", "--dtype", "float16",
           "--chunk-size", "512", "--workers", "1", "--resume", str(tmp_path / "r"), "--progress",
           "--json", str(tmp_path / "partial.json")]
    # a test started in the background of a non-interactive shell inherits SIGINT ignored: restore it
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.default_int_handler))
    chunks = tmp_path / "r" / "chunks"
    deadline = time.time() + 60
    while time.time() < deadline and len(list(chunks.glob("*.json"))) < 2:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    done = len(list(chunks.glob("*.json")))
    assert 2 <= done < 128
    assert "interrupted" in err and "sweep:" in err  # plain progress lines when not a terminal
    rep = json.loads((tmp_path / "partial.json").read_text())
    assert rep["info"]["interrupted"] and not rep["info"]["complete"]
    assert rep["summary"]["total"] == 512 * done


def test_float64_sample_covers_every_exponent_and_breakpoints():
    from specgen.sweep.space import SampleSpace

    sp = SampleSpace("float64", 4, 7, [0x3FE4CCCCBFFFFFFF])
    bits = sp.bits(0, sp.size - 1)
    assert sp.size == 2 * 2048 * 4 + 1 and np.array_equal(sp.bits(0, sp.size - 1), bits)
    exps = (bits >> np.uint64(52)) & np.uint64(0x7FF)
    assert len(np.unique(exps)) == 2048
    assert bits[0] == 0x3FE4CCCCBFFFFFFF  # breakpoints first: they lead the first failures
    assert np.array_equal(sp.bits(5, 9), bits[5:10])  # a chunk is its own slice of the sample
    assert np.array_equal(SampleSpace("float64", 4, 7).bits(0, 99), bits[1:101])


def test_float64_shrink_finding_shows_in_a_sampled_sweep():
    pytest.importorskip("onnxruntime")
    p = prepare("onnxruntime", "shrink", "onnx", "9", "float64", {"bias": 0.3, "lambd": -0.65}, None, samples=4)
    assert 0x3FE4CCCCBFFFFFFF in p.sweep.space[3]
    out = execute(p, workers=0)
    s = out.summary
    assert s.failures > 0.5 * s.total
    assert s.specials["+inf"]["verdicts"] == {"pass": 1}
    assert {r.kind for r in s.worst_fail.values()} == {"value", "inf-mismatch"}  # DBL_MAX gives inf
    # one float64 ULP below float32(0.65): onnxruntime compares in float32 and takes the wrong branch
    assert 0x3FE4CCCCBFFFFFFF in {r.bits for r in s.first}
    one = execute(prepare("onnxruntime", "shrink", "onnx", "9", "float64", {"bias": 0.3, "lambd": -0.65},
                          ["0x3fe4ccccbfffffff:0x3fe4ccccbfffffff"]), workers=0).summary
    assert one.first and one.first[0].kind == "value" and one.first[0].bits == 0x3FE4CCCCBFFFFFFF


def test_cli_reports_and_plot(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("SWEEP_FAKE_WRONG", "0x3d00")
    r = CliRunner()
    res = r.invoke(main, ["sweep", "--adapter", FAKE, "--op", "shrink", "--dtype", "float16", "--workers", "0",
                          "--no-progress", "--markdown", str(tmp_path / "r.md"), "--json", str(tmp_path / "r.json")])
    assert res.exit_code == 1, res.output
    md = (tmp_path / "r.md").read_text()
    assert "![error in ULP against input value](r.png)" in md and (tmp_path / "r.png").stat().st_size > 1000
    assert "--range 0x3d00:0x3d00" in md and "| nan |" in md
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["summary"]["total"] == 65536 and rep["summary"]["counts"]["value"] == 1
    assert rep["rerun_first"].endswith("--range 0x3d00:0x3d00")
    # the terminal's command for the first failure: the input and the 63 patterns after it (a
    # vectorised kernel may compute a few elements otherwise), never past the dtype's last pattern
    assert "re-run: specgen sweep" in res.output and "--range 0x3d00:0x3d3f" in res.output
    from specgen.sweep.report import rerun_from
    assert rerun_from({"rerun": "specgen sweep"}, 0xffd5, "float16").endswith("--range 0xffd5:0xffff")


def test_usage_errors_and_unclaimed():
    r = CliRunner()
    base = ["sweep", "--adapter", FAKE, "--op", "softsign", "--workers", "0", "--no-progress"]
    assert r.invoke(main, base + ["--dtype", "int8"]).exit_code == 2
    assert r.invoke(main, base + ["--dtype", "float16", "--range", "5:3"]).exit_code == 2
    assert r.invoke(main, base + ["--dtype", "float16", "--shard", "4/3"]).exit_code == 2
    assert r.invoke(main, base + ["--dtype", "float16", "--attributes", "nope=1"]).exit_code == 2
    assert r.invoke(main, ["sweep", "--adapter", "no-such-adapter", "--op", "softsign", "--dtype", "float16"]).exit_code == 3
    res = r.invoke(main, ["sweep", "--adapter", FAKE, "--op", "softsign", "--dtype", "bfloat16", "--no-progress"])
    assert res.exit_code == 4 and "does not claim" in res.output


def test_progress_lines_when_not_a_tty():
    import io

    buf = io.StringIO()
    bar = X.Progress(1000, buf, tty=False, every=0.0)
    bar.update(500, 3)
    bar.update(500, force=True)
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("sweep:  50.0% 500/1,000 elements") and "3 failing" in lines[0]
    buf = io.StringIO()
    bar = X.Progress(1000, buf, tty=True)
    bar.update(1000, force=True)
    assert buf.getvalue().startswith("[########################] 100.0%") and "ETA" in buf.getvalue()


def test_error_histogram_bins_read_off_the_bits_match_log2():
    """The summary's histogram (bits arithmetic) puts every error where ceil(log2(error)) says."""
    from collections import Counter

    from specgen.sweep.summary import _hist_counts, _hist_key

    rng = np.random.default_rng(4)
    e = np.abs(rng.standard_normal(4000) * 10.0 ** rng.uniform(-320, 308, 4000))
    edges = [0.0, 5e-324, 2.0 ** -13, 2.0 ** -12, 0.5, 1.0, 1.5, 2.0, 3.0, 2.0 ** 64, 2.0 ** 65, 1e308,
             np.inf, np.nan, -np.nan]
    with np.errstate(invalid="ignore"):
        e = np.concatenate([e, edges, np.array([np.inf]) - np.inf])  # a NaN with its sign bit set
    got = _hist_counts(e)
    assert got == dict(Counter(_hist_key(float(v)) for v in e)) and sum(got.values()) == e.size


def test_a_string_attribute_picks_the_formula_of_a_sweep():
    """GELU approximate=tanh: the sweep judges against the tanh form and records the value; a value
    the standard does not have, or a word for a numeric attribute, is a usage error (exit 2)."""
    p = prepare("reference", "gelu", "onnx", None, "float16", {"approximate": "tanh"}, ["0xc000:0xc03f"])
    assert dict(p.sweep.attributes)["approximate"] == "tanh"
    s = merge_all(_inline(p, 64))
    assert s.total == 64 and s.failures == 0 and s.counts == {"pass": 64}, _det(s)
    x = np.array([-2.0], dtype=np.float16)
    from specgen.spec.loader import load_all
    from specgen.sweep.judge import Context
    spec = load_all()["gelu"]
    tanh, erf = (Context(spec, "onnx", "float16", {"approximate": v}).golden(x)[0] for v in ("tanh", "erf"))
    assert (float(tanh), float(erf)) == (float(np.float16(-0.0454)), float(np.float16(-0.0455)))
    r = CliRunner()
    base = ["sweep", "--adapter", "reference", "--op", "gelu", "--dtype", "float16", "--workers", "0", "--no-progress"]
    assert r.invoke(main, base + ["--attributes", "approximate=bogus"]).exit_code == 2
    assert r.invoke(main, ["sweep", "--adapter", FAKE, "--op", "softsign", "--dtype", "float16",
                           "--attributes", "alpha=high"]).exit_code == 2


def test_the_golden_cache_serves_a_sweep_of_the_same_inputs_on_another_backend(tmp_path, monkeypatch):
    from specgen.sweep import golden_cache
    from specgen.sweep import judge as J

    def det(p):
        return _det(merge_all(_inline(p, 256)))

    monkeypatch.setenv("SWEEP_FAKE_WRONG", "0x3c80")
    fake, ref = _prep(op="softsign"), _prep(op="softsign", adapter="reference")
    want_fake, want_ref = det(fake), det(ref)  # no cache
    monkeypatch.setenv(golden_cache.ENV, str(tmp_path / "g"))
    assert det(fake) == want_fake
    files = sorted((tmp_path / "g").rglob("*.bin"))
    assert len(files) == 4 and all(f.stat().st_size == 256 * 2 for f in files)  # float16: 2 bytes an input

    computed = J.Context.golden

    def no_golden(self, x):
        raise AssertionError("golden values computed where the cache holds them")

    monkeypatch.setattr(J.Context, "golden", no_golden)
    assert det(ref) == want_ref  # another backend: every chunk read from the cache
    files[0].write_bytes(files[0].read_bytes()[:100])  # a torn file is computed again
    with pytest.raises(AssertionError, match="computed where"):
        det(ref)
    monkeypatch.setattr(J.Context, "golden", computed)
    assert det(ref) == want_ref and files[0].stat().st_size == 512
    # what decides the values is in the folder's name: another operator, another judge
    assert golden_cache.sweep_key(ref.sweep, ref.spec) == golden_cache.sweep_key(fake.sweep, fake.spec)
    assert golden_cache.sweep_key(_prep(op="shrink").sweep, ref.spec) != golden_cache.sweep_key(ref.sweep, ref.spec)
    key = golden_cache.sweep_key(ref.sweep, ref.spec)
    monkeypatch.setattr(golden_cache, "_judge_digest", lambda: "another judge")
    assert golden_cache.sweep_key(ref.sweep, ref.spec) != key
