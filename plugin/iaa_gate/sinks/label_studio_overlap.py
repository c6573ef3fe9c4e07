"""Overlap that follows the plan: a Label Studio project stops double-annotating by itself.

``writeback.overlap: {target_width, audit, seed}``. Once every field's alpha interval is at
most ``target_width`` wide, each task not yet labelled (no annotation, not even a skipped one)
is set to one annotator, except a seeded random ``audit`` share that keeps the project's
overlap (``maximum_annotations``), so agreement and drift stay measured. When a later report
finds an interval wider again, the tasks not yet labelled get the project's overlap back.

The write is a per-task ``PATCH /api/tasks/{id}/`` of ``overlap`` with ``is_labeled: false``
(Label Studio never recomputes ``is_labeled`` on a task PATCH, and a task with no annotation
is unlabelled at any overlap). Never the project's settings: a project-level overlap change
rewrites every task, dropping per-task overrides such as a dispute re-opened for another
annotator, and closing tasks with fewer annotations. A task with an annotation is never
touched (so a re-opened task keeps its overlap), nor one whose overlap is above the project's
(someone raised it on purpose). Only tasks whose overlap differs from the plan are written,
and each batch of them is read again right before its writes, so a task answered meanwhile is
left alone.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..adapters.label_studio.client import LabelStudioError, task_pages
from ..adapters.label_studio.project import LabelStudioProject
from ..adapters.label_studio.wire import Params
from ..config import OverlapConfig
from ..evaluation.gate import interval_width
from ..evaluation.overlap import OverlapFailure, OverlapField, OverlapWriteback
from ..evaluation.results import FieldResult
from ..metrics import undefined_reason
from ..model import TaskId

FIELDS = "id,overlap,total_annotations,cancelled_annotations"
"""What the decision needs of each task (the ``include`` list of the tasks API)."""
PAGE = 1000
"""Tasks listed per request."""
BATCH = 100
"""Tasks read again in one request right before their writes."""
WORKERS = 4
"""PATCHes in flight at once (as the flags' write-back)."""


@dataclass(frozen=True)
class TaskOverlap:
    """One task as the decision sees it: its ``overlap`` now and how many annotations it has
    (``answered``: submitted and skipped ones alike)."""

    id: TaskId
    overlap: int
    answered: int


@dataclass(frozen=True)
class FieldWidth:
    """One field's part in the decision: alpha's interval ``width`` (NaN: undefined, with the
    ``reason``) after ``overlapped`` tasks (rated by two or more)."""

    field: str
    width: float
    overlapped: int
    reason: str | None = None

    def settled(self, target: float) -> bool:
        """Whether the interval is at most ``target`` wide (an undefined one never is)."""
        return not math.isnan(self.width) and self.width <= target


def widths(results: dict[str, FieldResult]) -> list[FieldWidth]:
    """Each field's alpha interval width, by field name (fields without alpha left out).

    Examples
    --------
    >>> widths({})
    []
    """
    out = []
    for name in sorted(results):
        result = results[name]
        if "alpha" not in result.coefficients:
            continue
        width = interval_width(result)
        reason = undefined_reason(width) if math.isnan(width) else None
        out.append(FieldWidth(name, float(width), result.n_pairable, reason))
    return out


def audited(task: TaskId, seed: int, share: float) -> bool:
    """Whether ``task`` is in the audit share: a draw from the task id and the seed alone,
    so each run, batch or live, keeps the same tasks whatever order it lists them in.

    Examples
    --------
    >>> audited(1, 7, 0.0), audited(1, 7, 1.0)
    (False, True)
    """
    digest = hashlib.sha256(f"{seed}:{task}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def wanted(task: TaskOverlap, *, settled: bool, maximum: int, config: OverlapConfig) -> int | None:
    """The overlap ``task`` should have (None: leave it as it is).

    Only a task with no annotation and an overlap at most the project's ``maximum`` is
    planned: one annotator once ``settled`` (unless audited), else the project's overlap.

    Examples
    --------
    >>> from iaa_gate.config import OverlapConfig
    >>> c = OverlapConfig(target_width=0.1, audit=0.0)
    >>> wanted(TaskOverlap(1, 2, 0), settled=True, maximum=2, config=c)
    1
    >>> wanted(TaskOverlap(1, 2, 1), settled=True, maximum=2, config=c) is None
    True
    """
    if task.answered > 0 or task.overlap > maximum:
        return None
    if settled and not audited(task.id, config.seed, config.audit):
        return 1
    return maximum


@dataclass(frozen=True)
class Plan:
    """What the overlap should be: ``settled`` (every field narrow enough), the tasks to write
    (``changes``: id → overlap) and, of the ``open`` tasks not yet labelled, how many are at one
    annotator by the plan (``single``) and how many keep the overlap for the audit (``audit``)."""

    settled: bool
    fields: list[FieldWidth]
    maximum: int
    changes: dict[TaskId, int]
    open: int
    single: int
    audit: int
    raised: int


def plan(
    fields: list[FieldWidth], tasks: Iterable[TaskOverlap], maximum: int, config: OverlapConfig
) -> Plan:
    """The overlap of every task not yet labelled, from the fields' widths (see :func:`wanted`).

    Examples
    --------
    >>> from iaa_gate.config import OverlapConfig
    >>> c = OverlapConfig(target_width=0.1, audit=0.0)
    >>> p = plan([FieldWidth("f", 0.08, 300)], [TaskOverlap(1, 2, 0), TaskOverlap(2, 2, 2)], 2, c)
    >>> p.changes, p.single
    ({1: 1}, 1)
    """
    settled = bool(fields) and all(f.settled(config.target_width) for f in fields)
    changes: dict[TaskId, int] = {}
    open_, single, audit, raised = 0, 0, 0, 0
    for task in tasks:
        want = wanted(task, settled=settled, maximum=maximum, config=config)
        if want is None:
            continue
        open_ += 1
        single += want == 1
        audit += settled and want != 1
        if want != task.overlap:
            changes[task.id] = want
            raised += want > task.overlap
    return Plan(settled, fields, maximum, changes, open_, single, audit, raised)


def _task(raw: Any) -> TaskOverlap | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), int):
        return None
    answered = int(raw.get("total_annotations") or 0) + int(raw.get("cancelled_annotations") or 0)
    return TaskOverlap(raw["id"], int(raw.get("overlap") or 1), answered)


@dataclass
class LabelStudioOverlap:
    """Sets the overlap of a live project's tasks not yet labelled, by :func:`plan`.

    ``source``: the project (its API client and id); the tasks' overlap is listed at each
    :meth:`apply`, since the report's pull does not hold it and the service's state may lag."""

    source: LabelStudioProject
    config: OverlapConfig

    def _tasks(self, params: Params, doing: str) -> Iterator[TaskOverlap]:
        query = {**params, "include": FIELDS, "page_size": PAGE}
        for batch in task_pages(self.source.api, query, doing, PAGE):
            yield from (t for t in map(_task, batch) if t is not None)

    def tasks(self) -> list[TaskOverlap]:
        """Every task of the project, with its overlap and how many annotations it has."""
        return list(self._tasks({"project": self.source.project_id}, "listing the tasks' overlap"))

    def maximum(self) -> int:
        """The project's overlap (``maximum_annotations``)."""
        pid = self.source.project_id
        body = self.source.api.request("GET", f"api/projects/{pid}/", f"reading project {pid}")
        value = body.get("maximum_annotations") if isinstance(body, dict) else None
        return int(value) if isinstance(value, int) and value > 0 else 1

    def apply(
        self,
        results: dict[str, FieldResult],
        *,
        dry_run: bool = False,
        warnings: list[str] | None = None,
    ) -> OverlapWriteback:
        """Plan and write the overlap; the summary (``report.json``'s ``writeback.overlap``).
        Tasks that cannot be listed leave every overlap as it is: the summary gives the
        ``error`` (and ``failed``: 1), and the next run sets it."""
        warnings = warnings if warnings is not None else []
        try:
            decided = plan(widths(results), self.tasks(), self.maximum(), self.config)
        except LabelStudioError as exc:
            warnings.append(f"overlap not set: {exc.message}; the next run sets it")
            return OverlapWriteback(failed=1, error=exc.message, dry_run=dry_run)
        summary = OverlapWriteback(
            target_width=self.config.target_width,
            audit_share=self.config.audit,
            seed=self.config.seed,
            settled=decided.settled,
            fields=[
                OverlapField(
                    f.field,
                    None if math.isnan(f.width) else round(f.width, 4),
                    f.overlapped,
                    f.reason,
                )
                for f in decided.fields
            ],
            maximum_annotations=decided.maximum,
            open_tasks=decided.open,
            single=decided.single,
            audit=decided.audit,
            annotations_saved=decided.single * (decided.maximum - 1),
            planned=len(decided.changes),
            raised=decided.raised,
            dry_run=dry_run,
        )
        if decided.maximum <= 1:
            summary.note = "the project's overlap is 1: nothing to lower"
        if not dry_run and decided.changes:
            summary.done, summary.answered_meanwhile, failed = self._write(decided)
            summary.failed = len(failed)
            if failed:
                summary.failed_tasks = failed[:20]
                warnings.append(
                    f"overlap not written for {len(failed)} task(s) (first: task {failed[0].id}: "
                    f"{failed[0].error}); a re-run writes them"
                )
        return summary

    def _write(self, decided: Plan) -> tuple[int, int, list[OverlapFailure]]:
        """PATCH each change, :data:`BATCH` at a time, each batch read again first: a task
        answered (or changed) since the listing is left alone. ``(done, skipped, failed)``."""
        done, skipped, failed = 0, 0, list[OverlapFailure]()
        ids = sorted(decided.changes)
        pool = ThreadPoolExecutor(max_workers=WORKERS)
        try:
            for start in range(0, len(ids), BATCH):
                chunk = ids[start : start + BATCH]
                try:
                    now = {t.id: t for t in self._reread(chunk)}
                except LabelStudioError as exc:  # these tasks wait for the next run
                    failed += [OverlapFailure(t, exc.message) for t in chunk]
                    continue
                todo = []
                for task in chunk:
                    current = now.get(task)
                    want = None
                    if current is not None:
                        want = wanted(
                            current,
                            settled=decided.settled,
                            maximum=decided.maximum,
                            config=self.config,
                        )
                    if current is None or want is None or want == current.overlap:
                        skipped += 1
                    else:
                        todo.append((task, want))
                for (task, _), outcome in zip(todo, pool.map(self._patch, todo), strict=True):
                    if outcome is None:
                        done += 1
                    else:
                        failed.append(OverlapFailure(task, outcome))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return done, skipped, failed

    def _reread(self, ids: list[TaskId]) -> Iterator[TaskOverlap]:
        """The tasks ``ids`` as they are now, in one request (the Data Manager's selection)."""
        query = {"selectedItems": {"all": False, "included": [int(t) for t in ids]}}
        params = {"project": self.source.project_id, "query": json.dumps(query)}
        return self._tasks(params, f"re-reading {len(ids)} task(s)' overlap")

    def _patch(self, change: tuple[TaskId, int]) -> str | None:
        """Set one task's overlap; None, or the error in words."""
        task, overlap = change
        try:
            self.source.api.request(
                "PATCH",
                f"api/tasks/{task}/",
                f"setting task {task}'s overlap to {overlap}",
                body={"overlap": overlap, "is_labeled": False},  # no annotation: unlabelled
            )
        except LabelStudioError as exc:
            return exc.message
        return None
