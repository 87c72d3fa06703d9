"""Golden values' tier 0 (plain float64 with a running error bound, specgen.numerics.fast64) gives the
same bits as the exact path on every element: a sample of every formula tier 0 evaluates, every
dtype its standards list, several attribute sets (ones that make exact ties), with the hard cases
(breakpoints and their neighbours, results on rounding midpoints, cancellation, subnormals,
zeros, the largest values, overflow) in."""
from __future__ import annotations

import numpy as np
import pytest

from specgen import dtypes as dt
from specgen.formula.breakpoints import analyse
from specgen.numerics import exact as E
from specgen.numerics import dd64, fast64
from specgen.generate.corpus import attribute_sets
from specgen.spec.loader import load_all

SPECS = load_all()


def _rows():
    """(op, standard, dtype) for every distinct formula tier 0 evaluates and every dtype listed."""
    out, seen = [], set()
    for op, spec in sorted(SPECS.items()):
        if getattr(spec, "choice", None) is not None:  # a string attribute picks the formula (GELU: erf or
            continue  # tanh, transcendental either way)
        for key, std in sorted(spec.standards.items()):
            node = spec.formula_for(key)
            if not fast64.supported(node):
                continue
            dtypes = sorted({d for v in std.versions for d in v.dtypes(spec.inputs[0].name)})
            for d in dtypes:
                if (op, repr(node), d) not in seen:
                    seen.add((op, repr(node), d))
                    out.append((op, key, d))
    return out


def _sampled(rows):
    """Every formula once, in its least-covered dtype so far (float32 first where counts tie), so that
    every dtype is covered by several formulas; the other rows run with ``-m slow`` (tests must not
    triple with the operators: a mechanism once, each operator by sampling)."""
    by_formula: dict = {}
    for op, key, d in rows:
        by_formula.setdefault(repr(SPECS[op].formula_for(key)), []).append((op, key, d))
    keep, seen = set(), {}
    for _, group in sorted(by_formula.items()):
        pick = min(group, key=lambda r: (seen.get(r[2], 0), r[2] != "float32", group.index(r)))
        keep.add(pick)
        seen[pick[2]] = seen.get(pick[2], 0) + 1
    return [r if r in keep else pytest.param(*r, marks=pytest.mark.slow) for r in rows]


ROWS = _rows()


def _attribute_sets(spec, key, dtype):
    """The standard's defaults, then every attribute at 0.5, -0.5, 2^-p and 2^-(p+1) (p: the
    output's precision): with those, x - b, a x + b land on exact rounding midpoints."""
    base = attribute_sets(spec, key)[0].values
    p = dt.get(dtype).precision or 24
    sets = [base]
    for v in (0.5, -0.5, 2.0 ** -p, 2.0 ** -(p + 1), 3.0 * 2.0 ** -(p + 1)):
        sets.append({k: float(np.float32(v)) for k in base})
    return sets if base else [base]


def _values(dtype: str, node, name: str, attrs: dict, rng, n: int = 200) -> np.ndarray:
    d = dt.get(dtype)
    if not d.is_float:
        lo, hi = d.int_range
        edges = [v for v in (lo, lo + 1, -1, 0, 1, 2, 2 ** 53 + 1, hi - 1, hi) if lo <= v <= hi]
        return np.concatenate([np.array(edges, dtype=d.numpy), rng.integers(lo, hi, n, endpoint=True, dtype=d.numpy)])
    u = d.uint_view
    bits = rng.integers(0, 2 ** d.bits, n, dtype=np.uint64).astype(u).view(d.numpy)
    near = rng.uniform(-8, 8, n).astype(d.numpy)
    tiny, sub, big = d.min_normal, d.min_subnormal, d.max_finite
    special = [0.0, -0.0, sub, -sub, tiny, -tiny, tiny - sub, big, -big, 1.0, -1.0, np.inf, -np.inf, np.nan]
    pow2 = [s * 2.0 ** k for k in range(-30, 31) for s in (1, -1)]  # x = 2^k: x a + b on a midpoint
    try:
        points = [float(b) for b in analyse(node, name, attrs).values()]
    except Exception:  # noqa: BLE001 - no breakpoints for this formula
        points = []
    with np.errstate(over="ignore"):  # 2^30 is inf in float16
        base = np.array([*special, *pow2, *points], dtype=np.float64).astype(d.numpy)
    out = [bits, near, base]
    for k in (1, 2):  # neighbours of the special points, breakpoints and powers of two
        with np.errstate(all="ignore"):
            out += [np.nextafter(base, np.array(np.inf, dtype=d.numpy)), np.nextafter(base, np.array(-np.inf, dtype=d.numpy))]
        base = out[-1]
    return np.concatenate([np.asarray(a, dtype=d.numpy) for a in out])


def _exact_path(monkeypatch, spec, inputs, attrs, dtype, key):
    """golden() with tiers 0 and 1 proving nothing: every finite element through exact rationals."""
    with monkeypatch.context() as m:
        m.setattr(fast64, "supported", lambda node: False)
        m.setattr(dd64, "supported", lambda node: False)
        m.setattr(E, "_accept_float", lambda iv, d: (np.zeros(np.shape(iv.v)), np.zeros(np.shape(iv.v), dtype=bool)))
        m.setattr(E, "_accept_int", lambda iv, d, mode: (np.zeros(np.shape(iv.v)), np.zeros(np.shape(iv.v), dtype=bool)))
        g = E.golden(spec, inputs, attrs, dtype, key)
    assert g.proven_float64 == 0
    return g.y


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(dt.by_numpy(a.dtype).uint_view) if dt.by_numpy(a.dtype).is_float else a


# formulas whose attribute sets make no tie on these inputs (measured): tier 0 settles every element
NO_TIES = {"clip"}  # DirectML's max(Min, min(Scale * x + Bias, Max)): 6,393 of 6,393 proven in tier 0


@pytest.mark.parametrize("op,key,dtype", _sampled(ROWS), ids=[f"{o}-{k}-{d}" for o, k, d in ROWS])
def test_tier0_equals_the_exact_path_on_every_element(monkeypatch, op, key, dtype):
    spec = SPECS[op]
    node = spec.formula_for(key)
    rng = np.random.default_rng(12)
    names = [t.name for t in spec.inputs]
    fast_total = total = 0
    for attrs in _attribute_sets(spec, key, dtype):
        x = _values(dtype, node, names[0], attrs, rng)
        inputs = {names[0]: x}
        for other in names[1:]:  # further inputs: the same kinds of values, shuffled
            inputs[other] = rng.permutation(x)
        g = E.golden(spec, inputs, attrs, dtype, key)
        want = _exact_path(monkeypatch, spec, inputs, attrs, dtype, key)
        same = _bits(g.y) == _bits(want)
        if dt.get(dtype).is_float:
            same |= np.isnan(g.y) & np.isnan(want)
        bad = np.flatnonzero(~same)
        assert not bad.size, (f"{op} {key} {dtype} {attrs}: tier 0 differs at {bad.size} elements, first x = "
                              f"{[inputs[k][bad[0]] for k in names]}: {g.y[bad[0]]!r} vs exact {want[bad[0]]!r}")
        fast_total += g.tier0
        total += x.size - g.special
    if dtype in ("float32", "float16", "bfloat16"):  # float64: only exact values; integers: in range
        assert fast_total > 0.75 * total, f"tier 0 proved only {fast_total} of {total}"
    _, e, _ = fast64.evaluate(node, {k: np.ones(2) for k in names}, {k: dtype for k in names}, attrs)
    if dtype == "float32" and spec.attribute_names and not (isinstance(e, float) and e == 0) and op not in NO_TIES:
        assert fast_total < total  # the attribute sets make ties, which tier 0 leaves to the next tiers


def test_tier0_matches_tier1_on_a_large_random_float32_sample(monkeypatch):
    """2^16 random bit patterns per formula: tier 0 with tier 1 behind it, against tier 1 alone."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2 ** 32, 1 << 16, dtype=np.uint64).astype(np.uint32).view(np.float32)
    for op, key, dtype in ROWS:
        if dtype != "float32":
            continue
        spec = SPECS[op]
        attrs = attribute_sets(spec, key)[0].values
        inputs = {t.name: (x if i == 0 else rng.permutation(x)) for i, t in enumerate(spec.inputs)}
        g = E.golden(spec, inputs, attrs, dtype, key)
        with monkeypatch.context() as m:
            m.setattr(fast64, "supported", lambda node: False)
            want = E.golden(spec, inputs, attrs, dtype, key)
        assert want.tier0 == 0 and g.tier0 > 0.9 * (x.size - g.special)
        assert np.array_equal(g.y.view(np.uint32), want.y.view(np.uint32)) or \
            np.array_equal(g.y, want.y, equal_nan=True), op


SYNTHETIC = [  # formulas whose float64 evaluation loses far more than one rounding: the bound must see it
    "(x + 1) - 1",
    "(x * 3 + a) - x * 3",
    "x / (1 + abs(x)) - x / (1 + abs(x)) * a",
    "max(0.1, min((x - a) + a, 1 / 3)) - x",
    "where((x + a) - a > 0.25, x * x - 0.0625, clamp(x, -a, a) * (x - 0.1))",
    "sign(x - a) * (x + a) / (x - a)",
    "where((x + a) - a > 0, 1 + x, x - 1)",  # a comparison the rounding flips
    "max(0.5, (x + a) - x)",  # an order the rounding flips
    "max((x + a) - x, 0.1 * a)",  # the same, both operands inexact
    "1 / ((x + a) - x)",  # a denominator far from its exact value
    "((x + a) - x) * x",  # an operand rounded to zero: not an exact zero
    "((x + a) - x) / 3",
]


@pytest.mark.parametrize("text", SYNTHETIC)
def test_tier0_accepts_only_correctly_rounded_values(text):
    """Tier 0 alone against exact rationals, on formulas with cancellation and comparisons of
    rounded values: every element it accepts is the once-rounded exact value."""
    from fractions import Fraction

    from specgen.formula.breakpoints import evaluate_exact
    from specgen.formula.numpy_eval import evaluate as numpy_evaluate
    from specgen.formula.parser import parse_formula
    from specgen.numerics.ulp import round_fraction

    node = parse_formula(text, ["x"], ["a"])
    rng = np.random.default_rng(3)
    pow2 = 2.0 ** np.arange(-80, 71)
    x = np.concatenate([rng.uniform(-2, 2, 500), 2.0 ** rng.uniform(-80, 70, 400) * rng.choice([-1, 1], 400),
                        pow2, -pow2, pow2 * (1 + 2.0 ** -23), pow2 * (1 - 2.0 ** -24)]).astype(np.float32)
    accepted = 0
    for a in (float(np.float32(0.3)), 2.0 ** -20, 1.0, 3.0):
        v, e, undecided = fast64.evaluate(node, {"x": x.astype(np.float64)}, {"x": "float32"}, {"a": a})
        ok, r = E._accept_tier0(v, e, np.broadcast_to(undecided, x.shape), "float32")
        with np.errstate(all="ignore"):
            ieee = np.broadcast_to(numpy_evaluate(node, {"x": x.astype(np.float64), "a": a}), x.shape)
        accepted += int(ok.sum())
        for i in np.flatnonzero(ok):
            try:
                q = evaluate_exact(node, {"x": Fraction(float(x[i])), "a": Fraction(a)})
            except ZeroDivisionError:
                raise AssertionError(f"{text}: accepted a division by zero at x = {x[i]!r}") from None
            want = round_fraction(q, "float32")
            assert float(r[i]) == want, f"{text}, a = {a}: x = {x[i]!r} gives {r[i]!r}, exact {want!r}"
            if q == 0:  # an exact zero: the sign IEEE arithmetic gives it (the golden convention)
                assert np.signbit(r[i]) == np.signbit(ieee[i]), f"{text}, a = {a}: x = {x[i]!r}: zero sign"
    assert accepted > x.size  # of 4 x.size: most elements are proven


@pytest.mark.parametrize("text", ["x * a", "x - a", "where(x < 0, a * x, x)", "max(x * a, a)", "-abs(x / a)",
                                  "where(x < -a, x + a, where(x > a, x - a, 0))", "(x + a) - x"])
def test_tier0_proves_float64_outputs_of_one_rounding(text):
    """float64 outputs: tier 0 accepts the values that are exact or one IEEE rounding of exact
    operands (and min, max, abs, negation, where() of them), each the correctly rounded exact value,
    zeros with IEEE's sign; a second rounding ((x + a) - x) is not accepted."""
    from fractions import Fraction

    from specgen.formula.breakpoints import evaluate_exact
    from specgen.formula.parser import parse_formula
    from specgen.numerics.ulp import round_fraction

    node = parse_formula(text, ["x"], ["a"])
    rng = np.random.default_rng(4)
    x = rng.integers(0, 2**64, 3000, dtype=np.uint64).view(np.float64)
    x = np.concatenate([x[np.isfinite(x)], rng.uniform(-2, 2, 500), [0.0, -0.0, 5e-324, -5e-324]])
    for a in (float(np.float32(0.01)), 0.3, 2.0 ** -1000):
        v, e, undecided, rounded = fast64.evaluate_rounded(node, {"x": x}, {"x": "float64"}, {"a": a})
        ok = np.isfinite(v) & ~np.broadcast_to(undecided, x.shape) & np.broadcast_to(rounded, x.shape)
        if text == "(x + a) - x":
            assert not ok[np.abs(x) > 1].any()
            continue
        assert (ok | ~np.isfinite(v)).mean() > 0.99, (text, a)  # an overflow (x / 2^-1000) is tier 1's
        for i in np.flatnonzero(ok)[::7]:
            q = evaluate_exact(node, {"x": Fraction(float(x[i])), "a": Fraction(a)})
            want = round_fraction(q, "float64")
            assert float(v[i]) == want, f"{text}, a = {a}: x = {x[i]!r} gives {v[i]!r}, exact {want!r}"


def _transcendental_rows():
    """(op, standard, attributes) of every formula with function calls tier 0 evaluates (Gelu's
    two forms separately), at the standard's defaults and at the designed attribute sets."""
    from specgen.numerics.compare import resolve_attributes
    from specgen.sweep import catalog

    out = []
    for u in catalog.sweep_units(SPECS):
        spec = SPECS[u.op]
        if u.extra_inputs or u.standard != "onnx":
            continue
        plain, numeric = spec.resolve(dict(u.attributes), u.standard)
        node = plain.formula_for(u.standard)
        if not fast64.supported(node) and fast64.supported(E.rewrite(node), True):
            attrs = {**dict(u.attributes), **resolve_attributes(plain, u.standard, numeric)}
            out.append((u.op, u.standard, attrs))
    return out


TRANSCENDENTAL = _transcendental_rows()


@pytest.mark.parametrize("op,key,attrs", TRANSCENDENTAL, ids=[f"{o}-{i}" for i, (o, _, a) in enumerate(TRANSCENDENTAL)])
def test_tier0_of_function_calls_gives_the_bits_of_tier1(monkeypatch, op, key, attrs):
    """Tier 0 with function calls (each row's libm slope carries the argument's error) accepts only
    correctly rounded values: the same bits as the tiers behind it, on random bit patterns, on
    [-10, 10], at powers of two and their neighbours (ties, saturation, underflow), float32 and float16."""
    spec = SPECS[op]
    rng = np.random.default_rng(9)
    name = spec.inputs[0].name
    for dtype, d in (("float32", np.float32), ("float16", np.float16)):
        u = np.uint32 if d is np.float32 else np.uint16
        bits = rng.integers(0, 2 ** (8 * np.dtype(d).itemsize), 3000, dtype=np.uint64).astype(u).view(d)
        with np.errstate(over="ignore"):
            pow2 = np.array([s * 2.0 ** k for k in range(-150, 128, 3) for s in (1, -1)]).astype(d)
        pow2 = pow2[np.isfinite(pow2)]
        near = np.concatenate([np.nextafter(pow2, d(np.inf)), np.nextafter(pow2, d(-np.inf))])
        x = np.concatenate([bits, rng.uniform(-10, 10, 1000).astype(d), pow2, near])
        g = E.golden(spec, {name: x}, attrs, dtype, key)
        with monkeypatch.context() as m:
            m.setattr(fast64, "supported", lambda node, transcendental=False: not transcendental and
                      fast64.supported.__wrapped__(node))
            want = E.golden(spec, {name: x}, attrs, dtype, key)
        # most elements with a finite value inside the function's domain are settled by tier 0 (exp's
        # overflows and log's negative arguments go to the tiers behind it)
        finite = int((np.isfinite(g.y) & ~np.asarray(g.overflow)).sum())
        assert want.tier0 == 0 and g.tier0 > 0.9 * (finite - g.special), (op, dtype, g.tier0, finite)
        same = (g.y.view(u) == want.y.view(u)) | (np.isnan(g.y) & np.isnan(want.y))
        bad = np.flatnonzero(~same)
        assert not bad.size, f"{op} {attrs} {dtype}: x = {x[bad[0]]!r}: tier 0 {g.y[bad[0]]!r}, tiers 1+ {want.y[bad[0]]!r}"


def test_every_slope_bounds_the_change_of_its_function():
    """Each function-table row's libm slope (tier 0 carries an argument's error e by slope * e)
    bounds |f(t) - f(a)| for t in [a - e, a + e], checked in mpmath at the interval's ends (the rows
    are monotone) for arguments from tiny to saturated and errors from 2^-52 |a| to 4."""
    import mpmath

    from specgen.formula.functions import FUNCTIONS

    rng = np.random.default_rng(11)
    rows = [(name, f) for name, f in FUNCTIONS.items() if f.libm is not None and f.libm.slope is not None]
    assert {"exp", "expm1", "log", "log1p", "sqrt", "tanh", "erf", "erfc"} <= {name for name, _ in rows}
    for name, f in rows:
        d_lo, d_hi = f.libm.domain
        a = np.concatenate([rng.uniform(-30, 30, 30), np.exp(rng.uniform(-40, 5, 30)) * rng.choice([-1, 1], 30),
                            [0.5, 1.0, 2.0, 5.9, 19.0, 27.5, 700.0, -700.0]])
        rel = 2.0 ** rng.uniform(-52, 2, a.size)
        e = np.maximum(np.abs(a) * rel, 2.0 ** rng.uniform(-60, -20, a.size))
        inside = (a - e > d_lo) & (a + e < d_hi)
        a, e = a[inside], e[inside]
        with np.errstate(all="ignore"):
            v = f.libm.numpy[np.float64](a)
            s = np.broadcast_to(f.libm.slope(v, a, e), a.shape)
        # erfc(-27) - erfc(-27 + e) cancels some 330 digits of 2; tanh(30) - tanh(30 + e) some 30 of 1
        with mpmath.workprec(2400 if name in ("erf", "erfc") else 400):
            for ai, ei, si in zip(a, e, s):
                fa = f.mpmath(mpmath.mpf(float(ai)))
                change = max(abs(f.mpmath(mpmath.mpf(float(ai)) + t) - fa) for t in (-mpmath.mpf(float(ei)), mpmath.mpf(float(ei))))
                assert change <= mpmath.mpf(float(si)) * mpmath.mpf(float(ei)), (name, ai, ei, si, float(change / ei))


@pytest.mark.parametrize("op,attrs,key", [("gelu", {"approximate": "erf"}, "onnx"), ("gelu", {"approximate": "tanh"}, "onnx"),
                                          ("swish", {}, "onnx"), ("hard_swish", {}, "onnx"), ("scaled_tanh", {}, "directml")])
def test_double_double_settles_the_ties_tiny_terms_break(monkeypatch, op, attrs, key):
    """float32 subnormal x: 0.5 x (1 + erf(x / sqrt(2))) and the like sit on a rounding midpoint that
    only a term of relative size |x| breaks. The double-double tier (specgen.numerics.dd64) settles
    them without mpmath (but for results that round to zero) and gives the bits mpmath (or exact
    rationals) give."""
    spec = SPECS[op]
    rng = np.random.default_rng(21)
    sub = rng.integers(1, 2 ** 23, 60, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([sub, sub | np.uint32(0x80000000), np.arange(1, 9, dtype=np.uint32)]).view(np.float32)
    plain, numeric = spec.resolve(attrs, key)
    from specgen.numerics.compare import resolve_attributes
    full = {**attrs, **resolve_attributes(plain, key, numeric)}
    g = E.golden(spec, {"x": x}, full, "float32", key)
    with monkeypatch.context() as m:
        m.setattr(dd64, "supported", lambda node: False)
        want = E.golden(spec, {"x": x}, full, "float32", key)
    assert g.exact <= 2 < want.exact  # those that round to zero (their sign) are left to mpmath
    assert np.array_equal(g.y.view(np.uint32), want.y.view(np.uint32))


DOMAIN_OR_RANGE = ["sqrt", "log", "acos", "asin", "acosh", "atanh", "exp", "sinh", "cosh"]


@pytest.mark.parametrize("op", DOMAIN_OR_RANGE)
def test_no_real_value_and_overflow_past_float64_are_decided_without_mpmath(monkeypatch, op):
    """sqrt(-2), acos(3), acosh(0.5): no real value, NaN; exp(1e20), sinh(-1e20), cosh(-1e20): past
    float64, so +-inf in every narrower type. Tier 0 decides them from its bounds, and tier 1, where
    tier 0 does not, from its enclosures (each took tens of microseconds in mpmath: half of a float32
    sweep of sqrt); either way the bits are those mpmath gives, over random bit patterns, the domain's
    edges and the overflow thresholds, float32 and float16."""
    from specgen.sweep.catalog import sweep_units

    u = sweep_units({op: SPECS[op]})[0]
    spec = SPECS[op]
    plain, numeric = spec.resolve(dict(u.attributes), u.standard)
    from specgen.numerics.compare import resolve_attributes
    attrs = {**dict(u.attributes), **resolve_attributes(plain, u.standard, numeric)}
    rng = np.random.default_rng(5)
    calls = []
    decide, signed = E._decide, fast64.evaluate_signed
    monkeypatch.setattr(E, "_decide", lambda *a: calls.append(a) or decide(*a))
    for dtype, d, ui in (("float32", np.float32, np.uint32), ("float16", np.float16, np.uint16)):
        bits = rng.integers(0, 2 ** (8 * np.dtype(d).itemsize), 4000, dtype=np.uint64).astype(ui).view(d)
        edges = np.array([0, 1, 88.72, 89.42, 709.78, 710.48, 11356.5, 65504, 3e38], dtype=np.float64)
        with np.errstate(over="ignore"):
            edges = np.concatenate([edges, -edges]).astype(d)
        edges = edges[np.isfinite(edges)]
        with np.errstate(over="ignore"):
            x = np.concatenate([bits, edges, np.nextafter(edges, d(np.inf)), np.nextafter(edges, d(-np.inf))])
        def run(tier0=True, tier1=True):
            with monkeypatch.context() as m:
                if not tier0:  # tier 0 says nothing of a real value or of float64's range
                    m.setattr(fast64, "evaluate_signed", lambda *a: (*signed(*a)[:4], False, 0.0))
                if not tier1:
                    m.setattr(E, "_no_real_value", lambda ev, node: np.zeros(ev.shape, dtype=bool))
                    m.setattr(E, "_beyond_float64", lambda ev, node: np.zeros(ev.shape))
                calls.clear()
                return E.golden(spec, {spec.inputs[0].name: x}, attrs, dtype, u.standard), len(calls)

        want, before = run(tier0=False, tier1=False)
        assert before > 100, (op, dtype, before)
        for label, (g, decided_here) in (("tier 0", run(tier1=False)), ("tier 1", run(tier0=False))):
            same = (g.y.view(ui) == want.y.view(ui)) | (np.isnan(g.y) & np.isnan(want.y))
            bad = np.flatnonzero(~same)
            assert not bad.size, f"{op} {dtype} {label}: x = {x[bad[0]]!r}: {g.y[bad[0]]!r}, mpmath {want.y[bad[0]]!r}"
            assert decided_here < before / 20, (op, dtype, label, decided_here, before)


def test_tier0_takes_functions_without_a_slope_at_exact_arguments_only():
    """A function-table row with no slope bound (sin, acos, sinh, ...) has tier 0 where its argument
    is an input or attribute (its error is the call's own); an argument that carries an error goes
    to tier 1. The bits are the same either way (the math family's digests: test above)."""
    from specgen.formula.parser import parse_formula

    assert fast64.supported(parse_formula("sin(x)", ["x"], []), True)
    assert fast64.supported(parse_formula("acosh(a)", ["x"], ["a"]), True)
    assert not fast64.supported(parse_formula("sin(x / 3)", ["x"], []), True)
    assert fast64.supported(parse_formula("tanh(x / 3)", ["x"], []), True)  # tanh has a slope
    x = np.linspace(-4, 4, 1001, dtype=np.float32)
    x = x[np.abs(x) != 1]  # the domain's edges are tier 1's
    g = E.golden(SPECS["asin"], {"x": x}, {}, "float32", "onnx")
    assert g.tier0 == x.size and g.exact == 0  # beyond [-1, 1]: NaN, decided in tier 0 too


@pytest.mark.parametrize("op", ["sqrt", "acos", "acosh", "exp", "cosh", "sinh"])
def test_float64_golden_values_decide_no_real_value_without_mpmath(monkeypatch, op):
    """float64 outputs: tier 1 decides NaN where an argument lies outside the domain, and +-inf
    where the long double value is past float64's rounding threshold (an infinite float64 libm
    value may round one below): what mpmath gives, without it."""
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.integers(0, 2**64, 3000, dtype=np.uint64).view(np.float64), [-0.0, 0.0, 1.0, -1.0, 2.0],
                        709.782712893384 + np.arange(-8, 8) * 2.0 ** -43,  # exp's overflow threshold, ULP by ULP
                        [710.4758600739439, -710.4758600739439, 11356.5, 1e300]])
    calls = []
    decide = E._decide
    monkeypatch.setattr(E, "_decide", lambda *a: calls.append(a) or decide(*a))
    g = E.golden(SPECS[op], {"x": x}, {}, "float64", "onnx")
    fast = len(calls)
    monkeypatch.setattr(E, "_no_real_value", lambda ev, node: np.zeros(ev.shape, dtype=bool))
    monkeypatch.setattr(E, "_beyond_float64_rounding", lambda ev, node: np.zeros(ev.shape))
    calls.clear()
    want = E.golden(SPECS[op], {"x": x}, {}, "float64", "onnx")
    assert len(calls) > 500 and fast < len(calls) / 20, (fast, len(calls))
    same = (g.y.view(np.uint64) == want.y.view(np.uint64)) | (np.isnan(g.y) & np.isnan(want.y))
    assert same.all()


def test_the_limit_cache_keeps_signed_zeros_and_every_integer_digit():
    """Special-value limits are cached per point (_limit_at): a key must not merge what == merges
    (-0.0 and +0.0) nor round an int64 past 2**53, and must give back the point it was made from."""
    point = {"x": np.float64(-0.0), "n": np.int64(2 ** 60 + 1), "b": np.bool_(True), "m": "tanh", "y": 1e300}
    key = E._point_key(point)
    back = {k: E._FROM_KEY[kind](v) for k, (kind, v) in key}
    assert back == point and np.signbit(back["x"]) and type(back["n"]) is int and back["n"] == 2 ** 60 + 1
    assert E._point_key({**point, "x": 0.0}) != key
    assert E._point_key({**point, "n": 2 ** 60}) != key
