"""How many overlapped tasks a round needs, from a pilot or the round so far.

For each scalar field, :func:`~iaa_gate.metrics.width_sample_size` simulates larger rounds like
the one so far: its tasks with two or more ratings drawn with replacement
(:func:`~iaa_gate.metrics.resampled`), so the values and their shares, the disagreements (and so
alpha) and the annotators per task are the round's, scored at the field's level (its distance
over the distinct values). It answers how many such tasks in all give alpha's interval at most a
width wide, and in what share of simulated rounds. A field it cannot model is listed with the
reason, never planned as something else.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from .. import metrics
from ..config import FieldConfig
from ..kinds import SCALAR_KINDS
from ..model import Dataset
from .gate import interval_width
from .results import FieldResult
from .scalar import field_level, field_matrix


@dataclass(frozen=True)
class FieldPlan:
    """One field's plan: ``n_tasks`` tasks with two or more ratings so far, alpha's interval
    ``width`` over them (NaN: none) and its ``alpha``; ``plan`` (None: not planned, ``reason``
    says why), ``annotators`` (the median number of annotators of those tasks, NaN when not
    planned) and ``more``, the tasks to add (0 when the round already has enough)."""

    field: str
    n_tasks: int
    width: float
    alpha: float
    plan: metrics.WidthPlan | None
    reason: str | None = None
    annotators: float = math.nan

    @property
    def more(self) -> int:
        return 0 if self.plan is None else max(0, self.plan.n_units - self.n_tasks)

    def line(self) -> str:
        """The plan in a line, e.g. ``sentiment: 240 overlapped tasks, interval width 0.130;
        about 410 in all give ≤ 0.10 (in 90% of 2,000 simulated rounds): 170 more``."""
        width = "no interval" if math.isnan(self.width) else f"interval width {self.width:.3f}"
        head = f"{self.field}: {self.n_tasks:,} overlapped tasks, {width}"
        if self.plan is None:
            return f"{head}; not planned: {self.reason}"
        p = self.plan
        share = math.floor(p.share * 100)
        more = f"{self.more:,} more" if self.more else "no more needed"
        return (
            f"{head}; about {p.n_units:,} in all give ≤ {p.width:.2f} "
            f"(in {share}% of {p.simulation.rounds:,} simulated rounds): {more}"
        )


def field_plan(
    dataset: Dataset,
    name: str,
    cfg: FieldConfig,
    result: FieldResult,
    width: float,
    simulation: metrics.Simulation,
) -> FieldPlan:
    """The plan of field ``name`` (its ``result`` from this ``dataset``) for an interval at
    most ``width`` wide in at least ``assurance`` of ``rounds`` simulated rounds.

    Parameters
    ----------
    dataset : Dataset
        The round (after its filters), as the field's result was computed from it.
    name : str
        The field.
    cfg : FieldConfig
        Its config.
    result : FieldResult
        Its result.
    width : float
        The widest interval wanted.
    simulation : Simulation
        How to simulate (:func:`~iaa_gate.metrics.width_sample_size`); its confidence is
        replaced by the field's.

    Returns
    -------
    FieldPlan
        The plan, or why there is none.
    """
    now = interval_width(result)
    confidence = result.coefficients["alpha"].confidence or simulation.confidence

    def none(reason: str) -> FieldPlan:
        return FieldPlan(name, result.n_pairable, now, result.alpha, None, reason)

    if result.kind not in SCALAR_KINDS:
        return none(
            f"a {result.kind} field: the simulation draws one value per task, its units are "
            "not tasks"
        )
    if result.n_pairable < 2:
        return none("fewer than two tasks with two or more ratings")
    if math.isnan(result.alpha):
        return none(f"alpha is undefined ({metrics.undefined_reason(result.alpha)})")
    if result.alpha < 0:
        return none(f"alpha {result.alpha:.3f} is below 0 (systematic disagreement)")
    if result.alpha >= 1:
        return none("alpha is 1: every task agrees, the interval is 0 wide")
    matrix = field_matrix(dataset, name, cfg)
    counts = (matrix.coded.codes >= 0).sum(axis=1)
    level = field_level(matrix.kind, cfg, matrix.multiple)
    distance = metrics.tabulate(matrix.coded.values, level)
    start = None
    if not math.isnan(now) and result.n_pairable:
        start = max(10, math.ceil(result.n_pairable * (now / width) ** 2))
    plan = metrics.width_sample_size(
        width,
        metrics.resampled(matrix.coded.codes),
        level=distance,
        values=matrix.coded.values,
        simulation=dataclasses.replace(simulation, confidence=confidence),
        start=start,
    )
    median = float(np.median(counts[counts >= 2]))
    return FieldPlan(name, result.n_pairable, now, result.alpha, plan, annotators=median)
