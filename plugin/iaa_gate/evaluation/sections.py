"""The report's sections that are built outside :mod:`.document`, as typed msgspec Structs: a
field's region metrics, coincidences and declared categories (built by the scoring), the model
predictions (:mod:`.models`), the trend (:mod:`.trend`) and the write-back summary (the sinks).

They are part of :class:`~iaa_gate.evaluation.document.Report`, so ``report.schema.json`` is
generated from them too. A key that a section holds only in some runs (a dry run's ``changes``,
a keypoint field's matching ``tolerance``) is :data:`msgspec.UNSET` when absent: it is left out
of ``report.json``, where ``None`` is written as null.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
from msgspec import UNSET, UnsetType

from ..model import TaskId
from .overlap import OverlapWriteback


class Coincidence(msgspec.Struct):
    """The coincidence matrix of a field's values, for the heatmap: ``matrix[i][j]`` pairs of
    ``labels[i]`` with ``labels[j]``."""

    labels: list[str]
    matrix: list[list[float]]


class CategoriesUsed(msgspec.Struct):
    """The categories an ordered field's kappa family and AC2 use (``values``) and where they come
    from (``source``: labels, the labeling config's maxRating, or the values that occur)."""

    values: list[Any]
    source: str


class Matching(msgspec.Struct):
    """How a region field's regions were matched: ``mode``, ``iou`` threshold, ``labels`` (the
    same label needed) and, for keypoints, the distance ``tolerance``."""

    mode: str
    iou: float
    labels: bool
    tolerance: float | UnsetType = UNSET


class RegionPairs(msgspec.Struct):
    """Annotator × annotator pairwise F1 of a region field over their ``shared_tasks``."""

    names: list[str]
    f1: list[list[float | None]]
    shared_tasks: list[list[int]]


class Relations(msgspec.Struct):
    """The ``n`` relations between regions and their pairwise F1 (overall and per label)."""

    n: int
    f1: float | None
    f1_by_label: dict[str, float | None]


class UnitizingAlpha(msgspec.Struct):
    """Krippendorff's unitizing alpha of a span field (null: undefined with its reason), per
    label, and the tasks it left out."""

    value: float | None
    undefined_reason: str | None
    by_label: dict[str, float | None]
    excluded_tasks: int
    tasks_without_text: int


class AnnotatorAlpha(msgspec.Struct):
    """The matched-region alpha each annotator's "alpha without" changes from: ``what`` it is
    and its ``value``."""

    what: str
    value: float | None


class Regions(msgspec.Struct):
    """A region field's own metrics: the ``shape``, how regions were ``matching``, F1 (relaxed,
    strict, per label), mean IoU, the annotator × annotator F1, relations, unitizing alpha, the
    per-region ``attributes`` and the alpha behind "alpha without"."""

    shape: str
    matching: Matching
    n_regions: int
    f1: float | None
    strict_f1: float | None
    mean_iou: float | None
    f1_by_label: dict[str, float | None]
    annotators: RegionPairs
    relations: Relations | None
    relations_not_evaluated: int
    unitizing_alpha: UnitizingAlpha | None
    attributes: list[str]
    annotator_alpha: AnnotatorAlpha


class Excerpt(msgspec.Struct, gc=False):
    """The part of a span task's text a report shows: from ``offset`` (a character of the whole
    text, ``length`` characters long)."""

    offset: int
    excerpt: str
    length: int


class LowestRegion(msgspec.Struct, gc=False):
    """A disputed region task's lowest-scoring cluster of matched regions: its ``score``, each
    rater's ``labels`` in it (``"(unmatched)"`` where they have none) and its ``regions``."""

    score: float
    labels: dict[str, str]
    regions: list[dict[str, Any]]


class RelationDecision(msgspec.Struct, gc=False):
    """A disputed task's lowest relation between matched regions, when it scores below its
    lowest region: its ``score`` and each rater's relation label."""

    score: float
    labels: dict[str, str]


class Disagreement(msgspec.Struct, gc=False):
    """One disagreement about a region: its ``kind`` (missed, label swap, boundary shift…),
    the ``annotator`` whose ``region`` it is, the ``other`` annotator and their
    ``counterpart`` region (None: they drew none)."""

    kind: str
    annotator: str
    region: dict[str, Any]
    other: str
    counterpart: dict[str, Any] | None


class Details(msgspec.Struct, gc=False):
    """A disputed region task in detail: each rater's ``regions`` (``{id, label, <geometry>[,
    text]}``, the shape's own keys), every disagreement (those of the lowest region first), the
    lowest ``region``; spans with a known text its ``text`` excerpt; with relations the lowest
    ``relation`` (when it is the lowest decision) and the task's ``relations_f1``."""

    regions: dict[str, list[dict[str, Any]]]
    disagreements: list[Disagreement]
    region: LowestRegion
    text: Excerpt | UnsetType = UNSET
    relation: RelationDecision | UnsetType = UNSET
    relations_f1: float | UnsetType = UNSET


class Round(msgspec.Struct):
    """The round a report covers: annotations ``from``–``to`` (ISO 8601) and ``task_ids``."""

    from_: str | None = msgspec.field(name="from")
    to: str | None
    task_ids: list[str] | None


class TruthSetup(msgspec.Struct):
    """How ground truth was given: the reference ``annotator`` or gold ``tasks``, the number of
    ``references`` and ``gold_tasks``, and whether references count ``in_agreement``."""

    annotator: str | None
    tasks: list[str] | None
    references: int
    gold_tasks: int
    in_agreement: bool


# Model predictions ---------------------------------------------------------------------------


class Pooled(msgspec.Struct):
    """Human–prediction agreement of a group of annotations: ``n`` answers, their mean."""

    n: int
    agreement: float | None


class LabelAgreement(msgspec.Struct):
    """A model version on the tasks of one consensus label."""

    n_tasks: int
    agreement: float | None


class ModelVersion(msgspec.Struct):
    """One model version of a field against the human consensus: tasks it predicted, tasks
    compared, its ``agreement`` and ``mean_offset``; per consensus label (``labels``, label
    fields) and the agreement of annotations that started from its prediction or not."""

    model_version: str
    predicted_tasks: int
    n_tasks: int
    agreement: float | None
    mean_offset: float | None
    labels: dict[str, LabelAgreement] | UnsetType = UNSET
    started_from_it: Pooled | UnsetType = UNSET
    not_started_from_it: Pooled | UnsetType = UNSET


class AnnotatorConsensus(msgspec.Struct):
    """An annotator against the same human consensus (they are part of it)."""

    annotator: str
    n_tasks: int
    agreement: float | None


class FieldModels(msgspec.Struct):
    """One field's model predictions against its human consensus."""

    reference: str
    comparison: str | None
    consensus_tasks: int
    ties: int
    annotators: list[AnnotatorConsensus]
    versions: list[ModelVersion]


class Models(msgspec.Struct):
    """The model predictions: the ``model_versions``, ``predictions`` compared, annotations
    that record the prediction they ``started_from``, predictions given by id only
    (``ids_only``, not compared) and each field's comparison."""

    model_versions: list[str]
    predictions: int
    started_from: int
    ids_only: int
    fields: dict[str, FieldModels]


# The trend -----------------------------------------------------------------------------------


class Change(msgspec.Struct):
    """One number in two rounds: ``previous``, ``current`` and their ``change`` (null with a
    ``note`` saying why)."""

    previous: float | None
    current: float | None
    change: float | None
    note: str | None


class AnnotatorChange(msgspec.Struct):
    """An annotator's ``pair_agreement`` in two rounds."""

    name: str
    pair_agreement: Change


class Point(msgspec.Struct):
    """A field's alpha in one run (``generated_at`` null: this run); with ``adjudication:``
    its disputes by state (the burn-down; null for a run that did not count them)."""

    generated_at: str | None
    alpha: float | None
    disputes: dict[str, int] | UnsetType | None = UNSET


class FieldTrend(msgspec.Struct):
    """One field since the previous round; when not ``comparable`` only the ``note`` says why.
    ``series``: its alpha over the last rounds."""

    comparable: bool
    note: str | None
    alpha: Change | UnsetType = UNSET
    coefficients: dict[str, Change] | UnsetType = UNSET
    categories: dict[str, Change] | UnsetType = UNSET
    annotators: dict[str, AnnotatorChange] | UnsetType = UNSET
    disputed_share: Change | UnsetType = UNSET
    series: list[Point] = msgspec.field(default_factory=list)


class PreviousInfo(msgspec.Struct):
    """The report compared with: where it was read and what it said."""

    path: str
    generated_at: str | None
    schema_version: Any
    verdict: str | None
    source: Any
    round: Any


class AltTestChange(msgspec.Struct):
    """A model version's alt-test in two rounds: ω (``winning_rate``) and ρ
    (``advantage_probability``)."""

    winning_rate: Change
    advantage_probability: Change


class Trend(msgspec.Struct):
    """The change since the previous round: the report compared with, notes, each field, and
    (when there is one) each model version's alt-test by field (``alt_test``)."""

    previous: PreviousInfo
    notes: list[str]
    fields: dict[str, FieldTrend]
    alt_test: dict[str, dict[str, AltTestChange]] | UnsetType = UNSET


# Write-back ----------------------------------------------------------------------------------


class Planned(msgspec.Struct, forbid_unknown_fields=True):
    """A change a dry run would make to task ``id``: its entry ``was`` and ``now``; ``data``:
    the task data changes too (Label Studio flags)."""

    id: TaskId
    now: str | None
    was: str | UnsetType | None = UNSET
    data: bool | UnsetType = UNSET


class FailedTask(msgspec.Struct, forbid_unknown_fields=True):
    """A task whose write failed, with the ``error``."""

    id: TaskId
    error: str


class ConsensusWriteback(msgspec.Struct, forbid_unknown_fields=True):
    """The consensus predictions written back (``model_version``): ``planned`` changes and
    ``proposals``, ``ties`` left without one, and what happened to each."""

    model_version: str
    dry_run: bool
    planned: int
    proposals: int
    ties: int
    created: int
    replaced: int
    deleted: int
    unchanged: int
    failed: int
    changes: list[Planned] | UnsetType = UNSET


class Writeback(msgspec.Struct, forbid_unknown_fields=True):
    """What write-back did: the ``target``; for Prodigy the ``disputed_examples``, ``lines``
    and ``consensus_lines`` written; for Label Studio the ``project``, counts of tasks
    ``planned``, ``done``, ``unchanged``, ``skipped`` (edited since the pull), ``failed``,
    ``routed`` (re-opened for another annotator), the
    Data Manager tab (``view``…) and the ``consensus`` predictions; ``warnings`` for the
    person. The fields are in the order the summary line shows them."""

    # forbid_unknown_fields: a sink's summary key this Struct does not name is an error in the
    # tests, never a count silently dropped from the report (as 'routed' once was)
    target: str
    disputed_examples: int | UnsetType = UNSET
    lines: int | UnsetType = UNSET
    consensus_lines: int | UnsetType = UNSET
    project: int | str | UnsetType | None = UNSET
    meta_key: str | UnsetType = UNSET
    dry_run: bool = False
    planned: int | UnsetType = UNSET
    done: int | UnsetType = UNSET
    unchanged: int | UnsetType = UNSET
    skipped: int | UnsetType = UNSET
    failed: int | UnsetType = UNSET
    disputed: int | UnsetType = UNSET
    routed: int | UnsetType = UNSET
    """Disputed tasks re-opened for one more annotator (``writeback.route``)."""
    warnings: list[str] = msgspec.field(default_factory=list)
    changes: list[Planned] | UnsetType = UNSET
    already_done: int | UnsetType = UNSET
    failed_tasks: list[FailedTask] | UnsetType = UNSET
    skipped_tasks: list[TaskId] | UnsetType = UNSET
    view_title: str | UnsetType | None = UNSET
    view_id: int | UnsetType | None = UNSET
    view: str | UnsetType = UNSET
    view_error: str | UnsetType = UNSET
    consensus: ConsensusWriteback | UnsetType = UNSET
    overlap: OverlapWriteback | UnsetType = UNSET
    """The overlap that follows the plan (``writeback.overlap``), when asked for."""

    @property
    def complete(self) -> bool:
        """Whether everything asked was written: no task, tab, consensus prediction or task
        overlap failed."""
        consensus_failed = self.consensus.failed if self.consensus else 0
        overlap_failed = self.overlap.failed if self.overlap else 0
        return not (self.failed or self.view == "failed" or consensus_failed or overlap_failed)

    def with_view(self, tab: Writeback) -> Writeback:
        """This summary with the Data Manager tab's fields of ``tab`` (``view_title``,
        ``view_id``, ``view``, ``view_error``), which the tab's own summary holds."""
        return msgspec.structs.replace(
            self,
            view_title=tab.view_title,
            view_id=tab.view_id,
            view=tab.view,
            view_error=tab.view_error,
        )

    def shown(self) -> list[tuple[str, Any]]:
        """The summary's plain values (no list or section), in order, for a line of text."""
        return [
            (k, v)
            for k in self.__struct_fields__
            if (v := getattr(self, k)) is not UNSET
            and not isinstance(v, (list, dict, msgspec.Struct))
        ]


def plain(x: Any) -> Any:
    """The ``enc_hook`` of every report encoder: a numpy scalar, or a subclass of float, int or
    str, as its plain Python value (msgspec takes neither as is)."""
    if isinstance(x, np.generic):
        return x.item()
    for kind in (float, int, str):
        if isinstance(x, kind):
            return kind(x)
    raise TypeError(f"a {type(x).__name__} is not JSON data")
