"""The fast path of a long-format table: read column by column with numpy (and pyarrow's
dictionary encoding when pyarrow loaded the table). The
reading rules of :mod:`.rules` run once per distinct cell (task id, annotator, field, time) and
once per distinct (field, value) pair, never once per row.

It covers tables without span fields whose every row reads cleanly, keeping the latest of
several answers to one question (task, annotator, field) as the row reader does. For anything
else :func:`read_columnwise` returns None: the row reader
(:meth:`.source.TableFile.read_by_row`) then reads the table and names every problem by its
row. The two give the same dataset (tested to agree).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...kinds import REGION_SHAPES
from ...kinds import kind as registered
from ...model import Columns, Dataset, FieldColumn, SourceStats, intern_all
from .config import TableSource
from .load import Loaded, of_arrow
from .rules import RowError, annotator, answer, field_name, seconds, task_id

Codes = np.ndarray[Any, np.dtype[np.int64]]
MAX_QUESTIONS = 2**62
"""The most (task, annotator, field) combinations whose number fits an int64 key; a table
with more (only a contrived one) is left to the row reader."""


def read_columnwise(table: Any, settings: TableSource) -> Dataset | None:
    """The dataset of ``table`` (:class:`.load.Loaded`, or a ``pyarrow.Table``, with the
    settings' columns), as the row reader gives it; None when the row reader must read it."""
    if not isinstance(table, Loaded):
        table = of_arrow(table)
    refused: tuple[type[Exception], ...] = (RowError,)
    if table.arrow is not None:
        import pyarrow as pa

        refused += (pa.ArrowException,)
    s, c = settings, settings.columns
    if not table.num_rows or any(k in REGION_SHAPES for k in s.kinds.values()):
        return None
    try:
        task, tasks = _task_ids(table, c.task)
        who, names = _distinct(table, c.annotator, annotator)
        field, fields = _distinct(table, c.field, field_name)
        when = _seconds(table, c.updated_at)
        raw, raws = _cells(table, c.value)
        pair = field * len(raws) + raw  # (field, value) per row
        pair_at, heads = _first_seen(pair, len(fields) * len(raws))
        values = [
            answer(
                s.kinds.get(fields[p // len(raws)], "choices"),
                raws[p % len(raws)],
                c.value,
                s.multiple_separator,
            )
            for p in pair[heads].tolist()
        ]
    except refused:
        return None
    answered = np.array([v is not None for v in values], dtype=bool)[pair_at]
    rows = np.flatnonzero(answered)
    if not len(rows) or len(tasks) * len(names) * len(fields) > MAX_QUESTIONS:
        return None
    task, who, field, pair_at, when = task[rows], who[rows], field[rows], pair_at[rows], when[rows]
    latest = _latest((task * len(names) + who) * len(fields) + field, pair_at, when)
    if latest is None:
        return None
    keep, superseded = latest
    stats = SourceStats(empty=table.num_rows - len(rows), superseded=superseded)
    return _columns(
        (task[keep], who[keep], field[keep], pair_at[keep], when[keep]),
        (tasks, names, fields, values),
        stats,
        s,
    )


def _latest(key: Codes, value: Codes, when: Any) -> tuple[Any, int] | None:
    """Where several rows answer one question (equal ``key``), the latest answer by ``when``,
    as the row reader keeps it: its value and time move to the question's first row, the other
    rows are dropped. Returns which rows to keep and how many were superseded; None when two
    answers have no time to order them (the row reader names them). Changes ``value`` and
    ``when`` in place.

    The row reader compares each answer with the latest before it: equal times are an error
    only then. Here each question's times become ranks offset by the question's number, so one
    running maximum over all of them is each question's latest-so-far."""
    if int(key.max()) < 4 * len(key) and np.bincount(key).max() < 2:  # no question twice
        return np.ones(len(key), dtype=bool), 0
    order = np.argsort(key, kind="stable")  # each question's rows together, in table order
    same = key[order[1:]] == key[order[:-1]]
    if not same.any():
        return np.ones(len(key), dtype=bool), 0
    repeated = np.zeros(len(key), dtype=bool)
    repeated[1:] |= same
    repeated[:-1] |= same
    rows = order[repeated]
    times = when[rows]
    if np.isnan(times).any():
        return None
    starts = np.concatenate(([True], key[rows[1:]] != key[rows[:-1]]))
    question = np.cumsum(starts) - 1
    rank = np.unique(times, return_inverse=True)[1].reshape(-1)
    ranked = question * (int(rank.max()) + 1) + rank
    before = np.maximum.accumulate(ranked)[:-1]  # the latest so far, up to the row before
    if (ranked[1:][~starts[1:]] == before[~starts[1:]]).any():
        return None
    latest = ranked == np.maximum.reduceat(ranked, np.flatnonzero(starts))[question]
    first, best = rows[starts], rows[latest]
    value[first], when[first] = value[best], when[best]
    keep = np.ones(len(key), dtype=bool)
    keep[rows[~starts]] = False
    return keep, len(rows) - len(first)


def _cells(table: Loaded, column: str) -> tuple[Codes, list[Any]]:
    """Each row's index into the column's distinct cells, and those cells as Python values in
    order of first appearance (None: an empty cell)."""
    if table.arrow is None:
        return table.cells(column)
    return _arrow_cells(table.arrow, column)


def _arrow_cells(table: Any, column: str) -> tuple[Codes, list[Any]]:
    """:func:`_cells` of a ``pyarrow.Table``, by its dictionary encoding."""
    chunks = table.column(column).dictionary_encode(null_encoding="encode").chunks
    cells = chunks[-1].dictionary
    if any(len(c.dictionary) != len(cells) for c in chunks):  # not one dictionary: combine
        return _arrow_cells(table.combine_chunks(), column)
    codes = np.concatenate([_ints(c.indices) for c in chunks]).astype(np.int64)
    return codes, cells.to_pylist()


def _ints(array: Any) -> Any:
    """A pyarrow array of integers (or times) without nulls as numpy, without a copy
    (``to_numpy`` imports pandas when it is installed; bench/README.md "2026-11-26 (5)")."""
    dtype = np.dtype(f"int{array.type.bit_width}")
    return np.frombuffer(array.buffers()[1], dtype, len(array), array.offset * dtype.itemsize)


def _seconds(table: Loaded, column: str) -> Any:
    """Each row's time in seconds since the epoch (NaN: none), as :func:`.rules.seconds` makes
    it of the cell. A time column without empty cells in whole seconds, milliseconds or
    microseconds is converted at once, exactly (an integer count of microseconds below 2^53
    over 10^6 is the same correctly rounded float); any other once per distinct cell."""
    if column not in table.column_names:
        return np.full(table.num_rows, math.nan)
    if table.arrow is not None and (ticks := _ticks(table.arrow, column)) is not None:
        return ticks
    at, times = _cells(table, column)
    return np.array([seconds(v, column) for v in times], dtype=np.float64)[at]


def _ticks(table: Any, column: str) -> Any:
    """A pyarrow time column's seconds converted at once (None: not such a column)."""
    import pyarrow as pa

    cells = table.column(column)
    per_second = {"s": 1, "ms": 10**3, "us": 10**6}
    if pa.types.is_timestamp(cells.type) and cells.type.unit in per_second and not cells.null_count:
        ticks = np.concatenate([_ints(chunk) for chunk in cells.chunks])
        if np.abs(ticks).max() < 2**53 // 10**6 * per_second[cells.type.unit]:
            return ticks / per_second[cells.type.unit]
    return None


def _distinct(
    table: Loaded, column: str, rule: Callable[[Any, str], Any]
) -> tuple[Codes, list[Any]]:
    """:func:`_cells` of ``column`` made by ``rule`` (RowError: a cell it refuses), equal values
    merged (a column of floats 0.0 and -0.0 names one task)."""
    codes, cells = _cells(table, column)
    made: list[Any] = []
    merged = intern_all({}, made, [rule(v, column) for v in cells])
    return merged[codes], made


def _task_ids(table: Loaded, column: str) -> tuple[Codes, list[Any]]:
    """:func:`_distinct` of the task column: an integer column of pyarrow's without empty
    cells gives its integers as they are (what :func:`.rules.task_id` makes of each), with no
    call per task."""
    if table.arrow is not None:
        import pyarrow as pa

        cells = table.arrow.column(column)
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
    group, heads = _first_seen(task * len(names) + who, len(tasks) * len(names))
    cols = Columns()  # an annotation per group, numbered in order of first row (its head)
    n = len(heads)
    t = _table(task[heads], tasks, cols.tasks, cols.task_index)
    a = _table(who[heads], names, cols.annotators, cols.annotator_index)
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
        code, seen = _first_seen(value[mine], len(values))
        made = [values[v] for v in value[mine][seen].tolist()]
        col.rows.frombytes(group[mine].tobytes())
        col.codes.frombytes(intern_all(col.index, col.values, made)[code].tobytes())
    return dataset_of(cols, stats, s)


def _first_seen(codes: Codes, size: int) -> tuple[Codes, Codes]:
    """Each of ``codes`` (integers in ``[0, size)``) renumbered in order of first appearance,
    and the row where each number first appears. Through tables of ``size`` when it is at most
    4× the rows (O(rows + size)), else by sorting."""
    n = len(codes)
    if size <= 4 * n:
        first = np.full(size, n, dtype=np.int64)
        np.minimum.at(first, codes, np.arange(n))
        heads: Codes = np.sort(first[first < n])
        number = np.empty(size, dtype=np.int64)
        number[codes[heads]] = np.arange(len(heads))
        return number[codes], heads
    _, seen, inverse = np.unique(codes, return_index=True, return_inverse=True)
    rank = np.empty(len(seen), dtype=np.int64)
    rank[np.argsort(seen)] = np.arange(len(seen))
    return rank[inverse.reshape(-1)], np.sort(seen)


def _table(codes: Codes, cells: list[Any], table: list[Any], index: dict[Any, int]) -> Codes:
    """``codes`` (indices into ``cells``, distinct values) as indices into ``table``, which is
    filled, with its ``index``, in order of first appearance (what interning each gives)."""
    number, heads = _first_seen(codes, len(cells))
    table += [cells[i] for i in codes[heads].tolist()]
    index.update(zip(table, range(len(table)), strict=True))
    return number


def _splits(kind: str) -> bool:
    """Whether a value cell of ``kind`` is split at the separator (a kind of several labels)."""
    k = registered(kind)
    return k is not None and k.multiple


def dataset_of(cols: Columns, stats: SourceStats, s: TableSource) -> Dataset:
    """The dataset over ``cols`` (one row per task and annotator), as both readers finish."""
    stats.tasks = len(cols.tasks)
    dataset = Dataset.of_columns(str(s.path), cols, list(cols.tasks), stats=stats)
    if s.multiple_separator is not None:
        dataset.declared_multiple = {
            name: True for name in cols.fields if _splits(s.kinds.get(name, "choices"))
        }
    return dataset
