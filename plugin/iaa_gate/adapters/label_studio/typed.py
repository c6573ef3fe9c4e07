"""The fast path of a Label Studio export: each task decoded by msgspec into typed structs that
hold only what iaa-gate reads, then appended to :class:`~iaa_gate.model.Columns`.

It decides every task without regions (each answer read by its kind's reader: choices, rating,
number, textarea, taxonomy, pairwise, rankings; chat messages and the answers about one;
per-region answers; listed and unknown controls as not evaluated), and the region shapes spans
with character offsets and rectangles. Another region shape, and anything malformed, raises
:class:`Unusual`: the caller then reads that task with the general parser, which reads the
region or words the error. The two paths are tested to agree on every example, corpus file
and generated shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timezone
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from ...kinds import LISTED_KINDS, REGION_SHAPES, SCALAR_KINDS, AnswerError, registry
from ...kinds.messages import CHAT_MESSAGE
from ...kinds.messages import encode as encode_messages
from ...kinds.messages import kind_of as message_kind
from ...kinds.unscored import NOT_REGIONS, RELATION
from ...metrics.geometry import shape_of
from ...model import Columns, FieldColumn, FieldValue, RegionSet, SourceStats, TaskId
from .rules import (
    References,
    TaskError,
    annotator_id,
    chat_messages,
    model_version,
    own_predictions,
    plain_id,
    region_id,
    time_of,
)


class Unusual(Exception):
    """The task holds a region shape the typed reader leaves to the general parser, or breaks
    a rule, which the general parser words."""


class _Value(msgspec.Struct, gc=False):
    # an answer is checked by its kind's reader, so any JSON under its key is decoded
    choices: Any = None
    rating: Any = None
    number: Any = None
    text: Any = None
    taxonomy: Any = None
    ranker: Any = None
    selected: Any = None
    chatmessage: Any = None
    start: Any = UNSET
    end: Any = UNSET
    labels: Any = None
    rectanglelabels: Any = None
    x: Any = UNSET
    y: Any = UNSET
    width: Any = None
    height: Any = None
    rotation: Any = None
    points: Any = UNSET
    globalOffsets: Any = UNSET


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
_REGIONS = {
    name: (str(k.value_key), REGION_SHAPES[name], shape_of(REGION_SHAPES[name]).linear)
    for name, k in registry().items()
    if k.family == "region" and k.value_key in _Value.__struct_fields__
}
"""The region kinds whose labels a typed ``value`` holds (spans, boxes) → their key, shape and
whether it is linear (a span: ``start``/``end``; else a box)."""


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
        if not result:
            fields: dict[str, FieldValue] | None = None
        elif len(result) == 1 and result[0].type in SCALARS:
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
        else:
            fields = _fields(result, spans, ann.id)
            empty += sum(fv.value == () for fv in fields.values())
        if truth and not include_ground_truth:
            excluded += 1
            continue
        row = append(t, a, created, updated, truth, ann.id, False)
        for name, fv in (fields or {}).items():
            cols.value(row, name, fv)
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
    try:
        return read({key: getattr(item.value, key)}, item.from_name)
    except AnswerError:
        raise Unusual from None


def _prediction(result: list[_Result] | None, prediction_id: Any) -> dict[str, FieldValue]:
    """A prediction's fields, as :func:`_fields` reads them (one scalar result, the common
    case, without building its region tables)."""
    if result and len(result) == 1 and result[0].type in SCALARS:
        v = _scalar(result[0], result[0].type)
        return {} if v is None else {result[0].from_name: FieldValue(result[0].type, v)}
    return _fields(result or [], set(), prediction_id)


def _fields(result: list[_Result], spans: set[str], annotation_id: Any) -> dict[str, FieldValue]:
    """The fields of one annotation's (or prediction's) ``result``; a region without an id is
    read under :func:`.rules.region_id`."""
    regions: dict[str, tuple[str, RegionSet]] = {}
    others: list[tuple[str, _Result]] = []
    relations: list[_Result] = []
    for index, item in enumerate(result):
        kind, name, value = item.type, item.from_name, item.value
        if kind == RELATION:
            relations.append(item)
            continue
        if type(name) is not str or value is None or type(kind) is not str:
            raise Unusual
        if kind not in _REGIONS:
            kind = kind.lower()  # Label Studio's types are lower case; scripts may not be
            if kind in REGION_SHAPES:
                raise Unusual  # a region shape the general parser reads
            if not _hashable(item.id):
                raise Unusual
            others.append((kind, item))
            continue
        key, shape, linear = _REGIONS[kind]
        rid = item.id
        if rid is None:
            rid = region_id(annotation_id, index)
        elif type(rid) is not str and type(rid) is not int:
            raise Unusual
        known = regions.get(name)
        if known is None:
            known = regions[name] = (kind, RegionSet(shape))
            if linear:
                spans.add(name)
        elif known[0] != kind:
            raise Unusual
        rs = known[1]
        if linear:
            start, end = value.start, value.end
            if type(start) is not int or type(end) is not int or not 0 <= start <= end:
                raise Unusual
            if type(value.text) is not str:
                raise Unusual  # the general parser decides whether a text is known
            geometry = [float(start), float(end)]
            labels = getattr(value, key)
        else:
            box = (value.x, value.y, value.width, value.height, value.rotation or 0.0)
            if not all(_number(c) for c in box):
                raise Unusual
            geometry = [float(c) for c in box]
            w, h = item.original_width, item.original_height
            if _number(w) and _number(h) and w > 0 and h > 0:
                w, h = w / 100.0, h / 100.0
                geometry = [
                    geometry[0] * w,
                    geometry[1] * h,
                    geometry[2] * w,
                    geometry[3] * h,
                    geometry[4],
                ]
            labels = getattr(value, key)
        if type(labels) is list and len(labels) == 1 and type(labels[0]) is str:
            rs.ids.append(str(rid))  # one label: the common case
            rs.labels.append(labels[0])
            rs.coords += geometry
            continue
        if type(labels) is str:
            labels = [labels]
        if type(labels) is not list or not labels or not all(type(x) is str for x in labels):
            raise Unusual  # the general parser names an unlabelled region
        rid = str(rid)
        for label in labels:
            rs.ids.append(rid)
            rs.labels.append(label)
            rs.coords += geometry
    fields = {name: FieldValue(k, "", rs) for name, (k, rs) in regions.items()}
    if not relations and not others:
        return fields
    owner = {rid: rs for _, rs in regions.values() for rid in rs.ids}
    for item in relations:
        ends, labels = (item.from_id, item.to_id), item.labels or []
        if not all(type(e) is str and e in owner for e in ends):
            raise Unusual
        if type(labels) is not list or not all(type(x) is str for x in labels):
            raise Unusual
        rs = owner[ends[0]]
        if rs is not owner[ends[1]]:
            rs.dropped_relations += 1  # between two fields: not evaluated
        else:
            rs.relations.append((ends[0], ends[1], "|".join(sorted(labels))))
    _answers(others, regions, owner, fields)
    return fields


def _answers(
    items: list[tuple[str, _Result]],
    regions: dict[str, tuple[str, RegionSet]],
    owner: dict[str, RegionSet],
    fields: dict[str, FieldValue],
) -> None:
    """Read the results ``items`` (kind, result) that are no region into ``fields``, or into
    the attributes of the region they describe (``owner``: region id → its table). A result
    whose id is a chat message's answers about that message: an annotation's answers to one
    such field are one value (:mod:`~iaa_gate.kinds.messages`); one of a control iaa-gate
    does not score per message is listed (``permessage``), as is one about a region iaa-gate
    lists (``perregion``). Of two results of one field the last scalar answer counts; a
    listed kind never replaces an answer."""
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
        if name in regions:
            raise Unusual  # a name clash with a region field: the general parser
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
            rs = owner[rid]
            v = _answer(kind, item)
            if v is not None:
                values = rs.attributes.setdefault(name, (kind, []))[1]
                values += [(i, v) for i, r in enumerate(rs.ids) if r == rid]
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
    """The text field ``name``'s spans index into, as the general parser finds it: the data key
    named by the ``to_name`` of the first annotation with spans in the field."""
    for a in anns:
        to_names = {str(r.to_name) for r in a.result or () if r.from_name == name}
        if a.was_cancelled or not to_names:
            continue
        if len(to_names) == 1 and isinstance(text := data.get(to_names.pop()), str):
            return text
        raise Unusual  # found by the span texts: the general parser
    return None
