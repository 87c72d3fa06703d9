"""The formula language: a closed expression grammar parsed into specgen's own node types."""
from specgen.formula.nodes import Binary, Call, Compare, Const, Logical, Node, Not, Num, Unary, Var, walk
from specgen.formula.parser import parse_formula

__all__ = ["Binary", "Call", "Compare", "Const", "Logical", "Node", "Not", "Num", "Unary", "Var",
           "parse_formula", "walk"]
