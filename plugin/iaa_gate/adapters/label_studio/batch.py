"""The column-wise path of a Label Studio export: a batch of tasks whose annotations hold only
scalar answers (choices, rating, number, textarea), read with no Python call per annotation.

msgspec decodes each task into structs strict enough that the type check does most of the
reading rules (an int or str task id and annotator, no predictions, no region geometry in a
value); the rest are checks over the batch's columns. A batch with any other task is left
alone (None): the caller reads it task by task with :func:`.typed.read_task` and the general
parser, which give the same answer or the precise error (the paths are tested to agree).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from itertools import chain
from operator import attrgetter
from typing import Annotated, Any, Literal, get_args

import msgspec
import numpy as np
from msgspec import UNSET, Meta, UnsetType

from ...kinds import AnswerError, Kind, registry
from ...model import Columns, FieldColumn, SourceStats, TaskId, intern_all

_Type = Literal["choices", "rating", "number", "textarea"]
"""The control types read here (one answer each, under their kind's ``value_key``)."""
_Absent = UnsetType
"""A key a scalar answer's value never has (a region's geometry): present, the task is not
read here."""


class _Value(msgspec.Struct, gc=False):
    choices: tuple[str, ...] | str | None = None
    rating: float | None = None
    number: float | None = None
    text: tuple[str, ...] | str | None = None
    start: _Absent = UNSET
    end: _Absent = UNSET
    x: _Absent = UNSET
    y: _Absent = UNSET
    points: _Absent = UNSET
    globalOffsets: _Absent = UNSET


class _Result(msgspec.Struct, gc=False):
    type: _Type
    from_name: str
    value: _Value


class _Annotation(msgspec.Struct, gc=False):
    completed_by: int | str
    id: Any = None
    result: list[_Result] | None = None
    was_cancelled: bool | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    ground_truth: bool | None = None
    parent_prediction: None = None


class _Task(msgspec.Struct, gc=False):
    id: int | str
    annotations: list[_Annotation]
    predictions: Annotated[list[Any], Meta(max_length=0)] | None = None


_TASK = msgspec.json.Decoder(_Task)
_KINDS: dict[str, Kind] = {t: registry()[t] for t in get_args(_Type)}
"""The kinds read here: where each answer is in a result's ``value``, and what it is."""
_UTC = timezone.utc
_CANCELLED, _TRUTH = attrgetter("was_cancelled"), attrgetter("ground_truth")
_TZINFO = attrgetter("tzinfo")


def read_tasks(
    raws: list[msgspec.Raw],
    start: int,
    cols: Columns,
    stats: SourceStats,
    first_seen: dict[str, int],
    include_ground_truth: bool,
) -> list[TaskId] | None:
    """Append the annotations of tasks ``raws`` (elements ``start``… of the export) to
    ``cols`` as :func:`.typed.read_task` would task by task, and their ids (as text) to
    ``first_seen``; returns the task ids. None, having changed nothing, when any task needs
    the task-by-task readers (a region, a prediction, an id seen before…)."""
    try:
        tasks = [_TASK.decode(r) for r in raws]
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    ids: list[TaskId] = [t.id for t in tasks]
    keys = [str(i) for i in ids]
    if len(set(keys)) < len(keys) or not first_seen.keys().isdisjoint(keys):
        return None  # an id seen twice: the task-by-task readers name both places
    counts = [len(t.annotations) for t in tasks]
    anns = list(chain.from_iterable(t.annotations for t in tasks))
    n = len(anns)
    cancelled = list(map(_CANCELLED, anns))
    live = ~_flags(cancelled)
    truth = _flags(list(map(_TRUTH, anns)))
    results = [a.result or [] for a in anns]
    if not live.all():  # a cancelled annotation's results are not read
        results = [[] if c else r for r, c in zip(results, cancelled, strict=True)]
    per = list(map(len, results))
    items = list(chain.from_iterable(results))
    owner = np.repeat(np.arange(n), per)  # the annotation of each result
    names: list[str] = []
    name = intern_all({}, names, [r.from_name for r in items])
    if max(per, default=0) > 1 and len(np.unique(owner * len(names) + name)) < len(items):
        return None  # two answers to one field in one annotation
    kinds: list[str] = [r.type for r in items]
    excluded = live & truth & (not include_ground_truth)
    has_row = ~excluded
    kept = has_row[owner]
    answers = _answers(items, kinds, name, kept)
    if answers is None:
        return None
    # every rule holds: append
    first_seen.update(zip(keys, range(start, start + len(keys)), strict=True))
    base = len(cols)
    row = base + np.cumsum(has_row) - 1
    stats.annotations += n
    stats.cancelled += int(n - live.sum())
    stats.empty += answers.empty
    stats.ground_truth_excluded += int(excluded.sum())
    task = intern_all(cols.task_index, cols.tasks, ids)
    raw_who: list[int | str] = []
    who = intern_all({}, raw_who, [a.completed_by for a in anns])
    annotator = np.array([cols.who(str(w)) for w in raw_who], dtype=np.int64)
    rows = anns if has_row.all() else [a for a, r in zip(anns, has_row, strict=True) if r]
    cols.task.frombytes(np.repeat(task, counts)[has_row].tobytes())
    cols.annotator.frombytes(annotator[who][has_row].tobytes())
    cols.created.frombytes(_seconds([a.created_at for a in rows]).tobytes())
    cols.updated.frombytes(_seconds([a.updated_at for a in rows]).tobytes())
    cols.ground_truth.frombytes((truth & live)[has_row].astype(np.int8).tobytes())
    cols.skipped.frombytes((~live)[has_row].astype(np.int8).tobytes())
    cols.annotation_ids += [a.id for a in rows]
    for f, at, codes, values, in_order in answers.fields:
        col = cols.fields.get(names[f])
        if col is None:
            col = cols.fields[names[f]] = FieldColumn(kinds[at[0]])
        # the values in order of first use, so that codes are those row-by-row appends give
        if in_order:
            mine = np.array([col.code(v) for v in values], dtype=np.int64)
        else:
            used, first = np.unique(codes, return_index=True)
            mine = np.zeros(len(values), dtype=np.int64)
            mine[used[np.argsort(first)]] = [col.code(values[c]) for c in used[np.argsort(first)]]
        col.rows.frombytes(row[owner[at]].tobytes())
        col.codes.frombytes(mine[codes].tobytes())
    return ids


class _Answers:
    """The answers of a batch's results, by field: ``fields`` holds (field, its rated results
    of rows in order, their codes, the values the codes index, whether the codes are first
    used in the values' order) in the order fields are first answered; ``empty`` counts empty
    selections (of rows or not)."""

    def __init__(self) -> None:
        self.fields: list[tuple[int, Any, Any, list[tuple[str, ...] | float | str], bool]] = []
        self.empty = 0


def _answers(items: list[_Result], kinds: list[str], name: Any, kept: Any) -> _Answers | None:
    """The answers of ``items``, each distinct value of a field and kind read once by its
    kind's reader (None: no rating given); None when one is not an answer (a choices or text
    key missing, a number too large: the task-by-task readers name it). ``name``: each
    result's field; ``kept``: whether its annotation is a row (ground truth left out is not;
    its answers still count)."""
    out = _Answers()
    sorts: list[str] = []
    group = name * 4 + intern_all({}, sorts, kinds)
    whole = len(set(group.tolist())) == 1
    parts: dict[int, list[tuple[Any, Any, list[Any], bool]]] = {}
    for g in dict.fromkeys(group.tolist()):
        at = np.arange(len(items)) if whole else np.flatnonzero(group == g)
        kind = kinds[int(at[0])]
        raw: list[Any] = []
        k = _KINDS[kind]
        these = items if whole else [items[i] for i in at.tolist()]
        code = intern_all({}, raw, list(map(attrgetter(f"value.{k.value_key}"), these)))
        values = _read(k, raw)
        if values is None:
            return None
        empty = np.array([v == () for v in values], dtype=bool)
        if empty.any():
            out.empty += int(np.bincount(code, minlength=len(raw))[empty].sum())
        rated = np.array([v is not None for v in values], dtype=bool)[code] & kept[at]
        parts.setdefault(g // 4, []).append((at[rated], code[rated], values, bool(rated.all())))
    for f, mine in parts.items():
        if len(mine) == 1 and mine[0][3]:  # one kind, every result rated: codes in first use
            out.fields.append((f, mine[0][0], mine[0][1], mine[0][2], True))
            continue
        at = np.concatenate([p[0] for p in mine])
        if not len(at):
            continue
        offsets = np.cumsum(np.array([0] + [len(p[2]) for p in mine[:-1]], dtype=np.int64))
        codes = np.concatenate([p[1] + o for p, o in zip(mine, offsets, strict=True)])
        order = np.argsort(at, kind="stable")
        values = [v for p in mine for v in p[2]]
        out.fields.append((f, at[order], codes[order], values, False))
    out.fields.sort(key=lambda x: int(x[1][0]))
    return out


def _read(k: Kind, raw: list[Any]) -> list[Any] | None:
    """The answers of the distinct values ``raw`` under ``k.value_key``, as the kind reads a
    result's value (:attr:`~iaa_gate.kinds.Kind.read`; a label list was decoded as a tuple to
    be interned); None when one is not an answer."""
    read, key = k.read, str(k.value_key)
    if read is None:
        return None
    try:
        return [read({key: list(v) if type(v) is tuple else v}, "") for v in raw]
    except AnswerError:
        return None


def _flags(values: list[bool | None]) -> Any:
    """``values`` as a bool array (None: false), at once when none is true."""
    if True not in values:
        return np.zeros(len(values), dtype=bool)
    return np.array(values, dtype=bool)


def _seconds(times: list[datetime | None]) -> Any:
    """Seconds since the epoch (a naive time is UTC; NaN: none) as a float64 array."""
    if None not in times and None not in map(_TZINFO, times):  # each with its offset
        return np.fromiter(map(datetime.timestamp, times), np.float64, len(times))  # type: ignore[arg-type]
    return np.array(
        [
            math.nan if t is None else (t if t.tzinfo else t.replace(tzinfo=_UTC)).timestamp()
            for t in times
        ],
        dtype=np.float64,
    )
