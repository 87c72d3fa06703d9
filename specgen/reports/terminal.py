"""The terminal summary, failures first (issue 24: an adapter claiming one operator had its first
failure at line 578, under rows of groups it never claimed): the failures grouped by cause, then a
table per op x standard-version x dtype where every group with nothing but unsupported cases is
folded into one line, xpasses, stale baseline entries, probes, the behaviour profile and the
counts line."""
from __future__ import annotations

from specgen.reports.common import COLUMNS, failing, failure_groups, failure_lines, group_title, summary_rows
from specgen.runner.verdicts import UNSUPPORTED

MAX_FAILURES = 50  # failure groups shown with a full example (docs/runner.md)
ALSO = 5  # other ids named per group
ALSO_OPS = 8  # operators named in the line of groups that are all unsupported


def profile_line(profile: dict) -> str:
    from specgen.runner.profile import CATEGORIES

    parts = []
    for cat in CATEGORIES:
        if cat in profile:
            outcomes = sorted(profile[cat].items(), key=lambda kv: -kv[1])
            parts.append(f"{cat.replace('_', ' ')}: " + ", ".join(f"{k} ×{n}" for k, n in outcomes))
    return "; ".join(parts)


def _failures(run, max_failures: int) -> list[str]:
    fails = failing(run)
    if not fails:
        return []
    groups = failure_groups(fails)
    out = ["", f"{len(fails)} failure(s) in {len(groups)} group(s) (same op, dtype, cause and region):"]
    for key, members in groups[:max_failures]:
        out.append("")
        out.append(f"== {group_title(key, members)}")
        out.extend(failure_lines(members[0]))
        others = [r.case_id for r in members[1:]]
        if others:
            more = f" (+{len(others) - ALSO} more: see --json/--markdown/--html)" if len(others) > ALSO else ""
            out.append(f"  also: {', '.join(others[:ALSO])}{more}")
    if len(groups) > max_failures:
        out.append(f"... and {len(groups) - max_failures} more group(s) (see --json/--markdown/--html)")
    return out


def _table(run) -> list[str]:
    """The group table; groups whose every case is unsupported (outside the claim) are one line."""
    rows, unclaimed = [], []
    for group, counts in summary_rows(run):
        only_unsupported = counts[UNSUPPORTED] and not any(counts[v] for v in COLUMNS if v != UNSUPPORTED)
        (unclaimed if only_unsupported else rows).append((group, counts))
    out = [""]
    if rows:
        head = ("op", "standard", "dtype") + COLUMNS
        table = [head] + [(g[0], g[1], g[2]) + tuple(str(c[v]) if c[v] else "." for v in COLUMNS) for g, c in rows]
        widths = [max(len(row[i]) for row in table) for i in range(len(head))]
        for i, row in enumerate(table):
            out.append("  ".join(cell.ljust(w) if j < 3 else cell.rjust(w)
                                 for j, (cell, w) in enumerate(zip(row, widths))))
            if i == 0:
                out.append("  ".join("-" * w for w in widths))
    if unclaimed:
        cases = sum(c[UNSUPPORTED] for _, c in unclaimed)
        ops = sorted({g[0] for g, _ in unclaimed})
        named = ", ".join(ops[:ALSO_OPS]) + (f" and {len(ops) - ALSO_OPS} more" if len(ops) > ALSO_OPS else "")
        out.append(f"{len(unclaimed)} (op, standard, dtype) group(s) with every case unsupported ({cases} case(s), "
                   f"outside the adapter's claim; listed in --json/--markdown/--html): {named}")
    return out


def render(run, max_failures: int = MAX_FAILURES, table: bool = True, quiet: bool = False) -> str:
    """The summary. ``quiet`` (-q): no group table, probe list or profile."""
    out = [f"specgen run: adapter {run.adapter}" + (f" ({run.backend_version})" if run.backend_version else "")
           + (f", {run.filters}" if run.filters else "")]
    out.extend(_failures(run, max_failures))
    if table and not quiet:
        out.extend(_table(run))
    if run.xpasses:
        out.append("")
        out.append(f"{len(run.xpasses)} known failure(s) now pass (xpass{', failing with --strict' if run.strict else ''}):")
        for r in run.xpasses[:max_failures]:
            out.append(f"  XPASS {r.case_id} (baseline: {r.baseline})")
    if getattr(run, "baseline_fixed", None):
        out.append("")
        out.append(f"{len(run.baseline_fixed)} baseline entr{'y' if len(run.baseline_fixed) == 1 else 'ies'} explain no "
                   f"failure any more (fixed{', failing with --strict' if run.strict else ''}):")
        for e in run.baseline_fixed:
            where = f" (line {e['line']})" if e.get("line") else ""
            out.append(f"  FIXED {e['id'] or e['case']}{where}: selects {e['selected']} case(s): {e['reason']}")
    if run.baseline_unmatched:
        out.append("")
        out.append(f"{len(run.baseline_unmatched)} baseline entr{'y' if len(run.baseline_unmatched) == 1 else 'ies'} matched no case:")
        for e in run.baseline_unmatched:
            where = f" (line {e['line']})" if e.get("line") else ""
            out.append(f"  {e['case']}{where}: {e['reason']}")
    works = [p for p in run.probes if p.outcome == "works"]
    if run.probes and quiet:
        out.append("")
        out.append(f"{len(run.probes)} unclaimed (op, version, dtype) group(s) probed, {len(works)} work although "
                   f"not claimed (listed without -q, and in --json/--markdown)")
    elif run.probes:
        out.append("")
        out.append(f"unclaimed (op, version, dtype) groups probed ({len(works)} work although not claimed):")
        for p in run.probes:
            out.append(f"  {p.op} {p.standard}-{p.version} {p.dtype}: {p.outcome}: {p.message} [{p.case_id}]")
    if not quiet:
        from specgen.runner.profile import run_profile

        whole, per = run_profile(run.results)
        if whole:
            out.append("")
            out.append(f"behaviour where a spec may leave a choice{' (--profile strict)' if run.profile_mode == 'strict' else ''}:")
            out.append(f"  whole run: {profile_line(whole)}")
            for (op, dtype), prof in per.items():
                out.append(f"  {op} {dtype}: {profile_line(prof)}")
    for w in run.warnings:
        out.append(f"warning: {w}")
    counts = run.counts()
    out.append("")
    line = ", ".join(f"{counts[v]} {v}" for v in COLUMNS) + f" in {run.seconds:.1f} s"
    if run.interrupted:
        line += f" (interrupted: {len(run.results)} of {run.selected} cases ran)"
    if run.stopped_early:
        line += f" (stopped at the first new failure, -x: {len(run.results)} of {run.selected} cases ran)"
    out.append(line)
    return "\n".join(out)
