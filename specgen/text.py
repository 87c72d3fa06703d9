"""Small text helpers shared by the runner and the reports (kept apart so that neither imports the other)."""
from __future__ import annotations

import difflib


def shorten(text: str, width: int) -> str:
    """``text`` on one line, at most ``width`` characters; when it must be cut, the cut is at a word
    or field boundary (never inside a number or hex value) and ends with "…"."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    head = text[:width - 1]
    cut = max(head.rfind(" "), head.rfind(","), head.rfind(";"))
    if cut > 0:  # a single token longer than width is the only thing ever cut inside
        head = head[:cut]
    head = head.rstrip(" ,;:([{=")
    return head + "…"


def did_you_mean(value: str, known) -> str:
    """' (did you mean X?)' for a close match among ``known``, else ''."""
    close = difflib.get_close_matches(value, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""
