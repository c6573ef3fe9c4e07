"""Reading rules of Label Studio results shared by the typed fast path (:mod:`.typed`) and the
general parser (:mod:`.export`): each is written once here and called from both."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, TypeGuard

from ...core.errors import Problem, Reason
from ...model import Annotation, FieldValue, TaskId

CONSENSUS_MODEL_VERSION = "iaa-gate-consensus"
"""The ``model_version`` of the predictions iaa-gate writes (the consensus): never read as a
model's predictions."""


CONSENSUS_PREDICTION_KEY = "consensus_prediction"
"""The key of iaa-gate's ``meta`` entry that records the id of its consensus prediction: a
JSON export lists a task's predictions by id only, so this is how that prediction is known."""


def own_predictions(meta: Any) -> frozenset[int | str]:
    """The ids of iaa-gate's consensus predictions recorded in a task's ``meta`` (under
    :data:`CONSENSUS_PREDICTION_KEY` of any entry: the entry's key is the config's
    ``writeback.meta_key``, which an export reader does not know).

    Parameters
    ----------
    meta : Any
        The task's ``meta`` as exported (anything: a task may hold what someone wrote there).

    Returns
    -------
    frozenset
        The recorded prediction ids.

    Examples
    --------
    >>> sorted(own_predictions({"iaa": {"consensus_prediction": 41}, "batch": 7}))
    [41]
    """
    if not isinstance(meta, dict):
        return frozenset()
    found = (v.get(CONSENSUS_PREDICTION_KEY) for v in meta.values() if isinstance(v, dict))
    return frozenset(p for p in found if plain_id(p))


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


def annotator_id(task_id: TaskId, ann: Mapping[str, object], names: dict[str, str]) -> str:
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


def region_labels(kind: str, value: Mapping[str, object]) -> Any:
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


def text_holding(data: Mapping[str, object], spans: list[tuple[int, int, str]]) -> str | None:
    """The one string of a task's ``data`` in which every ``(start, end, text)`` of ``spans``
    sits at its offsets: the text spans index into when their ``to_name`` names no data key.
    None when no string, or more than one, holds them all (or there is no span to check).

    Parameters
    ----------
    data : mapping
        The task's ``data``.
    spans : list of tuple
        ``(start, end, text)`` of the spans that carry their ``text``.

    Returns
    -------
    str or None
        The text, or None.

    Examples
    --------
    >>> text_holding({"a": "Ann met Bob", "b": "Bob met Ann"}, [(0, 3, "Ann")])
    'Ann met Bob'
    """
    found = [
        s
        for s in data.values()
        if isinstance(s, str) and spans and all(s[a:b] == t for a, b, t in spans)
    ]
    return found[0] if len(found) == 1 else None


def chat_messages(items: Iterable[tuple[Any, Any]]) -> dict[Any, str]:
    """The chat messages of an annotation, from its ``chatmessage`` results' ``(id, value of
    value.chatmessage)``: result id → the message's key, ``role: content`` (``(n)`` appended
    to the n-th of equal messages), the same for every annotator of a conversation. A message
    without an id is left out: no answer can be about it.

    Parameters
    ----------
    items : Iterable[tuple[Any, Any]]
        Each chat message's result id and its ``chatmessage`` object (anything: a task may hold
        what a script wrote).

    Returns
    -------
    dict
        Result id → message key.

    Examples
    --------
    >>> chat_messages([("m1", {"role": "user", "content": "hi"}), ("m2", {"role": "user",
    ...     "content": "hi"}), (None, {})])
    {'m1': 'user: hi', 'm2': 'user: hi (2)'}
    """
    out: dict[Any, str] = {}
    seen: dict[str, int] = {}
    for rid, message in items:
        if rid is None:
            continue
        message = message if isinstance(message, dict) else {}
        key = f"{message.get('role', '?')}: {message.get('content', '')}"
        seen[key] = seen.get(key, 0) + 1
        out[rid] = key if seen[key] == 1 else f"{key} ({seen[key]})"
    return out


def time_of(v: Any, where: Where | str) -> datetime | None:
    """An annotation's ``created_at``/``updated_at`` (ISO 8601; a time without an offset is
    UTC; None or ``""``: none); :class:`TaskError` for anything else."""
    if v is None or v == "":
        return None
    if not isinstance(v, str):
        raise TaskError(where, f"timestamp {v!r} is not a string")
    try:
        t = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        raise TaskError(where, f"timestamp {v!r} is not ISO 8601") from None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


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
        own: frozenset[int | str] = frozenset(),
    ) -> None:
        """One task's predictions, each ``(id, model_version, fields)`` or a bare id, and its
        annotations' ``(id, parent_prediction)`` (an id, or the prediction object); ``own``:
        the ids of iaa-gate's consensus predictions (:func:`own_predictions`), never read."""
        versions: dict[Any, str] = {}
        latest: dict[str, Annotation] = {}
        for p in predictions:
            if not isinstance(p, tuple):
                self.ids_only += p not in own
                continue
            pid, version, fields = p
            name = model_version(version)
            if name is None or (plain_id(pid) and pid in own):
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
