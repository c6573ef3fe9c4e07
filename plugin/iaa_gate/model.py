"""The normalised model: annotations from any source, and the ratings matrix of one field.

Sources turn their records into :class:`Annotation` objects (one per annotator and task, every
field's value already normalised); :func:`ratings_matrix` turns one field into the
``(units, annotators)`` integer codes the metrics take.
"""

from __future__ import annotations

import math
import re
import unicodedata
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, overload

import numpy as np

from .core.errors import InputError, Problem
from .metrics import Coded
from .metrics._base import code_dtype

TaskId = int | str
Value = str | float | frozenset[str]
"""A normalised rating: a label, a number, or a set of labels (multi-select)."""

IntArray = np.ndarray[Any, np.dtype[np.int64]]
FloatArray = np.ndarray[Any, np.dtype[np.float64]]

SCALAR_KINDS = {"choices", "rating", "number", "taxonomy", "textarea"}
"""Control types evaluated as one value per task."""
REGION_SHAPES = {
    "labels": "span",
    "hypertextlabels": "span",
    "paragraphlabels": "span",
    "timeserieslabels": "span",
    "spans": "span",
    "rectanglelabels": "box",
    "rectangle": "box",
    "polygonlabels": "polygon",
    "polygon": "polygon",
    "keypointlabels": "keypoint",
    "keypoint": "keypoint",
    "image": "box",
}
"""Region controls evaluated by matching regions: control type → geometry. ``spans`` is a
Prodigy span view, ``image`` Prodigy's ``image_manual`` (boxes, or polygons when any shape is not
a rectangle). Other control types (brushes, ellipses, video…) are listed as not evaluated."""
GEOMETRY_WIDTH = {"span": 2, "box": 5, "polygon": 4, "keypoint": 2}
"""Numbers per region in a geometry row: span ``[start, end)``; box ``[x, y, width, height,
rotation]``; polygon its bounding box ``[x, y, width, height]``; keypoint ``[x, y]``."""


@dataclass
class RegionSet:
    """The regions one annotator drew in one field of one task (possibly none: "nothing here").

    ``shape``: span, box, polygon or keypoint. Per region ``i``: ``ids[i]`` (the source's region
    id), ``labels[i]`` (``""``: no label; a region with several labels is one row per label),
    ``coords[i*d:(i+1)*d]`` (``d = GEOMETRY_WIDTH[shape]``), ``points[i]`` (polygons: the
    vertices). ``attributes``: per-region attribute → (control type, [(region index, value)]).
    ``relations``: ``(from id, to id, label)``. ``dropped_relations``: relations whose other end is
    in another field (not evaluated).
    """

    shape: str
    ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    coords: list[float] = field(default_factory=list)
    points: list[list[tuple[float, float]]] = field(default_factory=list)
    attributes: dict[str, tuple[str, list[tuple[int, Any]]]] = field(default_factory=dict)
    relations: list[tuple[str, str, str]] = field(default_factory=list)
    dropped_relations: int = 0

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class FieldValue:
    """One field's answer in one annotation: the ``kind`` of control and the normalised value.

    ``value`` is a tuple of labels for choices/taxonomy (one or several), a float for
    rating/number, a normalised string for textarea. ``regions``: the regions of a region
    control (spans, boxes, polygons, keypoints; ``value`` is then ``""``).
    """

    kind: str
    value: tuple[str, ...] | float | str
    regions: RegionSet | None = None


@dataclass(frozen=True)
class Annotation:
    """One annotator's (latest) answer to one task."""

    task_id: TaskId
    annotator: str
    fields: dict[str, FieldValue]
    created_at: datetime | None = None
    updated_at: datetime | None = None
    ground_truth: bool = False
    annotation_id: int | str | None = None
    skipped: bool = False
    """A skip (Label Studio ``was_cancelled``, Prodigy ``ignore``): if it is the annotator's
    latest answer to the task, they gave no rating."""


@dataclass
class SourceStats:
    """What a source read and set aside; reported so nothing disappears silently."""

    tasks: int = 0
    annotations: int = 0
    cancelled: int = 0
    superseded: int = 0
    ignored: int = 0
    empty: int = 0
    """Empty selections (``choices: []``, Prodigy ``accept: []``): no rating, or the empty set
    for multi-select fields with ``empty: empty_set``."""
    invalid_skipped: int = 0
    ground_truth_excluded: int = 0
    outside_round: int = 0
    invalid_examples: list[str] = field(default_factory=list)
    invalid: list[Problem] = field(default_factory=list)
    """The skipped invalid records (``--skip-invalid``), structured; the first 1,000."""

    def join(self, later: SourceStats) -> None:
        """Add the counts of records read after these (examples kept in order, as capped)."""
        for name in (
            "tasks",
            "annotations",
            "cancelled",
            "superseded",
            "ignored",
            "empty",
            "invalid_skipped",
            "ground_truth_excluded",
            "outside_round",
        ):
            setattr(self, name, getattr(self, name) + getattr(later, name))
        self.invalid_examples = (self.invalid_examples + later.invalid_examples)[:10]
        self.invalid = (self.invalid + later.invalid)[:1000]

    def skip_invalid(self, message: str, code: str) -> None:
        """Count a malformed record skipped with ``--skip-invalid`` and keep its problem."""
        self.invalid_skipped += 1
        if len(self.invalid_examples) < 10:
            self.invalid_examples.append(message)
        if len(self.invalid) < 1000:
            self.invalid.append(Problem.of(message, code))


@dataclass
class FieldColumn:
    """One field across annotations: annotation row ``rows[i]`` answered ``values[codes[i]]``
    (see :attr:`FieldValue.value`); region fields: ``regions[i]``. Built by appending."""

    kind: str
    rows: Any = field(default_factory=lambda: array("q"))
    codes: Any = field(default_factory=lambda: array("q"))
    values: list[tuple[str, ...] | float | str] = field(default_factory=list)
    index: dict[Any, int] = field(default_factory=dict, repr=False)
    regions: list[RegionSet | None] | None = None

    def add(
        self, row: int, value: tuple[str, ...] | float | str, regions: RegionSet | None
    ) -> None:
        self.rows.append(row)
        self.codes.append(_intern(self.index, self.values, value))
        if regions is not None and self.regions is None:
            self.regions = [None] * (len(self.rows) - 1)
        if self.regions is not None:
            self.regions.append(regions)

    def row_array(self) -> Any:
        return _numpy(self.rows)

    def code_array(self) -> Any:
        return _numpy(self.codes)


class Columns:
    """Annotations column-wise, row ``i`` one annotation (what sources build and the model
    reads: no Python object per annotation).

    Per row: ``task`` (index into ``tasks``), ``annotator`` (index into ``annotators``, ids),
    ``created``/``updated`` (seconds since the epoch, NaN: not given), ``ground_truth``,
    ``skipped`` (0/1), ``annotation_ids``. ``fields``: field name → :class:`FieldColumn`.
    """

    ARRAYS = ("task", "annotator", "created", "updated", "ground_truth", "skipped")
    """The per-row columns kept as typed arrays (``annotation_ids`` is a list)."""

    def __init__(self) -> None:
        self.tasks: list[TaskId] = []
        self.task_index: dict[TaskId, int] = {}
        self.annotators: list[str] = []
        self.annotator_index: dict[str, int] = {}
        self.task, self.annotator = array("q"), array("q")
        self.created, self.updated = array("d"), array("d")
        self.ground_truth, self.skipped = array("b"), array("b")
        self.annotation_ids: list[int | str | None] = []
        self.fields: dict[str, FieldColumn] = {}

    def __len__(self) -> int:
        return len(self.task)

    def row(
        self,
        task: TaskId,
        annotator: str,
        created: float,
        updated: float,
        *,
        ground_truth: bool = False,
        annotation_id: int | str | None = None,
        skipped: bool = False,
    ) -> int:
        """Append an annotation (times in epoch seconds, NaN: none); returns its row."""
        t, a = self.slot(task), self.who(annotator)
        return self.append(t, a, created, updated, ground_truth, annotation_id, skipped)

    def slot(self, task: TaskId) -> int:
        """The index of ``task`` in ``tasks`` (added if new)."""
        return _intern(self.task_index, self.tasks, task)

    def who(self, annotator: str) -> int:
        """The index of ``annotator`` in ``annotators`` (added if new)."""
        return _intern(self.annotator_index, self.annotators, annotator)

    def append(
        self,
        task: int,
        annotator: int,
        created: float,
        updated: float,
        ground_truth: bool,
        annotation_id: int | str | None,
        skipped: bool,
    ) -> int:
        """Append a row by task and annotator index; returns the row."""
        self.task.append(task)
        self.annotator.append(annotator)
        self.created.append(created)
        self.updated.append(updated)
        self.ground_truth.append(ground_truth)
        self.skipped.append(skipped)
        self.annotation_ids.append(annotation_id)
        return len(self.annotation_ids) - 1

    def rollback(self, n: int) -> None:
        """Drop the rows from row ``n`` on (task and annotator ids seen stay in the tables)."""
        for name in self.ARRAYS:
            del getattr(self, name)[n:]
        del self.annotation_ids[n:]
        for name in list(self.fields):
            col = self.fields[name]
            k = len(col.rows)
            while k and col.rows[k - 1] >= n:
                k -= 1
            del col.rows[k:], col.codes[k:]
            if col.regions is not None:
                del col.regions[k:]
            if not k:
                del self.fields[name]

    def value(self, row: int, name: str, fv: FieldValue) -> None:
        """Field ``name`` of annotation ``row`` answered ``fv``."""
        col = self.fields.get(name)
        if col is None:
            col = self.fields[name] = FieldColumn(fv.kind)
        col.add(row, fv.value, fv.regions)

    def add(self, ann: Annotation) -> None:
        row = self.row(
            ann.task_id,
            ann.annotator,
            _seconds(ann.created_at),
            _seconds(ann.updated_at),
            ground_truth=ann.ground_truth,
            annotation_id=ann.annotation_id,
            skipped=ann.skipped,
        )
        for name, fv in ann.fields.items():
            self.value(row, name, fv)

    def extend(self, later: Columns) -> None:
        """Append the rows of ``later`` (read after these), its ids and values mapped to ours."""
        base = len(self)
        tasks = np.array([self.slot(t) for t in later.tasks] or [0], dtype=np.int64)
        who = np.array([self.who(a) for a in later.annotators] or [0], dtype=np.int64)
        self.task.extend(array("q", tasks[later.array("task")].tobytes()))
        self.annotator.extend(array("q", who[later.array("annotator")].tobytes()))
        for name in self.ARRAYS[2:]:  # times and flags: no ids to map
            getattr(self, name).extend(getattr(later, name))
        self.annotation_ids += later.annotation_ids
        for name, col in later.fields.items():
            mine = self.fields.get(name)
            if mine is None:
                mine = self.fields[name] = FieldColumn(col.kind)
            codes = np.array([_intern(mine.index, mine.values, v) for v in col.values] or [0])
            if col.regions is not None or mine.regions is not None:
                if mine.regions is None:
                    mine.regions = [None] * len(mine.rows)
                mine.regions += col.regions or [None] * len(col.rows)
            mine.rows.extend(array("q", (col.row_array() + base).tobytes()))
            mine.codes.extend(array("q", codes[col.code_array()].tobytes()))

    @classmethod
    def of(cls, annotations: Iterable[Annotation]) -> Columns:
        out = cls()
        for ann in annotations:
            out.add(ann)
        return out

    def array(self, name: str) -> Any:
        """Column ``name`` (one of :attr:`ARRAYS`) as numpy, without a copy."""
        return _numpy(getattr(self, name))

    def select(self, keep: np.ndarray[Any, np.dtype[np.bool_]]) -> Columns:
        """The rows where ``keep`` is true, in order."""
        if keep.all():
            return self
        out = Columns()
        out.tasks, out.task_index = self.tasks, self.task_index
        out.annotators, out.annotator_index = self.annotators, self.annotator_index
        idx = np.flatnonzero(keep)
        for name in self.ARRAYS:
            col = getattr(self, name)
            setattr(out, name, array(col.typecode, self.array(name)[idx].tobytes()))
        out.annotation_ids = [self.annotation_ids[i] for i in idx.tolist()]
        renumber = np.cumsum(keep) - 1
        for name, col in self.fields.items():
            rows = col.row_array()
            mask = keep[rows]
            sel = np.flatnonzero(mask)
            new = FieldColumn(col.kind, values=col.values, index=col.index)
            new.rows = array("q", renumber[rows[sel]].tobytes())
            new.codes = array("q", col.code_array()[sel].tobytes())
            if col.regions is not None:
                new.regions = [col.regions[i] for i in sel.tolist()]
            if len(new.rows):
                out.fields[name] = new
        return out

    def latest(self) -> tuple[Columns, int]:
        """One row per (task, annotator): the latest by ``updated`` (then ``created``, then the
        annotation id as text; on a full tie the later row), skips then dropped (a skip that is
        the latest means no rating); and how many rows were superseded."""
        n = len(self)
        key = self.array("task") * max(len(self.annotators), 1) + self.array("annotator")
        order = np.argsort(key, kind="stable")
        sk = key[order]
        dup = np.zeros(n, dtype=bool)
        if n > 1:
            same = sk[1:] == sk[:-1]
            dup[order[1:][same]] = True
            dup[order[:-1][same]] = True
        keep = np.ones(n, dtype=bool)
        if dup.any():
            created, updated = self.array("created"), self.array("updated")
            best: dict[int, tuple[tuple[Any, ...], int]] = {}
            for i in np.flatnonzero(dup).tolist():
                c, u = created[i], updated[i]
                c = -math.inf if math.isnan(c) else c
                rank = (c if math.isnan(u) else u, c, str(self.annotation_ids[i] or ""))
                k = int(key[i])
                if k not in best or rank >= best[k][0]:
                    best[k] = (rank, i)
            keep[dup] = False
            keep[[i for _, i in best.values()]] = True
        superseded = n - int(keep.sum())
        keep &= self.array("skipped") == 0
        return self.select(keep), superseded

    def annotations(self) -> list[Annotation]:
        """One :class:`Annotation` per row (for code that wants objects)."""
        fields: list[dict[str, FieldValue]] = [{} for _ in range(len(self))]
        for name, col in self.fields.items():
            kind, values = col.kind, col.values
            if col.regions is not None:
                for r, c, rs in zip(col.rows, col.codes, col.regions, strict=True):
                    fields[r][name] = FieldValue(kind, values[c], rs)
            else:
                made = [FieldValue(kind, v) for v in values]
                for r, c in zip(col.rows, col.codes, strict=True):
                    fields[r][name] = made[c]
        tasks, annotators = self.tasks, self.annotators
        return [
            Annotation(
                tasks[t], annotators[a], f, _datetime(c), _datetime(u), bool(g), aid, bool(s)
            )
            for t, a, f, c, u, g, aid, s in zip(
                self.task,
                self.annotator,
                fields,
                self.created,
                self.updated,
                self.ground_truth,
                self.annotation_ids,
                self.skipped,
                strict=True,
            )
        ]


def _intern(index: dict[Any, int], table: list[Any], key: Any) -> int:
    """The position of ``key`` in ``table``, appended if new (``index``: key → position)."""
    i = index.get(key)
    if i is None:
        i = index[key] = len(table)
        table.append(key)
    return i


_DTYPES = {"q": np.int64, "d": np.float64, "b": np.int8}


def _numpy(column: array[Any]) -> Any:
    """A typed array as a numpy view (an empty one when it has no items)."""
    dtype = _DTYPES[column.typecode]
    return np.frombuffer(column, dtype=dtype) if len(column) else np.zeros(0, dtype=dtype)


def _seconds(t: datetime | None) -> float:
    """``t`` in seconds since the epoch (exact to the microsecond); NaN for None."""
    return math.nan if t is None else t.timestamp()


def _datetime(s: float) -> datetime | None:
    return None if math.isnan(s) else datetime.fromtimestamp(s, timezone.utc)


class LazyAnnotations(Sequence[Annotation]):
    """The annotations of :class:`Columns`, made into objects only when first read."""

    def __init__(self, columns: Columns) -> None:
        self.columns = columns
        self._made: list[Annotation] | None = None

    def _list(self) -> list[Annotation]:
        if self._made is None:
            self._made = self.columns.annotations()
        return self._made

    def __len__(self) -> int:
        return len(self.columns)

    @overload
    def __getitem__(self, i: int) -> Annotation: ...
    @overload
    def __getitem__(self, i: slice) -> list[Annotation]: ...
    def __getitem__(self, i: int | slice) -> Annotation | list[Annotation]:
        return self._list()[i]

    def __iter__(self) -> Iterator[Annotation]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._list() == list(other)

    __hash__ = None  # type: ignore[assignment]


@dataclass
class Dataset:
    """Annotations of a project, plus every task id seen (tasks may have no annotation).

    ``annotations``: a list, or :class:`LazyAnnotations` over the columns a source built;
    :meth:`columns` gives the column form either way.
    """

    source: str
    annotations: Sequence[Annotation]
    task_ids: list[TaskId]
    annotator_names: dict[str, str] = field(default_factory=dict)
    stats: SourceStats = field(default_factory=SourceStats)
    declared_multiple: dict[str, bool] = field(default_factory=dict)
    """Field → multi-select, as the labeling config declares it (when the source knows it)."""
    texts: dict[tuple[TaskId, str], str] = field(default_factory=dict)
    """(task, region field) → the text its spans index into (the continuum of unitizing alpha)."""

    _cols: tuple[int, int, Columns] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _kinds: tuple[int, int, dict[str, str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @classmethod
    def of_columns(
        cls, source: str, columns: Columns, task_ids: list[TaskId], **kw: Any
    ) -> Dataset:
        """A dataset over ``columns`` (already one row per task and annotator, no skips)."""
        return cls(source, LazyAnnotations(columns), task_ids, **kw)

    def columns(self) -> Columns:
        """The annotations as :class:`Columns` (built once per ``annotations`` list)."""
        anns = self.annotations
        if isinstance(anns, LazyAnnotations):
            return anns.columns
        key = (id(anns), len(anns))
        if self._cols is None or self._cols[:2] != key:
            self._cols = (*key, Columns.of(anns))
        return self._cols[2]

    def field_kinds(self) -> dict[str, str]:
        """Every field present in the data and its control type, sorted by name. A per-region
        attribute is the sub-field ``<region field>.<attribute>`` (e.g. ``ner.certainty``)."""
        cols = self.columns()
        key = (id(cols), len(cols))
        if self._kinds is not None and self._kinds[:2] == key:
            return dict(self._kinds[2])
        kinds: dict[str, str] = {}
        for name, col in cols.fields.items():
            kinds[name] = col.kind
            for rs in col.regions or ():
                for attr, (kind, _) in rs.attributes.items() if rs is not None else ():
                    kinds.setdefault(f"{name}.{attr}", kind)
        self._kinds = (*key, dict(sorted(kinds.items())))
        return dict(self._kinds[2])

    def annotator_ids(self) -> set[str]:
        """The annotators with at least one annotation."""
        cols = self.columns()
        return {cols.annotators[a] for a in np.unique(cols.array("annotator")).tolist()}

    def display_name(self, annotator: str) -> str:
        return self.annotator_names.get(annotator, annotator)


@dataclass(frozen=True)
class RoundFilter:
    """Restrict an evaluation to one labeling round.

    ``start``/``end``: an annotation counts if it was created or updated in [start, end].
    ``task_ids``: only these tasks (ints or strings).
    """

    start: datetime | None = None
    end: datetime | None = None
    task_ids: frozenset[TaskId] | None = None

    def __bool__(self) -> bool:
        return self.start is not None or self.end is not None or self.task_ids is not None

    def keeps_task(self, task_id: TaskId) -> bool:
        return self.task_ids is None or task_id in self.task_ids or str(task_id) in self.task_ids

    def keeps(self, ann: Annotation) -> bool:
        if not self.keeps_task(ann.task_id):
            return False
        if self.start is None and self.end is None:
            return True
        stamps = [t for t in (ann.created_at, ann.updated_at) if t is not None]
        if not stamps:
            return False
        return any(
            (self.start is None or t >= self.start) and (self.end is None or t <= self.end)
            for t in stamps
        )


def apply_round(dataset: Dataset, rnd: RoundFilter) -> Dataset:
    """The dataset restricted to ``rnd`` (tasks outside it dropped, counts kept in stats)."""
    if not rnd:
        return dataset
    kept = [a for a in dataset.annotations if rnd.keeps(a)]
    stats = replace(dataset.stats, outside_round=len(dataset.annotations) - len(kept))
    tasks = [t for t in dataset.task_ids if rnd.keeps_task(t)]
    if rnd.start is not None or rnd.end is not None:
        with_ann = {a.task_id for a in kept}
        tasks = [t for t in tasks if t in with_ann]
    return replace(dataset, annotations=kept, task_ids=tasks, stats=stats)


def normalise_text(text: str, ignore: Collection[str] = ("case", "whitespace")) -> str:
    """``text`` as free-text agreement compares it, ignoring what ``ignore`` names:
    ``unicode`` (NFKC forms), ``case``, ``punctuation`` (Unicode P* characters), ``whitespace``
    (runs collapsed to one space, ends trimmed).

    >>> normalise_text("  Hello,   World! ", ["case", "punctuation", "whitespace"])
    'hello world'
    >>> normalise_text("Hello,  World!", [])
    'Hello,  World!'
    """
    if "unicode" in ignore:
        text = unicodedata.normalize("NFKC", text)
    if "case" in ignore:
        text = text.casefold()
    if "punctuation" in ignore:
        text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    if "whitespace" in ignore:
        text = re.sub(r"\s+", " ", text).strip()
    return text


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
    blanked.
    """
    kind = dataset.field_kinds().get(name, "choices")
    cols = dataset.columns()
    col = cols.fields.get(name) or FieldColumn(kind)
    raw: list[Any] = list(col.values)
    if kind == "textarea":
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
    unit_index = {t: i for i, t in enumerate(unit_ids)}
    first = np.unique(row_task, return_index=True)[1]
    for t in row_task[np.sort(first)].tolist():  # tasks without a task_ids entry: in cell order
        task = cols.tasks[t]
        if task not in unit_index:
            unit_index[task] = len(unit_ids)
            unit_ids.append(task)
    unit_of = np.array([unit_index.get(t, -1) for t in cols.tasks], dtype=np.int64)
    present = np.unique(row_ann).tolist()
    annotators = sorted((cols.annotators[a] for a in present), key=_natural)
    ann_index = {a: i for i, a in enumerate(annotators)}
    col_of = np.full(len(cols.annotators), -1, dtype=np.int64)
    for a in present:
        col_of[a] = ann_index[cols.annotators[a]]

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
    if min_annotators > 1:
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
    none), ``geometry`` ``(n, d)`` (see :data:`GEOMETRY_WIDTH`), ``region_ids`` (source ids),
    ``points`` (polygons: ``(k, 2)`` vertices each). ``rated``: ``(units, annotators)`` the
    annotator answered the task, even with no region (a skip is not an answer). ``texts``:
    ``(units,)`` the text spans index into, ``None`` where unknown. Relations, per relation:
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
    return np.fromiter((index[v] for v in values), np.int64, len(values)), tuple(table)


def region_table(
    dataset: Dataset, name: str, *, labels: Sequence[str] | None = None
) -> RegionTable:
    """The columnar table of region field ``name``.

    ``labels``: the configured label set; a region label outside it raises :class:`InputError`
    naming every offending task.
    """
    kind = dataset.field_kinds()[name]
    cols = dataset.columns()
    col = cols.fields.get(name)
    tasks, who = cols.tasks, cols.annotators
    sets = (
        []
        if col is None or col.regions is None
        else [
            (tasks[cols.task[r]], who[cols.annotator[r]], rs)
            for r, rs in zip(col.rows, col.regions, strict=True)
            if rs is not None
        ]
    )
    shape = REGION_SHAPES[kind]
    if shape == "box" and any(s.shape == "polygon" for _, _, s in sets):
        shape = "polygon"  # Prodigy image_manual with some non-rectangle shape
    unit_ids = list(dataset.task_ids)
    unit_index = {t: i for i, t in enumerate(unit_ids)}
    # Label Studio: every (not skipped) annotation answers the whole labeling config, so one
    # without regions in this field says "nothing here". Prodigy: a line answers its view only.
    answered = (
        [(tasks[t], who[a]) for t, a in zip(cols.task, cols.annotator, strict=True)]
        if kind not in ("spans", "image")
        else [(t, a) for t, a, _ in sets]
    )
    for task, _ in answered:
        if task not in unit_index:
            unit_index[task] = len(unit_ids)
            unit_ids.append(task)
    annotators = sorted({a for _, a in answered}, key=_natural)
    ann_index = {a: i for i, a in enumerate(annotators)}
    rated = np.zeros((len(unit_ids), len(annotators)), dtype=bool)
    for task, annotator in answered:
        rated[unit_index[task], ann_index[annotator]] = True
    units: list[int] = []
    anns: list[int] = []
    label_list: list[str] = []
    region_ids: list[str] = []
    coords: list[float] = []
    points: list[FloatArray] = []
    rel: list[tuple[int, int, str]] = []
    attrs: dict[str, tuple[str, list[int], list[Any]]] = {}
    dropped = 0
    for task, annotator, s in sets:
        u, a = unit_index[task], ann_index[annotator]
        start, k = len(units), len(s)
        units += [u] * k
        anns += [a] * k
        label_list += s.labels
        region_ids += s.ids
        if shape == "polygon":
            points += [np.asarray(p, dtype=np.float64) for p in s.points]
            coords += _bounds(s) if s.shape == "box" else s.coords
        else:
            coords += s.coords
        if s.relations:
            row = {rid: start + i for i, rid in reversed(list(enumerate(s.ids)))}
            rel += [(row[f], row[t], lab) for f, t, lab in s.relations]
        dropped += s.dropped_relations
        for attr, (akind, values) in s.attributes.items():
            entry = attrs.setdefault(attr, (akind, [], []))
            entry[1].extend(start + i for i, _ in values)
            entry[2].extend(v for _, v in values)
    if labels is not None:
        cells: list[tuple[TaskId, str, tuple[str, ...] | float | str]] = [
            (t, a, tuple(sorted(set(s.labels) - {""}))) for t, a, s in sets
        ]
        _check_labels(
            dataset,
            name,
            cells,
            labels,
            lambda t, a: f"task {t}, field {name!r}, annotator {dataset.display_name(a)}",
        )
    label_codes, label_table = _codes(label_list, labels)
    rel_codes, rel_table = _codes([lab for _, _, lab in rel], None)
    width = GEOMETRY_WIDTH[shape]
    return RegionTable(
        field=name,
        kind=kind,
        shape=shape,
        unit_ids=unit_ids,
        annotators=annotators,
        unit=np.asarray(units, dtype=np.int64),
        annotator=np.asarray(anns, dtype=np.int64),
        label=label_codes,
        labels=label_table,
        geometry=np.asarray(coords, dtype=np.float64).reshape(-1, width),
        region_ids=region_ids,
        points=points if shape == "polygon" else None,
        rated=rated,
        texts=[dataset.texts.get((t, name)) for t in unit_ids],
        rel_from=np.asarray([f for f, _, _ in rel], dtype=np.int64),
        rel_to=np.asarray([t for _, t, _ in rel], dtype=np.int64),
        rel_label=rel_codes,
        rel_labels=rel_table,
        dropped_relations=dropped,
        attributes={
            k: (kind_, np.asarray(rows, dtype=np.int64), vals)
            for k, (kind_, rows, vals) in sorted(attrs.items())
        },
    )


def _bounds(s: RegionSet) -> list[float]:
    """Box regions of a polygon field: their bounding boxes ``[x, y, width, height]``."""
    return [c for i in range(len(s)) for c in s.coords[i * 5 : i * 5 + 4]]
