"""Setting up and running one sweep (what ``specgen sweep`` does, callable from tests).

``prepare(...)`` resolves the op, standard, version, dtype and attributes against the spec, loads
the adapter, checks its claim and builds the ``SweepDef`` and the input space; ``execute(...)``
plans the chunks (shard, resume), runs them on the local pool or Dask, merges the summaries and
returns the result.
"""
from __future__ import annotations

import shlex
import time

import numpy as np
from dataclasses import dataclass, field


from specgen import dtypes as dt
from specgen.spec.provenance import chosen_folder, specs_in_use_note
from specgen.sweep.chunk import SweepDef
from specgen.sweep.space import BitsSpace, SampleSpace, breakpoint_bits
from specgen.sweep.summary import Summary, merge_all

DEFAULT_CHUNK = 1 << 18
DEFAULT_SAMPLES = 64  # float64: values per (sign, exponent) stratum: 262,144 in all
DEFAULT_SEED = 0
EXHAUSTIVE_BITS = 32  # dtypes up to this width are swept over every bit pattern by default


class SweepUsageError(ValueError):
    """A bad option value (exit 2)."""


class NotClaimed(ValueError):
    """The adapter does not claim what the sweep asks (exit 4)."""


@dataclass
class Prepared:
    sweep: SweepDef
    space: object
    spec: object
    attributes_explicit: bool
    claim_note: str = ""


@dataclass
class Outcome:
    summary: Summary | None
    info: dict = field(default_factory=dict)
    interrupted: bool = False


def parse_range(text: str, nbits: int) -> tuple[int, int]:
    """'LO:HI' (inclusive, hex 0x.. or decimal) -> (lo, hi)."""
    try:
        a, b = text.split(":")
        lo, hi = int(a, 0), int(b, 0)
    except ValueError:
        raise SweepUsageError(f"--range {text!r}: expected LO:HI (inclusive bit patterns, e.g. 0x3f800000:0x3fffffff)") from None
    top = (1 << nbits) - 1
    if not 0 <= lo <= hi <= top:
        raise SweepUsageError(f"--range {text}: need 0 <= LO <= HI <= 0x{top:x}")
    return lo, hi


def parse_attributes(text: str | None) -> dict[str, float | str]:
    """``name=value,...``: numbers, or a string attribute's value (approximate=tanh; the spec checks it)."""
    if not text:
        return {}
    out = {}
    for part in text.split(","):
        if not part.strip():
            continue
        k, sep, v = part.partition("=")
        if not sep:
            raise SweepUsageError(f"--attributes: {part!r} is not name=value")
        try:
            out[k.strip()] = float(v)
        except ValueError:
            if not v.strip().replace("_", "").isalnum():
                raise SweepUsageError(f"--attributes: {k.strip()}={v!r} is neither a number nor a value name") from None
            out[k.strip()] = v.strip()
    return out


def numeric_only(attributes: dict) -> dict:
    return {k: v for k, v in attributes.items() if not isinstance(v, str)}


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    try:
        k, n = (int(p) for p in text.split("/"))
    except ValueError:
        raise SweepUsageError(f"--shard {text!r}: expected K/N, e.g. 1/4") from None
    if not (n >= 1 and 1 <= k <= n):
        raise SweepUsageError(f"--shard {text}: need 1 <= K <= N")
    return k, n


def prepare(adapter_name: str, op: str, standard: str | None, version: str | None, dtype: str,
            attributes: dict[str, float], ranges: list[str] | None = None, chunk_size: int = DEFAULT_CHUNK,
            samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED, ignore_claims: bool = False,
            specs: dict | None = None, loaded=None, extra_inputs: dict[str, float] | None = None,
            sample: bool = False) -> Prepared:
    """``extra_inputs``: a value for each tensor input past the first (PRelu's slope), rounded to the
    dtype; ``sample``: the stratified sample even for a dtype narrow enough to sweep every pattern."""
    from specgen.numerics.compare import resolve_attributes

    if specs is None:
        from specgen.spec.loader import load_all

        specs = load_all()
    if op not in specs:
        raise SweepUsageError(f"unknown op {op!r} (known: {', '.join(specs)}; {specs_in_use_note(specs)})")
    spec = specs[op]
    if standard is None:
        standard = "onnx" if "onnx" in spec.standards else next(iter(spec.standards))
    if standard not in spec.standards:
        raise SweepUsageError(f"{op} has no standard {standard!r} (it has: {', '.join(spec.standards)})")
    std = spec.standards[standard]
    versions = [v.version for v in std.versions]
    if version is None:
        version = versions[-1]
    if version not in versions:
        raise SweepUsageError(f"{op} {standard} has no version {version!r} (it has: {', '.join(versions)})")
    if dtype not in dt.DTYPES:
        raise SweepUsageError(f"unknown dtype {dtype!r} (known: {', '.join(dt.DTYPES)})")
    if dtype not in std.version(version).dtypes():
        raise SweepUsageError(f"{op} {standard}-{version} does not list dtype {dtype} "
                              f"(it lists: {', '.join(std.version(version).dtypes())})")
    if not dt.get(dtype).is_float:
        raise SweepUsageError(f"sweeps cover float dtypes (float16, bfloat16, float32, float64); {dtype} is not one")
    from specgen.generate.corpus import tensor_dtype

    out_dtype = tensor_dtype(std.version(version), spec.outputs[0].name, dtype)
    if out_dtype != dtype:
        raise SweepUsageError(f"{op} {standard}-{version} gives {out_dtype} for {dtype} inputs: a sweep judges outputs "
                              f"of the input's type (its corpus cases judge it: specgen run)")
    # attribute names: the operator's or the standard's own
    rename = {b.name: b.attribute for b in std.attributes.values()}
    named = {}
    for k, v in attributes.items():
        name = k if k in spec.attribute_names else rename.get(k)
        if name is None:
            raise SweepUsageError(f"{op} has no attribute {k!r} (attributes: {', '.join(spec.attribute_names) or 'none'})")
        named[name] = v
    try:
        plain, numeric = spec.resolve(named, standard)  # a string attribute picks the formula
        resolved = resolve_attributes(plain, standard, numeric)
    except KeyError as exc:
        raise SweepUsageError(str(exc.args[0])) from None
    except ValueError as exc:
        raise SweepUsageError(str(exc)) from None
    for k, v in named.items():
        if isinstance(v, str) and (spec.choice is None or k != spec.choice.attribute):
            raise SweepUsageError(f"--attributes: {k}={v!r} is not a number")
    if spec.choice is not None:
        from specgen.sweep.catalog import float_choices

        resolved[spec.choice.attribute] = choice = spec.choice_value(named, standard)
        allowed = float_choices(spec, standard)
        if choice not in allowed:
            binding = std.attributes[spec.choice.attribute]
            raise SweepUsageError(f"{op}: {standard} gives {spec.choice.attribute}={choice} ({binding.name}="
                                  f"{(binding.values or {}).get(choice, choice)}) for integer tensors only, and a sweep's "
                                  f"are floating point" + (f" (--attributes {', '.join(f'{spec.choice.attribute}={v}' for v in allowed)})"
                                                           if allowed else ""))
    # an attribute the version takes as an optional input, left out, stands for the dtype's limit
    # (ONNX Clip-11: numeric_limits<T>::lowest() / max(), 65504 in float16), as in the corpus
    resolved.update({k: v for k, v in std.version(version).absent_values(dtype).items() if k not in named})
    explicit = bool(named) or std.attribute_defaults != "applied"
    given = tuple(sorted(resolved)) if explicit else ()

    names = [t.name for t in spec.inputs[1:]]
    extra_inputs = dict(extra_inputs or {})
    unknown = [k for k in extra_inputs if k not in names]
    if unknown or sorted(extra_inputs) != sorted(names):
        raise SweepUsageError(f"{op}: --input must give exactly its further inputs ({', '.join(names) or 'none'}); "
                              f"got {', '.join(extra_inputs) or 'none'}")
    with np.errstate(all="ignore"):
        held = tuple((k, float(np.asarray(extra_inputs[k]).astype(dt.get(dtype).numpy))) for k in names)

    if loaded is None:
        from specgen.adapters.registry import load

        loaded = load(adapter_name)  # AdapterLoadError propagates (exit 3)
    note = ""
    if not ignore_claims:
        from specgen.adapters.base import covering

        probe = _ClaimProbe(op, standard, version, dtype, resolved)
        claim, _cause, why = covering(loaded.claims, probe)
        if claim is None:
            extra = ""
            try:
                extra = loaded.adapter.why_unclaimed(op, standard, version, dtype) or ""
            except Exception:  # noqa: BLE001
                pass
            raise NotClaimed(f"{loaded.name} does not claim {op} {standard}-{version} {dtype}: {why}"
                             + (f" ({extra})" if extra else ""))
        if claim.max_elements is not None:
            chunk_size = max(1, min(chunk_size, claim.max_elements))
        note = claim.note

    nbits = dt.get(dtype).bits
    if ranges:
        rs = sorted(parse_range(r, nbits) for r in ranges)
        for (a0, b0), (a1, b1) in zip(rs, rs[1:]):
            if a1 <= b0:
                raise SweepUsageError(f"--range 0x{a1:x}:0x{b1:x} overlaps 0x{a0:x}:0x{b0:x}")
        space_key = ("bits", tuple(rs))
        space = BitsSpace(dtype, rs)
        if space.size > (1 << 40):
            raise SweepUsageError(f"--range covers {space.size:,} values; more than 2^40 is not a sweep that ends")
    elif nbits <= EXHAUSTIVE_BITS and not sample:
        space_key = ("bits", ((0, (1 << nbits) - 1),))
        space = BitsSpace(dtype, None)
    else:
        extra = tuple(breakpoint_bits(plain, standard, dtype, numeric_only(resolved)))
        space_key = ("sample", int(samples), int(seed), extra)
        space = SampleSpace(dtype, samples, seed, list(extra))
    sweep = SweepDef(op=op, standard=standard, version=str(version), dtype=dtype,
                     attributes=tuple(sorted(resolved.items())), attributes_given=given, adapter=loaded.name,
                     backend=loaded.backend_version, space=space_key, chunk_size=int(chunk_size),
                     specs=chosen_folder({op: spec}) or "",  # workers read it ("": bundled, preloaded)
                     extra_inputs=held)
    return Prepared(sweep, space, spec, bool(named), note)


@dataclass
class _ClaimProbe:
    """What Claim.unclaimed reads of a case, for a sweep's calls (rank 1, dense)."""

    op: str
    standard: str
    version: str
    dtype: str
    attributes: dict
    kind: str = "positive"
    in_place: bool = False

    def __post_init__(self):
        self.shapes = {"x": [1]}
        self.strides = {}


def rerun_base(p: Prepared) -> str:
    s = p.sweep
    cmd = (f"specgen sweep --adapter {s.adapter} --op {s.op} --standard {s.standard} --version {s.version} "
           f"--dtype {s.dtype}")
    if p.attributes_explicit:
        cmd += " --attributes " + ",".join(f"{k}={v!r}" for k, v in s.attributes)
    for k, v in s.extra_inputs:
        cmd += f" --input {k}={v!r}"
    if s.space[0] == "sample" and dt.get(s.dtype).bits <= EXHAUSTIVE_BITS:
        cmd += " --sample"
    if s.specs:
        cmd += f" --specs {shlex.quote(s.specs)}"
    return cmd


def execute(p: Prepared, *, workers: int, scheduler: str = "local", shard=None, resume: str | None = None,
            progress=None, log=None) -> Outcome:
    """Run the sweep; on KeyboardInterrupt return what finished (``interrupted``)."""
    from specgen.sweep import execute as X

    sweep, space = p.sweep, p.space
    store = X.ResumeDir(resume, sweep) if resume else None
    done = store.open() if store else []
    planned = X.shard_chunks(sweep, space, shard)
    acc = merge_all(done) if done else None
    if acc is not None:
        # only what this shard covers counts (a resume directory may hold other shards' chunks)
        lo_hi = _coalesce(planned)  # a chunk saved under another --chunk-size still counts
        inside = [s for s in done if any(a <= s.covered[0][0] and s.covered[-1][1] <= b for a, b in lo_hi)]
        acc = merge_all(inside) if inside else None
    covered = acc.covered if acc else []
    tasks = X.subtract(planned, covered)
    total = sum(b - a + 1 for a, b in planned)
    already = sum(b - a + 1 for a, b in covered)
    if log and done:
        log(f"sweep: resuming from {resume}: {already:,} of {total:,} elements already done")
    bar = progress(total, already) if progress else None
    state = {"acc": acc}

    def on_result(s: Summary) -> None:
        if store:
            store.save(s)
        if state["acc"] is None:
            state["acc"] = Summary.from_json(s.to_json())
        else:
            state["acc"].absorb(s)
        if bar:
            bar.update(s.total, s.failures)

    t0 = time.perf_counter()
    interrupted = False
    try:
        if scheduler == "local":
            X.run_local(sweep, tasks, workers, on_result)
        else:
            X.run_dask(sweep, tasks, workers, None if scheduler == "dask" else scheduler, on_result, log=log)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar:
            bar.update(0, force=True)
            bar.close()
    wall = time.perf_counter() - t0
    s = state["acc"]
    covered_now = s.covered if s else []
    complete = not X.subtract(planned, covered_now)
    info = {"adapter": sweep.adapter, "backend": sweep.backend, "scheduler": scheduler, "workers": workers,
            "shard": f"{shard[0]}/{shard[1]}" if shard else None, "wall_seconds": round(wall, 3),
            "elements_this_run": (sum(b - a + 1 for a, b in covered_now) - already) if s else 0,
            "planned": [[a, b] for a, b in _coalesce(planned)], "complete": complete, "interrupted": interrupted,
            "rerun": rerun_base(p), "space": space.describe()}
    return Outcome(s, info, interrupted)


def _coalesce(rs):
    out = []
    for a, b in rs:
        if out and out[-1][1] + 1 == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return out

