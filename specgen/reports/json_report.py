"""The JSON report: every case with its verdict, cause and detail (sorted keys, stable order).
Its shape is published as a JSON Schema: specgen/reports/report.schema.json (docs/runner.md)."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from specgen.reports.common import failure_groups, failing, group_title, summary_rows

FORMAT = 2
SCHEMA_ID = "https://specgen.invalid/schemas/run-report-2.json"


def schema_path() -> Path:
    return Path(__file__).with_name("report.schema.json")


def to_data(run, created: str | None = None) -> dict:
    from specgen import __version__
    from specgen.runner.profile import run_profile

    whole, per = run_profile(run.results)
    return {
        "$schema": SCHEMA_ID,
        "format": FORMAT,
        "specgen_version": __version__,
        "created": created or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "adapter": run.adapter,
        "backend_version": run.backend_version,
        "filters": run.filters,
        "corpus": run.corpus,
        "strict": run.strict,
        "baseline": run.baseline_file,
        "exit_code": int(run.exit_code()),
        "interrupted": run.interrupted,
        "stopped_early": run.stopped_early,
        "selected": run.selected,
        "seconds": round(run.seconds, 3),
        "counts": run.counts(),
        "claims": run.claims,
        "warnings": run.warnings,
        "groups": [{"op": g[0], "standard_version": g[1], "dtype": g[2], "counts": c} for g, c in summary_rows(run)],
        "failure_groups": [{"op": k[0], "dtype": k[1], "cause": k[2], "tag": k[3], "title": group_title(k, m),
                            "cases": [r.case_id for r in m]} for k, m in failure_groups(failing(run))],
        "profile": {"mode": run.profile_mode, "whole_run": whole,
                    "per_op_dtype": [{"op": op, "dtype": dt, "profile": p} for (op, dt), p in per.items()]},
        "probes": [p.to_json() for p in run.probes],
        "baseline_unmatched": run.baseline_unmatched,
        "baseline_fixed": run.baseline_fixed,
        "cases": [r.to_json() for r in run.results],
    }


def render(run, created: str | None = None) -> str:
    return json.dumps(to_data(run, created), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
