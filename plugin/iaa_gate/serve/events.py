"""A Label Studio webhook body → operations on the state (pure: no I/O).

Label Studio posts ``{"action": …, …payload}``. Annotation actions carry the annotation (or a list
of them) under ``annotation``/``annotations`` and its task under ``task``/``tasks``; deletions
carry only ids. With ``send_payload`` the ``project`` (an object with ``id``) comes along.

A body is parsed once, by the web app when it arrives: the inbox keeps the :class:`Event`
(:func:`encode`), and the worker decodes it as it was (:func:`decode`).
"""

from __future__ import annotations

from typing import Any

import msgspec

ACTIONS = (
    "ANNOTATION_CREATED",
    "ANNOTATIONS_CREATED",
    "ANNOTATION_UPDATED",
    "ANNOTATIONS_DELETED",
    "TASKS_CREATED",
    "TASKS_DELETED",
)
"""What the service asks Label Studio to send (``--register``)."""


class BadEvent(ValueError):
    """A body that is not a Label Studio webhook event (answered 400, nothing changed)."""


class Event(msgspec.Struct, array_like=True):
    """One webhook's effect. ``project``: the project id it names (None: not said);
    ``tasks``: task bodies (``id``, ``data``, ``meta``; no annotations); ``annotations``:
    annotations to keep (each with its ``task`` id); ``deleted``: annotation ids;
    ``deleted_tasks``: task ids. A task or annotation is kept whole, as Label Studio sent it
    (a :class:`~iaa_gate.adapters.label_studio.wire.Task` or ``Annotation`` with an id, which
    the state reads), so decoding it never drops a key.

    Its JSON form is an array of those fields in order, which no Label Studio body is: an
    inbox row written by a version that queued the raw body never decodes as an event.
    """

    action: str
    project: int | None = None
    tasks: list[dict[str, object]] = msgspec.field(default_factory=list)
    annotations: list[dict[str, object]] = msgspec.field(default_factory=list)
    deleted: list[int] = msgspec.field(default_factory=list)
    deleted_tasks: list[int] = msgspec.field(default_factory=list)


def encode(event: Event) -> bytes:
    """``event`` as the inbox keeps it (JSON).

    Parameters
    ----------
    event
        A parsed webhook (:func:`parse_event`).

    Returns
    -------
    bytes
        Its JSON form, which :func:`decode` reads back.

    Examples
    --------
    >>> decode(encode(Event("TASKS_DELETED", 3, deleted_tasks=[7]))).deleted_tasks
    [7]
    """
    return msgspec.json.encode(event)


def decode(body: bytes) -> Event:
    """The :class:`Event` an inbox row holds (:func:`encode`).

    Parameters
    ----------
    body
        An inbox row's body.

    Returns
    -------
    Event
        The event as the web app parsed it.

    Raises
    ------
    BadEvent
        The row holds no event: a raw webhook body queued by an earlier version (what it said
        comes back with the pull every start begins with).
    """
    try:
        return msgspec.json.decode(body, type=Event)
    except msgspec.DecodeError as exc:
        raise BadEvent(f"not a queued event: {exc}") from exc


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _id(value: Any, what: str) -> int:
    if isinstance(value, dict):
        value = value.get("id")
    if type(value) is int:
        return value
    if type(value) is str and value.isdigit():
        return int(value)
    raise BadEvent(f"{what} has no integer id")


def parse_event(body: Any) -> Event:
    """The :class:`Event` of a decoded webhook body; :class:`BadEvent` when it is not one."""
    if not isinstance(body, dict) or not isinstance(body.get("action"), str):
        raise BadEvent("not a Label Studio webhook: no 'action'")
    action = body["action"]
    project = body.get("project")
    event = Event(action, _id(project, "project") if project is not None else None)
    tasks = [t for t in _list(body.get("tasks", body.get("task"))) if t is not None]
    anns = _list(body.get("annotations", body.get("annotation")))
    if action == "TASKS_DELETED":
        event.deleted_tasks = [_id(t, "a deleted task") for t in tasks]
        return event
    if action == "ANNOTATIONS_DELETED":
        event.deleted = [_id(a, "a deleted annotation") for a in anns]
        return event
    for t in tasks:
        if not isinstance(t, dict):
            raise BadEvent("a task is not an object")
        _id(t, "a task")
        event.tasks.append({k: v for k, v in t.items() if k not in ("annotations", "predictions")})
    only = event.tasks[0]["id"] if len(event.tasks) == 1 else None
    for a in anns:
        if not isinstance(a, dict):
            raise BadEvent("an annotation is not an object")
        _id(a, "an annotation")
        task = a.get("task", only)
        if task is None:
            raise BadEvent(f"annotation {a['id']} names no task")
        event.annotations.append({**a, "task": _id(task, f"annotation {a['id']}'s task")})
    if event.project is None:
        for item in [*event.annotations, *event.tasks]:
            if item.get("project") is not None:
                event.project = _id(item["project"], "project")
                break
    return event
