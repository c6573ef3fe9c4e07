"""The fast path of a Label Studio export: each task decoded by msgspec into typed structs that
hold only what iaa-gate reads, then appended to :class:`~iaa_gate.model.Columns`.

It covers the common shapes (choices, rating, number, textarea; spans with character offsets and
rectangles). Anything else, and anything malformed, raises :class:`Unusual`: the caller then
reads that task with the general parser, which gives the same answer or the precise error. The
two paths are tested to agree on every example and corpus file.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

import msgspec
from msgspec import UNSET

from ..model import REGION_SHAPES, Columns, FieldValue, RegionSet, SourceStats, TaskId


class Unusual(Exception):
    """The task is not in a shape the fast path reads: read it with the general parser."""


class _Value(msgspec.Struct, gc=False):
    choices: list[str] | str | None = None
    rating: float | None = None
    number: float | None = None
    text: list[str] | str | None = None
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


class _Annotation(msgspec.Struct, gc=False):
    id: Any = None
    completed_by: Any = None
    result: list[_Result] | None = None
    was_cancelled: Any = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    ground_truth: Any = None


class _Task(msgspec.Struct, gc=False):
    id: Any = None
    annotations: list[_Annotation] | None = None
    data: msgspec.Raw = msgspec.Raw()


DECODER = msgspec.json.Decoder(_Task)
SCALARS = frozenset({"choices", "rating", "number", "textarea"})
MAX_NUMBER = 1e150  # as label_studio_export.MAX_NUMBER


def _seconds(t: datetime | None) -> float:
    if t is None:
        return math.nan
    return (t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)).timestamp()


def _number(v: Any) -> bool:
    return type(v) is int or type(v) is float


def _who(ann: _Annotation, names: dict[str, str]) -> str:
    who = ann.completed_by
    if type(who) is int or type(who) is str:
        return str(who)
    if isinstance(who, dict) and who.get("id") is not None:
        label = who.get("email") or " ".join(
            p for p in (who.get("first_name"), who.get("last_name")) if p
        )
        if label:
            names[str(who["id"])] = str(label)
        return str(who["id"])
    raise Unusual


def read_task(
    raw: msgspec.Raw,
    cols: Columns,
    stats: SourceStats,
    names: dict[str, str],
    texts: dict[tuple[TaskId, str], str],
    include_ground_truth: bool,
) -> TaskId:
    """Append task ``raw``'s annotations to ``cols``; returns the task id. Raises
    :class:`Unusual` (having changed nothing) when the general parser must read it."""
    try:
        task = DECODER.decode(raw)
    except msgspec.ValidationError:
        raise Unusual from None
    task_id = task.id
    anns = task.annotations
    if (type(task_id) is not int and type(task_id) is not str) or anns is None:
        raise Unusual
    new_names: dict[str, str] = {}
    rows: list[tuple[str, float, float, bool, Any, bool, dict[str, FieldValue]]] = []
    cancelled = empty = excluded = 0
    spans: set[str] = set()
    for ann in anns:
        created, updated = _seconds(ann.created_at), _seconds(ann.updated_at)
        if ann.was_cancelled:
            cancelled += 1
            try:
                who = _who(ann, new_names)
            except Unusual:
                continue  # no annotator: the skip supersedes nothing
            rows.append((who, created, updated, False, ann.id, True, {}))
            continue
        who = _who(ann, new_names)
        fields = _fields(ann.result or [], spans)
        empty += sum(fv.value == () for fv in fields.values())
        truth = bool(ann.ground_truth)
        if truth and not include_ground_truth:
            excluded += 1
            continue
        rows.append((who, created, updated, truth, ann.id, False, fields))
    found: dict[str, str] = {}
    if spans:
        data = msgspec.json.decode(task.data) if len(task.data) else None
        for name in spans:
            if (task_id, name) not in texts:
                text = _text(data if isinstance(data, dict) else {}, anns, name)
                if text is not None:
                    found[name] = text
    # committed only now: nothing above changed the caller's state
    for name, text in found.items():
        texts[task_id, name] = text
    names.update(new_names)
    stats.annotations += len(anns)
    stats.cancelled += cancelled
    stats.empty += empty
    stats.ground_truth_excluded += excluded
    for who, created, updated, truth, aid, skipped, fields in rows:
        row = cols.row(
            task_id,
            who,
            created,
            updated,
            ground_truth=truth,
            annotation_id=aid,
            skipped=skipped,
        )
        for name, fv in fields.items():
            cols.value(row, name, fv)
    return task_id


def _fields(result: list[_Result], spans: set[str]) -> dict[str, FieldValue]:
    regions: dict[str, tuple[str, RegionSet]] = {}
    scalars: list[_Result] = []
    for item in result:
        kind, name, value = item.type, item.from_name, item.value
        if type(name) is not str or value is None:
            raise Unusual
        if kind in SCALARS:
            scalars.append(item)
            continue
        if kind != "labels" and kind != "rectanglelabels":
            raise Unusual
        rid = item.id
        if type(rid) is not str and type(rid) is not int:
            raise Unusual
        known = regions.get(name)
        if known is None:
            known = regions[name] = (kind, RegionSet(REGION_SHAPES[kind]))
            if kind == "labels":
                spans.add(name)
        elif known[0] != kind:
            raise Unusual
        rs = known[1]
        if kind == "labels":
            start, end = value.start, value.end
            if type(start) is not int or type(end) is not int or not 0 <= start <= end:
                raise Unusual
            geometry = [float(start), float(end)]
            labels = value.labels
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
            labels = value.rectanglelabels
        if type(labels) is str:
            labels = [labels]
        if type(labels) is not list or not all(type(x) is str for x in labels):
            raise Unusual
        rid = str(rid)
        for label in labels or [""]:
            rs.ids.append(rid)
            rs.labels.append(label)
            rs.coords += geometry
    fields = {name: FieldValue(k, "", rs) for name, (k, rs) in regions.items()}
    ids = {rid for _, rs in regions.values() for rid in rs.ids}
    for item in scalars:
        kind, name, value = item.type, item.from_name, item.value
        assert value is not None
        if name in regions or (ids and str(item.id) in ids):
            raise Unusual  # per-region attributes and name clashes: the general parser
        if any(
            v is not UNSET
            for v in (value.start, value.end, value.x, value.y, value.points, value.globalOffsets)
        ):
            raise Unusual
        if kind == "choices":
            v = value.choices
            if v is None:
                raise Unusual
            fields[name] = FieldValue(kind, (v,) if type(v) is str else tuple(v))
        elif kind == "textarea":
            t = value.text
            if t is None:
                raise Unusual
            fields[name] = FieldValue(kind, t if type(t) is str else "\n".join(t))
        else:
            n = value.rating if kind == "rating" else value.number
            if n is None:
                continue
            if not abs(n) <= MAX_NUMBER:
                raise Unusual
            fields[name] = FieldValue(kind, float(n))
    return fields


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
