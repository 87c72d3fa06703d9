"""The torch adapter's op mapping (specgen/adapters/torch_ops.yaml) without torch: a fake torch module
records which function the adapter calls with which arguments, so CI (where torch is not installed)
checks the data, its validation and the dispatch. tests/test_adapters_shipped.py runs real torch."""
from __future__ import annotations

import types

import ml_dtypes
import numpy as np
import pytest

from specgen.adapters import torch_ops
from specgen.adapters.base import Call, OutputInfo
from specgen.adapters.torch_adapter import TorchAdapter
from specgen.errors import SpecError
from specgen.spec.loader import load_all
from specgen.spec.schema import validate
from specgen.spec.yaml_source import read_document


@pytest.fixture(scope="module")
def specs():
    return load_all()


class FakeTensor:
    def __init__(self, a):
        self.a = np.asarray(a)

    @property
    def dtype(self):
        return self.a.dtype

    def view(self, dtype):
        return FakeTensor(self.a.view(dtype))

    def contiguous(self):
        return FakeTensor(np.ascontiguousarray(self.a))

    def numpy(self):
        return self.a

    def copy_(self, other):
        self.a[...] = other.a


def fake_torch(calls: list, missing=()):
    """A torch module whose functions record (path, argument arrays, keywords) and return x."""

    def function(path):
        def f(*args, **kwargs):
            calls.append((path, [a.a.copy() for a in args], kwargs))
            return FakeTensor(args[0].a.copy())
        return f

    functional = types.SimpleNamespace()
    torch = types.SimpleNamespace(__version__="0.0-fake", nn=types.SimpleNamespace(functional=functional),
                                  bfloat16=np.dtype(ml_dtypes.bfloat16), int16=np.dtype(np.int16),
                                  from_numpy=FakeTensor)
    doc = read_document(torch_ops.MAPPING)
    for item in doc.data["functions"]:
        if item["call"] in missing:
            continue
        *parents, name = item["call"].split(".")
        obj = torch
        for p in parents:
            if not hasattr(obj, p):
                setattr(obj, p, types.SimpleNamespace())  # torch.linalg
            obj = getattr(obj, p)
        setattr(obj, name, function(item["call"]))
    return torch


def make_call(spec, attributes, dtype="float32", inputs=None, standard="onnx"):
    x = np.array([[-2.0, -0.25, 0.0], [0.25, 1.0, 3.0]], dtype=np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else dtype)
    inputs = inputs or {spec.inputs[0].name: x}
    version = spec.standards[standard].versions[-1].version
    y = spec.outputs[0].name
    return Call(case_id="t", op=spec.id, standard=standard, version=version, dtype=dtype, kind="positive",
                inputs=inputs, outputs={y: OutputInfo(x.shape, dtype)}, out={y: np.zeros_like(x)},
                attributes=attributes, attributes_given=tuple(attributes), spec=spec)


def test_the_bundled_mapping_validates_and_every_present_op_is_claimed(specs):
    assert validate(read_document(torch_ops.MAPPING), "torch_ops") == []
    m = torch_ops.load(specs, torch=fake_torch([]))
    listed = {item["op"] for item in read_document(torch_ops.MAPPING).data["functions"]}
    assert {e.op for e in m.entries} == listed & set(specs)
    # an entry whose spec is not in specs/ yet is skipped with a note naming it and its line, and
    # becomes a claim as soon as the spec exists
    assert sorted(n.split(":")[0] for n in m.skipped) == sorted(listed - set(specs))
    assert all("torch_ops.yaml:" in n and "not claimed" in n for n in m.skipped)
    # torch functions for ops without a spec never reach the claims (verify_claims would refuse them)
    from specgen.adapters.registry import verify_claims

    claims = [e.claim() for e in m.entries]
    good, problems, _ = verify_claims("torch", claims, specs)
    assert problems == [] and len(good) == len(m.entries)
    assert set(m.absent) >= {"linear"}


def test_dispatch_picks_the_entry_by_attributes_and_passes_torchs_arguments(specs):
    calls = []
    adapter = TorchAdapter(torch_module=fake_torch(calls))
    adapter.__dict__["_specs"] = specs
    shrink = specs["shrink"]
    adapter.run(make_call(shrink, {"bias": 0.0, "threshold": 0.75}))
    adapter.run(make_call(shrink, {"bias": 0.75, "threshold": 0.75}))
    assert [(c[0], c[2]) for c in calls] == [("nn.functional.hardshrink", {"lambd": 0.75}),
                                           ("nn.functional.softshrink", {"lambd": 0.75})]
    # a value outside every entry is declined, with the mapping named
    from specgen.adapters.base import Unsupported

    with pytest.raises(Unsupported, match="torch_ops.yaml"):
        adapter.run(make_call(shrink, {"bias": 0.25, "threshold": 0.75}))
    calls.clear()
    adapter.run(make_call(specs["softplus"], {"steepness": 2.0}, standard="directml"))
    assert calls[0][0] == "nn.functional.softplus" and calls[0][2] == {"beta": 2.0, "threshold": 20.0}
    # bfloat16 crosses as int16 bits and comes back as bfloat16
    calls.clear()
    got = adapter.run(make_call(specs["softsign"], {}, dtype="bfloat16"))
    assert got.dtype == np.dtype(ml_dtypes.bfloat16) and calls[0][0] == "nn.functional.softsign"
    # the dtype picks the entry too: integer Div truncates (rounding_mode='trunc'), float Div does not
    calls.clear()
    div = specs["div"]
    for dtype in ("int32", "float32"):
        a = np.array([[7, -7, 3]], dtype=dtype)
        adapter.run(make_call(div, {}, dtype=dtype, inputs={"a": a, "b": np.full_like(a, 2)}))
    assert [c[2] for c in calls] == [{"rounding_mode": "trunc"}, {}]


def test_claims_pin_hardsigmoid_to_one_sixth_and_prelu_to_a_per_channel_slope(specs):
    adapter = TorchAdapter(torch_module=fake_torch([]))
    adapter.__dict__["_specs"] = specs
    hs = [c for c in adapter.claims() if c.op == "hard_sigmoid"]
    assert len(hs) == 1 and "float32(1/6)" in hs[0].note  # the claim's note says 1/6 is not the spec's alpha

    def case(attrs, shapes):
        return types.SimpleNamespace(op=hs[0].op, standard="onnx", version="22", kind="positive", dtype="float32",
                                     shapes=shapes, attributes=attrs, in_place=False, strides={})

    assert hs[0].unclaimed(case({"alpha": 1 / 6, "beta": 0.5}, {"x": [4]})) is None
    assert hs[0].unclaimed(case({"alpha": 0.2, "beta": 0.5}, {"x": [4]}))[0] == "unclaimed-attribute"
    pr = next(c for c in adapter.claims() if c.op == "prelu")
    pcase = lambda shapes: types.SimpleNamespace(op="prelu", standard="onnx", version="16", kind="positive",  # noqa: E731
                                                 dtype="float32", shapes=shapes, attributes={}, in_place=False,
                                                 strides={})
    assert pr.unclaimed(pcase({"x": [2, 3, 4], "slope": []})) is None
    assert pr.unclaimed(pcase({"x": [2, 3, 4], "slope": [3, 1]})) is None
    assert pr.unclaimed(pcase({"x": [2, 3, 4], "slope": [2, 3, 4]}))[0] == "unclaimed-shape"
    assert pr.unclaimed(pcase({"x": [2, 3, 4], "slope": [4]}))[0] == "unclaimed-shape"
    # and the slope reaches torch as the 1-D per-channel vector
    calls = []
    adapter = TorchAdapter(torch_module=fake_torch(calls))
    adapter.__dict__["_specs"] = specs
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 12
    slope = np.array([[0.5], [2.0], [-1.0]], dtype=np.float32)
    adapter.run(make_call(specs["prelu"], {}, inputs={"x": x, "slope": slope}))
    assert calls[0][0] == "nn.functional.prelu"
    np.testing.assert_array_equal(calls[0][1][1], [0.5, 2.0, -1.0])


def _broken(tmp_path, old, new):
    text = torch_ops.MAPPING.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "torch_ops.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("old,new,message", [
    ("      alpha: {values: [0.16666666666666666]}\n      beta: {values: [0.5]}\n    note: >-\n      hardsigmoid",
     "      alhpa: {values: [0.16666666666666666]}\n      beta: {values: [0.5]}\n    note: >-\n      hardsigmoid",
     "functions[0].attributes.alhpa: hard_sigmoid has no attribute 'alhpa'"),
    ("arguments: {alpha: alpha}\n    note: elu", "arguments: {}\n    note: elu",
     "attribute 'alpha' of elu is neither passed to torch (arguments) nor pinned"),
    ("    arguments: {beta: steepness, threshold: {value: 20}}", "    arguments: {beta: steep, threshold: {value: 20}}",
     "functions[6].arguments.beta: softplus has no attribute 'steep'"),
    ("      slope: {channel_of: x}", "      slope: {channel_of: input}", "functions[4].inputs.slope: prelu has no input 'input'"),
    ("    call: nn.functional.softsign", "    call: nn.functional.soft sign", "functions[1].call"),
    ("    call: nn.functional.softsign", "    cal: nn.functional.softsign", "functions[1]"),
])
def test_a_broken_mapping_names_file_line_and_field(specs, tmp_path, old, new, message):
    path = _broken(tmp_path, old, new)
    with pytest.raises(SpecError) as info:
        torch_ops.load(specs, path, fake_torch([]))
    text = str(info.value)
    assert f"{path}:" in text and message in text, text
    line = int(text.split(f"{path}:")[1].split(":")[0])
    assert line > 1


def test_a_function_torch_lacks_is_an_error_naming_it(specs):
    with pytest.raises(SpecError, match=r"torch 0.0-fake has no function torch.nn.functional.softsign"):
        torch_ops.load(specs, torch=fake_torch([], missing=("nn.functional.softsign",)))


def test_a_string_attribute_is_passed_through_the_value_map(specs, tmp_path):
    # GELU's approximate (erf | tanh; ONNX spells erf 'none', as torch does) on a spec stand-in, so that
    # the map is checked before the GELU spec is on this branch
    gelu = types.SimpleNamespace(id="gelu", name="Gelu", inputs=[types.SimpleNamespace(name="x")],
                                 attributes=[types.SimpleNamespace(name="approximate", values=("erf", "tanh"))],
                                 attribute_names=())
    m = torch_ops.load({**specs, "gelu": gelu}, torch=fake_torch([]))
    entry = next(e for e in m.entries if e.op == "gelu")
    assert entry.kwargs({"approximate": "erf"}) == {"approximate": "none"}
    assert entry.kwargs({"approximate": "tanh"}) == {"approximate": "tanh"}
    assert entry.kwargs({"approximate": "none"}) == {"approximate": "none"}  # ONNX's spelling is torch's
    with pytest.raises(KeyError, match="no torch value for approximate='exact'"):
        entry.kwargs({"approximate": "exact"})
    # a value the spec lists but the map lacks is an error naming the line
    path = _broken(tmp_path, "map: {erf: none, tanh: tanh}", "map: {erf: none}")
    with pytest.raises(SpecError, match=r"torch_ops.yaml:\d+:\d+: functions\[\d+\].arguments.approximate.map: "
                                        r"no torch value for approximate = 'tanh'"):
        torch_ops.load({**specs, "gelu": gelu}, path, fake_torch([]))


class FakeTorchAdapter(TorchAdapter):
    """The torch adapter on the fake torch module, loaded through the registry like any plugin."""

    requires = ()

    def __init__(self):
        super().__init__(torch_module=fake_torch([]))


def test_entries_without_a_spec_are_load_notes_of_the_adapter(specs):
    from specgen.adapters.registry import load_object

    loaded = load_object("torch-fake", "test_torch_ops:FakeTorchAdapter", specs=specs)
    listed = {item["op"] for item in read_document(torch_ops.MAPPING).data["functions"]}
    notes = [w for w in loaded.warnings if "not claimed, no spec" in w]
    assert sorted(n.split(":")[0] for n in notes) == sorted(listed - set(specs))
    assert {c.op for c in loaded.claims} == listed & set(specs)


# -- accumulating operators: the index engine's sets as arguments (framework_ops.prepare) ---------------

@pytest.fixture(scope="module")
def all_specs():
    from specgen.spec.operators import load_operators

    return load_operators()


def _acc_call(spec, standard, version, inputs, attributes, out_shape):
    y = spec.outputs[0]
    return Call(case_id="t", op=spec.id, standard=standard, version=version, dtype="float32", kind="positive",
                inputs=inputs, outputs={y: OutputInfo(out_shape, "float32")}, out={y: np.zeros(out_shape, np.float32)},
                attributes=attributes, attributes_given=tuple(attributes), spec=spec)


def _entry(all_specs, op):
    return torch_ops.load(all_specs).for_op(op)[0]


def test_a_set_argument_is_the_engines_resolved_axes(all_specs):
    spec = all_specs["reduce_sum"]
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    attrs = {"axes": [-1, 2, 0], "keepdims": 0, "noop_with_empty_axes": 0}  # negative, duplicate: taken once
    got = torch_ops.prepare(_entry(all_specs, "reduce_sum"), _acc_call(spec, "onnx", "11", {"x": x}, attrs, (3,)))
    assert got.set_kwargs == {"dim": (0, 2)} and got.reshaped
    assert _entry(all_specs, "reduce_sum").kwargs(attrs) == {"keepdim": False}  # a bool attribute as bool
    # an empty set (ONNX-13 noop_with_empty_axes) is a new unit axis, never the framework's empty dim
    noop = {"axes": [], "keepdims": 1, "noop_with_empty_axes": 1}
    got = torch_ops.prepare(_entry(all_specs, "reduce_sum"), _acc_call(spec, "onnx", "13", {"x": x}, noop, x.shape))
    assert got.set_kwargs == {"dim": (3,)} and got.args[0].shape == (2, 3, 4, 1)
    assert np.array_equal(got.finish(got.args[0].sum(axis=3, keepdims=True)), x)


def test_a_single_axis_argument_merges_a_tail_set_and_undoes_it(all_specs):
    spec = all_specs["softmax"]
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    entry = _entry(all_specs, "softmax")
    got = torch_ops.prepare(entry, _acc_call(spec, "onnx", "11", {"x": x}, {"axis": 1}, x.shape))  # axes 1 and 2
    assert got.set_kwargs == {"dim": 1} and got.args[0].shape == (2, 12)
    assert np.array_equal(got.finish(got.args[0]), x)
    got = torch_ops.prepare(entry, _acc_call(spec, "onnx", "13", {"x": x}, {"axis": 1}, x.shape))  # one axis: as is
    assert got.set_kwargs == {"dim": 1} and got.args[0].shape == (2, 3, 4)
    # axes that are not adjacent move to the end before they merge (a one-dim reduction)
    prod = all_specs["reduce_prod"]
    got = torch_ops.prepare(_entry(all_specs, "reduce_prod"),
                            _acc_call(prod, "onnx", "13", {"x": x}, {"axes": [0, 2], "keepdims": 1}, (1, 3, 1)))
    assert got.set_kwargs == {"dim": 1} and got.args[0].shape == (3, 8)
    assert np.array_equal(got.finish(got.args[0].prod(axis=1, keepdims=True)), x.prod(axis=(0, 2), keepdims=True))


def test_inputs_by_keyword_transposed_and_absent(all_specs):
    spec = all_specs["gemm"]
    a, b = np.ones((4, 3), np.float32), np.ones((4, 5), np.float32)
    attrs = {"alpha": 1.0, "beta": 1.0, "transA": 1, "transB": 0}
    got = torch_ops.prepare(_entry(all_specs, "gemm"), _acc_call(spec, "onnx", "13", {"a": a, "b": b}, attrs, (3, 5)))
    assert not got.args and got.tensor_kwargs["mat1"].shape == (3, 4) and got.tensor_kwargs["mat2"].shape == (4, 5)
    # the index space's absent: 0, over the dimensions c's labels name (m n: what addmm takes)
    assert got.tensor_kwargs["input"].shape == (3, 5) and not got.tensor_kwargs["input"].any()


def test_a_set_argument_of_an_operator_without_that_set_is_an_error(all_specs, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("backend: torch\ndtypes: [float32]\nfunctions:\n"
                    "  - op: reduce_sum\n    call: sum\n    arguments: {dim: {set: axis, of: x, as: axes}, keepdim: keepdims}\n"
                    "    note: n\n")
    with pytest.raises(SpecError, match=r"m.yaml:6:.*reduce_sum has no index set 'axis' \(its sets: axes\)"):
        torch_ops.load(all_specs, path)
