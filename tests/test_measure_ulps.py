"""tools/measure_ulps.py on a tiny sample: the distribution it reports is the backend's, a kernel 4 ULP
off is reported as such and outside the bound, and the table lands between the markers of
docs/error-model.md. The full measurement (seconds per op) is not part of the test run."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from specgen.adapters.base import Adapter, Claim
from specgen.formula.numpy_eval import evaluate
from specgen.numerics import ulp as U

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("measure_ulps", ROOT / "tools" / "measure_ulps.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["measure_ulps"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class OffByFour(Adapter):
    """Softsign in float64, rounded once, then moved 4 ULP up: wrong everywhere but at NaN/inf."""

    description = "fake: softsign 4 ULP off"

    def claims(self):
        return [Claim(op="softsign", dtypes=("float16", "float32"))]

    def run(self, call):
        x = call.x
        with np.errstate(all="ignore"):
            y = np.asarray(evaluate(call.spec.formula, {"x": x.astype(np.float64)})).astype(x.dtype)
        return U.step(y, 4, call.dtype)


class Exact(OffByFour):
    description = "fake: softsign correctly rounded"

    def run(self, call):
        x = call.x
        with np.errstate(all="ignore"):
            return np.asarray(evaluate(call.spec.formula, {"x": x.astype(np.float64)})).astype(x.dtype)


@pytest.fixture(scope="module")
def tool():
    return _tool()


def test_measures_the_distribution_and_the_share_outside_the_bound(tool):
    rows, info = tool.run(ops=["softsign"], adapters=("test_measure_ulps:OffByFour", "test_measure_ulps:Exact"),
                          dtypes=("float32",), float32_samples=4096)
    by = {r.adapter: r for r in rows}
    off, exact = by["test_measure_ulps:OffByFour"], by["test_measure_ulps:Exact"]
    assert off.status == exact.status == "measured"
    # 8 values in each of the 512 (sign, exponent) strata; the two all-ones exponents (NaN, inf) left out
    assert off.elements == 4096 and off.finite == 4096 - 2 * 8
    assert exact.max_ulp == 0 and exact.exact_share == 1 and exact.outside == 0
    assert off.max_ulp == 4 and off.p99_ulp == 4 and off.exact_share == 0
    assert off.outside > 0.99 * off.finite and off.kinds.get("value")
    assert off.worst_input.startswith("x = ") and off.worst_got and off.worst_expected
    # the bound's power, the same for every backend: Softsign's model rejects 4 ULP off everywhere
    assert off.bound_power == exact.bound_power and off.bound_power[1:] == (1.0, 1.0)
    table = tool.markdown(rows, info)
    assert ("| softsign | default | float32 | model (float32 intermediates); WebNN tests: 3 ULP — accepts 0 ULP (median), "
            "catches ±4 ULP at 100% / 100% | test_measure_ulps:OffByFour | 4 | 4 | 4 | 0 |") in table
    # an op the backend does not claim is a row that says so
    rows, _ = tool.run(ops=["elu"], adapters=("test_measure_ulps:Exact",), dtypes=("float32",), float32_samples=1024)
    assert rows and all(r.status.startswith("not claimed") for r in rows)


def test_the_table_goes_between_the_markers_of_error_model_md(tool, tmp_path):
    doc = (ROOT / "docs" / "error-model.md").read_text(encoding="utf-8")
    assert tool.BEGIN in doc and tool.END in doc
    path = tmp_path / "error-model.md"
    path.write_text(doc, encoding="utf-8")
    tool.write_doc(path, "| new table |\n")
    text = path.read_text(encoding="utf-8")
    assert text.split(tool.BEGIN)[0] == doc.split(tool.BEGIN)[0]
    assert text.split(tool.END)[1] == doc.split(tool.END)[1]
    assert f"{tool.BEGIN}\n| new table |\n{tool.END}" in text
