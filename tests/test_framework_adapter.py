"""The framework adapters' shared machinery (specgen.adapters.framework_adapter) on a fake framework:
claims probed per entry and dtype, the framework's error kept as the reason, the dispatch, the
flattened (padded 1-D) route, in-place results, and a mapping shared by two backends. The real
frameworks run in their gates (.ci/gates/*.sh) and tests/test_adapters_<name>.py."""
from __future__ import annotations

import types

import ml_dtypes
import numpy as np
import pytest

from specgen.adapters.base import Call, OutputInfo
from specgen.adapters.framework_adapter import FrameworkAdapter
from specgen.spec.loader import load_all

MAPPING = """\
backend: fakefw
dtypes: [float32, float16, bfloat16]
functions:
  - op: relu
    call: nn.relu
    note: max(x, 0).
  - op: elu
    call: nn.elu
    arguments: {alpha: alpha}
    note: elu(alpha).
absent:
  - op: linear
    reason: no such function.
"""


def fake_framework(seen: list):
    def relu(x):
        seen.append(("relu", x.shape, x.dtype))
        if x.dtype == np.dtype(ml_dtypes.bfloat16):
            raise TypeError("no bfloat16 kernel")
        return np.maximum(x, 0)

    def elu(x, alpha):
        seen.append(("elu", x.shape, alpha))
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))).astype(x.dtype)

    return types.SimpleNamespace(__version__="9.9", nn=types.SimpleNamespace(relu=relu, elu=elu))


class FakeAdapter(FrameworkAdapter):
    backend = "fakefw"

    def to_framework(self, arr, dtype):
        return np.array(arr)

    def to_numpy(self, value):
        return np.asarray(value)


@pytest.fixture(scope="module")
def specs():
    return load_all()


def adapter(specs, tmp_path, seen, **cls_attrs):
    path = tmp_path / "fakefw_ops.yaml"
    path.write_text(MAPPING)
    cls = type("Fake", (FakeAdapter,), cls_attrs)
    a = cls(module=fake_framework(seen), mapping_path=path)
    a.__dict__["_specs"] = specs
    return a


def call(spec, x, attributes=None, in_place=False):
    y = spec.outputs[0].name
    out = x if in_place else np.zeros_like(x)
    return Call(case_id="t", op=spec.id, standard="onnx", version=spec.standards["onnx"].versions[-1].version,
                dtype=np.dtype(x.dtype).name if x.dtype != np.dtype(ml_dtypes.bfloat16) else "bfloat16",
                kind="positive", inputs={spec.inputs[0].name: x}, outputs={y: OutputInfo(x.shape, "float32")},
                out={y: out}, attributes=attributes or {}, attributes_given=tuple(attributes or {}), spec=spec,
                in_place=in_place)


def test_claims_are_probed_and_a_failing_dtype_keeps_the_frameworks_error(specs, tmp_path):
    a = adapter(specs, tmp_path, [])
    claims = {c.op: c for c in a.claims()}
    assert claims["relu"].dtypes == ("float32", "float16") and claims["elu"].dtypes == ("float32", "float16", "bfloat16")
    assert not claims["relu"].rejects and claims["relu"].in_place and claims["relu"].note.startswith("fakefw.nn.relu: ")
    why = a.why_unclaimed("relu", "onnx", "14", "bfloat16")
    assert "fakefw.nn.relu on bfloat16" in why and "TypeError: no bfloat16 kernel" in why
    assert a.why_unclaimed("linear", "onnx", "1", "float32") == "fakefw: no such function."


def test_dispatch_passes_attributes_and_writes_in_place(specs, tmp_path):
    seen = []
    a = adapter(specs, tmp_path, seen)
    x = np.array([[-1.0, 0.5], [2.0, -3.0]], dtype=np.float32)
    got = a.run(call(specs["elu"], x, {"alpha": 0.5}))
    np.testing.assert_allclose(got, [[0.5 * np.expm1(-1.0), 0.5], [2.0, 0.5 * np.expm1(-3.0)]], rtol=1e-6)
    assert seen[-1] == ("elu", (2, 2), 0.5)
    assert a.run(call(specs["relu"], x, in_place=True)) is None
    np.testing.assert_array_equal(x, [[0, 0.5], [2, 0]])


def test_the_flattened_route_pads_to_a_power_of_two_and_keeps_the_shape(specs, tmp_path):
    seen = []
    a = adapter(specs, tmp_path, seen, flatten=True)
    for shape in [(), (3, 5, 7)]:
        x = (np.arange(int(np.prod(shape))) - 50).reshape(shape).astype(np.float32)
        got = a.run(call(specs["relu"], x))
        assert got.shape == shape and seen[-1][1] == ((64,) if shape == () else (128,))
        np.testing.assert_array_equal(got, np.maximum(x, 0))


def test_a_backend_can_use_another_backends_mapping(specs, tmp_path):
    (tmp_path / "fakefw_ops.yaml").write_text(MAPPING)
    cls = type("Other", (FakeAdapter,), {"backend": "other", "mapping_name": "fakefw"})
    import specgen.adapters.framework_ops as fo

    orig = fo.HERE
    try:
        fo.HERE = tmp_path
        a = cls(module=fake_framework([]))
    finally:
        fo.HERE = orig
    a.__dict__["_specs"] = specs
    assert {c.op for c in a.claims()} == {"relu", "elu"}
    assert a.why_unclaimed("relu", "onnx", "14", "bfloat16").startswith("other: fakefw.nn.relu on bfloat16")


@pytest.mark.parametrize("backend", ["torch", "jax", "tensorflow", "tinygrad"])
def test_each_shipped_mapping_loads_against_the_specs(specs, backend):
    # without the framework (CI's venv has none of them): the data is checked against the specs;
    # an operator is computed by some function or listed as absent, not both
    from specgen.adapters import framework_ops

    m = framework_ops.load(specs, framework_ops.mapping_path(backend))
    assert m.backend == backend and m.entries
    mapped = {e.op for e in m.entries}
    assert not mapped & set(m.absent), f"{backend}: both mapped and absent: {mapped & set(m.absent)}"
