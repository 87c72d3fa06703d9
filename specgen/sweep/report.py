"""Sweep reports: terminal text, JSON, Markdown and a PNG plot of error (ULP) against input value.

All are renderings of one merged ``Summary`` plus the run's ``info`` (adapter, scheduler, wall
time, completeness). The JSON report is what ``specgen sweep-merge`` reads back.
"""
from __future__ import annotations

import json
import math

import numpy as np

from specgen import dtypes as dt
from specgen.sweep.judge import KINDS
from specgen.sweep.summary import FIRST, HIST_MIN, Summary, hist_label, hist_order

FORMAT = "specgen-sweep-report/1"
CLASS_TEXT = {
    "pass": "pass",
    "value": "value error beyond the bound",
    "nan-mismatch": "NaN where a number is due (or the reverse)",
    "inf-mismatch": "infinity mismatch",
    "cancellation": "zero where the exact value is a normal number (total cancellation)",
    "signed-zero": "zero of the wrong sign",
    "flush": "subnormal result flushed to zero",
    "error": "adapter error or crash",
}


def _val(dtype: str, bits: int | None) -> str:
    if bits is None:
        return "—"
    d = dt.get(dtype)
    v = np.array([bits], dtype=f"uint{d.bits}").view(d.numpy)[0]
    from specgen.numerics import ulp as U

    return U.decimal(v, d.numpy)


def _hex(dtype: str, bits: int | None) -> str:
    if bits is None:
        return "—"
    return f"0x{bits:0{dt.get(dtype).bits // 4}x}"


def _ulps(v) -> str:
    if v is None:
        return "—"
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf"
    if abs(v) < 1e5:
        return f"{v:.3g}"
    return f"{v:,.0f}" if abs(v) < 1e12 else f"{v:.3e}"


def rerun(info: dict, lo: int, hi: int, dtype: str) -> str:
    w = dt.get(dtype).bits // 4
    return f"{info['rerun']} --range 0x{lo:0{w}x}:0x{hi:0{w}x}"


# A kernel can compute a lone element on another path than a batch's: onnxruntime's float64 cos and
# sin take pairs of elements through a vectorised path, 1,695 and 4,518 ULP off near their zeros,
# and a lone element (or the last of an odd count) through the scalar libm, correct, so a
# one-element command would not reproduce what the sweep found; torch's AVX512 kernels take their
# vectorised path from 32 float32 elements (two 16-lane vectors: its tanh-form Gelu gives -0 for
# x = -5.0613809 in a tensor of 32 or more, -1.5e-07 in one of 31 or fewer). The command for a
# cell's worst input re-runs it and the bit patterns after it, a group of RERUN_SPAN: two vectors
# of the widest lanes (32 float16 in 512 bits).
RERUN_SPAN = 64


def rerun_from(info: dict, bits: int, dtype: str) -> str:
    """The command that re-runs ``bits`` and the RERUN_SPAN - 1 bit patterns after it (the dtype's
    last pattern at most): the input first, in a batch of neighbours."""
    top = (1 << dt.get(dtype).bits) - 1
    return rerun(info, bits, min(bits + RERUN_SPAN - 1, top), dtype)


def rerun_first(info: dict, s: Summary, dtype: str) -> str | None:
    """One command that re-runs exactly the first failing inputs."""
    if not s.first:
        return None
    w = dt.get(dtype).bits // 4
    return info["rerun"] + "".join(f" --range 0x{r.bits:0{w}x}:0x{r.bits:0{w}x}" for r in s.first)


def status_line(s: Summary | None, info: dict) -> str:
    if s is None:
        return "nothing was swept"
    sw = s.sweep
    attrs = ", ".join(f"{k}={v}" if isinstance(v, str) else f"{k}={v:.9g}" for k, v in sw["attributes"].items())
    state = "complete" if info.get("complete") else ("INTERRUPTED, partial" if info.get("interrupted") else "partial")
    fails = s.failures
    return (f"{sw['op']}({attrs}) {sw['standard']}-{sw['version']} {sw['dtype']} on {sw['adapter']}: "
            f"{s.total:,} inputs ({state}), {fails:,} failing"
            + (f" in {s.n_runs:,} runs" if fails and sw["space"]["kind"] == "bits" else ""))


def to_json(s: Summary | None, info: dict) -> dict:
    out = {"format": FORMAT, "info": info, "summary": s.to_json() if s else None}
    if s is not None:
        dtype = s.sweep["dtype"]
        out["rerun_first"] = rerun_first(info, s, dtype)
        out["first_rerun"] = [rerun(info, r.bits, r.bits, dtype) for r in s.first]
    return out


def render_json(s, info) -> str:
    """Compact (a full float32 sweep's report is ~270 KB this way, twice that indented)."""
    return json.dumps(to_json(s, info), sort_keys=True, separators=(",", ":")) + "\n"


def terminal(s: Summary | None, info: dict) -> str:
    lines = [status_line(s, info)]
    if s is None:
        return "\n".join(lines)
    dtype = s.sweep["dtype"]
    lines.append("  " + ", ".join(f"{k} {v:,}" for k, v in sorted(s.counts.items(), key=lambda kv: KINDS.index(kv[0]))))
    worst = max(s.worst.values(), key=lambda r: r.key_error(), default=None)
    if worst is not None:
        lines.append(f"  largest error {_ulps(worst.error)} ULP (bound {_ulps(worst.bound)}) at x = "
                     f"{_val(dtype, worst.bits)} ({_hex(dtype, worst.bits)}), {worst.kind}")
    if s.first:
        r = s.first[0]
        lines.append(f"  first failure: x = {_val(dtype, r.bits)} ({_hex(dtype, r.bits)}): got {_val(dtype, r.actual)} "
                     f"({_hex(dtype, r.actual)}), expected {_val(dtype, r.expected)} ({_hex(dtype, r.expected)}), "
                     f"{r.kind}, error {_ulps(r.error)} ULP > bound {_ulps(r.bound)}")
        lines.append(f"  re-run: {rerun_from(info, r.bits, dtype)}")
    if s.runs and s.sweep["space"]["kind"] == "bits":
        shown = s.runs[:5]
        lines.append("  failing ranges: " + "; ".join(_range_text(dtype, a, b) for a, b in shown)
                     + (f"; ... ({s.n_runs:,} in all)" if s.n_runs > len(shown) else ""))
    for msg, n in list(s.errors.items())[:3]:
        lines.append(f"  adapter error ({n:,} inputs): {msg}")
    t = s.timing
    if t.get("elements"):
        per = {k: 1e9 * t.get(k, 0.0) / t["elements"] for k in ("inputs", "golden", "adapter", "compare", "summary")}
        lines.append(f"  {info.get('wall_seconds', 0):.1f} s wall; per element (one core): "
                     + ", ".join(f"{k} {v:.0f} ns" for k, v in per.items()))
    return "\n".join(lines)


def _range_text(dtype, a, b) -> str:
    if a == b:
        return f"{_hex(dtype, a)} ({_val(dtype, a)})"
    return f"[{_hex(dtype, a)}, {_hex(dtype, b)}] ({b - a + 1:,} values, {_val(dtype, a)} .. {_val(dtype, b)})"


def markdown(s: Summary | None, info: dict, plot_name: str | None = None) -> str:
    out = [f"# Sweep: {status_line(s, info)}", ""]
    if s is None:
        return "\n".join(out) + "\n"
    sw = s.sweep
    dtype = sw["dtype"]
    space = info.get("space", {})
    if space.get("kind") == "sample":
        what = (f"a stratified seeded sample of {dtype}: {space['per_binade']} values in each of the "
                f"{space['strata']} (sign, exponent) strata (seed {space['seed']}), plus "
                f"{space['breakpoint_values']} values at and around the formula's breakpoints")
    else:
        rs = sw["space"]["ranges"]
        what = ("every " + dtype + " bit pattern" if rs == [[0, (1 << dt.get(dtype).bits) - 1]]
                else "bit patterns " + ", ".join(f"[{_hex(dtype, a)}, {_hex(dtype, b)}]" for a, b in rs))
    out += [f"- inputs: {what}",
            f"- adapter: `{sw['adapter']}` ({sw['backend']})",
            "- attributes: " + (", ".join(f"{k} = {v!r}" for k, v in sw["attributes"].items()) or "none")
            + (" (the standard's defaults, not passed)" if not sw["attributes_given"] else ""),
            f"- run: {info.get('scheduler')} scheduler, {info.get('workers')} worker(s)"
            + (f", shard {info['shard']}" if info.get("shard") else "")
            + f", {info.get('wall_seconds', 0):,.1f} s wall" + ("" if info.get("complete") else " (not complete)"),
            ""]
    if plot_name:
        out += [f"![error in ULP against input value]({plot_name})", ""]
    out += ["## Verdicts", "", "| class | inputs | share |", "| --- | ---: | ---: |"]
    for k in KINDS:
        if k in s.counts:
            out.append(f"| {CLASS_TEXT[k]} | {s.counts[k]:,} | {100 * s.counts[k] / max(s.total, 1):.4g}% |")
    out.append(f"| **total** | **{s.total:,}** | |")
    out.append("")
    # largest finite errors (the failures, infinite ones included, come next)
    worst = sorted((r for r in s.worst.values() if math.isfinite(r.error)), key=lambda r: r.key_error(), reverse=True)
    if worst:
        out += ["## Largest errors", "",
                "The element with the largest finite error (ULP of the output dtype) in each binade of the input, "
                "the ten largest shown; the JSON report has every binade.", "",
                "| binade | x | bits | expected | actual | error (ULP) | bound (ULP) | verdict |",
                "| --- | --- | --- | --- | --- | ---: | ---: | --- |"]
        names = {id(r): k for k, r in s.worst.items()}
        for r in worst[:10]:
            out.append(f"| {_binade_text(names[id(r)], dtype)} | {_val(dtype, r.bits)} | `{_hex(dtype, r.bits)}` | "
                       f"{_val(dtype, r.expected)} | {_val(dtype, r.actual)} | {_ulps(r.error)} | {_ulps(r.bound)} | {r.kind} |")
        out.append("")
    if s.worst_fail:
        by_kind: dict[str, list] = {}
        for name, r in s.worst_fail.items():
            by_kind.setdefault(r.kind, []).append((name, r))
        out += ["## Worst failure per binade", "",
                f"{len(s.worst_fail)} binades of the input have failing elements; per failure kind, the binades "
                "with the worst (up to 8 per kind; the JSON report has every binade):", "",
                "| binade | x | bits | expected | actual | error (ULP) | bound (ULP) | kind |",
                "| --- | --- | --- | --- | --- | ---: | ---: | --- |"]
        for kind in KINDS:
            rows = sorted(by_kind.get(kind, []), key=lambda kv: kv[1].key_fail(), reverse=True)
            for name, r in rows[:8]:
                out.append(f"| {_binade_text(name, dtype)} | {_val(dtype, r.bits)} | `{_hex(dtype, r.bits)}` | "
                           f"{_val(dtype, r.expected)} | {_val(dtype, r.actual)} | {_ulps(r.error)} | {_ulps(r.bound)} "
                           f"| {r.kind} |")
            if len(rows) > 8:
                out.append(f"| … {len(rows) - 8} more binades with {kind} | | | | | | | |")
        out.append("")
    # histogram
    out += ["## Error histogram", "", "| error (ULP) | inputs | failing |", "| --- | ---: | ---: |"]
    for k in sorted(set(s.hist) | set(s.hist_fail), key=hist_order):
        label = hist_label(k) if k != str(HIST_MIN) else f"(0, 2^{HIST_MIN}]"
        out.append(f"| {label} | {s.hist.get(k, 0):,} | {s.hist_fail.get(k, 0):,} |")
    out += ["", "Non-finite inputs count as 0 where they pass and inf where they fail.", ""]
    # specials
    if s.specials:
        out += ["## Special inputs", "", "| input | count | backend gave | verdicts | example |",
                "| --- | ---: | --- | --- | --- |"]
        for cat, d in s.specials.items():
            gave = ", ".join(f"{k} ×{v:,}" for k, v in sorted(d["outputs"].items()))
            ver = ", ".join(f"{k} {v:,}" for k, v in sorted(d["verdicts"].items()))
            ex = d["examples"][0] if d["examples"] else None
            exs = f"{_val(dtype, ex[1])} → {_val(dtype, ex[2])}" if ex else ""
            out.append(f"| {cat} | {d['count']:,} | {gave} | {ver} | {exs} |")
        out.append("")
    # runs
    if s.n_runs and sw["space"]["kind"] == "bits":
        out += ["## Failing input ranges", "",
                f"{s.n_runs:,} contiguous runs of failing bit patterns"
                + (f"; the first {len(s.runs)} (runs from {_hex(dtype, s.runs_cut)} on are not listed):" if s.runs_cut is not None
                   else ":"), ""]
        for a, b in s.runs[:50]:
            out.append(f"- {_range_text(dtype, a, b)}")
        if len(s.runs) > 50:
            out.append(f"- … {len(s.runs) - 50} more listed in the JSON report")
        out.append("")
    if s.first:
        out += [f"## First failing inputs (up to {FIRST})", "",
                "| x | bits | expected | actual | error (ULP) | bound | kind |", "| --- | --- | --- | --- | ---: | ---: | --- |"]
        for r in s.first:
            out.append(f"| {_val(dtype, r.bits)} | `{_hex(dtype, r.bits)}` | {_val(dtype, r.expected)} | "
                       f"{_val(dtype, r.actual)} | {_ulps(r.error)} | {_ulps(r.bound)} | {r.kind} |")
        out += ["", "Re-run exactly these inputs:", "", "```sh", rerun_first(info, s, dtype), "```", ""]
    if s.errors:
        out += ["## Adapter errors", ""]
        out += [f"- {n:,} input(s): `{m}`" for m, n in s.errors.items()]
        out.append("")
    t = s.timing
    if t.get("elements"):
        out += ["## Timing", "",
                f"{info.get('wall_seconds', 0):,.1f} s wall for {info.get('elements_this_run', 0):,} inputs this run. "
                "Per element, summed over workers (one core):", "",
                "| stage | ns/element | share |", "| --- | ---: | ---: |"]
        stages = ("inputs", "golden", "adapter", "compare", "summary")
        tot = sum(t.get(k, 0.0) for k in stages) or 1.0
        for k in stages:
            out.append(f"| {k} | {1e9 * t.get(k, 0.0) / t['elements']:,.0f} | {100 * t.get(k, 0.0) / tot:.0f}% |")
        out.append("")
    return "\n".join(out)


def _binade_text(name: str, dtype: str) -> str:
    from specgen.numerics import ulp as U

    f = U.fmt(dtype)
    e = int(name[1:])
    sign = "−" if name[0] == "-" else "+"
    bias = f.emax
    if e == 0:
        return f"{sign}0 / subnormal"
    if e == 2 * bias + 1:
        return f"{sign}inf / NaN"
    return f"{sign}[2^{e - bias}, 2^{e - bias + 1})"


def plot(s: Summary, path: str, title: str | None = None, small: bool = False) -> None:
    """A PNG: largest error (ULP) per fine input bin against the input value (symmetric log
    scale), failing bins in red. Needs matplotlib (extra ``plot``). ``small``: a thumbnail (about
    360 x 130 pixels, a few KB, no legend) for a table of many sweeps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dtype = s.sweep["dtype"]
    d = dt.get(dtype)
    from specgen.numerics import ulp as U
    from specgen.sweep.chunk import PROFILE_SIG_BITS

    f = U.fmt(dtype)
    shift = (f.precision - 1) - PROFILE_SIG_BITS.get(dtype, 4)
    keys = np.array([int(k) for k in s.profile], dtype=np.uint64)
    vals = np.array([v[0] for v in s.profile.values()], dtype=np.float64)
    fails = np.array([v[1] for v in s.profile.values()], dtype=np.int64)
    bits = (keys << np.uint64(shift)) + np.uint64((1 << shift) // 2)
    with np.errstate(all="ignore"):
        x = bits.astype(f"uint{d.bits}").view(d.numpy).astype(np.float64)
    keep = np.isfinite(x)
    x, vals, fails, keys = x[keep], vals[keep], fails[keep], keys[keep].astype(np.int64)
    o = np.argsort(x)
    x, vals, fails, keys = x[o], vals[o], fails[o], keys[o]
    # the line breaks where neighbouring bins were not swept (a partial sweep, a --range)
    top_bit = d.bits - shift - 1
    sign, mag = keys >> top_bit, keys & ((1 << top_bit) - 1)
    joined = ((sign[1:] == sign[:-1]) & (np.abs(mag[1:] - mag[:-1]) == 1)) | ((mag[1:] == 0) & (mag[:-1] == 0))
    fig, ax = plt.subplots(figsize=(4.5, 1.6) if small else (10, 4.2), dpi=80 if small else 110)
    floor = 1e-4
    finite = vals >= 0  # bins where every error is inf or NaN (special inputs, overflow) have -1
    top = 10 * max(1.0, float(vals[finite].max()) if finite.any() else 1.0)
    line_y = np.where(finite, np.maximum(vals, floor), np.nan)
    gaps = np.flatnonzero(~joined) + 1
    lx = np.insert(x, gaps, np.nan)
    ly = np.insert(line_y, gaps, np.nan)
    ax.plot(lx, ly, "-", color="tab:blue", lw=0.8, label="largest error in the bin (0 drawn at 1e-4)")
    bad = (fails > 0) & finite
    if bad.any():
        ax.plot(x[bad], np.maximum(vals[bad], floor), "o", color="tab:red", ms=2.5, label="bin with failing inputs")
    inf_bad = (fails > 0) & ~finite
    if inf_bad.any():
        ax.plot(x[inf_bad], np.full(int(inf_bad.sum()), top), "^", color="darkred", ms=3.5,
                label=f"failing bin, error inf or NaN (drawn at {top:.0e})")
    nz = np.abs(x[x != 0])
    lin = max(f.min_normal, float(nz.min())) if nz.size else f.min_normal  # a --range need not reach 0
    ax.set_xscale("symlog", linthresh=lin)
    big = float(np.abs(x).max()) if x.size else f.max_finite
    lo_dec, hi_dec = math.ceil(math.log10(lin)), math.floor(math.log10(max(big, lin)))
    step = max(1, (hi_dec - lo_dec) // 4)
    decs = [k for k in range(hi_dec, lo_dec - 1, -step) if k - lo_dec >= step // 2 or k == hi_dec]
    ticks = sorted({-(10.0 ** k) for k in decs} | {0.0} | {10.0 ** k for k in decs})
    ticks = [t for t in ticks if (x.min() <= t <= x.max()) or t == 0] if x.size else ticks
    ax.set_xticks(ticks)
    ax.set_xticklabels([("0" if t == 0 else f"{'-' if t < 0 else ''}1e{round(math.log10(abs(t)))}") for t in ticks],
                       fontsize=7)
    if x.size:
        with np.errstate(over="ignore"):
            pad = 0.02 * (x.max() - x.min()) if x.max() > x.min() else 1.0
        pad = pad if math.isfinite(pad) else 0.0  # float64's range spans more than a float64
        ax.set_xlim(x.min() - (pad if x.min() < 0 else 0), x.max() + (pad if x.max() > 0 else 0))
    ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)
    if small:
        ax.tick_params(labelsize=6)
    else:
        ax.set_xlabel(f"input x ({dtype}; symmetric log scale, linear below {lin:.3g})")
        ax.set_ylabel("error (ULP of the output)")
        ax.legend(loc="lower right", fontsize=8, framealpha=0.9)
    sw = s.sweep
    attrs = ", ".join(f"{k}={v}" if isinstance(v, str) else f"{k}={v:.6g}" for k, v in sw["attributes"].items())
    ax.set_title(title or f"{sw['op']}({attrs}) {sw['standard']}-{sw['version']} {dtype} on {sw['adapter']}: "
                 f"{s.total:,} inputs, {s.failures:,} failing", fontsize=6 if small else 9)
    with np.errstate(all="ignore"):  # symlog over float64's range overflows inside matplotlib, harmlessly
        fig.tight_layout()
        fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
