"""Errors that end a run with exit code 2, each naming where the problem is and what to do."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

_WHERE = re.compile(
    r"^(?P<where>.*?)(?:, field '(?P<field>[^']*)'(?P<rest>[^:]*))?: (?P<msg>.*)$", re.S
)


@dataclass(frozen=True)
class Problem:
    """One problem, structured: ``where`` (file, task, line or YAML path), ``field`` (or None),
    ``code`` (what kind of problem) and ``message`` (what is wrong).

    >>> p = Problem.of("task 7, field 'sentiment', annotator 2: label 'X' is unknown", "label")
    >>> p.where, p.field, p.message
    ('task 7, annotator 2', 'sentiment', "label 'X' is unknown")
    >>> str(Problem.of("line 3: not valid JSON", "invalid_line"))
    'line 3: not valid JSON'
    """

    where: str
    field: str | None
    code: str
    message: str

    @classmethod
    def of(cls, text: str, code: str) -> Problem:
        """Split a message in the house format ``WHERE[, field 'NAME'[, …]]: MESSAGE``."""
        m = _WHERE.match(text)
        if m is None:
            return cls("", None, code, text)
        return cls(m["where"] + (m["rest"] or ""), m["field"], code, m["msg"])

    def __str__(self) -> str:
        field = f", field {self.field!r}" if self.field is not None else ""
        head = f"{self.where}{field}" if self.where or field else ""
        return f"{head}: {self.message}" if head else self.message

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class IaaGateError(Exception):
    """A run could not be done: bad config, unreadable or malformed input, unreachable server."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if self.hint is None else f"{self.message}\n  hint: {self.hint}"


class UsageError(IaaGateError):
    """The command line asks for something that cannot be done (missing or conflicting options)."""


class ServerError(IaaGateError):
    """Label Studio could not be used: unreachable, the token refused, an unknown project."""


class OutputError(IaaGateError):
    """A report or a file could not be written (or would overwrite one the user did not name)."""


class ConfigError(IaaGateError):
    """The config is invalid; ``problems`` lists every error as ``path: message``."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        lines = "\n".join(f"  - {p}" for p in problems)
        n = len(problems)
        super().__init__(f"{source}: {n} config error{'s' if n != 1 else ''}\n{lines}")
        self.problems = list(problems)


class InputError(IaaGateError):
    """An export or data problem; ``problems`` lists every one found (task/line and field),
    ``structured`` the same as :class:`Problem` records (``code``: their kind)."""

    def __init__(
        self,
        source: str,
        problems: Sequence[str],
        *,
        hint: str | None = None,
        code: str = "invalid_input",
    ) -> None:
        shown = list(problems[:20])
        more = f"\n  … and {len(problems) - 20} more" if len(problems) > 20 else ""
        lines = "\n".join(f"  - {p}" for p in shown)
        super().__init__(f"{source}: {len(problems)} problem(s)\n{lines}{more}", hint=hint)
        self.problems = list(problems)
        self.structured = [Problem.of(p, code) for p in problems]


def unreadable(path: str, exc: OSError | UnicodeDecodeError, *, encoding_hint: str) -> InputError:
    """The error for an input file that cannot be opened or is not UTF-8 text."""
    if isinstance(exc, UnicodeDecodeError):
        problem = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        return InputError(path, [problem], hint=encoding_hint)
    if isinstance(exc, FileNotFoundError):
        return InputError(path, ["file not found"], hint="check source.path or pass --source PATH")
    return InputError(path, [f"cannot read: {exc.strerror or exc}"])
