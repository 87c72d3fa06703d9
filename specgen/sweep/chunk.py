"""The pure chunk function: ``chunk(sweep, lo, hi) -> Summary``.

``sweep`` (a ``SweepDef``) names the op, standard, version, dtype, attributes, input space and
adapter; (lo, hi) is an inclusive index range of the space. The chunk generates its inputs,
computes golden values (or reads them from the golden cache: specgen.sweep.golden_cache), calls the adapter once on the whole chunk (one built session per worker
process: the adapter and the judge's context are cached per process), judges every element and
returns a bounded summary. The same function runs in a process pool, a CI shard or on a Dask
worker, so they give the same bytes.

An adapter that raises on a chunk is bisected in-process to the inputs it raises on (at most
``BISECT_CALLS`` adapter calls per chunk; what is left undecided then is counted as *error*
wholesale). An adapter that kills its process is handled by the executor (specgen.sweep.execute),
which re-runs the chunk's halves in fresh workers down to the inputs that kill it, and records
them with ``crashed_chunk``.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from specgen import dtypes as dt
from specgen.sweep import golden_cache
from specgen.sweep import judge as J
from specgen.sweep.space import BitsSpace, SampleSpace
from specgen.sweep.summary import Summary

BISECT_CALLS = 256
PROFILE_SIG_BITS = {"float64": 0}  # float64 samples: one bin per stratum


@dataclass(frozen=True)
class SweepDef:
    """Everything that defines a sweep (its identity: shards of the same sweep have equal ones)."""

    op: str
    standard: str
    version: str
    dtype: str
    attributes: tuple  # ((name, float32 value), ...) by the operator's names, sorted
    attributes_given: tuple  # names the backend call passes explicitly (ONNX defaults: none)
    adapter: str
    backend: str  # the adapter's backend version, as the parent saw it
    space: tuple  # ("bits", ((lo, hi), ...)) or ("sample", per_binade, seed, (extra bits, ...))
    chunk_size: int
    specs: str = ""  # the specs folder the op is read from, absolute ("": the bundled specs/)
    # further tensor inputs held at one value each (PRelu's slope): ((name, value in the dtype), ...)
    extra_inputs: tuple = ()

    def identity(self) -> dict:
        d = asdict(self)
        del d["chunk_size"]  # the grid does not change the result: parts cut differently still merge
        del d["specs"]  # where the specs lie is not what was swept (a folder moved still resumes)
        if self.extra_inputs:
            d["extra_inputs"] = {k: v for k, v in self.extra_inputs}
        else:  # a one-input sweep's identity is what it was before further inputs existed
            del d["extra_inputs"]
        d["attributes"] = {k: v for k, v in self.attributes}
        d["attributes_given"] = list(self.attributes_given)
        if self.space[0] == "bits":
            d["space"] = {"kind": "bits", "ranges": [[int(a), int(b)] for a, b in self.space[1]]}
        else:
            d["space"] = {"kind": "sample", "per_binade": self.space[1], "seed": self.space[2],
                          "breakpoint_values": [int(b) for b in self.space[3]]}
        return d

    def make_space(self):
        if self.space[0] == "bits":
            return BitsSpace(self.dtype, [tuple(r) for r in self.space[1]])
        return SampleSpace(self.dtype, self.space[1], self.space[2], list(self.space[3]))

    @property
    def attrs(self) -> dict:
        return dict(self.attributes)


@dataclass
class _Worker:
    """Per-process state of one sweep: spec, judge context, adapter (one built session), space."""

    ctx: J.Context
    adapter: object
    space: object
    spec: object
    timing: dict = field(default_factory=dict)


_CACHE: dict[SweepDef, _Worker] = {}


_SPECS: dict[str, dict] = {}  # specs folder ("": the bundled specs/) -> its loaded specs


def preload_specs(directory: str = "") -> dict:
    """The specs of a folder, parsed once per process (the local pool's fork server calls this for
    the bundled specs, so that every worker it forks starts with them)."""
    if directory not in _SPECS:
        from specgen.resources import specs_dir
        from specgen.spec.loader import load_all

        _SPECS[directory] = load_all(directory or specs_dir())
    return _SPECS[directory]


def load_adapter(name: str, specs: dict | None = None):
    """The adapter object for a worker: constructed from its entry point, without asking for its
    claims again (the parent checked them; onnxruntime's claims build a session per op, opset and
    dtype). ``specs``: the sweep's specs, handed to the adapter as the registry does."""
    from specgen.adapters.registry import _import, construct, entry

    adapter = construct(_import(entry(name).value), specs)
    try:
        if not getattr(adapter, "name", ""):
            adapter.name = name
    except Exception:  # noqa: BLE001 - a read-only name is fine
        pass
    return adapter


def worker_state(sweep: SweepDef) -> _Worker:
    w = _CACHE.get(sweep)
    if w is None:
        specs = preload_specs(sweep.specs)
        spec = specs[sweep.op]
        ctx = J.Context(spec, sweep.standard, sweep.dtype, sweep.attrs, dict(sweep.extra_inputs))
        w = _CACHE[sweep] = _Worker(ctx, load_adapter(sweep.adapter, specs), sweep.make_space(), spec)
    return w


def _call(sweep: SweepDef, spec, x: np.ndarray):
    from specgen.adapters.base import Call, OutputInfo

    y = spec.outputs[0].name
    return Call(case_id=f"sweep:{sweep.op}/{sweep.standard}-{sweep.version}/{sweep.dtype}", op=sweep.op,
                standard=sweep.standard, version=sweep.version, dtype=sweep.dtype, kind="positive",
                inputs={spec.inputs[0].name: x, **extra_arrays(sweep, x)}, outputs={y: OutputInfo((x.shape[0],), sweep.dtype)},
                out={y: np.zeros(x.shape[0], dtype=dt.get(sweep.dtype).numpy)}, attributes=sweep.attrs,
                attributes_given=tuple(sweep.attributes_given), spec=spec)


def extra_arrays(sweep: SweepDef, x: np.ndarray) -> dict[str, np.ndarray]:
    """The further inputs at their values, one per element of x (the sweep's dtype)."""
    return {k: np.full(x.shape, v, dtype=x.dtype) for k, v in sweep.extra_inputs}


def _run_once(sweep, w: _Worker, x) -> tuple[np.ndarray | None, str]:
    """The adapter's output for x, or (None, message)."""
    from specgen.runner.invoke import invoke

    o = invoke(w.adapter, _call(sweep, w.spec, np.array(x, copy=True)))
    if o.status != "ok":
        return None, f"{o.status}: {o.message}" if o.message else o.status
    y = next(iter(o.outputs.values()), None)
    want = dt.get(sweep.dtype).numpy
    if y is None:
        return None, "no output"
    y = np.asarray(y)
    if y.dtype != want:
        return None, f"wrong dtype: got {y.dtype}, expected {np.dtype(want).name}"
    if y.shape != x.shape:
        if y.size == x.size:
            y = y.reshape(x.shape)
        else:
            return None, f"wrong shape: got {y.shape}, expected {x.shape}"
    return y, ""


def run_adapter(sweep: SweepDef, w: _Worker, x: np.ndarray):
    """(actual, error mask, {message: count}): one call on the whole chunk; where it fails, the
    failing part is bisected (at most BISECT_CALLS calls)."""
    n = x.shape[0]
    actual = np.zeros(n, dtype=x.dtype)
    bad = np.zeros(n, dtype=bool)
    errors: dict[str, int] = {}
    calls = 0
    todo = [(0, n)]
    while todo:
        a, b = todo.pop()
        y, msg = _run_once(sweep, w, x[a:b])
        calls += 1
        if y is not None:
            actual[a:b] = y
            continue
        if b - a == 1 or calls >= BISECT_CALLS:
            bad[a:b] = True
            key = msg if b - a == 1 else f"{msg} (bisection stopped after {BISECT_CALLS} calls)"
            errors[key] = errors.get(key, 0) + (b - a)
            continue
        m = (a + b) // 2
        todo += [(m, b), (a, m)]  # lower half first
    return actual, bad, errors


def chunk(sweep: SweepDef, lo: int, hi: int, crashed: str | None = None) -> Summary:
    """The summary of indices lo..hi (inclusive) of the sweep's space. ``crashed``: the adapter
    killed its process on exactly these inputs (the executor found that); they are recorded as
    *error* with that message, without calling the adapter."""
    ts = time.perf_counter()
    fresh = sweep not in _CACHE
    w = worker_state(sweep)
    t0 = time.perf_counter()
    bits, x = w.space.values(lo, hi)
    t1 = time.perf_counter()
    expected = golden_cache.load(sweep, w.spec, lo, hi)
    if expected is None:
        expected = w.ctx.golden(x)
        golden_cache.store(sweep, w.spec, lo, hi, expected)
    t2 = time.perf_counter()
    if crashed is None:
        actual, bad, errors = run_adapter(sweep, w, x)
    else:
        actual, bad, errors = np.zeros_like(x), np.ones(x.shape[0], dtype=bool), {crashed: int(x.shape[0])}
    t3 = time.perf_counter()
    ok = np.flatnonzero(~bad)
    n = x.shape[0]
    kind = np.full(n, J.ERROR, dtype=np.uint8)
    error = np.full(n, np.nan)
    bound = np.full(n, np.nan)
    if ok.size == n:
        jd = w.ctx.judge(x, actual, expected)
        kind, error, bound = jd.kind, jd.error, jd.bound
    elif ok.size:
        jd = w.ctx.judge(x[ok], actual[ok], expected[ok])
        kind[ok], error[ok], bound[ok] = jd.kind, jd.error, jd.bound
    t4 = time.perf_counter()
    fmt_bits = dt.get(sweep.dtype).bits
    lay = w.space.layout

    def bound_fn(idx):
        return w.ctx.bounds_at(x[idx], actual[idx], expected[idx])[1]

    shift = lay.mant - PROFILE_SIG_BITS.get(sweep.dtype, 4)
    s = Summary.from_chunk(sweep.identity(), lo, bits, x, actual, expected, kind, error, bound,
                           mant=lay.mant, nbits=fmt_bits, profile_shift=shift, bound_fn=bound_fn, errors=errors)
    t5 = time.perf_counter()
    s.timing = {"setup": (t0 - ts) if fresh else 0.0, "inputs": t1 - t0, "golden": t2 - t1, "adapter": t3 - t2, "compare": t4 - t3,
                "summary": t5 - t4, "chunks": 1.0, "elements": float(n)}
    return s
