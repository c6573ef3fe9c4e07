"""The column-wise path of a Label Studio export: a batch of tasks whose annotations hold only
scalar answers (choices, rating, number, textarea), or only the common region answer (spans or
boxes of one field, each with an id and one label), read with no Python call per annotation.

msgspec decodes each task into structs strict enough that the type check does most of the
reading rules (an int or str task id and annotator, no predictions, no region geometry in a
value; of scalar answers, each distinct list of results is decoded once, most annotations
writing theirs alike); the rest are checks over the batch's columns. A batch with any other
task is left alone (None): the caller reads it task by task with :func:`.typed.read_task` and
the general parser, which give the same answer or the precise error (the paths are tested to
agree).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from itertools import chain
from operator import attrgetter
from typing import Annotated, Any, Generic, Literal, TypeVar, get_args

import msgspec
import numpy as np
from msgspec import NODEFAULT, UNSET, Meta, UnsetType, defstruct

from ...kinds import REGION_SHAPES, AnswerError, Kind, registry
from ...metrics.geometry import Shape, shape_of
from ...model import (
    Columns,
    FieldColumn,
    RegionColumn,
    SourceStats,
    TaskId,
    intern_all,
    intern_shape,
)

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
    result: msgspec.Raw = msgspec.Raw()  # most repeat another's: decoded once (_Lists)
    was_cancelled: bool | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    ground_truth: bool | None = None
    parent_prediction: None = None


class _Task(msgspec.Struct, gc=False):
    id: int | str
    annotations: list[_Annotation]
    predictions: Annotated[list[Any], Meta(max_length=0)] | None = None


class _ResultsOnly(msgspec.Struct, gc=False):
    result: list[_Result] | None = None


class _TaskResults(msgspec.Struct, gc=False):
    annotations: list[_ResultsOnly]


_TASK = msgspec.json.Decoder(_Task)
_FIRST_RESULTS = msgspec.json.Decoder(_TaskResults)
"""A task's results alone: a batch's first task is decoded so first, so that a batch of other
answers (a region round's) is refused at its first result, not after the whole batch was
decoded with its result lists as raw bytes (which made reading a span round 1.5x as slow)."""
_RESULTS = msgspec.json.Decoder(list[list[_Result] | None])
_KINDS: dict[str, Kind] = {t: registry()[t] for t in get_args(_Type)}
"""The kinds read here: where each answer is in a result's ``value``, and what it is."""
_UTC = timezone.utc
_CANCELLED, _TRUTH = attrgetter("was_cancelled"), attrgetter("ground_truth")
_ANNOTATIONS, _RESULT = attrgetter("annotations"), attrgetter("result")
_TZINFO = attrgetter("tzinfo")


class _SpanValue(msgspec.Struct, gc=False):
    start: int
    end: int
    text: str
    labels: tuple[str]


class _SpanResult(msgspec.Struct, gc=False):
    type: Literal["labels"]
    from_name: str
    to_name: str
    id: str
    value: _SpanValue


class _BoxValue(msgspec.Struct, gc=False):
    x: float
    y: float
    width: float
    height: float
    rectanglelabels: tuple[str]
    rotation: float | None = None


class _BoxResult(msgspec.Struct, gc=False):
    type: Literal["rectanglelabels"]
    from_name: str
    id: str
    value: _BoxValue
    original_width: float | None = None
    original_height: float | None = None


_R = TypeVar("_R", _SpanResult, _BoxResult)


class _RegionAnnotation(msgspec.Struct, Generic[_R], gc=False):
    completed_by: int | str
    id: Any = None
    result: list[_R] | None = None
    was_cancelled: bool | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    ground_truth: bool | None = None
    parent_prediction: None = None


class _RegionTask(msgspec.Struct, Generic[_R], gc=False):
    id: int | str
    annotations: list[_RegionAnnotation[_R]]
    predictions: Annotated[list[Any], Meta(max_length=0)] | None = None
    data: msgspec.Raw = msgspec.Raw()  # decoded only for the texts spans index into


@dataclass(frozen=True)
class Reading:
    """Where a run of an export's tasks is read into, and how (what :func:`read_tasks` and
    the region chunks share, built once per run).

    Parameters
    ----------
    cols : Columns
        The columns the rows are appended to.
    stats : SourceStats
        The counts of what was read.
    first_seen : dict
        Each task id read (as text) → its index in the export.
    texts : dict
        (task id, field) → the text the field's spans index into.
    include_ground_truth : bool
        Whether an annotation marked ground truth is a row.

    Examples
    --------
    >>> from iaa_gate.model import Columns, SourceStats
    >>> into = Reading(Columns(), SourceStats(), {}, {}, include_ground_truth=True)
    >>> len(into.cols), into.include_ground_truth
    (0, True)
    """

    cols: Columns
    stats: SourceStats
    first_seen: dict[str, int]
    texts: dict[tuple[TaskId, str], str]
    include_ground_truth: bool


_SPANS = msgspec.json.Decoder(_RegionTask[_SpanResult])
_BOXES = msgspec.json.Decoder(_RegionTask[_BoxResult])
_SHAPES = {kind: shape_of(REGION_SHAPES[kind]) for kind in ("labels", "rectanglelabels")}
"""The region kinds read here, as :func:`.typed.read_task` reads them a field at a time."""


class _Batch:
    """The rows of a batch of decoded tasks: ``anns`` in order, whether each is ``live`` (not
    cancelled), ground truth (``truth``), left out as ground truth (``excluded``) or a row
    (``has_row``); with :meth:`read`, each annotation's ``results`` (none read of a cancelled
    one)."""

    def __init__(self, tasks: list[Any], include_ground_truth: bool) -> None:
        self.tasks = tasks
        self.ids: list[TaskId] = list(map(_ID, tasks))
        self.keys = list(map(str, self.ids))
        self.counts = list(map(len, map(_ANNOTATIONS, tasks)))
        self.anns: list[Any] = list(chain.from_iterable(map(_ANNOTATIONS, tasks)))
        self.cancelled = list(map(_CANCELLED, self.anns))
        self.live = ~_flags(self.cancelled)
        self.truth = _flags(list(map(_TRUTH, self.anns)))
        self.excluded = self.live & self.truth & (not include_ground_truth)
        self.has_row = ~self.excluded

    def read(self) -> None:
        """Read the annotations' decoded ``results``: ``per`` annotation, the ``items`` in
        order and each one's annotation (``owner``)."""
        results: list[list[Any]] = list(map(_RESULT, self.anns))
        if None in results:  # no results: none given
            results = [r or [] for r in results]
        if not self.live.all():  # a cancelled annotation's results are not read
            results = [[] if c else r for r, c in zip(results, self.cancelled, strict=True)]
        self.results = results
        self.per = list(map(len, results))
        self.items: list[Any] = list(chain.from_iterable(results))
        self.owner = np.repeat(np.arange(len(self.anns)), self.per)  # each result's annotation

    def fresh(self, first_seen: dict[str, int]) -> bool:
        """Whether no task id occurs twice (in the batch or before it)."""
        keys = self.keys
        return len(set(keys)) == len(keys) and first_seen.keys().isdisjoint(keys)

    def append(self, start: int, into: Reading, empty: int) -> Any:
        """Append the rows to ``into`` (the tasks being elements ``start``… of the export) and
        count them; returns each annotation's row (of those with one)."""
        anns, has_row, live, n = self.anns, self.has_row, self.live, len(self.anns)
        cols, stats, first_seen = into.cols, into.stats, into.first_seen
        first_seen.update(zip(self.keys, range(start, start + len(self.keys)), strict=True))
        row = len(cols) + np.cumsum(has_row) - 1
        stats.annotations += n
        stats.cancelled += int(n - live.sum())
        stats.empty += empty
        stats.ground_truth_excluded += int(self.excluded.sum())
        task = intern_all(cols.task_index, cols.tasks, self.ids)
        raw_who: list[int | str] = []
        who = intern_all({}, raw_who, [a.completed_by for a in anns])
        annotator = np.array([cols.who(str(w)) for w in raw_who], dtype=np.int64)
        rows = anns if has_row.all() else [a for a, r in zip(anns, has_row, strict=True) if r]
        cols.task.frombytes(np.repeat(task, self.counts)[has_row].tobytes())
        cols.annotator.frombytes(annotator[who][has_row].tobytes())
        cols.created.frombytes(_seconds([a.created_at for a in rows]).tobytes())
        cols.updated.frombytes(_seconds([a.updated_at for a in rows]).tobytes())
        cols.ground_truth.frombytes((self.truth & live)[has_row].astype(np.int8).tobytes())
        cols.skipped.frombytes((~live)[has_row].astype(np.int8).tobytes())
        cols.annotation_ids += [a.id for a in rows]
        return row


def read_tasks(raws: list[msgspec.Raw], start: int, into: Reading) -> list[TaskId] | None:
    """Append the annotations of tasks ``raws`` (elements ``start``… of the export) to
    ``into.cols`` as :func:`.typed.read_task` would task by task, their ids (as text) to
    ``into.first_seen`` and the texts their spans index into to ``into.texts``; returns the
    ids of the tasks read: all of them, or (region answers, read a chunk at a time) those
    before the first chunk with a task that needs the task-by-task readers. None, having
    changed nothing, when the first task needs them (a region of another shape, a
    prediction, an id seen before…)."""
    try:
        _FIRST_RESULTS.decode(raws[0])
        b = _Batch(list(map(_TASK.decode, raws)), into.include_ground_truth)
        lists = _Lists(b)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return _regions(raws, start, into)
    if not b.fresh(into.first_seen):
        return None  # an id seen twice: the task-by-task readers name both places
    names: list[str] = []
    name = intern_all({}, names, [r.from_name for r in lists.items])
    if lists.twice(name, len(names)):
        return None  # two answers to one field in one annotation
    kinds: list[str] = [r.type for r in lists.items]
    answers = _answers(lists.items, kinds, name, lists.item, b.has_row[lists.owner])
    if answers is None:
        return None
    # every rule holds: append
    row = b.append(start, into, answers.empty)
    cols = into.cols
    for f, at, codes, values in answers.fields:
        col = cols.fields.get(names[f])
        if col is None:
            col = cols.fields[names[f]] = FieldColumn(kinds[lists.item[at[0]]])
        # the values coded in order of first use, so that codes are those row-by-row appends give
        used, first = np.unique(codes, return_index=True)
        used = used[np.argsort(first)]
        mine = np.zeros(len(values), dtype=np.int64)
        mine[used] = [col.code(values[c]) for c in used.tolist()]
        col.rows.frombytes(row[lists.owner[at]].tobytes())
        col.codes.frombytes(mine[codes].tobytes())
    return b.ids


class _Lists:
    """The results of a batch's annotations of scalar answers. Most annotations' ``result``
    lists are written alike, byte for byte (one field, a few choices), so each distinct list
    is decoded once: ``items`` are the distinct lists' results in turn; the results read
    (those of live annotations, in order) are given by their place in ``items`` (``item``)
    and their annotation (``owner``). Raises msgspec's error when a list is not one of
    scalar answers (the batch then goes to the region reader, as a task that fails to decode
    does)."""

    def __init__(self, b: _Batch) -> None:
        table: list[bytes] = []
        self.code = intern_all({}, table, list(map(bytes, map(_RESULT, b.anns))))
        if b"" in table:  # no results given
            table[table.index(b"")] = b"null"
        # in one call: with a comment in every annotation, most lists differ
        lists = [r or [] for r in _RESULTS.decode(b"[" + b",".join(table) + b"]")]
        self.size = np.array(list(map(len, lists)), dtype=np.int64)
        self.items: list[_Result] = list(chain.from_iterable(lists))
        per = self.size[self.code] * b.live  # a cancelled annotation's results are not read
        self.owner = np.repeat(np.arange(len(b.anns)), per)
        first = (np.cumsum(self.size) - self.size)[self.code] - (np.cumsum(per) - per)
        self.item = first[self.owner] + np.arange(len(self.owner))
        self.live = b.live

    def twice(self, name: Any, names: int) -> bool:
        """Whether a read result answers a field (``name``: each item's, of ``names``) that
        another result of its annotation answers."""
        if not len(self.size) or self.size.max() < 2:
            return False
        key = np.sort(np.repeat(np.arange(len(self.size)), self.size) * names + name)
        twice = key[1:][key[1:] == key[:-1]] // names  # the lists that answer a field twice
        return bool(self.live[np.isin(self.code, twice)].any())


REGION_CHUNK = 64
"""Tasks of region answers read at a time: a chunk's decoded structs (some thirty per region
task) stay in the CPU's cache while its regions are gathered; a batch of 512 made the reading
slower than task by task."""


def _regions(raws: list[msgspec.Raw], start: int, into: Reading) -> list[TaskId] | None:
    """:func:`read_tasks` of tasks whose every result is a span (or every one a box) with an
    id and one label, each annotation's of one field (and, spans, of one text): the common
    region answer, which :func:`.typed.read_task` reads a field at a time. Read
    :data:`REGION_CHUNK` tasks at a time, up to the first chunk with any other task: the ids
    of the tasks read (a prefix of ``raws``), None when none was."""
    ids: list[TaskId] = []
    named = _Named()
    for at in range(0, len(raws), REGION_CHUNK):
        chunk = raws[at : at + REGION_CHUNK]
        got = _region_chunk(chunk, start + at, into, named)
        if got is None:
            break
        ids += got
    return ids or None


def _region_chunk(
    raws: list[msgspec.Raw], start: int, into: Reading, named: _Named
) -> list[TaskId] | None:
    """:func:`_regions` of one chunk, all or nothing (None: nothing changed). ``named``: the
    field, text and labels of the chunks before, tried first (and updated)."""
    tasks: list[Any] | None = named.decode(raws)
    if tasks is not None:
        kind = named.kind
    else:
        try:
            tasks = list(map(_SPANS.decode, raws))
            kind = "labels"
        except (msgspec.ValidationError, msgspec.DecodeError):
            try:
                tasks = list(map(_BOXES.decode, raws))
                kind = "rectanglelabels"
            except (msgspec.ValidationError, msgspec.DecodeError):
                return None
    b = _Batch(tasks, into.include_ground_truth)
    if not b.fresh(into.first_seen):
        return None
    b.read()
    items, owner, n = b.items, b.owner, len(b.anns)
    per = np.array(b.per, dtype=np.int64)
    answered = per > 0
    at = np.flatnonzero(answered)  # the annotations with results
    lead = (np.cumsum(per) - per)[at]  # each one's first result
    one = np.zeros(len(items), dtype=np.int64)
    names, name = ([named.field], one) if named.used else _codes(list(map(_FROM, items)))
    field = np.full(n, -1, dtype=np.int64)
    field[at] = name[lead]
    if (field[owner] != name).any():
        return None  # an annotation's results in two fields: read item by item
    # attribute reads in comprehensions: quicker than map's attrgetter, once per region
    values: list[Any] = [r.value for r in items]
    shape = _SHAPES[kind]
    if shape.linear:
        tos, to = ([named.text], one) if named.used else _codes(list(map(_TO, items)))
        if len(tos) > 1 and (to[lead][np.searchsorted(at, owner)] != to).any():
            return None  # the spans of one annotation in two texts: the general parser
        found = _texts(b, field, to[lead], at, names, tos, into.texts)
        if found is None:
            return None
        try:
            # read as a list (an attribute load in the loop is quicker than map's attrgetter)
            starts = np.array([v.start for v in values], dtype=np.int64)
            ends = np.array([v.end for v in values], dtype=np.int64)
        except OverflowError:
            return None  # an offset past 2**63: compared as the typed reader compares it
        if len(values) and (starts.min() < 0 or (starts > ends).any()):
            return None
        coords = np.column_stack((starts, ends)).astype(np.float64)
        labels = [v.labels[0] for v in values]
    else:
        found = {}
        coords = _box_coords(items, values)
        labels = [v.rectanglelabels[0] for v in values]
    # every rule holds: append
    row = b.append(start, into, 0)
    into.texts.update(found)
    cols = into.cols
    kept = answered & b.has_row  # the annotations whose regions are an answer
    fields = field[kept]
    order = dict.fromkeys(fields.tolist())  # fields in order of first answer
    ids: list[str] = [r.id for r in items]
    whole = len(order) == 1 and bool(kept[answered].all())
    for f in order:
        mine = np.flatnonzero(kept & (field == f))  # its answers' annotations
        sel = np.arange(len(items)) if whole else np.flatnonzero(kept[owner] & (name == f))
        col = cols.fields.get(names[f])
        if col is None:
            col = cols.fields[names[f]] = FieldColumn(kind)
        rc = col.region_column(len(col.rows))
        col.rows.frombytes(row[mine].tobytes())
        col.codes.frombytes(np.full(len(mine), col.code(""), dtype=np.int64).tobytes())
        _answer_regions(
            rc,
            shape,
            per[mine],
            ids if whole else [ids[i] for i in sel.tolist()],
            labels if whole else [labels[i] for i in sel.tolist()],
            coords[sel],
        )
    if len(order) == 1 and (not shape.linear or len(tos) == 1):
        named.expect(kind, names[0], tos[0] if shape.linear else "", rc.labels)
    return b.ids


class _Named:
    """The field (a span's text) and labels of the region chunks read so far, once they are
    one: the next chunk is first decoded with these names as literals, so that no string is
    made per region for them (and the field and text are known); a chunk with any other name
    or label fails that decode and is decoded as before."""

    def __init__(self) -> None:
        self.decoder: msgspec.json.Decoder[Any] | None = None
        self.kind, self.field, self.text = "", "", ""
        self.used = False

    def decode(self, raws: list[msgspec.Raw]) -> list[Any] | None:
        """The tasks ``raws`` decoded with the names (None: not all have them)."""
        self.used = False
        if self.decoder is None:
            return None
        try:
            tasks = list(map(self.decoder.decode, raws))
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        self.used = True
        return tasks

    def expect(self, kind: str, field: str, text: str, labels: list[str]) -> None:
        """Decode the next chunk with these names (``labels``: the field's so far)."""
        if not labels or len(labels) > _MAX_LITERALS:
            self.decoder = None
            return
        self.decoder = _named(kind, field, text, tuple(labels))
        self.kind, self.field, self.text = kind, field, text


_PARTS: dict[str, tuple[Any, Any, str]] = {
    "labels": (_SpanValue, _SpanResult, "labels"),
    "rectanglelabels": (_BoxValue, _BoxResult, "rectanglelabels"),
}
"""Per region kind read here: the structs of its value and result, and its labels' key."""

_MAX_LITERALS = 64
"""Fields with more labels than this are decoded with a string per label (a decoder is made
for each new set of labels)."""


@lru_cache(maxsize=16)
def _named(kind: str, field: str, text: str, labels: tuple[str, ...]) -> Any:
    """A decoder of region tasks of ``kind`` whose results are all of ``field`` (spans: on
    ``text``), each with one of ``labels``, these as literals (:class:`_Named`)."""
    value, result, key = _PARTS[kind]
    label = tuple[Literal[labels]]  # type: ignore[valid-type]
    value = defstruct(f"_Named{value.__name__}", _fields(value, **{key: label}), gc=False)
    names: dict[str, Any] = {"from_name": Literal[field], "to_name": Literal[text]}
    result = defstruct(  # a box result has no to_name: only the fields it has are replaced
        f"_Named{result.__name__}", _fields(result, value=value, **names), gc=False
    )
    task: Any = _RegionTask
    return msgspec.json.Decoder(task[result])


def _fields(struct: type[msgspec.Struct], **types: Any) -> list[tuple[Any, ...]]:
    """The fields of ``struct`` (name, type[, default]) with ``types`` in place of theirs."""
    return [
        (f.name, types.get(f.name, f.type)) + (() if f.default is NODEFAULT else (f.default,))
        for f in msgspec.structs.fields(struct)
    ]


def _answer_regions(
    rc: RegionColumn, shape: Shape, counts: Any, ids: list[str], labels: list[str], coords: Any
) -> None:
    """Append to ``rc`` one answer of ``shape`` per element of ``counts`` (its number of
    regions), the regions' ``ids``, ``labels`` and geometry rows ``coords`` in order, as
    :meth:`~iaa_gate.model.RegionColumn.answer` and appends region by region would."""
    k = len(counts)
    before = np.cumsum(counts) - counts
    rc.shape.frombytes(np.full(k, intern_shape(rc.shapes, shape.name), dtype=np.int8).tobytes())
    rc.first.frombytes((len(rc.ids) + before).tobytes())
    rc.cfirst.frombytes((len(rc.coords) + before * shape.width).tobytes())
    rc.pfirst.frombytes(np.full(k, len(rc.points), dtype=np.int64).tobytes())
    rc.dropped.frombytes(np.zeros(k, dtype=np.int64).tobytes())
    rc.ids += ids
    rc.label.frombytes(intern_all(rc.label_index, rc.labels, labels).tobytes())
    rc.coords.frombytes(np.ascontiguousarray(coords, dtype=np.float64).tobytes())


def _texts(
    b: _Batch,
    field: Any,
    to: Any,
    at: Any,
    names: list[str],
    tos: list[str],
    texts: dict[tuple[TaskId, str], str],
) -> dict[tuple[TaskId, str], str] | None:
    """The texts each task's span fields index into, as :func:`.typed.read_task` finds them:
    the data key named by the ``to_name`` of the task's first live annotation with spans in the
    field (``field``: each annotation's, -1: none; ``to``: the text of each of the annotations
    ``at`` with results). None when one is not a text in the task's data (the general parser
    then finds it by the span texts, or words the error)."""
    text_of = np.full(len(field), -1, dtype=np.int64)
    text_of[at] = to
    task_of = np.repeat(np.arange(len(b.tasks)), b.counts)
    spans = np.flatnonzero(b.live & (field >= 0))  # the annotations with spans, in order
    # each task's first such annotation per field: the one whose text counts
    key = task_of[spans] * (len(names) + 1) + field[spans]
    _, first = np.unique(key, return_index=True)
    found: dict[tuple[TaskId, str], str] = {}
    data: Any = None
    last = -1
    task_at, field_at, text_at = task_of.tolist(), field.tolist(), text_of.tolist()
    for i in spans[np.sort(first)].tolist():
        t = task_at[i]
        task = b.tasks[t]
        name = names[field_at[i]]
        if (task.id, name) in texts:
            continue
        if t != last:  # the task's data, decoded once
            data = msgspec.json.decode(task.data) if len(task.data) else None
            data = data if isinstance(data, dict) else {}
            last = t
        text = data.get(tos[text_at[i]])
        if not isinstance(text, str):
            return None
        found[task.id, name] = text
    return found


def _codes(keys: list[str]) -> tuple[list[str], Any]:
    """The distinct ``keys`` in order of first use and each key's code (at once when all are
    one: a region field's name, the text it is of)."""
    if len(set(keys)) == 1:
        return keys[:1], np.zeros(len(keys), dtype=np.int64)
    table: list[str] = []
    return table, intern_all({}, table, keys)


def _box_coords(items: list[_BoxResult], values: list[_BoxValue]) -> Any:
    """Each box's geometry row ``[x, y, width, height, rotation]``, in pixels where its
    image's size is known (as :func:`.typed.read_task` scales it). The rows' numbers are
    read into the array flat: from a list of tuples numpy first works out its shape, a third
    slower."""
    boxes = [(v.x, v.y, v.width, v.height, v.rotation or 0.0) for v in values]
    geometry = np.fromiter(chain.from_iterable(boxes), np.float64, 5 * len(boxes)).reshape(-1, 5)
    widths = [r.original_width for r in items]
    if widths.count(None) < len(widths):  # percent of the image → pixels
        heights = [r.original_height for r in items]
        sizes = np.array([widths, heights], dtype=np.float64)  # None: NaN
        known = (sizes > 0).all(axis=0)
        geometry[known, 0:4] *= (sizes[:, known].T / 100.0)[:, [0, 1, 0, 1]]
    return geometry


_FROM, _TO, _ID = map(attrgetter, ("from_name", "to_name", "id"))


class _Answers:
    """The answers of a batch's results, by field: ``fields`` holds (field, its rated results
    of rows in order, their codes, the values the codes index) in the order fields are first
    answered; ``empty`` counts empty selections (of rows or not)."""

    def __init__(self) -> None:
        self.fields: list[tuple[int, Any, Any, list[tuple[str, ...] | float | str]]] = []
        self.empty = 0


def _answers(
    items: list[_Result], kinds: list[str], name: Any, item: Any, kept: Any
) -> _Answers | None:
    """The answers of the results read, each distinct value of a field and kind read once by
    its kind's reader (None: no rating given); None when one is not an answer (a choices or
    text key missing, a number too large: the task-by-task readers name it). ``items``: the
    distinct results (``kinds``, ``name``: each one's type and field, :class:`_Lists`);
    ``item``: each result read's place in them; ``kept``: whether its annotation is a row
    (ground truth left out is not; its answers still count)."""
    out = _Answers()
    sorts: list[str] = []
    group = (name * 4 + intern_all({}, sorts, kinds))[item]
    whole = len(set(group.tolist())) == 1
    parts: dict[int, list[tuple[Any, Any, list[Any]]]] = {}
    for g in dict.fromkeys(group.tolist()):
        at = np.arange(len(item)) if whole else np.flatnonzero(group == g)
        used, of = np.unique(item[at], return_inverse=True)  # its distinct results
        k = _KINDS[kinds[int(used[0])]]
        raw: list[Any] = []
        get = attrgetter(f"value.{k.value_key}")
        code = intern_all({}, raw, [get(items[i]) for i in used.tolist()])[of]
        values = _read(k, raw)
        if values is None:
            return None
        empty = np.array([v == () for v in values], dtype=bool)
        if empty.any():
            out.empty += int(np.bincount(code, minlength=len(raw))[empty].sum())
        rated = np.array([v is not None for v in values], dtype=bool)[code] & kept[at]
        parts.setdefault(g // 4, []).append((at[rated], code[rated], values))
    for f, mine in parts.items():
        at = np.concatenate([p[0] for p in mine])
        if not len(at):
            continue
        if len(mine) == 1:  # one kind
            out.fields.append((f, *mine[0]))
            continue
        offsets = np.cumsum(np.array([0] + [len(p[2]) for p in mine[:-1]], dtype=np.int64))
        codes = np.concatenate([p[1] + o for p, o in zip(mine, offsets, strict=True)])
        order = np.argsort(at, kind="stable")
        values = [v for p in mine for v in p[2]]
        out.fields.append((f, at[order], codes[order], values))
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
    if times.count(None) == len(times):  # no times (an export without `updated_at`)
        return np.full(len(times), math.nan)
    if None not in times and None not in map(_TZINFO, times):  # each with its offset
        return np.fromiter(map(datetime.timestamp, times), np.float64, len(times))  # type: ignore[arg-type]
    return np.array(
        [
            math.nan if t is None else (t if t.tzinfo else t.replace(tzinfo=_UTC)).timestamp()
            for t in times
        ],
        dtype=np.float64,
    )
