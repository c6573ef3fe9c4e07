"""Reading rules of Label Studio results shared by the typed fast path (:mod:`.typed`) and the
general parser (:mod:`.export`): each is written once here and called from both."""

from __future__ import annotations

from typing import Any

from ...model import TaskId

MAX_NUMBER = 1e150
"""Largest rating or number magnitude: squared differences of larger ones overflow."""


class TaskError(ValueError):
    """A task that cannot be read; the message names the task and the problem."""


def annotator_id(task_id: TaskId, ann: dict[str, Any], names: dict[str, str]) -> str:
    """The annotator of ``ann`` as an id string (``completed_by``: an id, or a user object whose
    email or name goes into ``names``); :class:`TaskError` when there is none."""
    who = ann.get("completed_by")
    if isinstance(who, dict):
        uid = who.get("id")
        label = who.get("email") or " ".join(
            p for p in (who.get("first_name"), who.get("last_name")) if p
        )
        if uid is None:
            raise TaskError(f"task {task_id}, annotation {ann.get('id')}: completed_by has no id")
        if label:
            names[str(uid)] = str(label)
        return str(uid)
    if isinstance(who, (int, str)) and not isinstance(who, bool):
        return str(who)
    raise TaskError(f"task {task_id}, annotation {ann.get('id')}: no annotator ('completed_by')")
