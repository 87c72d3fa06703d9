"""WebNN as a standard: which of its operators the specs name, which they do not, and the rules
specs/_standards.yaml records for it (options cast to the input's data type, WebIDL dictionaries)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from specgen.cli import main
from specgen.spec.loader import load_all

ROOT = Path(__file__).resolve().parent.parent
OPERATORS = [ln.strip() for ln in (ROOT / "tests" / "fixtures" / "webnn_operators.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
SPECS = load_all()

# spec id -> the WebNN operator it is (None: WebNN has no such operator). Every spec must appear
# here, so that a new spec is a decision: give it a webnn block, or say WebNN lacks it.
WEBNN_NAME = {"hard_sigmoid": "hardSigmoid", "softsign": "softsign", "shrink": None, "prelu": "prelu",
              "elu": "elu", "softplus": "softplus", "sigmoid": "sigmoid", "tanh": "tanh", "scaled_tanh": None,
              "swish": None, "parametric_softplus": None, "gelu": "gelu", "relu": "relu", "leaky_relu": "leakyRelu",
              "linear": "linear", "hard_swish": "hardSwish", "identity": "identity", "celu": None, "selu": None,
              "thresholded_relu": None,
              # issue 23's unary math family: WebNN's element-wise unary operations
              "absolute": "abs", "neg": "neg", "reciprocal": "reciprocal", "sqrt": "sqrt", "exp": "exp", "log": "log",
              "erf": "erf", "sin": "sin", "cos": "cos", "tan": "tan", "floor": "floor", "ceil": "ceil",
              "round_even": "roundEven", "sign": "sign", "asin": None, "acos": None, "atan": None, "sinh": None,
              "cosh": None, "asinh": None, "acosh": None, "atanh": None,
              # issue 23's binary arithmetic: WebNN's element-wise binary operations (no modulo)
              "add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max", "minimum": "min",
              "power": "pow", "mod": None,
              # issue 23's comparisons and logical operators (element-wise logical operations) and where
              "equal": "equal", "not_equal": "notEqual", "greater": "greater", "greater_or_equal": "greaterOrEqual",
              "less": "lesser", "less_or_equal": "lesserOrEqual", "logical_and": "logicalAnd",
              "logical_or": "logicalOr", "logical_xor": "logicalXor", "logical_not": "logicalNot", "is_nan": "isNaN",
              "is_inf": "isInfinite", "where": "where", "cast": "cast",

              # issue 23's Clip: WebNN's clamp (minValue > maxValue throws: the block's attribute_order)
              "clip": "clamp"}
# Specs WebNN defines whose webnn row is still to be written (docs/webnn.md has their options).
PENDING: set[str] = set()

# The WebNN rows the activation-family specs will need (docs/webnn.md has their options).
ACTIVATION_FAMILY = ["elu", "gelu", "hardSwish", "leakyRelu", "linear", "prelu", "relu", "sigmoid", "softplus",
                     "tanh", "clamp"]


def test_operator_list_is_the_snapshot():
    assert len(OPERATORS) == 95 and len(set(OPERATORS)) == 95
    assert OPERATORS == sorted(OPERATORS)
    assert set(ACTIVATION_FAMILY) <= set(OPERATORS)


def test_every_spec_that_webnn_defines_has_a_webnn_row():
    assert set(WEBNN_NAME) == set(SPECS), "decide for each spec whether WebNN defines it"
    for op, name in WEBNN_NAME.items():
        std = SPECS[op].standards.get("webnn")
        if name is None or op in PENDING:
            assert std is None, op
            assert name is None or name in OPERATORS
        else:
            assert std is not None and std.operator == name, op
            assert name in OPERATORS


def test_which_webnn_operators_the_specs_name_and_which_not():
    named = sorted(s.standards["webnn"].operator for s in SPECS.values() if "webnn" in s.standards)
    assert named == sorted(["elu", "gelu", "hardSigmoid", "hardSwish", "identity", "leakyRelu", "linear", "prelu",
                            "relu", "sigmoid", "softplus", "softsign", "tanh", "abs", "ceil", "cos", "erf", "exp",
                            "floor", "log", "neg", "reciprocal", "roundEven", "sign", "sin", "sqrt", "tan",
                            "add", "sub", "mul", "div", "max", "min", "pow",
                            "equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual", "logicalAnd",
                            "logicalOr", "logicalXor", "logicalNot", "isNaN", "isInfinite", "where", "cast", "clamp"])
    missing = [o for o in OPERATORS if o not in named]
    assert len(missing) == 46
    assert [o for o in ACTIVATION_FAMILY if o in missing] == [o for o in ACTIVATION_FAMILY if o not in named]


def test_webnn_rules():
    info = SPECS["hard_sigmoid"].standards["webnn"].info
    assert (info.attribute_cast, info.unknown_attributes, info.strides, info.zero_sizes) == ("input", "ignored", False, False)
    # options are cast to the input's data type: float32 for float32 tensors, float16 for float16
    assert info.cast_attributes({"alpha": 0.2}, "float32") == {"alpha": float(np.float32(0.2))}
    assert info.cast_attributes({"alpha": 0.2}, "float16") == {"alpha": 0.199951171875}
    assert info.cast_attributes({"alpha": 1e5}, "float16") == {"alpha": float("inf")}
    other = SPECS["hard_sigmoid"].standards["onnx"].info
    assert other.cast_attributes({"alpha": 0.2}, "float16") == {"alpha": float(np.float32(0.2))}


def test_webnn_must_reject_cases_and_no_unknown_option_case():
    from specgen.vectors import load_corpus

    corpus = load_corpus()
    rules = sorted(c.tags[1] for c in corpus.cases if c.standard == "webnn" and c.kind == "negative" and c.op == "softsign")
    assert rules == ["data_type", "dimension_count", "dtype", "sizes", "strides", "zero-size"]
    assert not [c for c in corpus.cases if c.standard == "webnn" and "unknown-attribute" in c.tags]


def test_generated_validation_ignores_unknown_options_for_webnn_only():
    from specgen.generate.tree import import_generated

    v = import_generated(ROOT / "generated", "validate", "hard_sigmoid")

    call = {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]}}
    assert v.validate("webnn", "2026-06-26", call, {"alpha": 0.2, "gamma": 1.0}) == []
    assert v.validate("onnx", "22", call, {"alpha": 0.2, "gamma": 1.0}) != []
    zero = {"x": {"dtype": "float32", "sizes": [2, 0]}, "y": {"dtype": "float32", "sizes": [2, 0]}}
    assert v.validate("webnn", "2026-06-26", zero, {}) != []


@pytest.mark.parametrize("op", ["hard_sigmoid", "softsign"])
def test_show_renders_a_webnn_operator_section(op):
    res = CliRunner().invoke(main, ["show", op, "--standard", "webnn"])
    assert res.exit_code == 0, res.output
    page = res.stdout
    name = WEBNN_NAME[op]
    lines = page.splitlines()
    assert lines[0] == f"# {name}"
    assert f"partial interface MLGraphBuilder {{" in page
    assert "| operand | allowed data types | required data types | allowed ranks | required ranks |" in page
    assert "| input | float32, float16 | float32, float16 | N | 0 to 5 |" in lines
    assert "| *output* | same as input | float32, float16 | same as input | 0 to 5 |" in lines
    assert f"The **{name}(input, options)** method steps are:" in lines
    if op == "hard_sigmoid":
        assert "dictionary MLHardSigmoidOptions : MLOperatorOptions {" in lines
        assert "  double alpha = 0.2;" in lines and "  double beta = 0.5;" in lines
        assert "  MLOperand hardSigmoid(MLOperand input, optional MLHardSigmoidOptions options = {});" in lines
        assert "1. Set options.alpha to the result of casting options.alpha to input's dataType." in lines
    else:
        assert "  MLOperand softsign(MLOperand input, optional MLOperatorOptions options = {});" in lines
        assert "output = input / (1 + abs(input))" in lines


def test_standard_rules_are_validated(tmp_path):
    from specgen.errors import SpecError
    from specgen.spec.loader import load_standards

    text = (ROOT / "specs" / "_standards.yaml").read_text()
    bad = tmp_path / "_standards.yaml"
    bad.write_text(text.replace("attribute_cast: input", "attribute_cast: bfloat16")
                   .replace("unknown_attributes: ignored", "unknown_attributes: maybe"))
    with pytest.raises(SpecError) as exc:
        load_standards(bad)
    message = str(exc.value)
    # the schema (specgen/schemas/standards.schema.json) says what is allowed, with file:line:column
    lines = text.splitlines()
    cast = lines.index("    attribute_cast: input") + 1
    unknown = lines.index("    unknown_attributes: ignored") + 1
    assert f"_standards.yaml:{cast}:5: standards.webnn.attribute_cast:" in message and "float32, input" in message
    assert f"_standards.yaml:{unknown}:5: standards.webnn.unknown_attributes:" in message and "rejected, ignored" in message
