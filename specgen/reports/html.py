"""A single self-contained HTML report (``specgen run --html FILE``): no external assets, no
network. An op x standard-version x dtype matrix coloured by verdict, each cell linking to its
cases (worst elements and re-run command), failures grouped by cause, the behaviour profile,
unsupported groups with the adapter's explanation or the probe's result."""
from __future__ import annotations

import html as _html
import re
from datetime import datetime, timezone

from specgen.reports.common import (COLUMNS, _val, failing, failure_groups, failure_lines, group_title, summary_rows,
                                    unsupported_groups, worst_line)

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
header .meta{opacity:.85;font-size:13px}main{padding:16px 24px;max-width:1400px}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:12px 16px;margin:0 0 16px}
h2{font-size:16px;margin:0 0 8px}table{border-collapse:collapse}td,th{padding:3px 8px;border:1px solid #d0d7de;text-align:left}
th{background:#f6f8fa;font-weight:600}.matrix td.cell{text-align:center;min-width:52px;font-variant-numeric:tabular-nums;font-size:12px}
.matrix td{white-space:nowrap}.matrix .sub{display:block;font-size:10px;opacity:.8}
.matrix a{color:inherit;text-decoration:none;display:block}
.v-pass{background:#dafbe1}.v-fail,.v-error{background:#ffcecb}.v-xfail{background:#fff1b3}.v-xpass{background:#ddf4ff}
.v-unsupported{background:#eaeef2;color:#57606a}.v-none{background:#fff}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;margin-right:6px;font-weight:600;border:1px solid #0001}
.status-ok{color:#1a7f37}.status-bad{color:#cf222e}pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px;margin:6px 0}
details{margin:4px 0}summary{cursor:pointer}code{font-size:12px}.small{font-size:12px;color:#57606a}
.legend span{margin-right:10px}.cases td{font-size:12px;vertical-align:top}
"""

VERDICT_ORDER = ("error", "fail", "xpass", "xfail", "pass", "unsupported")


def _e(text) -> str:
    return _html.escape(str(text), quote=True)


def _anchor(*parts) -> str:
    return "g-" + re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(parts)).strip("-")


def _dominant(counts: dict) -> str:
    for v in VERDICT_ORDER:
        if counts.get(v):
            return v
    return "none"


def _case_rows(members) -> list[str]:
    out = ['<table class="cases"><tr><th>verdict</th><th>case</th><th>why / worst elements</th><th>re-run</th></tr>']
    for r in members:
        body = [_e(r.reason)]
        detail = r.detail if isinstance(r.detail, dict) else {}
        if r.verdict in ("fail", "error", "xfail", "xpass"):
            w = worst_line(detail) if isinstance(detail, dict) else None
            if w:
                body.append(f"<br><b>{_e(w)}</b>")
            firsts = detail.get("first") if isinstance(detail, dict) else None
            if firsts:
                rows = "".join(f"<tr><td>{_e(f.get('index'))}</td><td>{_e(_val(f.get('input', '')))}</td>"
                               f"<td>{_e(_val(f.get('actual', '')))}</td><td>{_e(_val(f.get('expected', '')))}</td>"
                               f"<td>{_e(f.get('error_ulps', ''))}</td></tr>" for f in firsts[:10] if isinstance(f, dict))
                body.append("<details><summary>first mismatching elements</summary><table><tr><th>index</th><th>x</th>"
                            f"<th>got</th><th>expected</th><th>error (ULP)</th></tr>{rows}</table></details>")
            if r.exception:
                body.append(f"<details><summary>exception</summary><pre>{_e(r.exception)}</pre></details>")
        if r.baseline:
            body.append(f"<br><span class=small>baseline: {_e(r.baseline)}</span>")
        out.append(f'<tr><td class="v-{_e(r.verdict)}">{_e(r.verdict)}</td><td><code>{_e(r.case_id)}</code></td>'
                   f"<td>{''.join(body)}</td><td><code>{_e(r.rerun)}</code></td></tr>")
    out.append("</table>")
    return out


def render(run, created: str | None = None) -> str:
    from specgen import __version__
    from specgen.reports.terminal import profile_line
    from specgen.runner.profile import run_profile

    created = created or datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    counts = run.counts()
    code = int(run.exit_code())
    rows = summary_rows(run)
    dtypes = sorted({g[2] for g, _ in rows}, key=lambda d: (d == "must-reject", d))
    lines = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>specgen: {_e(run.adapter)} {'passed' if code == 0 else 'FAILED'}</title>",
             f"<style>{CSS}</style></head><body>",
             f"<header><h1>specgen conformance: {_e(run.adapter)} "
             f"<span class=\"{'status-ok' if code == 0 else 'status-bad'}\" style=\"background:#fff;border-radius:4px;"
             f"padding:0 6px\">{'passed' if code == 0 else 'FAILED'} (exit {code})</span></h1>",
             f"<div class=meta>backend {_e(run.backend_version or '?')} · filters: {_e(run.filters or 'all cases')}"
             f"{' · baseline ' + _e(run.baseline_file) if run.baseline_file else ''} · specgen {_e(__version__)} · "
             f"{_e(created)} · {run.seconds:.1f} s</div></header><main>"]
    lines.append("<section><h2>Summary</h2><p>" + "".join(
        f'<span class="badge v-{v}">{counts[v]} {v}</span>' for v in COLUMNS) + "</p>")
    if run.interrupted:
        lines.append(f"<p class=status-bad>Interrupted: {len(run.results)} of {run.selected} cases ran.</p>")
    if run.warnings:
        lines.append("<ul>" + "".join(f"<li>warning: {_e(w)}</li>" for w in run.warnings) + "</ul>")
    lines.append("</section>")

    # the matrix
    grid: dict[tuple[str, str], dict[str, dict]] = {}
    for g, c in rows:
        grid.setdefault((g[0], g[1]), {})[g[2]] = c
    lines.append("<section><h2>Op × standard version × dtype</h2><p class=\"legend small\">cell: passed / cases (n/a: outside the adapter's claims); "
                 "colour: the worst verdict in it (" + "".join(f'<span class="badge v-{v}">{v}</span>'
                                                               for v in VERDICT_ORDER) + ")</p>")
    lines.append('<table class="matrix"><tr><th>op</th><th>standard</th>' + "".join(f"<th>{_e(d)}</th>" for d in dtypes)
                 + "</tr>")
    for (op, sv), per in grid.items():
        cells = []
        for d in dtypes:
            c = per.get(d)
            if not c:
                cells.append('<td class="cell v-none"></td>')
                continue
            total = sum(c.values())
            dom = _dominant(c)
            title = ", ".join(f"{n} {v}" for v, n in c.items() if n)
            if dom == "unsupported":
                label, sub = "n/a", ""
            else:
                label = f"{c['pass']}/{total}"
                sub = ", ".join(f"{c[v]} {v}" for v in ("fail", "error", "xfail", "xpass") if c[v])
            cells.append(f'<td class="cell v-{dom}" title="{_e(title)}"><a href="#{_anchor(op, sv, d)}">{_e(label)}'
                         f"{f'<span class=sub>{_e(sub)}</span>' if sub else ''}</a></td>")
        lines.append(f"<tr><td>{_e(op)}</td><td>{_e(sv)}</td>{''.join(cells)}</tr>")
    lines.append("</table></section>")

    # failures grouped by cause
    fails = failing(run)
    groups = failure_groups(fails)
    lines.append(f"<section><h2>New failures ({len(fails)} in {len(groups)} groups)</h2>")
    if not fails:
        lines.append("<p>None.</p>")
    for key, members in groups:
        lines.append(f"<details><summary><b>{_e(group_title(key, members))}</b></summary>")
        lines.append(f"<pre>{_e(chr(10).join(failure_lines(members[0])))}</pre>")
        if len(members) > 1:
            lines.append("<p class=small>also: " + ", ".join(f"<code>{_e(r.case_id)}</code>" for r in members[1:]) + "</p>")
        lines.append("</details>")
    lines.append("</section>")

    # behaviour profile
    whole, per = run_profile(run.results)
    lines.append("<section><h2>Behaviour where a spec may leave a choice</h2>")
    lines.append(f"<p class=small>mode <code>{_e(run.profile_mode)}</code>; NaN and ±inf inputs, the sign of zero "
                 "results, subnormal inputs and results, integer extremes: outcomes counted over every element that ran."
                 "</p>")
    if whole:
        lines.append("<table><tr><th>op</th><th>dtype</th><th>behaviour</th></tr>")
        lines.append(f"<tr><td><b>whole run</b></td><td></td><td>{_e(profile_line(whole))}</td></tr>")
        for (op, d), prof in per.items():
            lines.append(f"<tr><td>{_e(op)}</td><td>{_e(d)}</td><td>{_e(profile_line(prof))}</td></tr>")
        lines.append("</table>")
    else:
        lines.append("<p>No special values ran.</p>")
    lines.append("</section>")

    # unsupported and probes
    uns = unsupported_groups(run)
    if uns:
        probes = {(p.op, f"{p.standard}-{p.version}", p.dtype): p for p in run.probes}
        lines.append("<section><h2>Unsupported (outside the adapter's claims)</h2><table><tr><th>op</th><th>standard</th>"
                     "<th>dtype</th><th>cases</th><th>why</th><th>probe</th></tr>")
        for g, (n, why) in uns.items():
            p = probes.get(g)
            lines.append(f"<tr><td>{_e(g[0])}</td><td>{_e(g[1])}</td><td>{_e(g[2])}</td><td>{n}</td><td>{_e(why)}</td>"
                         f"<td>{_e(f'{p.outcome}: {p.message}') if p else ''}</td></tr>")
        lines.append("</table></section>")

    # drill-down: every group's cases
    lines.append("<section><h2>Cases</h2><p class=small>Each group of the matrix: its cases with verdict, reason, "
                 "worst elements and the command that re-runs exactly that case.</p>")
    by_group: dict[tuple, list] = {}
    for r in run.results:
        by_group.setdefault(r.group, []).append(r)
    for g, _ in rows:
        members = by_group[g]
        c = {v: 0 for v in COLUMNS}
        for r in members:
            c[r.verdict] += 1
        bad = any(r.verdict in ("fail", "error", "xpass") for r in members)
        lines.append(f'<details id="{_anchor(*g)}"{" open" if bad else ""}><summary><span class="badge v-{_dominant(c)}">'
                     f"{_e(g[0])} {_e(g[1])} {_e(g[2])}</span> "
                     + ", ".join(f"{n} {v}" for v, n in c.items() if n) + "</summary>")
        lines.extend(_case_rows(members))
        lines.append("</details>")
    lines.append("</section>")
    if run.baseline_unmatched:
        lines.append("<section><h2>Baseline entries that matched no case</h2><ul>" + "".join(
            f"<li><code>{_e(e['case'])}</code>: {_e(e['reason'])}</li>" for e in run.baseline_unmatched) + "</ul></section>")
    lines.append("</main></body></html>")
    return "\n".join(lines) + "\n"
