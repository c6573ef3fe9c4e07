"""Reading rules of a table's cells, shared by the column-wise reader (:mod:`.columnwise`) and
the row reader (:mod:`.source`): each is written once here and called from both. A rule takes
one cell as pyarrow gives it in Python (None: an empty cell) and returns its value or raises
:class:`RowError`."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

from ...core.errors import Problem, Reason
from ...kinds import MAX_NUMBER, Answer, registry
from ...model import FieldValue, RegionSet, TaskId


class RowError(ValueError):
    """A row that cannot be read: what is wrong, and the ``column`` it is in (and the
    ``field`` the row answers, once known)."""

    def __init__(self, message: str, column: str | None = None, field: str | None = None):
        super().__init__(message)
        self.message, self.column, self.field = message, column, field

    def problem(self, row: int) -> Problem:
        part = None if self.column is None else f"column {self.column!r}"
        return Problem(f"row {row}", self.field, Reason.INVALID_ROW, self.message, part)


def text(v: Any) -> str:
    """A label as text: integers without ``.0``, everything else as ``str``."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def task_id(v: Any, column: str) -> TaskId:
    """A task cell as the task's id."""
    if isinstance(v, bool) or v is None or (isinstance(v, str) and not v.strip()):
        raise RowError("no task id", column)
    if isinstance(v, float):
        if not v.is_integer():
            raise RowError(f"task id {v!r} is not a whole number or text", column)
        return int(v)
    return v if isinstance(v, (int, str)) else str(v)


def annotator(v: Any, column: str) -> str:
    """An annotator cell as the annotator's name."""
    if v is None or isinstance(v, bool) or (isinstance(v, str) and not v.strip()):
        raise RowError("no annotator", column)
    return text(v)


def field_name(v: Any, column: str) -> str:
    """A field cell as the field's name."""
    if not isinstance(v, str) or not v.strip():
        raise RowError("no field name", column)
    return v


def seconds(v: Any, column: str) -> float:
    """A time cell in seconds since the epoch (NaN: no time)."""
    if v is None:
        return math.nan
    if isinstance(v, datetime):
        return (v if v.tzinfo else v.replace(tzinfo=timezone.utc)).timestamp()
    if isinstance(v, str):
        try:
            t = datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
        except ValueError:
            raise RowError(f"{v!r} is not an ISO 8601 time", column) from None
        return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).timestamp()
    raise RowError(f"{v!r} is not a time (ISO 8601 text)", column)


def number(v: Any, column: str) -> float:
    """A rating, number or span boundary cell as a finite float."""
    if isinstance(v, bool):
        raise RowError(f"{v!r} is a boolean, not a number", column)
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise RowError(f"{v!r} is not a number", column) from None
    if not abs(x) <= MAX_NUMBER:
        raise RowError(f"{v!r} is not a finite number of at most 1e150", column)
    return x


_ANSWERS = {name: k.answer for name, k in registry().items()}
"""What an answer of each kind is (a value cell is read as one)."""


def answer(kind: str, raw: Any, column: str, separator: str | None) -> Any:
    """The normalised answer of a value cell to a field of ``kind`` (None: no answer): a tuple
    of labels (split at ``separator`` when one is set), a float, or a text."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    what = _ANSWERS[kind]
    if what is Answer.NUMBER:
        return number(raw, column)
    if isinstance(raw, bool):
        raise RowError(f"{raw!r} is a boolean; quote it as a label", column)
    if what is Answer.TEXT:
        return str(raw)
    if isinstance(raw, list):
        return tuple(text(x) for x in raw if x is not None)
    if separator is not None:
        return tuple(x.strip() for x in str(raw).split(separator) if x.strip())
    return (text(raw),)


def replaces(
    known: tuple[int, float], later: tuple[int, float], task: TaskId, who: str, column: str
) -> bool:
    """Whether a row's answer replaces the one read before to the same question (task,
    annotator, field): each given as (row, time); the later time wins. :class:`RowError` when
    the times cannot say which is the latest (equal, or one missing)."""
    (row0, t0), (row, t) = known, later
    if math.isnan(t) or math.isnan(t0) or t == t0:
        raise RowError(
            f"rows {row0} and {row} both answer task {task!r} for annotator {who!r}, and column "
            f"{column!r} does not say which is the latest; keep one, or give both a time"
        )
    return t > t0


SPANS = "spans"
"""The kind of a span field's answers."""


def spans_of(spans: list[tuple[float, float, str]]) -> FieldValue:
    """One annotator's answer to a span field: its ``(start, end, label)`` rows as a region
    table, in order, numbered from 0."""
    rs = RegionSet("span")
    for k, (a, b, label) in enumerate(sorted(spans)):
        rs.ids.append(str(k))
        rs.labels.append(label)
        rs.coords += [a, b]
    return FieldValue(SPANS, "", rs)
