"""Running vector-corpus cases through an adapter: claims, verdicts, isolation, baseline.

Front ends: ``specgen run`` (specgen.commands.run) and the pytest plugin (specgen.pytest_plugin),
both over :class:`specgen.runner.core.Runner`. Modules, one job each: ``verdicts`` (results and
their typed causes), ``cases`` (corpus, filters), ``call`` (building a call), ``invoke`` (calling
the adapter), ``isolate`` (the same in a subprocess), ``judge`` (verdicts), ``profile`` (behaviour
where the spec leaves a choice), ``probe`` (unclaimed groups), ``baseline`` (known failures),
``core`` (the loop).
"""
from specgen.runner.verdicts import (ERROR, FAIL, PASS, UNSUPPORTED, VERDICTS, XFAIL, XPASS, Cause,  # noqa: F401
                                     Result, RunResult)
