"""The webnn-chromium adapter: WebNN in a real browser (tools/install-webnn-chromium.sh installs it).

Without the browser the adapter is "not installed" and the tests that need it are skipped. With
it: every WebNN case of the corpus gated by baselines/webnn-chromium.yaml (--strict), the committed
report docs/webnn-chromium-report.md kept equal to the run, and the browser's behaviour where the
WebNN spec leaves a choice (or where it deviates) pinned, so that a new Chromium that changes it is
noticed. Regenerate the report: SPECGEN_UPDATE_REPORTS=1 pytest tests/test_adapters_webnn_chromium.py
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from specgen.adapters.base import Rejected
from specgen.adapters.webnn_chromium import ENV_DIR, WebNNChromiumAdapter, find_browser
from specgen.cli import main
from test_doc_numbers import tool

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "docs" / "webnn-chromium-report.md"
BASELINE = "baselines/webnn-chromium.yaml"
MARK = "<!-- everything below is generated: SPECGEN_UPDATE_REPORTS=1 pytest tests/test_adapters_webnn_chromium.py -->"

needs_browser = pytest.mark.skipif(find_browser() is None, reason="no WebNN Chromium (tools/install-webnn-chromium.sh)")


def test_without_the_browser_the_adapter_is_not_installed_and_nothing_fails(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_DIR, str(tmp_path))  # when set, the only place looked at
    assert find_browser() is None
    res = CliRunner().invoke(main, ["adapters"])
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("webnn-chromium:"))
    assert line.startswith("webnn-chromium: not installed")
    assert "install-webnn-chromium.sh" in res.output
    res = CliRunner().invoke(main, ["run", "--adapter", "webnn-chromium", "-q"])
    assert res.exit_code == 3, res.output


def test_a_browser_that_dies_makes_the_adapter_broken_with_its_log(tmp_path, monkeypatch):
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\necho 'chromium: cannot open shared object file' >&2\nexit 127\n")
    fake.chmod(0o755)
    monkeypatch.setenv(ENV_DIR, str(tmp_path))
    res = CliRunner().invoke(main, ["run", "--adapter", "webnn-chromium", "-q"])
    assert res.exit_code == 3, res.output
    assert "cannot open shared object file" in res.output


@pytest.fixture(scope="module")
def browser():
    if find_browser() is None:
        pytest.skip("no WebNN Chromium (tools/install-webnn-chromium.sh)")
    adapter = WebNNChromiumAdapter()
    yield adapter
    adapter.close()


def _skeleton(text: str) -> list[str]:
    keep = []
    for line in text.splitlines():
        if line.startswith(("|", "### ", "- **")):
            keep.append(line)
        elif line.startswith("<details><summary><code>"):
            keep.append(line.split("</code>", 1)[0])
    return keep


def _version(text: str) -> str | None:
    m = re.search(r"backend (HeadlessChrome/\S+)", text)
    return m.group(1) if m else None


@pytest.mark.slow  # whole corpus: run by .ci/gates/ (README "More backends"), apart from the README's test command
@needs_browser
def test_every_webnn_case_passes_the_gate_and_matches_the_committed_report(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out, js = tmp_path / "report.md", tmp_path / "report.json"
    res = CliRunner().invoke(main, ["run", "--adapter", "webnn-chromium", "--standard", "webnn", "--baseline", BASELINE,
                                    "--strict", "-q", "--markdown", str(out), "--json", str(js)])
    assert res.exit_code == 0, res.output[-4000:]
    generated = out.read_text()
    preface, mark, committed = REPORT.read_text().partition(MARK + "\n")
    assert mark, f"{REPORT} has lost its marker line"
    if os.environ.get("SPECGEN_UPDATE_REPORTS") == "1":
        REPORT.write_text(preface + MARK + "\n" + generated)
        committed = generated  # and still check the numbers the docs quote against this run
    now, then = _skeleton(generated), _skeleton(committed)
    if now != then and _version(generated) != _version(committed):
        first = next((f"{a!r} was {b!r}" for a, b in zip(now, then) if a != b), f"{len(now)} lines were {len(then)}")
        pytest.skip(f"report made with {_version(committed)}, {_version(generated)} differs from it: {first}")
    assert now == then, "docs/webnn-chromium-report.md is stale (see this module's docstring)"
    assert tool().run_differs("webnn-chromium", json.loads(js.read_text())) == []  # the numbers the docs quote


@needs_browser
def test_claims_come_from_op_support_limits(browser):
    limits = browser.limits()
    claims = {c.op: c for c in browser.claims()}
    for op, name in (("hard_sigmoid", "hardSigmoid"), ("softsign", "softsign")):
        lim = limits[name]["input"]
        assert claims[op].dtypes == tuple(lim["dataTypes"])
        assert claims[op].ranks == (lim["rankRange"]["min"], lim["rankRange"]["max"])
    assert "shrink" not in claims  # WebNN has no Shrink


# ---------------------------------------------------------------------------------------------
# Where the WebNN spec leaves a choice, what Chromium does (docs/webnn-chromium-report.md, findings)

F32, F16 = np.float32, np.float16


def bits(a: np.ndarray) -> list[int]:
    return a.view(np.uint32 if a.dtype == F32 else np.uint16).ravel().tolist()


@needs_browser
def test_float32_subnormals_are_flushed_float16_subnormals_are_kept(browser):
    x = np.array([1e-40, -1e-40, 1.1754942e-38], dtype=F32)
    assert bits(browser.compute("softsign", x)) == [0, 0x80000000, 0]  # inputs flushed (sign kept)
    y = browser.compute("hardSigmoid", np.array([1e-20], dtype=F32), {"alpha": 1e-20, "beta": 0.0})
    assert bits(y) == [0]  # a subnormal result (1e-40) flushed
    h = np.array([6e-8, -6e-8, 3e-5], dtype=F16)
    assert bits(browser.compute("softsign", h)) == bits(h)  # float16 subnormals survive


@needs_browser
def test_nan_infinities_and_signed_zero(browser):
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=F32)
    s = browser.compute("softsign", special)
    assert np.isnan(s[:3]).all() and bits(s[3:]) == [0x80000000, 0]  # the literal formula: inf/inf = NaN
    h = browser.compute("hardSigmoid", special)
    assert np.isnan(h[0]) and h[1:3].tolist() == [1.0, 0.0]  # NaN propagates: IEEE minimum/maximum, not fmin/fmax
    z = browser.compute("hardSigmoid", special, {"alpha": 0.0, "beta": 0.25})
    assert np.isnan(z[:3]).all()  # alpha = 0: 0 * inf = NaN, not the limit 0.25
    quiet = np.array([0x7FC12345, 0xFFA00001], dtype=np.uint32).view(F32)
    assert bits(browser.compute("softsign", quiet)) == [0x7FC12345, 0xFFE00001]  # payload kept, sNaN quieted


@needs_browser
def test_option_rules(browser):
    x = np.ones(2, dtype=F32)
    for bad in ({"alpha": float("nan")}, {"beta": float("inf")}):
        with pytest.raises(Rejected, match="TypeError"):  # WebIDL double (not unrestricted): a TypeError
            browser.compute("hardSigmoid", x, bad)
    assert browser.compute("softsign", x, {"gamma": 1.0}).tolist() == [0.5, 0.5]  # unknown members ignored
    # Deviation: Chromium's options are IDL float, so a finite double beyond float32 is refused; the
    # spec's double would be cast to float32 (+Infinity) and accepted.
    with pytest.raises(Rejected, match="non-finite"):
        browser.compute("hardSigmoid", x, {"alpha": 1e39})


@needs_browser
def test_float16_options_are_not_cast_to_float16(browser):
    # Deviation (baselines/webnn-chromium.yaml): the spec casts alpha and beta to float16 for a
    # float16 input; Chromium computes with the float32 value. alpha = 1 + 2^-11 - 2^-20 is 1 in
    # float16, so the spec gives 0.75 at x = 0.75; Chromium gives the next float16 up.
    alpha = float(np.float32(1 + 2 ** -11 - 2 ** -20))
    y = browser.compute("hardSigmoid", np.array([0.75], dtype=F16), {"alpha": alpha, "beta": 0.0})
    assert bits(y) == [0x3A01]  # the spec's value is 0x3a00
    # alpha = 1e5 is +Infinity in float16, so the spec gives NaN at x = 0 (inf * 0); Chromium 0.5
    y = browser.compute("hardSigmoid", np.array([0.0], dtype=F16), {"alpha": 1e5, "beta": 0.5})
    assert y.tolist() == [0.5]


@needs_browser
def test_rejections_are_the_browsers_own(browser):
    with pytest.raises(Rejected, match="All dimensions should be positive"):
        browser.compute("softsign", np.zeros((2, 0), dtype=F32))
    with pytest.raises(Rejected, match="Unsupported rank 7"):
        browser.compute("softsign", np.zeros([1] * 7, dtype=F32))
