"""The report document: plain JSON-able data built from the gate's results.

Its shape is versioned (``schema_version``) and described by ``config/report.schema.json``;
scripts rely on ``verdict`` and ``fields.<name>.{alpha, alpha_undefined_reason, categories,
n_disputed, disputed.lowest[].id, disputed.lowest[].score}``. The document keeps the
:data:`LOWEST` lowest-scoring disputed tasks per field; every disputed task is a row of
:func:`disputed_tasks`, written beside it as :data:`DISPUTED_FILE`.
"""

from __future__ import annotations

import heapq
import math
from datetime import datetime, timezone
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np

from .. import __version__
from ..metrics import undefined_reason
from ..model import SourceStats, TaskId
from .coefficients import DESCRIPTION, Estimate
from .gate import Check, Verdict, worst
from .results import FieldResult, FieldTruth

SCHEMA_VERSION = 2
"""2: ``fields.<name>.disputed`` became ``{file, lowest}``, the full list moved to
:data:`DISPUTED_FILE` (1: ``disputed`` was the list of every disputed task)."""
LOWEST = 100
"""Disputed tasks per field kept in the document: the lowest scores."""
DISPUTED_FILE = "disputed-tasks.jsonl"
"""Every disputed task, one JSON line per (field, task), beside ``report.json``."""


class DisputedTask(msgspec.Struct, omit_defaults=True, gc=False):
    """One disputed task of a field: a line of :data:`DISPUTED_FILE` (``details``: region
    fields). A struct, not a dict: the collector does not track it (it holds no cycle), so half
    a million of them (10^6 tasks) take ~0.05 s to make, where dicts took ~0.4 s of rescans."""

    field: str
    id: TaskId
    score: float | None
    labels: dict[str, Any]
    details: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """As the report lists it (``disputed.lowest``): without the field's name."""
        d = {"id": self.id, "score": self.score, "labels": self.labels}
        return d if self.details is None else d | {"details": self.details}


Disputed = dict[str, list[DisputedTask]]
"""Field name → every disputed task of the field, by task id (:func:`disputed_tasks`)."""


def num(x: float | None) -> float | None:
    """A finite float, or None (JSON null) for NaN/undefined."""
    if x is None or math.isnan(x):
        return None
    return float(x)


def _id_key(task: TaskId) -> tuple[int, Any]:
    return (0, task) if isinstance(task, int) else (1, str(task))


def _check(c: Check) -> dict[str, Any]:
    return {
        "name": c.name,
        "value": num(c.value),
        "fail": c.fail,
        "warn": c.warn,
        "verdict": c.verdict.value,
        "message": c.message,
    }


def _estimate(e: Estimate) -> dict[str, Any]:
    return {
        "value": num(e.value),
        "undefined_reason": undefined_reason(e.value),
        "se": e.se,
        "lower": e.lower,
        "upper": e.upper,
        "confidence": e.confidence,
        "interpretation": e.interpretation,
        "scale": e.scale,
        "benchmark": e.benchmark,
        "q": e.q,
        "description": DESCRIPTION[e.name],
        "ignores_order": e.ignores_order,
    }


SCORE_BINS = 20


def _pairwise(result: FieldResult) -> dict[str, Any] | None:
    pw = result.pairwise
    if pw is None:
        return None
    return {
        "annotators": [a.name for a in result.annotators],
        "agreement": [[num(x) for x in row] for row in pw.agreement.round(6).tolist()],
        "shared": pw.shared.tolist(),
    }


def _score_histogram(scores: np.ndarray[Any, np.dtype[np.float64]]) -> dict[str, Any]:
    """``scores``: the per-task scores, NaN for a task too few annotators rated."""
    counts, edges = np.histogram(scores[~np.isnan(scores)], bins=SCORE_BINS, range=(0.0, 1.0))
    return {"edges": edges.round(6).tolist(), "counts": counts.tolist()}


def _truth(t: FieldTruth | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "comparison": t.comparison,
        "n_tasks": t.n_tasks,
        "conflicting": t.conflicting,
        "annotators": [
            {
                "id": a.id,
                "name": a.name,
                "n_tasks": a.n_tasks,
                "agreement": num(a.agreement),
                "mean_offset": num(a.mean_offset),
            }
            for a in t.annotators
        ],
    }


def disputed_tasks(name: str, result: FieldResult) -> list[DisputedTask]:
    """Every disputed task of field ``name``, by task id."""
    units = [u for u in result.units if u.status == "disputed"]
    try:
        units.sort(key=attrgetter("id"))  # ids all numbers or all text
    except TypeError:  # both: numbers first, as everywhere in the report
        units.sort(key=lambda u: _id_key(u.id))
    return [DisputedTask(name, u.id, u.score, u.labels, u.details) for u in units]  # no NaN


def lowest_scores(tasks: list[DisputedTask], n: int) -> list[DisputedTask]:
    """The ``n`` disputed tasks with the lowest scores, lowest first; ``tasks`` (every one has a
    score) come by task id, and ties keep that order."""
    return heapq.nsmallest(n, tasks, key=attrgetter("score"))


def field_document(
    result: FieldResult,
    checks: list[Check],
    disputed: list[DisputedTask],
    disputed_below: float,
    disputed_tolerance: float | None = None,
) -> dict[str, Any]:
    """One field of the report; ``disputed``: its :func:`disputed_tasks`."""
    lowest = result.lowest_category
    scores = np.fromiter(map(attrgetter("score"), result.units), np.float64, len(result.units))
    too_few = int(np.count_nonzero(np.isnan(scores)))  # a task too few annotators rated: NaN
    return {
        "kind": result.kind,
        "level": result.level,
        "multiple": result.multiple,
        "n_tasks": result.n_tasks,
        "n_rated": result.n_rated,
        "n_pairable": result.n_pairable,
        "n_annotators": result.n_annotators,
        "n_ratings": result.n_ratings,
        "alpha": num(result.alpha),
        "alpha_undefined_reason": undefined_reason(result.alpha),
        "coefficients": {name: _estimate(e) for name, e in result.coefficients.items()},
        "verdict": worst([c.verdict for c in checks]).value,
        "checks": [_check(c) for c in checks],
        "category_method": result.category_method,
        "categories": {k: num(v) for k, v in result.categories.items()},
        "categories_undefined": {
            k: undefined_reason(v) for k, v in result.categories.items() if math.isnan(v)
        },
        "lowest_category": {"label": lowest[0], "rate": lowest[1]} if lowest else None,
        "coincidence": result.coincidence,
        "annotators": [
            {
                "id": a.id,
                "name": a.name,
                "n_units": a.n_units,
                "pair_agreement": num(a.pair_agreement),
                "alpha_without": num(a.alpha_without),
                "alpha_gain": num(a.alpha_gain),
                "outlier": a.outlier,
                "mean_offset": num(a.mean_offset),
            }
            for a in result.annotators
        ],
        "pairwise": _pairwise(result),
        "score_histogram": _score_histogram(scores),
        "ground_truth": _truth(result.ground_truth),
        "disputed_below": disputed_below,
        "disputed_tolerance": disputed_tolerance,
        "n_agreed": len(scores) - too_few - len(disputed),
        "n_disputed": len(disputed),
        "n_too_few": too_few,
        "disputed": {
            "file": DISPUTED_FILE,
            "lowest": [d.as_dict() for d in lowest_scores(disputed, LOWEST)],
        },
        "regions": result.regions,
    }


def add_checks(doc: dict[str, Any], checks: list[Check]) -> None:
    """Add ``checks`` to their fields in ``doc``; the field and overall verdicts follow."""
    for c in checks:
        f = doc["fields"][c.field]
        f["checks"].append(_check(c))
        f["verdict"] = worst([Verdict(f["verdict"]), c.verdict]).value
    doc["verdict"] = worst([Verdict(f["verdict"]) for f in doc["fields"].values()]).value


def build_document(
    *,
    source: dict[str, Any],
    round_: dict[str, Any] | None,
    stats: SourceStats,
    n_annotators: int,
    fields: dict[str, dict[str, Any]],
    not_evaluated: dict[str, str],
    generated_at: datetime | None = None,
) -> dict[str, Any]:
    """The whole report; ``fields`` are :func:`field_document` outputs by field name."""
    verdict = worst([Verdict(f["verdict"]) for f in fields.values()])
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "iaa-gate", "version": __version__},
        "generated_at": (generated_at or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
        "verdict": verdict.value,
        "source": source,
        "round": round_,
        "input": {
            "tasks": stats.tasks,
            "annotations": stats.annotations,
            "cancelled": stats.cancelled,
            "superseded": stats.superseded,
            "ignored": stats.ignored,
            "empty": stats.empty,
            "invalid_skipped": stats.invalid_skipped,
            "invalid_examples": stats.invalid_examples,
            "invalid": [p.as_dict() for p in stats.invalid],
            "ground_truth_excluded": stats.ground_truth_excluded,
            "outside_round": stats.outside_round,
            "annotators": n_annotators,
        },
        "fields": fields,
        "not_evaluated": not_evaluated,
        "writeback": None,
        "trend": None,
        "ground_truth": None,
    }
