"""Markdown for a pull-request comment (and the committed example report).

A GitHub comment holds at most 65,536 characters, so the report is built to fit whatever the run:
per-case ``<details>`` only for the first ``max_details`` new failures (the rest by id, compactly),
known failures (xfail) grouped by their baseline reason with counts and a few example ids, and a
hard size guard (``limit``) that drops detail before it drops the summary. The JSON report always
has every case in full.
"""
from __future__ import annotations

import html

from specgen.reports.common import (COLUMNS, failing, failure_groups, failure_lines, group_title, shorten, summary_rows,
                                    unsupported_groups)

GITHUB_COMMENT_MAX = 65536
LIMIT = 60000  # stay clearly under GITHUB_COMMENT_MAX
MAX_DETAILS = 25  # <details> blocks for new failures
EXAMPLES = 3  # example ids per known-failure reason


def _esc(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _summary_text(text: str, width: int) -> str:
    return html.escape(shorten(text, width), quote=False).replace("|", "\\|")


def _ids(ids: list[str], cap: int) -> str:
    shown = ", ".join(f"`{i}`" for i in ids[:cap])
    if len(ids) > cap:
        shown += f" … and {len(ids) - cap} more (see the JSON report)"
    return shown


def render(run, max_details: int = MAX_DETAILS, title: str | None = None, limit: int = LIMIT) -> str:
    """The report, under ``limit`` characters: with fewer failure details, then a summary table per
    op and standard (versions merged) instead of per version, then shorter id lists, when the
    full form would be longer. Every failing id stays named as long as the ids alone fit."""
    steps = [(max_details, None, False)]
    steps += [(n, None, False) for n in (10, 3, 0) if n < max_details]
    steps += [(0, None, True), (0, 200, True), (0, 50, True), (0, 10, True)]
    text = ""
    for details, id_cap, merged in steps:
        text = _render(run, details, id_cap, title, capped=(details, id_cap, merged) != steps[0], merged=merged)
        if len(text) <= limit:
            return text
    # last resort (thousands of groups or reasons): cut at a line boundary; with no <details> and
    # no code fences left, no HTML or fence is left open
    note = f"\n\n… report cut at {limit:,} characters to fit a pull-request comment: see the JSON report\n"
    cut = text.rfind("\n", 0, limit - len(note))
    return text[:max(cut, 0)] + note


def _merged_rows(rows):
    """Summary rows with a standard's versions merged: ((op, standard, dtype), counts)."""
    out: dict[tuple[str, str, str], dict[str, int]] = {}
    for (op, sv, dtype), c in rows:
        m = out.setdefault((op, sv.split("-", 1)[0], dtype), dict.fromkeys(c, 0))
        for v, n in c.items():
            m[v] += n
    return list(out.items())


def _render(run, max_details: int, id_cap: int | None, title: str | None, capped: bool,
            merged: bool = False) -> str:
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
    if merged:
        rows = _merged_rows(rows)
        out.append("Versions merged per standard to fit a pull-request comment (the JSON report has each version).")
        out.append("")
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
    groups = failure_groups(fails)
    out.append("")
    out.append(f"### Failures ({len(fails)}{f' in {len(groups)} groups' if fails else ''})")
    out.append("")
    if not fails:
        out.append("None.")
    else:
        out.append("Grouped by op, dtype, cause and region; one example each:")
        out.append("")
    for key, members in groups[:max_details]:
        r = members[0]
        lines = failure_lines(r)
        out.append(f"<details><summary><b>{html.escape(group_title(key, members), quote=False)}</b>, e.g. "
                   f"<code>{html.escape(lines[0], quote=False)}</code>: {_summary_text(r.reason, 160)}</summary>")
        out.append("")
        out.append("```")
        out.extend(line.strip() for line in lines[1:])
        out.append("```")
        others = [m.case_id for m in members[1:]]
        if others:
            out.append("")
            out.append("Also: " + _ids(others, id_cap if id_cap is not None else len(others)))
        out.append("</details>")
    rest = [r for key, members in groups[max_details:] for r in members]
    if rest:
        out.append("")
        why = " (details capped to fit a pull-request comment)" if capped else ""
        out.append(f"… {len(rest)} more failures: see the JSON report{why}. Their ids:")
        out.append("")
        out.append(_ids([r.case_id for r in rest], id_cap if id_cap is not None else len(rest)))

    xf = [r for r in run.results if r.verdict == "xfail"]
    if xf:
        out.append("")
        out.append(f"### Known failures (xfail: {len(xf)})")
        out.append("")
        by_reason: dict[str, list] = {}
        for r in xf:
            by_reason.setdefault(r.baseline, []).append(r)
        shown = list(by_reason.items())
        if id_cap is not None and len(shown) > id_cap:
            shown = shown[:id_cap]
        for reason, members in shown:
            kinds = {}
            for r in members:
                kinds[r.original_verdict] = kinds.get(r.original_verdict, 0) + 1
            what = ", ".join(f"{n} {v}" for v, n in kinds.items())
            n = len(members)
            out.append(f"- **{n} case{'s' if n != 1 else ''}** ({what}): {_esc(shorten(reason, 400))} "
                       f"e.g. {_ids([r.case_id for r in members], EXAMPLES)}")
        if len(shown) < len(by_reason):
            out.append(f"- … {len(by_reason) - len(shown)} more reasons: see the JSON report")
    if run.xpasses:
        out.append("")
        out.append(f"### Known failures that now pass (xpass: {len(run.xpasses)})")
        out.append("")
        cap = id_cap if id_cap is not None else 100
        for r in run.xpasses[:cap]:
            out.append(f"- `{r.case_id}` (baseline: {_esc(shorten(r.baseline, 200))})")
        if len(run.xpasses) > cap:
            out.append(f"- … {len(run.xpasses) - cap} more: see the JSON report")
    if run.baseline_unmatched:
        out.append("")
        out.append("### Baseline entries that matched no case")
        out.append("")
        cap = id_cap if id_cap is not None else 100
        for e in run.baseline_unmatched[:cap]:
            out.append(f"- `{e['case']}`: {_esc(shorten(e['reason'], 200))}")
        if len(run.baseline_unmatched) > cap:
            out.append(f"- … {len(run.baseline_unmatched) - cap} more: see the JSON report")
    uns = unsupported_groups(run)
    if uns:
        probes = {(p.op, f"{p.standard}-{p.version}", p.dtype): p for p in run.probes}
        order = {g: i for i, (g, _) in enumerate(rows)}
        out.append("")
        out.append("### Unsupported (outside the adapter's claim)")
        out.append("")
        out.append("| op | standard | dtype | cases | why | the backend says (adapter's explanation or probe) |")
        out.append("|---|---|---|---:|---|---|")
        for g, (n, why) in sorted(uns.items(), key=lambda kv: order.get(kv[0], 0)):
            if not in_scope(g):
                continue
            p = probes.get(g)
            first = next(r for r in run.results if r.verdict == "unsupported" and r.group == g)
            short = why[:-len(f"; the adapter says: {first.explanation}")] if first.explanation else why
            said = f"probe: {p.outcome}: {p.message}" if p else (first.explanation or "")
            out.append(f"| {g[0]} | {g[1]} | {g[2]} | {n} | {_esc(short)} | {_esc(shorten(said, 180))} |")
    from specgen.reports.terminal import profile_line
    from specgen.runner.profile import run_profile

    whole, per = run_profile(run.results)
    if whole:
        out.append("")
        out.append("### Behaviour where a spec may leave a choice")
        out.append("")
        out.append(f"Mode: `{run.profile_mode}` (`--profile strict` fails any deviation from the spec's recommended "
                   "outcome). Outcomes counted over the elements of every case that ran.")
        out.append("")
        out.append("| op | dtype | behaviour |")
        out.append("|---|---|---|")
        out.append(f"| (whole run) | | {_esc(profile_line(whole))} |")
        rows_p = list(per.items())
        cap = id_cap if id_cap is not None else len(rows_p)
        for (op, dt), prof in rows_p[:cap]:
            out.append(f"| {op} | {dt} | {_esc(profile_line(prof))} |")
        if len(rows_p) > cap:
            out.append(f"| … | | {len(rows_p) - cap} more: see the JSON report |")
    if run.warnings:
        out.append("")
        for w in run.warnings:
            out.append(f"- warning: {_esc(w)}")
    return "\n".join(out) + "\n"
