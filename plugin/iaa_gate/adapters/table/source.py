"""A long-format table, one row per answer (per span for spans).

Every table is read column by column (:mod:`.columnwise`, the latest of repeated answers kept,
malformed rows skipped under ``skip_invalid``); a table with a problem and without
``skip_invalid`` is read here row by row, which names every problem. Rows are numbered as a
person finds them: in CSV and TSV files as a spreadsheet shows them (the header is row 1), in
JSON Lines by line, in Parquet from 1. Every problem names the row, the column and what to do;
``skip_invalid`` counts and skips malformed rows instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.errors import InputError, Problem
from ...core.extras import needed
from ...kinds import REGION_SHAPES
from ...model import Columns, Dataset, FieldValue, SourceStats, TaskId
from .columnwise import dataset_of, read_columnwise
from .config import TableSource
from .load import Loaded, arrow, of_arrow, read_arrow, read_csv, read_jsonl
from .rules import (
    RowError,
    annotator,
    answer,
    field_name,
    number,
    replaces,
    seconds,
    spans_of,
    task_id,
    text,
)

ARROW_FORMATS = frozenset({"csv", "tsv", "jsonl"})
"""The formats pyarrow loads when it is installed (faster for each, at 10^5 and 10^6 rows:
bench/README.md "Table loaders"); without it the standard library and msgspec load them."""
DELIMITERS = {"csv": ",", "tsv": "\t"}
FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".jsonl": "jsonl"}
MAX_PROBLEMS = 50


def read_table(path: Path, fmt: str) -> Loaded:
    """The file's columns: with pyarrow when it is installed or the format is Parquet, else
    with the standard library (CSV, TSV) or msgspec (JSON Lines) (:mod:`.load`)."""
    try:
        if fmt == "parquet" or (arrow() and fmt in ARROW_FORMATS):
            return _arrow(path, fmt)
        return read_jsonl(path) if fmt == "jsonl" else read_csv(path, DELIMITERS[fmt])
    except FileNotFoundError:
        raise InputError(
            str(path), ["file not found"], hint="check source.path or pass --source PATH"
        ) from None
    except OSError as exc:
        raise InputError(str(path), [f"not a readable {fmt.upper()} table: {exc}"]) from None


def _arrow(path: Path, fmt: str) -> Loaded:
    """:func:`.load.read_arrow`, its errors worded as the table's."""
    with needed("table"):  # MissingExtraError: the line that installs it
        import pyarrow as pa
    try:
        loaded = read_arrow(path, fmt)
        if fmt in DELIMITERS and any(pa.types.is_binary(f.type) for f in loaded.arrow.schema):
            # pyarrow reads a column that is not UTF-8 as bytes: the core's loader names its row
            raise pa.ArrowInvalid("not UTF-8")
        return loaded
    except pa.ArrowException as exc:
        if fmt in ARROW_FORMATS:  # the core's loader names the row (or reads what pyarrow
            # refused only for typing its first block of rows one way and a later one another)
            return read_jsonl(path) if fmt == "jsonl" else read_csv(path, DELIMITERS[fmt])
        raise InputError(
            str(path),
            [f"not a readable {fmt.upper()} table: {exc}"],
            hint="check source.format, or export the table again",
        ) from None


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
        table = read_table(self.settings.path, self.fmt)
        self._check_columns(table.column_names)
        return read_columnwise(table, self.settings, self.first) or self.read_by_row(table)

    @property
    def first(self) -> int:
        """The number a person sees on the first row: in CSV and TSV files as a spreadsheet
        shows it (the header is row 1), else 1."""
        return 2 if self.fmt in ("csv", "tsv") else 1

    def _check_columns(self, names: list[str]) -> None:
        s, c = self.settings, self.settings.columns
        required = [c.task, c.annotator, c.field]
        if any(k in REGION_SHAPES for k in s.kinds.values()):
            required += [c.start, c.end, c.label]
        else:  # with span fields only, a table may have no value column
            required.append(c.value)
        missing = [name for name in required if name not in names]
        if missing:
            other = {",": "comma", "\t": "tab"}
            split = [d for d in other if len(names) == 1 and d in names[0]]
            raise InputError(
                str(s.path),
                [f"no column {', '.join(map(repr, missing))} (the columns are {names})"],
                hint=f"the header is {other[split[0]]}-separated: set source.format (csv or tsv)"
                " or rename the file"
                if split
                else "name the columns under source.columns, e.g. columns: {task: item_id}",
            )

    def read_by_row(self, table: Any) -> Dataset:
        """The dataset of ``table`` (:class:`.load.Loaded`, or a ``pyarrow.Table``) read row by
        row: every rule checked on every row, the latest of several answers kept, every
        problem named by its row."""
        s = self.settings
        if not isinstance(table, Loaded):
            table = of_arrow(table)
        data = {name: table.pylist(name) for name in table.column_names}
        n = table.num_rows
        spans = {f for f, k in s.kinds.items() if k in REGION_SHAPES}
        first = self.first
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
        task = task_id(data[c.task][i], c.task)
        who = annotator(data[c.annotator][i], c.annotator)
        name = field_name(data[c.field][i], c.field)
        try:
            self._answer(i, row, data, empty, spans, answers, stats, task, who, name)
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
        updated = seconds(data.get(c.updated_at, empty)[i], c.updated_at)
        key = (task, who, name)
        if kind in REGION_SHAPES:
            start, end = data[c.start][i], data[c.end][i]
            span = None
            if start is not None or end is not None:
                a, b = number(start, c.start), number(end, c.end)
                if b < a:
                    raise RowError(f"{end!r} is before start {start!r}", c.end)
                label = data[c.label][i]
                span = (a, b, "" if label is None else text(label))
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
        value = answer(kind, data[c.value][i], c.value, s.multiple_separator)
        if value is None:
            stats.empty += 1
            return
        known = answers.get(key)
        if known is not None:
            newer = replaces((known.row, known.updated), (row, updated), task, who, c.updated_at)
            stats.superseded += 1
            if not newer:
                return
        answers[key] = _Answer(row, updated, value)

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
                    cols.value(row, name, spans_of(ans.spans))
                else:
                    cols.value(row, name, FieldValue(kind, ans.value))
        stats.annotations = len(rows)
        return dataset_of(cols, stats, s)
