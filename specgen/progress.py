"""Progress of a long loop (``specgen run``, ``specgen generate``) on stderr."""
from __future__ import annotations

import sys
import time


class Progress:
    """Progress of a long loop on stderr: an updating bar on a terminal, a plain line every
    ``every_lines`` seconds otherwise (CI logs). Nothing for the first ``after`` seconds."""

    def __init__(self, stream=None, tty: bool | None = None, after: float = 2.0, every: float = 0.2,
                 every_lines: float = 10.0):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.after, self.every = after, (every if self.tty else every_lines)
        self.t0 = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, i: int, total: int, label: str) -> None:
        now = time.monotonic()
        done = i >= total
        if now - self.t0 < self.after or (not done and now - self.last < self.every):
            return
        if done and not self.shown:
            return
        self.last, self.shown = now, True
        pct = 100 * i // total if total else 100
        if self.tty:
            width = 30
            bar = "#" * (width * i // total if total else width)
            line = f"[{bar:<{width}}] {i}/{total} {pct:3d}% {label}"[:110]
            self.stream.write("\r" + line.ljust(110) + ("\n" if done else ""))
        else:
            self.stream.write(f"progress: {i}/{total} ({pct}%){' ' + label if label else ''}\n")
        self.stream.flush()
