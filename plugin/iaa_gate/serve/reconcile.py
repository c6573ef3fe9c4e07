"""Reconciling the state with the project: what a lost webhook or a kill -9 missed comes back.

A thread of its own pulls every task of the project on start and every
``serve.reconcile_every`` seconds; the worker applies each pull between its steps as a snapshot
(:meth:`~.state.State.snapshot`), so events are not held back while a pull runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

from ..adapters.label_studio.client import LabelStudioError, selected_tasks, task_pages
from ..adapters.label_studio.project import ANNOTATION_FIELDS, LabelStudioProject
from ..adapters.label_studio.wire import Task, is_task
from .hook import check
from .inbox import now
from .metrics import Counters
from .state import State

log = logging.getLogger("iaa_gate.serve")

Pull = tuple[float, list[Task]]
"""A pull: when it began (wall clock) and every task of the project."""


class Reconciler:
    """Pulls ``project`` every ``every`` seconds, hands each pull to the worker (``woken``
    when one is there), and applies it to the worker's state."""

    def __init__(
        self,
        project: LabelStudioProject,
        every: float,
        woken: Callable[[], None],
        secret: str | None = None,
    ):
        self.project = project
        self.every = every
        self.woken = woken
        self.secret = secret  # to check the service's webhook at each pull
        self.webhook: str | None = None  # active, re-enabled, missing, or not checked yet
        self.lock = threading.Lock()
        self.pulled: Pull | None = None  # the last pull, not yet applied
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._pulling, name="iaa-gate-pull", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=30)

    def _pulling(self) -> None:
        """Pull the project now and every ``every`` seconds; on a failure, try again sooner."""
        while not self.stopping.is_set():
            started = now()
            try:
                tasks = list(self.pull())
            except LabelStudioError as exc:  # the server is away: try again soon
                log.warning("reconcile failed: %s", exc.message)
                self.stopping.wait(min(60.0, self.every))
                continue
            except Exception:  # a bug: keep the traceback, stop pulling
                log.exception("the puller stopped by an internal error")
                return
            with self.lock:
                self.pulled = (started, tasks)
            self.woken()
            self._check_webhook()
            self.stopping.wait(self.every)

    def _check_webhook(self) -> None:
        """Check that the service's webhook still delivers, re-enable it if not, warn."""
        if self.secret is None:
            return
        try:
            self.webhook = check(self.project, self.secret)
        except LabelStudioError as exc:
            log.warning("the webhook could not be checked: %s", exc.message)
            return
        if self.webhook == "re-enabled":
            log.warning(
                "the project's webhook was inactive or had lost actions: re-enabled with all of "
                "them (events sent meanwhile come back with this reconcile)"
            )
        elif self.webhook == "missing":
            log.warning("the project has no webhook for this service: run with --register")

    def take(self) -> Pull | None:
        """The pull not yet applied, if any (the worker)."""
        with self.lock:
            pulled, self.pulled = self.pulled, None
        return pulled

    def apply(self, state: State, pulled: Pull, counters: Counters) -> None:
        """Bring ``state`` to ``pulled`` (as a snapshot) and count it in ``counters``."""
        started, tasks = pulled
        counters.lags.pulls.add(started)
        changed = state.snapshot(tasks, started)
        counters.reconciles += 1
        state.put("reconciled_at", str(started))
        log.info("reconciled %d task(s) from the project, %d changed", len(tasks), len(changed))

    def reread(self, state: State, tasks: set[int]) -> dict[int, float]:
        """Read ``tasks`` again (an annotation of each was starred: another may have lost its
        star without a webhook); those whose annotations changed, with when."""
        started = now()
        try:
            pulled = self.read(sorted(tasks))
        except LabelStudioError as exc:  # the next reconcile reads them
            log.warning("tasks %s not read again: %s", sorted(tasks), exc.message)
            return {}
        with state.transaction():
            return dict.fromkeys(state.reread(pulled, started), started)

    def _params(self) -> dict[str, str | int | None]:
        return {
            "project": self.project.project_id,
            "fields": "all",
            "include": ",".join(
                ("id", "data", "meta", "overlap", "annotations", "predictions", *ANNOTATION_FIELDS)
            ),
            "page_size": self.project.page_size,
        }

    def read(self, ids: list[int]) -> list[Task]:
        """The tasks ``ids`` as they are now, as a pull gives them, in one request (the tasks
        list filtered to them: the Data Manager's selected items)."""
        return [t for t in selected_tasks(self.project.api, ids, self._params()) if is_task(t)]

    def pull(self) -> Iterator[Task]:
        """Every task of the project, with meta, data and annotations (the tasks API, paged)."""
        pages = task_pages(
            self.project.api, self._params(), "reading tasks", self.project.page_size
        )
        for batch in pages:
            yield from (t for t in batch if is_task(t))
