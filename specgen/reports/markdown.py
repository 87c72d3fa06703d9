"""Markdown for a pull-request comment (and the committed example report)."""
from __future__ import annotations

from specgen.reports.common import COLUMNS, failing, failure_lines, summary_rows, unsupported_groups


def _esc(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(run, max_failures: int = 200, title: str | None = None) -> str:
    counts = run.counts()
    code = run.exit_code()
    out = [f"## {title or f'specgen conformance: {run.adapter}'}", ""]
    status = "passed" if code == 0 else "FAILED"
    out.append(f"**{status}** (exit {code}): " + ", ".join(f"{counts[v]} {v}" for v in COLUMNS if counts[v] or v in ("pass", "fail")))
    meta = [f"adapter `{run.adapter}`"]
    if run.backend_version:
        meta.append(f"backend {run.backend_version}")
    if run.filters:
        meta.append(f"filters: {run.filters}")
    if run.baseline_file:
        meta.append(f"baseline `{run.baseline_file}`")
    out.append("; ".join(meta))
    out.append("")
    claimed = {tuple(p) for p in (run.claimed or ())}

    def in_scope(group) -> bool:  # the adapter claims this op in this standard (or claims were not recorded)
        std = group[1].split("-", 1)[0]
        return not claimed or (group[0], std) in claimed or (group[0], "*") in claimed

    rows = summary_rows(run)
    out_of_scope: dict[tuple[str, str], int] = {}
    out.append("| op | standard | dtype | " + " | ".join(COLUMNS) + " |")
    out.append("|---|---|---|" + "---:|" * len(COLUMNS))
    for g, c in rows:
        if not in_scope(g) and c["unsupported"] == sum(c.values()):
            key = (g[0], g[1].split("-", 1)[0])
            out_of_scope[key] = out_of_scope.get(key, 0) + c["unsupported"]
            continue
        out.append(f"| {g[0]} | {g[1]} | {g[2]} | " + " | ".join(str(c[v]) if c[v] else "" for v in COLUMNS) + " |")
    if out_of_scope:
        out.append("")
        out.append("Not claimed at all (unsupported): " + ", ".join(f"{op} {std} ({n} cases)" for (op, std), n in out_of_scope.items()) + ".")
    fails = failing(run)
    out.append("")
    out.append(f"### Failures ({len(fails)})")
    out.append("")
    if not fails:
        out.append("None.")
    for r in fails[:max_failures]:
        lines = failure_lines(r)
        out.append(f"<details><summary><code>{lines[0]}</code>: {_esc(r.reason)[:200]}</summary>")
        out.append("")
        out.append("```")
        out.extend(line.strip() for line in lines[1:])
        out.append("```")
        out.append("</details>")
    if len(fails) > max_failures:
        out.append(f"... and {len(fails) - max_failures} more")
    xf = [r for r in run.results if r.verdict == "xfail"]
    if xf:
        out.append("")
        out.append(f"### Known failures (xfail: {len(xf)})")
        out.append("")
        by_reason: dict[str, list] = {}
        for r in xf:
            by_reason.setdefault(r.baseline, []).append(r)
        for reason, members in by_reason.items():
            out.append(f"- **{len(members)} case(s)**: {_esc(reason)}")
        out.append("")
        for r in xf[:max_failures]:
            lines = failure_lines(r)
            out.append(f"<details><summary><code>{r.case_id}</code> ({r.original_verdict}): {_esc(r.reason)[:200]}</summary>")
            out.append("")
            out.append("```")
            out.extend(line.strip() for line in lines[1:])
            out.append("```")
            out.append("</details>")
        if len(xf) > max_failures:
            out.append(f"... and {len(xf) - max_failures} more")
    if run.xpasses:
        out.append("")
        out.append(f"### Known failures that now pass (xpass: {len(run.xpasses)})")
        out.append("")
        for r in run.xpasses[:max_failures]:
            out.append(f"- `{r.case_id}` (baseline: {_esc(r.baseline)})")
    if run.baseline_unmatched:
        out.append("")
        out.append("### Baseline entries that matched no case")
        out.append("")
        for e in run.baseline_unmatched:
            out.append(f"- `{e['case']}`: {_esc(e['reason'])}")
    uns = unsupported_groups(run)
    if uns:
        probes = {(p.op, f"{p.standard}-{p.version}", p.dtype): p for p in run.probes}
        order = {g: i for i, (g, _) in enumerate(rows)}
        out.append("")
        out.append("### Unsupported (outside the adapter's claim)")
        out.append("")
        out.append("| op | standard | dtype | cases | why | the backend, when tried anyway |")
        out.append("|---|---|---|---:|---|---|")
        for g, (n, why) in sorted(uns.items(), key=lambda kv: order.get(kv[0], 0)):
            if not in_scope(g):
                continue
            p = probes.get(g)
            short, _, backend = why.partition("; the adapter says: ")
            probe = f"{p.outcome}: {_esc(p.message)[:180]}" if p else _esc(backend)[:180]
            out.append(f"| {g[0]} | {g[1]} | {g[2]} | {n} | {_esc(short)} | {probe} |")
    if run.warnings:
        out.append("")
        for w in run.warnings:
            out.append(f"- warning: {_esc(w)}")
    return "\n".join(out) + "\n"
