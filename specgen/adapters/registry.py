"""Adapter discovery: entry points of group ``specgen.adapters``, loaded lazily and verified.

``discover()`` only reads package metadata (nothing is imported). ``load(name)`` imports one
adapter and verifies it the way pluggy verifies hook implementations: the object must be an
adapter class, have ``claims()`` and ``run(call)``, have its backend modules installed, construct,
and return well-formed claims. Every problem is reported with the adapter's name and what is
missing; a broken adapter never stops the others.

``--adapter`` also takes ``module:Class`` directly (for adapters under development and for the
subprocess worker of ``--isolate``).
"""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
from dataclasses import dataclass, field
from typing import Iterable

from specgen.adapters.base import Adapter, Claim, NotInstalled

GROUP = "specgen.adapters"

# load statuses
OK = "ok"
NOT_INSTALLED = "not installed"  # the backend's modules are missing: skipped cleanly
BROKEN = "broken"  # import or construction failed
INCOMPLETE = "incomplete"  # missing methods or malformed claims


class AdapterLoadError(Exception):
    def __init__(self, name: str, status: str, problems: list[str], value: str = ""):
        self.name = name
        self.status = status
        self.problems = list(problems)
        self.value = value
        where = f" ({value})" if value else ""
        super().__init__(f"adapter {name!r}{where} is {status}: " + "; ".join(self.problems))


@dataclass
class AdapterEntry:
    """One registered adapter, not yet imported."""

    name: str
    value: str  # "module:attr"
    dist: str = ""  # the distribution that registers it

    def load(self, specs: dict | None = None) -> "LoadedAdapter":
        return load_object(self.name, self.value, self.dist, specs)


@dataclass
class LoadedAdapter:
    name: str
    value: str
    adapter: Adapter
    claims: list[Claim]
    dist: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def backend_version(self) -> str:
        try:
            return str(self.adapter.backend_version() or "")
        except Exception as exc:  # a broken version() must not stop a run
            return f"<backend_version() raised {type(exc).__name__}: {exc}>"


def _entry_points():
    eps = importlib.metadata.entry_points()
    if hasattr(eps, "select"):
        return list(eps.select(group=GROUP))
    return list(eps.get(GROUP, []))  # pragma: no cover - Python < 3.10 API


def discover() -> dict[str, AdapterEntry]:
    """Registered adapters by name (sorted); reads metadata only."""
    found: dict[str, AdapterEntry] = {}
    for ep in _entry_points():
        dist = getattr(getattr(ep, "dist", None), "name", "") or ""
        if ep.name in found and found[ep.name].value != ep.value:
            # two packages claim the same name: keep the first, the second is reported at load
            found[ep.name].dist += f" (also registered by {dist or '?'} as {ep.value})"
            continue
        found[ep.name] = AdapterEntry(ep.name, ep.value, dist)
    return dict(sorted(found.items()))


def entry(name: str) -> AdapterEntry:
    """The entry for ``name``: a registered adapter name, or ``module:Class``."""
    entries = discover()
    if name in entries:
        return entries[name]
    if ":" in name:
        return AdapterEntry(name, name, "")
    from specgen.text import did_you_mean

    known = ", ".join(entries) or "none"
    raise AdapterLoadError(name, "unknown", [f"no adapter of that name is installed{did_you_mean(name, entries)} "
                                             f"(installed: {known})"])


def load(name: str, specs: dict | None = None) -> LoadedAdapter:
    return entry(name).load(specs)


def load_all(names: Iterable[str] | None = None) -> tuple[dict[str, LoadedAdapter], dict[str, AdapterLoadError]]:
    """Load several adapters; returns (loaded, failures), one failure never stopping the rest."""
    entries = discover()
    ok: dict[str, LoadedAdapter] = {}
    bad: dict[str, AdapterLoadError] = {}
    for name in (names if names is not None else entries):
        try:
            ok[name] = (entries[name] if name in entries else entry(name)).load()
        except AdapterLoadError as exc:
            bad[name] = exc
    return ok, bad


def _import(value: str):
    module_name, _, attr = value.partition(":")
    module = importlib.import_module(module_name)
    obj = module
    for part in (attr.split(".") if attr else []):
        obj = getattr(obj, part)
    return obj


def construct(obj, specs: dict | None):
    """The adapter object of an entry point's class (or factory), with ``specs`` (the specs in use)
    set before ``__init__``, which may read ``self.specs``."""
    if isinstance(obj, type) and issubclass(obj, Adapter):
        adapter = obj.__new__(obj)
        adapter._specs = specs
        adapter.__init__()
        return adapter
    return obj()


def _missing_modules(modules: Iterable[str]) -> list[str]:
    missing = []
    for mod in modules:
        try:
            if importlib.util.find_spec(mod) is None:
                missing.append(mod)
        except (ImportError, ValueError):
            missing.append(mod)
    return missing


def verify_class(obj) -> list[str]:
    """Problems with an adapter class (empty when it is complete)."""
    if not inspect.isclass(obj):
        return [f"entry point gives {type(obj).__name__} {obj!r}, not an adapter class"]
    problems = []
    for method, params in Adapter.REQUIRED_METHODS.items():
        fn = getattr(obj, method, None)
        if fn is None or not callable(fn):
            problems.append(f"missing method {method}({', '.join(params)})")
            continue
        if fn is getattr(Adapter, method, None):
            problems.append(f"does not implement {method}({', '.join(params)}) (only the base class stub)")
            continue
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            continue
        positional = [p for p in sig.parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"]
        has_var = any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values())
        required = [p for p in positional if p.default is p.empty]
        if not has_var and len(positional) < len(params):
            problems.append(f"{method}() must take argument(s) {', '.join(params)}; it takes ({', '.join(p.name for p in positional)})")
        elif len(required) > len(params):
            extra = [p.name for p in required[len(params):]]
            problems.append(f"{method}() has extra required argument(s) {', '.join(extra)}")
    accepts = getattr(obj, "accepts", None)
    if accepts is not None and not callable(accepts):
        problems.append("accepts is not callable")
    return problems


def verify_claims(name: str, claims, specs: dict | None = None) -> tuple[list[Claim], list[str], list[str]]:
    """(claims, problems, warnings). A claim must name a known op, a standard that op has, version
    patterns matching some version of it, known dtype names and attributes the op has: anything
    else is a problem listing the valid values, so that a typo cannot turn into a green run that
    tested nothing. A known dtype that none of the claimed versions lists is a warning (an adapter
    may claim "every float dtype" for every op)."""
    from specgen import dtypes as _dt
    from specgen.patterns import matches
    from specgen.spec.provenance import specs_in_use_note
    from specgen.text import did_you_mean

    problems: list[str] = []
    warnings: list[str] = []
    try:
        claims = list(claims)
    except TypeError:
        return [], [f"claims() returned {type(claims).__name__}, not a sequence of Claim"], []
    good: list[Claim] = []
    for i, claim in enumerate(claims):
        if not isinstance(claim, Claim):
            problems.append(f"claims()[{i}] is {type(claim).__name__}, not specgen.adapters.base.Claim")
            continue
        good.append(claim)
    if not problems and not good:
        warnings.append("claims nothing: every case will be unsupported")
    if specs is None:
        from specgen.spec.operators import load_operators

        specs = load_operators()
    for claim in good:
        spec = specs.get(claim.op)
        if spec is None:
            problems.append(f"claim names op {claim.op!r}{did_you_mean(claim.op, specs)}, which has no spec "
                            f"(known: {', '.join(specs)}; {specs_in_use_note(specs)})")
            continue
        if claim.standard != "*" and claim.standard not in spec.standards:
            problems.append(f"claim for {claim.op} names standard {claim.standard!r}"
                            f"{did_you_mean(claim.standard, spec.standards)}, which {claim.op} does not have "
                            f"(its standards: {', '.join(spec.standards)})")
            continue
        stds = [std for key, std in spec.standards.items() if claim.standard in ("*", key)]
        versions = [v for std in stds for v in std.versions]
        every = sorted({str(v.version) for v in versions})
        bad = [p for p in claim.versions if not any(matches(str(v.version), p) for v in versions)]
        if bad:
            problems.append(f"claim for {claim.op} {claim.standard} names version(s) {', '.join(bad)}"
                            f"{did_you_mean(bad[0], every)}, which match no version (known: {', '.join(every)})")
            continue
        claimed = [v for v in versions if any(matches(str(v.version), p) for p in claim.versions)]
        listed = sorted({d for v in claimed for d in v.dtypes()}, key=list(_dt.DTYPES).index)
        for d in claim.dtypes:
            if d not in _dt.DTYPES:
                problems.append(f"claim for {claim.op} names unknown dtype {d!r}{did_you_mean(d, _dt.DTYPES)} "
                                f"(known: {', '.join(_dt.DTYPES)})")
            elif d not in listed:  # a generic "every float dtype" claim is fine; say what it cannot cover
                warnings.append(f"claim for {claim.op} {claim.standard} versions {','.join(claim.versions)} names dtype "
                                f"{d!r}, which none of those versions lists (they list: {', '.join(listed)}): "
                                f"no case of it exists")
        for attr in claim.attributes:
            if attr not in spec.attribute_names:
                problems.append(f"claim for {claim.op} limits attribute {attr!r}"
                                f"{did_you_mean(attr, spec.attribute_names)}, which {spec.name} does not have "
                                f"(attributes: {', '.join(spec.attribute_names) or 'none'})")
        inputs = [t.name for t in spec.inputs]
        for tensor in claim.shapes:
            if tensor not in inputs:
                problems.append(f"claim for {claim.op} limits the shape of {tensor!r}{did_you_mean(tensor, inputs)}, "
                                f"which is not an input of {spec.name} (inputs: {', '.join(inputs)})")
    return good, problems, warnings


def _top(module: str) -> str:
    return module.split(".", 1)[0]


def load_object(name: str, value: str, dist: str = "", specs: dict | None = None) -> LoadedAdapter:
    """Import, verify and construct one adapter. ``specs``: the loaded specs (the runner's), handed
    to the adapter as ``adapter.specs`` so that it never parses specs/ again."""
    try:
        obj = _import(value)
    except ModuleNotFoundError as exc:
        # The plugin's own package (or a module of it) missing is a broken plugin, not an absent
        # backend: only a third-party module missing means "not installed".
        own = bool(exc.name) and _top(exc.name) in (_top(value.partition(":")[0]), "specgen")
        status = BROKEN if own or not exc.name else NOT_INSTALLED
        raise AdapterLoadError(name, status, [f"cannot import {value}: {exc}"], value) from exc
    except Exception as exc:
        raise AdapterLoadError(name, BROKEN, [f"importing {value} raised {type(exc).__name__}: {exc}"], value) from exc
    problems = verify_class(obj)
    if problems:
        raise AdapterLoadError(name, INCOMPLETE, problems, value)
    missing = _missing_modules(getattr(obj, "requires", ()) or ())
    if missing:
        extra = getattr(obj, "extra", None)
        hint = f" (pip install 'specgen[{extra}]')" if extra else ""
        raise AdapterLoadError(name, NOT_INSTALLED, [f"backend module(s) not installed: {', '.join(missing)}{hint}"], value)
    try:
        adapter = construct(obj, specs)
    except NotInstalled as exc:
        raise AdapterLoadError(name, NOT_INSTALLED, [str(exc)], value) from exc
    except Exception as exc:
        raise AdapterLoadError(name, BROKEN, [f"constructing {obj.__name__}() raised {type(exc).__name__}: {exc}"], value) from exc
    try:
        if not getattr(adapter, "name", ""):
            adapter.name = name
    except Exception:  # pragma: no cover - read-only attribute
        pass
    try:
        raw = adapter.claims()
    except Exception as exc:
        raise AdapterLoadError(name, BROKEN, [f"claims() raised {type(exc).__name__}: {exc}"], value) from exc
    claims, problems, warnings = verify_claims(name, raw, specs)
    if problems:
        raise AdapterLoadError(name, INCOMPLETE, problems, value)
    try:
        warnings += [str(n) for n in (adapter.load_notes() if hasattr(adapter, "load_notes") else ())]
    except Exception as exc:  # a broken note must not stop a run
        warnings.append(f"load_notes() raised {type(exc).__name__}: {exc}")
    return LoadedAdapter(name, value, adapter, claims, dist, warnings)
