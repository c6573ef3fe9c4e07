"""What an evaluation returns per field: plain results the gate, the reports and the sinks read."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .. import metrics
from ..model import TaskId
from .coefficients import Estimate


@dataclass(frozen=True)
class AnnotatorTruth:
    """One annotator against the references.

    ``id``: the annotator's id in the source; ``name``: their display name (email or name, else
    the id); ``n_tasks``: gold tasks they answered; ``agreement``: the mean per-task comparison
    with the reference (0–1); ``mean_offset``: numbers only, the mean of own − reference (in the
    field's units), else None."""

    id: str
    name: str
    n_tasks: int
    agreement: float
    mean_offset: float | None


@dataclass
class FieldTruth:
    """One field against ground truth.

    ``comparison``: how answers are compared, in words (or why they are not); ``n_tasks``: gold
    tasks with one agreed reference answer; ``conflicting``: gold tasks whose references
    disagree (left out); ``annotators``: each annotator's :class:`AnnotatorTruth`, by id."""

    comparison: str
    n_tasks: int
    conflicting: list[TaskId] = field(default_factory=list)
    annotators: list[AnnotatorTruth] = field(default_factory=list)


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
    others on the same units, in scale points (None elsewhere)."""

    id: str
    name: str
    n_units: int
    pair_agreement: float
    alpha_without: float
    alpha_gain: float
    outlier: bool
    mean_offset: float | None = None


@dataclass(frozen=True)
class AnnotatorSkill:
    """One annotator as Dawid–Skene estimates them: ``id``, ``name``, ``n_units`` they
    answered, ``accuracy`` P(they give the true answer) (0–1, NaN: no answer) and
    ``confusion`` ``[true][given]`` probabilities over :attr:`Skill.classes` (rows sum to 1)."""

    id: str
    name: str
    n_units: int
    accuracy: float
    confusion: list[list[float]]


@dataclass
class Skill:
    """A field's Dawid–Skene fit: ``method`` (``dawid-skene``), what one fit's unit is
    (``basis``: ``task``, ``matched region`` or ``label``, a multi-select field being fitted once
    per label, its confusion matrices averaged over labels), the ``classes`` that label the rows
    (true) and columns (given) of each confusion matrix, ``iterations`` of EM (the largest over
    fits), whether every fit ``converged``, and each :class:`AnnotatorSkill`."""

    basis: str
    classes: list[str]
    iterations: int
    converged: bool
    annotators: list[AnnotatorSkill] = field(default_factory=list)
    method: str = "dawid-skene"


@dataclass(frozen=True, slots=True)
class Consensus:
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
    details: dict[str, Any] | None = None
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
    - ``annotators``: each :class:`AnnotatorResult`; ``units``: each :class:`UnitResult`;
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
    coincidence: dict[str, Any] | None
    annotators: list[AnnotatorResult]
    units: list[UnitResult] = field(default_factory=list)
    coefficients: dict[str, Estimate] = field(default_factory=dict)
    pairwise: metrics.PairwiseAgreement | None = None  # annotators in ``annotators`` order
    ground_truth: FieldTruth | None = None
    regions: dict[str, Any] | None = None
    """Region fields: matching, F1 (strict, relaxed, per label), the annotator × annotator F1
    matrix, mean IoU, relations, unitizing alpha (see :mod:`iaa_gate.evaluation.regions`)."""
    categories_used: dict[str, Any] | None = None
    """Ordered fields: the categories the kappa family and AC2 use (``values``) and where they
    come from (``source``: labels, the labeling config's maxRating, or the values that occur)."""
    skill: Skill | None = None
    """Each annotator's Dawid–Skene accuracy and confusion matrix (None: not fitted, e.g. a
    numeric or free-text field; see :mod:`iaa_gate.evaluation.consensus`)."""

    @property
    def disputed(self) -> list[UnitResult]:
        return [u for u in self.units if u.status == "disputed"]

    @property
    def lowest_category(self) -> tuple[str, float] | None:
        defined = [(k, v) for k, v in self.categories.items() if not math.isnan(v)]
        return min(defined, key=lambda kv: kv[1]) if defined else None
