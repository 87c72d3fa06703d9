"""Pieces every report shares: the per-group summary and the lines that describe one failure."""
from __future__ import annotations

import math
from collections import OrderedDict

from specgen.numerics.compare import error_against_bound
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


def _abs_error(worst: dict) -> str | None:
    try:
        e = float(_val_dec(worst.get("expected")))
        a = float(_val_dec(worst.get("actual")))
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(e) and math.isfinite(a)):
        return None
    return f"{abs(a - e):.3g}"


def _val_dec(v):
    if isinstance(v, dict):
        return v.get("decimal", v.get("dec", v.get("value")))
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return v[0]
    return v


def worst_line(detail: dict) -> str | None:
    """The worst element once: where, input, got, expected (decimal and hex), its error in ULPs
    against the bound and as an absolute error (ULP counts near zero are astronomically large)."""
    worst = detail.get("worst") if isinstance(detail, dict) else None
    if not worst:
        return None
    if not isinstance(worst, dict):
        return f"worst: {worst}"
    head = f"worst element at {worst['index']}" if "index" in worst else "worst element"
    if worst.get("reason"):  # a catastrophic failure, in words (specgen.numerics.catastrophe)
        return f"{head}: {worst['reason']} (got {_val(worst.get('actual'))}, expected {_val(worst.get('expected'))})"
    parts = []
    for key, label in (("input", "x"), ("x", "x")):
        if key in worst:
            parts.append(f"{label} = {_val(worst[key])}")
            break
    if "actual" in worst:
        parts.append(f"got {_val(worst['actual'])}")
    if "expected" in worst:
        parts.append(f"expected {_val(worst['expected'])}")
    err = worst.get("error_ulps", worst.get("ulp_error", worst.get("error")))
    bound = worst.get("bound_ulps", worst.get("bound"))
    errs = []
    if err is not None:
        errs.append(error_against_bound(_float(err), _float(bound), fmt=_num) if bound is not None
                    else f"error {_num(err)} ULP")
    ab = _abs_error(worst)
    if ab is not None:
        errs.append(f"absolute error {ab}")
    return f"{head}: " + ", ".join(parts) + (f"; {'; '.join(errs)}" if errs else "")


def _float(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _num(v) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not math.isfinite(f):
        return str(f)
    return f"{f:,.0f}" if abs(f) >= 1e3 and f == int(f) and abs(f) < 1e15 else (f"{f:.4g}" if abs(f) < 1e6 else f"{f:.3g}")


def mismatch_line(detail: dict) -> str | None:
    if not isinstance(detail, dict) or "mismatches" not in detail:
        return None
    kind = f" ({detail['kind']})" if detail.get("kind") else ""
    return f"{detail['mismatches']} of {detail.get('total', '?')} elements out of bound{kind}"


def _details(r) -> list[tuple[str | None, dict]]:
    detail = r.detail if isinstance(r.detail, dict) else {}
    if "worst" in detail or "mismatches" in detail:
        return [(None, detail)]
    return [(k, v) for k, v in detail.items() if isinstance(v, dict)]


def failure_lines(r) -> list[str]:
    """Case id and verdict; why (for an out-of-bound failure: the mismatch count and the call, then
    the worst element once); the adapter's full exception text; notes; the re-run command."""
    head = f"{r.verdict.upper()} {r.case_id}"
    if r.original_verdict:
        head += f" (was {r.original_verdict}; baseline: {r.baseline})"
    lines = [head]
    details = _details(r)
    out_of_bound = str(getattr(r, "cause", "") or "") == "out-of-bound" and any(d.get("worst") for _, d in details)
    if out_of_bound:
        for name, d in details:
            if d.get("ok", True) and "mismatches" in d and not d.get("mismatches"):
                continue
            context = f" [{d['context']}]" if d.get("context") else ""
            where = "".join(f" [{w}]" for w, on in (("in-place", r.in_place), ("strided", r.strided)) if on)
            lines.append(f"  why: {(name + ': ') if name else ''}{mismatch_line(d) or 'out of bound'}{context}{where}")
            w = worst_line(d)
            if w:
                lines.append(f"  {w}")
    else:
        lines.append(f"  why: {r.reason}")
    if not out_of_bound:
        shape = "x".join(str(s) for s in r.shape) if r.shape else "scalar"
        lines.append(f"  [{r.op} {r.standard}-{r.version} {r.dtype} shape {shape}]")
    exc = getattr(r, "exception", None)
    if exc:
        lines.append("  exception (full text):")
        lines.extend(f"    {line}" for line in str(exc).splitlines())
    for n in r.notes[:3]:
        lines.append(f"  note: {n}")
    lines.append(f"  re-run: {r.rerun}")
    return lines


def failing(run) -> list:
    return [r for r in run.results if r.verdict in (FAIL, ERROR)]


def group_key(r) -> tuple[str, str, str, str]:
    """What failures that probably share a cause have in common: op, dtype (or must-reject), the
    verdict's cause with the comparison's kind of mismatch, and the case's design tag (region)."""
    kinds = sorted({d.get("kind") for _, d in _details(r) if d.get("kind")})
    cause = str(getattr(r, "cause", "") or r.verdict) + (f" ({', '.join(kinds)})" if kinds else "")
    dtype = "must-reject" if r.kind == "negative" else r.dtype
    tag = r.tags[0] if r.tags else ""
    return (r.op, dtype, cause, tag)


def failure_groups(results) -> list[tuple[tuple[str, str, str, str], list]]:
    """Failures grouped by :func:`group_key`, largest group first (then by op, dtype)."""
    groups: dict[tuple, list] = {}
    for r in results:
        groups.setdefault(group_key(r), []).append(r)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def group_title(key, members) -> str:
    op, dtype, cause, tag = key
    n = len(members)
    return f"{n} case{'s' if n != 1 else ''}: {op} {dtype}, {cause}" + (f", {tag} cases" if tag else "")


def unsupported_groups(run) -> "OrderedDict[tuple, tuple[int, str]]":
    """(op, standard-version, dtype) -> (count, first reason) for unsupported cases."""
    out: "OrderedDict[tuple, tuple[int, str]]" = OrderedDict()
    for r in run.results:
        if r.verdict != UNSUPPORTED:
            continue
        n, why = out.get(r.group, (0, r.reason))
        out[r.group] = (n + 1, why)
    return out


def profile_sections(run) -> tuple[dict, dict]:
    """(the whole run's behaviour profile, {(op, dtype): profile})."""
    from specgen.runner.profile import run_profile

    return run_profile(run.results)
