"""Updating the running sums (:mod:`.live`) as the worker steps, or turning them off."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

from ..config import Config
from ..core.errors import IaaGateError
from ..model import Dataset, TaskId
from ..pipeline import Outcome
from ..sinks.label_studio import FieldFlag
from .field_sums import NotLive
from .live import Live

log = logging.getLogger("iaa_gate.serve")


class SumsUpdater:
    """Keeps every field's running sums of ``config``'s project (None: off, and each step
    evaluates the whole state). The worker updates them; the web app reads them (``/metrics``)
    under their lock."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.live: Live | None = None
        self.off: str | None = "not built"  # why they are off (None: on)
        self.lock = threading.Lock()

    @property
    def on(self) -> bool:
        return self.live is not None

    def rebuild(self, dataset: Dataset, outcome: Outcome) -> None:
        """Build the sums again from a report (``outcome``) of the whole state (``dataset``)."""
        try:
            live: Live | None = Live(self.config, dataset, outcome.results)
            reason = None
        except (NotLive, IaaGateError) as exc:
            live, reason = None, str(exc)
        if reason != self.off:
            if reason is None:
                log.info("running sums on: each step scores the changed tasks")
            else:
                log.info("running sums off (%s): each step evaluates the whole state", reason)
        self.off = reason
        with self.lock:
            self.live = live

    def drop(self) -> None:
        """Turn the sums off until the next report builds them (it says why)."""
        with self.lock:
            self.live = None

    def update(
        self, read: Callable[[list[int]], Dataset], changed: dict[int, float]
    ) -> set[int] | None:
        """Bring the ``changed`` tasks to what the batch rules ``read`` of them say; the tasks
        whose flags may change, or None when the change is outside what the sums cover (they
        are off until the next report)."""
        assert self.live is not None
        started = time.perf_counter()
        try:
            dataset = read(sorted(changed))
            with self.lock:
                moved = self.live.update(dataset, changed)
        except (NotLive, IaaGateError) as exc:  # a report says what it is
            log.info("running sums off (%s): each step evaluates the whole state", exc)
            self.drop()
            return None
        log.debug(
            "%d task(s) changed, %d to write: running sums in %.1f ms",
            len(changed),
            len(moved),
            1000 * (time.perf_counter() - started),
        )
        return set(map(int, moved))

    def entries(self, tasks: Iterable[TaskId]) -> dict[TaskId, dict[str, FieldFlag]]:
        """Each of ``tasks``' flags by field, as the sums say (see :meth:`Live.entries`)."""
        with self.lock:
            assert self.live is not None
            return self.live.entries(tasks)

    def disputed(self) -> list[TaskId]:
        """The tasks disputed in some field (the Data Manager tab's)."""
        with self.lock:
            assert self.live is not None
            return self.live.disputed_tasks()

    def summary(self) -> dict[str, tuple[float, int]] | None:
        """Each field's ``(alpha, disputed tasks)`` (None: off)."""
        with self.lock:
            return None if self.live is None else self.live.summary()
