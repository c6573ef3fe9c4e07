"""Errors that end a run with exit code 2, each naming where the problem is and what to do.

The exception tree (every error is an :class:`IaaGateError`; the CLI prints it and exits 2)::

    IaaGateError           a run could not be done (message, hint)
    ├── UsageError         an argument or option that cannot be used (parameter, accepted, reason);
    │                      also a ValueError, so ``except ValueError`` still catches a bad argument
    ├── ConfigError        the YAML config is invalid (problems: every one, as text)
    ├── InputError         the export or data is malformed (problems, structured: [Problem])
    ├── ServerError        Label Studio could not be used (unreachable, token refused)
    └── OutputError        a report or file could not be written

Errors carry their cases as data: a :class:`Problem` per problem found (with a :class:`Reason`
code), and a :class:`UsageError` names the ``parameter`` and the ``accepted`` values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum


class Reason(str, Enum):
    """What kind of problem a :class:`Problem` or an error is: its ``code``, a string in every
    report (``Reason.INVALID_ROW == "invalid_row"``).

    Examples
    --------
    >>> Reason("invalid_line").name, Reason.BAD_ARGUMENT.value
    ('INVALID_LINE', 'bad_argument')
    """

    INVALID_INPUT = "invalid_input"
    """The input as a whole (a file that cannot be read as its format)."""
    INVALID_TASK = "invalid_task"
    """A Label Studio task or annotation."""
    INVALID_LINE = "invalid_line"
    """A line of a JSON Lines file (Prodigy)."""
    INVALID_ROW = "invalid_row"
    """A row of a table source."""
    BAD_ARGUMENT = "bad_argument"
    """A Python API argument or a command-line option."""
    BAD_DATA = "bad_data"
    """The ratings given to the Python API cannot be read as the function needs them."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Problem:
    """One problem, structured where it is raised; its text is the house format
    ``WHERE[, field 'NAME'][, PART]: MESSAGE``.

    Parameters
    ----------
    where : str
        The file, task, line, row or YAML path.
    field : str or None
        The field, if the problem is in one.
    code : str
        What kind of problem: a :class:`Reason` (kept as its string).
    message : str
        What is wrong.
    part : str, optional
        A place inside the field: a region, an annotator, a column.

    Examples
    --------
    >>> p = Problem("task 7", "sentiment", "label", "label 'X' is unknown", "annotator 2")
    >>> str(p)
    "task 7, field 'sentiment', annotator 2: label 'X' is unknown"
    >>> str(Problem("line 3", None, "invalid_line", "not valid JSON"))
    'line 3: not valid JSON'
    """

    where: str
    field: str | None
    code: str
    message: str
    part: str | None = None

    def __post_init__(self) -> None:
        # a Reason is kept as its plain string: reports and pickles hold text, not the Enum
        object.__setattr__(self, "code", str(self.code))

    def __str__(self) -> str:
        head = ", ".join(
            x
            for x in (
                self.where,
                None if self.field is None else f"field {self.field!r}",
                self.part,
            )
            if x
        )
        return f"{head}: {self.message}" if head else self.message


class IaaGateError(Exception):
    """A run could not be done: bad config, unreadable or malformed input, unreachable server.

    The base of every error iaa-gate raises (the tree is in this module's docstring).

    Parameters
    ----------
    message : str
        What went wrong, and where.
    hint : str, optional
        What to do about it, printed on a line of its own.

    Examples
    --------
    >>> print(IaaGateError("report.json: cannot write", hint="check report.dir"))
    report.json: cannot write
      hint: check report.dir
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if self.hint is None else f"{self.message}\n  hint: {self.hint}"


class UsageError(IaaGateError, ValueError):
    """An argument or option that cannot be used: the command line's (missing or conflicting
    options) or a Python API function's (:mod:`iaa_gate` and :mod:`iaa_gate.metrics`).

    It is also a ``ValueError``: what ``krippendorff``, scipy and numpy raise for a bad
    argument, and what these functions raised before, so ``except ValueError`` keeps working.

    Parameters
    ----------
    message : str
        What cannot be used, and what to use instead.
    hint : str, optional
        What to do about it.
    parameter : str, optional
        The argument at fault (kept as ``parameter``; ``None`` when it is no single one).
    accepted : sequence of str
        The values it takes, when they are a list (kept as the tuple ``accepted``).
    reason : Reason
        :attr:`Reason.BAD_ARGUMENT`, or :attr:`Reason.BAD_DATA` when the data argument cannot
        be read.

    Examples
    --------
    >>> e = UsageError("level='x' is not accepted", parameter="level", accepted=("nominal",))
    >>> e.parameter, e.accepted, e.reason.value
    ('level', ('nominal',), 'bad_argument')
    """

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        parameter: str | None = None,
        accepted: Sequence[str] = (),
        reason: Reason = Reason.BAD_ARGUMENT,
    ) -> None:
        super().__init__(message, hint=hint)
        self.parameter = parameter
        self.accepted = tuple(accepted)
        self.reason = reason


class ServerError(IaaGateError):
    """Label Studio could not be used: unreachable, the token refused, an unknown project.

    Parameters
    ----------
    message : str
        What failed, with the server's URL (credentials redacted).
    hint : str, optional
        What to do about it.

    Examples
    --------
    >>> isinstance(ServerError("http://localhost:8080: unreachable"), IaaGateError)
    True
    """


class OutputError(IaaGateError):
    """A report or a file could not be written (or would overwrite one the user did not name).

    Parameters
    ----------
    message : str
        The file and why it could not be written.
    hint : str, optional
        What to do about it.

    Examples
    --------
    >>> str(OutputError("out/report.json: permission denied"))
    'out/report.json: permission denied'
    """


class MissingExtraError(IaaGateError):
    """The run needs a package this install lacks (an optional extra of iaa-gate); the hint is
    the one line that installs it.

    >>> print(MissingExtraError("matching regions", "scipy", "regions"))
    matching regions needs scipy, which is not installed (the 'regions' extra)
      hint: pip install "iaa-gate[regions]"
    """

    def __init__(self, what: str, module: str, extra: str) -> None:
        super().__init__(
            f"{what} needs {module}, which is not installed (the {extra!r} extra)",
            hint=f'pip install "iaa-gate[{extra}]"',
        )
        self.module = module
        self.extra = extra


class ConfigError(IaaGateError):
    """The config is invalid; every error is listed at once.

    Parameters
    ----------
    source : str
        The config file.
    problems : sequence of str
        Every error as ``path: message`` (kept as the list ``problems``).

    Examples
    --------
    >>> print(ConfigError("iaa-gate.yaml", ["fields.sentiment.level: unknown level 'nominl'"]))
    iaa-gate.yaml: 1 config error
      - fields.sentiment.level: unknown level 'nominl'
    """

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        lines = "\n".join(f"  - {p}" for p in problems)
        n = len(problems)
        super().__init__(f"{source}: {n} config error{'s' if n != 1 else ''}\n{lines}")
        self.problems = list(problems)


class InputError(IaaGateError):
    """An export or data problem: every one found, by task/line and field.

    The first 20 are shown in the message; ``problems`` holds all of them as text,
    ``structured`` as the :class:`Problem` records they were raised as.

    Parameters
    ----------
    source : str
        The input (a file path or a project).
    problems : sequence of str or Problem
        Every problem found; one given as plain text keeps it whole as its ``message``.
    hint : str, optional
        What to do about them.
    code : str
        The :class:`Reason` of the problems given as plain text.

    Examples
    --------
    >>> e = InputError("export.json", [Problem("task 7", "sentiment", Reason.INVALID_TASK,
    ...                                        "label 'X' is unknown")])
    >>> print(e)
    export.json: 1 problem(s)
      - task 7, field 'sentiment': label 'X' is unknown
    >>> e.structured[0].code
    'invalid_task'
    """

    def __init__(
        self,
        source: str,
        problems: Sequence[str | Problem],
        *,
        hint: str | None = None,
        code: str = Reason.INVALID_INPUT,
    ) -> None:
        shown = [str(p) for p in problems[:20]]
        more = f"\n  … and {len(problems) - 20} more" if len(problems) > 20 else ""
        lines = "\n".join(f"  - {p}" for p in shown)
        super().__init__(f"{source}: {len(problems)} problem(s)\n{lines}{more}", hint=hint)
        self.problems = [str(p) for p in problems]
        self.structured = [
            p if isinstance(p, Problem) else Problem("", None, code, p) for p in problems
        ]


def unreadable(path: str, exc: OSError | UnicodeDecodeError, *, encoding_hint: str) -> InputError:
    """The error for an input file that cannot be opened or is not UTF-8 text."""
    if isinstance(exc, UnicodeDecodeError):
        problem = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        return InputError(path, [problem], hint=encoding_hint)
    if isinstance(exc, FileNotFoundError):
        return InputError(path, ["file not found"], hint="check source.path or pass --source PATH")
    return InputError(path, [f"cannot read: {exc.strerror or exc}"])
