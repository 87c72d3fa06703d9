"""``specgen sweep-merge A.json B.json ...``: shard reports of one sweep merged into one report.

Refuses (exit 2) reports of different sweeps (op, standard, version, dtype, attributes, input
space, adapter or backend version differ) and shards that overlap. Exit 0 / 1 as ``sweep``: 1 when
the merged result has failing inputs.
"""
from __future__ import annotations

import json

import click

from specgen.exitcodes import Exit

EXIT_USAGE = int(Exit.USAGE)


@click.command("sweep-merge")
@click.argument("reports", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "json_path", type=click.Path(), help="Write the merged JSON report.")
@click.option("--markdown", "markdown_path", type=click.Path(), help="Write the merged Markdown report (and its plot).")
@click.option("--plot", "plot_path", type=click.Path(), help="Write the PNG plot here (default: beside --markdown).")
def sweep_merge(reports, json_path, markdown_path, plot_path):
    """Merge the JSON reports of shards of one sweep (specgen sweep --shard K/N --json F)."""
    from pathlib import Path

    from specgen.commands.sweep import write_reports
    from specgen.sweep import report
    from specgen.sweep.execute import subtract
    from specgen.sweep.summary import MergeError, Summary, merge_all

    parts, infos = [], []
    for path in reports:
        try:
            d = json.loads(Path(path).read_text())
            if d.get("format") != report.FORMAT or d.get("summary") is None:
                raise MergeError(f"not a sweep report with results (format {d.get('format')!r})")
            parts.append(Summary.from_json(d["summary"]))
            infos.append(d["info"])
        except (OSError, ValueError, KeyError, MergeError) as exc:
            click.echo(f"sweep-merge: {path}: {exc}", err=True)
            raise SystemExit(EXIT_USAGE)
    try:
        s = merge_all(parts)
    except MergeError as exc:
        click.echo(f"sweep-merge: {exc}", err=True)
        raise SystemExit(EXIT_USAGE)
    full = [tuple(r) for r in s.sweep["space"]["ranges"]] if s.sweep["space"]["kind"] == "bits" else None
    if full is None:  # a sample space: the index ranges its shards planned
        full = sorted({tuple(r) for i in infos for r in i.get("planned", [])})
    missing = subtract(sorted(full), s.covered) if full else []
    info = dict(infos[0])
    info.update({"shard": None, "merged_from": len(parts), "complete": not missing, "interrupted": False,
                 "wall_seconds": round(sum(i.get("wall_seconds", 0) for i in infos), 3),
                 "elements_this_run": s.total, "workers": sum(i.get("workers", 0) or 0 for i in infos),
                 "scheduler": ",".join(sorted({str(i.get("scheduler")) for i in infos}))})
    click.echo(report.terminal(s, info))
    if missing:
        click.echo(f"sweep-merge: not complete: {sum(b - a + 1 for a, b in missing):,} inputs in "
                   f"{len(missing)} range(s) are in no report (first 0x{missing[0][0]:x}..0x{missing[0][1]:x})", err=True)
    if markdown_path and not plot_path:
        plot_path = str(Path(markdown_path).with_suffix(".png"))
    ok = write_reports(s, info, json_path, markdown_path, plot_path, "sweep-merge")
    if not ok:
        raise SystemExit(EXIT_USAGE)
    raise SystemExit(1 if s.failures else 0)
