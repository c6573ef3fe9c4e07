"""Applying the queued events to the state: the worker's first move at each step."""

from __future__ import annotations

import logging

from .events import BadEvent, decode
from .metrics import Counters
from .state import CHUNK, State

log = logging.getLogger("iaa_gate.serve")


def apply_queued(state: State, counters: Counters) -> dict[int, float] | None:
    """Apply every queued event to ``state``, :data:`~.state.CHUNK` to a transaction (a
    webhook waits for the write lock only briefly), each taken off the queue in the
    transaction that applies it; count them in ``counters``.

    Parameters
    ----------
    state
        The worker's state.
    counters
        Where ``applied`` is counted.

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
                counters.applied += 1
            state.done(chunk[-1][0])
    return changed
