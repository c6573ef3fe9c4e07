"""A long-format table read column-wise with pyarrow, one row per answer (per span for spans).

Rows are numbered as a person finds them: in CSV and TSV files as a spreadsheet shows them (the
header is row 1), in JSON Lines by line, in Parquet from 1. Every problem names the row, the
column and what to do; ``skip_invalid`` counts and skips malformed rows instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...core.errors import InputError, Problem
from ...model import Columns, Dataset, FieldValue, RegionSet, SourceStats, TaskId
from .config import TableSource

MAX_NUMBER = 1e150
"""Largest rating or number magnitude: squared differences of larger ones overflow."""
FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".jsonl": "jsonl"}
INSTALL = 'install the table extra: pip install "iaa-gate[table]" (pyarrow)'
MAX_PROBLEMS = 50


class RowError(ValueError):
    """A row that cannot be read: what is wrong, and the ``column`` it is in (and the
    ``field`` the row answers, once known)."""

    def __init__(self, message: str, column: str | None = None, field: str | None = None):
        super().__init__(message)
        self.message, self.column, self.field = message, column, field

    def problem(self, row: int) -> Problem:
        part = None if self.column is None else f"column {self.column!r}"
        return Problem(f"row {row}", self.field, "invalid_row", self.message, part)


def read_columns(path: Path, fmt: str) -> dict[str, list[Any]]:
    """The file's columns as lists, one item per row (None: an empty cell)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise InputError(str(path), ["reading a table needs pyarrow"], hint=INSTALL) from None
    try:
        if fmt in ("csv", "tsv"):
            from pyarrow import csv

            table = csv.read_csv(
                path,
                parse_options=csv.ParseOptions(delimiter="\t" if fmt == "tsv" else ","),
                convert_options=csv.ConvertOptions(strings_can_be_null=True),
            )
        elif fmt == "parquet":
            from pyarrow import parquet

            table = parquet.read_table(path)
        else:
            from pyarrow import json

            table = json.read_json(path)
    except FileNotFoundError:
        raise InputError(
            str(path), ["file not found"], hint="check source.path or pass --source PATH"
        ) from None
    except (pa.ArrowException, OSError) as exc:
        raise InputError(
            str(path),
            [f"not a readable {fmt.upper()} table: {exc}"],
            hint="check source.format, or export the table again",
        ) from None
    return {name: table.column(name).to_pylist() for name in table.column_names}


def _text(v: Any) -> str:
    """A label as text: integers without ``.0``, everything else as ``str``."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _task(v: Any, column: str) -> TaskId:
    if isinstance(v, bool) or v is None or (isinstance(v, str) and not v.strip()):
        raise RowError("no task id", column)
    if isinstance(v, float):
        if not v.is_integer():
            raise RowError(f"task id {v!r} is not a whole number or text", column)
        return int(v)
    return v if isinstance(v, (int, str)) else str(v)


def _time(v: Any, column: str) -> float:
    """Seconds since the epoch (NaN: no time)."""
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


def _number(v: Any, column: str) -> float:
    if isinstance(v, bool):
        raise RowError(f"{v!r} is a boolean, not a number", column)
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise RowError(f"{v!r} is not a number", column) from None
    if not abs(x) <= MAX_NUMBER:
        raise RowError(f"{v!r} is not a finite number of at most 1e150", column)
    return x


@dataclass
class _Answer:
    """One annotator's answer to one field of one task, as read so far."""

    row: int
    updated: float
    value: Any = None
    spans: list[tuple[float, float, str]] = field(default_factory=list)


@dataclass
class TableFile:
    """Source for a long-format table (see :class:`~.config.TableSource`)."""

    settings: TableSource

    @property
    def fmt(self) -> str:
        s = self.settings
        fmt = s.format or FORMATS.get(s.path.suffix.lower())
        if fmt is None:
            raise InputError(
                str(s.path),
                [f"cannot tell the format from the suffix {s.path.suffix!r}"],
                hint="set source.format: csv, tsv, parquet or jsonl",
            )
        return fmt

    def load(self) -> Dataset:
        s, c = self.settings, self.settings.columns
        data = read_columns(s.path, self.fmt)
        spans = {f for f, k in s.kinds.items() if k == "spans"}
        required = [c.task, c.annotator, c.field]
        if not spans:  # with span fields only, a table may have no value column
            required.append(c.value)
        if spans:
            required += [c.start, c.end, c.label]
        missing = [name for name in required if name not in data]
        if missing:
            raise InputError(
                str(s.path),
                [f"no column {', '.join(map(repr, missing))} (the columns are {list(data)})"],
                hint="name the columns under source.columns, e.g. columns: {task: item_id}",
            )
        n = len(data[c.task])
        first = 2 if self.fmt in ("csv", "tsv") else 1  # the row number a person sees
        stats = SourceStats()
        answers: dict[tuple[TaskId, str, str], _Answer] = {}
        problems: list[Problem] = []
        empty = [None] * n
        for i in range(n):
            row = i + first
            try:
                self._row(i, row, data, empty, spans, answers, stats)
            except RowError as exc:
                problem = exc.problem(row)
                if not s.skip_invalid:
                    problems.append(problem)
                    if len(problems) >= MAX_PROBLEMS:
                        break
                else:
                    stats.skip_invalid(problem)
        if problems:
            raise InputError(
                str(s.path),
                problems,
                hint="fix the table, or set source.skip_invalid: true to skip and count "
                "malformed rows",
            )
        return self._dataset(answers, spans, stats)

    def _row(
        self,
        i: int,
        row: int,
        data: dict[str, list[Any]],
        empty: list[None],
        spans: set[str],
        answers: dict[tuple[TaskId, str, str], _Answer],
        stats: SourceStats,
    ) -> None:
        c = self.settings.columns
        task = _task(data[c.task][i], c.task)
        who = data[c.annotator][i]
        if who is None or isinstance(who, bool) or (isinstance(who, str) and not who.strip()):
            raise RowError("no annotator", c.annotator)
        name = data[c.field][i]
        if not isinstance(name, str) or not name.strip():
            raise RowError("no field name", c.field)
        try:
            self._answer(i, row, data, empty, spans, answers, stats, task, _text(who), name)
        except RowError as exc:
            exc.field = exc.field or name
            raise

    def _answer(
        self,
        i: int,
        row: int,
        data: dict[str, list[Any]],
        empty: list[None],
        spans: set[str],
        answers: dict[tuple[TaskId, str, str], _Answer],
        stats: SourceStats,
        task: TaskId,
        who: str,
        name: str,
    ) -> None:
        """Row ``row``'s answer of annotator ``who`` to field ``name`` of ``task``."""
        s, c = self.settings, self.settings.columns
        kind = s.kinds.get(name, "choices")
        updated = _time(data.get(c.updated_at, empty)[i], c.updated_at)
        key = (task, who, name)
        if kind == "spans":
            start, end = data[c.start][i], data[c.end][i]
            span = None
            if start is not None or end is not None:
                a, b = _number(start, c.start), _number(end, c.end)
                if b < a:
                    raise RowError(f"{end!r} is before start {start!r}", c.end)
                label = data[c.label][i]
                span = (a, b, "" if label is None else _text(label))
            known = answers.get(key)
            if known is None or updated > known.updated:
                if known is not None:
                    stats.superseded += 1
                known = answers[key] = _Answer(row, updated)
            elif updated < known.updated:
                stats.superseded += 1
                return
            if span is not None:
                known.spans.append(span)
            return
        if c.value not in data:
            raise RowError(f"no column {c.value!r} for a {kind} field")
        value = self._value(kind, data[c.value][i])
        if value is None:
            stats.empty += 1
            return
        known = answers.get(key)
        if known is not None:
            if math.isnan(updated) or math.isnan(known.updated) or updated == known.updated:
                raise RowError(
                    f"rows {known.row} and {row} both answer task {task!r} for annotator "
                    f"{who!r}, and column {c.updated_at!r} does not say which is the latest; "
                    "keep one, or give both a time"
                )
            stats.superseded += 1
            if updated < known.updated:
                return
        answers[key] = _Answer(row, updated, value)

    def _value(self, kind: str, raw: Any) -> Any:
        """The normalised value of one cell (None: no answer)."""
        column = self.settings.columns.value
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return None
        if kind in ("rating", "number"):
            return _number(raw, column)
        if isinstance(raw, bool):
            raise RowError(f"{raw!r} is a boolean; quote it as a label", column)
        if kind == "textarea":
            return str(raw)
        sep = self.settings.multiple_separator
        if isinstance(raw, list):
            labels = tuple(_text(x) for x in raw if x is not None)
        elif sep is not None:
            labels = tuple(x.strip() for x in str(raw).split(sep) if x.strip())
        else:
            labels = (_text(raw),)
        return labels

    def _dataset(
        self,
        answers: dict[tuple[TaskId, str, str], _Answer],
        spans: set[str],
        stats: SourceStats,
    ) -> Dataset:
        s = self.settings
        cols = Columns()
        rows: dict[tuple[TaskId, str], int] = {}
        by_annotation: dict[tuple[TaskId, str], list[tuple[str, _Answer]]] = {}
        for (task, who, name), ans in answers.items():
            by_annotation.setdefault((task, who), []).append((name, ans))
        for (task, who), fields in by_annotation.items():
            times = [a.updated for _, a in fields if not math.isnan(a.updated)]
            row = rows[task, who] = cols.row(task, who, math.nan, max(times, default=math.nan))
            for name, ans in sorted(fields, key=lambda f: f[0]):
                kind = s.kinds.get(name, "choices")
                if name in spans:
                    rs = RegionSet("span")
                    for k, (a, b, label) in enumerate(sorted(ans.spans)):
                        rs.ids.append(str(k))
                        rs.labels.append(label)
                        rs.coords += [a, b]
                    cols.value(row, name, FieldValue("spans", "", rs))
                else:
                    cols.value(row, name, FieldValue(kind, ans.value))
        stats.tasks = len(cols.tasks)
        stats.annotations = len(rows)
        dataset = Dataset.of_columns(str(s.path), cols, list(cols.tasks), stats=stats)
        if s.multiple_separator is not None:
            dataset.declared_multiple = {
                name: True for name in cols.fields if s.kinds.get(name, "choices") == "choices"
            }
        return dataset
