"""The worker: applies queued events to the state, re-scores, writes flags, gates.

One thread owns the state; the web app only appends webhook bodies to the state's inbox and
wakes it. Each step takes every queued event at once (so events of one task coalesce) and
applies them in short transactions. Then:

- **live step** (O(changed tasks)): the changed tasks are read by the batch rules and their
  contributions to each field's running sums (:mod:`.live`) replaced; their flags, and those of
  tasks whose status changed with them, are written (oldest first, at most
  :data:`WRITE_BATCH` a step, :data:`~iaa_gate.sinks.label_studio.WORKERS` requests in flight);
  the Data Manager tab follows the disputed set.
- **report** (O(project), debounced): the whole state evaluated exactly as a batch run evaluates
  a pull of the project: ``/report.json`` and ``/``, the gate (a verdict change is logged and
  notified), and what is not additive: the coefficients' intervals, the kappa family,
  Dawid–Skene's review priority and consensus, the score of a task that drifted with the
  others' (ordinal and interval scales). Flags that differ from it are written. It runs once no
  event came for :data:`REPORT_QUIET` seconds, at least every :data:`REPORT_EVERY` seconds
  under a steady stream, when ``/report.json`` or ``/`` asks for it, and after each pull; the
  running sums are rebuilt from it.

Where a field is outside what the running sums cover (see :mod:`.live`), every step is a
report. A second thread pulls the project on start and every ``serve.reconcile_every`` seconds;
the worker applies each pull as a snapshot between steps, so what a lost webhook or a kill -9
missed comes back, and events are not held back while the pull runs.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from ..adapters.label_studio.client import LabelStudioError
from ..adapters.label_studio.config import LabelStudioSource
from ..adapters.label_studio.export import parse_tasks
from ..adapters.label_studio.label_config import Control, declare, parse_label_config
from ..adapters.label_studio.project import ANNOTATION_FIELDS, LabelStudioProject
from ..config import Config, ServeConfig
from ..core.errors import IaaGateError, UsageError
from ..evaluation.sections import Writeback
from ..model import Dataset
from ..pipeline import Outcome, evaluate
from ..sinks.label_studio import RUN_KEY, LabelStudioFlags, entries, entry
from ..sinks.label_studio_consensus import ConsensusPredictions
from .events import BadEvent, Event, parse_event
from .live import Live, NotLive
from .state import CHUNK, State, now

log = logging.getLogger("iaa_gate.serve")

LAG_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Upper bounds (seconds) of the event → flag lag histogram."""
RECENT = 1000
"""Lags kept for the p50/p95 of ``/metrics`` (the latest ones)."""
MIN_SECRET = 16
"""Shortest webhook secret accepted."""
WRITE_BATCH = 200
"""Most tasks written per step (a reconcile writes all): newer events are applied and scored
between batches, so a burst does not hold back the flags of the next submissions."""
REPORT_BATCH = 8
"""Most tasks per step whose flags a report found different (review priorities, scores that
drifted with the others'): two rounds of the write-back's requests in flight."""
RETRY_AFTER = 1.0
"""Seconds before tasks whose flags could not be written are tried again."""
REPORT_QUIET = 2.0
"""Seconds without an event after which the full report is brought up to date."""
REPORT_EVERY = 120.0
"""Most seconds a report lags the state under a steady stream of events."""


@dataclass
class Counters:
    """What ``/metrics`` shows besides the report: events by outcome, the lag histogram."""

    received: int = 0
    ignored: int = 0
    rejected: int = 0
    applied: int = 0
    flags_written: int = 0
    reconciles: int = 0
    to_write: int = 0
    busy: bool = False
    deferred: int = 0
    lag_buckets: list[int] = field(default_factory=lambda: [0] * len(LAG_BUCKETS))
    lag_sum: float = 0.0
    lag_count: int = 0
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=RECENT))

    def observe(self, lag: float) -> None:
        self.recent.append(lag)
        for i, bound in enumerate(LAG_BUCKETS):
            if lag <= bound:
                self.lag_buckets[i] += 1
        self.lag_sum += lag
        self.lag_count += 1


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
        self.config = config
        self.project = LabelStudioProject.from_config(
            src.model_copy(update={"timeout": None}),  # a service has no total time budget
            pull_meta=True,
            pull_data=config.writeback.data_flags,
        )
        self.sink: LabelStudioFlags | None = None
        self.tab: LabelStudioFlags | None = None  # the Data Manager tab alone
        self.disputed: list[Any] | None = None  # the tab's tasks, as last written
        if config.writeback.enabled:
            self.tab = LabelStudioFlags.for_run(self.project, config)
            no_tab = config.writeback.model_copy(update={"view": None})
            self.sink = replace(self.tab, config=no_tab)
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="iaa-gate-tab")
        self.tab_update: Future[dict[str, Any]] | None = None  # live: the tab being written
        self.tab_sent: list[Any] = []  # what it writes
        self.tab_failed = 0.0  # monotonic time of the last failed tab update
        self.counters = Counters()
        self.outcome: Outcome | None = None
        self.writeback: Writeback | None = None
        self.ready = threading.Event()
        self.error: str | None = None
        self.problem: str | None = None
        self.wake = threading.Event()
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.names: dict[str, str] = {}
        self.controls: list[Control] = []
        self.project_id: int | None = None
        self.threads: list[threading.Thread] = []
        self.pulled: tuple[float, list[dict[str, Any]]] | None = None  # for the worker
        self.deferred: set[int] = set()  # tasks to write left for the next step
        self.live: Live | None = None  # the running sums (None: each step is a report)
        self.live_off: str | None = "not built"  # why not (None: on)
        self.pending: dict[int, float | None] = {}  # live: tasks to write → first event time
        self.version = 0  # the state's changes applied
        self.reported = -1  # the version the last report evaluated
        self.arrived = 0.0  # monotonic time of the last event received or applied
        self.report_entries: dict[int, dict[str, Any] | None] = {}  # the report's, to write
        self.report_at = 0.0  # monotonic time of the last report
        self.want_report = threading.Event()

    # -- life cycle -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker and the puller threads."""
        for target, name in ((self._run, "iaa-gate-serve"), (self._pulling, "iaa-gate-pull")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()
        for thread in self.threads:
            thread.join(timeout=30)
        self.pool.shutdown(wait=True)

    def _pulling(self) -> None:
        """The puller: pull the project now and every ``reconcile_every`` seconds, and hand each
        pull to the worker, which goes on applying events while a pull runs."""
        every = self.settings.reconcile_every
        while not self.stopping.is_set():
            started = now()
            try:
                tasks = list(self.pull())
            except LabelStudioError as exc:  # the server is away: try again soon
                log.warning("reconcile failed: %s", exc.message)
                self.stopping.wait(min(60.0, every))
                continue
            except Exception:  # a bug: keep the traceback, stop pulling
                log.exception("the puller stopped by an internal error")
                return
            with self.lock:
                self.pulled = (started, tasks)
            self.wake.set()
            self.stopping.wait(every)

    def _run(self) -> None:
        state = State(self.settings.state)
        try:
            while not self.stopping.is_set():
                with self.lock:
                    pulled, self.pulled = self.pulled, None
                if pulled is not None:
                    self.reconcile(state, *pulled)
                    self.ready.set()
                pending = self.step(state)
                wait = 60.0
                if pending:  # flags not written (the server failed) or not yet (a burst)
                    wait = 0.0 if self.counters.deferred else RETRY_AFTER
                if self.report_pending:
                    wait = min(wait, max(0.05, self.arrived + REPORT_QUIET - time.monotonic()))
                self.wake.wait(timeout=wait)
                self.wake.clear()
        except IaaGateError as exc:
            self.error = str(exc)
            log.error("stopped: %s", exc)
        except Exception:  # a bug: keep the traceback in the log
            self.error = "internal error (see the log)"
            log.exception("stopped by an internal error")
        finally:
            self.ready.set()
            state.close()

    def connect(self) -> None:
        """Resolve the project; read its labeling config and user names (as a batch pull)."""
        self.project_id = self.project.resolve()
        if self.tab is not None:  # its own view of the project: it writes no task
            source = copy.copy(self.project)
            source.tasks = {}
            self.tab = replace(self.tab, source=source)
        self.names = self.project.annotator_names()
        if self.project.label_config:
            where = f"{self.project.where} labeling config"
            self.controls = parse_label_config(self.project.label_config, where)

    # -- events ---------------------------------------------------------------------------------

    def accepts(self, event: Event) -> bool:
        """Whether ``event`` is about this project (an event naming no project is)."""
        return event.project is None or event.project == self.project_id

    def step(self, state: State) -> bool:
        """Apply the queued events, then refresh; whether flags are still to be written."""
        rows = state.inbox()
        self.counters.busy = True
        try:
            return self._step(state, rows)
        finally:
            self.counters.busy = False

    def _step(self, state: State, rows: list[tuple[int, float, bytes]]) -> bool:
        changed: dict[int, float] = {}  # task → arrival of its first event in this step
        for start in range(0, len(rows), CHUNK):  # short transactions: webhooks wait less
            chunk = rows[start : start + CHUNK]
            with state.transaction():
                for _, received, body in chunk:
                    try:
                        event = parse_event(json.loads(body))
                    except (ValueError, BadEvent):
                        continue  # checked when received; kept out of the state
                    if self.accepts(event):
                        for t in state.apply(event, received) | set(event.deleted_tasks):
                            changed.setdefault(t, received)
                        self.counters.applied += 1
                state.done(chunk[-1][0])
        if rows:
            self.version += 1
            self.arrived = max(self.arrived, time.monotonic())
        if not self.ready.is_set():
            return False  # scored and written after the first pull, with fresh task meta
        if self.live is None:
            dirty = state.dirty()
            if not rows and not dirty and self.outcome is not None:
                return False
            return self.refresh(state, dirty)
        left = self._live_step(state, changed)
        if self._report_due(state):
            return self.refresh(state, state.dirty(), full=True)
        return left

    @property
    def report_pending(self) -> bool:
        """Whether the report lags the state (live step only)."""
        return self.live is not None and self.reported != self.version

    def _report_due(self, state: State) -> bool:
        if not self.report_pending:
            return False
        if self.want_report.is_set():
            return True
        clock = time.monotonic()
        if clock - self.report_at >= REPORT_EVERY:
            return True
        return clock - self.arrived >= REPORT_QUIET and not state.queued()

    def fresh(self, timeout: float = 300.0) -> Outcome | None:
        """The report, brought up to the state first if it lags (for ``/report.json`` and
        ``/``; waits at most ``timeout`` seconds, then gives the last one)."""
        target = self.version
        deadline = time.monotonic() + timeout
        while self.live is not None and self.reported < target and not self.error:
            self.want_report.set()
            self.wake.set()
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        return self.snapshot()

    def _live_step(self, state: State, changed: dict[int, float]) -> bool:
        """Update the running sums with ``changed`` tasks and write the flags that changed;
        whether some are left to write."""
        assert self.live is not None
        if changed:
            started = time.perf_counter()
            try:
                dataset = self.dataset(state, sorted(changed))
                with self.lock:
                    moved = self.live.update(dataset, changed)
            except (NotLive, IaaGateError) as exc:  # a report says what it is
                log.info("running sums off (%s): each step evaluates the whole state", exc)
                with self.lock:
                    self.live, self.pending = None, {}
                return True
            for t in map(int, moved):
                self.pending.setdefault(t, changed.get(t))
                self.report_entries.pop(t, None)  # the running sums say more recently
            log.debug(
                "%d task(s) changed, %d to write: running sums in %.1f ms",
                len(changed),
                len(moved),
                1000 * (time.perf_counter() - started),
            )
        if self.sink is None:
            state.clean(self.pending)
            self.pending.clear()
        if self.tab is not None and self.tab.config.view is not None:
            with self.lock:
                disputed = self.live.disputed_tasks()
            self._tab(disputed)
        if not self.pending:
            self.counters.to_write = int(self.tab_busy)
            self.counters.deferred = 0
            return False
        return self._write_live(state)

    @property
    def tab_busy(self) -> bool:
        """Whether a Data Manager tab update is under way."""
        return self.tab_update is not None and not self.tab_update.done()

    def _tab(self, disputed: list[Any]) -> None:
        """Bring the Data Manager tab to ``disputed`` in the background, one update at a time
        (a flag never waits for the tab); the worker is woken when an update ends."""
        assert self.tab is not None
        if self.tab_busy:
            return
        if self.tab_update is not None:
            view = self.tab_update.result()
            self.tab_update = None
            self.disputed = None if view.get("view") == "failed" else self.tab_sent
            self.tab_failed = time.monotonic() if self.disputed is None else 0.0
            for warning in view.get("warnings", []):
                log.warning("write-back: %s", warning)
        if self.disputed is None and time.monotonic() - self.tab_failed < 10 * RETRY_AFTER:
            return  # failed just now: tried again with a later step
        if disputed != self.disputed:
            self.tab_sent = disputed
            self.tab_update = self.pool.submit(self.tab.show, disputed)
            self.tab_update.add_done_callback(lambda _: self.wake.set())

    def _write_live(self, state: State) -> bool:
        """Write the pending tasks' flags: the :data:`WRITE_BATCH` oldest changes (from the
        running sums), then :data:`REPORT_BATCH` of what the last report found different
        (its entries), so a report's writes never hold back a new submission's for long."""
        assert self.live is not None and self.sink is not None
        fresh = sorted((s, t) for t, s in self.pending.items() if s is not None)
        later = [t for t, s in self.pending.items() if s is None][:REPORT_BATCH]
        batch = [t for _, t in fresh[:WRITE_BATCH]] + later
        self.project.tasks = state.pulled(batch, data=self.sink.config.data_flags)
        reported = {t: self.report_entries[t] for t in batch if t in self.report_entries}
        with self.lock:
            own = [t for t in batch if t not in reported]
            wanted = {t: entry(f, self.sink.digest) for t, f in self.live.entries(own).items()}
        wanted.update({t: e for t, e in reported.items() if e is not None})
        try:
            changes, summary = self.sink.write_entries(wanted)
        except LabelStudioError as exc:
            log.warning("flags not written: %s", exc.message)
            self.counters.deferred = 0
            return True
        left = self._settle(state, changes, batch, {})
        when = now()
        for t in batch:
            if t not in left:
                self.report_entries.pop(t, None)
                since = self.pending.pop(t)
                if since is not None:
                    self.counters.observe(max(0.0, when - since))
        self.counters.flags_written += int(summary.get("done", 0))
        for warning in summary.get("warnings", []):
            log.warning("write-back: %s", warning)
        if left:
            self._reread(state, left)
        self.counters.to_write = len(self.pending) + int(self.tab_busy)
        self.counters.deferred = 0 if left else len(self.pending)
        return bool(self.pending)

    def _settle(
        self, state: State, changes: list[Any], tasks: list[int], seen: dict[Any, int]
    ) -> set[int]:
        """Record what was written to ``tasks`` (the flags of ``changes``; the consensus
        predictions of tasks whose list is no longer the one ``seen`` had, by ``id``) and clean
        them; those left (a write failed, or the task was edited in Label Studio meanwhile:
        read again before the next try)."""
        planned = {c.id: c for c in changes}
        left: set[int] = set()
        with state.transaction():
            for t, task in self.project.tasks.items():
                change = planned.get(t)
                if change is not None and task.meta != change.meta:
                    left.add(int(t))
                    continue
                predictions = task.predictions if id(task.predictions) != seen.get(t) else None
                if change is not None or predictions is not None:
                    data = task.data if change is not None and change.data else None
                    state.set_meta(int(t), task.meta, data, predictions)
            state.clean(t for t in tasks if t not in left)
        return left

    def reconcile(self, state: State, started: float, tasks: list[dict[str, Any]]) -> None:
        """Apply a pull of every task of the project that began at ``started`` as a snapshot,
        then refresh (writing every flag that differs from the batch's)."""
        changed = state.snapshot(tasks, started)
        self.counters.reconciles += 1
        state.put("reconciled_at", str(started))
        log.info("reconciled %d task(s) from the project, %d changed", len(tasks), len(changed))
        self.refresh(state, state.dirty(), full=True)

    def pull(self) -> Iterator[dict[str, Any]]:
        """Every task of the project, with meta, data and annotations (the tasks API, paged)."""
        params = {
            "project": self.project_id,
            "fields": "all",
            "include": ",".join(
                ("id", "data", "meta", "annotations", "predictions", *ANNOTATION_FIELDS)
            ),
            "page_size": self.project.page_size,
        }
        page = 1
        while True:
            body = self.project.api.request(
                "GET",
                "api/tasks/",
                f"reading tasks (page {page})",
                params={**params, "page": page},
                absent=(404,) if page > 1 else (),
            )
            batch = body.get("tasks") if isinstance(body, dict) else None
            if not isinstance(batch, list):
                return
            yield from (t for t in batch if isinstance(t, dict) and "id" in t)
            if len(batch) < self.project.page_size:
                return
            page += 1

    # -- scoring and flags ----------------------------------------------------------------------

    def dataset(self, state: State, ids: list[int] | None = None) -> Dataset:
        """The state (or the tasks ``ids`` of it) read by the batch rules, as
        :meth:`LabelStudioProject.load` reads a pull."""
        docs = [msgspec.Raw(d) for d in state.task_documents(ids)]
        src = self.config.source
        dataset = parse_tasks(
            docs,
            f"{self.project.url} project {self.project_id}",
            skip_invalid=getattr(src, "skip_invalid", False),
        )
        dataset.annotator_names = {**self.names, **dataset.annotator_names}
        if self.controls:
            declare(dataset, self.controls)
        return dataset

    def refresh(self, state: State, dirty: dict[int, float], *, full: bool = False) -> bool:
        """Evaluate the state, write the flags that changed, gate; whether some are left.
        A state the batch run would refuse (no field answered yet, a malformed task) keeps
        the service running: the report says why until an event mends it."""
        started = time.perf_counter()
        version = self.version
        self.want_report.clear()
        try:
            dataset = self.dataset(state)
            outcome = evaluate(self.config, dataset, project_id=self.project_id)
        except IaaGateError as exc:
            if self.problem != str(exc):
                log.warning("no report yet: %s", exc)
            with self.lock:
                self.outcome, self.problem, self.live = None, str(exc), None
            state.clean(dirty)
            self.counters.to_write = 0
            self.reported, self.report_at = version, time.monotonic()
            return False
        self.problem = None
        self._relive(dataset, outcome)
        scored = time.perf_counter()
        left = False
        if self.sink is not None and self.live is not None:
            left = self._plan(state, outcome, dirty)
        elif self.sink is not None:
            left = self._flags(state, outcome, dirty, full=full)
        else:
            state.clean(dirty)
        outcome = outcome.with_writeback(self.writeback)
        with self.lock:
            self.outcome = outcome
        self._gate(state, outcome)
        self.reported, self.report_at = version, time.monotonic()
        self.counters.to_write = len(set(state.dirty()) | self.deferred | set(self.pending))
        log.debug(
            "%d task(s) changed: evaluated in %.0f ms, flags in %.0f ms",
            len(dirty),
            1000 * (scored - started),
            1000 * (time.perf_counter() - scored),
        )
        return left

    def _relive(self, dataset: Dataset, outcome: Outcome) -> None:
        """Rebuild the running sums from a report of the whole state (``dataset``)."""
        try:
            live: Live | None = Live(self.config, dataset, outcome.results)
            reason = None
        except (NotLive, IaaGateError) as exc:
            live, reason = None, str(exc)
        if reason != self.live_off:
            if reason is None:
                log.info("running sums on: each step scores the changed tasks")
            else:
                log.info("running sums off (%s): each step evaluates the whole state", reason)
        self.live_off = reason
        with self.lock:
            self.live, self.pending = live, {}

    def _plan(self, state: State, outcome: Outcome, dirty: dict[int, float]) -> bool:
        """With running sums: the tasks whose flags differ from the report's become pending
        (written by the live steps, the changed ones first); the consensus predictions that
        differ are written now. Whether some are pending."""
        assert self.sink is not None
        wanted = entries(outcome.results, self.sink.digest)
        self.pending, self.report_entries, settled = {}, {}, []
        for t, shown in state.all_meta(self.sink.config.meta_key).items():
            if isinstance(shown, dict):
                shown = {k: v for k, v in shown.items() if k != RUN_KEY}
            if shown != wanted.get(t):
                self.report_entries[t] = wanted.get(t)
                self.pending[t] = dirty.get(t)
            elif t in dirty:
                settled.append(t)
        state.clean(settled)
        when = now()
        for t in settled:
            self.counters.observe(max(0.0, when - dirty[t]))
        if self.sink.config.consensus:
            self._consensus(state, outcome)
        self.counters.deferred = len(self.pending)
        return bool(self.pending)

    def _consensus(self, state: State, outcome: Outcome) -> None:
        """Write the consensus predictions that differ from the report's (disputed tasks, and
        tasks that carry one of iaa-gate's predictions)."""
        assert self.sink is not None
        disputed = {int(u.id) for r in outcome.results.values() for u in r.disputed}
        self.project.tasks = state.pulled(disputed | state.with_predictions(), data=False)
        seen = {t: id(task.predictions) for t, task in self.project.tasks.items()}
        warnings: list[str] = []
        try:
            done = ConsensusPredictions(self.project, self.sink.round).apply(
                outcome.results, dry_run=False, warnings=warnings
            )
        except LabelStudioError as exc:
            log.warning("consensus not written: %s", exc.message)
            return
        for warning in warnings:
            log.warning("consensus: %s", warning)
        self._settle(state, [], [], seen)
        was = self.writeback or Writeback(target="label-studio")
        self.writeback = msgspec.structs.replace(was, consensus=done)

    def live_summary(self) -> dict[str, tuple[float, int]] | None:
        """Each field's live ``(alpha, disputed tasks)`` (None: no running sums)."""
        with self.lock:
            return None if self.live is None else self.live.summary()

    def _flags(
        self, state: State, outcome: Outcome, dirty: dict[int, float], *, full: bool
    ) -> bool:
        assert self.sink is not None
        self.counters.deferred, self.deferred = 0, set()
        key = self.sink.config.meta_key
        wanted = entries(outcome.results, self.sink.digest)
        shown = state.all_meta(key)

        def status(entry: Any) -> Any:
            return entry.get("status") if isinstance(entry, dict) else None

        changed = sorted((t for t in dirty if t in shown), key=lambda t: dirty[t])
        flipped = [t for t, e in shown.items() if full or status(e) != status(wanted.get(t))]
        todo = list(dict.fromkeys([*changed, *flipped]))  # the oldest changes first
        deferred = set(todo[WRITE_BATCH:]) if not full else set()
        pulled = state.pulled(
            (t for t in todo if t not in deferred), data=self.sink.config.data_flags
        )
        self.project.tasks = pulled
        seen = {t: id(task.predictions) for t, task in pulled.items()}
        disputed = sorted(t for t, e in wanted.items() if e["disputed"])
        tab = None  # the tab, written alongside the tasks when the disputed set changed
        if self.tab is not None and self.tab.config.view and disputed != self.disputed:
            tab = self.pool.submit(self.tab.apply, outcome.results)
        try:
            changes, _, _ = self.sink.plan(outcome.results)
            summary = self.sink.apply(outcome.results)
            if tab is not None:
                view = tab.result()
                summary = msgspec.structs.replace(
                    summary,
                    view_title=view.view_title,
                    view_id=view.view_id,
                    view=view.view,
                    view_error=view.view_error,
                )
                self.disputed = None if view.view == "failed" else disputed
        except LabelStudioError as exc:
            log.warning("flags not written: %s", exc.message)
            return True
        self.writeback = summary
        left = self._settle(state, changes, [t for t in dirty if t not in deferred], seen)
        settled = [t for t in dirty if t not in left and t not in deferred]
        when = now()
        for t in settled:
            self.counters.observe(max(0.0, when - dirty[t]))
        self.counters.flags_written += int(summary.done or 0)
        for warning in summary.warnings:
            log.warning("write-back: %s", warning)
        if left:
            self._reread(state, left)
        self.counters.deferred = len(deferred)
        self.deferred = deferred
        return bool(left or deferred)

    def _reread(self, state: State, tasks: set[int]) -> None:
        """Read ``tasks`` again (their meta changed in Label Studio), so the next try merges
        into what is there now; each stays dirty until written."""
        for t in sorted(tasks):
            try:
                body = self.project.api.request(
                    "GET", f"api/tasks/{t}/", f"re-reading task {t}", absent=(404,)
                )
            except LabelStudioError as exc:
                log.warning("task %s: %s", t, exc.message)
                continue
            if isinstance(body, dict):
                state.set_meta(t, body.get("meta") or {}, body.get("data") or {})

    # -- the gate -------------------------------------------------------------------------------

    def _gate(self, state: State, outcome: Outcome) -> None:
        """Log a verdict change (and POST it to ``serve.notify_url``)."""
        verdict = outcome.verdict.value
        fields: dict[str, str] = {}
        for check in outcome.checks:
            worst = fields.get(check.field, "pass")
            order = ("pass", "warn", "fail")
            if order.index(check.verdict.value) > order.index(worst):
                worst = check.verdict.value
            fields[check.field] = worst
        was = state.get("verdict")
        if was == verdict:
            return
        state.put("verdict", verdict)
        if was is None:
            log.info("verdict: %s", verdict)
            return
        text = f"iaa-gate: project {self.project_id}: the verdict changed from {was} to {verdict}"
        log.warning("%s (%s)", text, ", ".join(f"{f}: {v}" for f, v in sorted(fields.items())))
        if self.settings.notify_url is not None:
            payload = {"text": text, "verdict": verdict, "was": was, "fields": fields}
            self._notify(self.settings.notify_url.get_secret_value(), payload)

    @staticmethod
    def _notify(url: str, payload: dict[str, Any]) -> None:
        request = urllib.request.Request(
            url,
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
        except OSError as exc:
            log.warning("notify failed: %s", type(exc).__name__)  # the URL is a secret

    # -- what the endpoints read ----------------------------------------------------------------

    def snapshot(self) -> Outcome | None:
        with self.lock:
            return self.outcome


def finite(x: float | None) -> str:
    """A Prometheus sample value (NaN for undefined)."""
    return "NaN" if x is None or (isinstance(x, float) and math.isnan(x)) else repr(float(x))
