"""Verdicts, their typed causes, and the records of a run (a case's :class:`Result`, a :class:`Probe`,
the whole :class:`RunResult`). Plain data: the reports read these and nothing else."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

PASS, FAIL, UNSUPPORTED, ERROR, XFAIL, XPASS = "pass", "fail", "unsupported", "error", "xfail", "xpass"
VERDICTS = (PASS, FAIL, ERROR, UNSUPPORTED, XFAIL, XPASS)
FAILING = (FAIL, ERROR)


class Cause(str, Enum):
    """Why a case got its verdict, as a value (the reason text is for people; code reads this)."""

    # pass
    WITHIN_BOUND = "within-bound"
    REJECTED = "rejected"  # a must-reject case refused
    # unsupported: which part of the case no claim covers
    UNCLAIMED_VERSION = "unclaimed-version"  # the op, standard or version
    UNCLAIMED_DTYPE = "unclaimed-dtype"
    UNCLAIMED_RANK = "unclaimed-rank"
    UNCLAIMED_SIZE = "unclaimed-size"
    UNCLAIMED_ATTRIBUTE = "unclaimed-attribute"
    UNCLAIMED_SHAPE = "unclaimed-shape"  # an input's shape (torch's prelu: slope per channel only)
    UNCLAIMED_IN_PLACE = "unclaimed-in-place"
    UNCLAIMED_STRIDED = "unclaimed-strided"
    UNCLAIMED_REJECTION = "unclaimed-rejection"  # must-reject case, the claim has rejects=False
    # fail
    OUT_OF_BOUND = "out-of-bound"
    STRICT_PROFILE = "strict-profile"  # within bound, but not the spec's recommended special-value outcome
    ACCEPTED_ILLEGAL = "accepted-illegal"
    REJECTED_LEGAL = "rejected-legal"
    DECLINED_CLAIMED = "declined-claimed"  # Unsupported raised inside the claim
    WROTE_OUTSIDE = "wrote-outside"  # wrote a strided tensor's gaps, past a tensor's ends, or into an input
    # error
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    DIED = "died"
    NO_OUTPUT = "no-output"
    WRONG_SHAPE = "wrong-shape"
    WRONG_DTYPE = "wrong-dtype"
    SPECGEN = "specgen-error"  # the comparison or the runner itself failed

    def __str__(self) -> str:
        return self.value


@dataclass
class Result:
    case_id: str
    op: str
    standard: str
    version: str
    dtype: str
    kind: str
    verdict: str
    reason: str
    cause: Cause | None = None
    rerun: str = ""
    detail: dict = field(default_factory=dict)  # the comparison (worst element, mismatches, ...)
    notes: list[str] = field(default_factory=list)
    in_place: bool = False
    strided: bool = False
    shape: list = field(default_factory=list)
    tags: list = field(default_factory=list)
    seconds: float = 0.0
    baseline: str | None = None  # the baseline entry's reason (xfail/xpass)
    baseline_ids: list = field(default_factory=list)  # the entries that explain it (xfail), or fixed ones (xpass)
    original_verdict: str | None = None  # before the baseline turned it into xfail/xpass
    explanation: str | None = None  # unsupported: the adapter's own why_unclaimed() text
    exception: str | None = None  # error: the adapter's full exception text (every line)
    profile: dict = field(default_factory=dict)  # behaviour where the spec leaves a choice (runner.profile)
    attributes: dict = field(default_factory=dict)  # the case's attribute values (baseline selectors, conditions)
    failing: dict = field(default_factory=dict)  # output -> compare.Failing: every failing element (not in JSON)

    @property
    def group(self) -> tuple[str, str, str]:
        """(op, standard-version, dtype) for legal cases; must-reject cases of every dtype share one
        group per op and version, labelled ``must-reject``."""
        return (self.op, f"{self.standard}-{self.version}", "must-reject" if self.kind == "negative" else self.dtype)

    def to_json(self) -> dict:
        return {"id": self.case_id, "op": self.op, "standard": self.standard, "version": self.version,
                "dtype": self.dtype, "kind": self.kind, "verdict": self.verdict, "reason": self.reason,
                "cause": str(self.cause) if self.cause else None,
                "rerun": self.rerun, "detail": jsonable(self.detail), "notes": list(self.notes),
                "in_place": self.in_place, "strided": self.strided, "shape": list(self.shape),
                "tags": list(self.tags), "seconds": round(self.seconds, 6), "baseline": self.baseline,
                "baseline_ids": list(self.baseline_ids),
                "original_verdict": self.original_verdict, "explanation": self.explanation,
                "exception": self.exception, "profile": jsonable(self.profile)}


@dataclass
class Probe:
    """An unclaimed (op, standard-version, dtype) run once to see whether it works anyway."""

    op: str
    standard: str
    version: str
    dtype: str
    case_id: str
    cases: int  # unsupported cases in the group
    outcome: str  # "works" | "runs but fails" | "does not run"
    message: str

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class RunResult:
    adapter: str
    backend_version: str
    results: list[Result]
    probes: list[Probe] = field(default_factory=list)
    baseline_unmatched: list[dict] = field(default_factory=list)
    baseline_fixed: list[dict] = field(default_factory=list)  # entries selecting cases but explaining nothing
    baseline_inactive: list[dict] = field(default_factory=list)  # entries whose backend range excludes this run
    baseline_file: str | None = None
    strict: bool = False
    filters: str = ""
    corpus: str = ""
    seconds: float = 0.0
    claims: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    claimed: list[tuple[str, str]] = field(default_factory=list)  # (op, standard) pairs claimed ("*": any)
    selected: int = 0  # cases selected by the filters (more than len(results) when interrupted)
    interrupted: bool = False  # Ctrl-C: the results are those that finished
    stopped_early: bool = False  # -x: stopped at the first new failure
    profile_mode: str = "report"  # "report" or "strict" (--profile)

    def counts(self) -> dict[str, int]:
        out = {v: 0 for v in VERDICTS}
        for r in self.results:
            out[r.verdict] += 1
        return out

    @property
    def new_failures(self) -> list[Result]:
        return [r for r in self.results if r.verdict in FAILING]

    @property
    def xpasses(self) -> list[Result]:
        return [r for r in self.results if r.verdict == XPASS]

    @property
    def nothing_claimed(self) -> bool:
        """Every case was outside the adapter's claims: the run tested nothing."""
        return bool(self.results) and all(r.verdict == UNSUPPORTED for r in self.results)

    def exit_code(self) -> int:
        from specgen.exitcodes import Exit

        if self.interrupted:
            return Exit.INTERRUPTED
        if self.new_failures:
            return Exit.FAILURES
        if self.strict and (self.xpasses or self.baseline_fixed):
            return Exit.FAILURES
        if self.nothing_claimed:
            return Exit.NOTHING
        return Exit.OK


def jsonable(obj):
    if isinstance(obj, Enum):
        return str(obj.value)
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else repr(f)
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    return str(obj)
