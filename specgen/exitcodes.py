"""Exit codes of specgen commands (docs/runner.md, ``specgen run --help``)."""
from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0  # no new failure
    FAILURES = 1  # a new failure (or an xpass with --strict); lint/generate --check: problems found;
    # coverage: an allowed case class has no case
    USAGE = 2  # usage or configuration error: bad option, spec, baseline, corpus, report path
    ADAPTER = 3  # the adapter cannot be loaded (unknown, not installed, broken, malformed claims)
    NOTHING = 4  # nothing selected: no case matches the filters, or the adapter claimed none of them
    INTERRUPTED = 130  # Ctrl-C (what finished is still reported)
