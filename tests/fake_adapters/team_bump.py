"""A plugin for a team's own operator (tests/fixtures/own_specs/team_bump.yaml, not in specs/): it
claims ``team_bump``, which only the specs folder in use can make a known op, and computes it
deliberately wrong (2^-6 relative too large), so that a run of it must fail."""
from __future__ import annotations

import numpy as np

from specgen.adapters.base import Adapter, Claim


class TeamBumpWrong(Adapter):
    description = "team_bump, 2^-6 relative too large (a test of a team's own specs)"

    def claims(self):
        return [Claim(op="team_bump", standard="onnx", versions=("1",), dtypes=("float32", "float16"))]

    def run(self, call):
        x = call.inputs["x"].astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            return (x / (1 + x * x) * (1 + 2.0 ** -6)).astype(call.inputs["x"].dtype)
