"""The layers import one way (issue 13: no runner <-> reports or core <-> isolate cycles). Every
import in specgen/, at module level or inside a function, is an edge; the graph has no cycle."""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "specgen"


def _module(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def graph() -> dict[str, set[str]]:
    mods = {_module(p): p for p in PKG.rglob("*.py") if "_bundled" not in p.parts}
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(p.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(pkg.split(".")[:len(pkg.split(".")) - node.level + 1] + ([base] if base else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for n in names:
                while n and n not in mods:
                    n = n.rpartition(".")[0]
                if n and n != m and n != "specgen":
                    edges[m].add(n)
    return edges


def cycles(edges) -> list[list[str]]:
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_the_runner_never_imports_the_reports():
    edges = graph()
    bad = [(m, n) for m, ns in edges.items() if m.startswith("specgen.runner") for n in ns
           if n.startswith("specgen.reports")]
    assert bad == []


def test_mpmath_runs_on_gmp():
    """gmpy2 is a core dependency: mpmath picks it up as its backend (the exact golden values of a
    cancelling formula, tests/test_untrusted_specs.py's expm1(x) - log1p(x), are 3-4x faster)."""
    import mpmath.libmp
    assert mpmath.libmp.BACKEND == "gmpy"
