"""The fast path of a long-format table: read column by column with pyarrow and numpy. The
reading rules of :mod:`.rules` run once per distinct cell (task id, annotator, field, time) and
once per distinct (field, value) pair, never once per row.

It covers tables without span fields whose every row reads cleanly and gives each (task,
annotator, field) at most one answer. For anything else :func:`read_columnwise` returns None:
the row reader (:meth:`.source.TableFile.read_by_row`) then reads the table, which keeps the
latest of several answers or names every problem by its row. The two give the same dataset
(tested to agree).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...model import Columns, Dataset, FieldColumn, SourceStats, intern_all
from .config import TableSource
from .rules import RowError, annotator, answer, field_name, seconds, task_id

Codes = np.ndarray[Any, np.dtype[np.int64]]


def read_columnwise(table: Any, settings: TableSource) -> Dataset | None:
    """The dataset of ``table`` (a ``pyarrow.Table`` with the settings' columns), as the row
    reader gives it; None when the row reader must read it."""
    import pyarrow as pa

    s, c = settings, settings.columns
    if not table.num_rows or "spans" in s.kinds.values():
        return None
    try:
        task, tasks = _task_ids(table, c.task)
        who, names = _distinct(table, c.annotator, annotator)
        field, fields = _distinct(table, c.field, field_name)
        if c.updated_at in table.column_names:
            at, times = _cells(table, c.updated_at)
            when = np.array([seconds(v, c.updated_at) for v in times], dtype=np.float64)[at]
        else:
            when = np.full(table.num_rows, math.nan)
        raw, raws = _cells(table, c.value)
        pair = field * len(raws) + raw  # (field, value) per row
        pairs, pair_at = np.unique(pair, return_inverse=True)
        values = [
            answer(
                s.kinds.get(fields[p // len(raws)], "choices"),
                raws[p % len(raws)],
                c.value,
                s.multiple_separator,
            )
            for p in pairs.tolist()
        ]
    except (RowError, pa.ArrowException):
        return None
    answered = np.array([v is not None for v in values], dtype=bool)[pair_at]
    rows = np.flatnonzero(answered)
    if not len(rows):
        return None
    stats = SourceStats(empty=table.num_rows - len(rows))
    task, who, field, pair_at = task[rows], who[rows], field[rows], pair_at[rows]
    key = (task * len(names) + who) * len(fields) + field
    if len(np.unique(key)) < len(key):  # two answers to one question: the latest wins
        return None
    return _columns(
        (task, who, field, pair_at, when[rows]), (tasks, names, fields, values), stats, s
    )


def _cells(table: Any, column: str) -> tuple[Codes, list[Any]]:
    """Each row's index into the column's distinct cells, and those cells as Python values in
    order of first appearance (None: an empty cell)."""
    chunks = table.column(column).dictionary_encode(null_encoding="encode").chunks
    cells = chunks[-1].dictionary
    if any(len(c.dictionary) != len(cells) for c in chunks):  # not one dictionary: combine
        return _cells(table.combine_chunks(), column)
    codes = np.concatenate([_ints(c.indices) for c in chunks]).astype(np.int64)
    return codes, cells.to_pylist()


def _ints(indices: Any) -> Any:
    """A pyarrow array of integers without nulls as numpy, without a copy (``to_numpy``
    imports pandas when it is installed: 0.27 s)."""
    dtype = np.dtype(f"int{indices.type.bit_width}")
    return np.frombuffer(indices.buffers()[1], dtype, len(indices), indices.offset * dtype.itemsize)


def _distinct(table: Any, column: str, rule: Callable[[Any, str], Any]) -> tuple[Codes, list[Any]]:
    """:func:`_cells` of ``column`` made by ``rule`` (RowError: a cell it refuses), equal values
    merged (a column of floats 0.0 and -0.0 names one task)."""
    codes, cells = _cells(table, column)
    made: list[Any] = []
    merged = intern_all({}, made, [rule(v, column) for v in cells])
    return merged[codes], made


def _task_ids(table: Any, column: str) -> tuple[Codes, list[Any]]:
    """:func:`_distinct` of the task column: an integer column without empty cells gives its
    integers as they are (what :func:`.rules.task_id` makes of each), with no call per task."""
    import pyarrow as pa

    cells = table.column(column)
    if pa.types.is_integer(cells.type) and not cells.null_count:
        return _cells(table, column)
    return _distinct(table, column, task_id)


def _columns(
    rows: tuple[Codes, Codes, Codes, Codes, Any],
    tables: tuple[list[Any], list[str], list[str], list[Any]],
    stats: SourceStats,
    s: TableSource,
) -> Dataset:
    """The dataset of the answered rows: ``rows`` holds each row's task, annotator, field and
    answer (indices into ``tables``) and time, in table order. As the row reader builds it: an
    annotation per (task, annotator) in order of first row, its fields in name order."""
    task, who, field, value, when = rows
    tasks, names, fields, values = tables
    pair = task * len(names) + who
    _, first, group = np.unique(pair, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    group = rank[group]  # each row's annotation, numbered in order of first row
    heads = np.sort(first)  # each annotation's first row
    cols = Columns()
    n = len(heads)
    t = intern_all(cols.task_index, cols.tasks, [tasks[i] for i in task[heads].tolist()])
    a = intern_all(cols.annotator_index, cols.annotators, [names[i] for i in who[heads].tolist()])
    updated = np.full(n, math.nan)
    np.fmax.at(updated, group, when)  # the latest time given (NaN: none)
    cols.task.frombytes(t.tobytes())
    cols.annotator.frombytes(a.tobytes())
    cols.created.frombytes(np.full(n, math.nan).tobytes())
    cols.updated.frombytes(updated.tobytes())
    cols.ground_truth.frombytes(bytes(n))
    cols.skipped.frombytes(bytes(n))
    cols.annotation_ids = [None] * n
    stats.annotations = n
    earliest = np.full(len(fields), n, dtype=np.int64)
    np.minimum.at(earliest, field, group)
    for f in sorted(np.flatnonzero(earliest < n).tolist(), key=lambda f: (earliest[f], fields[f])):
        mine = np.flatnonzero(field == f)
        mine = mine[np.argsort(group[mine], kind="stable")]
        col = cols.fields[fields[f]] = FieldColumn(s.kinds.get(fields[f], "choices"))
        distinct, seen, code = np.unique(value[mine], return_index=True, return_inverse=True)
        order = np.argsort(seen)
        interned = np.empty(len(distinct), dtype=np.int64)
        interned[order] = intern_all(
            col.index, col.values, [values[v] for v in distinct[order].tolist()]
        )
        col.rows.frombytes(group[mine].tobytes())
        col.codes.frombytes(interned[code].tobytes())
    return dataset_of(cols, stats, s)


def dataset_of(cols: Columns, stats: SourceStats, s: TableSource) -> Dataset:
    """The dataset over ``cols`` (one row per task and annotator), as both readers finish."""
    stats.tasks = len(cols.tasks)
    dataset = Dataset.of_columns(str(s.path), cols, list(cols.tasks), stats=stats)
    if s.multiple_separator is not None:
        dataset.declared_multiple = {
            name: True for name in cols.fields if s.kinds.get(name, "choices") == "choices"
        }
    return dataset
