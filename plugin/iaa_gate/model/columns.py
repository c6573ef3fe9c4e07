"""The column store: annotations appended row by row as typed arrays, no object per annotation."""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import count
from typing import Any

import numpy as np

from .records import Annotation, FieldValue, RegionSet, TaskId

_SEP = "\x00"
"""Between the region ids of a pickled :class:`RegionColumn` (rarely, if ever, in an id)."""
_SHARED_SAMPLE = 1024
"""The first ids of a :class:`RegionColumn` looked at for shared objects when it is pickled."""


class RegionColumn:
    """A region field's regions, flat: no object per answer or region.

    Per answer (aligned with the :class:`FieldColumn`'s ``rows``): ``shape`` (a code into
    ``shapes``; -1: the answer is no region set), where its regions start (``first``), its
    coordinates (``cfirst``) and its points (``pfirst``), and ``dropped`` (its relations to
    another field, not evaluated). An answer's regions run to the next answer's ``first``.
    Per region: ``ids`` (the source's id), ``label`` (a code into ``labels``; a region with
    several labels is one region per label), its shape's ``width`` numbers in ``coords``.
    ``points``: polygons' vertices, masks' runs of pixels (those answers only). ``relations``:
    (answer, from id, to id, label); ``attributes``: (attribute, control type) → (region,
    value) in reading order. :meth:`sets` gives the answers as :class:`RegionSet` objects (the
    general paths); the readers append here directly.
    """

    def __init__(self) -> None:
        self.shapes: list[str] = []
        self.shape = array("b")
        self.first, self.cfirst, self.pfirst, self.dropped = (array("q") for _ in range(4))
        self.ids: list[str] = []
        self.label = array("q")
        self.labels: list[str] = []
        self.label_index: dict[str, int] = {}
        self.coords = array("d")
        self.points: list[list[tuple[float, float]]] = []
        self.relations: list[tuple[int, str, str, str]] = []
        self.attributes: dict[tuple[str, str], tuple[Any, list[Any]]] = {}

    def __len__(self) -> int:
        """The number of answers."""
        return len(self.shape)

    def __getstate__(self) -> dict[str, object]:
        """Pickled (what a forked reader sends back) with the region ids as one string: a
        list of short strings is pickled and unpickled one object at a time (0.15–0.2 s of
        CPU for the 675,000 spans of half of a 50,000-task export), a string at once and
        split back in a fraction of that. As a list when the ids share objects (Prodigy's
        ids by place: its pickle keeps them shared, a split would not), are not all strings
        or one holds the separator."""
        state = self.__dict__.copy()
        ids = self.ids
        head = ids[:_SHARED_SAMPLE]
        if len(set(map(id, head))) < len(head):
            return state
        try:
            joined = _SEP.join(ids)
        except TypeError:
            return state
        if ids and joined.count(_SEP) == len(ids) - 1:
            state["ids"] = joined
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        if isinstance(self.ids, str):
            self.ids = self.ids.split(_SEP)

    def answer(self, shape: str | None) -> int:
        """Start an answer of ``shape`` (None: not a region set); returns its index."""
        self.shape.append(-1 if shape is None else intern_shape(self.shapes, shape))
        self.first.append(len(self.ids))
        self.cfirst.append(len(self.coords))
        self.pfirst.append(len(self.points))
        self.dropped.append(0)
        return len(self.shape) - 1

    def code(self, label: str) -> int:
        """The code of ``label`` in :attr:`labels` (added if new)."""
        return intern(self.label_index, self.labels, label)

    def add(self, rs: RegionSet | None) -> None:
        """Append one answer: ``rs`` (None: not a region set)."""
        k = self.answer(None if rs is None else rs.shape)
        if rs is None:
            return
        first = len(self.ids)
        self.ids += rs.ids
        index, labels = self.label_index, self.labels
        self.label.extend([intern(index, labels, lab) for lab in rs.labels])
        self.coords.extend(rs.coords)
        self.points += rs.points
        self.dropped[k] = rs.dropped_relations
        self.relations += [(k, f, t, lab) for f, t, lab in rs.relations]
        for name, (kind, values) in rs.attributes.items():
            rows, got = self.attribute(name, kind)
            rows.extend([first + i for i, _ in values])
            got += [v for _, v in values]

    def attribute(self, name: str, kind: str) -> tuple[Any, list[Any]]:
        """The (regions, values) of attribute ``name`` of control type ``kind``, to append to."""
        found = self.attributes.get((name, kind))
        if found is None:
            found = self.attributes[name, kind] = (array("q"), [])
        return found

    def counts(self) -> tuple[Any, Any, Any]:
        """Per answer: how many regions, coordinates and points it has."""
        ends = []
        for starts, total in (
            (self.first, len(self.ids)),
            (self.cfirst, len(self.coords)),
            (self.pfirst, len(self.points)),
        ):
            at = view(starts)
            ends.append(np.diff(at, append=total) if len(at) else at)
        return ends[0], ends[1], ends[2]

    def sets(self) -> list[RegionSet | None]:
        """Each answer as a :class:`RegionSet` (None: not a region set)."""
        out: list[RegionSet | None] = []
        n, nc, npts = (x.tolist() for x in self.counts())
        rels: dict[int, list[tuple[str, str, str]]] = {}
        for k, f, t, lab in self.relations:
            rels.setdefault(k, []).append((f, t, lab))
        attrs: list[tuple[str, str, Any, list[Any]]] = [
            (name, kind, view(rows), values)
            for (name, kind), (rows, values) in self.attributes.items()
        ]
        labels = self.labels
        for k, shape in enumerate(self.shape):
            if shape < 0:
                out.append(None)
                continue
            r, c, p = self.first[k], self.cfirst[k], self.pfirst[k]
            rs = RegionSet(
                self.shapes[shape],
                self.ids[r : r + n[k]],
                [labels[x] for x in self.label[r : r + n[k]]],
                self.coords[c : c + nc[k]].tolist(),
                self.points[p : p + npts[k]],
                relations=rels.get(k, []),
                dropped_relations=self.dropped[k],
            )
            for name, kind, rows, values in attrs:
                at = np.flatnonzero((rows >= r) & (rows < r + n[k])).tolist()
                if at:
                    rs.attributes[name] = (kind, [(int(rows[i]) - r, values[i]) for i in at])
            out.append(rs)
        return out

    def truncate(self, k: int) -> None:
        """Keep the first ``k`` answers."""
        if k >= len(self):
            return
        r = self.first[k]
        del self.ids[r:], self.label[r:], self.coords[self.cfirst[k] :]
        del self.points[self.pfirst[k] :]
        for name in ("shape", "first", "cfirst", "pfirst", "dropped"):
            del getattr(self, name)[k:]
        # relations and attributes are in reading order: the dropped ones are at the end, so
        # the cost follows what is dropped, never the column's size
        relations = self.relations
        while relations and relations[-1][0] >= k:
            relations.pop()
        for key, (rows, values) in list(self.attributes.items()):
            keep = len(rows)
            while keep and rows[keep - 1] >= r:
                keep -= 1
            del rows[keep:], values[keep:]
            if not keep:
                del self.attributes[key]

    def extend(self, later: RegionColumn) -> None:
        """Append the answers of ``later``."""
        answers, regions = len(self), len(self.ids)
        shapes = np.array([intern_shape(self.shapes, s) for s in later.shapes] + [-1], np.int8)
        self.shape.frombytes(shapes[view(later.shape)].tobytes())
        for name, total in (
            ("first", regions),
            ("cfirst", len(self.coords)),
            ("pfirst", len(self.points)),
        ):
            getattr(self, name).frombytes((view(getattr(later, name)) + total).tobytes())
        self.dropped += later.dropped
        self.ids += later.ids
        codes = intern_all(self.label_index, self.labels, later.labels)
        self.label.frombytes(codes[view(later.label)].tobytes() if len(later.label) else b"")
        self.coords += later.coords
        self.points += later.points
        self.relations += [(k + answers, f, t, lab) for k, f, t, lab in later.relations]
        for (name, kind), (rows, values) in later.attributes.items():
            mine, got = self.attribute(name, kind)
            mine.extend([x + regions for x in rows])
            got += values

    def select(self, keep: Any) -> RegionColumn:
        """The answers at indices ``keep`` (ascending)."""
        out = RegionColumn()
        out.shapes, out.labels, out.label_index = self.shapes, self.labels, self.label_index
        n, nc, npts = self.counts()
        regions = _ranges(view(self.first), n, keep)
        out.shape = array("b", view(self.shape)[keep].tobytes())
        out.dropped = array("q", view(self.dropped)[keep].tobytes())
        for name, counts in (("first", n), ("cfirst", nc), ("pfirst", npts)):
            starts = np.cumsum(counts[keep]) - counts[keep]
            setattr(out, name, array("q", starts.astype(np.int64).tobytes()))
        ids = self.ids
        out.ids = [ids[i] for i in regions.tolist()]
        out.label = array("q", view(self.label)[regions].tobytes())
        coords = _ranges(view(self.cfirst), nc, keep)
        out.coords = array("d", view(self.coords)[coords].tobytes())
        points = self.points
        out.points = [points[i] for i in _ranges(view(self.pfirst), npts, keep).tolist()]
        renumber = np.full(len(self) + 1, -1, dtype=np.int64)
        renumber[keep] = np.arange(len(keep))
        out.relations = [
            (int(renumber[k]), f, t, lab) for k, f, t, lab in self.relations if renumber[k] >= 0
        ]
        moved = np.full(len(self.ids) + 1, -1, dtype=np.int64)
        moved[regions] = np.arange(len(regions))
        for key, (rows, values) in self.attributes.items():
            new = moved[view(rows)] if len(rows) else np.zeros(0, dtype=np.int64)
            at = np.flatnonzero(new >= 0)
            if len(at):
                out.attributes[key] = (
                    array("q", new[at].tobytes()),
                    [values[i] for i in at.tolist()],
                )
        return out


def intern_shape(shapes: list[str], shape: str) -> int:
    """The code of ``shape`` in ``shapes`` (added if new; a few shapes at most)."""
    if shape not in shapes:
        shapes.append(shape)
    return shapes.index(shape)


def _ranges(starts: Any, counts: Any, keep: Any) -> Any:
    """The indices ``starts[k] … starts[k] + counts[k] - 1`` of each ``k`` in ``keep``."""
    c = counts[keep]
    total = int(c.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(c) - c
    return np.repeat(starts[keep] - offsets, c) + np.arange(total)


@dataclass
class FieldColumn:
    """One field across annotations: annotation row ``rows[i]`` answered ``values[codes[i]]``
    (see :attr:`FieldValue.value`); a region field's regions: ``regions`` (answer ``i``'s
    are its ``i``-th). Built by appending."""

    kind: str
    rows: Any = field(default_factory=lambda: array("q"))
    codes: Any = field(default_factory=lambda: array("q"))
    values: list[tuple[str, ...] | float | str] = field(default_factory=list)
    index: dict[Any, int] = field(default_factory=dict, repr=False)
    regions: RegionColumn | None = None

    def add(
        self, row: int, value: tuple[str, ...] | float | str, regions: RegionSet | None
    ) -> None:
        self.rows.append(row)
        self.codes.append(self.code(value))
        if regions is not None and self.regions is None:
            self.region_column(len(self.rows) - 1)
        if self.regions is not None:
            self.regions.add(regions)

    def region_column(self, before: int | None = None) -> RegionColumn:
        """:attr:`regions`, made if there is none yet (the ``before`` answers already there, or
        all of them, are then no region sets)."""
        if self.regions is None:
            self.regions = RegionColumn()
            for _ in range(len(self.rows) if before is None else before):
                self.regions.answer(None)
        return self.regions

    def region_sets(self) -> list[RegionSet | None] | None:
        """Each answer's :class:`RegionSet` (None: not one); None for a field of values."""
        return None if self.regions is None else self.regions.sets()

    def code(self, value: tuple[str, ...] | float | str) -> int:
        """The code of ``value`` in :attr:`values` (added if new)."""
        return intern(self.index, self.values, value)

    def row_array(self) -> Any:
        return view(self.rows)

    def code_array(self) -> Any:
        return view(self.codes)


Mark = tuple[int, list[int]]
"""What :meth:`Columns.mark` gives: the number of rows, and of each field's values."""


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

    def __getstate__(self) -> dict[str, object]:
        """Pickled without the index dicts, which are rebuilt from the tables on unpickling
        faster than they pickle (bench/README.md "2026-11-26 (4)")."""
        state = self.__dict__.copy()
        del state["task_index"], state["annotator_index"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self.task_index = dict(zip(self.tasks, count()))
        self.annotator_index = dict(zip(self.annotators, count()))

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
        return intern(self.task_index, self.tasks, task)

    def who(self, annotator: str) -> int:
        """The index of ``annotator`` in ``annotators`` (added if new)."""
        return intern(self.annotator_index, self.annotators, annotator)

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

    def mark(self) -> Mark:
        """Where the columns stand, for :meth:`rollback`: the rows, and each field's values."""
        return len(self), [len(col.values) for col in self.fields.values()]

    def rollback(self, mark: Mark) -> None:
        """Back to ``mark``: the rows added since are dropped, and the values only they
        answered (values are coded as rows are added); task and annotator ids seen stay in the
        tables."""
        n, coded = mark
        for name in self.ARRAYS:
            del getattr(self, name)[n:]
        del self.annotation_ids[n:]
        for f, name in enumerate(list(self.fields)):
            col = self.fields[name]
            k = len(col.rows)
            while k and col.rows[k - 1] >= n:
                k -= 1
            del col.rows[k:], col.codes[k:]
            if col.regions is not None:
                col.regions.truncate(k)
            if not k:
                del self.fields[name]
            elif f < len(coded):  # a field older than the mark: the values since
                for value in col.values[coded[f] :]:
                    del col.index[value]
                del col.values[coded[f] :]

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
        tasks = intern_all(self.task_index, self.tasks, later.tasks)
        who = intern_all(self.annotator_index, self.annotators, later.annotators)
        self.task.extend(array("q", tasks[later.array("task")].tobytes()))
        self.annotator.extend(array("q", who[later.array("annotator")].tobytes()))
        for name in self.ARRAYS[2:]:  # times and flags: no ids to map
            getattr(self, name).extend(getattr(later, name))
        self.annotation_ids += later.annotation_ids
        for name, col in later.fields.items():
            mine = self.fields.get(name)
            if mine is None:
                mine = self.fields[name] = FieldColumn(col.kind)
            codes = intern_all(mine.index, mine.values, col.values)
            if col.regions is not None or mine.regions is not None:
                theirs = col.regions
                if theirs is None:
                    theirs = RegionColumn()
                    for _ in range(len(col.rows)):
                        theirs.answer(None)
                mine.region_column().extend(theirs)
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
        return view(getattr(self, name))

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
                new.regions = col.regions.select(sel)
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
                sets = col.regions.sets()
                for r, c, rs in zip(col.rows, col.codes, sets, strict=True):
                    fields[r][name] = FieldValue(kind, values[c], rs)
            else:
                made = [FieldValue(kind, v) for v in values]
                for r, c in zip(col.rows, col.codes, strict=True):
                    fields[r][name] = made[c]
        tasks, annotators = self.tasks, self.annotators
        # each distinct time made once (an annotation's update is often its creation)
        stamps = np.concatenate([self.array("created"), self.array("updated")])
        distinct, at = np.unique(stamps, return_inverse=True)
        made_at = list(map(_datetime, distinct.tolist()))
        when = list(map(made_at.__getitem__, at.reshape(-1).tolist()))
        n = len(self)
        return [
            Annotation(tasks[t], annotators[a], f, c, u, bool(g), aid, bool(s))
            for t, a, f, c, u, g, aid, s in zip(
                self.task,
                self.annotator,
                fields,
                when[:n],
                when[n:],
                self.ground_truth,
                self.annotation_ids,
                self.skipped,
                strict=True,
            )
        ]


def intern(index: dict[Any, int], table: list[Any], key: Any) -> int:
    """The position of ``key`` in ``table``, appended if new (``index``: key → position)."""
    i = index.get(key)
    if i is None:
        i = index[key] = len(table)
        table.append(key)
    return i


def intern_all(index: dict[Any, int], table: list[Any], keys: list[Any]) -> Any:
    """:func:`intern` of each of ``keys`` in order, as an int64 array (a loop in C, one
    lookup per key: a new key is first stored under its place in ``keys``, past the table's
    end, and renumbered below)."""
    start, n = len(table), len(keys)
    found = np.fromiter(map(index.setdefault, keys, count(start)), np.int64, n)
    first = np.flatnonzero(found == np.arange(start, start + n))  # each new key's first place
    if not len(first):
        return found
    new = [keys[i] for i in first.tolist()]
    index.update(zip(new, range(start, start + len(new)), strict=True))
    table += new
    renumber = np.zeros(n, dtype=np.int64)
    renumber[first] = np.arange(start, start + len(new))
    later = found >= start
    found[later] = renumber[found[later] - start]
    return found


_DTYPES = {"q": np.int64, "d": np.float64, "b": np.int8}


def view(column: array[Any]) -> Any:
    """A typed array as a numpy view, without a copy (an empty one when it has no items).

    Parameters
    ----------
    column : array.array
        A typed array of ``q`` (int64), ``d`` (float64) or ``b`` (int8) items.

    Returns
    -------
    numpy.ndarray
        Its items, sharing its memory.

    Examples
    --------
    >>> from array import array
    >>> view(array("q", [1, 2])).tolist()
    [1, 2]
    """
    dtype = _DTYPES[column.typecode]
    return np.frombuffer(column, dtype=dtype) if len(column) else np.zeros(0, dtype=dtype)


def _seconds(t: datetime | None) -> float:
    """``t`` in seconds since the epoch (exact to the microsecond); NaN for None."""
    return math.nan if t is None else t.timestamp()


def _datetime(s: float) -> datetime | None:
    return None if math.isnan(s) else datetime.fromtimestamp(s, timezone.utc)
