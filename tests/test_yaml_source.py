"""The libyaml fast path of specgen.spec.yaml_source gives exactly what the pure-Python parser gives:
the same data, the same positions, and for a refused file the same problems."""
from __future__ import annotations

from pathlib import Path

import pytest

from specgen.spec import yaml_source
from specgen.spec.yaml_source import SpecLoader, YamlProblems, parse_text

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.yaml"))
FIXTURES = sorted((ROOT / "tests" / "fixtures").rglob("*.yaml"))


def _outcome(text: str, loader_class):
    try:
        doc = parse_text(text, "f.yaml", loader_class)
    except YamlProblems as exc:
        return ("refused", [str(p) for p in exc.problems])
    return ("read", doc.data, doc.positions)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace").removeprefix("\ufeff")


@pytest.mark.skipif(yaml_source.FastSpecLoader is None, reason="PyYAML without libyaml")
def test_libyaml_and_pure_python_agree():
    """A sample of the specs and of the broken-spec fixtures read alike; every fixture libyaml
    refuses is refused by the pure-Python parser too (the default path then reports its problems)."""
    compared = refused = 0
    for i, path in enumerate(SPECS + FIXTURES):
        text = _text(path)
        if not text.isascii():
            continue
        fast = _outcome(text, yaml_source.FastSpecLoader)
        if fast[0] == "refused":
            assert _outcome(text, SpecLoader)[0] == "refused", path.name
            refused += 1
        elif i % (3 if path in SPECS else 5) == 0:  # a sample: the pure-Python parser is slow on 80+ specs
            assert fast == _outcome(text, SpecLoader), path.name
            compared += 1
    assert compared >= 20 and refused >= 5, (compared, refused)


def test_a_refused_file_gets_the_pure_python_parsers_message():
    text = "name: A\nid: [a\n"
    assert _outcome(text, None) == _outcome(text, SpecLoader)
    assert "YAML syntax error" in _outcome(text, None)[1][0]


def test_non_ascii_text_is_read_by_the_pure_python_parser():
    """libyaml counts bytes where the pure-Python parser counts characters: positions after a
    non-ASCII character would differ, so such text never takes the fast path."""
    text = "summary: 'x ≥ 0'\nname: A\n"
    doc = parse_text(text, "f.yaml")
    assert doc.positions[("name",)].start == text.index("A")
