"""The worker: applies queued events to the state, updates the running sums, writes flags and
reports; each job is a module of its own, this one runs them in order.

One thread owns the state; the web app only appends events to the state's inbox and wakes it.
Each step takes every queued event at once (so events of one task coalesce) and applies them in
short transactions (:mod:`.apply`). Then:

- **live step** (O(changed tasks)): the changed tasks are read by the batch rules (:mod:`.read`)
  and their contributions to each field's running sums replaced (:mod:`.sums`); their flags,
  and those of tasks whose status changed with them, are written (:mod:`.flags`); the Data
  Manager tab follows the disputed set (:mod:`.tab`).
- **report** (O(project), debounced, :mod:`.report`): the whole state evaluated exactly as a
  batch run evaluates a pull of the project: ``/report.json`` and ``/``, the gate (a verdict
  change is logged and notified), and what is not additive: the coefficients' intervals, the
  kappa family, Dawid–Skene's review priority and consensus, the score of a task that drifted
  with the others' (ordinal and interval scales). Flags that differ from it are written, and
  the running sums are rebuilt from it.

Where a field is outside what the running sums cover (see :mod:`.live`), every step is a
report. A second thread pulls the project on start and every ``serve.reconcile_every`` seconds
(:mod:`.reconcile`); the worker applies each pull between steps, then reports.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from dataclasses import replace

from ..adapters.label_studio.config import LabelStudioSource
from ..adapters.label_studio.project import LabelStudioProject, routed_of
from ..config import Config, ServeConfig
from ..core.errors import IaaGateError, UsageError
from ..pipeline import Outcome
from ..sinks.label_studio import LabelStudioFlags
from .apply import apply_queued
from .events import Event
from .flags import FlagWriter
from .metrics import Counters
from .read import Reader
from .reconcile import Reconciler
from .report import Reporter
from .state import State
from .sums import SumsUpdater
from .tab import TabUpdater

log = logging.getLogger("iaa_gate.serve")

MIN_SECRET = 16
"""Shortest webhook secret accepted."""
RETRY_AFTER = 1.0
"""Seconds before tasks whose flags could not be written are tried again."""


def serve_settings(config: Config) -> tuple[LabelStudioSource, ServeConfig]:
    """The config's live source and ``serve:`` section; :class:`UsageError` if either is
    missing or the source cannot be served."""
    src, serve = config.source, config.serve
    if not isinstance(src, LabelStudioSource):
        raise UsageError(
            f"iaa-gate serve needs a live Label Studio source (source.type: label-studio); "
            f"this config reads {src.type}"
        )
    if serve is None:
        raise UsageError(
            "iaa-gate serve needs a serve: section with at least the webhook secret",
            hint="add serve: {secret: ${IAA_GATE_WEBHOOK_SECRET}}",
        )
    if len(serve.secret.get_secret_value()) < MIN_SECRET:
        raise UsageError(
            f"serve.secret is shorter than {MIN_SECRET} characters",
            hint="generate one (openssl rand -hex 24) and pass it as ${IAA_GATE_WEBHOOK_SECRET}",
        )
    if src.view is not None:
        raise UsageError(
            "iaa-gate serve follows the whole project; source.view is not supported",
            hint="remove source.view from the config used with serve",
        )
    return src, serve


class Service:
    """The live state of one project (``config`` with a ``serve:`` section)."""

    def __init__(self, config: Config) -> None:
        src, self.settings = serve_settings(config)
        self.project = LabelStudioProject.from_config(
            src.model_copy(update={"timeout": None}),  # a service has no total time budget
            pull_meta=True,
            pull_data=config.writeback.data_flags,
        )
        self.counters = Counters()
        self.wake = threading.Event()  # the worker has something to do
        self.stopping = threading.Event()
        self.ready = threading.Event()  # the first pull is applied and reported
        self.reader = Reader(skip_invalid=src.skip_invalid)
        self.sums = SumsUpdater(config)
        self.reporter = Reporter(config, self.project, self._notify_url())
        self.reconciler = Reconciler(
            self.project,
            self.settings.reconcile_every,
            self.wake.set,
            self.settings.secret.get_secret_value(),
        )
        self.flags: FlagWriter | None = None  # None: no write-back
        if config.writeback.enabled:
            sink = LabelStudioFlags.for_run(self.project, config)
            tab = None
            if config.writeback.view is not None:  # the tab's own sink writes no task
                tab = TabUpdater(replace(sink, tasks={}), self.wake.set)
            no_tab = config.writeback.model_copy(update={"view": None})
            self.flags = FlagWriter(replace(sink, config=no_tab), tab, self.counters)
        self.thread: threading.Thread | None = None

    def _notify_url(self) -> str | None:
        url = self.settings.notify_url
        return None if url is None else url.get_secret_value()

    def connect(self) -> None:
        """Resolve the project; read its labeling config and user names (as a batch pull)."""
        self.reader = self.reader.connect(self.project)

    # -- life cycle -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker and the puller threads."""
        self.thread = threading.Thread(target=self._run, name="iaa-gate-serve", daemon=True)
        self.thread.start()
        self.reconciler.start()

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()
        self.reconciler.stop()
        if self.thread is not None:
            self.thread.join(timeout=30)
        if self.flags is not None and self.flags.tab is not None:
            self.flags.tab.close()

    def _run(self) -> None:
        state = State(self.settings.state)
        try:
            while not self.stopping.is_set():
                left = self.turn(state)
                self.reporter.schedule.stepped()
                self.wake.wait(timeout=self._pause(left))
                self.wake.clear()
        except IaaGateError as exc:
            self.reporter.stopped(str(exc))
            log.error("stopped: %s", exc)
        except Exception:  # a bug: keep the traceback in the log
            self.reporter.stopped("internal error (see the log)")
            log.exception("stopped by an internal error")
        finally:
            self.ready.set()
            self.reporter.schedule.end()
            state.close()

    def turn(self, state: State) -> bool:
        """One turn of the worker: the pull that came, if any, then a step; whether flags are
        left to write. Busy throughout, idle after it when every write it decided is done."""
        self.counters.busy, self.counters.idle = True, False
        try:
            pulled = self.reconciler.take()
            if pulled is not None:
                self.reconciler.apply(state, pulled, self.counters)
                self.refresh(state, state.dirty(), full=True)
                self.ready.set()
            left = self.step(state)
            self.counters.idle = self._idle(state)
            return left
        finally:
            self.counters.busy = False

    def _idle(self, state: State) -> bool:
        """Whether every write decided is done (a write that failed is in the report and the
        log): reported, no event queued, no report due, no task or tab left to write."""
        if not self.ready.is_set() or state.queued() or self.report_pending:
            return False
        dirty = state.dirty()
        return not (dirty if self.flags is None else self.flags.left(dirty))

    def _pause(self, left: bool) -> float:
        """Seconds the worker waits unless woken (``left``: flags are left to write)."""
        wait = 60.0
        if left:  # flags not written (the server failed) or not yet (a burst)
            wait = 0.0 if self.counters.deferred else RETRY_AFTER
        if self.report_pending:
            wait = min(wait, self.reporter.schedule.quiet_in())
        return wait

    # -- events ---------------------------------------------------------------------------------

    def accepts(self, event: Event) -> bool:
        """Whether ``event`` is about this project (an event naming no project is)."""
        return event.project is None or event.project == self.project.project_id

    def heard(self) -> None:
        """An event was queued: wake the worker."""
        self.reporter.schedule.heard()
        self.wake.set()

    def step(self, state: State) -> bool:
        """Apply the queued events, then update (or report); whether flags are left to write."""
        starred: set[int] = set()
        changed = apply_queued(state, self.counters, starred)
        if starred:
            changed = {**self.reconciler.reread(state, starred), **(changed or {})}
        if changed is not None:
            self.reporter.schedule.applied()
        if not self.ready.is_set():
            return False  # scored and written after the first pull, with fresh task meta
        if not self.sums.on:
            dirty = state.dirty()
            if changed is None and not dirty and self.reporter.snapshot() is not None:
                return False
            return self.refresh(state, dirty)
        left = self._live_step(state, changed or {})
        if self.sums.on and self.reporter.schedule.due(state.queued()):
            return self.refresh(state, state.dirty(), full=True)
        return left

    def _live_step(self, state: State, changed: dict[int, float]) -> bool:
        """Update the running sums with the ``changed`` tasks and write the flags that changed;
        whether some are left to write."""
        if changed:
            moved = self.sums.update(functools.partial(self.reader.read, state), changed)
            if moved is None:  # the sums are off: the next step reports
                if self.flags is not None:
                    self.flags.forget()
                return True
            if self.flags is None:
                state.clean(moved)
            else:
                self.flags.queue(moved, changed)
        if self.flags is None:
            self.counters.to_write = self.counters.deferred = 0
            return False
        if self.flags.tab is not None:
            self.flags.tab.follow(self.sums.disputed())
        return self.flags.write_pending(state, self.sums.entries)

    # -- the report -----------------------------------------------------------------------------

    @property
    def report_pending(self) -> bool:
        """Whether the report lags the state (running sums on: reports are debounced)."""
        return self.sums.on and self.reporter.schedule.lags

    def refresh(self, state: State, dirty: dict[int, float], *, full: bool = False) -> bool:
        """Evaluate the state, write the flags that changed, gate; whether some are left.
        A state the batch run would refuse (no field answered yet, a malformed task) keeps
        the service running: the report says why until an event mends it."""
        started = time.perf_counter()
        version = self.reporter.schedule.begin()
        try:
            dataset = self.reader.read(state)
            config = self.reporter.config
            if config.adjudication is not None:  # the routes write-back left in meta
                dataset.routed = routed_of(state.all_meta(config.writeback.meta_key))
            outcome = self.reporter.evaluate(dataset)
        except IaaGateError as exc:
            self.reporter.refused(exc)
            self.sums.drop()
            if self.flags is not None:
                self.flags.forget()
            state.clean(dirty)
            self.counters.to_write = 0
            self.reporter.schedule.done(version)
            return False
        self.sums.rebuild(dataset, outcome)
        scored = time.perf_counter()
        left = False
        if self.flags is None:
            state.clean(dirty)
        elif self.sums.on:
            left = self.flags.plan(state, outcome, dirty)
        else:
            left = self.flags.write_report(state, outcome, dirty, full=full)
        self.reporter.publish(outcome, None if self.flags is None else self.flags.after(outcome))
        self.reporter.gate(state, outcome)
        self.reporter.schedule.done(version)
        todo = state.dirty()
        self.counters.to_write = len(todo) if self.flags is None else self.flags.left(todo)
        log.debug(
            "%d task(s) changed: evaluated in %.0f ms, flags in %.0f ms",
            len(dirty),
            1000 * (scored - started),
            1000 * (time.perf_counter() - scored),
        )
        return left

    def fresh(self, timeout: float = 300.0) -> Outcome | None:
        """The report, brought up to the state first if it lags (for ``/report.json`` and
        ``/``; waits at most ``timeout`` seconds, then gives the last one)."""
        self.reporter.schedule.wait(lambda: self.sums.on, self.wake.set, timeout)
        return self.reporter.snapshot()
