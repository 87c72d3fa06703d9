"""Pieces every report shares: the per-group summary and the lines that describe one failure."""
from __future__ import annotations

from collections import OrderedDict

from specgen.text import shorten  # noqa: F401  (re-exported for the reports)
from specgen.runner.verdicts import ERROR, FAIL, PASS, UNSUPPORTED, VERDICTS, XFAIL, XPASS

COLUMNS = (PASS, FAIL, ERROR, UNSUPPORTED, XFAIL, XPASS)


def summary_rows(run) -> list[tuple[tuple[str, str, str], dict[str, int]]]:
    """[((op, standard-version, dtype), {verdict: count}), ...] sorted."""
    groups: dict[tuple, dict[str, int]] = {}
    for r in run.results:
        g = groups.setdefault(r.group, {v: 0 for v in VERDICTS})
        g[r.verdict] += 1
    return sorted(groups.items(), key=lambda kv: (kv[0][0], _version_key(kv[0][1]), kv[0][2] == "must-reject", kv[0][2]))


def _version_key(sv: str):
    std, _, ver = sv.partition("-")
    parts = tuple(int(p) if p.isdigit() else p for p in ver.replace("_", ".").split("."))
    return (std, tuple((0, p) if isinstance(p, int) else (1, p) for p in parts))


def _val(v) -> str:
    """A worst-element value: 'decimal (hex)' whatever shape compare() gave it."""
    if isinstance(v, dict):
        dec = v.get("decimal", v.get("dec", v.get("value")))
        hx = v.get("hex", v.get("bits"))
        if dec is not None and hx is not None:
            return f"{dec} ({hx})"
        return ", ".join(f"{k}={x}" for k, x in v.items())
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return f"{v[0]} ({v[1]})"
    return str(v)


def worst_line(detail: dict) -> str | None:
    worst = detail.get("worst") if isinstance(detail, dict) else None
    if not worst:
        return None
    if not isinstance(worst, dict):
        return f"worst: {worst}"
    parts = []
    if "index" in worst:
        parts.append(f"at {worst['index']}")
    for key, label in (("input", "x"), ("x", "x"), ("expected", "expected"), ("actual", "actual")):
        if key in worst:
            parts.append(f"{label} = {_val(worst[key])}")
    err = worst.get("error_ulps", worst.get("ulp_error", worst.get("error")))
    bound = worst.get("bound_ulps", worst.get("bound"))
    if err is not None:
        parts.append(f"error {_num(err)} ULP" + (f" > bound {_num(bound)} ULP" if bound is not None else ""))
    extra = {k: v for k, v in worst.items() if v is not None and k not in {
        "index", "input", "x", "expected", "actual", "error_ulps", "ulp_error", "error", "bound_ulps", "bound", "kind"}}
    for k, v in extra.items():
        parts.append(f"{k} = {_val(v)}")
    return "worst element " + ", ".join(parts)


def _num(v) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return f"{f:.4g}" if abs(f) < 1e6 else f"{f:.6g}"


def mismatch_line(detail: dict) -> str | None:
    if not isinstance(detail, dict) or "mismatches" not in detail:
        return None
    kind = f" ({detail['kind']})" if detail.get("kind") else ""
    return f"{detail['mismatches']} of {detail.get('total', '?')} elements out of bound{kind}"


def failure_lines(r) -> list[str]:
    """Case id and verdict, why, the worst element, the mismatch count, and the re-run command."""
    head = f"{r.verdict.upper()} {r.case_id}"
    if r.original_verdict:
        head += f" (was {r.original_verdict}; baseline: {r.baseline})"
    lines = [head, f"  why: {r.reason}"]
    detail = r.detail if isinstance(r.detail, dict) else {}
    details = [detail] if "worst" in detail or "mismatches" in detail else [v for v in detail.values() if isinstance(v, dict)]
    for d in details:
        w = worst_line(d)
        if w:
            lines.append(f"  {w}")
        m = mismatch_line(d)
        if m:
            lines.append(f"  {m}")
    shape = "x".join(str(s) for s in r.shape) if r.shape else "scalar"
    lines.append(f"  [{r.op} {r.standard}-{r.version} {r.dtype} shape {shape}]")
    for n in r.notes[:3]:
        lines.append(f"  note: {n}")
    lines.append(f"  re-run: {r.rerun}")
    return lines


def failing(run) -> list:
    return [r for r in run.results if r.verdict in (FAIL, ERROR)]


def unsupported_groups(run) -> "OrderedDict[tuple, tuple[int, str]]":
    """(op, standard-version, dtype) -> (count, first reason) for unsupported cases."""
    out: "OrderedDict[tuple, tuple[int, str]]" = OrderedDict()
    for r in run.results:
        if r.verdict != UNSUPPORTED:
            continue
        n, why = out.get(r.group, (0, r.reason))
        out[r.group] = (n + 1, why)
    return out
