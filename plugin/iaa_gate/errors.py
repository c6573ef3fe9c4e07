"""Errors that end a run with exit code 2, each naming where the problem is and what to do."""

from __future__ import annotations

from collections.abc import Sequence


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
    """An export or data problem; ``problems`` lists every one found (task/line and field)."""

    def __init__(self, source: str, problems: Sequence[str], *, hint: str | None = None) -> None:
        shown = list(problems[:20])
        more = f"\n  … and {len(problems) - 20} more" if len(problems) > 20 else ""
        lines = "\n".join(f"  - {p}" for p in shown)
        super().__init__(f"{source}: {len(problems)} problem(s)\n{lines}{more}", hint=hint)
        self.problems = list(problems)


def unreadable(path: str, exc: OSError | UnicodeDecodeError, *, encoding_hint: str) -> InputError:
    """The error for an input file that cannot be opened or is not UTF-8 text."""
    if isinstance(exc, UnicodeDecodeError):
        problem = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        return InputError(path, [problem], hint=encoding_hint)
    if isinstance(exc, FileNotFoundError):
        return InputError(path, ["file not found"], hint="check source.path or pass --source PATH")
    return InputError(path, [f"cannot read: {exc.strerror or exc}"])
