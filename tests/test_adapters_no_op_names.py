"""The shipped adapters' Python names no operator: which backend function computes which op is data
(the spec's standard blocks for the ONNX and WebNN adapters, specgen/adapters/torch_ops.yaml for
torch), never an `if call.op == "..."` chain. Docstrings may mention operators as examples."""
from __future__ import annotations

import ast
from pathlib import Path

from specgen.spec.loader import load_all

ADAPTERS = Path(__file__).resolve().parents[1] / "specgen" / "adapters"


def _code_strings(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    # a string used as a mapping key (d.get("min"), d["max"], "min" in d) looks up a field of data (WebNN's
    # rankRange {min, max}, a mapping file's rule), not an operator: element-wise ops named max/min share the word
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            keys.add(id(node.args[0]))
        elif isinstance(node, ast.Subscript):
            keys.add(id(node.slice))
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            keys.add(id(node.left))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings | keys:
            yield node.lineno, node.value


def test_no_adapter_module_names_an_operator():
    from specgen.spec.operators import load_operators

    specs = load_operators()  # the accumulating operators (specs/accumulating) included
    names = set(specs) | {std.operator for spec in specs.values() for std in spec.standards.values()}
    found = [f"{path.name}:{line}: {text!r}" for path in sorted(ADAPTERS.glob("*.py"))
             for line, text in _code_strings(path) if text in names or names & set(text.replace(".", " ").split())]
    assert not found, "operator names in adapter code (put the mapping in data):\n" + "\n".join(found)


def test_the_check_sees_an_op_chain_but_not_a_docstring(tmp_path):
    # the old torch adapter's dispatch is caught; an example in a docstring is not
    path = tmp_path / "old_torch_adapter.py"
    path.write_text('def run(self, call):\n    """e.g. hard_sigmoid"""\n    if call.op == "hard_sigmoid":\n        pass\n',
                    encoding="utf-8")
    assert list(_code_strings(path)) == [(3, "hard_sigmoid")]


def test_the_check_skips_mapping_keys_but_not_a_dispatch(tmp_path):
    path = tmp_path / "adapter.py"
    path.write_text('def f(rank, call):\n    lo = rank.get("min")\n    hi = rank["max"]\n    if "max" in rank:\n'
                    '        pass\n    if call.op == "max":\n        pass\n', encoding="utf-8")
    assert list(_code_strings(path)) == [(6, "max")]


def test_the_accumulating_engine_names_no_operator():
    # specgen/indexing designs, judges and builds ONNX nodes for every accumulating operator from its spec
    from specgen.spec.operators import accumulating, load_operators

    specs = accumulating(load_operators())
    names = set(specs) | {std.operator for spec in specs.values() for std in spec.standards.values()}
    engine = ADAPTERS.parent / "indexing"
    found = [f"{path.name}:{line}: {text!r}" for path in sorted(engine.glob("*.py"))
             for line, text in _code_strings(path) if text in names or names & set(text.replace(".", " ").split())]
    assert not found, "operator names in the accumulating engine's code:\n" + "\n".join(found)
