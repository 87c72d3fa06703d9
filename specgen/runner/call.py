"""Building the :class:`~specgen.adapters.base.Call` for one case: fresh input copies, strided views
(gaps hold garbage), in-place aliasing, and output buffers filled with a sentinel byte pattern so
that a ``run`` that returns None without writing ``call.out`` is recognised (verdict *error*,
"no output"), never judged on a zero buffer."""
from __future__ import annotations

import numpy as np

from specgen import dtypes as _dt
from specgen.adapters.base import Call, OutputInfo

SENTINEL_BYTE = 0xA5  # every byte of an unwritten output buffer
SECOND_SENTINEL_BYTE = 0x5A  # a second pattern, to tell "not written" from a result that equals the first


def _sentinel(dtype, byte: int = SENTINEL_BYTE) -> np.ndarray:
    dt = np.dtype(dtype)
    return np.frombuffer(bytes([byte]) * dt.itemsize, dtype=dt)


def unwritten_buffer(shape, dtype, byte: int = SENTINEL_BYTE) -> np.ndarray:
    """An output buffer every element of which holds the sentinel bytes."""
    return np.full(shape, _sentinel(dtype, byte)[0], dtype=dtype)


def refill(buf: np.ndarray, byte: int = SECOND_SENTINEL_BYTE) -> None:
    """Fill ``buf`` (a view, strided or not) with another sentinel pattern, in place."""
    buf[...] = _sentinel(buf.dtype, byte)[0]


def never_written(buf: np.ndarray, byte: int = SENTINEL_BYTE) -> bool:
    """``buf`` still holds only the sentinel (the adapter wrote nothing into it)."""
    if buf.size == 0:
        return False
    raw = np.ascontiguousarray(buf).view(np.uint8)
    return bool(np.all(raw == byte))


def strided_view(values: np.ndarray, strides: list[int]) -> np.ndarray:
    """``values`` placed in a larger buffer with the given element strides (negative allowed); the
    gaps hold a sentinel (NaN for floats, the type's max for integers) so that an adapter that
    ignores strides reads garbage, not the right numbers by luck."""
    shape = values.shape
    itemsize = values.dtype.itemsize
    lo = sum((d - 1) * s for d, s in zip(shape, strides) if s < 0 and d > 0)
    hi = sum((d - 1) * s for d, s in zip(shape, strides) if s > 0 and d > 0)
    span = hi - lo + 1
    if values.dtype.kind == "f" or values.dtype.name == "bfloat16":
        base = np.full(span, np.nan, dtype=values.dtype)
    else:
        base = np.full(span, np.iinfo(values.dtype).max, dtype=values.dtype)
    view = np.lib.stride_tricks.as_strided(base[-lo:], shape=shape, strides=[s * itemsize for s in strides])
    view[...] = values
    return view


def _layout(arr: np.ndarray, st) -> np.ndarray:
    """``arr`` laid out with element strides ``st`` (None: dense). A stride list that cannot be
    laid out (wrong length: a must-reject case) leaves the array dense; ``Call.strides`` still
    carries the declared strides for adapters that validate descriptors."""
    if st is None or len(st) != arr.ndim or arr.size == 0:
        return arr
    return strided_view(arr, [int(s) for s in st])


def _attr(v):
    """Attribute values: floats stay floats (already float32-rounded by the corpus); lists (ONNX
    ``consumed_inputs``) and strings pass through."""
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v
    return float(v)


def build_call(case, data: dict[str, np.ndarray], spec, input_names, output_names) -> Call:
    """The Call for one case. Inputs are fresh copies; strided inputs are views; an in-place call's
    output buffer is the input array itself."""
    inputs: dict[str, np.ndarray] = {}
    strides = {k: (list(v) if v is not None else None) for k, v in dict(getattr(case, "strides", None) or {}).items()}
    for name in input_names:
        arr = np.array(data[name], copy=True)
        inputs[name] = _layout(arr, strides.get(name))
    outputs: dict[str, OutputInfo] = {}
    out: dict[str, np.ndarray] = {}
    for i, name in enumerate(output_names):
        shape = tuple(case.shapes.get(name, np.shape(data.get(name, ()))))
        dtype = case.dtypes.get(name, case.dtype)
        outputs[name] = OutputInfo(shape, dtype)
        if case.in_place and i < len(input_names):
            out[name] = inputs[input_names[i]]
        else:
            try:
                out[name] = _layout(unwritten_buffer(shape, _dt.get(dtype).numpy), strides.get(name))
            except (KeyError, ValueError, TypeError):
                out[name] = np.zeros(0)
    return Call(case_id=case.id, op=case.op, standard=case.standard, version=str(case.version), dtype=case.dtype,
                kind=getattr(case, "kind", "positive"), inputs=inputs, outputs=outputs, out=out,
                attributes={k: _attr(v) for k, v in (case.attributes or {}).items()},
                attributes_given=tuple(getattr(case, "attributes_given", ()) or ()),
                in_place=bool(case.in_place), violations=tuple(getattr(case, "violations", ()) or ()), spec=spec,
                strides=strides)
