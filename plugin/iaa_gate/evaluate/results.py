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
    """One annotator against the references: ``agreement`` is the mean per-task comparison over
    ``n_tasks`` gold tasks; ``mean_offset`` (numbers only) the mean of own − reference."""

    id: str
    name: str
    n_tasks: int
    agreement: float
    mean_offset: float | None


@dataclass
class FieldTruth:
    comparison: str
    n_tasks: int
    conflicting: list[TaskId] = field(default_factory=list)
    annotators: list[AnnotatorTruth] = field(default_factory=list)


@dataclass(frozen=True)
class AnnotatorResult:
    id: str
    name: str
    n_units: int
    pair_agreement: float
    alpha_without: float
    alpha_gain: float
    outlier: bool
    mean_offset: float | None = None


@dataclass(slots=True)
class UnitResult:
    """One task of one field: ``status`` is agreed, disputed or too_few (fewer than
    ``min_annotators`` ratings); ``labels``: annotator name → label (region fields: their
    regions, as text). ``details``: region fields' disputed tasks: the text excerpt, each
    annotator's regions and every disagreement with its kind."""

    id: TaskId
    status: str
    score: float
    labels: dict[str, Any]
    details: dict[str, Any] | None = None


@dataclass
class FieldResult:
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
    matrix, mean IoU, relations, unitizing alpha (see :mod:`iaa_gate.evaluate.regions`)."""

    @property
    def disputed(self) -> list[UnitResult]:
        return [u for u in self.units if u.status == "disputed"]

    @property
    def lowest_category(self) -> tuple[str, float] | None:
        defined = [(k, v) for k, v in self.categories.items() if not math.isnan(v)]
        return min(defined, key=lambda kv: kv[1]) if defined else None
