"""The terminal summary: a table per op x standard-version x dtype, then every failure."""
from __future__ import annotations

from specgen.reports.common import COLUMNS, failing, failure_lines, summary_rows

MAX_FAILURES = 50  # failures shown in full; the rest are counted (docs/runner.md)


def render(run, max_failures: int = MAX_FAILURES, table: bool = True, quiet: bool = False) -> str:
    """The summary. ``quiet`` (-q): no group table and no probe list (one line counting the probes)."""
    show_table = table and not quiet
    rows = summary_rows(run)
    head = ("op", "standard", "dtype") + COLUMNS
    table = [head] + [(g[0], g[1], g[2]) + tuple(str(c[v]) if c[v] else "." for v in COLUMNS) for g, c in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    out = [f"specgen run: adapter {run.adapter}" + (f" ({run.backend_version})" if run.backend_version else "")
           + (f", {run.filters}" if run.filters else "")]
    for i, row in enumerate(table if show_table else ()):
        out.append("  ".join(cell.ljust(w) if j < 3 else cell.rjust(w) for j, (cell, w) in enumerate(zip(row, widths))))
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    fails = failing(run)
    if fails:
        out.append("")
        out.append(f"{len(fails)} failure(s):")
        for r in fails[:max_failures]:
            out.extend(failure_lines(r))
        if len(fails) > max_failures:
            out.append(f"... and {len(fails) - max_failures} more (see --json/--markdown)")
    if run.xpasses:
        out.append("")
        out.append(f"{len(run.xpasses)} known failure(s) now pass (xpass{', failing with --strict' if run.strict else ''}):")
        for r in run.xpasses[:max_failures]:
            out.append(f"  XPASS {r.case_id} (baseline: {r.baseline})")
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
    for w in run.warnings:
        out.append(f"warning: {w}")
    counts = run.counts()
    out.append("")
    out.append(", ".join(f"{counts[v]} {v}" for v in COLUMNS) + f" in {run.seconds:.1f} s")
    return "\n".join(out)
