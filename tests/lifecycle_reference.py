"""``field_lifecycle``'s states as they were decided before each task's proposal was read only
for the tasks that need it (an adjudicated or routed one): every disputed task's proposal read,
each task decided in turn. ``tests/test_lifecycle_columns.py`` holds the function to it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from iaa_gate.evaluation.lifecycle import State
from iaa_gate.evaluation.results import UnitTable


def states(
    units: Any,
    answers: Mapping[Any, Any],
    settle_at: float,
    routed: Mapping[Any, int] | None,
    max_annotations: int | None,
) -> tuple[dict[Any, State], int, int]:
    """Each disputed task's state; how many resolved tasks' answer confirmed the proposal, of
    how many had one (``answers``: task → the adjudicated answer as the report shows it)."""
    if isinstance(units, UnitTable):
        at = units.where("disputed")
        p = units.proposals(at)
        n = units.n_labels(at)
        rows = [
            (units.ids[i], p.value[k], p.posterior[k], p.tie[k], n[k]) for k, i in enumerate(at)
        ]
    else:
        rows = [
            (u.id, c.value, c.posterior, c.tie, len(u.labels))
            if (c := u.consensus) is not None
            else (u.id, None, math.nan, False, len(u.labels))
            for u in units
            if u.status == "disputed"
        ]
    out: dict[Any, State] = {}
    confirmed = compared = 0
    for task, value, posterior, tie, n in rows:
        if task in answers:
            out[task] = State("resolved", answers[task])
            if value is not None:
                compared += 1
                confirmed += answers[task] == value
            continue
        asked = routed.get(task) if routed else None
        if asked is None:
            out[task] = State("open")
        elif n < asked:
            out[task] = State("routed")
        elif not tie and posterior >= settle_at and value is not None:
            out[task] = State("settled", value)
        elif max_annotations is not None and n >= max_annotations:
            out[task] = State("open", None, f"needs a person: {n} annotations, no majority")
        else:
            out[task] = State("open")
    return out, confirmed, compared
