"""How spec text reaches generated Python: only as an escaped literal, a checked identifier, or
code the generator itself built (issue 15: specs are untrusted input).

The reference and validation templates are rendered by an environment whose ``finalize`` refuses
any printed value that did not come out of one of these filters, the way autoescaping refuses
unmarked text: ``{{ op.summary }}`` fails to render, ``{{ op.summary | docstring }}`` is safe.

- ``pyrepr``: a Python literal (repr/pprint), checked to read back with ``ast.literal_eval``;
- ``docstring``: text for inside a triple-quoted string: backslashes, quotes and every control,
  format or surrogate character escaped, checked to read back unchanged;
- ``comment``: one line for after ``#``: line breaks folded, control characters escaped;
- ``ident``: a name that is a valid, non-keyword, non-reserved identifier (specgen.spec.semantic);
- ``code``: source the generator built from the above (a ``Code`` string), passed through.
"""
from __future__ import annotations

import ast
import pprint
import unicodedata


class Code(str):
    """Python source built by the generator from checked parts; the only unfiltered text a
    generated module may print."""


class UnsafeTemplateValue(TypeError):
    """A template printed a value without one of the filters above (a template bug)."""


def pyrepr(value) -> Code:
    text = pprint.pformat(value, width=110, sort_dicts=False)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:  # nan, inf or an object: never written into a module
        raise UnsafeTemplateValue(f"{text[:60]!r} is not a Python literal: {exc}") from None
    if back != value and not isinstance(value, tuple):
        raise UnsafeTemplateValue(f"{text[:60]!r} does not read back as the value it came from")
    return Code(text)


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unsafe(ch: str) -> bool:
    """Characters written as escapes: controls (NUL, CR, ...), format and line-separator characters,
    surrogates, private use and unassigned code points."""
    return ch != "\n" and (unicodedata.category(ch)[0] in "CZ" and ch != " ")


def docstring(value) -> Code:
    """``value`` for inside ``\"\"\"...\"\"\"``: ``\\``, ``"`` and unsafe characters escaped."""
    text = str(value)
    out = "".join("\\\\" if ch == "\\" else '\\"' if ch == '"' else _escape_char(ch) if _unsafe(ch) else ch
                  for ch in text)
    if ast.literal_eval('"""' + out + '"""') != text:  # pragma: no cover - a guard on the escaping above
        raise UnsafeTemplateValue(f"cannot write {text[:40]!r} into a docstring")
    return Code(out)


def comment(value) -> Code:
    """``value`` as the rest of one comment line: line breaks become spaces, unsafe characters escapes."""
    text = " ".join(str(value).splitlines())
    return Code("".join(_escape_char(ch) if _unsafe(ch) else ch for ch in text))


def ident(value) -> Code:
    from specgen.spec.semantic import identifier_problem
    name = str(value)
    why = identifier_problem(name)
    if why:
        raise UnsafeTemplateValue(f"{why}: refusing to write it into generated code")
    return Code(name)


def code(value) -> Code:
    if not isinstance(value, Code):
        raise UnsafeTemplateValue(f"{str(value)[:60]!r} is not generator-built code; use pyrepr, docstring, "
                                  f"comment or ident")
    return value


def finalize(value):
    """Jinja ``finalize``: every ``{{ ... }}`` of a generated-code template must print a filter's output."""
    if isinstance(value, Code):
        return value
    raise UnsafeTemplateValue(f"template printed {str(value)[:60]!r} without a filter (pyrepr, docstring, comment, "
                              f"ident or code)")


FILTERS = {"pyrepr": pyrepr, "docstring": docstring, "comment": comment, "ident": ident, "code": code}
