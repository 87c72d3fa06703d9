"""Claims checked against behaviour from the other side: unclaimed groups that might work.

Each (op, standard-version, dtype) group is probed when
  - the adapter claims the op in that standard (some version, or standard "*"),
  - every positive dense, not-in-place case of the group is unsupported only because its dtype or
    its version is not claimed (not rank, attribute, size), and
  - the adapter does not explain the group (``why_unclaimed``): an explanation, such as the error
    onnxruntime gave when the adapter tried the group at load, is reported instead.
The probe runs one case of the group ignoring the claims: the one that can tell most, i.e. with the
most distinct expected values among the cases of at most PROBE_MAX_ELEMENTS elements (then fewest
elements, then id). It used to be the smallest case, often one element (HardSigmoid(65504) = 1),
which a broken kernel passes: a "works" from it said nothing (issue 24). "works" means that case
passed, "runs but fails" that it ran out of bound, "does not run" that the backend declined,
rejected or crashed.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from specgen.runner.verdicts import FAIL, PASS, UNSUPPORTED, Cause, Probe, Result

PROBED_CAUSES = (Cause.UNCLAIMED_DTYPE, Cause.UNCLAIMED_VERSION)
DOES_NOT_RUN = (Cause.DECLINED_CLAIMED, Cause.REJECTED_LEGAL, Cause.CRASHED)
PROBE_MAX_ELEMENTS = 4096  # a probe stays cheap: the corpus's regions and breakpoints cases are far smaller


def _elements(case) -> int:
    return int(np.prod(next(iter(case.shapes.values()), [1])))


def _distinct_expected(case, outputs) -> int:
    """How many different values the case's expected outputs hold (NaN counted once): what a wrong
    kernel has to get right to pass it."""
    data = case.load()
    values = [np.asarray(data[name]).astype(np.float64).ravel() for name in outputs if name in data]
    return len(np.unique(np.concatenate(values))) if values else 0


def telling_case(cases, outputs):
    """The probe's case (``outputs``: the op's output tensor names): the most distinct expected values among the cases of at most
    PROBE_MAX_ELEMENTS elements (then fewest elements, then id); the smallest case if none is that
    small."""
    small = [c for c in cases if _elements(c) <= PROBE_MAX_ELEMENTS]
    if not small:
        return min(cases, key=lambda c: (_elements(c), c.id))
    return min(small, key=lambda c: (-_distinct_expected(c, outputs), _elements(c), c.id))


def probe(cases, results, claims, run_case: Callable[..., Result], specs: dict) -> list[Probe]:
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
        case = telling_case([c for c, _ in members], [t.name for t in specs[key[0]].outputs])
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
