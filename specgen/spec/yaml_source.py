"""Safe YAML reading that keeps the line of every value and refuses what a spec never needs.

Refused with a positioned problem: syntax errors, several documents, anchors and aliases (the
"billion laughs" alias bomb cannot expand), explicit tags (``!!python/...``, ``!local``, even
``!!float``: a spec never needs one), merge keys (``<<``), nesting deeper than MAX_DEPTH,
integers too large for any storage type, duplicate mapping keys (PyYAML silently keeps the
last), non-string keys, and a top level that is not a mapping. Only a regular file is read, and
never more than MAX_BYTES of it (a symlink to /dev/zero or a named pipe is refused before
reading; the size is checked on the open file, before its bytes are read).

Numbers are read as YAML 1.2 reads them: PyYAML (YAML 1.1) takes ``1e39`` and ``1.0e39`` for
strings, which would turn an out-of-range default into a misleading "got string" error.
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from specgen.errors import Problem

MAX_BYTES = 1 << 20  # a spec is a few KB; anything near a megabyte is a mistake or an attack
MAX_DEPTH = 32  # the bundled specs nest 8 deep; 10,000 nested flow lists would exhaust the stack
MAX_INT = 1 << 64  # beyond every integer storage type (uint64); larger ones cannot be meant

KeyPath = tuple  # of str | int

_FLOAT_12 = re.compile(r"""^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$""")


class SpecLoader(yaml.SafeLoader):
    """SafeLoader that also reads exponent floats without a dot or exponent sign (1e39, 1.0e39)."""


SpecLoader.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
SpecLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+0123456789."))

if getattr(yaml, "__with_libyaml__", False):
    class FastSpecLoader(yaml.CSafeLoader):
        """SpecLoader on libyaml (about 10x faster). Used for ASCII text that parses without error:
        there libyaml's marks (byte offsets) equal the pure-Python parser's (character offsets); any
        refusal is re-parsed by SpecLoader so that every message and position is the one the
        pure-Python parser gives (tests/test_yaml_source.py compares the two on every spec)."""

    FastSpecLoader.yaml_implicit_resolvers = SpecLoader.yaml_implicit_resolvers
else:  # pragma: no cover - PyYAML wheels ship libyaml
    FastSpecLoader = None


@dataclass(frozen=True)
class Pos:
    line: int  # 1-based line of the key (or of the item, in a sequence)
    column: int  # 1-based column where the value starts
    style: str | None = None  # scalar style: None (plain), "'", '"', "|", ">"
    value_line: int = 0  # 1-based line where the value starts
    start: int = -1  # character index in the file text where the value node starts
    end: int = -1  # character index where it ends
    key_column: int = 0  # 1-based column of the key (of the item, in a sequence); 0: the document


@dataclass
class Document:
    path: str
    data: Any
    positions: dict[KeyPath, Pos]
    text: str = field(default="", repr=False)  # the file's text, to map positions inside values

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

    def where(self, keypath: KeyPath) -> tuple[int | None, int | None]:
        """(line, column) of the value at keypath, or of its nearest ancestor that exists: the
        line of its key and that key's column (the value's own column for a sequence item or
        for a value on the key's line, the top-level mapping's start for the document)."""
        kp = tuple(keypath)
        while True:
            pos = self.positions.get(kp)
            if pos is not None:
                return pos.line, (pos.key_column or pos.column)
            if not kp:
                return None, None
            kp = kp[:-1]

    def pos(self, keypath: KeyPath) -> Pos | None:
        return self.positions.get(tuple(keypath))

    def char_position(self, keypath: KeyPath, offset: int) -> tuple[int, int] | None:
        """File (line, column), 1-based, of character ``offset`` of the string value at keypath,
        for plain, quoted and block (| and >) scalars; None when it cannot be mapped exactly."""
        pos = self.positions.get(tuple(keypath))
        value = self.data
        for key in keypath:
            value = value[key]
        if pos is None or pos.start < 0 or not isinstance(value, str) or not self.text:
            return None
        chars = scalar_char_map(self.text, pos.start, pos.end, pos.style, value)
        if chars is None or not 0 <= offset < len(chars):
            return None
        return chars[offset]


class YamlProblems(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(map(str, problems)))


def _mark_line(mark) -> int | None:
    return mark.line + 1 if mark is not None else None


def _mark_col(mark) -> int | None:
    return mark.column + 1 if mark is not None else None


_STANDARD_TAG_PREFIX = "tag:yaml.org,2002:"


def _explicit_tag(event) -> bool:
    """True when the event carries a tag written in the file (``!x``, ``!!float``); ``!`` alone
    (the non-specific tag of a quoted scalar) and resolved plain values carry none."""
    implicit = getattr(event, "implicit", None)
    if isinstance(implicit, tuple):  # scalars: (plain resolved, quoted resolved)
        return event.tag != "!" and not any(implicit)
    return event.tag != "!" and not implicit


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_STANDARD_TAG_PREFIX):] if tag.startswith(_STANDARD_TAG_PREFIX) else tag


def read_document(path: str | Path, display: str | None = None) -> Document:
    """Read one spec file into plain data plus positions; raise YamlProblems on any refusal."""
    name = display or str(path)
    raw = read_regular_file(path, name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlProblems([Problem(name, None, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    return parse_text(text.removeprefix("\ufeff"), name)  # a byte-order mark is allowed, not content


def read_regular_file(path: str | Path, name: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes; else YamlProblems.

    Opened without blocking (a named pipe cannot hang the read), checked with fstat on the open
    descriptor (no race between the check and the read), and read to at most limit + 1 bytes."""
    def refuse(message: str) -> YamlProblems:
        return YamlProblems([Problem(name, None, "", message)])
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            raise refuse("cannot read file: a symbolic link loop") from None
        raise refuse(f"cannot read file: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a directory" if stat.S_ISDIR(info.st_mode) else "a named pipe" if stat.S_ISFIFO(info.st_mode)
                    else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                    else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
            raise refuse(f"not a regular file ({kind}); only regular files are read as specs")
        if info.st_size > limit:
            raise refuse(f"file is {info.st_size} bytes; spec files are limited to {limit}")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise refuse(f"file is more than {limit} bytes; spec files are limited to {limit}")
        return b"".join(chunks)
    except OSError as exc:
        raise refuse(f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def parse_text(text: str, name: str, loader_class=None) -> Document:
    """Plain data plus positions of one spec's text; YamlProblems on any refusal. ``loader_class``
    forces a parser (tests compare them); by default libyaml where it is exact (ASCII text), with
    the pure-Python parser giving the message of anything refused."""
    if loader_class is None and FastSpecLoader is not None and text.isascii():
        try:
            return parse_text(text, name, FastSpecLoader)
        except (YamlProblems, yaml.YAMLError):
            pass
    loader_class = loader_class or SpecLoader
    if not text.strip():
        raise YamlProblems([Problem(name, None, "", "empty file: a spec must be a YAML mapping")])
    if all(ln.strip().startswith("#") or not ln.strip() for ln in text.splitlines()):
        raise YamlProblems([Problem(name, None, "", "only comments, no content: a spec must be a YAML mapping")])
    # Pass 1: events only. Refuse anchors/aliases and extra documents before anything is built.
    try:
        documents = 0
        depth = 0
        for event in yaml.parse(text, Loader=loader_class):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise YamlProblems([Problem(name, _mark_line(event.start_mark), "",
                                                f"nesting deeper than {MAX_DEPTH} levels: a spec never needs that", _mark_col(event.start_mark))])
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
            tag = getattr(event, "tag", None)
            if tag is not None and not isinstance(event, (yaml.DocumentStartEvent,)) and _explicit_tag(event):
                raise YamlProblems([Problem(name, _mark_line(event.start_mark), "",
                                            f"tag {_short_tag(tag)} is not allowed: spec files use plain YAML values "
                                            f"(quote a value to make it a string)", _mark_col(event.start_mark))])
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise YamlProblems([Problem(name, _mark_line(event.start_mark), "",
                                                "more than one YAML document; a spec file holds exactly one", _mark_col(event.start_mark))])
            if isinstance(event, yaml.AliasEvent):
                raise YamlProblems([Problem(name, _mark_line(event.start_mark), "",
                                            f"alias *{event.anchor} is not allowed: spec files may not use anchors or aliases", _mark_col(event.start_mark))])
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                raise YamlProblems([Problem(name, _mark_line(event.start_mark), "",
                                            f"anchor &{anchor} is not allowed: spec files may not use anchors or aliases", _mark_col(event.start_mark))])
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlProblems([Problem(name, _mark_line(mark), "", _syntax_message(exc), _mark_col(mark))]) from None
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        raise YamlProblems([Problem(name, None, "", f"YAML error: {exc}")]) from None

    loader = loader_class(text)
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
        kind = {list: "a list", str: "a string", type(None): "null"}.get(type(data), f"a {type(data).__name__}")
        raise YamlProblems([Problem(name, _mark_line(node.start_mark) if node else None, "",
                                    f"top level must be a mapping of keys to values, got {kind}",
                                    _mark_col(node.start_mark) if node else None)])
    return Document(name, data, positions, text)


def _syntax_message(exc: yaml.MarkedYAMLError) -> str:
    mark = exc.problem_mark or exc.context_mark
    msg = f"YAML syntax error: {exc.problem}"
    if exc.context:
        started = exc.context_mark
        if started is not None and mark is not None and started.line != mark.line:
            msg += f" ({exc.context} started on line {started.line + 1})"
        else:
            msg += f" ({exc.context})"
    if exc.problem == "mapping values are not allowed here":
        msg += "; a ': ' inside a plain value starts a mapping: quote the value"
    return msg


def _build(loader, node, keypath: KeyPath, positions, problems, name):
    positions[keypath] = Pos(node.start_mark.line + 1, node.start_mark.column + 1,
                             getattr(node, "style", None) or None, node.start_mark.line + 1,
                             node.start_mark.index, node.end_mark.index)
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        key_lines: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                problems.append(Problem(name, key_node.start_mark.line + 1, _join(keypath),
                                        "mapping keys must be plain strings", key_node.start_mark.column + 1))
                continue
            if key_node.tag == _STANDARD_TAG_PREFIX + "merge":
                problems.append(Problem(name, key_node.start_mark.line + 1, _join(keypath),
                                        "merge keys (<<) are not allowed: write every key out",
                                        key_node.start_mark.column + 1))
                continue
            key = _construct(loader, key_node, keypath, problems, name)
            if not isinstance(key, str):
                key = key_node.value  # 1_0, 22, true: keys are names, keep the text as written
            line = key_node.start_mark.line + 1
            if key in key_lines:
                problems.append(Problem(name, line, _join(keypath + (key,)),
                                        f"duplicate key {key!r} (first defined on line {key_lines[key]})",
                                        key_node.start_mark.column + 1))
                continue
            key_lines[key] = line
            out[key] = _build(loader, value_node, keypath + (key,), positions, problems, name)
            vpos = positions[keypath + (key,)]
            positions[keypath + (key,)] = Pos(line, vpos.column, vpos.style, vpos.value_line, vpos.start, vpos.end,
                                              key_node.start_mark.column + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, item, keypath + (i,), positions, problems, name) for i, item in enumerate(node.value)]
    return _construct(loader, node, keypath, problems, name)


def _construct(loader, node, keypath, problems, name):
    """A scalar's value; None with a problem where it cannot be read (an integer beyond uint64)."""
    try:
        value = loader.construct_object(node)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:  # pragma: no cover - tags are refused earlier
        problems.append(Problem(name, node.start_mark.line + 1, _join(keypath), f"cannot read value: {exc}",
                                node.start_mark.column + 1))
        return None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= MAX_INT:
        problems.append(Problem(name, node.start_mark.line + 1, _join(keypath),
                                f"integer {node.value[:30]}{'...' if len(node.value) > 30 else ''} is beyond every "
                                f"storage type (|n| < 2**64)", node.start_mark.column + 1))
        return None
    return value


def scalar_char_map(text: str, start: int, end: int, style: str | None, value: str) -> list[tuple[int, int]] | None:
    """(line, column), 1-based, in ``text`` of every character of a scalar's ``value``, or None.

    The scalar's source (``text[start:end]``) is folded the way YAML folds it, remembering where
    each character came from (a folding space or line break gets the position just after its
    line). The map is returned only if the folded text equals ``value``: an unusual scalar
    (escapes, more-indented lines of a folded block, ...) gives None, never a wrong position.
    """
    first_line = text.count("\n", 0, start) + 1
    first_col = start - (text.rfind("\n", 0, start) + 1) + 1
    source = text[start:end]
    raw_lines = source.split("\n")
    out: list[str] = []
    where: list[tuple[int, int]] = []

    def emit(chars: str, line: int, col: int) -> None:
        for i, ch in enumerate(chars):
            out.append(ch)
            where.append((line, col + i))

    if style in ("|", ">"):
        body = raw_lines[1:]  # the first line holds the indicator
        content = [ln for ln in body if ln.strip()]
        if not content:
            return None
        indent = len(content[0]) - len(content[0].lstrip(" "))
        joining = False  # folded: the previous line was text, so its line break becomes a space
        for i, ln in enumerate(body):
            line = first_line + 1 + i
            if not ln.strip():
                emit("\n", line, len(ln) + 1)
                joining = False
                continue
            if ln[:indent].strip() or (style == ">" and ln[indent:indent + 1] in (" ", "\t")):
                return None
            if style == "|":
                emit(ln[indent:] + "\n", line, indent + 1)
                continue
            if joining:
                emit(" ", line - 1, len(body[i - 1]) + 1)
            emit(ln[indent:], line, indent + 1)
            joining = True
            last = (line, len(ln) + 1)
        if joining:
            emit("\n", *last)
    elif style is None or (style in ("'", '"') and "\\" not in source and "''" not in source[1:-1]):
        quote = 1 if style in ("'", '"') else 0
        for i, ln in enumerate(raw_lines):
            line = first_line + i
            if i == 0:
                piece, col = ln[quote:].rstrip(), first_col + quote
            else:
                piece, col = ln.strip(), len(ln) - len(ln.lstrip()) + 1
            if quote and i == len(raw_lines) - 1:
                piece = piece[:-1]  # the closing quote
            if not piece:
                return None  # blank lines inside a flow scalar: rare, not mapped
            if i:
                emit(" ", line - 1, (first_col if i == 1 else 1) + len(raw_lines[i - 1]))
            emit(piece, line, col)
    else:
        return None
    return where if "".join(out).rstrip("\n") == value.rstrip("\n") else None


def _join(keypath: KeyPath) -> str:
    parts: list[str] = []
    for k in keypath:
        if isinstance(k, int):
            parts.append(f"[{k}]")
        else:
            parts.append(("." if parts else "") + str(k))
    return "".join(parts)


join_keypath = _join
