"""The ``torch`` adapter: torch functions, only where their semantics are a subset of a spec.

Which function computes which operator, for which attribute values and with which deviations, is
data: specgen/adapters/torch_ops.yaml (read and checked by specgen.adapters.torch_ops; why the
mapping is the adapter's and not the specs', docs/runner.md "The torch op mapping"). This module
only turns a call into torch tensors, calls the entry the mapping picks and turns the result back;
an accumulating operator's axes come from its index space as the spec's engine resolves it for the
case (specgen.adapters.framework_ops.prepare), never from code that names an operator.

All standards are claimed (the formula is the same in each); attribute limits pick the cases.
torch applies no standard's validity rules, so no must-reject cases are claimed.
"""
from __future__ import annotations

from specgen.adapters import torch_ops
from specgen.adapters.base import Adapter, Unsupported


# the float8 types torch and ml_dtypes both name this way (torch.float8_e4m3fn, ml_dtypes.float8_e4m3fn)
_FLOAT8 = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")


class TorchAdapter(Adapter):
    description = "PyTorch CPU: torch functions as subsets of the specs (mapping: specgen/adapters/torch_ops.yaml)"
    requires = ("torch",)
    extra = "torch"

    def __init__(self, torch_module=None, mapping_path=None):
        if torch_module is None:
            import torch as torch_module
        self._torch = torch_module
        self._path = mapping_path or torch_ops.MAPPING
        self._mapping = None

    @property
    def mapping(self) -> torch_ops.OpMapping:
        """The checked mapping (without torch, e.g. on an instance made without __init__, the
        functions are not looked up)."""
        got = self.__dict__.get("_mapping")
        if got is None:
            got = self.__dict__["_mapping"] = torch_ops.load(self.specs, self.__dict__.get("_path", torch_ops.MAPPING),
                                                             self.__dict__.get("_torch"))
        return got

    @property
    def skipped(self) -> list[str]:
        """Entries of the mapping whose spec is not in specs/ (yet)."""
        return self.mapping.skipped

    def load_notes(self):
        return self.skipped

    def backend_version(self) -> str:
        # the kernels' results depend on the vector ISA ATen dispatches to (gelu(+inf) was NaN on one
        # machine and is +inf on an AVX2 one), so the version says which
        try:
            isa = self._torch.backends.cpu.get_cpu_capability()
        except Exception:  # noqa: BLE001 - an older torch: no capability query
            isa = ""
        return f"torch {self._torch.__version__} (CPU{', ATen ' + isa if isa else ''})"

    def claims(self):
        return [e.claim() for e in self.mapping.entries]

    def why_unclaimed(self, op, standard, version, dtype):
        why = self.mapping.absent.get(op)
        return f"torch: {why}" if why else None

    def _tensor(self, arr):
        import numpy as np

        torch = self._torch
        if arr.dtype.name == "bfloat16":
            return torch.from_numpy(np.require(arr, requirements="C").view(np.uint16).astype(np.int16)).view(torch.bfloat16)
        if arr.dtype.name in _FLOAT8:  # torch.from_numpy takes no ml_dtypes float8: the bytes, viewed as torch's type
            return torch.from_numpy(np.require(arr, requirements="C").view(np.uint8)).view(getattr(torch, arr.dtype.name))
        return torch.from_numpy(arr)  # keeps strides (non-contiguous views stay views)

    def _numpy(self, t):
        import ml_dtypes

        if t.dtype == self._torch.bfloat16:
            return t.contiguous().view(self._torch.int16).numpy().view(ml_dtypes.bfloat16)
        name = str(t.dtype).removeprefix("torch.")
        if name in _FLOAT8:  # nor does Tensor.numpy() give one
            return t.contiguous().view(self._torch.uint8).numpy().view(getattr(ml_dtypes, name))
        return t.numpy()

    def _entry(self, call) -> torch_ops.Entry:
        for entry in self.mapping.for_op(call.op):
            if entry.accepts(call.attributes, getattr(call, "dtype", None)):
                return entry
        raise Unsupported(f"torch has no {call.op} with attributes {dict(call.attributes)} "
                          f"(specgen/adapters/torch_ops.yaml)")

    def run(self, call):
        entry = self._entry(call)
        fn = torch_ops.resolve(self._torch, entry.call)
        got = torch_ops.prepare(entry, call)  # inputs, keywords and an accumulating operator's index sets
        args = [self._tensor(a) for a in got.args]
        kwargs = {k: self._tensor(a) for k, a in got.tensor_kwargs.items()}
        named = {k: (torch_ops.resolve(self._torch, v) if isinstance(v, torch_ops.DTypeName) else v)
                 for k, v in entry.kwargs(call.attributes).items()}  # a data type by name: torch.float16
        y = fn(*args, **kwargs, **got.set_kwargs, **named)
        if got.reshaped:
            y = got.finish(self._numpy(y))
            if call.in_place:
                next(iter(call.out.values()))[...] = y
                return None
            return y
        if call.in_place:
            out = next(iter(call.out.values()))
            if out.dtype.name == "bfloat16" or out.dtype.name in _FLOAT8:
                out[...] = self._numpy(y)
            else:
                self._tensor(out).copy_(y)
            return None
        return self._numpy(y)
