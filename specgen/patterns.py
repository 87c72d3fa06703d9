"""Case-id patterns (``--case``, baseline entries, claim versions).

Case ids carry attribute sets in brackets (``shrink/onnx-9/int32/rank4/breakpoints[bias=0.5,threshold=1]``),
so fnmatch's ``[...]`` character classes would silently match other cases. specgen's pattern syntax
has one wildcard: ``*`` matches any run of characters (``/`` included). Every other character,
``[``, ``]`` and ``?`` included, matches itself, so an exact id is always a pattern that selects
exactly that case.
"""
from __future__ import annotations

import re
from functools import lru_cache

WILDCARD = "*"


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern:
    return re.compile("".join(".*" if part == WILDCARD else re.escape(part)
                              for part in re.split(r"(\*)", pattern)) + r"\Z", re.DOTALL)


def matches(text: str, pattern: str) -> bool:
    """``text`` matches ``pattern`` (``*`` is the only wildcard; everything else is literal)."""
    if WILDCARD not in pattern:
        return text == pattern
    return compile_pattern(pattern).match(text) is not None

