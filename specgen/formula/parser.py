"""Parse formula text into specgen nodes through a whitelist walk of Python's ``ast``.

The text is parsed with ``ast.parse(mode="eval")`` and never executed. Every ``ast`` node type not
handled below is refused with its position and source token: attribute access, subscripts,
lambdas, strings, keyword arguments, calls of anything outside the function table, names that
are neither declared inputs, declared attributes nor constants.
"""
from __future__ import annotations

import ast
import math
from fractions import Fraction

from specgen.errors import FormulaError
from specgen.formula import nodes as n
from specgen.formula.functions import CONSTANTS, FUNCTIONS

MAX_LENGTH = 4000
MAX_DEPTH = 64

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}

_DESCRIBE = {
    ast.Attribute: "attribute access", ast.Subscript: "subscript", ast.Lambda: "lambda",
    ast.JoinedStr: "f-string", ast.ListComp: "comprehension", ast.SetComp: "comprehension",
    ast.DictComp: "comprehension", ast.GeneratorExp: "generator expression", ast.List: "list",
    ast.Tuple: "tuple", ast.Dict: "dict", ast.Set: "set", ast.NamedExpr: "assignment expression",
    ast.Starred: "starred expression", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
    ast.Slice: "slice",
}


REDUCTIONS = {"reduce_sum": "sum", "reduce_prod": "prod", "reduce_max": "max", "reduce_min": "min"}


def parse_formula(text: str, inputs, attributes, index_sets=None) -> n.Node:
    """Parse ``text``; ``inputs`` and ``attributes`` are the declared names it may use.
    ``index_sets`` (specs with an ``index_space`` only) are the named index sets that
    ``reduce_sum/prod/max/min(expr, SET)`` and ``count(SET)`` may name; without it those are unknown."""
    if not isinstance(text, str):
        raise FormulaError(f"formula must be a string, got {type(text).__name__}", 1, 1, str(text))
    if not text.strip():
        raise FormulaError("formula is empty", 1, 1, "")
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"formula is {len(text)} characters long; the limit is {MAX_LENGTH}", 1, 1, text[:20])
    source = text.strip("\n")
    lines = source.splitlines() or [""]
    # Allow a formula written over several lines (YAML block scalar), or indented: join inside parentheses.
    multiline = len(lines) > 1 or source[:1] in (" ", "\t")
    wrapped = "(" + source + "\n)" if multiline else source
    try:
        tree = ast.parse(wrapped, mode="eval")
    except SyntaxError as exc:
        line = exc.lineno or 1
        col = exc.offset or 1
        if multiline and line == 1:
            col = max(1, col - 1)
        src_line = lines[line - 1] if 0 < line <= len(lines) else ""
        token = _token_at(src_line, col - 1)
        raise FormulaError(f"syntax error: {exc.msg}", line, col, token) from None
    except (RecursionError, MemoryError) as exc:
        raise FormulaError(f"formula nests too deeply to parse ({type(exc).__name__})", 1, 1, text[:20]) from None
    except ValueError as exc:  # e.g. a NUL character
        raise FormulaError(f"formula cannot be parsed: {exc}", 1, 1, text[:20]) from None
    builder = _Builder(source, lines, set(inputs), set(attributes), multiline=multiline,
                       index_sets=None if index_sets is None else set(index_sets))
    return builder.build(tree.body, 0)


def _number_text(token: str, value) -> str:
    """The literal as written (0.2 stays the rational 1/5 for exact consumers) when both float()
    and Fraction() read it; else a decimal spelling of its value (0x10 -> 16)."""
    try:
        Fraction(token)
        float(token)
        return token
    except (ValueError, ZeroDivisionError):
        return str(value) if isinstance(value, int) else repr(value)


def _nonzero(token: str) -> bool:
    try:
        return Fraction(token.replace("_", "")) != 0
    except (ValueError, ZeroDivisionError):
        return False


def _token_at(line: str, index: int) -> str:
    if index >= len(line):
        return line[-10:] if line else ""
    start = index
    end = index + 1
    word = line[start].isalnum() or line[start] in "_."
    while word and end < len(line) and (line[end].isalnum() or line[end] in "_."):
        end += 1
    return line[start:end] or line[start:start + 1]


class _Builder:
    def __init__(self, source, lines, inputs, attributes, multiline, index_sets=None):
        self.index_sets = index_sets
        self.source = source
        self.lines = lines
        self.inputs = inputs
        self.attributes = attributes
        self.multiline = multiline

    def pos(self, node) -> tuple[int, int]:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + 1
        if self.multiline and line == 1:
            col -= 1  # the "(" added in front
        return line, col

    def token(self, node) -> str:
        line, col = self.pos(node)
        end_line = getattr(node, "end_lineno", line)
        end_col = getattr(node, "end_col_offset", None)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if end_col is not None and end_line == getattr(node, "lineno", line):
            if self.multiline and line == 1:
                end_col -= 1
            return text[col - 1:end_col]
        return text[col - 1:]

    def fail(self, node, message):
        line, col = self.pos(node)
        token = self.token(node)
        raise FormulaError(message, line, col, token if len(token) <= 40 else token[:37] + "...")

    def build(self, node, depth) -> n.Node:
        if depth > MAX_DEPTH:
            self.fail(node, f"formula nests deeper than {MAX_DEPTH} levels")
        d = depth + 1
        pos = self.pos(node)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                what = "string" if isinstance(v, (str, bytes)) else type(v).__name__
                self.fail(node, f"{what} literals are not allowed; only numbers")
            try:
                finite = math.isfinite(float(v))
            except OverflowError:  # an integer literal of 310 digits
                finite = False
            if not finite:
                self.fail(node, "number is too large for float64 (write inf for infinity)")
            if v == 0 and _nonzero(self.token(node)):
                self.fail(node, "number underflows to 0 in float64; write 0 if zero is meant")
            return n.Num(_number_text(self.token(node), v), pos)
        if isinstance(node, ast.Name):
            name = node.id
            if name in self.inputs:
                return n.Var(name, "input", pos)
            if name in self.attributes:
                return n.Var(name, "attribute", pos)
            if name in CONSTANTS:
                return n.Const(name, pos)
            if name in FUNCTIONS:
                self.fail(node, f"function {name!r} used without calling it")
            self.fail(node, f"unknown name {name!r}: not a declared input, attribute or constant "
                            f"(inputs: {', '.join(sorted(self.inputs)) or '-'}; attributes: "
                            f"{', '.join(sorted(self.attributes)) or '-'}; constants: {', '.join(CONSTANTS)})")
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return n.Unary("-", self.build(node.operand, d), pos)
            if isinstance(node.op, ast.UAdd):
                return n.Unary("+", self.build(node.operand, d), pos)
            if isinstance(node.op, ast.Not):
                return n.Not(self.build(node.operand, d), pos)
            self.fail(node, "bitwise inversion is not allowed")
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return n.Call("pow", (self.build(node.left, d), self.build(node.right, d)), pos)
            op = _BINOPS.get(type(node.op))
            if op is None:
                self.fail(node, f"operator {type(node.op).__name__} is not allowed; use + - * / or **")
            return n.Binary(op, self.build(node.left, d), self.build(node.right, d), pos)
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            return n.Logical(op, tuple(self.build(v, d) for v in node.values), pos)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                self.fail(node, "chained comparisons are not allowed; combine with 'and'")
            op = _CMPOPS.get(type(node.ops[0]))
            if op is None:
                self.fail(node, f"comparison {type(node.ops[0]).__name__} is not allowed")
            return n.Compare(op, self.build(node.left, d), self.build(node.comparators[0], d), pos)
        if isinstance(node, ast.IfExp):
            return n.Call("where", (self.build(node.test, d), self.build(node.body, d), self.build(node.orelse, d)), pos)
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                what = _DESCRIBE.get(type(node.func))
                self.fail(node.func, f"{what} is not allowed in a formula" if what else
                          "only functions from the table can be called, by plain name")
            name = node.func.id
            if self.index_sets is not None and name == "in_tensor_type":
                if len(node.args) != 1 or node.keywords:
                    self.fail(node, "in_tensor_type() takes 1 argument")
                return n.TensorCast(self.build(node.args[0], d), pos)
            if self.index_sets is not None and (name in REDUCTIONS or name == "count"):
                return self.reduction(node, name, d)
            fn = FUNCTIONS.get(name)
            if fn is None:
                self.fail(node.func, f"unknown function {name!r}; allowed: {', '.join(sorted(FUNCTIONS))}")
            for arg in node.args:
                if isinstance(arg, ast.Starred):
                    self.fail(arg, "starred expression is not allowed in a formula")
            if node.keywords:
                self.fail(node, f"{name}() takes no keyword arguments")
            count = len(node.args)
            if count < fn.min_args or (fn.max_args >= 0 and count > fn.max_args):
                want = (str(fn.min_args) if fn.min_args == fn.max_args else
                        f"{fn.min_args} or more" if fn.max_args < 0 else f"{fn.min_args} to {fn.max_args}")
                self.fail(node, f"{name}() takes {want} arguments, got {count}")
            args = tuple(self.build(a, d) for a in node.args)
            if name == "select":
                name = "where"
            return n.Call(name, args, pos)
        what = _DESCRIBE.get(type(node), type(node).__name__)
        self.fail(node, f"{what} is not allowed in a formula")
        raise AssertionError  # unreachable

    def reduction(self, node, name, depth) -> n.Node:
        """``reduce_OP(expr, SET)`` or ``count(SET)``: SET a bare name of a declared index set."""
        if node.keywords:
            self.fail(node, f"{name}() takes no keyword arguments")
        want = 1 if name == "count" else 2
        if len(node.args) != want:
            self.fail(node, f"{name}() takes {want} argument{'s' if want > 1 else ''}, got {len(node.args)}")
        over = node.args[-1]
        if not isinstance(over, ast.Name) or over.id not in self.index_sets:
            self.fail(over, f"{name}() reduces over a declared index set (index_space.sets: "
                            f"{', '.join(sorted(self.index_sets)) or '-'}), not {self.token(over)!r}")
        if name == "count":
            return n.Count(over.id, self.pos(node))
        return n.Reduce(REDUCTIONS[name], self.build(node.args[0], depth), over.id, self.pos(node))
