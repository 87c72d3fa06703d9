"""Every normative reading of a standard, judged any-of: a layer around ``compare``.

A standard's text gives its formula (the reading named ``text``, the default); the spec may list
more readings (``standards.<key>.readings``: ONNX's function body, WebNN's expression), each with
its own formula, attributes cast to the tensor type, or a *literal* evaluation in the tensor type
(overflow and cancellation included). ``compare_readings`` judges the case by the text; only where
that fails an element does it judge those elements by each other reading, and an element passes if
any *enabled* reading accepts it. Literal readings are opt-in (``enabled`` names them); the others
are enabled by default. A failing element that only a disabled reading explains is reported so
("matches only the opt-in reading X").

The Comparison returned is compare's, with ``readings``: per reading, how many elements of the case
it accepts among those the text fails (the text: every element it accepts), and ``only``: per
reading, the elements no other reading accepts."""
from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from specgen import dtypes as dt
from specgen.formula.numpy_eval import evaluate
from specgen.numerics import ulp as U
from specgen.numerics.compare import (KIND_ORDER, Comparison, Element, Failing, compare, resolve_attributes,
                                      value_text)
from specgen.spec.model import TEXT_READING


@dataclass
class ReadComparison(Comparison):
    """compare's Comparison with which reading(s) accepted the elements the text's reading fails."""

    readings: dict = field(default_factory=dict)  # reading -> elements it accepts (text: all it accepts)
    only: dict = field(default_factory=dict)  # reading -> elements no other enabled reading accepts
    opt_in: dict = field(default_factory=dict)  # disabled reading -> failing elements it alone explains

    def summary(self) -> str:
        return super().summary() + self.readings_text()

    def readings_text(self) -> str:
        bits = [f"{n} element(s) accepted only by reading {r!r}" for r, n in self.only.items() if r != TEXT_READING and n]
        bits += [f"{n} failing element(s) match only the opt-in reading {r!r} (enable it: --reading {r})"
                 for r, n in self.opt_in.items() if n]
        return f"; {'; '.join(bits)}" if bits else ""

    def to_json(self) -> dict:
        out = super().to_json()
        out["readings"] = dict(self.readings)
        if self.only:
            out["readings_only"] = dict(self.only)
        if any(self.opt_in.values()):
            out["readings_opt_in"] = {k: n for k, n in self.opt_in.items() if n}
        return out


def readings_of(spec, standard_key: str, version: str | None = None) -> tuple:
    """The standard's readings besides the text's that apply to ``version`` (None: every one)."""
    std = getattr(spec, "standards", {}).get(standard_key)
    return tuple(r for r in getattr(std, "readings", ()) or () if r.applies(version))


def unknown_readings(specs, names: Collection[str]) -> list[str]:
    """The names in ``names`` that no standard of any spec declares (``--reading`` typos)."""
    known = {r.name for s in specs for std in s.standards.values() for r in std.readings}
    return sorted(set(names) - known)


def compare_readings(spec, standard_key: str, case_dtype: str, inputs: Mapping[str, Any],
                     attributes: Mapping[str, Any], expected, actual, *, enabled: Collection[str] = (),
                     version: str | None = None, fast: bool = True) -> Comparison:
    """``compare`` by the text's reading, then any-of over the standard's other readings that apply
    to the case's ``version`` (literal ones only when ``enabled`` names them) for the elements the
    text fails."""
    base = compare(spec, standard_key, case_dtype, inputs, attributes, expected, actual, fast=fast)
    readings = readings_of(spec, standard_key, version)
    if not readings:
        return base
    out = ReadComparison(**{f.name: getattr(base, f.name) for f in dataclasses.fields(Comparison)})
    out.readings = {TEXT_READING: base.total - base.mismatches}
    if base.ok or base.failing is None or len(base.failing) == 0:
        return out
    expected, actual = np.asarray(expected), np.asarray(actual)
    flat = base.failing.index
    sub_in = {k: np.broadcast_to(np.asarray(v), expected.shape).reshape(-1)[flat] for k, v in inputs.items()}
    sub_exp, sub_act = expected.reshape(-1)[flat], actual.reshape(-1)[flat]
    accepts: dict[str, np.ndarray] = {}
    for r in readings:
        accepts[r.name] = _accepted_by(spec, standard_key, case_dtype, r, sub_in, attributes, sub_exp, sub_act, fast)
    on = [r.name for r in readings if not r.literal or r.name in enabled]
    off = [r.name for r in readings if r.name not in on]
    any_on = np.zeros(flat.size, dtype=bool)
    for name in on:
        any_on |= accepts[name]
    for name in on:
        out.readings[name] = int(accepts[name].sum())
        others = np.zeros(flat.size, dtype=bool)
        for o in on:
            if o != name:
                others |= accepts[o]
        out.only[name] = int((accepts[name] & ~others).sum())
    for name in off:
        out.opt_in[name] = int((accepts[name] & ~any_on).sum())
    still = ~any_on
    return _narrowed(out, still, expected.shape, expected.dtype)


def _accepted_by(spec, standard_key, dtype, reading, inputs, attributes, expected, actual, fast) -> np.ndarray:
    """Which of these elements (flat arrays) ``reading`` accepts."""
    plain, attrs = _as_read(spec, standard_key, dtype, reading, attributes)
    if reading.rounded_input is not None:
        return _accepted_at_rounded_input(plain, standard_key, dtype, reading, inputs, attrs, expected, actual, fast)
    if not all(np.isfinite(v) for v in attrs.values() if not isinstance(v, str)):
        return np.zeros(actual.size, dtype=bool)  # an attribute cast out of the type's range: no reading of it
    cmp = compare(plain, standard_key, dtype, inputs, attrs, expected, actual, fast=fast)
    ok = np.ones(actual.size, dtype=bool)
    if cmp.failing is not None:
        ok[cmp.failing.index] = False
    elif not cmp.ok:
        ok[:] = False
    if reading.literal:
        ok |= _literal_equal(plain, standard_key, dtype, inputs, attrs, actual)
    return ok


def _accepted_at_rounded_input(plain, standard_key, dtype, reading, inputs, attrs, expected, actual, fast) -> np.ndarray:
    """An input transform's rounded reading: the elements whose result the reading's function (the
    untransformed formula) gives at some rounding of the transformed input (rounded_inputs), judged
    as the text judges a result: against the golden value at that input, by the error model."""
    from specgen.errors import SpecError
    from specgen.numerics.exact import golden

    name, node = reading.rounded_input
    ok = np.zeros(actual.size, dtype=bool)
    if not U.is_float(dtype) or name not in inputs:
        return ok
    tol = plain.tolerance.get(dtype)
    intermediate = tol.intermediate if tol is not None and tol.intermediate else dtype
    out = dt.by_numpy(np.asarray(expected).dtype).name
    for p in rounded_inputs(node, name, inputs, attrs, intermediate):
        ins = {**inputs, name: p}
        try:
            with np.errstate(all="ignore"):
                g = np.asarray(golden(plain, ins, attrs, out, standard_key).y)
        except SpecError:
            continue  # undecidable there: this rounding explains nothing
        cmp = compare(plain, standard_key, dtype, ins, attrs, g.reshape(actual.shape), actual, fast=fast)
        here = np.ones(actual.size, dtype=bool)
        if cmp.failing is not None:
            here[cmp.failing.index] = False
        elif not cmp.ok:
            here[:] = False
        ok |= here
        if ok.all():
            break
    return ok


def rounded_inputs(node, name: str, inputs: Mapping[str, Any], attrs: Mapping[str, float], intermediate: str) -> list:
    """The values a kernel may give ``node`` (an input transform, over input ``name`` and the
    attributes) at these elements (flat arrays): in the intermediate type and in every wider one
    (error_model.compute_types), each operation rounded there with the attributes held in that type,
    or the exact value rounded once (a fused multiply-add) with the attributes as given or held in
    that type. Each an array of its compute type; duplicates left out."""
    from fractions import Fraction

    from specgen.formula.breakpoints import NotRational, evaluate_exact
    from specgen.numerics.error_model import compute_types

    x = np.asarray(inputs[name])
    with np.errstate(invalid="ignore"):
        x64 = x.astype(np.float64)
    finite = np.isfinite(x64)
    out: list[np.ndarray] = []
    seen: set[bytes] = set()
    for c in compute_types(intermediate):
        t = dt.get(c).numpy
        held = {k: dt.cast_value(v, c) for k, v in attrs.items() if not isinstance(v, str)}
        env = {**held, name: x.astype(t)}
        with np.errstate(all="ignore"):
            stepwise = np.broadcast_to(np.asarray(evaluate(node, env, dtype=t)), x.shape).astype(t)
        candidates = [stepwise]
        for values in (attrs, held):
            if not all(np.isfinite(v) for v in values.values() if not isinstance(v, str)):
                continue  # an attribute held out of the type's range: the stepwise value is the rounding
            fused = stepwise.copy()
            for i in np.flatnonzero(finite):
                point = {k: Fraction(float(v)) for k, v in values.items() if not isinstance(v, str)}
                point[name] = Fraction(float(x64.flat[i]))
                try:
                    q = evaluate_exact(node, point)
                except (NotRational, ZeroDivisionError):
                    continue
                fused.flat[i] = U.round_fraction(q, c)
            candidates.append(fused)
        for v in candidates:
            key = c.encode() + v.tobytes()
            if key not in seen:
                seen.add(key)
                out.append(v)
    return out


def _as_read(spec, standard_key, dtype, reading, attributes):
    """(the spec as ``reading`` reads it, the attribute values it computes with)."""
    if getattr(spec, "choice", None) and spec.choice_value(attributes, standard_key) is not None:
        spec, attributes = spec.resolve(attributes, standard_key)
    attrs = resolve_attributes(spec, standard_key, attributes, dtype)
    if reading.attribute_cast:
        attrs = cast_like(attrs, dtype)
    std = spec.standards[standard_key]
    read_std = replace(std, formula=reading.formula if reading.formula is not None else std.formula,
                       formula_text=reading.formula_text or std.formula_text, readings=())
    return replace(spec, standards={**spec.standards, standard_key: read_std}), attrs


def cast_like(attrs: Mapping[str, float], dtype: str) -> dict[str, float]:
    """ONNX ``CastLike(attribute, X)``: each value in the tensor type (rounded to nearest even for
    a float type; truncated towards zero for an integer type, as ONNX's reference casts)."""
    return {k: dt.cast_value(v, dtype) for k, v in attrs.items()}


def _literal_equal(spec, standard_key, dtype, inputs, attrs, actual) -> np.ndarray:
    """Elements equal to the formula evaluated as written, every operation in the tensor type
    (NaN matches any NaN; zeros match by sign)."""
    if not U.is_float(dtype):
        return np.zeros(actual.size, dtype=bool)
    t = dt.get(dtype).numpy
    env = {**{k: np.asarray(v).astype(t) for k, v in inputs.items()}, **{k: t.type(v) for k, v in attrs.items()}}
    with np.errstate(all="ignore"):
        y = np.broadcast_to(np.asarray(evaluate(spec.formula_for(standard_key), env, dtype=t)), actual.shape).astype(t)
    a = np.asarray(actual)
    bits = f"u{np.dtype(t).itemsize}"
    return (y.view(bits) == a.view(bits)) | (np.isnan(y) & np.isnan(a))


def _narrowed(out: ReadComparison, still: np.ndarray, shape, dtype) -> ReadComparison:
    """``out`` with its failing elements narrowed to ``still`` (a mask over out.failing)."""
    f = out.failing
    keep = np.flatnonzero(still)
    out.mismatches = int(keep.size)
    if keep.size == 0:
        out.ok, out.kind, out.kinds, out.first, out.failing = True, None, {}, [], None
        out.worst = None
        return out
    kinds = [f.kind[i] for i in keep]
    out.failing = Failing(f.index[keep], kinds, {k: v[keep] for k, v in f.inputs.items()}, f.expected[keep],
                          f.actual[keep], f.error[keep], f.bound[keep])
    out.kinds = {k: kinds.count(k) for k in KIND_ORDER if k in kinds}
    out.kind = next(iter(out.kinds))
    failing = set(int(i) for i in out.failing.index)

    def flat(e) -> int:
        return int(np.ravel_multi_index(e.index, shape)) if e.index else 0

    out.first = [e for e in out.first if flat(e) in failing]
    if out.worst is None or flat(out.worst) not in failing:
        out.worst = out.first[0] if out.first else _element(out.failing, 0, shape, dtype)
    return out


def _element(f: Failing, i: int, shape, dtype) -> Element:
    """Element ``i`` of ``f`` (whose values are float64) in the case's ``dtype``, decimal and hex."""
    ins = {k: value_text(v[i], dtype) for k, v in f.inputs.items()}
    return Element(index=tuple(int(j) for j in np.unravel_index(int(f.index[i]), shape)),
                   input=next(iter(ins.values()), {}), expected=value_text(f.expected[i], dtype),
                   actual=value_text(f.actual[i], dtype), error_ulps=float(f.error[i]),
                   bound_ulps=float(f.bound[i]), kind=f.kind[i], inputs=ins)
