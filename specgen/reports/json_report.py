"""The JSON report: every case with its verdict and detail (sorted keys, stable order)."""
from __future__ import annotations

import json

from specgen.reports.common import summary_rows


def to_data(run) -> dict:
    return {
        "format": 1,
        "adapter": run.adapter,
        "backend_version": run.backend_version,
        "filters": run.filters,
        "corpus": run.corpus,
        "strict": run.strict,
        "baseline": run.baseline_file,
        "exit_code": run.exit_code(),
        "counts": run.counts(),
        "claims": run.claims,
        "warnings": run.warnings,
        "groups": [{"op": g[0], "standard_version": g[1], "dtype": g[2], "counts": c} for g, c in summary_rows(run)],
        "probes": [p.to_json() for p in run.probes],
        "baseline_unmatched": run.baseline_unmatched,
        "cases": [r.to_json() for r in run.results],
    }


def render(run) -> str:
    return json.dumps(to_data(run), indent=1, sort_keys=True) + "\n"
