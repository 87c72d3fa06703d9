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


def _write(d: Path, model, ins, outs, data, names, case, rtol, atol) -> None:
    (d / "test_data_set_0").mkdir(parents=True, exist_ok=True)
    (d / "model.onnx").write_bytes(model.SerializeToString())
    for i, n in enumerate(ins):
        (d / "test_data_set_0" / f"input_{i}.pb").write_bytes(_tensor(data[n], names[n]).SerializeToString())
    for i, n in enumerate(outs):
        (d / "test_data_set_0" / f"output_{i}.pb").write_bytes(_tensor(data[n], names[n]).SerializeToString())
    (d / "data.json").write_text(json.dumps({"rtol": rtol, "atol": atol, "specgen_case": case.id,
                                             "specgen_tolerance": case.tolerance}, sort_keys=True) + "\n")


def accumulation_atol(spec, case, inputs: dict, output: str) -> float:
    """The widest distance from the golden value that the accumulation model accepts for this case
    (any summation order, any accumulation type the standard allows, every reading): one atol that
    admits every result the model does (and some it does not: an rtol/atol pair is per case, the
    model per element)."""
    from specgen.indexing.layout import resolve
    from specgen.indexing.run import expected, policy
    from specgen.numerics.accumulation import model_interval

    space = spec.index_space.for_version(case.standard, case.version)
    layout = resolve(space, spec.formula, {k: np.shape(v) for k, v in inputs.items()}, case.attributes, spec.outputs)
    golden = np.asarray(expected(spec, case, inputs)[0][output], dtype=np.float64)
    pol = policy(spec, case.standard, case.dtype)
    widest = 0.0
    with np.errstate(all="ignore"):
        for acc in pol.allowed:
            for formula in spec.formulas():
                lo, hi = model_interval(formula, layout, inputs, case.attributes, acc, case.dtype, output)
                reach = np.maximum(hi - golden, golden - lo)
                reach = reach[np.isfinite(reach) & np.isfinite(golden)]
                if reach.size:
                    widest = max(widest, float(np.max(reach)))
    return widest


def _accumulating(spec, case, data: dict):
    """The one-node model of an accumulating case (specgen.indexing.onnx_kernel, what the onnxruntime
    adapter runs), its tensor names and (rtol 0, atol: the accumulation model's widest bound)."""
    from specgen.indexing.onnx_kernel import model

    from onnx import helper

    inputs = {n: data[n] for n in spec.inputs if n in data}
    output, = spec.outputs
    m = model(spec, case, inputs)
    kind = m.graph.output[0].type.tensor_type.elem_type
    m.graph.output[0].CopyFrom(helper.make_tensor_value_info(output, kind, list(data[output].shape)))  # a checked model
    return m, list(inputs), [output], (0.0, accumulation_atol(spec, case, inputs, output))


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
        data = case.load()
        if getattr(spec, "index_space", None) is not None:  # an accumulating operator (specgen.indexing)
            model, ins, outs, (rtol, atol) = _accumulating(spec, case, data)
            _write(root / ("test_" + case_dir_name(case.id, taken)), model, ins, outs, data, {n: n for n in ins + outs},
                   case, rtol, atol)
            written += 1
            continue
        std = spec.standards["onnx"].at(case.version)  # the version's own spelling (Cast-1's STRING to)
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
        rtol, atol = TOLERANCE.get(case.dtype, (0.0, 0.0))
        _write(root / ("test_" + case_dir_name(case.id, taken)), model, ins, outs, data, names, case, rtol, atol)
        written += 1
    (Path(out) / "README.txt").write_text(
        "specgen corpus in ONNX's backend-test layout: onnx.backend.test.loader.load_model_tests(DIR, kind='specgen').\n"
        f"What this format cannot carry: {LOST['onnx']}\n")
    return {"written": written, "skipped": skipped}
