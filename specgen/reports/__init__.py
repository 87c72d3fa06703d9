"""Reports of a run: terminal summary, JSON, JUnit XML, Markdown. All read a
``specgen.runner.core.RunResult``; none runs anything."""
from specgen.reports.common import failure_lines, summary_rows  # noqa: F401
