"""What an evaluation returns per field: plain results the gate, the reports and the sinks read."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, overload

import msgspec
import numpy as np
import numpy.typing as npt

from .. import metrics
from ..model import FloatArray, TaskId
from .coefficients import Estimate
from .sections import CategoriesUsed, Coincidence, Details, Regions


def _defined(x: float | None) -> float | None:
    """``x`` as the report writes it: a float, None for NaN (undefined)."""
    return None if x is None or math.isnan(x) else float(x)


class AnnotatorTruth(msgspec.Struct, frozen=True):
    """One annotator against the references, in the result and in the report alike.

    ``id``: the annotator's id in the source; ``name``: their display name (email or name, else
    the id); ``n_tasks``: gold tasks they answered; ``agreement``: the mean per-task comparison
    with the reference (0–1; None: undefined); ``mean_offset``: numbers only, the mean of own −
    reference (in the field's units), else None. A NaN given is kept as None."""

    id: str
    name: str
    n_tasks: int
    agreement: float | None
    mean_offset: float | None

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "agreement", _defined(self.agreement))
        msgspec.structs.force_setattr(self, "mean_offset", _defined(self.mean_offset))


class FieldTruth(msgspec.Struct):
    """One field against ground truth, in the result and in the report alike.

    ``comparison``: how answers are compared, in words (or why they are not); ``n_tasks``: gold
    tasks with one agreed reference answer; ``conflicting``: gold tasks whose references
    disagree (left out); ``annotators``: each annotator's :class:`AnnotatorTruth`, by id."""

    comparison: str
    n_tasks: int
    conflicting: list[TaskId] = msgspec.field(default_factory=list)
    annotators: list[AnnotatorTruth] = msgspec.field(default_factory=list)


@dataclass(frozen=True)
class AnnotatorResult:
    """One annotator of one field.

    ``id``: the annotator's id in the source; ``name``: their display name; ``n_units``: units
    they rated that someone else rated too; ``pair_agreement``: the share of their pairable
    ratings that agree with the others' (0–1, under the field's distance); ``alpha_without``:
    the field's alpha with this annotator left out; ``alpha_gain``: ``alpha_without`` − alpha
    (positive: the field agrees more without them; NaN where either is undefined);
    ``outlier``: ``alpha_gain`` reaches ``thresholds.annotator_gain``; ``mean_offset``: rating
    and number fields only, how far their ratings lie above (+) or below (−) the mean of the
    others on the same units, in scale points (None elsewhere); ``left_share``: pairwise
    preference fields only, the share of their left/right choices that pick the left item
    (position bias: 0.5 is none; None elsewhere)."""

    id: str
    name: str
    n_units: int
    pair_agreement: float
    alpha_without: float
    alpha_gain: float
    outlier: bool
    mean_offset: float | None = None
    left_share: float | None = None


class AnnotatorSkill(msgspec.Struct, frozen=True):
    """One annotator as Dawid–Skene estimates them: ``id``, ``name``, ``n_units`` they
    answered, ``accuracy`` P(they give the true answer) (0–1; None: no answer, a NaN given is
    kept as None) and ``confusion`` ``[true][given]`` probabilities over
    :attr:`Skill.classes` (rows sum to 1)."""

    id: str
    name: str
    n_units: int
    accuracy: float | None
    confusion: list[list[float]]

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "accuracy", _defined(self.accuracy))


class Skill(msgspec.Struct):
    """A field's Dawid–Skene fit: ``method`` (``dawid-skene``), what one fit's unit is
    (``basis``: ``task``, ``matched region`` or ``label``, a multi-select field being fitted once
    per label, its confusion matrices averaged over labels), the ``classes`` that label the rows
    (true) and columns (given) of each confusion matrix, ``iterations`` of EM (the largest over
    fits), whether every fit ``converged``, and each :class:`AnnotatorSkill`."""

    basis: str
    classes: list[str]
    iterations: int
    converged: bool
    annotators: list[AnnotatorSkill] = msgspec.field(default_factory=list)
    method: str = "dawid-skene"


class Consensus(msgspec.Struct, frozen=True, gc=False):
    """The answer proposed for one unit of one field, for reviewers and for training.

    ``value``: the proposed answer, in the field's own terms (a label, a number, a list of labels
    for a multi-select field; for a region field a list of region dicts as ``consensus.jsonl``
    writes them); ``posterior``: its probability under ``method`` (0–1); ``method``: how it was
    found (``dawid-skene``, ``majority``, ``median``); ``tie``: the best answers tie, so ``value``
    is one of them and no answer is proposed as settled (ties are never broken silently)."""

    value: Any
    posterior: float
    method: str
    tie: bool = False


@dataclass(slots=True)
class UnitResult:
    """One task of one field: ``id`` is the task's id; ``status`` agreed, disputed or too_few
    (fewer than ``min_annotators`` ratings); ``score`` its agreement (0–1: the share of
    agreeing annotator pairs, or the mean pairwise F1 of a region field; NaN for too_few);
    ``labels``: annotator name → label (region fields: their regions, as text). ``details``:
    region fields' disputed tasks: the text excerpt, each annotator's regions and every
    disagreement with its kind. ``consensus``: the proposed answer (None: not computed);
    ``priority``: disputed units only, how urgently a person should look (0–1, 1 − the
    consensus posterior: higher first; None elsewhere)."""

    id: TaskId
    status: str
    score: float
    labels: dict[str, Any]
    details: Details | None = None
    consensus: Consensus | None = None
    priority: float | None = None


@dataclass
class FieldResult:
    """Everything evaluated for one field.

    - ``name``: the field (a control tag, Prodigy view or table field; ``region.attribute``
      for a per-region attribute); ``kind``: its control type (see :mod:`iaa_gate.kinds`);
    - ``level``: the level of measurement or distance alpha used; ``multiple``: values are
      label sets;
    - ``n_tasks``: units in the matrix; ``n_rated``: units with at least one rating;
      ``n_pairable``: units with two or more (the ones alpha uses); ``n_annotators``:
      annotators with a rating; ``n_ratings``: ratings in all;
    - ``alpha``: Krippendorff's alpha (NaN: undefined, the reason in
      ``coefficients["alpha"]``);
    - ``category_method``: how per-category agreement is computed (``category_agreement`` or
      ``specific_agreement``); ``categories``: label → its agreement (0–1, NaN: undefined);
    - ``coincidence``: the coincidence matrix for the heatmap (None: too many values);
    - ``annotators``: each :class:`AnnotatorResult`; ``units``: each :class:`UnitResult` (a
      :class:`UnitTable` for scalar fields: arrays, objects made when asked for);
    - ``coefficients``: name → :class:`Estimate`, the suite of coefficients with intervals;
    - ``pairwise``: annotator × annotator agreement (rows and columns in ``annotators`` order);
    - ``ground_truth``: agreement with references (None without them);
    - ``regions``: region fields' own metrics (below)."""

    name: str
    kind: str
    level: str
    multiple: bool
    n_tasks: int
    n_rated: int
    n_pairable: int
    n_annotators: int
    n_ratings: int
    alpha: float
    category_method: str
    categories: dict[str, float]
    coincidence: Coincidence | None
    annotators: list[AnnotatorResult]
    units: Sequence[UnitResult] = field(default_factory=list)
    coefficients: dict[str, Estimate] = field(default_factory=dict)
    pairwise: metrics.PairwiseAgreement | None = None  # annotators in ``annotators`` order
    ground_truth: FieldTruth | None = None
    regions: Regions | None = None
    """Region fields: matching, F1 (strict, relaxed, per label), the annotator × annotator F1
    matrix, mean IoU, relations, unitizing alpha (see :mod:`iaa_gate.evaluation.regions`)."""
    categories_used: CategoriesUsed | None = None
    """Ordered fields: the categories the kappa family and AC2 use (``values``) and where they
    come from (``source``: labels, the labeling config's maxRating, or the values that occur)."""
    alpha_sampling: tuple[int, float] | None = None
    """``(pairs, standard_error)`` when alpha's expected disagreement was estimated from drawn
    pairs (``expected_sample``); None: exact."""
    skill: Skill | None = None
    """Each annotator's Dawid–Skene accuracy and confusion matrix (None: not fitted, e.g. a
    numeric or free-text field; see :mod:`iaa_gate.evaluation.consensus`)."""
    states: dict[TaskId, str] | None = None
    """With ``adjudication:``: each disputed task's state (open, routed, settled, resolved; see
    :mod:`iaa_gate.evaluation.lifecycle`), for write-back: a settled or resolved task is no
    longer flagged."""

    @property
    def disputed(self) -> list[UnitResult]:
        return with_status(self.units, "disputed")

    @property
    def lowest_category(self) -> tuple[str, float] | None:
        defined = [(k, v) for k, v in self.categories.items() if not math.isnan(v)]
        return min(defined, key=lambda kv: kv[1]) if defined else None


@dataclass(frozen=True)
class Proposals:
    """The proposed answers of a field's units as columns: row ``r`` is the unit of task
    ``ids[r]`` (a task not listed: none proposed); ``value`` its answer, ``posterior`` ``(rows,)``
    its probability, ``tie`` ``(rows,)`` whether it ties, ``rated`` ``(rows,)`` whether anyone
    rated it (unrated rows get none); ``method`` as :attr:`Consensus.method`."""

    ids: list[Any]
    value: Sequence[Any]
    posterior: np.ndarray[Any, np.dtype[np.float64]]
    tie: np.ndarray[Any, np.dtype[np.bool_]]
    rated: np.ndarray[Any, np.dtype[np.bool_]]
    method: str

    @cached_property
    def index(self) -> dict[Any, int]:
        """Task id → its row."""
        return {t: r for r, t in enumerate(self.ids)}

    def rows(self, ids: list[Any], at: Sequence[int]) -> npt.NDArray[np.int64]:
        """The rows of tasks ``ids[i]`` for ``i`` in ``at`` (-1: not listed)."""
        if ids is self.ids or ids == self.ids:  # the same tasks in the same order (the usual)
            return np.asarray(at, dtype=np.int64)
        get = self.index.get
        return np.fromiter((get(ids[i], -1) for i in at), np.int64, len(at))


@dataclass(slots=True)
class ProposalColumns:
    """Some units' proposals as lists, one entry per unit: ``has`` whether it has one (else
    ``value`` None, ``posterior`` NaN), its ``value``, ``posterior`` (0–1, rounded to 6 places),
    ``tie``, and ``priority`` (disputed units with a proposal: 1 − the posterior, rounded to 6
    places; else None); ``method`` as :attr:`Consensus.method`."""

    has: list[bool]
    value: list[Any] | Picked
    posterior: list[float]
    tie: list[bool]
    priority: list[float | None]
    method: str

    def set(self, k: int, c: Consensus | None, priority: float | None) -> None:
        """Entry ``k`` from a unit's own ``consensus`` and ``priority``."""
        self.has[k], self.priority[k] = c is not None, priority
        self.value[k] = None if c is None else c.value
        self.posterior[k] = math.nan if c is None else c.posterior
        self.tie[k] = False if c is None else c.tie
        if c is not None:
            self.method = c.method

    def consensus(self, k: int) -> Consensus | None:
        """Entry ``k`` as a :class:`Consensus` (None: no proposal)."""
        if not self.has[k]:
            return None
        return Consensus(self.value[k], self.posterior[k], self.method, self.tie[k])


class Picked(Sequence[Any]):
    """Entries ``rows`` of ``values``, each read when asked (None where not ``has``); an entry
    set stays set."""

    def __init__(self, values: Sequence[Any], rows: list[int], has: list[bool]) -> None:
        self.values, self.rows, self.has = values, rows, has
        self.changed: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, k: int) -> Any: ...
    @overload
    def __getitem__(self, k: slice) -> list[Any]: ...
    def __getitem__(self, k: int | slice) -> Any:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k in self.changed:
            return self.changed[k]
        return self.values[self.rows[k]] if self.has[k] else None

    def __setitem__(self, k: int, value: Any) -> None:
        self.changed[k] = value


STATUSES = ("agreed", "disputed", "too_few")
"""The unit statuses, in the order of their codes in :attr:`UnitTable.status`."""


class UnitTable(Sequence[UnitResult]):
    """The units of one field, column-wise: unit ``i`` is task ``ids[i]``, its status
    ``STATUSES[status[i]]`` and score ``score[i]`` (NaN: too few ratings); its labels are
    ``names[who[k]] → shown[what[k]]`` for ``k`` in ``start[i]:end[i]`` (rows in label order).

    A :class:`UnitResult` is made only when one is asked for (by index or iteration), and kept,
    so a unit changed through it stays changed; counts, scores and the disputed units are read
    from the arrays. The proposed answers are columns too (:meth:`propose`)."""

    def __init__(
        self,
        ids: list[TaskId],
        status: np.ndarray[Any, np.dtype[np.int8]],
        score: np.ndarray[Any, np.dtype[np.float64]],
        spans: tuple[np.ndarray[Any, np.dtype[np.int64]], np.ndarray[Any, np.dtype[np.int64]]],
        labels: tuple[
            list[str],
            np.ndarray[Any, np.dtype[np.int64]],
            list[Any],
            np.ndarray[Any, np.dtype[np.int64]],
        ],
    ) -> None:
        self.ids, self.status, self.score = ids, status, score
        self.start, self.end = spans
        self.names, self.who, self.shown, self.what = labels
        self._made: dict[int, UnitResult] = {}
        self._proposed: Proposals | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, i: int) -> UnitResult: ...
    @overload
    def __getitem__(self, i: slice) -> list[UnitResult]: ...
    def __getitem__(self, i: int | slice) -> UnitResult | list[UnitResult]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        u = self._made.get(i)
        if u is None:
            u = self._made[i] = self._make(i)
        return u

    def __iter__(self) -> Iterator[UnitResult]:
        return (self[i] for i in range(len(self)))

    def _make(self, i: int) -> UnitResult:
        s, e = int(self.start[i]), int(self.end[i])
        names, shown = self.names, self.shown
        who, what = self.who[s:e].tolist(), self.what[s:e].tolist()
        labels = {names[a]: shown[c] for a, c in zip(who, what, strict=True)}
        u = UnitResult(self.ids[i], STATUSES[self.status[i]], float(self.score[i]), labels)
        u.consensus, u.priority = self._proposal(i)
        return u

    def propose(self, proposals: Proposals) -> None:
        """Keep each unit's proposed answer as columns (see :class:`Proposals`); units already
        made as objects take theirs at once."""
        self._proposed = proposals
        for i, u in self._made.items():
            u.consensus, u.priority = self._proposal(i)

    def proposals(self, at: Sequence[int]) -> ProposalColumns:
        """The proposals of units ``at`` (indices) in bulk, as :meth:`_proposal` gives them one
        by one (a unit already made as an object answers with its own)."""
        n, p = len(at), self._proposed
        if p is None or not n or not len(p.posterior):
            return ProposalColumns(
                [False] * n, [None] * n, [math.nan] * n, [False] * n, [None] * n, ""
            )
        rows = p.rows(self.ids, at)
        has = rows >= 0
        has[has] = p.rated[rows[has]]
        rows[~has] = 0
        post = p.posterior[rows]
        disputed = self.status[np.asarray(at, dtype=np.int64)] == STATUSES.index("disputed")
        value: list[Any] | Picked
        if isinstance(p.value, list):
            value = list(map(p.value.__getitem__, rows.tolist()))
            for k in np.flatnonzero(~has).tolist():
                value[k] = None
        else:  # made when read (a region field's lists of regions)
            value = Picked(p.value, rows.tolist(), has.tolist())
        priority: list[float | None] = list(_round6(1.0 - post))
        for k in np.flatnonzero(~(has & disputed)).tolist():
            priority[k] = None
        out = ProposalColumns(
            has.tolist(), value, _round6(post), p.tie[rows].tolist(), priority, p.method
        )
        if self._made:
            for k, i in enumerate(at):
                made = self._made.get(i)
                if made is not None:
                    out.set(k, made.consensus, made.priority)
        return out

    def _proposal(self, i: int) -> tuple[Consensus | None, float | None]:
        """Unit ``i``'s consensus and, disputed, its priority (None, None: none proposed)."""
        p = self._proposed
        row = -1 if p is None else p.index.get(self.ids[i], -1)
        if p is None or row < 0 or not p.rated[row]:
            return None, None
        posterior = float(p.posterior[row])
        c = Consensus(p.value[row], round(posterior, 6), p.method, bool(p.tie[row]))
        disputed = self.status[i] == STATUSES.index("disputed")
        return c, round(1.0 - posterior, 6) if disputed else None

    def count_status(self, status: str) -> int:
        """How many units have ``status``."""
        return int(np.count_nonzero(self.status == STATUSES.index(status)))

    def with_status(self, status: str) -> list[UnitResult]:
        """The units with ``status``, in order."""
        return [self[i] for i in self.where(status)]

    def labels(self, at: Sequence[int]) -> list[dict[str, Any]]:
        """The labels of units ``at`` (indices), made in bulk (no :class:`UnitResult`)."""
        if not len(at):
            return []
        names, shown = self.names, self.shown
        rows, spans = self.label_rows(at)
        who = list(map(names.__getitem__, self.who[rows].tolist()))
        what = list(map(shown.__getitem__, self.what[rows].tolist()))
        return [dict(zip(who[s:e], what[s:e], strict=True)) for s, e in spans]

    def details(self, at: Sequence[int]) -> list[Details | None]:
        """The details of units ``at`` (indices): none for a field of single ratings (a region
        field's: :class:`~iaa_gate.evaluation.region_details.RegionUnits`)."""
        return [None] * len(at)

    def n_labels(self, at: Sequence[int]) -> list[int]:
        """How many annotators' labels units ``at`` (indices) have."""
        n: list[int] = (self.end[at] - self.start[at]).tolist() if len(at) else []
        return n

    def label_rows(self, at: Sequence[int]) -> tuple[npt.NDArray[np.int64], list[tuple[int, int]]]:
        """The label rows (into ``who`` and ``what``) of units ``at``, one unit after another,
        and where each unit's lie among them (``(start, end)`` per unit)."""
        start, end = self.start[at], self.end[at]
        n = end - start
        ends = np.cumsum(n)
        rows: npt.NDArray[np.int64] = np.arange(ends[-1] if len(ends) else 0) + np.repeat(
            start - (ends - n), n
        )
        stops = ends.tolist()
        return rows, list(zip([0, *stops[:-1]], stops, strict=True))

    def where(self, status: str) -> list[int]:
        """The indices of the units with ``status``, in order."""
        at: list[int] = np.flatnonzero(self.status == STATUSES.index(status)).tolist()
        return at


def _round6(x: FloatArray) -> list[float]:
    """``round(v, 6)`` of each value of ``x`` (Python's exact rounding: the nearest float to
    the value rounded to 6 decimals, half to even).

    ``x·10⁶`` to the nearest integer, divided back (a correctly rounded division: the nearest
    float to that decimal), is Python's answer wherever the product's own rounding error (at
    most ``|x·10⁶|·2⁻⁵³``; the margin left is ``(|x·10⁶| + 1)·2⁻⁵⁰``) cannot have moved it
    across a half. Python's ``round`` decides the few values that close to a half (ties among
    them) and those too large or not finite."""
    v = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # those are decided by Python below
        y = v * 1e6
        out = np.rint(y) / 1e6
        unsure = ~(np.abs(y) < 2.0**52) | (
            np.abs(y - np.floor(y) - 0.5) <= (np.abs(y) + 1.0) * 2.0**-50
        )
    if unsure.any():
        at = np.flatnonzero(unsure)
        out[at] = [round(u, 6) for u in v[at].tolist()]
    rounded: list[float] = out.tolist()
    return rounded


def status_count(units: Sequence[UnitResult], status: str) -> int:
    """How many of ``units`` have ``status`` (from the arrays of a :class:`UnitTable`)."""
    if isinstance(units, UnitTable):
        return units.count_status(status)
    return sum(1 for u in units if u.status == status)


def with_status(units: Sequence[UnitResult], status: str) -> list[UnitResult]:
    """The units with ``status``, in order."""
    if isinstance(units, UnitTable):
        return units.with_status(status)
    return [u for u in units if u.status == status]


def unit_scores(units: Sequence[UnitResult]) -> FloatArray:
    """Each unit's score ``(units,)``, NaN for too few ratings."""
    if isinstance(units, UnitTable):
        return units.score
    return np.fromiter((u.score for u in units), np.float64, len(units))
