"""The summary of a sweep (or of any part of it), and its associative, commutative merge.

A chunk's summary is built from its per-element verdicts (``Summary.from_chunk``); summaries of
disjoint parts of the same sweep merge (``merge``) into the summary of their union, the same
whatever the grouping or order, so a process pool, CI shards and a Dask cluster give the same
bytes (``to_json(timing=False)``). Every part has a bounded size:

- ``counts``: elements per verdict class (pass, value, nan-mismatch, inf-mismatch, signed-zero,
  flush, error);
- ``worst``: per binade (sign and exponent field of the input) the element with the largest error,
  and ``worst_fail`` the failing element with the largest excess over its bound (non-value kinds
  first); ties go to the lowest index;
- ``hist`` / ``hist_fail``: elements per power-of-two bin of the error in ULPs;
- ``first``: the ``FIRST`` failing elements of lowest index;
- ``specials``: per input category (NaN, +-inf, +-0, +-subnormal) what the backend returned and
  the verdicts, with the first few examples;
- ``runs``: contiguous runs of failing indices (bit patterns, for a bits space): their number, the
  first ``RUNS`` of them, and ``runs_cut`` (runs from there on are not listed); per covered
  segment the runs touching its ends, so that adjacent parts join their runs exactly;
- ``profile``: per fine input bin (sign, exponent, top significand bits) the largest error and the
  number of failures, for the plot;
- ``errors``: the adapter's error messages (the first ``ERRORS`` in sort order) with counts;
- ``timing``: seconds per stage; not deterministic, left out of comparisons.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from specgen.sweep.judge import ERROR, FAIL_SEVERITY, KINDS, PASS

FIRST = 20
RUNS = 200
ERRORS = 10
EXAMPLES = 4
HIST_MIN, HIST_MAX = -12, 64
SPECIAL_CATEGORIES = ("nan", "+inf", "-inf", "+0", "-0", "+subnormal", "-subnormal")


class MergeError(ValueError):
    """Summaries that cannot be merged: different sweeps, or overlapping parts."""


def _hist_key(e: float) -> str:
    if math.isnan(e):
        return "nan"
    if math.isinf(e):
        return "inf"
    if e == 0:
        return "zero"
    k = min(max(math.ceil(math.log2(e)), HIST_MIN), HIST_MAX)
    return str(k)


def hist_label(key: str) -> str:
    if key in ("zero", "nan", "inf"):
        return {"zero": "0", "nan": "NaN", "inf": "inf"}[key]
    k = int(key)
    lo = "0" if k == HIST_MIN else f"2^{k - 1}"
    return f"({lo}, 2^{k}]"


def hist_order(key: str) -> float:
    return {"zero": -1e9, "nan": 1e9 + 1, "inf": 1e9}[key] if key in ("zero", "nan", "inf") else float(key)


@dataclass
class Record:
    """One element: where it is, what went in and came out, how far off."""

    index: int
    bits: int  # input bit pattern
    actual: int | None  # output bit pattern (None: the adapter gave nothing: crash)
    expected: int
    error: float
    bound: float | None
    kind: str

    def key_error(self):
        e = -1.0 if math.isnan(self.error) else self.error
        return (e, -self.index)

    def key_fail(self):
        sev = FAIL_SEVERITY[KINDS.index(self.kind)]
        if self.kind == "value":
            ex = self.error - (self.bound if self.bound is not None and not math.isnan(self.bound) else 0.0)
            ex = math.inf if math.isnan(ex) else ex
        else:
            ex = math.inf
        return (sev, ex, -self.index)

    def to_json(self) -> dict:
        return {"index": self.index, "bits": self.bits, "actual": self.actual, "expected": self.expected,
                "error": _num(self.error), "bound": _num(self.bound), "kind": self.kind}

    @classmethod
    def from_json(cls, d: dict) -> "Record":
        return cls(d["index"], d["bits"], d["actual"], d["expected"], _unnum(d["error"]), _unnum(d["bound"]), d["kind"])


def _num(v):
    if v is None:
        return None
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _unnum(v):
    if v is None:
        return None
    if isinstance(v, str):
        return float(v)
    return float(v)


@dataclass
class Segment:
    lo: int
    hi: int
    lead: int | None  # end of the failing run that starts at lo (None: lo passes)
    tail: int | None  # start of the failing run that ends at hi (None: hi passes)


@dataclass
class Summary:
    sweep: dict
    segments: list[Segment] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    worst: dict[str, Record] = field(default_factory=dict)
    worst_fail: dict[str, Record] = field(default_factory=dict)
    hist: dict[str, int] = field(default_factory=dict)
    hist_fail: dict[str, int] = field(default_factory=dict)
    first: list[Record] = field(default_factory=list)
    specials: dict[str, dict] = field(default_factory=dict)
    n_runs: int = 0
    runs: list[list[int]] = field(default_factory=list)
    runs_cut: int | None = None
    profile: dict[str, list] = field(default_factory=dict)  # bin -> [max error, failures, elements]
    errors: dict[str, int] = field(default_factory=dict)
    timing: dict[str, float] = field(default_factory=dict)

    # ------------------------------------------------------------------ queries
    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def failures(self) -> int:
        return self.total - self.counts.get("pass", 0)

    @property
    def covered(self) -> list[tuple[int, int]]:
        return [(s.lo, s.hi) for s in self.segments]

    # ------------------------------------------------------------------ building
    @classmethod
    def from_chunk(cls, sweep: dict, lo: int, bits: np.ndarray, x: np.ndarray, actual: np.ndarray | None,
                   expected: np.ndarray, kind: np.ndarray, error: np.ndarray, bound: np.ndarray, *,
                   mant: int, nbits: int, profile_shift: int, bound_fn=None, errors: dict | None = None,
                   timing: dict | None = None) -> "Summary":
        """The summary of indices lo .. lo+len(bits)-1. ``actual`` may hold garbage where kind is
        ERROR (the adapter gave no output there). ``bound_fn(idx) -> bounds`` fills in bounds of
        the records that lack one."""
        n = bits.shape[0]
        hi = lo + n - 1
        s = cls(sweep)
        fail = kind != PASS
        any_fail = bool(fail.any())
        if any_fail:
            counts = np.bincount(kind, minlength=len(KINDS))
            s.counts = {KINDS[i]: int(c) for i, c in enumerate(counts) if c}
        else:
            s.counts = {KINDS[PASS]: n} if n else {}
        u = np.dtype(f"uint{nbits}")
        act_bits = actual.view(u) if actual is not None else np.zeros(n, dtype=u)
        exp_bits = expected.view(u)

        def rec(i: int) -> Record:
            k = int(kind[i])
            b = float(bound[i])
            return Record(lo + i, int(bits[i]), None if k == ERROR else int(act_bits[i]), int(exp_bits[i]),
                          float(error[i]), None if math.isnan(b) else b, KINDS[k])

        # runs of failing indices
        if any_fail:
            d = np.diff(np.concatenate(([0], fail.view(np.int8), [0])))
            starts = np.flatnonzero(d == 1)
            ends = np.flatnonzero(d == -1) - 1
            s.n_runs = int(starts.size)
            s.runs = [[lo + int(a), lo + int(b)] for a, b in zip(starts[:RUNS], ends[:RUNS])]
            s.runs_cut = lo + int(starts[RUNS]) if starts.size > RUNS else None
            lead = lo + int(ends[0]) if fail[0] else None
            tail = lo + int(starts[-1]) if fail[-1] else None
        else:
            lead = tail = None
        s.segments = [Segment(lo, hi, lead, tail)]

        # error histograms: power-of-two bins of the error
        error = np.ascontiguousarray(error, dtype=np.float64)
        s.hist = _hist_counts(error)
        if any_fail:
            s.hist_fail = _hist_counts(error[fail])

        # worst error per binade
        binade = bits >> mant
        finite = np.isfinite(error)
        all_finite = bool(finite.all())
        finite_err = error if all_finite else np.where(finite, error, -1.0)
        score = error if all_finite else np.where(np.isnan(error), -1.0, error)
        need_bound = []
        for i in _argmax_groups(binade, score):
            r = rec(int(i))
            s.worst[_binade_name(int(binade[i]), nbits - 1 - mant)] = r
            need_bound.append(r)
        if any_fail:
            fi = np.flatnonzero(fail)
            sev = np.array([FAIL_SEVERITY[k] for k in range(len(KINDS))])[kind[fi]]
            with np.errstate(invalid="ignore"):
                ex = np.where(kind[fi] == 1, error[fi] - np.where(np.isnan(bound[fi]), 0.0, bound[fi]), np.inf)
            ex = np.where(np.isnan(ex), np.inf, ex)
            order = np.lexsort((fi, -ex, -sev, binade[fi]))
            bs = binade[fi][order]
            for i in fi[order[np.concatenate(([True], bs[1:] != bs[:-1]))]]:
                s.worst_fail[_binade_name(int(binade[i]), nbits - 1 - mant)] = rec(int(i))
            s.first = [rec(int(i)) for i in fi[:FIRST]]
        if bound_fn is not None:
            missing = [r for r in need_bound if r.bound is None and r.kind != "error"]
            if missing:
                idx = np.array([r.index - lo for r in missing])
                for r, b in zip(missing, bound_fn(idx)):
                    r.bound = None if math.isnan(b) else float(b)

        # special inputs: only in the binades with exponent field 0 (zeros, subnormals) or all ones
        expo = binade & ((1 << (nbits - 1 - mant)) - 1)
        if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
            edge = np.flatnonzero((expo == 0) | (expo == (1 << (nbits - 1 - mant)) - 1))
            if edge.size:
                s.specials = _specials(lo, edge, bits[edge], x[edge], None if actual is None else actual[edge],
                                       kind[edge], nbits)

        # profile bins
        pkey = bits >> profile_shift
        order, starts, keys = _groups(pkey)
        mx = np.maximum.reduceat(finite_err[order], starts) if starts.size else []
        if any_fail and starts.size:
            nf = np.add.reduceat(fail[order].astype(np.int64), starts)
        else:
            nf = np.zeros(starts.size, dtype=np.int64)
        cnt = np.diff(np.append(starts, n))
        for k, m, f, c in zip(keys, mx, nf, cnt):
            s.profile[str(int(k))] = [float(m), int(f), int(c)]

        s.errors = dict(errors or {})
        s.timing = dict(timing or {})
        return s

    # ------------------------------------------------------------------ merging
    def merge(self, other: "Summary") -> "Summary":
        """The summary of the union of two disjoint parts of the same sweep (a new object)."""
        return Summary.from_json(self.to_json()).absorb(other)

    def absorb(self, other: "Summary") -> "Summary":
        """Merge ``other`` into this summary in place (what ``merge`` does, without the copy)."""
        if self.sweep != other.sweep:
            diff = sorted(k for k in set(self.sweep) | set(other.sweep) if self.sweep.get(k) != other.sweep.get(k))
            raise MergeError("not parts of the same sweep (they differ in " + ", ".join(diff) + ")")
        # segments: sorted, disjoint; adjacent ones join (and join their failing runs)
        segs = sorted([Segment(**vars(g)) for g in self.segments + other.segments], key=lambda g: g.lo)
        n_runs = self.n_runs + other.n_runs
        joined: list[Segment] = []
        for g in segs:
            if joined and g.lo <= joined[-1].hi:
                raise MergeError(f"the parts overlap: indices 0x{g.lo:x}..0x{min(g.hi, joined[-1].hi):x} are in both")
            if joined and joined[-1].hi + 1 == g.lo:
                p = joined[-1]
                if p.tail is not None and g.lead is not None:
                    n_runs -= 1
                lead = (g.lead if g.lead is not None else p.hi) if p.lead == p.hi else p.lead
                tail = (p.tail if p.tail is not None else g.lo) if g.tail == g.lo else g.tail
                joined[-1] = Segment(p.lo, g.hi, lead, tail)
            else:
                joined.append(g)
        self.segments = joined
        self.n_runs = n_runs
        # runs: exact below the smaller cut
        cuts = [c for c in (self.runs_cut, other.runs_cut) if c is not None]
        cut = min(cuts) if cuts else None
        rs = sorted([list(r) for r in self.runs + other.runs if cut is None or r[0] < cut])
        merged: list[list[int]] = []
        for a, b in rs:
            if cut is not None:
                b = min(b, cut - 1)
            if merged and merged[-1][1] + 1 >= a:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        if len(merged) > RUNS:
            cut = merged[RUNS][0]
            merged = merged[:RUNS]
        self.runs, self.runs_cut = merged, cut
        self.counts = _add(self.counts, other.counts)
        self.hist = _add(self.hist, other.hist)
        self.hist_fail = _add(self.hist_fail, other.hist_fail)
        self.worst = _best(self.worst, other.worst, Record.key_error)
        self.worst_fail = _best(self.worst_fail, other.worst_fail, Record.key_fail)
        self.first = sorted(self.first + other.first, key=lambda r: r.index)[:FIRST]
        self.specials = _merge_specials(self.specials, other.specials)
        prof = self.profile
        for k, (m, f, c) in other.profile.items():
            if k in prof:
                m0, f0, c0 = prof[k]
                prof[k] = [max(m0, m), f0 + f, c0 + c]
            else:
                prof[k] = [m, f, c]
        errs = _add(self.errors, other.errors)
        self.errors = {k: errs[k] for k in sorted(errs)[:ERRORS]}
        self.timing = _add(self.timing, other.timing)
        return self

    # ------------------------------------------------------------------ JSON
    def to_json(self, timing: bool = True) -> dict:
        d = {
            "format": "specgen-sweep-summary/1",
            "sweep": self.sweep,
            "covered": [[g.lo, g.hi] for g in self.segments],
            "segments": [[g.lo, g.hi, g.lead, g.tail] for g in self.segments],
            "counts": dict(sorted(self.counts.items(), key=lambda kv: KINDS.index(kv[0]))),
            "total": self.total,
            "failures": self.failures,
            "worst": {k: self.worst[k].to_json() for k in sorted(self.worst, key=_binade_order)},
            "worst_fail": {k: self.worst_fail[k].to_json() for k in sorted(self.worst_fail, key=_binade_order)},
            "hist": dict(sorted(self.hist.items(), key=lambda kv: hist_order(kv[0]))),
            "hist_fail": dict(sorted(self.hist_fail.items(), key=lambda kv: hist_order(kv[0]))),
            "first": [r.to_json() for r in self.first],
            "specials": {k: self.specials[k] for k in SPECIAL_CATEGORIES if k in self.specials},
            "n_runs": self.n_runs,
            "runs": self.runs,
            "runs_cut": self.runs_cut,
            "profile": {k: [_num(v[0]), v[1], v[2]] for k, v in sorted(self.profile.items(), key=lambda kv: int(kv[0]))},
            "errors": dict(sorted(self.errors.items())),
        }
        if timing:
            d["timing"] = {k: round(v, 6) for k, v in sorted(self.timing.items())}
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Summary":
        if d.get("format") != "specgen-sweep-summary/1":
            raise MergeError(f"not a sweep summary (format {d.get('format')!r})")
        s = cls(d["sweep"])
        s.segments = [Segment(*g) for g in d["segments"]]
        s.counts = dict(d["counts"])
        s.worst = {k: Record.from_json(v) for k, v in d["worst"].items()}
        s.worst_fail = {k: Record.from_json(v) for k, v in d["worst_fail"].items()}
        s.hist, s.hist_fail = dict(d["hist"]), dict(d["hist_fail"])
        s.first = [Record.from_json(r) for r in d["first"]]
        s.specials = d["specials"]
        s.n_runs, s.runs, s.runs_cut = d["n_runs"], [list(r) for r in d["runs"]], d["runs_cut"]
        s.profile = {k: [_unnum(v[0]), v[1], v[2]] for k, v in d["profile"].items()}
        s.errors = dict(d["errors"])
        s.timing = dict(d.get("timing", {}))
        return s


def merge_all(parts) -> Summary:
    parts = list(parts)
    if not parts:
        raise MergeError("nothing to merge")
    out = Summary.from_json(parts[0].to_json())
    for p in parts[1:]:
        out.absorb(p)
    return out


def _groups(key: np.ndarray):
    """(order, group starts, group keys): ``order`` sorts ``key`` stably (a slice when it already
    is sorted, as it is in chunks of bits and sample spaces)."""
    if not key.size or np.all(key[1:] >= key[:-1]):
        order, ks = slice(None), key
    else:
        order = np.argsort(key, kind="stable")
        ks = key[order]
    starts = np.flatnonzero(np.concatenate(([True], ks[1:] != ks[:-1]))) if ks.size else np.zeros(0, dtype=np.int64)
    return order, starts, ks[starts]


def _argmax_groups(key: np.ndarray, score: np.ndarray) -> list[int]:
    """Per group of equal ``key``, the index of the largest ``score`` (ties: the lowest index)."""
    order, starts, _ = _groups(key)
    if not starts.size:
        return []
    sc = score[order]
    mx = np.maximum.reduceat(sc, starts)
    ends = np.append(starts[1:], sc.size)
    at_max = np.flatnonzero(sc == np.repeat(mx, ends - starts))
    first = at_max[np.searchsorted(at_max, starts)]
    idx = first if isinstance(order, slice) else order[first]  # a stable sort keeps ties in index order
    return [int(i) for i in idx]


_MANT = np.uint64(0xFFFFFFFFFFFFF)
_INF_BITS = np.uint64(0x7FF0000000000000)
_HIST_LABELS = ["zero"] + [str(k) for k in range(HIST_MIN, HIST_MAX + 1)] + ["inf", "nan"]
# float64 biased exponent e of ceil(log2(error)) + 1023 (1..2047) -> its clipped bin (1 .. HIST_MAX - HIST_MIN + 1)
_EXP_BIN = np.clip(np.arange(1, 2048) - 1023, HIST_MIN, HIST_MAX) - (HIST_MIN - 1)


def _hist_counts(error: np.ndarray) -> dict[str, int]:
    """Elements per error bin, the bin being ceil(log2(error)) clipped to [HIST_MIN, HIST_MAX]
    (``_hist_key``), read off the float64 bits: adding an all-ones significand to the magnitude's
    bits carries into the exponent exactly when the significand is not zero, so the exponent
    field of the sum is ceil(log2(error)) + 1023; 0 for a zero, 2047 for inf (and for finite
    errors beyond 2^1023), more for NaN."""
    mag = error.view(np.uint64) & np.uint64(0x7FFFFFFFFFFFFFFF)
    c = np.bincount(((mag + _MANT) >> np.uint64(52)).view(np.int64), minlength=4096)
    bins = np.zeros(len(_HIST_LABELS), dtype=np.int64)
    bins[0] = c[0]
    inf = int(np.count_nonzero(mag == _INF_BITS)) if c[2047] else 0
    c[2047] -= inf
    bins[:-2] += np.bincount(_EXP_BIN, weights=c[1:2048], minlength=len(_HIST_LABELS) - 2).astype(np.int64)
    bins[-2], bins[-1] = inf, c[2048:].sum()
    return {_HIST_LABELS[i]: int(bins[i]) for i in np.flatnonzero(bins)}


def _add(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def _best(a: dict, b: dict, key) -> dict:
    out = dict(a)
    for k, r in b.items():
        if k not in out or key(r) > key(out[k]):
            out[k] = r
    return out


def _binade_name(binade: int, exp_bits: int) -> str:
    sign = "-" if binade >> exp_bits else "+"
    return f"{sign}{binade & ((1 << exp_bits) - 1)}"


def _binade_order(name: str):
    e = int(name[1:])
    return (-e if name[0] == "-" else 1e6 + e)


def _out_class(v: np.ndarray, nbits: int) -> np.ndarray:
    """Output class labels per element."""
    from specgen.numerics import ulp as U

    with np.errstate(all="ignore"):
        f = v.astype(np.float64)
    tiny = U.fmt(v.dtype).min_normal
    neg = np.signbit(f)
    out = np.where(np.isnan(f), "nan",
                   np.where(np.isinf(f), np.where(neg, "-inf", "+inf"),
                            np.where(f == 0, np.where(neg, "-0", "+0"),
                                     np.where(np.abs(f) < tiny, np.where(neg, "-subnormal", "+subnormal"),
                                              np.where(neg, "-normal", "+normal")))))
    return out


def _specials(lo, where, bits, x, actual, kind, nbits) -> dict:
    from specgen.numerics import ulp as U

    with np.errstate(all="ignore"):
        f = x.astype(np.float64)
    tiny = U.fmt(x.dtype).min_normal
    neg = np.signbit(f)
    masks = {
        "nan": np.isnan(f), "+inf": f == np.inf, "-inf": f == -np.inf,
        "+0": (f == 0) & ~neg, "-0": (f == 0) & neg,
        "+subnormal": (f != 0) & (np.abs(f) < tiny) & ~neg, "-subnormal": (f != 0) & (np.abs(f) < tiny) & neg,
    }
    u = np.dtype(f"uint{nbits}")
    out = {}
    for cat, m in masks.items():
        idx = np.flatnonzero(m)
        if not idx.size:
            continue
        ok_out = kind[idx] != ERROR
        outputs: dict[str, int] = {}
        if actual is not None and ok_out.any():
            cls, c = np.unique(_out_class(actual[idx[ok_out]], nbits), return_counts=True)
            outputs = {str(k): int(v) for k, v in zip(cls, c)}
        if (~ok_out).any():
            outputs["error"] = int((~ok_out).sum())
        kc = np.bincount(kind[idx], minlength=len(KINDS))
        verdicts = {KINDS[i]: int(kc[i]) for i in np.flatnonzero(kc)}
        ex = []
        for i in idx[:EXAMPLES]:
            ab = None if kind[i] == ERROR or actual is None else int(actual[i:i + 1].view(u)[0])
            ex.append([lo + int(where[i]), int(bits[i]), ab, KINDS[int(kind[i])]])
        out[cat] = {"count": int(idx.size), "outputs": outputs, "verdicts": verdicts, "examples": ex}
    return out


def _merge_specials(a: dict, b: dict) -> dict:
    out = {}
    for cat in SPECIAL_CATEGORIES:
        if cat not in a and cat not in b:
            continue
        x, y = a.get(cat), b.get(cat)
        if x is None or y is None:
            out[cat] = x or y
            continue
        out[cat] = {"count": x["count"] + y["count"], "outputs": _add(x["outputs"], y["outputs"]),
                    "verdicts": _add(x["verdicts"], y["verdicts"]),
                    "examples": sorted(x["examples"] + y["examples"], key=lambda e: e[0])[:EXAMPLES]}
    return out
