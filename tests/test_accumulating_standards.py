"""The index engine's capabilities the WebNN, DirectML and oneDNN Graph blocks of the accumulating
specs need (issue 21 item 6): tensors shaped by an axes set in the attribute's order (dims_of), set
defaults "from K" and "required", an empty list left unspecified, sets only one standard declares, and
the torch mapping's "over" inputs. No test names an operator's behaviour beyond its spec."""
from __future__ import annotations

import numpy as np
import pytest

from specgen.indexing.design import cases
from specgen.indexing.golden import golden
from specgen.indexing.layout import ShapeViolation, resolve
from specgen.indexing.space import IndexSpaceError, parse_index_space
from specgen.indexing.spec import load_all

SPECS = load_all()
WEBNN = "2026-06-26"


def _layout(op, standard, version, shapes, attrs):
    spec = SPECS[op]
    space = spec.index_space.for_version(standard, version)
    return resolve(space, spec.formula, shapes, {**spec.defaults(standard), **attrs}, spec.outputs)


def _norm(x, axes, scale, bias, eps):
    mean = x.mean(axis=tuple(axes), keepdims=True)
    var = ((x - mean) ** 2).mean(axis=tuple(axes), keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * scale + bias


# ------------------------------------------------------------------------------------ dims_of

def test_dims_of_follows_the_axes_in_the_order_given():
    layout = _layout("layer_normalization", "webnn", WEBNN, {"x": [2, 3, 4], "scale": [4, 2], "bias": [4, 2]}, {"axes": [2, 0]})
    assert layout.sets["axes"] == ("…2"[:0] + layout.tensors["x"][2], layout.tensors["x"][0])
    assert layout.tensors["scale"] == layout.sets["axes"]
    with pytest.raises(ShapeViolation, match=r"scale: shape \[2, 4\]; expected \[4, 2\]"):
        _layout("layer_normalization", "webnn", WEBNN, {"x": [2, 3, 4], "scale": [2, 4]}, {"axes": [2, 0]})


def test_dims_of_golden_value_is_the_normalisation_over_those_axes():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 4))
    scale, bias = rng.uniform(0.5, 2, (4, 2)), rng.uniform(-1, 1, (4, 2))
    eps = SPECS["layer_normalization"].attributes["epsilon"].default
    attrs = {"axes": [2, 0], "epsilon": eps}
    layout = _layout("layer_normalization", "webnn", WEBNN, {"x": x.shape, "scale": scale.shape, "bias": bias.shape}, attrs)
    y, _ = golden(SPECS["layer_normalization"].formula, layout, {"x": x, "scale": scale, "bias": bias}, attrs, "float64", "y")
    want = _norm(x, (0, 2), scale.T[:, None, :], bias.T[:, None, :], eps)
    assert np.allclose(y, want, rtol=1e-12, atol=1e-12)


def test_default_from_k_and_an_empty_list():
    # WebNN: "treated as if all dimensions except the first were given"; "If empty, no dimensions are reduced"
    layout = _layout("layer_normalization", "webnn", WEBNN, {"x": [2, 3, 4]}, {})
    assert layout.sets["axes"] == layout.tensors["x"][1:]
    assert _layout("layer_normalization", "webnn", WEBNN, {"x": [5]}, {}).sets["axes"] == ()
    empty = _layout("layer_normalization", "webnn", WEBNN, {"x": [2, 3], "scale": [], "bias": []}, {"axes": []})
    assert empty.count("axes") == 1


def test_default_required_is_a_must_reject():
    with pytest.raises(ShapeViolation, match="axes: required"):
        _layout("layer_normalization", "directml", "5_2", {"x": [2, 3]}, {})


def test_a_set_only_one_standard_declares():
    # WebNN batchNormalization's axis option: mean/variance/scale/bias follow « input.shape[axis] »
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4))
    mean, var = rng.standard_normal(4), rng.uniform(0.5, 2, 4)
    attrs = {"axis": 2, "epsilon": 1e-3}
    layout = _layout("batch_normalization", "webnn", WEBNN, {"x": x.shape, "mean": [4], "var": [4]}, attrs)
    assert layout.absent == {"scale": 1.0, "bias": 0.0}
    y, _ = golden(SPECS["batch_normalization"].formula, layout, {"x": x, "mean": mean, "var": var}, attrs, "float64", "y")
    assert np.allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-12)
    with pytest.raises(ShapeViolation, match=r"mean: shape \[3\]; expected \[4\]"):
        _layout("batch_normalization", "webnn", WEBNN, {"x": [2, 3, 4], "mean": [3], "var": [4]}, attrs)
    # ONNX keeps its "n c ..." labels and has no such attribute
    assert "channel" not in SPECS["batch_normalization"].index_space.sets


def test_directml_softmax_normalises_over_every_listed_axis():
    x = np.random.default_rng(5).standard_normal((2, 3, 4))
    layout = _layout("softmax", "directml", "5_1", {"x": x.shape}, {"axes": [2, 0]})
    y, _ = golden(SPECS["softmax"].formula, layout, {"x": x}, {"axes": [2, 0]}, "float64", "y")
    assert np.allclose(y.sum(axis=(0, 2)), 1.0)


def test_directml_gemm_c_has_the_output_sizes():
    assert _layout("gemm", "directml", "4_0", {"a": [3, 4], "b": [4, 5], "c": [3, 5]}, {}).outputs["y"][1] == (3, 5)
    with pytest.raises(ShapeViolation):
        _layout("gemm", "directml", "4_0", {"a": [3, 4], "b": [4, 5], "c": [1, 5]}, {})
    _layout("gemm", "onnx", "13", {"a": [3, 4], "b": [4, 5], "c": [1, 5]}, {})  # ONNX broadcasts it


# ------------------------------------------------------------------------------------ designed cases

def test_designed_cases_respect_unspecified_choices():
    # DirectML: AxisCount = 0 unspecified, no default (a required field): no empty-list case, no default case
    dml = cases(SPECS["softmax"], "directml", "5_1", "float32")
    assert dml and not any("axes-/" in c.id or "axes-default" in c.id for c in dml)
    # ONNX Softmax-1 says nothing of negative axes: no case either way
    assert not any("/axis-" in c.id or "negative" in c.id for c in cases(SPECS["softmax"], "onnx", "1", "float32"))
    assert any("/axis-1" in c.id for c in cases(SPECS["softmax"], "onnx", "11", "float32"))


def test_designed_dims_of_cases_spell_the_axes_in_both_orders():
    got = {c.id.split("/", 3)[3]: c for c in cases(SPECS["layer_normalization"], "webnn", WEBNN, "float32")}
    assert got["rank3/axes20/keep"].shapes["scale"] == [4, 2] and got["rank3/axes02/keep"].shapes["scale"] == [2, 4]
    reject = got["rank3/axes20/reject-order"]
    assert reject.kind == "negative" and "scale: shape [2, 4]; expected [4, 2]" in reject.violations[0]


def test_an_optional_input_gets_a_case_without_it_where_the_version_allows_it():
    ids = lambda op, std, v: {c.id.split("/", 3)[3]: c for c in cases(SPECS[op], std, v, "float32")}  # noqa: E731
    webnn = ids("layer_normalization", "webnn", WEBNN)
    assert webnn["length8/without_scale"].shapes["scale"] is None and webnn["length8/without_scale"].shapes["bias"] == [8]
    assert "k8/without_c" in ids("gemm", "onnx", "11") and "k8/without_c" not in ids("gemm", "onnx", "9")
    with pytest.raises(ShapeViolation, match="c: a required input is missing"):
        _layout("gemm", "onnx", "9", {"a": [3, 4], "b": [4, 5]}, {})
    assert "length8/without_bias" not in ids("layer_normalization", "onednn", "current")  # use_affine: both or none


# ------------------------------------------------------------------------------------ format errors

@pytest.mark.parametrize("raw, message", [
    ({"tensors": {"x": {"dims": "..."}, "s": {"dims_of": "k"}}, "sets": {"k": {"labels": ["..."]}}}, "is not an axes set"),
    ({"tensors": {"x": {"dims": "..."}, "s": {"dims_of": "a", "broadcast": "unidirectional"}},
      "sets": {"a": {"axes_of": "x", "given_by": "axes"}}}, "no broadcast"),
    ({"tensors": {"x": {"dims": "..."}}, "sets": {"a": {"axes_of": "x", "given_by": "axes", "default": "from x"}}}, "allowed: all, none, required"),
    ({"tensors": {"x": {"dims": "..."}}, "sets": {"a": {"axes_of": "x", "given_by": "axes", "empty": "maybe"}}}, "allowed: all, none, unspecified"),
])
def test_malformed_index_spaces_name_the_key(raw, message):
    with pytest.raises(IndexSpaceError, match=message):
        parse_index_space(raw)


# ------------------------------------------------------------------------------------ torch mapping

def test_torch_layer_norm_takes_axes_in_any_order_and_scale_of_any_standard():
    torch = pytest.importorskip("torch")
    from specgen.adapters import torch_ops
    from specgen.adapters.base import Call, OutputInfo
    from specgen.spec.operators import load_operators

    spec = SPECS["layer_normalization"]
    entry = torch_ops.load(load_operators()).for_op("layer_normalization")[0]
    assert entry.over == {"scale": "axes", "bias": "axes"}
    rng = np.random.default_rng(11)
    eps = float(np.float32(1e-5))
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    for standard, version, attrs, scale, axes in (
        ("webnn", WEBNN, {"axes": [2, 0]}, rng.uniform(0.5, 2, (4, 2)).astype(np.float32), (0, 2)),   # scale [d2, d0]
        ("webnn", WEBNN, {"axes": []}, np.ones((), np.float32), ()),                                  # y = bias (0)
        ("directml", "5_2", {"axes": [1]}, rng.uniform(0.5, 2, (1, 3, 1)).astype(np.float32), (1,)),  # x's rank
        ("onednn", "current", {"axis": -2}, rng.uniform(0.5, 2, (4,)).astype(np.float32), (1, 2)),    # 1-D gamma
    ):
        attributes = {**spec.defaults(standard), **attrs, "epsilon": eps}
        given = {"x": x, "scale": scale, **({"bias": np.zeros_like(scale)} if standard == "onednn" else {})}
        call = Call(case_id="t", op=spec.id, standard=standard, version=version, dtype="float32", kind="positive",
                    inputs=given, outputs={"y": OutputInfo(x.shape, "float32")},
                    out={"y": np.zeros(x.shape, np.float32)}, attributes=attributes,
                    attributes_given=tuple(attributes), spec=spec)
        prepared = torch_ops.prepare(entry, call)
        kwargs = {k: torch.from_numpy(np.array(v)) for k, v in prepared.tensor_kwargs.items()}
        y = torch.nn.functional.layer_norm(*(torch.from_numpy(np.array(a)) for a in prepared.args),
                                           prepared.set_kwargs["normalized_shape"], eps=eps, **kwargs)
        got = prepared.finish(y.numpy())
        if axes:
            s = scale.T[:, None, :] if standard == "webnn" else scale
            want = _norm(x.astype(np.float64), axes, s, 0.0, eps)
        else:
            want = np.zeros_like(x)
        assert np.allclose(got, want, atol=1e-5), (standard, attrs)
