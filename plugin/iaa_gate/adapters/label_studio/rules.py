"""Reading rules of Label Studio results shared by the typed fast path (:mod:`.typed`) and the
general parser (:mod:`.export`): each is written once here and called from both."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ...core.errors import Problem, Reason
from ...model import Annotation, FieldValue, TaskId

CONSENSUS_MODEL_VERSION = "iaa-gate-consensus"
"""The ``model_version`` of the predictions iaa-gate writes (the consensus): never read as a
model's predictions."""


def plain_id(v: Any) -> TypeGuard[int | str]:
    """Whether ``v`` can be a task or region id: an int or a str, never a bool."""
    return type(v) is int or type(v) is str


@dataclass(frozen=True)
class Where:
    """Where in an export a problem is: ``task`` (``task 7, annotation 3`` or ``task #2 in the
    list``), the ``field`` and a ``part`` of it (``region 'r1'``); its text is the house
    format's prefix."""

    task: str
    field: str | None = None
    part: str | None = None

    def at(self, field: str | None = None, part: str | None = None) -> Where:
        """The same place, inside ``field`` (and ``part`` of it)."""
        return Where(self.task, field if field is not None else self.field, part or self.part)

    def __str__(self) -> str:
        return str(Problem(self.task, self.field, "", "", self.part)).removesuffix(": ")


class TaskError(ValueError):
    """A task that cannot be read: its :class:`Problem`, built where it is raised."""

    def __init__(self, where: Where | str, message: str, code: str = Reason.INVALID_TASK) -> None:
        w = where if isinstance(where, Where) else Where(where)
        self.problem = Problem(w.task, w.field, code, message, w.part)
        super().__init__(str(self.problem))


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
            raise TaskError(f"task {task_id}, annotation {ann.get('id')}", "completed_by has no id")
        if label:
            names[str(uid)] = str(label)
        return str(uid)
    if isinstance(who, (int, str)) and not isinstance(who, bool):
        return str(who)
    raise TaskError(f"task {task_id}, annotation {ann.get('id')}", "no annotator ('completed_by')")


LABEL_KEYS = {"hypertextlabels": ("hypertextlabels", "htmllabels")}
"""Where a region's labels are in its ``value``: under the control type, and for HyperText
also ``htmllabels``, the key Label Studio writes (its docs and SDK say ``hypertextlabels``)."""


def region_labels(kind: str, value: dict[str, Any]) -> Any:
    """The labels of a region result (a list, a string or None when the value has none);
    an unlabelled control (``rectangle``, ``polygon``, ``keypoint``) has none by design."""
    for key in LABEL_KEYS.get(kind, (kind,)):
        if key in value:
            return value[key]
    return None


def region_id(annotation_id: Any, index: int) -> str:
    """The id a region result without one is read under: its annotation's id and its index in
    the result list, ``"<annotation>:<index>"``. Scripts and SDK imports write spans without
    ids, which Label Studio accepts; nothing can refer to such a region, so a stable id of its
    own loses nothing."""
    return f"{annotation_id}:{index}"


def needs_label(kind: str) -> bool:
    """Whether a region of this control type must carry a label (``…labels`` controls)."""
    return kind.endswith("labels")


NO_MODEL_VERSION = "(no model_version)"
"""The model version of a prediction that names none."""


def model_version(version: Any) -> str | None:
    """The name a prediction's ``model_version`` is read under (None: iaa-gate's own consensus
    prediction, which is no model's and is not read)."""
    name = str(version) if version not in (None, "") else NO_MODEL_VERSION
    return None if name == CONSENSUS_MODEL_VERSION else name


@dataclass
class References:
    """Model predictions read from tasks: ``predictions`` (one per task and model version, the
    last listed; the annotator is the model version), ``started_from`` ((task, annotation id)
    → the model version of its ``parent_prediction``) and ``ids_only``, predictions named by id
    only (Label Studio's default export), which cannot be read."""

    predictions: list[Annotation] = field(default_factory=list)
    started_from: dict[tuple[TaskId, int | str], str] = field(default_factory=dict)
    ids_only: int = 0

    def add(
        self,
        task_id: TaskId,
        predictions: Iterable[tuple[Any, Any, dict[str, FieldValue]] | int | str],
        parents: Iterable[tuple[Any, Any]],
    ) -> None:
        """One task's predictions, each ``(id, model_version, fields)`` or a bare id, and its
        annotations' ``(id, parent_prediction)`` (an id, or the prediction object)."""
        versions: dict[Any, str] = {}
        latest: dict[str, Annotation] = {}
        for p in predictions:
            if not isinstance(p, tuple):
                self.ids_only += 1
                continue
            pid, version, fields = p
            name = model_version(version)
            if name is None:
                continue
            latest[name] = Annotation(task_id, name, fields, annotation_id=pid)
            if plain_id(pid):
                versions[pid] = name
        self.predictions += latest.values()
        for ann_id, parent in parents:
            if isinstance(parent, dict):
                parent = parent.get("id")
            if plain_id(parent) and parent in versions and plain_id(ann_id):
                self.started_from[task_id, ann_id] = versions[parent]

    def join(self, later: References) -> None:
        self.predictions += later.predictions
        self.started_from.update(later.started_from)
        self.ids_only += later.ids_only
