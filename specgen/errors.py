"""Error types that carry where a problem is: file, line, column and key path."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem found in a spec file, rendered as ``FILE:LINE:COLUMN: key.path: message``
    (``FILE:LINE:`` where the column is not known, ``FILE:`` where the line is not)."""

    file: str
    line: int | None
    keypath: str
    message: str
    column: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        if self.line and self.column:
            where += f":{self.column}"
        key = self.keypath or "<document>"
        return f"{where}: {key}: {self.message}"


class SpecError(Exception):
    """Raised when one or more spec files are invalid; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class FormulaError(Exception):
    """A formula that is not in the closed grammar. Positions are 1-based, within the formula text."""

    def __init__(self, message: str, line: int, column: int, token: str):
        self.message = message
        self.line = line
        self.column = column
        self.token = token
        super().__init__(f"line {line}, column {column}: {message} (token {token!r})")
