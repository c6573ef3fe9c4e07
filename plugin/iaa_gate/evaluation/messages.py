"""Per-message answers on a chat (Label Studio per-region controls on a ``<Chat>``): one unit
per (task, message), the message known by its role and content (see
:mod:`iaa_gate.kinds.messages`). The suite of coefficients is computed over these units at
the control's level; a task's score is its lowest message's, and a disputed task lists each
annotator's answer by message."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import metrics
from ..config import FieldConfig
from ..core.errors import InputError
from ..kinds import kind as registered
from ..kinds.messages import decode
from ..metrics import Coded, code_dtype
from ..model import Dataset, TaskId
from .matrix import RatingsMatrix, item_answers
from .results import FieldResult, UnitResult
from .scalar import field_level, is_multiple, matrix_result

SHOWN = 60
"""Characters of a message kept in its unit's name."""


def _answer(v: Any, multiple: bool, where: str) -> Any:
    if isinstance(v, list):
        if multiple:
            return frozenset(v)
        if len(v) != 1:
            raise InputError(where, [f"{len(v)} values {v} in a single-choice field"])
        return v[0]
    return float(v) if isinstance(v, (int, float)) else v


def message_result(dataset: Dataset, name: str, cfg: FieldConfig) -> FieldResult:
    """Per-message field ``name``'s result (see the module docstring)."""
    cols = dataset.columns()
    col = cols.fields[name]
    k = registered(col.kind)
    multiple = k is not None and k.multiple and is_multiple(dataset, name, cfg)

    def parse(value: Any, t: int) -> dict[str, object]:
        here = f"{dataset.source}: task {cols.tasks[t]}, field {name!r}"
        return {k: _answer(v, multiple, here) for k, v in decode(value).items()}

    found = item_answers(dataset, name, parse)
    given, column, tasks = found.given, found.column, found.tasks
    annotators = [cols.annotators[a] for a in found.annotators]
    unit_ids: list[TaskId] = []
    unit_task: list[int] = []
    messages: list[str] = []
    cells: list[tuple[int, int, Any]] = []
    for t in tasks:
        keys = list(dict.fromkeys(k for answers in given[t].values() for k in answers))
        for key in keys:
            shown = key if len(key) <= SHOWN else key[: SHOWN - 1] + "…"
            unit_ids.append(f"{cols.tasks[t]} · {shown}")
            unit_task.append(t)
            messages.append(shown)
            u = len(unit_ids) - 1
            cells += [(u, column[a], ans[key]) for a, ans in given[t].items() if key in ans]
    labels = list(cfg.labels or [])
    seen = {v for _, _, v in cells}
    if multiple:
        table: list[Any] = sorted(seen, key=lambda s: (len(s), sorted(s)))
    elif all(isinstance(v, float) for v in seen):
        table = sorted(seen)
    else:
        table = [*labels, *sorted(str(v) for v in seen if v not in labels)]
    code = {v: i for i, v in enumerate(table)}
    codes = np.full((len(unit_ids), len(annotators)), -1, dtype=code_dtype(max(len(table), 1)))
    for u, a, v in cells:
        codes[u, a] = code[v]
    codes[np.count_nonzero(codes >= 0, axis=1) < cfg.min_annotators] = -1
    values = np.empty(len(table), dtype=object)
    values[:] = table
    if table and all(isinstance(v, float) for v in table):
        values = values.astype(np.float64)
    matrix = RatingsMatrix(name, col.kind, unit_ids, annotators, Coded(codes, values), multiple)
    level = field_level(col.kind, cfg, multiple)
    names = [dataset.display_name(a) for a in annotators]
    scores = metrics.item_scores(matrix.coded, level)
    units = []
    for t in tasks:
        rows = [u for u, ut in enumerate(unit_task) if ut == t]
        defined = [float(scores[u]) for u in rows if not math.isnan(scores[u])]
        score = min(defined) if defined else math.nan
        bar = cfg.thresholds.disputed_below
        status = "too_few" if math.isnan(score) else "disputed" if score < bar else "agreed"
        shown_by: dict[str, dict[str, object]] = {}
        for u in rows:
            for who, v in matrix.labels_of(u).items():
                shown_by.setdefault(names[annotators.index(who)], {})[messages[u]] = v
        units.append(UnitResult(cols.tasks[t], status, score, shown_by))
    return matrix_result(matrix, level, names, cfg, units)


__all__ = ["message_result"]
