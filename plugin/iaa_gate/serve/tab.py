"""Updating the Data Manager tab of disputed tasks, beside the flags and never in their way."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..evaluation.results import FieldResult
from ..evaluation.sections import Writeback
from ..model import TaskId
from ..sinks.label_studio import LabelStudioFlags

log = logging.getLogger("iaa_gate.serve")

RETRY_TAB = 10.0
"""Seconds before a tab update that failed is tried again."""


class TabUpdater:
    """Brings the tab (``sink``: the write-back sink with no task to write) to the disputed
    tasks, one update at a time on a thread of its own; ``woken`` is called when one ends."""

    def __init__(self, sink: LabelStudioFlags, woken: Callable[[], None]) -> None:
        self.sink = sink
        self.woken = woken
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="iaa-gate-tab")
        self.update: Future[Writeback] | None = None  # the update under way
        self.sent: list[Any] = []  # what it writes
        self.shown: list[Any] | None = None  # the tab's tasks as last written (None: failed)
        self.failed = 0.0  # monotonic time of the last failed update

    @property
    def busy(self) -> bool:
        """Whether an update is under way."""
        return self.update is not None and not self.update.done()

    def follow(self, disputed: list[TaskId]) -> None:
        """Bring the tab to ``disputed`` in the background (a flag never waits for the tab)."""
        if self.busy:
            return
        if self.update is not None:
            view = self.update.result()
            self.update = None
            self.shown = None if view.view == "failed" else self.sent
            self.failed = time.monotonic() if self.shown is None else 0.0
            for warning in view.warnings:
                log.warning("write-back: %s", warning)
        if self.shown is None and time.monotonic() - self.failed < RETRY_TAB:
            return  # failed just now: tried again with a later step
        if disputed != self.shown:
            self.sent = disputed
            self.update = self.pool.submit(self.sink.show, disputed)
            self.update.add_done_callback(lambda _: self.woken())

    def start(
        self, results: dict[str, FieldResult], disputed: list[TaskId]
    ) -> Future[Writeback] | None:
        """Write the tab of a report (``results``, whose disputed tasks are ``disputed``) while
        the caller writes the flags, unless it shows them already; :meth:`end` takes it."""
        if disputed == self.shown:
            return None
        return self.pool.submit(self.sink.apply, results)

    def end(self, update: Future[Writeback], disputed: list[TaskId]) -> Writeback:
        """What :meth:`start`'s update did (its summary, whose ``view`` fields
        :meth:`Writeback.with_view` takes)."""
        view = update.result()
        self.shown = None if view.view == "failed" else disputed
        return view

    def close(self) -> None:
        self.pool.shutdown(wait=True)
