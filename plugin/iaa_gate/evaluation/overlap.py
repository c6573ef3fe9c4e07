"""What the overlap that follows the plan did: ``report.json``'s ``writeback.overlap``.

The decision and the writes are Label Studio's sink (:mod:`iaa_gate.sinks.label_studio_overlap`);
this is the summary's shape, typed so that the report's JSON Schema describes it.
"""

from __future__ import annotations

import msgspec

from ..model import TaskId


class OverlapField(msgspec.Struct):
    """One field's part in the decision: alpha's interval ``width`` (null: undefined, the
    reason in ``undefined``) after ``overlapped_tasks`` (tasks rated by two or more)."""

    field: str
    width: float | None
    overlapped_tasks: int
    undefined: str | None = None


class OverlapFailure(msgspec.Struct):
    """A task whose overlap was not written (``id``) and the ``error``."""

    id: TaskId
    error: str


class OverlapWriteback(msgspec.Struct, forbid_unknown_fields=True):
    """``writeback.overlap``: whether every field's interval was at most ``target_width`` wide
    (``settled``) and each field's width; of the project's ``open_tasks`` (no annotation yet),
    how many the plan sets to one annotator (``single``) and keeps at ``maximum_annotations``
    for the ``audit`` (a share ``audit_share`` drawn with ``seed``); ``annotations_saved``
    (``single`` × (``maximum_annotations`` − 1)); the tasks whose overlap differed
    (``planned``; ``raised`` of them upwards), written (``done``), answered since the listing
    and so left alone (``answered_meanwhile``) or ``failed`` (``failed_tasks``: the first 20);
    ``note``: why nothing can be lowered. The service gives only ``error`` (and ``failed``:
    1) when the tasks could not be listed; the next report tries again."""

    target_width: float = 0.0
    audit_share: float = 0.0
    seed: int = 0
    settled: bool = False
    fields: list[OverlapField] = msgspec.field(default_factory=list)
    maximum_annotations: int = 1
    open_tasks: int = 0
    single: int = 0
    audit: int = 0
    annotations_saved: int = 0
    planned: int = 0
    raised: int = 0
    dry_run: bool = False
    done: int = 0
    answered_meanwhile: int = 0
    failed: int = 0
    failed_tasks: list[OverlapFailure] | None = None
    note: str | None = None
    error: str | None = None
