"""The one-node ONNX model of an accumulating case, from the spec's ONNX block (the operator, the
version's attributes, the attributes it takes as inputs): what the onnxruntime and onnx-reference
adapters run (specgen.adapters.onnx_common). No operator is named here: everything comes from the spec."""
from __future__ import annotations

import numpy as np

from specgen.indexing.spec import AccSpec

_ONNX_TYPES = {"float16": 10, "float32": 1, "float64": 11, "bfloat16": 16}


def model(spec: AccSpec, case, inputs: dict, dynamic: bool = False):
    """The one-node model of ``case`` (anything with version, dtype and attributes: a design case, an
    adapter's Call). ``dynamic``: inputs of unknown shape (one model serves every shape)."""
    from onnx import TensorProto, helper, numpy_helper

    std = spec.standards["onnx"]
    version = next(v for v in std.versions if v.version == case.version)
    names, initializers, infos = [], [], []
    for name in spec.inputs:
        if name in inputs:
            names.append(name)
            infos.append(helper.make_tensor_value_info(name, _ONNX_TYPES[case.dtype],
                                                       None if dynamic else list(inputs[name].shape)))
        else:
            names.append("")  # an omitted optional input
    for name in version.as_inputs:
        value = case.attributes.get(name)
        if value is None:
            names.append("")
        else:
            initializers.append(numpy_helper.from_array(np.asarray(value, dtype=np.int64).reshape(-1), name))
            names.append(name)
    while names and names[-1] == "":
        names.pop()
    attrs = {}
    for name in version.attributes:
        if name in version.as_inputs or case.attributes.get(name) is None:
            continue
        value = case.attributes[name]
        kind = spec.attributes[name].type
        if kind == "axes" and len(value) == 0:
            continue  # an empty ints attribute has no type in the model; absent means the same (all axes)
        attrs[name] = ([int(v) for v in value] if kind == "axes" else int(value) if kind in ("axis", "bool")
                       else float(value))
    node = helper.make_node(std.operator, names, list(spec.outputs), **attrs)
    outputs = [helper.make_tensor_value_info(o, _ONNX_TYPES[case.dtype], None) for o in spec.outputs]
    graph = helper.make_graph([node], "case", infos, outputs, initializer=initializers)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", int(case.version))])
    m.ir_version = 8
    return m
