"""The general parser of Label Studio tasks as it stood before the typed reader became the only
one that decides values (issue 28 part 5): a refused task holding regions, breaking no rule, was
read here whole. An independent reading the typed paths are held to (``tests/test_fast_path.py``
puts :func:`one` in the package's place); the walk that words a broken rule stays in the package
(``export._task``), which this reading shares."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from iaa_gate.adapters.label_studio import export as lse
from iaa_gate.adapters.label_studio.halves import Part
from iaa_gate.adapters.label_studio.rules import References, TaskError
from iaa_gate.core.errors import InputError
from iaa_gate.kinds import REGION_SHAPES
from iaa_gate.kinds.unscored import RELATION
from iaa_gate.model import Annotation, TaskId


def one(
    part: Part, index: int, task: Any, source: str, skip_invalid: bool, include_ground_truth: bool
) -> None:
    """Read element ``index`` of the export, ``task``, into ``part``."""
    stats, cols, names, texts, first_seen = (
        part.stats,
        part.cols,
        part.names,
        part.texts,
        part.first_seen,
    )
    stats.tasks += 1
    mark, counted = cols.mark(), lse._counts(stats)
    try:
        if index == 0 and lse._json_min(
            json.loads(bytes(task)) if type(task) is msgspec.Raw else task
        ):
            raise InputError(
                source, ["this is a JSON-MIN export (no annotations lists)"], hint=lse.AS_JSON
            )
        try:
            task_id = lse.read_task(
                lse._raw(task), cols, stats, names, texts, include_ground_truth, part.refs
            )
            anns: list[Annotation] = []
        except lse.Unusual:
            task = json.loads(bytes(task)) if type(task) is msgspec.Raw else task
            task_id, anns = _refused(task, index, part)
        if str(task_id) in first_seen:
            raise TaskError(
                f"task {task_id}",
                f"the id occurs twice (tasks #{first_seen[str(task_id)] + 1} "
                f"and #{index + 1} in the list), so their annotations cannot be told apart",
            )
        first_seen[str(task_id)] = index
    except TaskError as exc:
        # a twice-seen id: the fast path had added (or left out) its annotations
        cols.rollback(mark)
        lse._restore(stats, counted)  # a task not read counts no annotation
        if not skip_invalid:
            part.problems.append(exc.problem)
            return
        stats.skip_invalid(exc.problem)
        return
    part.task_ids.append(task_id)
    for ann in anns:
        if ann.ground_truth and not include_ground_truth:
            stats.ground_truth_excluded += 1
        else:
            cols.add(ann)


def _refused(task: Any, index: int, part: Part) -> tuple[TaskId, list[Annotation]]:
    """A task the typed reader refused, read by the general parser, which words the rule it
    breaks (:class:`TaskError`); one holding regions (:data:`REGIONS`) that breaks none
    is read there. It never decides a task without
    regions: one it would read is refused as a value iaa-gate cannot read."""
    task_id, anns = lse._task(task, index, part.stats, part.names, part.texts)
    regions = holds_regions(task)
    lse._references(task, task_id, part.refs if regions else References())
    if not regions:
        raise TaskError(
            f"task {task_id}",
            "a value iaa-gate cannot read (NaN, Infinity or a number too large where an "
            "answer is read)",
        )
    return task_id, anns


REGIONS = frozenset(REGION_SHAPES) | {RELATION}
"""Result types of the tasks the general parser reads: regions (and the relations between
them): a refused task holding one that breaks no rule is read there whole."""


def holds_regions(task: Any) -> bool:
    """Whether a result of ``task`` is of a type in :data:`REGIONS`."""
    for key in ("annotations", "completions", "predictions"):
        anns = task.get(key) if isinstance(task, dict) else None
        for ann in anns if isinstance(anns, list) else ():
            result = ann.get("result") if isinstance(ann, dict) else None
            for item in result if isinstance(result, list) else ():
                if isinstance(item, dict) and str(item.get("type")).lower() in REGIONS:
                    return True
    return False
