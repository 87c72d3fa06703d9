"""Entry-point discovery with faked package metadata (importlib.metadata.entry_points patched):
lazy, verified, and one broken plugin never stops the others."""
from __future__ import annotations

import importlib.metadata as md
import json

import pytest
from click.testing import CliRunner

from specgen.adapters.registry import (BROKEN, INCOMPLETE, NOT_INSTALLED, AdapterLoadError, discover, load,
                                       load_all)
from specgen.cli import main

PLUGINS = {
    "good": "fake_adapters:Correct",
    "no-run": "fake_adapters:NoRun",
    "bad-signature": "fake_adapters:RunWithoutArgument",
    "import-fails": "fake_adapters.broken_import:Anything",
    "gone": "specgen_no_such_package.plugin:Adapter",
    "claims-raise": "fake_adapters:ClaimsRaise",
    "claims-wrong": "fake_adapters:ClaimsNotClaims",
    "no-backend": "fake_adapters:NeedsMissingBackend",
    "not-a-class": "fake_adapters:NOT_A_CLASS",
}


@pytest.fixture
def fake_metadata(monkeypatch):
    eps = md.EntryPoints(md.EntryPoint(name=n, value=v, group="specgen.adapters") for n, v in PLUGINS.items())
    other = md.EntryPoint(name="unrelated", value="os:path", group="console_scripts")

    def entry_points(**kw):
        all_eps = md.EntryPoints(list(eps) + [other])
        return all_eps.select(**kw) if kw else all_eps

    monkeypatch.setattr(md, "entry_points", entry_points)
    return PLUGINS


def test_discovery_reads_metadata_only(fake_metadata):
    import sys

    sys.modules.pop("fake_adapters.broken_import", None)
    found = discover()
    assert list(found) == sorted(PLUGINS)
    assert found["good"].value == "fake_adapters:Correct"
    assert "fake_adapters.broken_import" not in sys.modules  # nothing imported


def test_each_broken_plugin_is_named_with_what_is_missing_and_the_others_load(fake_metadata):
    ok, bad = load_all()
    assert list(ok) == ["good"]
    assert ok["good"].claims and ok["good"].adapter.name == "good"
    status = {n: e.status for n, e in bad.items()}
    assert status == {"no-run": INCOMPLETE, "bad-signature": INCOMPLETE, "import-fails": BROKEN, "gone": BROKEN,
                      "claims-raise": BROKEN, "claims-wrong": INCOMPLETE, "no-backend": NOT_INSTALLED,
                      "not-a-class": INCOMPLETE}
    assert "missing method run(call)" in str(bad["no-run"])
    assert "adapter 'no-run' (fake_adapters:NoRun)" in str(bad["no-run"])
    assert "run() must take argument(s) call" in str(bad["bad-signature"])
    assert "libmybackend.so" in str(bad["import-fails"])
    assert "claims() raised ValueError: cannot enumerate devices" in str(bad["claims-raise"])
    assert "claims()[0] is dict, not specgen.adapters.base.Claim" in str(bad["claims-wrong"])
    assert "specgen_no_such_backend_module (pip install 'specgen[nosuch]')" in str(bad["no-backend"])
    assert "not an adapter class" in str(bad["not-a-class"])


def test_unknown_adapter_lists_the_installed_ones(fake_metadata):
    with pytest.raises(AdapterLoadError) as info:
        load("nope")
    assert "installed: bad-signature, claims-raise" in str(info.value)


def test_specgen_adapters_lists_status_and_claims(fake_metadata):
    res = CliRunner().invoke(main, ["adapters"])
    assert res.exit_code == 3, res.output  # broken/incomplete plugins present
    assert "good: ok" in res.output
    assert "claims: hard_sigmoid onnx versions *; dtypes float32,float16" in res.output
    assert "no-run: incomplete" in res.output and "problem: missing method run(call)" in res.output
    assert "no-backend: not installed" in res.output
    res = CliRunner().invoke(main, ["adapters", "good", "no-backend", "--json"])
    assert res.exit_code == 0
    rows = json.loads(res.output)
    assert [r["status"] for r in rows] == ["ok", "not installed"]


def test_run_with_a_broken_adapter_exits_3(fake_metadata, tmp_path):
    res = CliRunner().invoke(main, ["run", "--adapter", "no-run", "--corpus", str(tmp_path)])
    assert res.exit_code == 3
    assert "missing method run(call)" in res.output


def test_the_shipped_adapters_are_registered_by_the_installed_package():
    found = discover()
    for name in ("reference", "onnxruntime", "onnx-reference", "torch"):
        assert name in found and found[name].value.startswith("specgen.adapters.")


def test_torch_adapter_is_skipped_cleanly_when_torch_is_absent():
    pytest.importorskip("importlib")
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(AdapterLoadError) as info:
            load("torch")
        assert info.value.status == NOT_INSTALLED and "specgen[torch]" in str(info.value)
    else:
        assert load("torch").claims
