"""The accuracy matrix: every sweepable operator (specgen.sweep.catalog) x backend x dtype, each
cell one sweep (specgen.sweep.run, the same chunk function and judge as ``specgen sweep``), its JSON
report kept in a results folder, and the whole rendered as one Markdown page and one JSON file.

A cell's JSON is written when its sweep finishes; a later run skips every cell whose JSON says it
is complete (resumable), and a float32 sweep keeps its finished chunks under ``.chunks/`` so that
an interrupted cell continues where it stopped. ``--shard K/N`` runs every N-th cell (CI jobs), and
rendering reads whatever cells the folder holds, so shards merge by copying their folders together.
"""
from __future__ import annotations

import json
import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from specgen import dtypes as dt
from specgen.sweep import catalog, provenance
from specgen.sweep.summary import Summary

CELL_FORMAT = "specgen-matrix-cell/1"
MATRIX_FORMAT = "specgen-accuracy/1"
KEEP_WORST = 16  # binades whose worst element a cell's JSON keeps
SPECIAL_ORDER = ("nan", "+inf", "-inf", "+0", "-0", "+subnormal", "-subnormal")


@dataclass(frozen=True)
class Cell:
    unit: catalog.SweepUnit
    adapter: str
    dtype: str
    mode: str  # "exhaustive" (every bit pattern) or "sample" (stratified)

    def path(self, root: Path) -> Path:
        return Path(root) / self.folder / _safe(self.adapter) / f"{self.unit.key}.json"

    def chunks(self, root: Path) -> Path:
        return Path(root) / ".chunks" / self.folder / _safe(self.adapter) / self.unit.key

    @property
    def folder(self) -> str:
        """The dtype, with -sample where a dtype narrow enough for every bit pattern is sampled."""
        return f"{self.dtype}-sample" if self.mode == "sample" and dt.get(self.dtype).bits <= 32 else self.dtype


def _safe(name: str) -> str:
    """An adapter name as a folder name (module:Class -> module.Class)."""
    return "".join(c if c.isalnum() or c in "-_." else "." for c in name)


def parse_adapter(text: str) -> tuple[str, str | None]:
    """``NAME`` or ``NAME@STANDARD`` (webnn-chromium@webnn): the adapter (a registered name or
    module:Class) and the standard its calls follow (default: the operator's first of
    catalog.PREFERRED_STANDARDS that gives its attributes defaults)."""
    name, _, standard = text.partition("@")
    return name, standard or None


def plan(specs: dict, adapters: list[str], dtypes: list[str], sample_dtypes: set[str] = frozenset(),
         ops: set[str] | None = None) -> list[Cell]:
    """Every cell, in a fixed order: dtype, adapter, operator, attribute set. A unit whose standard
    does not list the dtype (at its latest version) has no cell."""
    out = []
    for dtype in dtypes:
        for text in adapters:
            name, standard = parse_adapter(text)
            for op_id in sorted(specs):
                if ops and op_id not in ops:
                    continue
                spec = specs[op_id]
                std_key = standard or catalog.sweep_standard(spec)  # the catalog's own choice (units())
                if std_key is None or std_key not in spec.standards:
                    continue
                if standard and catalog.standard_for(spec, (standard,)) is None:
                    continue
                latest = spec.standards[std_key].versions[-1]
                if dtype not in latest.dtypes():
                    continue
                for unit in catalog.units(spec, std_key):
                    mode = "sample" if dtype in sample_dtypes or dt.get(dtype).bits > 32 else "exhaustive"
                    out.append(Cell(unit, name, dtype, mode))
    return out


def shard(cells: list[Cell], k: int, n: int) -> list[Cell]:
    """The K-th (1-based) of N interleaved parts: cell i belongs to part i % N + 1."""
    return [c for i, c in enumerate(cells) if i % n == k - 1]


def kept_binades(s: Summary) -> set[str]:
    """The binades whose worst element a cell's JSON keeps: the KEEP_WORST largest errors, and the
    largest finite one (an overflow to inf, accepted, must not hide the largest rounding error)."""
    ranked = sorted(s.worst.items(), key=lambda kv: kv[1].key_error(), reverse=True)
    keep = {k for k, _ in ranked[:KEEP_WORST]}
    finite = [k for k, r in ranked if r.error is not None and math.isfinite(float(r.error))]
    return keep | set(finite[:1])


def kept_fail_binades(s: Summary) -> set[str]:
    """The binades whose worst failing element a cell's JSON keeps: the KEEP_WORST worst failures
    (compare's severity, then the excess over the bound), and the worst of each failure kind (a
    cancellation must not hide the value errors). A float64 cell has up to 4,096 binades: all of
    them made a failing cell's JSON up to half a megabyte."""
    ranked = sorted(s.worst_fail.items(), key=lambda kv: kv[1].key_fail(), reverse=True)
    keep = {k for k, _ in ranked[:KEEP_WORST]}
    kinds: dict[str, str] = {}
    for k, r in ranked:
        kinds.setdefault(r.kind, k)
    return keep | set(kinds.values())


def trim_summary(summary_json: dict, s: Summary) -> dict:
    """A cell's summary as its JSON keeps it: no per-bin profile, the worst element of the kept
    binades only (kept_binades, kept_fail_binades)."""
    keep, keep_fail = kept_binades(s), kept_fail_binades(s)
    return {**summary_json, "profile": {},
            "worst": {k: v for k, v in summary_json["worst"].items() if k in keep},
            "worst_fail": {k: v for k, v in summary_json.get("worst_fail", {}).items() if k in keep_fail}}


def largest_finite_error(s: Summary):
    errors = [float(r.error) for r in s.worst.values() if r.error is not None and math.isfinite(float(r.error))]
    return max(errors, default=None)


def is_done(cell: Cell, root: Path, specs: dict) -> bool:
    """The cell's JSON is complete (or says the adapter does not claim it) and was judged by the
    current spec and judge (specgen.sweep.provenance): a stale cell is run again."""
    p = cell.path(root)
    if not p.exists():
        return False
    try:
        d = json.loads(p.read_text())
    except (OSError, ValueError):
        return False
    if provenance.stale_reasons(d, specs.get(cell.unit.op)):
        return False
    return d.get("status") == "not-claimed" or bool(d.get("info", {}).get("complete"))


PROVENANCE_FILE = "provenance.json"


def _fresh_chunks(cell: Cell, root: Path, now: dict, spec) -> str:
    """The cell's resume folder, emptied first when its finished chunks were judged by another spec
    or a judge that judges this operator otherwise (or by a version that did not record which):
    chunks of two judgements never merge."""
    d = cell.chunks(root)
    mark = d / PROVENANCE_FILE
    if d.exists():
        try:
            had = json.loads(mark.read_text())
        except (OSError, ValueError):
            had = None
        if not provenance.same_judgement(had, now, spec, cell.dtype):
            shutil.rmtree(d)
    d.mkdir(parents=True, exist_ok=True)
    if not mark.exists():
        _write(mark, json.dumps(now, sort_keys=True))
    return str(d)


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text) if isinstance(text, str) else tmp.write_bytes(text)
    os.replace(tmp, path)


def run_cell(cell: Cell, root: Path, specs: dict, loaded: dict, *, workers: int, scheduler: str = "local",
             samples: int = 4096, chunk_size: int | None = None, plots: bool = True, log=None) -> dict:
    """Sweep one cell and write its JSON (and thumbnail plot); returns the JSON written. The JSON is
    ``specgen sweep --json``'s report (without the per-bin profile, and with the worst element and
    the worst failure of the KEEP_WORST worst binades only) and the cell's identity."""
    from specgen.adapters.registry import load
    from specgen.sweep import report
    from specgen.sweep.run import DEFAULT_CHUNK, NotClaimed, execute, prepare

    u = cell.unit
    if cell.adapter not in loaded:
        loaded[cell.adapter] = load(cell.adapter)
    base = {"format": CELL_FORMAT, "op": u.op, "label": u.label, "standard": u.standard,
            "attribute_set": u.attribute_set, "attributes": dict(u.attributes),
            "extra_inputs": dict(u.extra_inputs), "adapter": cell.adapter, "dtype": cell.dtype, "mode": cell.mode,
            "provenance": provenance.provenance(specs[u.op])}
    try:
        p = prepare(cell.adapter, u.op, u.standard, None, cell.dtype, dict(u.attributes),
                    chunk_size=chunk_size or DEFAULT_CHUNK, samples=samples, specs=specs,
                    loaded=loaded[cell.adapter], extra_inputs=dict(u.extra_inputs), sample=cell.mode == "sample")
    except NotClaimed as exc:
        out = {**base, "status": "not-claimed", "why": str(exc)}
        _write(cell.path(root), json.dumps(out, indent=1, sort_keys=True))
        return out
    resume = _fresh_chunks(cell, root, base["provenance"], specs[u.op]) if dt.get(cell.dtype).bits >= 32 else None
    outcome = execute(p, workers=workers, scheduler=scheduler, resume=resume, log=log)
    s, info = outcome.summary, outcome.info
    out = {**report.to_json(s, info), **base, "status": "swept"}
    png = cell.path(root).with_suffix(".png")
    if png.exists():
        png.unlink()  # a plot of an earlier run of the cell
    # a plot per failing cell: the page shows those only (a passing cell's error profile is one
    # `specgen sweep ... --markdown` away), and 8 KB per cell is most of the results' bytes
    if s is not None and plots and info.get("complete") and s.failures:
        try:
            png.parent.mkdir(parents=True, exist_ok=True)
            report.plot(s, str(png), title=f"{u.label} {cell.dtype} on {cell.adapter}: {s.failures:,} of "
                                            f"{s.total:,} failing", small=True)
        except ImportError:
            pass
    if out.get("summary"):
        # the per-bin profile (what the plot draws: 1,024 bins in 16 bits, 8,192 in float32) is most of
        # a cell's bytes; the thumbnail keeps it, the JSON keeps everything else
        # and the worst element of each of up to 512 binades (4,096 in float64) is the next most
        out["summary"] = trim_summary(out["summary"], s)
    _write(cell.path(root), json.dumps(out, indent=None, sort_keys=True, separators=(",", ":")))
    return out


# ----------------------------------------------------------------------------- reading results

def load_cells(root: Path) -> list[dict]:
    out = []
    for p in sorted(Path(root).glob("*/*/*.json")):
        try:
            d = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if d.get("format") == CELL_FORMAT:
            d["_path"] = str(p)
            out.append(d)
    return out


def cell_facts(d: dict, specs: dict | None = None) -> dict:
    """What the page and accuracy.json say about one cell: verdict, shares per error class, the
    worst element (input, expected, actual in hex), what special inputs gave, the command that
    re-runs the worst element, the plot; with ``specs``, why it is stale (``stale``: [] when it was
    judged by the current spec and judge)."""
    from specgen.sweep import report

    facts = {k: d[k] for k in ("op", "label", "standard", "attribute_set", "attributes", "extra_inputs",
                               "adapter", "dtype", "mode", "status")}
    facts["provenance"] = d.get("provenance")
    if specs is not None:
        facts["stale"] = provenance.stale_reasons(d, specs.get(d["op"]))
    if d["status"] != "swept":
        facts["why"] = d.get("why", "")
        return facts
    s = Summary.from_json(d["summary"])
    info = d["info"]
    dtype = d["dtype"]
    facts.update({"backend": info.get("backend"), "complete": bool(info.get("complete")), "total": s.total,
                  "failures": s.failures, "counts": dict(s.counts),
                  "shares": {k: v / s.total for k, v in s.counts.items()} if s.total else {}})
    worst = max(s.worst.values(), key=lambda r: r.key_error(), default=None)
    worst_fail = max(s.worst_fail.values(), key=lambda r: r.key_fail(), default=None)
    pick = worst_fail if worst_fail is not None else worst
    if pick is not None:
        facts["worst"] = {"kind": pick.kind, "error_ulp": _finite(pick.error), "bound_ulp": _finite(pick.bound),
                          "input": report._val(dtype, pick.bits), "input_hex": report._hex(dtype, pick.bits),
                          "expected": report._val(dtype, pick.expected), "expected_hex": report._hex(dtype, pick.expected),
                          "actual": report._val(dtype, pick.actual), "actual_hex": report._hex(dtype, pick.actual),
                          "rerun": report.rerun_from(info, pick.bits, dtype)}
    if worst is not None:
        facts["largest_error_ulp"] = _finite(worst.error)
        facts["largest_finite_error_ulp"] = largest_finite_error(s)
    facts["specials"] = {cat: _top_output(s.specials[cat]) for cat in SPECIAL_ORDER if cat in s.specials}
    png = Path(d["_path"]).with_suffix(".png")
    if png.exists():
        facts["plot"] = str(png)
    return facts


def _finite(v):
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else ("inf" if v > 0 else ("-inf" if v < 0 else "nan"))


def _top_output(rec: dict) -> dict:
    """The output class special inputs gave most often, and how many of them failed."""
    outs = rec.get("outputs", {})
    top = max(outs.items(), key=lambda kv: kv[1])[0] if outs else "—"
    failed = sum(n for k, n in rec.get("verdicts", {}).items() if k != "pass")
    return {"output": top, "count": rec.get("count", 0), "other_outputs": len(outs) - 1 if outs else 0, "failed": failed}
