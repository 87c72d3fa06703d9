"""The corpus in ONNX's backend-test layout (see specgen.exports)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from specgen.exports import LOST, case_dir_name

KIND = "specgen"  # load_model_tests(DIR, kind="specgen")
# rtol/atol per output dtype: the nearest an (rtol, atol) pair comes to the error model's bounds
TOLERANCE = {"float64": (1e-12, 1e-300), "float32": (1e-6, 1e-7), "float16": (1e-3, 1e-5), "bfloat16": (1e-2, 1e-5)}


def _tensor(arr: np.ndarray, name: str):
    from onnx import numpy_helper

    return numpy_helper.from_array(np.require(arr, requirements="C"), name)  # 0-d stays 0-d


def export(cases, specs: dict, out: Path) -> dict:
    """Write every exportable case under ``out/specgen/``; returns {"written": n, "skipped": {why: n}}."""
    from specgen.adapters.onnx_common import build_model

    root = Path(out) / KIND
    root.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    skipped: dict[str, int] = {}
    written = 0
    for case in cases:
        why = None
        if case.standard != "onnx":
            why = f"standard {case.standard} has no ONNX model"
        elif case.kind != "positive":
            why = "must-reject case (backend tests have none)"
        elif case.in_place or any(s is not None for s in (case.strides or {}).values()):
            why = "strided or in-place (ONNX tensors are dense and never alias)"
        if why:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        spec = specs[case.op]
        std = spec.standards["onnx"]
        data = case.load()
        ins = [t.name for t in spec.inputs]
        outs = [t.name for t in spec.outputs]
        names = {n: std.tensors[n].name if n in std.tensors else n for n in ins + outs}
        # ONNX's names and, for a string attribute, ONNX's spelling of the value (approximate erf -> 'none')
        attrs = {std.attributes[a].name if a in std.attributes else a:
                 std.attributes[a].spell(v) if a in std.attributes else v
                 for a, v in case.attributes.items() if a in case.attributes_given}
        model = build_model(std.operator, std.domain, int(case.version), [names[n] for n in ins],
                            [names[n] for n in outs], {names[n]: case.dtypes[n] for n in ins + outs}, attrs,
                            {names[n]: list(case.shapes[n]) for n in ins + outs})
        d = root / ("test_" + case_dir_name(case.id, taken))
        (d / "test_data_set_0").mkdir(parents=True, exist_ok=True)
        (d / "model.onnx").write_bytes(model.SerializeToString())
        for i, n in enumerate(ins):
            (d / "test_data_set_0" / f"input_{i}.pb").write_bytes(_tensor(data[n], names[n]).SerializeToString())
        for i, n in enumerate(outs):
            (d / "test_data_set_0" / f"output_{i}.pb").write_bytes(_tensor(data[n], names[n]).SerializeToString())
        rtol, atol = TOLERANCE.get(case.dtype, (0.0, 0.0))
        (d / "data.json").write_text(json.dumps({"rtol": rtol, "atol": atol, "specgen_case": case.id,
                                                 "specgen_tolerance": case.tolerance}, sort_keys=True) + "\n")
        written += 1
    (Path(out) / "README.txt").write_text(
        "specgen corpus in ONNX's backend-test layout: onnx.backend.test.loader.load_model_tests(DIR, kind='specgen').\n"
        f"What this format cannot carry: {LOST['onnx']}\n")
    return {"written": written, "skipped": skipped}
