"""The dataset a source loads: its annotations (column-wise), tasks and stats, and round filters."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, overload

import numpy as np

from .columns import Columns
from .records import Annotation, SourceStats, TaskId


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
    declared_scale: dict[str, tuple[float, ...]] = field(default_factory=dict)
    """Rating field → its declared scale (Label Studio: 1 … ``maxRating``), when known."""
    texts: dict[tuple[TaskId, str], str] = field(default_factory=dict)
    """(task, region field) → the text its spans index into (the continuum of unitizing alpha)."""
    predictions: list[Annotation] = field(default_factory=list)
    """Model predictions (Label Studio ``predictions``), one per task and model version, the
    ``annotator`` being the ``model_version``: a reference, never ratings in agreement."""
    started_from: dict[tuple[TaskId, int | str], str] = field(default_factory=dict)
    """(task, annotation id) → the model version of the prediction the annotation started from
    (Label Studio ``parent_prediction``)."""
    prediction_ids_only: int = 0
    """Predictions the source names by id only, so they could not be read."""
    adjudications: list[Annotation] = field(default_factory=list)
    """Answers the source read as adjudicated (Prodigy: the accepted examples of the ``prodigy
    review`` output): never ratings; used only with an ``adjudication:`` section."""
    routed: dict[TaskId, int] = field(default_factory=dict)
    """Task → the annotations write-back asked for when it routed the disputed task to one more
    annotator (Label Studio: the task's overlap, kept in its meta): until it has that many
    ratings, its dispute is ``routed``."""

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
            for attr, kind in col.regions.attributes if col.regions is not None else ():
                kinds.setdefault(f"{name}.{attr}", kind)
        self._kinds = (*key, dict(sorted(kinds.items())))
        return dict(self._kinds[2])

    def annotator_ids(self) -> set[str]:
        """The annotators with at least one annotation."""
        cols = self.columns()
        present = np.bincount(cols.array("annotator"), minlength=len(cols.annotators))
        return {cols.annotators[a] for a in np.flatnonzero(present).tolist()}  # no sort

    def display_name(self, annotator: str) -> str:
        return self.annotator_names.get(annotator, annotator)


def annotator(name: str) -> str:
    """An annotator as a line names them: ``annotator 5``, ``annotator dana@example.com``.

    Parameters
    ----------
    name : str
        The annotator's id or name (``annotator_names``, a live project's e-mail).

    Returns
    -------
    str
        The name with the word that says what it is.

    Examples
    --------
    >>> annotator("5")
    'annotator 5'
    """
    return f"annotator {name}"


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


def task_mask(cols: Columns, ids: frozenset[TaskId] | None) -> Any:
    """``(rows,)`` bool: the rows whose task is in ``ids`` (an id matches as itself or as text);
    all rows when ``ids`` is None. One set look-up per task, not per row."""
    if ids is None:
        return np.ones(len(cols), dtype=bool)
    per_task = np.array([t in ids or str(t) in ids for t in cols.tasks] or [False], dtype=bool)
    return per_task[cols.array("task")]


def apply_round(dataset: Dataset, rnd: RoundFilter) -> Dataset:
    """The dataset restricted to ``rnd`` (tasks outside it dropped, counts kept in stats):
    computed on the columns, one mask over the rows."""
    if not rnd:
        return dataset
    cols = dataset.columns()
    keep = task_mask(cols, rnd.task_ids)
    if rnd.start is not None or rnd.end is not None:
        lo = -np.inf if rnd.start is None else rnd.start.timestamp()
        hi = np.inf if rnd.end is None else rnd.end.timestamp()
        created, updated = cols.array("created"), cols.array("updated")
        with np.errstate(invalid="ignore"):  # NaN (no time) is never inside
            inside = ((created >= lo) & (created <= hi)) | ((updated >= lo) & (updated <= hi))
        keep &= inside
    kept = cols.select(keep)
    stats = replace(dataset.stats, outside_round=len(cols) - len(kept))
    tasks = [t for t in dataset.task_ids if rnd.keeps_task(t)]
    if rnd.start is not None or rnd.end is not None:
        with_ann = set(kept.tasks[i] for i in np.unique(kept.array("task")).tolist())
        tasks = [t for t in tasks if t in with_ann]
    return replace(dataset, annotations=LazyAnnotations(kept), task_ids=tasks, stats=stats)
