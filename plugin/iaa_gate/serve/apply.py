"""Applying the queued events to the state: the worker's first move at each step."""

from __future__ import annotations

import logging

from ..adapters.label_studio.wire import is_annotation
from .events import BadEvent, decode
from .metrics import Counters
from .state import CHUNK, State

log = logging.getLogger("iaa_gate.serve")


def apply_queued(
    state: State, counters: Counters, starred: set[int] | None = None
) -> dict[int, float] | None:
    """Apply every queued event to ``state``, :data:`~.state.CHUNK` to a transaction (a
    webhook waits for the write lock only briefly), each taken off the queue in the
    transaction that applies it; count them in ``counters``.

    Parameters
    ----------
    state
        The worker's state.
    counters
        Where ``applied`` is counted.
    starred
        Collects the tasks of an annotation marked ground truth: Label Studio un-stars the
        task's other annotation without a webhook, so the task is to be read again.

    Returns
    -------
    dict[int, float] | None
        The tasks whose annotations changed (or that were deleted), each with the arrival time
        of its first event; None when nothing was queued.
    """
    rows = state.inbox()
    if not rows:
        return None
    changed: dict[int, float] = {}
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        with state.transaction():
            for _, received, body in chunk:
                try:
                    event = decode(body)
                except BadEvent:  # queued by an earlier version: the first pull has it
                    log.info("skipped a queued webhook body of an earlier version")
                    continue
                for t in state.apply(event, received) | set(event.deleted_tasks):
                    changed.setdefault(t, received)
                if starred is not None:
                    starred |= {
                        int(a["task"])
                        for a in event.annotations
                        if is_annotation(a) and a.get("ground_truth")
                    }
                counters.applied += 1
            state.done(chunk[-1][0])
    return changed
