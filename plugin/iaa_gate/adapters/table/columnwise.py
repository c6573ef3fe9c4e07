"""The fast path of a long-format table: read column by column with numpy (and pyarrow's
dictionary encoding when pyarrow loaded the table). The
reading rules of :mod:`.rules` run once per distinct cell (task id, annotator, field, time) and
once per distinct (field, value) pair, never once per row.

It reads every table: span fields (one row per span) too, the latest of several answers to one
question (task, annotator, field) kept as the row reader keeps it, and under ``skip_invalid``
the malformed rows skipped with the problems the row reader gives. Only a table with a problem
and without ``skip_invalid`` is left to the row reader (:func:`read_columnwise` returns None),
which words every problem by its row (:meth:`.source.TableFile.read_by_row`). The two give the
same dataset (tested to agree).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ...kinds import REGION_SHAPES
from ...kinds import kind as registered
from ...model import Columns, Dataset, FieldColumn, SourceStats, intern_all
from .config import TableSource
from .load import Loaded, of_arrow
from .rules import (
    SPANS,
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

Codes = np.ndarray[Any, np.dtype[np.int64]]
MAX_QUESTIONS = 2**62
"""The most (task, annotator, field) combinations whose number fits an int64 key; a table
with more (only a contrived one) is left to the row reader."""


def read_columnwise(table: Any, settings: TableSource, first: int = 1) -> Dataset | None:
    """The dataset of ``table`` (:class:`.load.Loaded`, or a ``pyarrow.Table``, with the
    settings' columns), as the row reader gives it; None when the row reader must word a
    problem (a malformed row without ``skip_invalid``). ``first``: the number a person sees on
    the table's first row (the problems of the rows skipped under ``skip_invalid`` name it)."""
    if not isinstance(table, Loaded):
        table = of_arrow(table)
    refused: tuple[type[Exception], ...] = ()
    if table.arrow is not None:
        import pyarrow as pa

        refused = (pa.ArrowException,)
    if not table.num_rows:
        return None
    try:
        return _read(table, settings, first)
    except refused:
        return None


def _read(table: Loaded, s: TableSource, first: int) -> Dataset | None:
    c = s.columns
    task, tasks, bad = _task_ids(table, c.task)
    who, names, bad_who = _distinct(table, c.annotator, annotator)
    field, fields, bad_field = _distinct(table, c.field, field_name)
    when, bad_when = _seconds(table, c.updated_at)
    kinds: list[str] = [s.kinds.get(f, "choices") for f in fields]
    span_field = np.array([k in REGION_SHAPES for k in kinds], dtype=bool)
    problems = _Problems(table.num_rows)
    problems.add(bad)
    problems.add(bad_who)
    problems.add(bad_field)
    problems.add(bad_when, fields, field)  # from here on, a problem is in the row's field
    spans = span_field[field] & problems.ok()
    scalar = ~span_field[field] & problems.ok()
    pair_at: Codes = np.zeros(table.num_rows, dtype=np.int64)
    values: list[Any] = []
    if scalar.any():
        if c.value not in table.column_names:
            missing: list[RowError | None] = [
                RowError(f"no column {c.value!r} for a {k} field") for k in kinds
            ]
            problems.add((field, missing), fields, field, scalar)
        else:
            raw, raws = _cells(table, c.value)
            pair = field * len(raws) + raw  # (field, value) per row
            pair_at, heads = _first_seen(pair, len(fields) * len(raws))
            made = [
                _made(
                    answer,
                    kinds[p // len(raws)],
                    raws[p % len(raws)],
                    c.value,
                    s.multiple_separator,
                )
                for p in pair[heads].tolist()
            ]
            values = [v for v, _ in made]
            problems.add((pair_at, [e for _, e in made]), fields, field, scalar)
        scalar &= problems.ok()
    bounds = _bounds(table, s, spans, problems, fields, field) if spans.any() else None
    spans &= problems.ok()
    if problems.any() and not s.skip_invalid:
        return None  # the row reader words every problem
    if values:
        answered = scalar & np.array([v is not None for v in values], dtype=bool)[pair_at]
    else:
        answered = np.zeros(table.num_rows, dtype=bool)
    stats = SourceStats(empty=int(np.count_nonzero(scalar & ~answered)))
    if len(tasks) * len(names) * len(fields) > MAX_QUESTIONS:
        return None
    question = (task * len(names) + who) * len(fields) + field
    rows = np.flatnonzero(answered)
    value, at = pair_at[rows], when[rows]
    latest = _latest(question[rows], value, at)
    if latest is None:
        if not s.skip_invalid:
            return None
        latest = _latest_in_order(
            rows,
            question,
            value,
            at,
            problems,
            first,
            (tasks, task, names, who, fields, field),
            c.updated_at,
        )
    keep, superseded = latest
    stats.superseded = superseded
    kept = rows[keep]
    value, at = value[keep], at[keep]
    found: dict[int, list[tuple[float, float, str]]] = {}
    if bounds is not None and spans.any():
        span_rows, span_at, span_superseded, found = _span_answers(
            np.flatnonzero(spans), question, when, bounds
        )
        stats.superseded += span_superseded
        order = np.argsort(np.concatenate([kept, span_rows]), kind="stable")
        kept = np.concatenate([kept, span_rows])[order]
        value = np.concatenate([value, np.full(len(span_rows), -1)])[order]
        at = np.concatenate([at, span_at])[order]
    problems.skipped(stats, first)
    if not len(kept):
        return None  # nothing answered: the row reader's empty dataset
    return _columns(
        (kept, task[kept], who[kept], field[kept], value, at),
        (tasks, names, fields, values, kinds),
        found,
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
    if not len(key):
        return np.ones(0, dtype=bool), 0
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


def _seconds(table: Loaded, column: str) -> tuple[Any, Bad]:
    """Each row's time in seconds since the epoch (NaN: none, or a cell the rule refuses), as
    :func:`.rules.seconds` makes it of the cell, and the refusals. A time column without empty
    cells in whole seconds, milliseconds or microseconds is converted at once, exactly (an
    integer count of microseconds below 2^53 over 10^6 is the same correctly rounded float);
    any other once per distinct cell."""
    none: Bad = (np.zeros(table.num_rows, dtype=np.int64), [None])
    if column not in table.column_names:
        return np.full(table.num_rows, math.nan), none
    if table.arrow is not None and (ticks := _ticks(table.arrow, column)) is not None:
        return ticks, none
    at, times = _cells(table, column)
    made = [_made(seconds, v, column) for v in times]
    when = np.array([math.nan if v is None else v for v, _ in made], dtype=np.float64)[at]
    return when, (at, [e for _, e in made])


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
) -> tuple[Codes, list[Any], Bad]:
    """:func:`_cells` of ``column`` made by ``rule``, equal values merged (a column of floats
    0.0 and -0.0 names one task), and the cells it refuses."""
    codes, cells = _cells(table, column)
    made = [_made(rule, v, column) for v in cells]
    values: list[Any] = []
    merged = intern_all({}, values, [v for v, _ in made])
    return merged[codes], values, (codes, [e for _, e in made])


def _task_ids(table: Loaded, column: str) -> tuple[Codes, list[Any], Bad]:
    """:func:`_distinct` of the task column: an integer column of pyarrow's without empty
    cells gives its integers as they are (what :func:`.rules.task_id` makes of each), with no
    call per task."""
    if table.arrow is not None:
        import pyarrow as pa

        cells = table.arrow.column(column)
        if pa.types.is_integer(cells.type) and not cells.null_count:
            codes, ids = _cells(table, column)
            return codes, ids, (np.zeros(len(codes), dtype=np.int64), [None])
    return _distinct(table, column, task_id)


Bad = tuple[Codes, list[RowError | None]]
"""Where a rule refused cells: each row's code and, per code, the refusal (None: read)."""


def _made(rule: Callable[..., Any], *args: Any) -> tuple[Any, RowError | None]:
    """``rule(*args)``, or None and the :class:`RowError` it raised."""
    try:
        return rule(*args), None
    except RowError as exc:
        return None, exc


class _Problems:
    """Each row's first problem, found column by column in the order the row reader checks
    the rules (task, annotator, field, time, then the answer)."""

    def __init__(self, rows: int) -> None:
        self.at: dict[int, tuple[RowError, str | None]] = {}
        self.bad = np.zeros(rows, dtype=bool)

    def add(
        self,
        bad: Bad,
        fields: list[str] | None = None,
        field: Codes | None = None,
        where: Any = None,
    ) -> None:
        """The refusals ``bad`` of the rows (``where``) without a problem yet; ``fields`` and
        ``field``: the field each row answers, which the problem names."""
        codes, errors = bad
        refused = np.array([e is not None for e in errors], dtype=bool)[codes] & ~self.bad
        if where is not None:
            refused &= where
        for i in np.flatnonzero(refused).tolist():
            name = None if fields is None or field is None else fields[int(field[i])]
            self.set(i, cast("RowError", errors[int(codes[i])]), name)

    def set(self, i: int, error: RowError, field: str | None) -> None:
        self.at[i] = (error, field)
        self.bad[i] = True

    def ok(self) -> Any:
        return ~self.bad

    def any(self) -> bool:
        return bool(self.at)

    def skipped(self, stats: SourceStats, first: int) -> None:
        """Count the rows with a problem as skipped, in row order, as the row reader does."""
        for i in sorted(self.at):
            error, field = self.at[i]
            stats.skip_invalid(RowError(error.message, error.column, field).problem(i + first))


def _bounds(
    table: Loaded, s: TableSource, spans: Any, problems: _Problems, fields: list[str], field: Codes
) -> tuple[Any, Any, list[str], Any]:
    """Each span row's start and end, its label as text and whether it has a span (a row of
    neither start nor end answers with no span); problems of the rows of ``spans`` that have
    a bound (not a number, an end before the start) into ``problems``."""
    c = s.columns
    at_start, starts = _cells(table, c.start)
    at_end, ends = _cells(table, c.end)
    at_label, labels = _cells(table, c.label)
    empty = np.array([v is None for v in starts], dtype=bool)[at_start]
    has = ~(empty & np.array([v is None for v in ends], dtype=bool)[at_end])
    made_start = [_made(number, v, c.start) for v in starts]
    made_end = [_made(number, v, c.end) for v in ends]
    problems.add((at_start, [e for _, e in made_start]), fields, field, spans & has)
    problems.add((at_end, [e for _, e in made_end]), fields, field, spans & has)
    a = np.array([math.nan if v is None else v for v, _ in made_start], dtype=np.float64)
    b = np.array([math.nan if v is None else v for v, _ in made_end], dtype=np.float64)
    a, b = a[at_start], b[at_end]
    for i in cast("list[int]", np.flatnonzero(spans & has & problems.ok() & (b < a)).tolist()):
        start, end = starts[int(at_start[i])], ends[int(at_end[i])]
        error = RowError(f"{end!r} is before start {start!r}", c.end)
        problems.set(i, error, fields[int(field[i])])
    text_of = ["" if v is None else text(v) for v in labels]
    return a, b, [text_of[k] for k in cast("list[int]", at_label.tolist())], has


def _span_answers(
    rows: Codes, question: Codes, when: Any, bounds: tuple[Any, Any, list[str], Any]
) -> tuple[Codes, Any, int, dict[int, list[tuple[float, float, str]]]]:
    """The answers of the span rows ``rows`` (in table order), as the row reader keeps them:
    one per question (task, annotator, field), at its first row, with the time and spans of
    its latest. A row with a later time than the question's answer so far starts a new answer
    (the old one superseded); one with an earlier time is superseded; one with the same time or
    none adds its span (a question whose first row has no time is one answer). Returns the
    first rows, the answers' times, how many were superseded and each first row's spans."""
    a, b, label, has = bounds
    order = np.argsort(question[rows], kind="stable")
    at = rows[order]
    key, t = question[at], when[at]
    starts = np.concatenate(([True], key[1:] != key[:-1]))
    group = np.cumsum(starts) - 1
    heads = np.flatnonzero(starts)
    pinned = np.isnan(t[heads])[group]
    timed = ~np.isnan(t)
    rank = np.full(len(t), -1, dtype=np.int64)
    rank[timed] = np.unique(t[timed], return_inverse=True)[1].reshape(-1)
    ranked = group * (int(rank.max()) + 2) + rank + 1
    before = np.concatenate(([-1], np.maximum.accumulate(ranked)[:-1]))  # the latest so far
    later = ~starts & ~pinned & (ranked > before)
    earlier = ~starts & ~pinned & timed & (ranked < before)
    begins = np.maximum.accumulate(np.where(starts | later, np.arange(len(t)), 0))
    last = np.concatenate((heads[1:], [len(t)])) - 1
    final = begins[last][group]  # where each question's last answer begins
    kept = (begins == final) & ~earlier & has[at]
    found: dict[int, list[tuple[float, float, str]]] = {int(r): [] for r in at[heads].tolist()}
    firsts = at[heads][group]
    for i, head in zip(at[kept].tolist(), firsts[kept].tolist(), strict=True):
        found[head].append((float(a[i]), float(b[i]), label[i]))
    superseded = int(np.count_nonzero(later) + np.count_nonzero(earlier))
    return at[heads], t[final[heads]], superseded, found


def _latest_in_order(
    rows: Codes,
    question: Codes,
    value: Codes,
    when: Any,
    problems: _Problems,
    first: int,
    who: tuple[list[Any], Codes, list[str], Codes, list[str], Codes],
    column: str,
) -> tuple[Any, int]:
    """:func:`_latest` where two answers to a question cannot be ordered, row by row (under
    ``skip_invalid``, which skips the later of the two): :func:`.rules.replaces` decides."""
    tasks, task, names, annotators, fields, field = who
    first_of: dict[int, int] = {}
    latest: dict[int, int] = {}
    keep = np.zeros(len(rows), dtype=bool)
    superseded = 0
    for p, i in enumerate(cast("list[int]", rows.tolist())):
        q = int(question[i])
        if q not in first_of:
            first_of[q] = latest[q] = p
            keep[p] = True
            continue
        j = latest[q]
        try:
            newer = replaces(
                (int(rows[j]) + first, float(when[j])),
                (i + first, float(when[p])),
                tasks[int(task[i])],
                names[int(annotators[i])],
                column,
            )
        except RowError as exc:
            problems.set(i, exc, fields[int(field[i])])
            continue
        superseded += 1
        if newer:
            latest[q] = p
    for q, p in first_of.items():
        value[p], when[p] = value[latest[q]], when[latest[q]]
    return keep, superseded


def _columns(
    rows: tuple[Codes, Codes, Codes, Codes, Codes, Any],
    tables: tuple[list[Any], list[str], list[str], list[Any], list[str]],
    found: dict[int, list[tuple[float, float, str]]],
    stats: SourceStats,
    s: TableSource,
) -> Dataset:
    """The dataset of the answers: ``rows`` holds each answer's first row in the table, its
    task, annotator, field and answer (indices into ``tables``; a span field's: its row's spans
    in ``found``) and time, in table order. As the row reader builds it: an annotation per
    (task, annotator) in order of first row, its fields in name order."""
    at_row, task, who, field, value, when = rows
    tasks, names, fields, values, kinds = tables
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
        if kinds[f] in REGION_SHAPES:
            cols.fields[fields[f]] = FieldColumn(SPANS)
            for r, g in zip(at_row[mine].tolist(), group[mine].tolist(), strict=True):
                cols.value(g, fields[f], spans_of(found[r]))
            continue
        col = cols.fields[fields[f]] = FieldColumn(kinds[f])
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
