"""The fast path of a Label Studio export: each task decoded by msgspec into typed structs that
hold only what iaa-gate reads, then appended to :class:`~iaa_gate.model.Columns`.

It decides every task without regions (each answer read by its kind's reader: choices, rating,
number, textarea, taxonomy, pairwise, rankings; chat messages and the answers about one; per-region
answers; listed and unknown controls as not evaluated), and the region shapes: spans with character
offsets (their text found by ``to_name`` or by the spans' texts) or seconds, hypertext and paragraph
spans with their global offsets, time-series spans, rectangles, polygons, keypoints, brush masks and
timelines' frame ranges, the unlabelled tools' regions and the ``labels`` results that label them
(or a region of a tool iaa-gate lists) by id, with their relations and per-region attributes, read
straight into the field's :class:`~iaa_gate.model.RegionColumn`. An answer under a region field's
name replaces that annotation's regions of the field, as in the general parser. Anything malformed
raises :class:`Unusual`: the caller then words the error with the general parser. The two paths are
tested to agree on every example, corpus file and generated shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timezone
from itertools import chain
from operator import attrgetter, itemgetter, le
from typing import Any, TypeVar

import msgspec
import numpy as np
from msgspec import UNSET, UnsetType

from ...kinds import (
    LABELS_OF_TOOLS,
    LISTED_KINDS,
    REGION_SHAPES,
    SCALAR_KINDS,
    AnswerError,
    registry,
)
from ...kinds.messages import CHAT_MESSAGE
from ...kinds.messages import encode as encode_messages
from ...kinds.messages import kind_of as message_kind
from ...kinds.unscored import NOT_REGIONS, RELATION
from ...metrics.geometry import Shape, shape_of
from ...model import Columns, FieldColumn, FieldValue, RegionColumn, SourceStats, TaskId
from .brush import BrushError, bounds, mask_runs
from .rules import (
    LABEL_KEYS,
    References,
    TaskError,
    annotator_id,
    chat_messages,
    model_version,
    needs_label,
    own_predictions,
    plain_id,
    region_id,
    text_holding,
    time_of,
)


class Unusual(Exception):
    """The task breaks a rule, which the general parser words."""


class _Value(msgspec.Struct, gc=False):
    # an answer is checked by its kind's reader, so any JSON under its key is decoded
    choices: Any = None
    rating: Any = None
    number: Any = None
    text: Any = UNSET  # absent: a span of seconds or frames, which indexes no text
    taxonomy: Any = None
    ranker: Any = None
    selected: Any = None
    chatmessage: Any = None
    start: Any = UNSET
    end: Any = UNSET
    labels: Any = None
    rectanglelabels: Any = None
    polygonlabels: Any = None
    keypointlabels: Any = None
    hypertextlabels: Any = UNSET  # or htmllabels: the first present holds the labels
    htmllabels: Any = UNSET
    paragraphlabels: Any = None
    timelinelabels: Any = None
    timeserieslabels: Any = None
    ranges: Any = None
    brushlabels: Any = None
    format: Any = "rle"
    rle: Any = None
    x: Any = UNSET
    y: Any = UNSET
    width: Any = None
    height: Any = None
    rotation: Any = None
    points: Any = UNSET
    globalOffsets: Any = UNSET
    # an unlabelled tool's labels, were they under its type (as the general parser looks)
    rectangle: Any = None
    polygon: Any = None
    keypoint: Any = None
    brush: Any = None
    image: Any = None
    spans: Any = None


class _Result(msgspec.Struct, gc=False):
    type: Any = None
    from_name: Any = None
    to_name: Any = None
    id: Any = None
    value: _Value | None = None
    original_width: Any = None
    original_height: Any = None
    from_id: Any = None
    to_id: Any = None
    labels: Any = None


class _Annotation(msgspec.Struct, gc=False):
    id: Any = None
    completed_by: Any = None
    result: list[_Result] | None = None
    was_cancelled: Any = None
    created_at: Any = None  # read by :func:`.rules.time_of`, as an empty string is none
    updated_at: Any = None
    ground_truth: Any = None
    parent_prediction: Any = None


class _Prediction(msgspec.Struct, gc=False):
    id: Any = None
    model_version: Any = None
    result: list[_Result] | None = None


class _Task(msgspec.Struct, gc=False):
    id: Any = None
    annotations: list[_Annotation] | UnsetType | None = UNSET
    completions: msgspec.Raw = msgspec.Raw()  # before Label Studio 1.0; read without annotations
    data: msgspec.Raw = msgspec.Raw()
    predictions: list[_Prediction | int | str] | None = None
    meta: msgspec.Raw = msgspec.Raw()  # decoded only for a task with predictions


DECODER = msgspec.json.Decoder(_Task)
_COMPLETIONS = msgspec.json.Decoder(list[_Annotation] | None)
_NAN = math.nan
_T = TypeVar("_T")
_UTC = timezone.utc
_SCALARS = {
    name: (k.read, str(k.value_key))
    for name, k in registry().items()
    if k.family == "scalar" and k.value_key in _Value.__struct_fields__ and k.read is not None
}
"""The scalar kinds whose answer a typed ``value`` holds → the kind's reader (the one rule for
what the answer is, which the general parser and the column-wise reader call too) and its
key."""
SCALARS = frozenset(_SCALARS)
_READ = {
    name: (k.read, str(k.value_key))
    for name, k in registry().items()
    if k.read is not None and k.value_key in _Value.__struct_fields__
}
"""Every kind with a reader of a Label Studio value (the scalar kinds, rankings)."""
_MESSAGE_KINDS = frozenset(registry())
"""Per-message answers are read for a control whose ``message:`` kind is registered."""
_UNSCORED_REGIONS = LISTED_KINDS - NOT_REGIONS
"""Listed kinds whose results are regions (ellipses, video tracks…): an answer about one of
them is listed (``perregion``), never one answer per task."""
Geometry = tuple[tuple[float, ...], list[tuple[float, float]] | None]
"""A region's geometry row and its points (a polygon's vertices; None: none)."""


def _span(item: _Result, value: _Value) -> Geometry:
    """A span's ``[start, end)``: character offsets with their text (hypertext and paragraph
    spans: their global offsets in the whole text), or bounds that index no text (an audio
    span's seconds: no ``text`` key), as the general parser reads them: any two numbers, the
    end not before the start (a ``text`` that is no string only fails to find the text)."""
    start, end = value.start, value.end
    offsets = value.globalOffsets
    if not isinstance(start, (int, float)) and type(offsets) is dict:
        start, end = offsets.get("start"), offsets.get("end")
    if not (_number(start) and _number(end)) or end < start:
        raise Unusual  # the general parser words which bound is wrong
    return (float(start), float(end)), None  # any ``text`` marks the field's text looked up


def _box(item: _Result, value: _Value) -> Geometry:
    """A box ``[x, y, width, height, rotation]``, in pixels when its image's size is known."""
    box = (value.x, value.y, value.width, value.height, value.rotation or 0.0)
    if not all(_number(c) for c in box):
        raise Unusual
    geometry = tuple(map(float, box))
    w, h = item.original_width, item.original_height
    if _number(w) and _number(h) and w > 0 and h > 0:
        w, h = w / 100.0, h / 100.0
        x, y, width, height, rotation = geometry
        geometry = (x * w, y * h, width * w, height * h, rotation)
    return geometry, None


def _keypoint(item: _Result, value: _Value) -> Geometry:
    """A keypoint ``[x, y]``."""
    if not (_number(value.x) and _number(value.y)):
        raise Unusual
    return (float(value.x), float(value.y)), None


def _polygon(item: _Result, value: _Value) -> Geometry:
    """A polygon's bounds ``[x, y, width, height]`` and its vertices, as the general parser
    reads its ``points`` (3 or more ``[x, y]`` pairs of numbers, else :class:`Unusual`: it
    names the problem)."""
    points = value.points
    if type(points) is not list or len(points) < 3:
        raise Unusual
    if set(map(type, points)) != _LIST or set(map(len, points)) != _TWO:
        raise Unusual
    if not set(map(type, chain.from_iterable(points))) <= _NUMBER:
        raise Unusual
    xs, ys = [float(p[0]) for p in points], [float(p[1]) for p in points]
    x, y = min(xs), min(ys)
    return (x, y, max(xs) - x, max(ys) - y), list(zip(xs, ys, strict=True))


def _mask(item: _Result, value: _Value) -> Geometry:
    """A brush mask: its pixel box and its image's pixel count, and its runs of mask pixels,
    decoded from ``value.rle`` for the image of ``original_width`` × ``original_height`` as the
    general parser decodes it (anything it refuses: :class:`Unusual`)."""
    w, h = item.original_width, item.original_height
    if not (_number(w) and _number(h) and w > 0 and h > 0) or value.format != "rle":
        raise Unusual
    width, height = int(w), int(h)
    try:
        runs = mask_runs(value.rle, width, height)
    except BrushError:
        raise Unusual from None
    box = (*bounds(runs, width), float(width * height))
    starts, ends = runs[:, 0].tolist(), runs[:, 1].tolist()
    return box, [(float(a), float(b)) for a, b in zip(starts, ends, strict=True)]


def _times(item: _Result, value: _Value) -> Geometry:
    """A time-series span's ``[start, end)``: numbers, or date strings read as seconds since
    the epoch (:func:`.rules.time_of`), as the general parser reads them. One with a ``text``
    marks the field's text looked up, as a span of characters does (:func:`_text`)."""
    start, end = value.start, value.end
    if not isinstance(start, (int, float)) and type(value.globalOffsets) is dict:
        start, end = value.globalOffsets.get("start"), value.globalOffsets.get("end")
    if isinstance(value.start, str):
        start, end = _stamp(value.start), _stamp(None if value.end is UNSET else value.end)
    if not (_number(start) and _number(end)) or end < start:
        raise Unusual  # the general parser words which bound is wrong
    return (float(start), float(end)), None


def _stamp(v: Any) -> float | None:
    """A time-series bound given as a date, in seconds since the epoch (None: none)."""
    t = _seconds(v)
    return None if math.isnan(t) else t


def _reader(shape: Shape, timestamps: bool = False) -> Callable[[_Result, _Value], Geometry] | None:
    """How a result's ``value`` gives a region of ``shape`` (``timestamps``: bounds may be
    dates)."""
    if shape.linear:
        return _times if timestamps else _span
    if shape.vertices:
        return _polygon
    if shape.tolerance:
        return _keypoint
    if shape.pixels:
        return _mask
    return _box if shape.rotates else None


_REGIONS = {
    name: (LABEL_KEYS.get(name, (str(k.value_key),)), shape, read, k.ranges)
    for name, k in registry().items()
    if k.family == "region"
    and k.value_key in _Value.__struct_fields__
    and (read := _reader(shape := shape_of(REGION_SHAPES[name]), k.timestamps)) is not None
}
"""The region kinds whose labels a typed ``value`` holds (spans of text, hypertext and
paragraphs, time series, boxes, polygons, keypoints, masks, timelines) → the keys of their labels
(:data:`.rules.LABEL_KEYS`), their shape, geometry reader and whether a result holds ranges of
frames."""
_TOOLS = {
    name: ((name,), shape, read, k.ranges)
    for name, k in registry().items()
    if name in REGION_SHAPES
    and k.value_key is None
    and name in _Value.__struct_fields__
    and (read := _reader(shape := shape_of(REGION_SHAPES[name]))) is not None
}
"""Label Studio's unlabelled tools (``rectangle``, ``polygon``, ``keypoint``, ``brush``…): their
regions carry the labels of a ``labels`` result of the same id (:func:`_given`), or none."""
_ALL_REGIONS = _REGIONS | _TOOLS


def _labels(value: _Value, keys: tuple[str, ...]) -> Any:
    """A region's labels: under the first of ``keys`` its value has (None: none)."""
    for key in keys:
        labels = getattr(value, key)
        if labels is not UNSET:
            return labels
    return None


def _frames(rc: RegionColumn, rid: str, value: _Value) -> None:
    """A timeline result's frame ranges ``[start, end]`` (inclusive), each appended to ``rc``
    as a span ``[start, end + 1)`` of frames (``<id>#<n>``, n from 1) per label, as the
    general parser reads them (anything it refuses: :class:`Unusual`)."""
    ranges, labels = value.ranges, value.timelinelabels
    if type(ranges) is not list or not ranges or value.text is not UNSET:
        raise Unusual
    if type(labels) is not list or not labels or set(map(type, labels)) != _STR:
        raise Unusual
    rows = []
    for n, r in enumerate(ranges, 1):
        if type(r) is not dict:
            raise Unusual
        start: Any = r.get("start")
        end: Any = r.get("end")
        if not (_number(start) and _number(end)) or end < start:
            raise Unusual
        rows += [(f"{rid}#{n}", label, float(start), float(end) + 1.0) for label in labels]
    for region, label, start, end in rows:
        rc.ids.append(region)
        rc.label.append(rc.code(label))
        rc.coords.extend((start, end))


def _number(v: Any) -> bool:
    return type(v) is int or type(v) is float


def _who(ann: _Annotation, names: dict[str, str]) -> str:
    """The annotator, as the general parser names them (and their display name, into
    ``names``)."""
    try:
        return annotator_id(0, {"completed_by": ann.completed_by}, names)
    except TaskError:
        raise Unusual from None


def _decode(raw: msgspec.Raw, decoder: msgspec.json.Decoder[_T]) -> _T:
    """``raw`` (a task, or its ``completions``) as typed structs. What is never read may hold
    anything: the result of a cancelled annotation or of iaa-gate's own consensus
    prediction."""
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError:
        pass
    try:
        doc = msgspec.json.decode(raw)
        if not _unread_dropped(doc):
            raise Unusual  # the rule broken is in what is read: the general parser words it
        return decoder.decode(msgspec.json.encode(doc))
    except (msgspec.ValidationError, msgspec.DecodeError, msgspec.EncodeError):
        raise Unusual from None


def _unread_dropped(doc: Any) -> bool:
    """Drop the results of ``doc`` (a decoded task, or a completions list) that are never
    read; whether any was there."""
    groups: list[tuple[Any, Callable[[dict[str, Any]], bool]]] = [(doc, _cancelled)]
    if isinstance(doc, dict):
        groups = [(doc.get("annotations"), _cancelled), (doc.get("predictions"), _consensus)]
    dropped = False
    for items, unread in groups:
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("result") is not None and unread(item):
                item["result"] = None
                dropped = True
    return dropped


def _cancelled(ann: dict[str, Any]) -> bool:
    return bool(ann.get("was_cancelled"))


def _consensus(prediction: dict[str, Any]) -> bool:
    return model_version(prediction.get("model_version")) is None


def read_task(
    raw: msgspec.Raw,
    cols: Columns,
    stats: SourceStats,
    names: dict[str, str],
    texts: dict[tuple[TaskId, str], str],
    include_ground_truth: bool,
    refs: References,
) -> TaskId:
    """Append task ``raw``'s annotations to ``cols``; returns the task id. Raises
    :class:`Unusual` (having changed nothing) when the general parser must read it."""
    task = _decode(raw, DECODER)
    task_id = task.id
    if not plain_id(task_id):
        raise Unusual
    anns = task.annotations
    if anns is UNSET:
        anns = _decode(task.completions, _COMPLETIONS) if len(task.completions) else None
    anns = anns or []
    mark = cols.mark()
    new_names: dict[str, str] = {}
    try:
        counts, spans = _append(task_id, anns, cols, new_names, include_ground_truth)
        found: dict[str, str] = {}
        if spans:
            data = msgspec.json.decode(task.data) if len(task.data) else None
            for name in spans:
                if (task_id, name) not in texts:
                    text = _text(data if isinstance(data, dict) else {}, anns, name)
                    if text is not None:
                        found[name] = text
        predictions = [
            (p.id, p.model_version, _prediction(p.result, p.id))
            if isinstance(p, _Prediction) and model_version(p.model_version) is not None
            else p
            if not isinstance(p, _Prediction)
            else (p.id, p.model_version, {})  # iaa-gate's consensus: never read
            for p in task.predictions or ()
        ]
    except Unusual:
        cols.rollback(mark)
        raise
    for name, text in found.items():
        texts[task_id, name] = text
    names.update(new_names)
    if task.predictions or any(a.parent_prediction is not None for a in anns):
        meta = msgspec.json.decode(task.meta) if task.predictions and len(task.meta) else None
        own = own_predictions(meta)
        listed = task.annotations or ()  # a prediction's parents: annotations, not completions
        refs.add(task_id, predictions, [(a.id, a.parent_prediction) for a in listed], own)
    stats.annotations += len(anns)
    stats.cancelled += counts[0]
    stats.empty += counts[1]
    stats.ground_truth_excluded += counts[2]
    return task_id


def _append(
    task_id: TaskId,
    anns: list[_Annotation],
    cols: Columns,
    names: dict[str, str],
    include_ground_truth: bool,
) -> tuple[tuple[int, int, int], set[str]]:
    """Append ``anns`` to ``cols``; (cancelled, empty selections, ground truth left out) and
    the span fields seen."""
    cancelled = empty = excluded = 0
    spans: set[str] = set()
    columns, append, who_index = cols.fields, cols.append, cols.annotator_index
    t = cols.slot(task_id)
    for ann in anns:
        who = ann.completed_by
        try:
            if (type(who) is int or type(who) is str) and (
                a := who_index.get(str(who))
            ) is not None:
                pass  # a known annotator (the common case)
            else:
                a = cols.who(_who(ann, names))
            created, updated = _seconds(ann.created_at), _seconds(ann.updated_at)
        except Unusual:
            if not ann.was_cancelled:
                raise
            cancelled += 1
            continue  # no annotator or time: the skip supersedes nothing
        if ann.was_cancelled:
            cancelled += 1
            append(t, a, created, updated, False, ann.id, True)
            continue
        truth = bool(ann.ground_truth)
        result = ann.result
        if result and len(result) == 1 and result[0].type in SCALARS:
            r = result[0]
            v = _scalar(r, r.type)
            empty += v == ()
            if truth and not include_ground_truth:
                excluded += 1
                continue
            row = append(t, a, created, updated, truth, ann.id, False)
            if v is not None:
                col = columns.get(r.from_name)
                if col is None:
                    col = columns[r.from_name] = FieldColumn(r.type)
                col.add(row, v, None)
            continue
        if truth and not include_ground_truth:  # read (its empty selections count), not kept
            empty += _fields(result or [], spans, ann.id, Columns(), 0)
            excluded += 1
            continue
        row = append(t, a, created, updated, truth, ann.id, False)
        if result:
            empty += _fields(result, spans, ann.id, cols, row)
    return (cancelled, empty, excluded), spans


def _seconds(v: Any) -> float:
    """An annotation's time in seconds since the epoch (NaN: none), as :func:`.rules.time_of`
    reads it."""
    if v is None:
        return _NAN
    try:
        t = time_of(v, "")
    except TaskError:
        raise Unusual from None
    return _NAN if t is None else t.timestamp()


def _scalar(item: _Result, kind: str) -> tuple[str, ...] | float | str | None:
    """A scalar result's answer (None: no rating given); a value with a region's geometry is
    a per-region answer, not one of the task."""
    value = item.value
    if value is None or type(item.from_name) is not str:
        raise Unusual
    if (
        value.start is not UNSET
        or value.end is not UNSET
        or value.x is not UNSET
        or value.y is not UNSET
        or value.points is not UNSET
        or value.globalOffsets is not UNSET
    ):
        raise Unusual  # the general parser words which region is missing
    answer: tuple[str, ...] | float | str | None = _answer(kind, item)
    return answer


def _answer(kind: str, item: _Result) -> Any:
    """Result ``item``'s answer, as kind ``kind`` reads its value (:attr:`~iaa_gate.kinds.Kind.
    read`; None: none given); ``""`` for a kind iaa-gate lists or does not know (its field is
    listed as not evaluated)."""
    k = _READ.get(kind)
    if k is None:
        return ""
    read, key = k
    v = getattr(item.value, key)
    try:
        return read({key: None if v is UNSET else v}, item.from_name)
    except AnswerError:
        raise Unusual from None


def _prediction(result: list[_Result] | None, prediction_id: Any) -> dict[str, FieldValue]:
    """A prediction's fields, as :func:`_fields` reads them (one scalar result, the common
    case, without a column store)."""
    if result and len(result) == 1 and result[0].type in SCALARS:
        v = _scalar(result[0], result[0].type)
        return {} if v is None else {result[0].from_name: FieldValue(result[0].type, v)}
    one = Columns()
    _fields(result or [], set(), prediction_id, one, 0)
    out: dict[str, FieldValue] = {}
    for name, col in one.fields.items():
        sets = col.region_sets()
        out[name] = FieldValue(col.kind, col.values[col.codes[0]], sets[0] if sets else None)
    return out


_INT, _STR, _LIST, _ONE, _TWO, _NUMBER = {int}, {str}, {list}, {1}, {2}, {int, float}
_TYPE, _FROM, _VALUE, _ID, _TEXT, _START, _END = map(
    attrgetter, ("type", "from_name", "value", "id", "text", "start", "end")
)
_FIRST = itemgetter(0)


def _one_field(result: list[_Result], spans: set[str], cols: Columns, row: int) -> bool:
    """The usual region answer read a column at a time: every result a region of one field and
    kind with an id and one label (spans with their text). False, having changed nothing, for
    any other: :func:`_fields` reads it item by item."""
    kind, name = result[0].type, result[0].from_name
    if kind not in _REGIONS or type(name) is not str:
        return False
    if set(map(_TYPE, result)) != {kind} or set(map(_FROM, result)) != {name}:
        return False
    values: list[_Value] = list(map(_VALUE, result))
    ids = list(map(_ID, result))
    if None in values or set(map(type, ids)) != _STR:
        return False
    keys, shape, read, ranges = _REGIONS[kind]
    if ranges or (read is not _span and read is not _box) or len(keys) > 1:
        return False  # polygons, keypoints, timelines, hypertext: item by item
    key = keys[0]
    labels = list(map(attrgetter(key), values))
    if set(map(type, labels)) != _LIST or set(map(len, labels)) != _ONE:
        return False
    firsts = list(map(_FIRST, labels))
    if set(map(type, firsts)) != _STR:
        return False
    if shape.linear:
        starts, ends = list(map(_START, values)), list(map(_END, values))
        if not (
            set(map(type, chain(starts, ends))) == _INT
            and min(starts) >= 0
            and all(map(le, starts, ends))
            and set(map(type, map(_TEXT, values))) == _STR
        ):
            return False
        coords: Any = chain.from_iterable(zip(starts, ends, strict=True))  # floats in the array
    else:
        box = [(v.x, v.y, v.width, v.height, v.rotation or 0.0) for v in values]
        if not set(map(type, chain.from_iterable(box))) <= _NUMBER:
            return False
        sizes = [(r.original_width, r.original_height) for r in result]
        if sizes.count((None, None)) == len(sizes):  # no image size: the numbers as given
            coords = chain.from_iterable(box)
        else:  # as :func:`_fields` scales: percent of the image → pixels, where its size is known
            scale = [
                (w / 100.0, h / 100.0, w / 100.0, h / 100.0)
                if _number(w) and _number(h) and w > 0 and h > 0
                else (1.0, 1.0, 1.0, 1.0)
                for w, h in sizes
            ]
            geometry = np.array(box, dtype=np.float64)
            geometry[:, 0:4] *= np.array(scale, dtype=np.float64)
            coords = geometry.reshape(-1)
    col = cols.fields.get(name)
    if col is None:
        col = cols.fields[name] = FieldColumn(kind)
    col.rows.append(row)
    col.codes.append(col.code(""))
    rc = col.region_column(len(col.rows) - 1)
    rc.answer(shape.name)
    if shape.linear:
        spans.add(name)
    rc.ids += ids
    known = rc.label_index
    rc.label.extend([known[x] if x in known else rc.code(x) for x in firsts])
    rc.coords.extend(coords)
    return True


def _fields(
    result: list[_Result], spans: set[str], annotation_id: Any, cols: Columns, row: int
) -> int:
    """Append the fields of one annotation's (or prediction's) ``result`` to ``cols`` as
    annotation ``row``, a region field's regions straight into its
    :class:`~iaa_gate.model.RegionColumn`; returns the empty selections. A region without an
    id is read under :func:`.rules.region_id`. Raises :class:`Unusual` part way: the caller
    rolls ``cols`` back."""
    if result and _one_field(result, spans, cols, row):
        return 0
    columns = cols.fields
    given_by, given, listed = _given(result, annotation_id)
    undo: dict[str, tuple[bool, int]] = {}  # a region field: it had no regions, its values
    regions: dict[str, tuple[str, RegionColumn, int]] = {}
    others: list[tuple[str, _Result]] = []
    relations: list[_Result] = []
    for index, item in enumerate(result):
        kind, name, value = item.type, item.from_name, item.value
        if kind == RELATION:
            relations.append(item)
            continue
        if type(name) is not str or value is None or type(kind) is not str:
            raise Unusual
        if kind not in _ALL_REGIONS:
            kind = kind.lower()  # Label Studio's types are lower case; scripts may not be
        if kind not in _ALL_REGIONS:
            if not _hashable(item.id):
                raise Unusual
            others.append((kind, item))
            continue
        if id(item) in given_by:  # the labels of a region drawn with another tool
            if id(item) in listed:  # one iaa-gate lists: listed under the labels' name
                others.append((kind, item))
            continue
        keys, shape, read, ranges = _ALL_REGIONS[kind]
        rid = item.id
        if rid is None:
            rid = region_id(annotation_id, index)
        elif not isinstance(rid, (str, int)):  # True too, as the general parser reads it
            raise Unusual
        known = regions.get(name)
        if known is None:
            col = columns.get(name)
            if col is None:
                col = columns[name] = FieldColumn(kind)
            undo[name] = (col.regions is None, len(col.values))
            col.rows.append(row)
            col.codes.append(col.code(""))
            rc = col.region_column(len(col.rows) - 1)
            known = regions[name] = (kind, rc, rc.answer(shape.name))
            if read in (_span, _times) and not ranges:  # a timeline's spans are frames
                spans.add(name)
        elif known[0] != kind:
            raise Unusual
        rc = known[1]
        if ranges:  # a timeline: one region per range of frames
            _frames(rc, str(rid), value)
            continue
        geometry, outline = read(item, value)
        labels = _labels(value, keys)
        if labels is None:
            labels = given.get(rid, [])
        if type(labels) is str:
            labels = [labels]
        if type(labels) is not list or not all(type(x) is str for x in labels):
            raise Unusual
        if not labels:
            if needs_label(kind):
                raise Unusual  # the general parser names an unlabelled region
            labels = [""]  # an unlabelled tool's region
        rid = str(rid)
        for label in labels:  # one row per label
            rc.ids.append(rid)
            rc.label.append(rc.code(label))
            rc.coords.extend(geometry)
            if outline is not None:
                rc.points.append(outline)
    if not relations and not others:
        return 0
    owner: dict[str, tuple[str, RegionColumn, int]] = {}
    for name, (_, rc, k) in regions.items():
        owner.update(dict.fromkeys(rc.ids[rc.first[k] :], (name, rc, k)))
    for item in relations:
        ends, labels = (item.from_id, item.to_id), item.labels or []
        if not all(type(e) is str and e in owner for e in ends):
            raise Unusual
        if type(labels) is not list or not all(type(x) is str for x in labels):
            raise Unusual
        name, rc, k = owner[ends[0]]
        if name != owner[ends[1]][0]:
            rc.dropped[k] += 1  # between two fields: not evaluated
        else:
            rc.relations.append((k, ends[0], ends[1], "|".join(sorted(labels))))
    fields = {name: _REGION_SET for name in regions}
    _answers(others, owner, fields, listed)
    for name, fv in fields.items():
        if fv is _REGION_SET:
            continue
        if name in regions:  # an answer under a region field's name replaces its regions
            _unread(cols.fields, name, undo[name])
        cols.value(row, name, fv)
    return sum(fv.value == () for fv in fields.values())


_REGION_SET = FieldValue("", "")
"""Where :func:`_answers` finds a region field's regions (read into its column already)."""


def _unread(columns: dict[str, FieldColumn], name: str, undo: tuple[bool, int]) -> None:
    """Drop the last answer of field ``name``, its regions (``undo``: whether the field had no
    regions before, and its number of values): the general parser's answer of the same name,
    read after it, replaces it."""
    col, (no_regions, values) = columns[name], undo
    k = len(col.rows) - 1
    del col.rows[k:], col.codes[k:]
    if col.regions is not None:
        col.regions.truncate(k)
    if no_regions:
        col.regions = None
    for value in col.values[values:]:
        del col.index[value]
    del col.values[values:]
    if not k:
        del columns[name]


def _given(
    result: list[_Result], annotation_id: Any
) -> tuple[set[int], dict[Any, list[str]], dict[int, str]]:
    """The ``labels`` results of ``result`` that label a region drawn with another tool (a
    ``<Labels>`` naming the ``<Rectangle>`` regions of an image: no span bounds, and a region
    result has their id), as the general parser finds them: ``id()`` of each, the labels they
    give by region id, and ``id()`` → the tool's type of those labelling a region of a tool
    iaa-gate lists (an ellipse, a video track: the labels' field is listed as that tool). A
    region without an id has the one the general parser gives it (:func:`.rules.region_id`).
    :class:`Unusual` for anything else such a result may be (no region of its id, a region
    whose id is no string or whole number): the general parser words it."""
    tool_labels = [
        item
        for item in result
        if type(item.type) is str
        and item.type in LABELS_OF_TOOLS
        and item.value is not None
        and item.value.start is UNSET
        and item.value.end is UNSET
        and item.value.globalOffsets is UNSET
    ]
    if not tool_labels:
        return set(), {}, {}
    labelling = set(map(id, tool_labels))
    tools: dict[Any, str] = {}
    for index, item in enumerate(result):
        rid, kind = item.id, str(item.type).lower()
        if not _hashable(rid):
            raise Unusual
        if kind in REGION_SHAPES and id(item) not in labelling:  # a region
            if rid is None:  # read under the id the general parser gives it
                rid = region_id(annotation_id, index)
            elif not isinstance(rid, (str, int)):  # True too, as the general parser reads it
                raise Unusual  # the general parser words the problem
        if kind not in SCALAR_KINDS | LABELS_OF_TOOLS | {RELATION}:
            tools[rid] = kind
    given: dict[Any, list[str]] = {}
    listed: dict[int, str] = {}
    for item in tool_labels:
        labels, tool = item.value.labels, tools.get(item.id)  # type: ignore[union-attr]
        if tool is None or type(labels) is not list or not all(type(x) is str for x in labels):
            raise Unusual
        if tool in REGION_SHAPES:
            given.setdefault(item.id, []).extend(labels)
        else:
            listed[id(item)] = tool
    return labelling, given, listed


def _answers(
    items: list[tuple[str, _Result]],
    owner: dict[str, tuple[str, RegionColumn, int]],
    fields: dict[str, FieldValue],
    listed: dict[int, str],
) -> None:
    """Read the results ``items`` (kind, result) that are no region into ``fields``, or into
    the attributes of the region they describe (``owner``: region id → its field, its
    :class:`~iaa_gate.model.RegionColumn` and answer). A result
    whose id is a chat message's answers about that message: an annotation's answers to one
    such field are one value (:mod:`~iaa_gate.kinds.messages`); one of a control iaa-gate
    does not score per message is listed (``permessage``), as is one about a region iaa-gate
    lists (``perregion``). Of two results of one field the last scalar answer counts; a
    listed kind never replaces an answer. ``fields`` holds each region field as
    :data:`_REGION_SET`, which an answer of its name replaces as any other answer (as the
    general parser reads it). ``listed`` (:func:`_given`): labels of a region drawn with a
    tool iaa-gate lists, their field listed as that tool."""
    messages = chat_messages(
        (item.id, item.value.chatmessage)
        for kind, item in items
        if item.type == CHAT_MESSAGE and item.value is not None
    )
    unscored = {
        item.id for kind, item in items if kind in _UNSCORED_REGIONS and item.id is not None
    }
    per_message: dict[str, tuple[str, dict[str, Any]]] = {}
    for kind, item in items:
        name, rid = item.from_name, item.id
        if id(item) in listed:  # labels of a listed tool's region: the first listing stays
            fields.setdefault(name, FieldValue(listed[id(item)], ""))
            continue
        if rid in messages and kind != CHAT_MESSAGE:  # about one chat message
            v = _answer(kind, item) if message_kind(kind) in _MESSAGE_KINDS else None
            if v is None:
                fields[name] = FieldValue("permessage", "")  # listed, never one task answer
                continue
            answer = list(v) if isinstance(v, tuple) else v
            per_message.setdefault(name, (kind, {}))[1][messages[rid]] = answer
            continue
        if rid in unscored and kind in SCALAR_KINDS:  # about a region iaa-gate lists
            fields[name] = FieldValue("perregion", "")
            continue
        if type(rid) is str and rid in owner:  # a per-region attribute of region ``rid``
            _, rc, k = owner[rid]
            v = _answer(kind, item)
            if v is not None:
                rows, values = rc.attribute(name, kind)
                first = rc.first[k]
                at = [first + i for i, r in enumerate(rc.ids[first:]) if r == rid]
                rows.extend(at)
                values += [v] * len(at)
            continue
        v = _scalar(item, kind) if kind in SCALAR_KINDS else _answer(kind, item)
        if v is None or (name in fields and kind not in SCALAR_KINDS):
            continue  # no answer given; or a listed control beside an answer
        fields[name] = FieldValue(kind, v)
    for name, (kind, answers) in per_message.items():
        fields[name] = FieldValue(message_kind(kind), encode_messages(answers))


def _hashable(rid: Any) -> bool:
    return rid is None or type(rid) in (str, int, float, bool)


def _text(data: dict[str, Any], anns: list[_Annotation], name: str) -> str | None:
    """The text field ``name``'s spans index into, as the general parser finds it, from the
    first annotation that tells it: of one whose spans in the field include one with a
    ``text`` (bounds without one, an audio span's seconds, index no text), the data key named
    by their ``to_name``, else the one string of ``data`` in which each span's ``text`` sits
    at its offsets."""
    for a in anns:
        results = [r for r in a.result or () if r.from_name == name]
        values = [r.value for r in results if r.value is not None]  # none: refused by _fields
        if a.was_cancelled or all(v.text is UNSET for v in values):
            continue
        to_names = {str(r.to_name) for r in results}
        if len(to_names) == 1 and isinstance(text := data.get(to_names.pop()), str):
            return text
        checks = [
            (int(v.start), int(v.end), v.text)
            for v in values
            if isinstance(v.start, int) and isinstance(v.end, int) and isinstance(v.text, str)
        ]
        if (text := text_holding(data, checks)) is not None:
            return text
    return None
