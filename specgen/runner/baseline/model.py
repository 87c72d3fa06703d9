"""A baseline file read into entries: which cases an entry selects, and its failure signature.

The format is specgen/schemas/baseline.schema.json (docs/runner.md, "Baselines"); every problem is
one :class:`BaselineError` naming ``FILE:LINE:COLUMN``, the key path and what is wrong.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from pathlib import Path

from specgen.patterns import matches

ELEMENT_KINDS = ("nan-mismatch", "inf-mismatch", "value", "flush", "signed-zero", "cancellation")
MEASURED_KINDS = ("value", "flush", "cancellation")  # an element error in ULPs that max_ulp bounds
SELECTORS = ("case", "op", "standard", "version", "dtype", "tags", "attributes")
TODO = "TODO"


class BaselineError(Exception):
    """The baseline file is unreadable or malformed (exit code 2)."""


def known_kinds() -> tuple[str, ...]:
    """Every failure kind a signature may name: the comparison's element kinds, then the runner's
    whole-case causes of a fail or error (read from the code, so a kind added there is known here)."""
    from specgen.numerics.compare import KIND_ORDER
    from specgen.runner.verdicts import Cause

    cases = [str(c) for c in Cause if c not in (Cause.WITHIN_BOUND, Cause.REJECTED, Cause.OUT_OF_BOUND, Cause.SPECGEN)
             and not str(c).startswith("unclaimed-")]
    return tuple(dict.fromkeys([*KIND_ORDER, *ELEMENT_KINDS, *cases]))


def is_placeholder(reason: str) -> bool:
    return reason.strip().upper().startswith(TODO)


def as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


@dataclass
class Clause:
    """One shape of failure: its kind(s) and, for elements, where (input classes, a condition) and
    how large (max_ulp)."""

    kinds: tuple[str, ...]
    inputs: dict = field(default_factory=dict)  # input name -> tuple of value classes
    where: str | None = None
    max_ulp: float | None = None
    where_names: frozenset = frozenset()  # the names the condition uses

    def to_yaml(self) -> dict:
        out: dict = {"kind": self.kinds[0] if len(self.kinds) == 1 else list(self.kinds)}
        if self.inputs:
            out["inputs"] = {k: list(v) for k, v in self.inputs.items()}
        if self.where:
            out["where"] = self.where
        if self.max_ulp is not None:
            out["max_ulp"] = self.max_ulp
        return out

    def describe(self) -> str:
        bits = ["/".join(self.kinds)]
        bits += [f"{k} in {{{', '.join(v)}}}" for k, v in self.inputs.items()]
        if self.where:
            bits.append(f"where {self.where}")
        if self.max_ulp is not None:
            bits.append(f"<= {self.max_ulp:g} ULP")
        return " ".join(bits)


@dataclass(eq=False)
class Entry:
    """One known cause: the cases it selects, its signature (``clauses``; None: any failure), its reason."""

    reason: str
    id: str = ""
    case: tuple[str, ...] = ()
    op: tuple[str, ...] = ()
    standard: tuple[str, ...] = ()
    version: tuple[str, ...] = ()
    dtype: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    attributes: dict = field(default_factory=dict)  # name -> tuple of accepted values
    clauses: list[Clause] | None = None
    link: str | None = None
    backend: str | None = None
    cpu: tuple[str, ...] = ()  # CPU features the machine must have ('AVX512F') or lack ('!AVX512F')
    line: int | None = None
    # what the last gate (specgen.runner.baseline.gate) found
    selected: int = 0  # cases of the run it selects
    explained: int = 0  # failing elements or cases it explains
    explained_cases: int = 0
    failing: int = 0  # cases it selected that became xfail
    active: bool = True  # False: the run's backend version is outside ``backend``, or the CPU is not ``cpu``

    @property
    def pattern(self) -> str:
        """A one-line description of what the entry selects (the old format's case pattern)."""
        if self.case and not (self.op or self.standard or self.version or self.dtype or self.tags or self.attributes):
            return ", ".join(self.case)
        return self.selection()

    def selection(self) -> str:
        bits = [f"{k}={'|'.join(v)}" for k in ("case", "op", "standard", "version", "dtype") if (v := getattr(self, k))]
        if self.tags:
            bits.append("tags=" + "+".join(self.tags))
        bits += [f"{k}={'|'.join(map(str, v))}" for k, v in self.attributes.items()]
        return " ".join(bits) or "every case"

    @property
    def name(self) -> str:
        return self.id or self.pattern

    def match(self, case_id: str) -> bool:
        """Whether the entry can select this case id (only its ``case`` patterns; used where only ids
        are known)."""
        return not self.case or any(matches(case_id, p) for p in self.case)

    def selects(self, case) -> bool:
        """Whether the entry selects ``case`` (a corpus case or a run Result: id, op, standard,
        version, dtype, tags; attributes when the object has them)."""
        cid = getattr(case, "case_id", None) or case.id
        if self.case and not any(matches(cid, p) for p in self.case):
            return False
        for key in ("op", "standard", "version", "dtype"):
            want = getattr(self, key)
            if want and not any(matches(str(getattr(case, key)), p) for p in want):
                return False
        if self.tags and not set(self.tags) <= set(getattr(case, "tags", ()) or ()):
            return False
        if self.attributes:
            have = getattr(case, "attributes", None) or {}
            for k, accepted in self.attributes.items():
                if k not in have or not any(same_value(have[k], a) for a in accepted):
                    return False
        return True


def same_value(actual, written) -> bool:
    """An attribute value equals the written one: strings exactly, numbers to float32 precision
    (case ids and files print float32 attributes with 8 significant digits)."""
    if isinstance(written, str) or isinstance(actual, str):
        return str(actual) == str(written)
    try:
        a, w = float(actual), float(written)
    except (TypeError, ValueError):
        return actual == written
    if a == w or (math.isnan(a) and math.isnan(w)):
        return True
    return abs(a - w) <= 1e-7 * max(abs(a), abs(w))


def read_text(path: str | Path, what: str = "baseline file") -> str:
    """The file's text as UTF-8 (a BOM is dropped); any problem is one line (BaselineError)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise BaselineError(f"{path}:{line}: the {what} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                            f"{exc.start}); save it as UTF-8") from None


def condition_names(text: str, where: str) -> frozenset:
    """Check a ``where`` condition's syntax with the formula parser (every name it uses taken as an
    input) and return the names; BaselineError names the problem."""
    from specgen.errors import FormulaError
    from specgen.formula.parser import parse_formula

    try:
        names = {n.id for n in ast.walk(ast.parse(text.strip(), mode="eval")) if isinstance(n, ast.Name)}
    except SyntaxError as exc:
        raise BaselineError(f"{where}: the condition {text!r} is not valid: {exc.msg}") from None
    from specgen.formula.functions import CONSTANTS, FUNCTIONS

    names -= set(FUNCTIONS) | set(CONSTANTS)
    try:
        parse_formula(text, sorted(names), [])
    except FormulaError as exc:
        raise BaselineError(f"{where}: the condition {text!r} is not valid: {exc}") from None
    return frozenset(names)


def cpu_features() -> dict[str, bool]:
    """This machine's CPU features as numpy's dispatcher detects them (AVX512F, AVX2, NEON, ...): the
    instruction sets that backends choosing kernels at run time (XLA, MLAS, oneDNN) choose by."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__
    return dict(__cpu_features__)


def cpu_condition(features: list, where: str) -> tuple[str, ...]:
    """An entry's ``cpu`` list, upper-cased, each name checked against the features numpy knows."""
    known = cpu_features()
    out = []
    for text in features:
        name = str(text).strip().upper()
        if name.lstrip("!") not in known:
            raise BaselineError(f"{where}: unknown CPU feature {name.lstrip('!')!r}; numpy knows: "
                                f"{', '.join(sorted(known))}")
        out.append(name)
    return tuple(out)


def cpu_matches(condition: tuple[str, ...], features: dict[str, bool] | None = None) -> bool:
    """Whether this machine has every feature of ``condition`` and lacks every '!' one."""
    have = cpu_features() if features is None else features
    return all(bool(have.get(c[1:])) is False if c.startswith("!") else bool(have.get(c)) for c in condition)


def _where(doc, keypath) -> str:
    line, column = doc.where(keypath)
    from specgen.spec.yaml_source import join_keypath

    place = f"{doc.path}:{line}:{column}" if line else doc.path
    return f"{place}: {join_keypath(keypath)}" if keypath else place


def parse_document(text: str, path: str, placeholders_ok: bool):
    """(entries, adapter, written_with) of a baseline file's text."""
    from specgen.errors import Problem  # noqa: F401  (the Problem text is the message)
    from specgen.spec import schema as sch
    from specgen.spec.yaml_source import YamlProblems, parse_text

    if not text.strip() or all(not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()):
        return [], None, {}
    try:
        doc = parse_text(text, path)
    except YamlProblems as exc:
        raise BaselineError(str(exc.problems[0]).replace("a spec must be", "a baseline must be")) from None
    problems = sch.validate(doc, "baseline")
    if problems:
        raise BaselineError("\n".join(str(p) for p in problems))
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(doc.data.get("known_failures") or []):
        kp = ("known_failures", i)
        line = doc.line(kp)
        reason = " ".join(item["reason"].split())
        if not reason:
            raise BaselineError(f"{_where(doc, kp + ('reason',))}: entry has no reason; every known failure needs one")
        if not placeholders_ok and is_placeholder(reason):
            raise BaselineError(f"{_where(doc, kp + ('reason',))}: entry {item.get('id') or ', '.join(as_list(item.get('case'))) or ''!r} "
                                f"has a placeholder reason: replace the TODO reason with why this failure is known")
        if not any(k in item for k in SELECTORS):
            raise BaselineError(f"{_where(doc, kp)}: the entry selects nothing: give at least one of "
                                f"{', '.join(SELECTORS)} (case: '*' selects every case)")
        clauses = None
        if "fails" in item:
            clauses = []
            for j, c in enumerate(item["fails"]):
                unknown = [k for k in as_list(c["kind"]) if k not in known_kinds()]
                if unknown:
                    raise BaselineError(f"{_where(doc, kp + ('fails', j, 'kind'))}: unknown failure kind "
                                        f"{unknown[0]!r}; expected one of: {', '.join(known_kinds())}")
                names = frozenset()
                if "where" in c:
                    names = condition_names(c["where"], _where(doc, kp + ("fails", j, "where")))
                clauses.append(Clause(tuple(as_list(c["kind"])), {k: tuple(v) for k, v in (c.get("inputs") or {}).items()},
                                      c.get("where"), float(c["max_ulp"]) if "max_ulp" in c else None, names))
        def names(key):
            return tuple(str(v).strip() for v in as_list(item.get(key)))

        entry = Entry(reason=reason, id=item.get("id", ""), case=names("case"), op=names("op"),
                      standard=names("standard"), version=names("version"), dtype=names("dtype"),
                      tags=tuple(item.get("tags") or ()),
                      attributes={k: tuple(as_list(v)) for k, v in (item.get("attributes") or {}).items()},
                      clauses=clauses, link=item.get("link"), backend=item.get("backend"),
                      cpu=cpu_condition(as_list(item.get("cpu")), _where(doc, kp + ("cpu",))), line=line)
        if entry.id:
            if entry.id in seen:
                raise BaselineError(f"{_where(doc, kp + ('id',))}: id {entry.id!r} is already used by the entry at line "
                                    f"{seen[entry.id]}; ids are unique")
            seen[entry.id] = line or 0
        entries.append(entry)
    adapter = doc.data.get("adapter")
    return entries, adapter, dict(doc.data.get("written_with") or {})
