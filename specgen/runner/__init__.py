"""Running vector-corpus cases through an adapter: claims, verdicts, isolation, baseline.

Front ends: ``specgen run`` (specgen.commands.run) and the pytest plugin (specgen.pytest_plugin),
both over :class:`specgen.runner.core.Runner`.
"""
from specgen.runner.core import (ERROR, FAIL, PASS, UNSUPPORTED, VERDICTS, XFAIL, XPASS, Result, Runner,  # noqa: F401
                                 RunResult)

# exit codes of `specgen run` (docs/runner.md)
EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_USAGE = 2
EXIT_ADAPTER = 3
EXIT_NO_CASES = 4
