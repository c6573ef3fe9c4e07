"""The JSON of Label Studio's API that iaa-gate reads or writes but does not own, as TypedDicts.

These are static shapes only: nothing is decoded into them, so every key Label Studio adds (a
newer server, a plugin) passes through untouched, and a value iaa-gate reads is still checked
where it is read (a task's ``meta`` may hold whatever someone wrote there). Each lists the keys
iaa-gate uses, not everything the server sends (``total=False``: any may be absent). What
iaa-gate owns inside them, its ``meta`` entry, is a msgspec Struct of the sink
(``sinks.label_studio.TaskFlag``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict, TypeGuard

Params = Mapping[str, str | int | None]
"""A request's query parameters."""


class ResultItem(TypedDict, total=False):
    """One item of an annotation's or a prediction's ``result``: one control's answer (a
    region, with its ``id``, or a whole-task answer); ``value`` holds the answer in the
    control type's keys (``choices``, ``start``/``end``, ``x``/``y``…), read by the kind."""

    id: str
    from_name: str
    to_name: str
    type: str
    origin: str
    value: dict[str, object]
    score: float
    original_width: int
    original_height: int


class Prediction(TypedDict, total=False):
    """A prediction on a task (iaa-gate writes those of its own ``model_version``)."""

    id: int
    task: int
    result: list[ResultItem]
    score: float
    model_version: str


class Annotation(TypedDict, total=False):
    """One annotator's annotation of a task (``completed_by``: a user id, or the user object
    an export with details gives)."""

    id: int
    task: int
    project: int
    result: list[ResultItem]
    completed_by: int | dict[str, object]
    was_cancelled: bool
    ground_truth: bool
    created_at: str
    updated_at: str
    parent_prediction: int | None
    model_version: str | None
    score: float | None


class Task(TypedDict, total=False):
    """A task as the tasks list, a task's own URL, an export or a webhook gives it (the
    lists only when asked for): ``data`` is what annotators see, ``meta`` free-form (iaa-gate's
    entry under its ``writeback.meta_key``), ``overlap`` the annotations wanted."""

    id: int
    project: int
    data: dict[str, object]
    meta: dict[str, object]
    overlap: int
    is_labeled: bool
    annotations: list[Annotation]
    predictions: list[Prediction]


class TaskPatch(TypedDict, total=False):
    """A task's ``PATCH`` body: each key sent replaces the task's whole value."""

    meta: dict[str, object]
    data: dict[str, object]
    overlap: int
    is_labeled: bool


class WebhookSettings(TypedDict):
    """What a project's webhook is created or updated with (besides its ``url``)."""

    actions: list[str]
    headers: dict[str, str]
    is_active: bool
    send_payload: bool
    send_for_all_actions: bool


class IdRange(TypedDict):
    """A Data Manager filter's value for ids from ``min`` to ``max`` (both in)."""

    min: int
    max: int


class FilterItem(TypedDict):
    """One Data Manager filter: ``filter`` names a column (``filter:tasks:id``)."""

    filter: str
    operator: str
    type: str
    value: int | bool | str | IdRange


class Filters(TypedDict):
    """A Data Manager tab's filters, joined by ``conjunction`` (``or``, ``and``)."""

    conjunction: str
    items: list[FilterItem]


class ViewData(TypedDict, total=False):
    """What a Data Manager tab shows: its ``title``, ``filters``, the column ``ordering`` and
    how columns are compared (``columnsDisplayType``)."""

    title: str
    filters: Filters
    ordering: list[str]
    columnsDisplayType: dict[str, str]


class View(TypedDict, total=False):
    """A Data Manager tab of a project."""

    id: int
    project: int
    data: ViewData


def is_task(value: object) -> TypeGuard[Task]:
    """Whether an answer of the API is a task: a JSON object with an ``id`` (its other keys are
    checked where they are read).

    Parameters
    ----------
    value
        A decoded JSON value (an item of the tasks list, a task's own URL's answer).

    Returns
    -------
    bool

    Examples
    --------
    >>> is_task({"id": 7, "meta": {}}), is_task({"detail": "Not found."}), is_task([7])
    (True, False, False)
    """
    return isinstance(value, dict) and "id" in value


def is_annotation(value: object) -> TypeGuard[Annotation]:
    """Whether an item of a task's annotations is an annotation (a JSON object).

    Parameters
    ----------
    value
        A decoded JSON value.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_annotation({"id": 3, "result": []}), is_annotation(None)
    (True, False)
    """
    return isinstance(value, dict)


def is_view(value: object) -> TypeGuard[View]:
    """Whether an item of the tabs list is a tab (a JSON object).

    Parameters
    ----------
    value
        A decoded JSON value.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_view({"id": 2, "data": {"title": "IAA: disputed"}}), is_view("2")
    (True, False)
    """
    return isinstance(value, dict)


def is_prediction(value: object) -> TypeGuard[Prediction]:
    """Whether an item of a predictions list is a prediction (a JSON object).

    Parameters
    ----------
    value
        A decoded JSON value.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_prediction({"id": 41, "model_version": "iaa-gate-consensus"}), is_prediction(41)
    (True, False)
    """
    return isinstance(value, dict)
