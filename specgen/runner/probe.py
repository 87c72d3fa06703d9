"""Claims checked against behaviour from the other side: unclaimed groups that might work.

Each (op, standard-version, dtype) group is probed when
  - the adapter claims the op in that standard (some version, or standard "*"),
  - every positive dense, not-in-place case of the group is unsupported only because its dtype or
    its version is not claimed (not rank, attribute, size), and
  - the adapter does not explain the group (``why_unclaimed``): an explanation, such as the error
    onnxruntime gave when the adapter tried the group at load, is reported instead.
The probe runs the group's smallest case (fewest elements, then id) ignoring the claims: "works"
means that case passed, "runs but fails" that it ran out of bound, "does not run" that the backend
declined, rejected or crashed.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from specgen.runner.verdicts import FAIL, PASS, UNSUPPORTED, Cause, Probe, Result

PROBED_CAUSES = (Cause.UNCLAIMED_DTYPE, Cause.UNCLAIMED_VERSION)
DOES_NOT_RUN = (Cause.DECLINED_CLAIMED, Cause.REJECTED_LEGAL, Cause.CRASHED)


def probe(cases, results, claims, run_case: Callable[..., Result]) -> list[Probe]:
    groups: dict[tuple, list] = {}
    for case, r in zip(cases, results):
        if r.kind != "positive" or case.in_place or any(s is not None for s in (getattr(case, "strides", None) or {}).values()):
            continue
        key = (case.op, case.standard, str(case.version), case.dtype)
        groups.setdefault(key, []).append((case, r))
    probes = []
    claimed_pairs = {(c.op, c.standard) for c in claims}
    for key, members in groups.items():
        if (key[0], key[1]) not in claimed_pairs and (key[0], "*") not in claimed_pairs:
            continue  # the adapter claims nothing of this op in this standard: nothing to probe
        if not all(r.verdict == UNSUPPORTED and r.cause in PROBED_CAUSES and not r.explanation for _, r in members):
            continue  # some case is claimed, or unsupported for another reason, or explained by the adapter
        case = min((c for c, _ in members), key=lambda c: (int(np.prod(next(iter(c.shapes.values()), [1]))), c.id))
        r = run_case(case, ignore_claims=True)
        if r.cause in DOES_NOT_RUN:
            outcome, msg = "does not run", (r.exception.splitlines()[0] if r.exception else r.reason)
        elif r.verdict == PASS:
            outcome, msg = "works", "ran and passed although not claimed"
        elif r.verdict == FAIL:
            outcome, msg = "runs but fails", r.reason
        else:
            outcome, msg = "does not run", r.reason
        probes.append(Probe(key[0], key[1], key[2], key[3], case.id, len(members), outcome, msg))
    return probes
