"""Ranking fields (Label Studio ``<Ranker>``): agreement on the order of items per task.

- ``alpha`` and the suite: ordinal, over (task, item) units, each annotator's rating of a unit
  the item's rank (1 = best; tied items, as in one bucket, share a rank).
- ``kendall_w``: Kendall's W with the tie correction, per task over the items every annotator
  of the task ranked, averaged over tasks; ``mean_tau_b``: the mean pairwise Kendall tau-b,
  likewise. A task's score (disputed below ``disputed_below``) is its W.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..config import FieldConfig
from ..kinds.ranker import TIE, ranks
from ..metrics import Coded, Undefined, code_dtype
from ..metrics.rankings import kendall_w, mean_tau_b
from ..model import Dataset, TaskId
from .coefficients import Estimate
from .matrix import RatingsMatrix, item_answers
from .results import FieldResult, UnitResult
from .scalar import matrix_result


def _shown(groups: tuple[str, ...]) -> str:
    """A ranking as text: ``a > b = c`` (best first, ``=`` joins a tie)."""
    return " > ".join(" = ".join(g.split(TIE)) for g in groups)


def _mean(values: list[float], what: str) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return float(np.mean(kept)) if kept else Undefined(f"no task has {what}")


def ranking_result(dataset: Dataset, name: str, cfg: FieldConfig) -> FieldResult:
    """Ranking field ``name``'s result (see the module docstring)."""
    cols = dataset.columns()
    found = item_answers(dataset, name, lambda value, _: value)
    given, column, tasks = found.given, found.column, found.tasks
    annotators = [cols.annotators[a] for a in found.annotators]
    unit_ids: list[TaskId] = []
    cells: list[tuple[int, int, float]] = []
    units, ws, taus = [], [], []
    names = [dataset.display_name(a) for a in annotators]
    for t in tasks:
        answers = {a: ranks(v) for a, v in given[t].items()}
        items = list(dict.fromkeys(x for r in answers.values() for x in r))
        for item in items:
            unit_ids.append(f"{cols.tasks[t]} · {item}")
            cells += [
                (len(unit_ids) - 1, column[a], r[item]) for a, r in answers.items() if item in r
            ]
        common = [x for x in items if all(x in r for r in answers.values())]
        table = np.array([[r[x] for x in common] for r in answers.values()], dtype=np.float64)
        w = kendall_w(table.reshape(len(answers), len(common)))
        ws.append(w)
        taus.append(mean_tau_b(table.reshape(len(answers), len(common))))
        status = (
            "too_few"
            if math.isnan(w)
            else "disputed"
            if w < cfg.thresholds.disputed_below
            else "agreed"
        )
        shown = {dataset.display_name(cols.annotators[a]): _shown(v) for a, v in given[t].items()}
        units.append(UnitResult(cols.tasks[t], status, float(w), shown))
    values = sorted({r for _, _, r in cells})
    code = {v: i for i, v in enumerate(values)}
    codes = np.full((len(unit_ids), len(annotators)), -1, dtype=code_dtype(max(len(values), 1)))
    for u, a, r in cells:
        codes[u, a] = code[r]
    matrix = RatingsMatrix(name, "ranker", unit_ids, annotators, Coded(codes, np.array(values)))
    result = matrix_result(matrix, "ordinal", names, cfg, units)
    result.coefficients["kendall_w"] = Estimate("kendall_w", _mean(ws, "a defined W"))
    result.coefficients["mean_tau_b"] = Estimate("mean_tau_b", _mean(taus, "a defined tau-b"))
    return dataclasses.replace(result, n_tasks=len(tasks))


__all__ = ["ranking_result"]
