"""The formula language: what it refuses (with position and token), what it computes (against
hand-computed values, for every function of the table and the DirectML activation family), the
numpy source it emits, and formulas written over several lines.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from specgen.errors import FormulaError
from specgen.formula import nodes as n
from specgen.formula.functions import CONSTANTS, FUNCTIONS, np_erf
from specgen.formula.numpy_eval import evaluate, to_numpy_source
from specgen.formula.parser import MAX_DEPTH, MAX_LENGTH, parse_formula

INPUTS = ("x",)
ATTRIBUTES = ("alpha", "beta", "gamma")


def parse(text: str, inputs=INPUTS, attributes=ATTRIBUTES) -> n.Node:
    return parse_formula(text, inputs, attributes)


def refused(text: str) -> FormulaError:
    with pytest.raises(FormulaError) as info:
        parse(text)
    return info.value


# ----------------------------------------------------------------------------- refusals

INJECTIONS = [
    # dunder names and builtins
    "__import__('os').system('x')", "__import__", "__builtins__", "__class__", "__name__ + x",
    "globals()", "locals()", "vars(x)", "eval('1')", "exec('1')", "open('/etc/passwd')", "compile('1', '', 'eval')",
    "getattr(x, 'real')", "breakpoint()", "print(x)", "type(x)", "input()", "help",
    # attribute chains and subscripts
    "x.real", "x.__class__", "x.__class__.__mro__[1].__subclasses__()", "(1).__class__", "alpha.__add__(x)",
    "max(0, x).real", "x[0]", "x[1:2]", "x[...]", "alpha[x]",
    # lambdas, comprehensions, generators, f-strings, walrus, starred, keyword arguments
    "(lambda: x)()", "lambda: x", "[x for x in (1,)]", "{x for _ in x}", "{x: 1 for _ in x}", "max(x for _ in x)",
    "f'{x}'", "f'{__import__(\"os\")}'", "(y := x)", "max(*x)", "max(x, *x)", "max(x, **x)", "max(x, key=abs)",
    "clamp(x, lo=0, hi=1)",
    # containers
    "[x]", "(x, x)", "{x}", "{1: x}", "x, alpha",
    # non-number literals
    "b'x'", "'x'", "\"x\"", "True", "False", "x + True", "1j", "x * 2j", "None", "...",
    # operators outside the grammar
    "x ^ 1", "~x", "x << 1", "x >> 1", "x @ x", "x % 2", "x // 2", "x | 1", "x & 1",
    "alpha < x < beta", "x in (1, 2)", "x not in (1, 2)", "x is 0", "x is not 0",
    # statements, async, yield
    "x; import os", "import os", "x = 1", "await x", "(yield x)", "del x",
    # functions not called, unknown, wrong arity
    "max", "sum(x, x)", "abs(x, x)", "min(x)", "pow(x)", "clamp(x, 0)", "where(x > 0, x)",
    # size and depth
    "(" * 300 + "x" + ")" * 300, "-" * 3000 + "x", "x + " * (MAX_LENGTH // 4 + 1) + "x",
    "max(" * (MAX_DEPTH + 5) + "x" + ", 1)" * (MAX_DEPTH + 5), "1e999 * x", "",  "   ",
]


@pytest.mark.parametrize("text", INJECTIONS)
def test_refused(text):
    err = refused(text)
    assert err.line >= 1 and err.column >= 1
    assert err.message
    assert isinstance(err.token, str) and len(err.token) <= 40


@pytest.mark.parametrize("text, line, column, token, words", [
    ("__import__('os').system('x')", 1, 1, "__import__('os').system", "attribute access"),
    ("max(0, __import__)", 1, 8, "__import__", "unknown name '__import__'"),
    ("max(0, x.real)", 1, 8, "x.real", "attribute access"),
    ("alpha * x[0]", 1, 9, "x[0]", "subscript"),
    ("max(0, (lambda: x)())", 1, 9, "lambda: x", "lambda"),
    ("x + [x for x in (1,)]", 1, 5, "[x for x in (1,)]", "comprehension"),
    ("x * f'{x}'", 1, 5, "f'{x}'", "f-string"),
    ("max(0, (y := x))", 1, 9, "y := x", "assignment expression"),
    ("max(x, *x)", 1, 8, "*x", "starred"),
    ("max(x, key=abs)", 1, 1, "max(x, key=abs)", "keyword"),
    ("x + eval('1')", 1, 5, "eval", "unknown function 'eval'"),
    ("x + b'x'", 1, 5, "b'x'", "string literals"),
    ("x + True", 1, 5, "True", "bool literals"),
    ("x * 2j", 1, 5, "2j", "complex literals"),
    ("max(0, min(alpha * x + beta, 1)", 1, 4, "(", "never closed"),
    ("max(0,\n    min(alpha * x + delta, 1))", 2, 21, "delta", "unknown name 'delta'"),
    ("max(0,\n  x.imag)", 2, 3, "x.imag", "attribute access"),
    ("where(x > 0,\n      x,\n      alpha * x[0])", 3, 15, "x[0]", "subscript"),
])
def test_refusal_names_line_column_and_token(text, line, column, token, words):
    err = refused(text)
    assert (err.line, err.column, err.token) == (line, column, token)
    assert words in err.message


def test_unknown_name_lists_what_is_declared():
    err = refused("x + delta")
    assert err.message == ("unknown name 'delta': not a declared input, attribute or constant "
                           "(inputs: x; attributes: alpha, beta, gamma; constants: inf, pi, e)")


def test_unknown_function_lists_the_table():
    err = refused("sum(x, x)")
    assert err.message == f"unknown function 'sum'; allowed: {', '.join(sorted(FUNCTIONS))}"


def test_long_and_deep_input_is_refused_quickly():
    import time
    start = time.perf_counter()
    for text in ("x + " * 100_000 + "x", "(" * 100_000 + "x" + ")" * 100_000, "-" * 3900 + "x"):
        with pytest.raises(FormulaError):
            parse(text)
    assert time.perf_counter() - start < 2


def test_names_must_be_declared_even_when_they_are_functions_elsewhere():
    assert isinstance(parse("abs(x)"), n.Call)
    refused("abs")  # a table function, not called
    with pytest.raises(FormulaError, match="unknown name 'x'"):
        parse_formula("x + 1", [], [])


# ----------------------------------------------------------------------------- what parses to what

def test_sugar_becomes_table_calls():
    assert parse("x ** 2") == n.Call("pow", (n.Var("x", "input"), n.Num("2")))
    assert parse("x if x > 0 else 0") == parse("where(x > 0, x, 0)")
    assert parse("select(x > 0, x, 0)") == parse("where(x > 0, x, 0)")


def test_numbers_keep_their_spelling_for_exact_consumers():
    node = parse("0.2 * x")
    assert node.left == n.Num("0.2")
    assert node.left.exact == pytest.approx(0.2) and str(node.left.exact) == "1/5"
    assert parse("0x10 * x").left == n.Num("16")


def test_variables_know_whether_they_are_inputs_or_attributes():
    node = parse("alpha * x")
    assert node.left == n.Var("alpha", "attribute") and node.right == n.Var("x", "input")
    assert n.names(node, "input") == {"x"} and n.names(node, "attribute") == {"alpha"}


# ----------------------------------------------------------------------------- evaluation: the function table

def value(text: str, **env):
    return evaluate(parse(text), {k: np.float64(v) if np.isscalar(v) else np.asarray(v, dtype=np.float64)
                                  for k, v in env.items()})


@pytest.mark.parametrize("text, env, expected", [
    ("abs(x)", {"x": -2.5}, 2.5),
    ("abs(x)", {"x": 0.0}, 0.0),
    ("min(x, alpha, beta)", {"x": 3.0, "alpha": -1.0, "beta": 2.0}, -1.0),
    ("max(x, alpha, beta)", {"x": 3.0, "alpha": -1.0, "beta": 2.0}, 3.0),
    ("min(x, 1)", {"x": 0.5}, 0.5),
    ("max(x, 1)", {"x": 0.5}, 1.0),
    ("clamp(x, 0, 1)", {"x": 5.0}, 1.0),
    ("clamp(x, 0, 1)", {"x": -1.0}, 0.0),
    ("clamp(x, 0, 1)", {"x": 0.25}, 0.25),
    ("where(x > 0, 1, 2)", {"x": -1.0}, 2.0),
    ("where(x > 0, 1, 2)", {"x": 1.0}, 1.0),
    ("select(x >= 1, x, -x)", {"x": 1.0}, 1.0),
    ("exp(x)", {"x": 1.0}, 2.718281828459045),
    ("exp(x)", {"x": 0.0}, 1.0),
    ("expm1(x)", {"x": 1e-10}, 1.00000000005e-10),
    ("log(x)", {"x": 2.718281828459045}, 1.0),
    ("log(x)", {"x": 1.0}, 0.0),
    ("log1p(x)", {"x": 1e-10}, 9.9999999995e-11),
    ("sqrt(x)", {"x": 2.0}, 1.4142135623730951),
    ("sqrt(x)", {"x": 16.0}, 4.0),
    ("pow(x, 10)", {"x": 2.0}, 1024.0),
    ("x ** 0.5", {"x": 9.0}, 3.0),
    ("tanh(x)", {"x": 0.5}, 0.46211715726000974),
    ("erf(x)", {"x": 1.0}, 0.8427007929497149),
    ("erf(x)", {"x": 0.0}, 0.0),
    ("erfc(x)", {"x": 1.0}, 0.15729920705028513),
    ("erfc(x)", {"x": -2.0}, 1.9953222650189528),
    ("sin(x)", {"x": 0.5}, 0.479425538604203),
    ("cos(x)", {"x": 0.5}, 0.8775825618903728),
    ("tan(x)", {"x": 0.5}, 0.5463024898437905),
    ("asin(x)", {"x": 0.5}, 0.5235987755982989),
    ("acos(x)", {"x": 0.5}, 1.0471975511965979),
    ("atan(x)", {"x": 1.0}, 0.7853981633974483),
    ("sinh(x)", {"x": 1.0}, 1.1752011936438014),
    ("cosh(x)", {"x": 1.0}, 1.5430806348152437),
    ("asinh(x)", {"x": 1.0}, 0.881373587019543),
    ("acosh(x)", {"x": 2.0}, 1.3169578969248166),
    ("atanh(x)", {"x": 0.5}, 0.5493061443340548),
    ("floor(x)", {"x": -2.5}, -3.0),
    ("ceil(x)", {"x": -2.5}, -2.0),
    ("round(x)", {"x": 2.5}, 2.0),
    ("round(x)", {"x": -3.5}, -4.0),
    ("trunc(x)", {"x": -2.7}, -2.0),
    ("sign(x)", {"x": -3.0}, -1.0),
    ("sign(x)", {"x": 0.0}, 0.0),
    ("sign(x)", {"x": 2.0}, 1.0),
    ("fmod(x, alpha)", {"x": -5.0, "alpha": 3.0}, -2.0),
    ("fmod(x, alpha)", {"x": 5.0, "alpha": -3.0}, 2.0),
    ("floor_mod(x, alpha)", {"x": -5.0, "alpha": 3.0}, 1.0),
    ("floor_mod(x, alpha)", {"x": 5.0, "alpha": -3.0}, -1.0),
    ("pi * x", {"x": 1.0}, 3.141592653589793),
    ("e * x", {"x": 1.0}, 2.718281828459045),
    ("min(inf, x)", {"x": 7.0}, 7.0),
    ("x - alpha / beta * gamma", {"x": 10.0, "alpha": 6.0, "beta": 3.0, "gamma": 2.0}, 6.0),
    ("-x ** 2", {"x": 3.0}, -9.0),
    ("(x > 0 and x < 1) or x == 5", {"x": 5.0}, True),
    ("not x > 0", {"x": 1.0}, False),
    ("x != 1", {"x": 1.0}, False),
])
def test_function_table_against_hand_computed_values(text, env, expected):
    got = value(text, **env)
    if isinstance(expected, bool):
        assert bool(got) is expected
    else:
        assert float(got) == pytest.approx(expected, rel=1e-15, abs=1e-300)


def test_every_function_and_constant_of_the_table_is_covered_above():
    texts = " ".join(p[0] for p in test_function_table_against_hand_computed_values.pytestmark[0].args[1])
    for name in FUNCTIONS:
        assert f"{name}(" in texts, name
    words = set(re.findall(r"[A-Za-z_]+", texts))
    for name in CONSTANTS:
        assert name in words, name


def test_min_and_max_propagate_nan():
    assert math.isnan(value("max(x, 0)", x=float("nan")))
    assert math.isnan(value("min(0, x)", x=float("nan")))


def test_evaluation_is_elementwise_and_dtype_keeps_the_array_type():
    x = np.array([-4.0, -1.0, 0.0, 1.0, 4.0], dtype=np.float32)
    node = parse("max(0, min(alpha * x + beta, 1))")
    env = {"x": x, "alpha": np.float32(0.25), "beta": np.float32(0.5)}
    assert evaluate(node, env).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    got = evaluate(node, env, dtype=np.float32)
    assert got.dtype == np.float32
    assert got.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_dtype_rounds_every_intermediate():
    node = parse("x + alpha - alpha")  # 1 + 2048 is not a float16: rounds to 2048, minus 2048 is 0
    env = {"x": np.float64(1.0), "alpha": np.float64(2048.0)}
    assert float(evaluate(node, env)) == 1.0
    assert float(evaluate(node, env, dtype=np.float16)) == 0.0


# ----------------------------------------------------------------------------- the DirectML activation family

SELU_ALPHA, SELU_GAMMA = 1.6732632423543772, 1.0507009873554805

ACTIVATIONS = {
    # name: (formula, attributes, [(x, expected)]) — expected values worked out by hand / with math.*
    "elu": ("where(x >= 0, x, alpha * (exp(x) - 1))", {"alpha": 1.0},
            [(-1.0, -0.6321205588285577), (2.0, 2.0), (0.0, 0.0)]),
    "celu": ("max(0, x) + min(0, alpha * (exp(x / alpha) - 1))", {"alpha": 2.0},
             [(-2.0, -1.2642411176571153), (3.0, 3.0)]),
    "gelu": ("0.5 * x * (1 + erf(x / sqrt(2)))", {},
             [(1.0, 0.8413447460685429), (-1.0, -0.15865525393145707), (0.0, 0.0)]),
    "softplus": ("log(1 + exp(alpha * x)) / alpha", {"alpha": 1.0}, [(0.0, 0.6931471805599453)]),
    "softplus_steep": ("log(1 + exp(alpha * x)) / alpha", {"alpha": 2.0}, [(1.0, 1.0634640055214863)]),
    "swish": ("x * (1 / (1 + exp(-alpha * x)))", {"alpha": 1.0},
              [(1.0, 0.7310585786300049), (-1.0, -0.2689414213699951)]),
    "scaled_tanh": ("alpha * tanh(beta * x)", {"alpha": 2.0, "beta": 0.5}, [(1.0, 0.9242343145200195)]),
    "thresholded_relu": ("where(x > alpha, x, 0)", {"alpha": 1.0}, [(0.5, 0.0), (1.0, 0.0), (2.0, 2.0)]),
    "mish": ("x * tanh(log1p(exp(x)))", {}, [(1.0, 0.8650983882673103), (0.0, 0.0)]),
    "parametric_softplus": ("alpha * log(1 + exp(beta * x))", {"alpha": 2.0, "beta": 1.0},
                            [(0.0, 1.3862943611198906)]),
    "scaled_elu": ("gamma * where(x > 0, x, alpha * (exp(x) - 1))", {"alpha": SELU_ALPHA, "gamma": SELU_GAMMA},
                   [(-1.0, -1.1113307378125625), (1.0, SELU_GAMMA)]),
    "hard_swish": ("x * clamp(alpha * x + beta, 0, 1)", {"alpha": 1 / 6, "beta": 0.5},
                   [(1.0, 0.6666666666666666), (-4.0, 0.0), (4.0, 4.0)]),
    "softsign": ("x / (1 + abs(x))", {}, [(1.0, 0.5), (-3.0, -0.75)]),
    "hard_sigmoid": ("max(0, min(alpha * x + beta, 1))", {"alpha": 0.2, "beta": 0.5}, [(1.0, 0.7), (-5.0, 0.0)]),
    "shrink": ("where(x > gamma, x - beta, where(x < -gamma, x + beta, 0))", {"beta": 0.5, "gamma": 1.0},
               [(2.0, 1.5), (-2.0, -1.5), (0.5, 0.0)]),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_directml_activation_family(name):
    text, attrs, points = ACTIVATIONS[name]
    node = parse(text)
    xs = np.array([p[0] for p in points])
    got = evaluate(node, {"x": xs, **{k: np.float64(v) for k, v in attrs.items()}})
    assert np.broadcast_to(got, xs.shape).tolist() == pytest.approx([p[1] for p in points], rel=1e-15, abs=1e-300)


# ----------------------------------------------------------------------------- numpy source round trip

def _run_emitted(source: str, env: dict):
    """Evaluate the emitter's numpy source (generated code, never spec text) with numpy only."""
    namespace = {"np": np}
    for row in FUNCTIONS.values():  # what a generated module defines for the functions it uses
        exec(row.helper_source, namespace)  # noqa: S102 - the function table's own source
    namespace["__builtins__"] = {}
    with np.errstate(all="ignore"):
        return eval(compile(source, "<emitted>", "eval"), namespace, dict(env))  # noqa: S307 - test of generated code


@pytest.mark.parametrize("text", sorted({a[0] for a in ACTIVATIONS.values()} | {
    "min(x, alpha, beta, 1)", "max(x, alpha, beta, 0)", "a - (b - c)", "x - (alpha - beta)", "x / (alpha / beta)",
    "-(x - alpha)", "-x ** 2", "(x > alpha and x < beta) or x == 0", "not x > alpha", "x if x > 0 else -x",
    "pow(abs(x), alpha)", "sign(x) * expm1(abs(x))", "pi * x + e", "min(x, inf)",
}))
def test_numpy_source_evaluates_like_evaluate(text):
    inputs = ("x", "a", "b", "c")
    node = parse_formula(text, inputs, ATTRIBUTES)
    used = n.names(node)
    rng = np.random.default_rng(7)
    env = {"x": np.concatenate([rng.normal(0, 3, 64), [-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, np.nan]])}
    env |= {k: np.float64(v) for k, v in {"a": 1.5, "b": -0.25, "c": 3.0, "alpha": 0.2, "beta": 0.5, "gamma": 1.5}.items()}
    env = {k: v for k, v in env.items() if k in used}
    source = to_numpy_source(node)
    want = np.asarray(evaluate(node, env))
    got = np.asarray(_run_emitted(source, env))
    np.testing.assert_array_equal(got, want, err_msg=source)


def test_numpy_source_renames_variables():
    node = parse("max(0, min(alpha * x + beta, 1))")
    assert to_numpy_source(node, {"x": "X"}) == "np.maximum(0.0, np.minimum(alpha * X + beta, 1.0))"


# ----------------------------------------------------------------------------- multi-line formulas

def test_multiline_formula_equals_its_single_line_form():
    one = parse("where(x > gamma, x - beta, where(x < -gamma, x + beta, 0))")
    many = parse("where(x > gamma,\n      x - beta,\n      where(x < -gamma,\n            x + beta,\n            0))\n")
    assert many == one
    assert parse("\n\nmax(0,\n    min(alpha * x + beta, 1))\n\n") == parse("max(0, min(alpha * x + beta, 1))")


def test_multiline_formula_may_break_after_an_operator():
    assert parse("alpha * x\n+ beta") == parse("alpha * x + beta")


def test_multiline_syntax_error_points_at_its_line():
    err = refused("max(0,\n    min(alpha * x + , 1))")
    assert err.line == 2
    assert "syntax error" in err.message


def test_array_erf_and_erfc_are_math_erf_and_erfc_bit_for_bit():
    """The array erf/erfc skip the per-element call on their saturated tails and NaN: every value,
    those included, is math.erf's / math.erfc's own (sign, payload and the tails' constants)."""
    import math
    from specgen.formula.functions import _erf_vec, _erfc_vec

    rng = np.random.default_rng(7)
    edges = [0.0, -0.0, 6.0, -6.0, 28.0, -28.0, np.inf, -np.inf, np.nan, -np.nan, 5.999999999999999,
             -5.999999999999999, 27.999999999999996, -27.999999999999996, 5e-324, -5e-324]
    with np.errstate(invalid="ignore"):  # float32 NaNs widened
        x = np.concatenate([rng.integers(0, 2**64, 40_000, dtype=np.uint64).view(np.float64),  # NaN payloads too
                            rng.integers(0, 2**32, 40_000, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(np.float64),
                            np.linspace(-30, 30, 20_001), edges])
    for fn, vec in ((math.erf, _erf_vec), (math.erfc, _erfc_vec)):
        want = np.array([fn(v) for v in x.tolist()])
        assert np.array_equal(vec(x).view(np.uint64), want.view(np.uint64)), fn.__name__
    assert np_erf(np.float32([0.5])).dtype == np.float32
