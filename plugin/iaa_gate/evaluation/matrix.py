"""Metrics input from the model: one field's ratings as a ``(units, annotators)`` matrix of
integer codes (:func:`ratings_matrix`), or its regions as a table (:func:`region_table`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np

from ..core.errors import InputError
from ..kinds import REGION_SHAPES, Answer
from ..kinds import kind as registered
from ..metrics import Coded, code_dtype
from ..metrics.geometry import shape_of
from ..model import Dataset, FieldColumn, RegionColumn, TaskId, Value, normalise_text, view

IntArray = np.ndarray[Any, np.dtype[np.int64]]
FloatArray = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class RatingsMatrix:
    """One field as metrics input.

    ``coded.codes``: ``(units, annotators)`` integer codes, -1 missing; ``coded.values``: the
    value of each code (labels in label-set order, numbers ascending, or frozensets of labels).
    ``unit_ids``: ``(units,)`` task ids; ``annotators``: ``(annotators,)`` annotator ids.
    ``multiple``: values are label sets (multi-select).
    """

    field: str
    kind: str
    unit_ids: list[TaskId]
    annotators: list[str]
    coded: Coded
    multiple: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.unit_ids), len(self.annotators))

    def numeric(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        """``(units, annotators)`` floats with NaN missing (numeric values only)."""
        table = np.append(self.coded.values.astype(np.float64), np.nan)
        return np.asarray(table[self.coded.codes], dtype=np.float64)

    def label_presence(self, label: str) -> Coded:
        """Multi-select: ``(units, annotators)`` codes 1 = ``label`` chosen, 0 = not, -1 missing."""
        has = np.array([label in v for v in self.coded.values] + [False], dtype=np.int8)
        codes = np.where(self.coded.codes >= 0, has[self.coded.codes], -1).astype(np.int8)
        return Coded(codes, np.array([0.0, 1.0]))

    def labels_of(self, unit: int) -> dict[str, Any]:
        """What each annotator gave unit ``unit`` (row index): ``{annotator: value}``."""
        out: dict[str, Any] = {}
        for a, code in enumerate(self.coded.codes[unit]):
            if code >= 0:
                v = self.coded.values[code]
                out[self.annotators[a]] = sorted(v) if isinstance(v, frozenset) else _plain(v)
        return out


@dataclass(frozen=True)
class ItemAnswers:
    """A field answered item by item within a task (chat messages, ranked items): ``given``
    task row → annotator row → the answer as the caller parsed it; ``annotators``: the rows of
    those who answered, in column order; ``column``: annotator row → column; ``tasks``: the task
    rows answered, in the dataset's task order."""

    given: dict[int, dict[int, Any]]
    annotators: list[int]
    column: dict[int, int]
    tasks: list[int]


def item_answers(dataset: Dataset, name: str, parse: Callable[[Any, int], Any]) -> ItemAnswers:
    """Field ``name``'s non-empty answers (tuples of items), each read by ``parse(value, task
    row)``."""
    cols = dataset.columns()
    col = cols.fields[name]
    task_of = cols.array("task")[col.row_array()].tolist()
    who_of = cols.array("annotator")[col.row_array()].tolist()
    given: dict[int, dict[int, Any]] = {}
    for t, a, c in zip(task_of, who_of, col.code_array().tolist(), strict=True):
        value = col.values[c]
        if isinstance(value, tuple) and value:
            given.setdefault(t, {})[a] = parse(value, t)
    present = sorted({a for answers in given.values() for a in answers})
    order = {t: i for i, t in enumerate(dataset.task_ids)}
    tasks = sorted(given, key=lambda t: order.get(cols.tasks[t], len(order)))
    return ItemAnswers(given, present, {a: i for i, a in enumerate(present)}, tasks)


def _plain(v: Any) -> Any:
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return int(f) if f.is_integer() else f
    return v.item() if isinstance(v, np.generic) else v


def ratings_matrix(
    dataset: Dataset,
    name: str,
    *,
    labels: Sequence[str] | None = None,
    multiple: bool = False,
    empty_set: bool = False,
    min_annotators: int = 2,
    normalize: Collection[str] = ("case", "whitespace"),
) -> RatingsMatrix:
    """The ``(units, annotators)`` matrix of field ``name``.

    ``labels``: the project's label set, in scale order; a label outside it raises
    :class:`InputError` naming every offending task. ``multiple``: values are label sets; when
    false, an annotation with several labels raises :class:`InputError` naming the tasks.
    An empty selection is no rating, or the empty set when ``multiple`` and ``empty_set``.
    Free text is compared after :func:`normalise_text` with ``normalize``.
    Units with fewer than ``min_annotators`` ratings are kept as rows but their ratings are
    blanked when ``min_annotators`` is above 2. A unit rated once stays: no pair of ratings
    comes from it, but the kappa family's chance agreement counts its rating, as Gwet's
    handbook, irrCAC and :mod:`iaa_gate.metrics` do.
    """
    kind = dataset.field_kinds().get(name, "choices")
    cols = dataset.columns()
    col = cols.fields.get(name) or FieldColumn(kind)
    raw: list[Any] = list(col.values)
    if (fk := registered(kind)) is not None and fk.answer is Answer.TEXT:
        raw = [normalise_text(v, normalize) if isinstance(v, str) else v for v in raw]
    keep_empty = multiple and empty_set
    rows, codes = col.row_array(), col.code_array()
    if not keep_empty:
        empty = np.array([v == () for v in raw] + [False], dtype=bool)
        rows, codes = rows[~empty[codes]], codes[~empty[codes]]

    def where(task: TaskId, annotator: str) -> str:
        return f"task {task}, field {name!r}, annotator {dataset.display_name(annotator)}"

    def cells_of(bad: set[int]) -> list[tuple[TaskId, str, tuple[str, ...] | float | str]]:
        """The (task, annotator, value) of the rows whose value code is in ``bad``."""
        hit = np.isin(codes, list(bad))
        task, ann = cols.array("task")[rows[hit]], cols.array("annotator")[rows[hit]]
        return [
            (cols.tasks[t], cols.annotators[a], raw[c])
            for t, a, c in zip(task.tolist(), ann.tolist(), codes[hit].tolist(), strict=True)
        ]

    if not multiple:
        several = {c for c, v in enumerate(raw) if isinstance(v, tuple) and len(v) > 1}
        problems = [
            f"{where(task, annotator)}: {len(v)} values {list(v)} in a single-choice field"
            for task, annotator, v in (cells_of(several) if several else [])
            if isinstance(v, tuple)
        ]
        if problems:
            raise InputError(
                dataset.source,
                problems,
                hint=f"if annotators may choose several labels, set fields.{name}.multiple: true "
                "(label sets, compared with MASI); else fix the annotations",
            )
    if labels is not None:
        allowed = set(labels)
        outside = {
            c
            for c, v in enumerate(raw)
            if any(
                (f"{x:g}" if isinstance(x, float) else x) not in allowed
                for x in (v if isinstance(v, tuple) else (v,))
            )
        }
        if outside:
            _check_labels(dataset, name, cells_of(outside), labels, where)
    row_task = cols.array("task")[rows]
    row_ann = cols.array("annotator")[rows]
    unit_ids = list(dataset.task_ids)
    unit_of = _units(unit_ids, cols.tasks, row_task)
    annotators, col_of = _columns(cols.annotators, row_ann)

    def norm(v: tuple[str, ...] | float | str) -> Value:
        if isinstance(v, tuple):
            return frozenset(v) if multiple else v[0]
        return v

    used = np.unique(codes).tolist()
    normed = {c: norm(raw[c]) for c in used}
    table = _value_table(list(normed.values()), labels, multiple=bool(multiple))
    lookup = {v: i for i, v in enumerate(table)}
    recode = np.full(len(raw) + 1, -1, dtype=np.int64)
    for c, v in normed.items():
        recode[c] = lookup[v]
    out = np.full((len(unit_ids), len(annotators)), -1, dtype=code_dtype(len(table)))
    out[unit_of[row_task], col_of[row_ann]] = recode[codes]
    if min_annotators > 2:
        few = np.count_nonzero(out >= 0, axis=1) < min_annotators
        out[few] = -1
    arr = np.empty(len(table), dtype=object)
    arr[:] = table
    if table and all(isinstance(v, float) for v in table):
        arr = arr.astype(np.float64)
    return RatingsMatrix(name, kind, unit_ids, annotators, Coded(out, arr), bool(multiple))


def _check_labels(
    dataset: Dataset,
    name: str,
    cells: list[tuple[TaskId, str, tuple[str, ...] | float | str]],
    labels: Sequence[str],
    where: Callable[[TaskId, str], str],
) -> None:
    """Raise :class:`InputError` naming each label outside ``labels`` once (with its first task
    and how often it occurs)."""
    allowed = set(labels)
    bad: dict[str, list[str]] = {}
    for task, annotator, v in cells:
        for lab in v if isinstance(v, tuple) else (v,):
            text = f"{lab:g}" if isinstance(lab, float) else lab
            if text not in allowed:
                bad.setdefault(text, []).append(where(task, annotator))
    if not bad:
        return
    problems = [
        f"{at[0]}: label {lab!r} is not in the configured label set {list(labels)}"
        + (f" (and {len(at) - 1} more annotations)" if len(at) > 1 else "")
        for lab, at in bad.items()
    ]
    hint = f"add the label to fields.{name}.labels, or fix the annotations"
    if set(bad) <= {"accept", "reject"}:
        hint = (
            "a binary Prodigy view's answers are accept and reject: set "
            f"fields.{name}.labels: [accept, reject], or remove labels"
        )
    raise InputError(dataset.source, problems, hint=hint)


def _value_table(values: list[Value], labels: Sequence[str] | None, *, multiple: bool) -> list[Any]:
    seen = set(values)
    if multiple:
        sets = [v for v in seen if isinstance(v, frozenset)]
        order = {lab: i for i, lab in enumerate(labels or sorted({x for v in sets for x in v}))}
        return sorted(sets, key=lambda s: (len(s), sorted(order.get(x, 0) for x in s)))
    if labels is not None and not all(isinstance(v, float) for v in seen):
        return [*labels, *sorted(str(v) for v in seen if v not in labels)]
    return sorted(seen, key=lambda v: (isinstance(v, str), v))


def _natural(s: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s))


@dataclass(frozen=True)
class RegionTable:
    """One region field, columnar: ``n`` regions over ``(units, annotators)``.

    Per region: ``unit``, ``annotator`` (row/column indices), ``label`` (code into ``labels``, -1
    none), ``geometry`` ``(n, d)`` (``d``: its shape's ``width``), ``region_ids`` (source ids),
    ``points`` (polygons: ``(k, 2)`` vertices each; masks: ``(k, 2)`` runs of pixels).
    ``rated``: ``(units, annotators)`` the annotator answered the task, even with no region (a
    skip is not an answer). ``texts``: ``(units,)`` the text spans index into, ``None`` where
    unknown. Relations, per relation:
    ``rel_from``/``rel_to`` (region rows) and ``rel_label`` (code into ``rel_labels``).
    ``attributes``: per-region attribute → (control type, region rows, values).
    """

    field: str
    kind: str
    shape: str
    unit_ids: list[TaskId]
    annotators: list[str]
    unit: IntArray
    annotator: IntArray
    label: IntArray
    labels: tuple[str, ...]
    geometry: FloatArray
    region_ids: list[str]
    points: list[FloatArray] | None
    rated: np.ndarray[Any, np.dtype[np.bool_]]
    texts: list[str | None]
    rel_from: IntArray
    rel_to: IntArray
    rel_label: IntArray
    rel_labels: tuple[str, ...]
    dropped_relations: int
    attributes: dict[str, tuple[str, IntArray, list[Any]]]

    @property
    def n(self) -> int:
        return len(self.unit)


def _codes(values: list[str], order: Sequence[str] | None) -> tuple[IntArray, tuple[str, ...]]:
    """``values`` as codes into a label table (``order`` first, then the rest sorted); ``""``
    → -1."""
    table = list(order or [])
    table += sorted(set(values) - set(table) - {""})
    index = {lab: i for i, lab in enumerate(table)}
    index[""] = -1
    return np.fromiter(map(index.__getitem__, values), np.int64, len(values)), tuple(table)


def region_table(
    dataset: Dataset, name: str, *, labels: Sequence[str] | None = None
) -> RegionTable:
    """The columnar table of region field ``name``: slices of the field's
    :class:`~iaa_gate.model.RegionColumn`, its regions in the column's order.

    ``labels``: the configured label set; a region label outside it raises :class:`InputError`
    naming every offending task.
    """
    kind = dataset.field_kinds()[name]
    cols = dataset.columns()
    col = cols.fields.get(name)
    rc = RegionColumn() if col is None or col.regions is None else col.regions
    answer_row = col.row_array() if col is not None and col.regions is not None else _NONE
    answer_shape = view(rc.shape)
    has_set = answer_shape >= 0
    shapes = [rc.shapes[c] for c in np.unique(answer_shape[has_set]).tolist()]
    shape = shape_of(REGION_SHAPES[kind])
    if shape.widens_to and shape.widens_to in shapes:
        shape = shape_of(shape.widens_to)  # Prodigy image_manual with some non-rectangle shape
    task_of, who_of = cols.array("task"), cols.array("annotator")
    # Label Studio: every (not skipped) annotation answers the whole labeling config, so one
    # without regions in this field says "nothing here". Prodigy: a line answers its view only.
    if (fk := registered(kind)) is None or not fk.own_view:
        answered = np.arange(len(cols), dtype=np.int64)
    else:
        answered = answer_row[has_set]
    unit_ids = list(dataset.task_ids)
    unit_of = _units(unit_ids, cols.tasks, task_of[answered])
    annotators, col_of = _columns(cols.annotators, who_of[answered])
    rated = np.zeros((len(unit_ids), len(annotators)), dtype=bool)
    rated[unit_of[task_of[answered]], col_of[who_of[answered]]] = True
    n, nc, _ = rc.counts()
    region_row = np.repeat(answer_row, n)  # the annotation row of each region
    label_codes = view(rc.label)
    if labels is not None:
        _check_region_labels(dataset, name, rc, labels, answer_row, n)
    table = list(labels or [])
    used = [rc.labels[c] for c in _distinct_codes(label_codes)]
    table += sorted(set(used) - set(table) - {""})
    index = {lab: i for i, lab in enumerate(table)}
    index[""] = -1
    recode = np.array([index.get(lab, -1) for lab in rc.labels] + [-1], dtype=np.int64)
    coords = view(rc.coords)
    others = [rc.shapes.index(other) for other in shapes if other != shape.name]
    if others:  # read as a wider shape: the first columns of each (a box: its bounds)
        own = np.array([shape_of(s).width for s in rc.shapes] + [1])[answer_shape]
        at = np.arange(len(coords)) - np.repeat(view(rc.cfirst), nc)  # within the answer
        keep = ~np.repeat(np.isin(answer_shape, others), nc) | (
            at % np.repeat(own, nc) < shape.width
        )
        coords = coords[keep]
    points = None  # a polygon's vertices, a mask's runs of pixels
    if shape.points is not None:
        points = list(map(shape.points, rc.points))
    rel = _relations(rc)
    rel_codes, rel_table = _codes([lab for _, _, lab in rel], None)
    attrs: dict[str, tuple[str, list[int], list[Any]]] = {}
    for (attr, akind), (rows, values) in rc.attributes.items():
        entry = attrs.setdefault(attr, (akind, [], []))
        entry[1].extend(rows)
        entry[2].extend(values)
    return RegionTable(
        field=name,
        kind=kind,
        shape=shape.name,
        unit_ids=unit_ids,
        annotators=annotators,
        unit=unit_of[task_of[region_row]],
        annotator=col_of[who_of[region_row]],
        label=recode[label_codes] if len(label_codes) else np.zeros(0, dtype=np.int64),
        labels=tuple(table),
        geometry=np.asarray(coords, dtype=np.float64).reshape(-1, shape.width),
        region_ids=list(rc.ids),
        points=points,
        rated=rated,
        texts=_texts(dataset.texts, unit_ids, name),
        rel_from=np.asarray([f for f, _, _ in rel], dtype=np.int64),
        rel_to=np.asarray([t for _, t, _ in rel], dtype=np.int64),
        rel_label=rel_codes,
        rel_labels=rel_table,
        dropped_relations=int(view(rc.dropped).sum()),
        attributes={
            k: (kind_, np.asarray(rows, dtype=np.int64), vals)
            for k, (kind_, rows, vals) in sorted(attrs.items())
        },
    )


_NONE = np.zeros(0, dtype=np.int64)


def _texts(
    texts: dict[tuple[TaskId, str], str], unit_ids: list[TaskId], name: str
) -> list[str | None]:
    """The text of field ``name`` of each unit (None: none), looked up in a loop in C (boxes
    have none: no lookup at all)."""
    if not texts:
        return [None] * len(unit_ids)
    return list(map(texts.get, zip(unit_ids, repeat(name))))


def _distinct_codes(codes: IntArray) -> list[int]:
    """The distinct ``codes`` (small whole numbers, -1 among them), ascending, as ``np.unique``
    gives them: counted, not sorted (millions of regions, a few labels)."""
    if not codes.size:
        return []
    lo = min(int(codes.min()), 0)
    found: list[int] = (np.flatnonzero(np.bincount(codes - lo)) + lo).tolist()
    return found


def _units(unit_ids: list[TaskId], tasks: list[TaskId], cells: IntArray) -> IntArray:
    """Each task slot's unit (row): its place in ``unit_ids``, to which the tasks of
    ``cells`` (task slots) without one are added in order of first appearance."""
    if unit_ids == tasks:  # the usual: the units are the task slots, in order
        return np.arange(len(tasks), dtype=np.int64)
    unit_index = dict(zip(unit_ids, range(len(unit_ids)), strict=True))
    unit_of = np.fromiter(map(unit_index.get, tasks, repeat(-1)), np.int64, len(tasks))
    first = np.unique(cells, return_index=True)[1]
    new = cells[np.sort(first)]
    new = new[unit_of[new] < 0]  # tasks without a task_ids entry: in cell order
    unit_of[new] = len(unit_ids) + np.arange(len(new))
    unit_ids += [tasks[t] for t in new.tolist()]
    return unit_of


def _columns(names: list[str], cells: IntArray) -> tuple[list[str], IntArray]:
    """The annotators of ``cells`` (indices into ``names``) in natural order, and each name
    index's column among them (-1: none of ``cells``)."""
    present = np.flatnonzero(np.bincount(cells, minlength=len(names))).tolist()  # no sort
    annotators = sorted((names[a] for a in present), key=_natural)
    ann_index = {a: i for i, a in enumerate(annotators)}
    col_of = np.full(len(names), -1, dtype=np.int64)
    for a in present:
        col_of[a] = ann_index[names[a]]
    return annotators, col_of


def _relations(rc: RegionColumn) -> list[tuple[int, int, str]]:
    """The relations as (from region, to region, label): an id names the first region of its
    answer that has it."""
    out: list[tuple[int, int, str]] = []
    n = rc.counts()[0]
    rows: dict[str, int] = {}
    at = -1
    for k, f, t, lab in rc.relations:
        if k != at:
            start, at = rc.first[k], k
            ids = rc.ids[start : start + int(n[k])]
            rows = {rid: start + i for i, rid in reversed(list(enumerate(ids)))}
        out.append((rows[f], rows[t], lab))
    return out


def _check_region_labels(
    dataset: Dataset,
    name: str,
    rc: RegionColumn,
    labels: Sequence[str],
    answer_row: IntArray,
    n: IntArray,
) -> None:
    """Raise :class:`InputError` for the region labels outside ``labels`` (see
    :func:`_check_labels`), each answer with one named by its labels."""
    allowed = set(labels) | {""}
    bad = np.array([lab not in allowed for lab in rc.labels] + [False], dtype=bool)
    codes = view(rc.label)
    if not len(codes) or not bad[codes].any():
        return
    cols = dataset.columns()
    answer = np.repeat(np.arange(len(n)), n)
    hit = np.unique(answer[bad[codes]]).tolist()
    cells: list[tuple[TaskId, str, tuple[str, ...] | float | str]] = []
    for k in hit:
        r = int(answer_row[k])
        own = codes[rc.first[k] : rc.first[k] + int(n[k])].tolist()
        found = tuple(sorted({rc.labels[c] for c in own} - {""}))
        cells.append((cols.tasks[cols.task[r]], cols.annotators[cols.annotator[r]], found))
    _check_labels(
        dataset,
        name,
        cells,
        labels,
        lambda t, a: f"task {t}, field {name!r}, annotator {dataset.display_name(a)}",
    )
