"""Safe YAML reading that keeps the line of every value and refuses what a spec never needs.

Refused with a positioned problem: syntax errors, several documents, anchors and aliases (the
"billion laughs" alias bomb cannot expand), duplicate mapping keys (PyYAML silently keeps the
last), non-string keys, oversized files, and a top level that is not a mapping.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from specgen.errors import Problem

MAX_BYTES = 1 << 20  # a spec is a few KB; anything near a megabyte is a mistake or an attack

KeyPath = tuple  # of str | int


@dataclass(frozen=True)
class Pos:
    line: int  # 1-based line of the key (or of the item, in a sequence)
    column: int  # 1-based column where the value starts
    style: str | None = None  # scalar style: None (plain), "'", '"', "|", ">"
    value_line: int = 0  # 1-based line where the value starts


@dataclass
class Document:
    path: str
    data: Any
    positions: dict[KeyPath, Pos]

    def line(self, keypath: KeyPath) -> int | None:
        """The line of the value at keypath, or of its nearest ancestor that exists."""
        kp = tuple(keypath)
        while True:
            pos = self.positions.get(kp)
            if pos is not None:
                return pos.line
            if not kp:
                return None
            kp = kp[:-1]

    def pos(self, keypath: KeyPath) -> Pos | None:
        return self.positions.get(tuple(keypath))


class YamlProblems(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(map(str, problems)))


def _mark_line(mark) -> int | None:
    return mark.line + 1 if mark is not None else None


def read_document(path: str | Path, display: str | None = None) -> Document:
    """Read one spec file into plain data plus positions; raise YamlProblems on any refusal."""
    path = Path(path)
    name = display or str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise YamlProblems([Problem(name, None, "", f"cannot read file: {exc.strerror or exc}")]) from None
    if len(raw) > MAX_BYTES:
        raise YamlProblems([Problem(name, None, "", f"file is {len(raw)} bytes; spec files are limited to {MAX_BYTES}")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlProblems([Problem(name, None, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    return parse_text(text, name)


def parse_text(text: str, name: str) -> Document:
    if not text.strip() or all(ln.strip().startswith("#") or not ln.strip() for ln in text.splitlines()):
        raise YamlProblems([Problem(name, None, "", "empty file: a spec must be a YAML mapping")])
    # Pass 1: events only. Refuse anchors/aliases and extra documents before anything is built.
    try:
        documents = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise YamlProblems([Problem(name, _mark_line(event.start_mark), "",
                                                "more than one YAML document; a spec file holds exactly one")])
            if isinstance(event, yaml.AliasEvent):
                raise YamlProblems([Problem(name, _mark_line(event.start_mark), "",
                                            f"alias *{event.anchor} is not allowed: spec files may not use anchors or aliases")])
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                raise YamlProblems([Problem(name, _mark_line(event.start_mark), "",
                                            f"anchor &{anchor} is not allowed: spec files may not use anchors or aliases")])
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        msg = f"YAML syntax error: {exc.problem}" + (f" ({exc.context})" if exc.context else "")
        raise YamlProblems([Problem(name, _mark_line(mark), "", msg)]) from None
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        raise YamlProblems([Problem(name, None, "", f"YAML error: {exc}")]) from None

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        positions: dict[KeyPath, Pos] = {}
        problems: list[Problem] = []
        data = _build(loader, node, (), positions, problems, name)
    finally:
        loader.dispose()
    if problems:
        raise YamlProblems(problems)
    if not isinstance(data, dict):
        kind = type(data).__name__ if data is not None else "null"
        raise YamlProblems([Problem(name, _mark_line(node.start_mark) if node else None, "",
                                    f"top level must be a mapping of keys to values, got {kind}")])
    return Document(name, data, positions)


def _build(loader, node, keypath: KeyPath, positions, problems, name):
    positions[keypath] = Pos(node.start_mark.line + 1, node.start_mark.column + 1,
                             getattr(node, "style", None), node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        key_lines: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                problems.append(Problem(name, key_node.start_mark.line + 1, _join(keypath),
                                        "mapping keys must be plain strings"))
                continue
            key = loader.construct_object(key_node)
            if not isinstance(key, str):
                key = key_node.value  # 1_0, 22, true: keys are names, keep the text as written
            line = key_node.start_mark.line + 1
            if key in key_lines:
                problems.append(Problem(name, line, _join(keypath + (key,)),
                                        f"duplicate key {key!r} (first defined on line {key_lines[key]})"))
                continue
            key_lines[key] = line
            out[key] = _build(loader, value_node, keypath + (key,), positions, problems, name)
            vpos = positions[keypath + (key,)]
            positions[keypath + (key,)] = Pos(line, vpos.column, vpos.style, vpos.value_line)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, item, keypath + (i,), positions, problems, name) for i, item in enumerate(node.value)]
    return loader.construct_object(node)


def _join(keypath: KeyPath) -> str:
    parts: list[str] = []
    for k in keypath:
        if isinstance(k, int):
            parts.append(f"[{k}]")
        else:
            parts.append(("." if parts else "") + str(k))
    return "".join(parts)


join_keypath = _join
