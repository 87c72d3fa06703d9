"""One-node ONNX models for the adapters that run ONNX models (onnxruntime, onnx-reference,
openvino, iree). Needs ``onnx``."""
from __future__ import annotations

import numpy as np

DTYPE_TO_ONNX = {
    "float32": "FLOAT", "float16": "FLOAT16", "float64": "DOUBLE", "bfloat16": "BFLOAT16",
    "int8": "INT8", "int16": "INT16", "int32": "INT32", "int64": "INT64",
    "uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32", "uint64": "UINT64", "bool": "BOOL",
    "float8e4m3fn": "FLOAT8E4M3FN", "float8e4m3fnuz": "FLOAT8E4M3FNUZ", "float8e5m2": "FLOAT8E5M2",
    "float8e5m2fnuz": "FLOAT8E5M2FNUZ",
}
# the onnx value-info spelling of each (onnxruntime's NodeArg.type: "tensor(float8e4m3fn)") -> specgen's name
ONNX_TYPE_STRINGS = {f"tensor({v.lower()})": k for k, v in DTYPE_TO_ONNX.items()}


def float8_name(dtype) -> str | None:
    """specgen's name of an 8-bit float numpy dtype (ml_dtypes.float8_e4m3fn ...), else None."""
    from specgen.dtypes import DTYPES

    d = next((d for d in DTYPES.values() if d.numpy == np.dtype(dtype)), None)
    return d.name if d is not None and d.is_float and d.bits == 8 else None


def onnx_specs(specs: dict):
    """[(spec, OpStandard)] for every element-wise spec with an ``onnx`` block."""
    from specgen.spec.operators import elementwise

    return [(spec, spec.standards["onnx"]) for spec in elementwise(specs).values() if "onnx" in spec.standards]


def _attr_value(v):
    if isinstance(v, float):
        return float(np.float32(v))  # ONNX float attributes are float32
    return v


def scalar_of(value: float, dtype: str) -> np.ndarray:
    """A rank-0 tensor of ``dtype`` holding an attribute value passed as an input (ONNX Clip-11's min):
    rounded to nearest even for a float type, truncated towards zero and kept in range for an integer
    type (a bound beyond the type's range bounds nothing more than the type's limit does)."""
    from specgen.dtypes import get
    from specgen.spec.model import Version

    d = get(dtype)
    held = Version("", {}, as_inputs=("v",)).as_input_values({"v": float(value)}, dtype)["v"]
    if d.is_float:
        return np.asarray(np.float64(held)).astype(d.numpy)
    return np.asarray(int(held)).astype(d.numpy)


def build_model(operator: str, domain: str | None, opset: int, in_names, out_names, dtypes: dict[str, str],
                attributes: dict, shapes: dict | None = None, constants: dict | None = None):
    """A ModelProto with one node. ``dtypes``/``shapes`` by the standard's tensor names; shapes None:
    dynamic (one model serves every shape). ``constants``: input name -> array, inputs given as
    initializers (attributes a version takes as tensors); an empty name is an absent optional input."""
    from onnx import TensorProto, helper, numpy_helper

    def vi(name):
        elem = getattr(TensorProto, DTYPE_TO_ONNX[dtypes[name]])
        shape = None if shapes is None else list(shapes[name])
        return helper.make_tensor_value_info(name, elem, shape)

    from onnx import AttributeProto

    plain = {k: _attr_value(v) for k, v in sorted(attributes.items()) if not (isinstance(v, (list, tuple)) and not v)}
    node = helper.make_node(operator, list(in_names), list(out_names), **plain)
    for k, v in sorted(attributes.items()):  # an empty list has no inferable type: ONNX's list attributes here are ints
        if isinstance(v, (list, tuple)) and not v:
            node.attribute.append(helper.make_attribute(k, [], attr_type=AttributeProto.INTS))
    constants = constants or {}
    graph_inputs = [vi(n) for n in in_names if n and n not in constants]
    inits = [_initializer(n, a) for n, a in constants.items()]
    graph = helper.make_graph([node], f"specgen_{operator}", graph_inputs, [vi(n) for n in out_names],
                              initializer=inits)
    dom = "" if domain in (None, "ai.onnx") else domain
    opsets = [helper.make_opsetid(dom, int(opset))]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="specgen")
    try:
        model.ir_version = helper.find_min_ir_version_for(opsets)
    except Exception:  # pragma: no cover - very old onnx
        pass
    return model


def _initializer(name: str, arr: np.ndarray):
    from onnx import TensorProto, helper, numpy_helper

    if arr.dtype.name == "bfloat16":  # numpy_helper has no bfloat16: its bits, as onnx stores them
        return helper.make_tensor(name, TensorProto.BFLOAT16, list(arr.shape),
                                  arr.reshape(-1).view(np.uint16).tobytes(), raw=True)
    f8 = float8_name(arr.dtype)
    if f8 is not None:  # nor float8: its bytes, one per element, as onnx stores them
        return helper.make_tensor(name, getattr(TensorProto, DTYPE_TO_ONNX[f8]), list(arr.shape),
                                  np.ascontiguousarray(arr).reshape(-1).view(np.uint8).tobytes(), raw=True)
    return numpy_helper.from_array(arr, name)


def as_input_constants(call, std) -> tuple[list[str], dict, dict]:
    """(extra input names, their constants, the attributes left): the attributes the call's version
    takes as optional input tensors (``as_inputs``), given ones as rank-0 constants of the call's
    dtype, absent ones as empty names (trailing ones dropped)."""
    version = std.version(call.version)
    attrs = call.std_attributes(given_only=True)
    if not version.as_inputs:
        return [], {}, attrs
    names, consts = [], {}
    for attr in version.as_inputs:
        std_name = std.attributes[attr].name
        if std_name in attrs:
            value = attrs.pop(std_name)
            names.append(std_name)
            consts[std_name] = scalar_of(value, call.dtype)
        else:
            names.append("")
    while names and not names[-1]:
        names.pop()
    return names, consts, attrs


def ranked_shapes(names, rank: int) -> dict:
    """Shapes of the given rank with every dimension dynamic, for backends that need a static rank
    (OpenVINO's CPU plugin, IREE's compiler) yet should reuse one model for every shape of it."""
    return {n: [None] * rank for n in names}


def same_shapes(call) -> bool:
    """Every input and output has the same shape (no broadcasting): an elementwise call whose
    tensors can be flattened to 1-D without changing what is computed."""
    shapes = {tuple(a.shape) for a in call.inputs.values()} | {tuple(i.shape) for i in call.outputs.values()}
    return len(shapes) == 1


def model_for_call(call, concrete: bool = False, ranked: bool = False, flat: bool = False):
    """The one-node model of a Call (standard names, given attributes only). Shapes: dynamic rank
    (default), the call's rank with dynamic dimensions (``ranked``), the call's own (``concrete``)
    or 1-D with a dynamic size (``flat``, for a call whose tensors all have one shape)."""
    std = call.spec.standards[call.standard]
    names = call.std_tensors
    in_names = [names[n] for n in call.inputs]
    out_names = [names[n] for n in call.outputs]
    dtypes = {names[n]: _dtype_of(a) for n, a in call.inputs.items()}
    dtypes.update({names[n]: info.dtype for n, info in call.outputs.items()})
    shapes = None
    if concrete or ranked:
        shapes = {names[n]: list(a.shape) for n, a in call.inputs.items()}
        shapes.update({names[n]: list(info.shape) for n, info in call.outputs.items()})
        if ranked:
            shapes = {n: [None] * len(s) for n, s in shapes.items()}
    if flat:
        shapes = {n: [None] for n in in_names + out_names}
    extra, consts, attrs = as_input_constants(call, std)
    return build_model(std.operator, std.domain, int(call.version), in_names + extra, out_names, dtypes,
                       attrs, shapes, consts), in_names, out_names


def _dtype_of(arr) -> str:
    from specgen.dtypes import by_numpy

    return by_numpy(arr.dtype).name


def is_accumulating(call) -> bool:
    from specgen.spec.operators import ACCUMULATING, engine

    return engine(call.spec) == ACCUMULATING


def check_model_strict(model) -> str | None:
    """None when the model is valid for ONNX (full check with strict shape inference), else why."""
    import onnx

    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as exc:
        first = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {first[0] if first else ''}"
    return None


def probe_attributes(std, dtype: str) -> dict:
    """The attributes a probe call passes: none (the defaults), except where the default is not a value
    a call of this kind of tensor type accepts (ONNX Mod's fmod = 0 with floating-point inputs): there
    the first accepted value, in the standard's spelling."""
    from specgen.dtypes import get

    out = {}
    for b in std.attributes.values():
        if b.kind_values and b.name is not None and b.values:
            is_float = get(dtype).is_float
            if b.default is None or not b.accepts_for(b.default, is_float):
                accepted = [v for v in b.values if b.accepts_for(v, is_float)]
                if accepted:
                    out[b.name] = b.spell(accepted[0])
    return out


def get_dtype(name: str):
    from specgen.dtypes import get

    return get(name)


def sample_input(dtype: str) -> np.ndarray:
    from specgen.dtypes import get

    return np.array([[-1, 0, 1], [2, 3, 4]]).astype(get(dtype).numpy)


def probe_feeds(in_names: list[str], x: np.ndarray) -> dict[str, np.ndarray]:
    """A probe call's inputs by name: ``x`` first, the other inputs without a zero (an integer divisor
    of 0 has no value, and IREE's compiled integer division aborts the process on it: Div, Mod)."""
    other = np.where(x == 0, np.ones_like(x), x)
    return {n: (x if i == 0 else other) for i, n in enumerate(in_names)}


def call_key(call, ranked: bool = False, flat: bool = False) -> tuple:
    """Cache key of a one-node model: op, opset, dtype and the attributes the call passes (and the
    ranks, for a ``ranked`` model; "flat" for a ``flat`` one)."""
    return (call.op, call.version, call.dtype,
            tuple(_dtype_of(a) for a in call.inputs.values()) + tuple(i.dtype for i in call.outputs.values()),
            tuple(sorted((k, repr(v)) for k, v in call.std_attributes(True).items())),
            "flat" if flat else tuple(a.ndim for a in call.inputs.values()) if ranked else None)


class ProbedOnnxClaims:
    """Claims for ONNX backends: each (op, opset, dtype) the specs list is tried once on a tiny
    input; what does not build, run, or keep its dtype stays unclaimed with the backend's error.

    Subclasses give ``_probe_once(model, feeds) -> first output array`` (feeds by the standard's
    input names) and ``_probe_error(exc) -> str``
    and set ``self._claims = None`` and ``self._unclaimed = {}`` in ``__init__``. A backend whose ``run``
    builds its models with ``model_and_names`` sets ``accumulating = True`` and is probed on the
    accumulating operators too. A backend that needs a static rank sets ``probe_rank`` (the sample input's rank, 2) to build ranked models.
    """

    probe_rank: int | None = None
    # runs the accumulating operators' models too (model_and_names / model_key in run, accepts_dense_model)
    accumulating: bool = False

    def claims(self):
        from specgen.adapters.base import Claim

        if self._claims is not None:
            return self._claims
        claims = []
        from specgen.generate.corpus import case_dtypes, tensor_dtype

        for spec, std in onnx_specs(self.specs):
            in_names = [std.tensors[t.name].name for t in spec.inputs]
            out_names = [std.tensors[t.name].name for t in spec.outputs]
            for v in std.versions:
                std_v = std.at(v.version)  # the block as this version spells it (Cast-1's STRING to)
                works = []
                for dtype in case_dtypes(v, [t.name for t in spec.inputs]):
                    # each tensor's dtype in a case of this dtype (a comparison's output: bool)
                    tdt = {std_v.tensors[t.name].name: tensor_dtype(v, t.name, dtype) for t in spec.inputs + spec.outputs}
                    attrs = probe_attributes(std_v, dtype)
                    for t in spec.outputs:  # an output type an attribute names (Cast's to): the input's, else the first
                        if t.dtype_from is not None:
                            listed = v.dtypes(t.name)
                            chosen = dtype if dtype in listed else listed[0]
                            tdt[std_v.tensors[t.name].name] = chosen
                            attrs[std_v.attributes[t.dtype_from].name] = std_v.attributes[t.dtype_from].spell(chosen)
                    shapes = None if self.probe_rank is None else ranked_shapes(in_names + out_names, self.probe_rank)
                    model = build_model(std_v.operator, std_v.domain, int(v.version), in_names, out_names,
                                        tdt, attrs, shapes)
                    try:
                        feeds = {n: sample_input(tdt[n]) for n in in_names}
                        x = feeds[in_names[0]]
                        with np.errstate(all="ignore"):
                            out = np.asarray(self._probe_once(model, probe_feeds(in_names, x) if len(set(tdt.values())) == 1
                                                              else feeds))
                        want = get_dtype(tdt[out_names[0]]).numpy
                        if out.dtype != want:
                            raise TypeError(f"returned {out.dtype} for {x.dtype} input")
                        works.append(dtype)
                    except Exception as exc:
                        self._unclaimed[(spec.id, "onnx", v.version, dtype)] = self._probe_error(exc)
                if works:
                    claims.append(Claim(op=spec.id, standard="onnx", versions=(v.version,), dtypes=tuple(works),
                                        rejects=True, attributes=self._output_type_rules(spec, std_v, v, works)))
        for spec, std in accumulating_specs(self.specs) if self.accumulating else ():
            for v in std.versions:
                works = []
                for dtype, case, feeds in accumulating_probe_cases(spec, v):
                    try:
                        from specgen.indexing.onnx_kernel import model

                        with np.errstate(all="ignore"):
                            out = np.asarray(self._probe_once(model(spec, case, feeds, dynamic=True), feeds))
                        if out.dtype != next(iter(feeds.values())).dtype:
                            raise TypeError(f"returned {out.dtype} for {dtype} input")
                        works.append(dtype)
                    except Exception as exc:
                        self._unclaimed[(spec.id, "onnx", v.version, dtype)] = self._probe_error(exc)
                if works:
                    claims.append(Claim(op=spec.id, standard="onnx", versions=(v.version,), dtypes=tuple(works),
                                        rejects=True))
        self._claims = claims
        return claims

    def why_unclaimed(self, op, standard, version, dtype):
        return self._unclaimed.get((op, standard, str(version), dtype))

    def _output_type_rules(self, spec, std, v, works: list[str]) -> dict:
        """Claim rules for an output type an attribute names (Cast's to): each type the version lists is
        probed once, from a claimed input type (float32 where claimed); the types that do not build, run
        or come back as themselves (onnxruntime's Python binding returns no bfloat16 array) are left
        out of the claim with Values(...) of the others."""
        from specgen.adapters.base import Values

        rules = {}
        in_names = [std.tensors[t.name].name for t in spec.inputs]
        for t in spec.outputs:
            if t.dtype_from is None:
                continue
            b = std.attributes[t.dtype_from]
            src = "float32" if "float32" in works else works[0]
            ok = []
            for target in v.dtypes(t.name):
                tdt = {**{n: src for n in in_names}, std.tensors[t.name].name: target}
                model = build_model(std.operator, std.domain, int(v.version), in_names, [std.tensors[t.name].name],
                                    tdt, {b.name: b.spell(target)},
                                    None if self.probe_rank is None else ranked_shapes(list(tdt), self.probe_rank))
                try:
                    with np.errstate(all="ignore"):
                        out = np.asarray(self._probe_once(model, {n: sample_input(src) for n in in_names}))
                    if out.dtype == get_dtype(target).numpy:
                        ok.append(target)
                    else:
                        self._unclaimed[(spec.id, "onnx", v.version, f"{t.dtype_from}={target}")] = \
                            f"returned {out.dtype} for {t.dtype_from}={target}"
                except Exception as exc:
                    self._unclaimed[(spec.id, "onnx", v.version, f"{t.dtype_from}={target}")] = self._probe_error(exc)
            if len(ok) < len(v.dtypes(t.name)):
                rules[t.dtype_from] = Values(*ok)
        return rules


def accepts_dense_model(call, build):
    """``Adapter.accepts`` of a backend that runs one-node ONNX models: False where the call has
    strides (ONNX tensors are dense), where onnx's strict checker refuses its model, or where
    ``build(model)`` (the backend's session, compile, ...) raises; else None (run it and see)."""
    if any(s is not None for s in call.strides.values()):
        return False
    if is_accumulating(call):
        model = accumulating_model(call, concrete=True)
    else:
        model, _, _ = model_for_call(call, concrete=True)
    if check_model_strict(model) is not None:
        return False
    try:
        build(model)
    except Exception:
        return False
    return None


# ----------------------------------------------------------------------------- accumulating operators
# Their one-node models come from the spec's ONNX block through specgen.indexing.onnx_kernel: the
# version's attributes, those it takes as input tensors (ReduceSum-13's axes: an int64 initializer).

def accumulating_specs(specs: dict):
    from specgen.spec.operators import accumulating

    return [(spec, spec.standards["onnx"]) for spec in accumulating(specs).values() if "onnx" in spec.standards]


def accumulating_model(call, concrete: bool = False):
    from specgen.indexing.onnx_kernel import model

    return model(call.spec, call, call.inputs, dynamic=not concrete)


def model_and_names(call):
    """(model with dynamic shapes, its input names, its output names) of an element-wise or an
    accumulating call; the names pair with call.inputs / call.outputs in order."""
    if is_accumulating(call):
        return accumulating_model(call), list(call.inputs), list(call.outputs)
    return model_for_call(call)


def model_key(call) -> tuple:
    return accumulating_key(call) if is_accumulating(call) else call_key(call)


def accumulating_key(call) -> tuple:
    return (call.op, call.version, call.dtype, tuple(sorted((k, repr(v)) for k, v in call.attributes.items())),
            tuple(sorted(call.inputs)))


def accumulating_probe_cases(spec, version):
    """(dtype, a small legal design case, its inputs) for each dtype the version lists."""
    from specgen.indexing.design import cases

    for dtype in version.dtypes():
        case = next(c for c in cases(spec, "onnx", version.version, dtype, structure=False, lengths=(3,))
                    if c.kind == "positive")
        yield dtype, case, case.inputs(spec)
