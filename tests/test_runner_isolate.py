"""--isolate: crashes and hangs in a subprocess become errors; the run goes on."""
from __future__ import annotations


from fake_adapters.cases import case
from specgen.adapters.registry import load_object
from specgen.runner.core import ERROR, PASS, Runner
from specgen.spec.loader import load_all

from specgen.numerics.compare import compare as COMPARE

SPECS = load_all()


def test_isolated_segfault_is_reported_and_the_run_goes_on(monkeypatch):
    # a hang is the next test's (each kill costs a fresh worker's start-up, seconds, so one of each)
    monkeypatch.setenv("SPECGEN_FAKE_SEGFAULT_OK", "1")
    cases = [case("hard_sigmoid", name="ok-before"),
             case("hard_sigmoid", attributes={"alpha": 0.5, "beta": 0.5}, name="segfaults"),
             case("hard_sigmoid", name="ok-after", seed=1)]
    loaded = load_object("hang", "fake_adapters:HangsOrCrashes")
    run = Runner(loaded, SPECS, compare=COMPARE, isolate=True, timeout=30).run(cases)
    got = {r.case_id.split("/")[-1]: r for r in run.results}
    assert got["ok-before"].verdict == PASS and got["ok-after"].verdict == PASS
    assert got["segfaults"].verdict == ERROR and "signal 11" in got["segfaults"].reason


def test_the_rerun_of_a_timed_out_case_carries_the_timeout_even_when_it_was_the_default(monkeypatch):
    monkeypatch.setenv("SPECGEN_FAKE_HANG_OK", "1")
    cases = [case("hard_sigmoid", name="ok-before"), case("hard_sigmoid", dtype="float16", name="hangs")]
    runner = Runner(load_object("hang", "fake_adapters:HangsOrCrashes"), SPECS, compare=COMPARE, isolate=True)
    assert runner.timeout == 60.0
    runner.timeout = 1.0  # the --isolate default, shortened for the test
    got = {r.case_id.split("/")[-1]: r for r in runner.run(cases).results}
    assert got["hangs"].verdict == ERROR and got["hangs"].reason.startswith("timed out after 1 s")
    assert got["hangs"].rerun.endswith("--isolate --timeout 1")
    assert got["ok-before"].rerun.endswith("--isolate")
