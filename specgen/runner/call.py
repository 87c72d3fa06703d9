"""Building the :class:`~specgen.adapters.base.Call` for one case: fresh input copies, strided views,
in-place aliasing, every tensor in its own allocation whose gaps and guards hold NaN and extreme
values (checked untouched after the run: :func:`memory_problem`), and output buffers filled with
a sentinel byte pattern so that a ``run`` that returns None without writing ``call.out`` is recognised (verdict *error*,
"no output"), never judged on a zero buffer."""
from __future__ import annotations

from dataclasses import dataclass

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


GUARD = 64  # elements of fill before and after every tensor's memory: a write past either end is caught


def fill_values(dtype, count: int) -> np.ndarray:
    """What the memory around and between a tensor's elements holds: floats cycle NaN, the largest
    and the lowest finite value; integers the largest and the lowest. A kernel that reads a gap or
    a guard (a wrong stride, a wrong walk order, a read past the end) computes from these, not
    from the right numbers by luck."""
    dt = np.dtype(dtype)
    if _dt.is_float_numpy(dt):
        import ml_dtypes  # its finfo knows bfloat16 too

        info = ml_dtypes.finfo(dt)
        pattern = np.array([np.nan, info.max, info.min], dtype=dt)
    elif dt.kind == "b":  # a truth value: a byte that is neither 0 nor 1 is not representable, so True
        pattern = np.array([True, False], dtype=dt)
    else:
        info = np.iinfo(dt)
        pattern = np.array([info.max, info.min], dtype=dt)
    return np.resize(pattern, count)


@dataclass
class Memory:
    """The whole allocation one tensor of a call lies in: ``buffer`` (the tensor's elements at its
    strides, with GUARD fill elements before and after), ``mask`` (True where an element of the
    tensor lies) and ``before`` (the buffer's bytes when the call was built)."""

    buffer: np.ndarray
    mask: np.ndarray
    before: np.ndarray | None = None

    def snapshot(self) -> None:
        self.before = self.buffer.copy()

    def changed(self, elements_too: bool) -> tuple[int, int]:
        """(how many, first buffer index) of the fill elements (and, ``elements_too``, the
        tensor's own elements) whose bytes differ from the snapshot."""
        now = self.buffer.view(np.uint8).reshape(len(self.buffer), -1)
        was = self.before.view(np.uint8).reshape(len(self.before), -1)
        diff = np.any(now != was, axis=1)
        if not elements_too:
            diff &= ~self.mask
        where = np.flatnonzero(diff)
        return len(where), (int(where[0]) if len(where) else -1)


def laid_out(values: np.ndarray, strides: list[int] | None) -> tuple[np.ndarray, Memory]:
    """``values`` placed in a fresh allocation with the given element strides (None: dense;
    negative allowed) between GUARD fill elements on either side; the gaps between elements hold
    the fill too (:func:`fill_values`). Returns the view the adapter gets and its Memory."""
    shape = values.shape
    itemsize = values.dtype.itemsize
    if strides is None:
        strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
    lo = sum((d - 1) * s for d, s in zip(shape, strides) if s < 0 and d > 0)
    hi = sum((d - 1) * s for d, s in zip(shape, strides) if s > 0 and d > 0)
    span = hi - lo + 1 if values.size else 0
    buffer = fill_values(values.dtype, span + 2 * GUARD)
    mask = np.zeros(len(buffer), dtype=bool)
    byte_strides = [s * itemsize for s in strides]
    start = GUARD - lo
    if itemsize == 1 and _dt.is_float_numpy(values.dtype):
        # as_strided rebuilds the array from its __array_interface__, whose typestr ("<f1") numpy cannot read
        # back for ml_dtypes' float8: stride the bytes and view them as the type (a view of a view)
        view = np.lib.stride_tricks.as_strided(buffer.view(np.uint8)[start:], shape=shape,
                                               strides=byte_strides).view(values.dtype)
    else:
        view = np.lib.stride_tricks.as_strided(buffer[start:], shape=shape, strides=byte_strides)
    np.lib.stride_tricks.as_strided(mask[start:], shape=shape, strides=strides)[...] = True
    view[...] = values
    return view, Memory(buffer, mask)


def strided_view(values: np.ndarray, strides: list[int]) -> np.ndarray:
    """``values`` laid out with the given element strides in a larger buffer (:func:`laid_out`)."""
    return laid_out(values, strides)[0]


def _layout(arr: np.ndarray, st, memory: dict, name: str) -> np.ndarray:
    """``arr`` laid out with element strides ``st`` (None: dense) in a guarded allocation recorded
    in ``memory[name]``. A stride list that cannot be laid out (wrong length: a must-reject case)
    leaves the array dense and unguarded; ``Call.strides`` still carries the declared strides for
    adapters that validate descriptors."""
    if (st is not None and len(st) != arr.ndim) or arr.size == 0:
        return arr
    view, mem = laid_out(arr, None if st is None else [int(s) for s in st])
    memory[name] = mem
    return view


def memory_problem(call) -> str | None:
    """After ``run``: one line naming a tensor whose memory the adapter changed where it must not
    (the gaps between a strided tensor's elements, the guard before and after every tensor, or
    any element of an input it does not share with an output); None when all is untouched."""
    aliased = set(call.inputs) if call.in_place else set()
    for name, mem in (getattr(call, "memory", None) or {}).items():
        if mem.before is None:
            continue
        is_input = name in call.inputs
        n, first = mem.changed(elements_too=is_input and name not in aliased)
        if n:
            inside = np.flatnonzero(mem.mask)
            if mem.mask[first]:
                return f"changed {n} element(s) of input {name}, which the call does not let it write"
            where = ("before its first element" if first < inside[0] else
                     "after its last element" if first > inside[-1] else "between its elements")
            role = "input" if is_input else "output"
            return (f"wrote {n} element(s) of {role} {name}'s memory outside the tensor (the first {where}, "
                    f"{abs(first - (inside[0] if first < inside[0] else inside[-1]))} element(s) away; "
                    f"the tensor's elements lie at its declared strides)")
    return None


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
    memory: dict = {}
    strides = {k: (list(v) if v is not None else None) for k, v in dict(getattr(case, "strides", None) or {}).items()}
    for name in input_names:
        if name not in data:
            continue  # an omitted optional input (an index space's ``absent``: DirectML's null ScaleTensor)
        arr = np.array(data[name], copy=True)
        inputs[name] = _layout(arr, strides.get(name), memory, name)
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
                out[name] = _layout(unwritten_buffer(shape, _dt.get(dtype).numpy), strides.get(name), memory, name)
            except (KeyError, ValueError, TypeError):
                out[name] = np.zeros(0)
    return Call(case_id=case.id, op=case.op, standard=case.standard, version=str(case.version), dtype=case.dtype,
                kind=getattr(case, "kind", "positive"), inputs=inputs, outputs=outputs, out=out,
                attributes={k: _attr(v) for k, v in (case.attributes or {}).items()},
                attributes_given=tuple(getattr(case, "attributes_given", ()) or ()),
                in_place=bool(case.in_place), violations=tuple(getattr(case, "violations", ()) or ()), spec=spec,
                strides=strides, memory=memory)
