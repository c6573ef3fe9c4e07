"""Writing the flags (and the consensus predictions) of the tasks whose flags changed.

After a report, the flags that differ from it are written: all at once when each step is a
report, else they become pending and the live steps write them with the changed tasks' (the
oldest changes first, at most :data:`WRITE_BATCH` a step, then :data:`REPORT_BATCH` of what the
report found different). Each write merges into the task as the state last saw it; a task
edited in Label Studio meanwhile is read again and tried with a later step.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import msgspec

from ..adapters.label_studio.client import LabelStudioError
from ..adapters.label_studio.project import PulledTask
from ..evaluation.sections import Writeback
from ..model import TaskId
from ..pipeline import Outcome
from ..sinks.label_studio import (
    Change,
    FieldFlag,
    LabelStudioFlags,
    TaskFlag,
    entries,
    entry,
    shows_same,
)
from ..sinks.label_studio_consensus import ConsensusPredictions
from ..sinks.label_studio_overlap import LabelStudioOverlap
from .inbox import now
from .metrics import Counters
from .state import State
from .tab import TabUpdater

log = logging.getLogger("iaa_gate.serve")

WRITE_BATCH = 200
"""Most tasks written per step (a reconcile writes all): newer events are applied and scored
between batches, so a burst does not hold back the flags of the next submissions."""
REPORT_BATCH = 8
"""Most tasks per step whose flags a report found different (review priorities, scores that
drifted with the others'): two rounds of the write-back's requests in flight."""

Entries = Callable[[Iterable[TaskId]], dict[TaskId, dict[str, FieldFlag]]]
"""The running sums' flags of some tasks, by field."""


class FlagWriter:
    """Writes flags through ``sink`` (the Label Studio sink without the tab, which ``tab``
    writes), counting in ``counters``; ``pending``: tasks to write → the arrival of their first
    event (None: the report found them different); ``summary``: what the last write did;
    ``overlap``: sets the overlap after each report (:meth:`after`); ``consensus``: whether
    the consensus predictions are written, after the flags (:meth:`_consensus`)."""

    def __init__(self, sink: LabelStudioFlags, tab: TabUpdater | None, counters: Counters) -> None:
        wanted = sink.config.overlap  # set once a report, not with each task's flags (after)
        self.overlap = None if wanted is None else LabelStudioOverlap(sink.source, wanted)
        # the predictions apart from the flags: a prediction's id recorded in the meta the
        # flags just wrote is no edit in Label Studio, and each write is recorded in the state
        self.consensus = sink.config.consensus
        alone = {"overlap": None, "consensus": False}
        self.sink = replace(sink, config=sink.config.model_copy(update=alone))
        self.tab = tab
        self.counters = counters
        self.pending: dict[int, float | None] = {}
        self.reported: dict[int, TaskFlag | None] = {}  # the report's entries, to write
        self.deferred: set[int] = set()  # each step a report: tasks left for the next step
        self.summary: Writeback | None = None

    def after(self, outcome: Outcome) -> Writeback | None:
        """What the write-back did for the report ``outcome``: the flags' summary and, with
        ``overlap``, the overlap of the tasks not yet labelled, set now (one annotator once
        every interval is narrow enough); a failed listing is tried again at the next report."""
        if self.overlap is None:
            return self.summary
        warnings: list[str] = []
        overlap = self.overlap.apply(outcome.results, warnings=warnings)
        for warning in warnings:
            log.warning("%s", warning)
        summary = self.summary or Writeback(
            target="label-studio", project=self.sink.source.project_id
        )
        return msgspec.structs.replace(summary, overlap=overlap)

    def left(self, dirty: Iterable[int]) -> int:
        """How many tasks are left to write (``dirty``: the state's changed tasks), and the
        tab's update under way."""
        return len(set(dirty) | self.deferred | set(self.pending)) + self._tab_busy()

    def forget(self) -> None:
        """Drop what is pending (the running sums are off: the next report says it again)."""
        self.pending = {}

    def queue(self, moved: set[int], changed: dict[int, float]) -> None:
        """The running sums moved the flags of ``moved`` tasks, ``changed`` by events."""
        for t in moved:
            self.pending.setdefault(t, changed.get(t))
            self.reported.pop(t, None)  # the running sums say more recently

    def write_report(
        self, state: State, outcome: Outcome, dirty: dict[int, float], *, full: bool
    ) -> bool:
        """Each step a report: write the ``dirty`` tasks' flags and those whose status changed
        (every flag that differs when ``full``, at most :data:`WRITE_BATCH` otherwise), the tab
        alongside; whether some are left."""
        self.pending, self.deferred, self.counters.deferred = {}, set(), 0
        wanted = entries(outcome.results, self.sink.digest)
        shown = state.all_meta(self.sink.config.meta_key)

        def status(entry: object) -> object:
            return entry.get("status") if isinstance(entry, dict) else None

        def wanted_status(t: int) -> str | None:
            flag = wanted.get(t)
            return flag.status if flag is not None else None

        changed = sorted((t for t in dirty if t in shown), key=lambda t: dirty[t])
        flipped = [t for t, e in shown.items() if full or status(e) != wanted_status(t)]
        todo = list(dict.fromkeys([*changed, *flipped]))  # the oldest changes first
        deferred = set(todo[WRITE_BATCH:]) if not full else set()
        tasks = state.pulled(
            (t for t in todo if t not in deferred), data=self.sink.config.data_flags
        )
        seen = {t: (id(task.predictions), id(task.meta)) for t, task in tasks.items()}
        disputed = sorted(t for t, e in wanted.items() if e.disputed)
        tab = self.tab.start(outcome.results, disputed) if self.tab is not None else None
        sink = replace(self.sink, tasks=tasks)
        try:
            changes, _, _ = sink.plan(outcome.results)
            summary = sink.apply(outcome.results)
            if tab is not None and self.tab is not None:
                summary = summary.with_view(self.tab.end(tab, disputed))
        except LabelStudioError as exc:
            log.warning("flags not written: %s", exc.message)
            return True
        self.summary = summary
        written = [t for t in dirty if t not in deferred]
        left = self._settle(state, tasks, changes, written, seen)
        when = now()
        for t in written:
            if t not in left:
                self.counters.lags.observe(when, dirty[t])
        self._counted(state, summary.done or 0, summary.warnings, left)
        if self.consensus:  # the same tasks' predictions, merged into what was just written
            self._consensus(state, outcome, [t for t in todo if t not in deferred])
        self.counters.deferred = len(deferred)
        self.deferred = deferred
        return bool(left or deferred)

    def plan(self, state: State, outcome: Outcome, dirty: dict[int, float]) -> bool:
        """With running sums: the tasks whose flags differ from the report's become pending
        (written by the live steps, the changed ones first); the consensus predictions that
        differ are written now. Whether some are pending."""
        wanted = entries(outcome.results, self.sink.digest)
        self.pending, self.reported, settled = {}, {}, []
        for t, shown in state.all_meta(self.sink.config.meta_key).items():
            if not shows_same(shown, wanted.get(t)):  # the batch run's rule: same plan after
                self.reported[t] = wanted.get(t)
                self.pending[t] = dirty.get(t)
            elif t in dirty:
                settled.append(t)
        state.clean(settled)
        when = now()
        for t in settled:
            self.counters.lags.observe(when, dirty[t])
        if self.consensus:
            disputed = {int(u.id) for r in outcome.results.values() for u in r.disputed}
            self._consensus(state, outcome, disputed | state.with_predictions())
        self.counters.deferred = len(self.pending)
        return bool(self.pending)

    def write_pending(self, state: State, sums: Entries) -> bool:
        """Write the pending tasks' flags: the :data:`WRITE_BATCH` oldest changes (as the
        running sums say them: ``sums``), then :data:`REPORT_BATCH` of what the last report
        found different, so a report's writes never hold back a new submission's for long.
        Whether some are still pending."""
        if not self.pending:
            self.counters.to_write, self.counters.deferred = self._tab_busy(), 0
            return False
        fresh = sorted((s, t) for t, s in self.pending.items() if s is not None)
        later = [t for t, s in self.pending.items() if s is None][:REPORT_BATCH]
        batch = [t for _, t in fresh[:WRITE_BATCH]] + later
        tasks = state.pulled(batch, data=self.sink.config.data_flags)
        reported = {t: self.reported[t] for t in batch if t in self.reported}
        own = [t for t in batch if t not in reported]
        wanted = {t: entry(f, self.sink.digest) for t, f in sums(own).items()}
        wanted.update({t: e for t, e in reported.items() if e is not None})
        try:
            changes, summary = replace(self.sink, tasks=tasks).write_entries(wanted)
        except LabelStudioError as exc:
            log.warning("flags not written: %s", exc.message)
            self.counters.deferred = 0
            return True
        left = self._settle(state, tasks, changes, batch, {})
        when = now()
        for t in batch:
            if t not in left:
                self.reported.pop(t, None)
                since = self.pending.pop(t)
                if since is not None:
                    self.counters.lags.observe(when, since)
        self._counted(state, summary.done or 0, summary.warnings, left)
        self.counters.to_write = len(self.pending) + self._tab_busy()
        self.counters.deferred = 0 if left else len(self.pending)
        return bool(self.pending)

    def _tab_busy(self) -> int:
        return int(self.tab is not None and self.tab.busy)

    def _consensus(self, state: State, outcome: Outcome, scope: Iterable[int]) -> None:
        """Write the consensus predictions of the tasks in ``scope`` that differ from the
        report's, and record each write in the state (a task whose prediction is not recorded
        would keep it when its dispute ends)."""
        tasks = state.pulled(scope, data=False)
        seen = {t: (id(task.predictions), id(task.meta)) for t, task in tasks.items()}
        warnings: list[str] = []
        writer = ConsensusPredictions(
            self.sink.source, self.sink.round, tasks=tasks, meta_key=self.sink.config.meta_key
        )
        try:
            done = writer.apply(outcome.results, dry_run=False, warnings=warnings)
        except LabelStudioError as exc:
            log.warning("consensus not written: %s", exc.message)
            return
        for warning in warnings:
            log.warning("consensus: %s", warning)
        self._settle(state, tasks, [], [], seen)
        was = self.summary or Writeback(target="label-studio")
        self.summary = msgspec.structs.replace(was, consensus=done)

    def _counted(self, state: State, done: int, warnings: list[str], left: set[int]) -> None:
        """Count a write's ``done`` tasks and log its ``warnings``; read the tasks ``left``
        again."""
        self.counters.flags_written += int(done)
        for warning in warnings:
            log.warning("write-back: %s", warning)
        if left:
            self._reread(state, left)

    def _settle(
        self,
        state: State,
        tasks: dict[TaskId, PulledTask],
        changes: list[Change],
        written: list[int],
        seen: dict[Any, tuple[int, int]],
    ) -> set[int]:
        """Record what was written to ``tasks`` (the flags of ``changes``; the consensus
        predictions, and the meta recording their ids, of tasks whose list or meta is no
        longer the one ``seen`` had, by ``id``) and clean
        the ``written`` ones; those left (a write failed, or the task was edited in Label
        Studio meanwhile: read again before the next try)."""
        planned = {c.id: c for c in changes}
        left: set[int] = set()
        with state.transaction():
            for t, task in tasks.items():
                change = planned.get(t)
                if change is not None and task.meta != change.meta:
                    left.add(int(t))
                    continue
                was = seen.get(t)
                predictions = (
                    task.predictions if was is None or id(task.predictions) != was[0] else None
                )
                recorded = was is not None and id(task.meta) != was[1]  # its prediction's id
                if change is not None or predictions is not None or recorded:
                    data = task.data if change is not None and change.data else None
                    state.set_meta(int(t), task.meta, data, predictions)
            state.clean(t for t in written if t not in left)
        return left

    def _reread(self, state: State, tasks: set[int]) -> None:
        """Read ``tasks`` again (their meta changed in Label Studio), so the next try merges
        into what is there now; each stays dirty until written."""
        for t in sorted(tasks):
            try:
                body = self.sink.source.api.request(
                    "GET", f"api/tasks/{t}/", f"re-reading task {t}", absent=(404,)
                )
            except LabelStudioError as exc:
                log.warning("task %s: %s", t, exc.message)
                continue
            if isinstance(body, dict):
                state.set_meta(t, body.get("meta") or {}, body.get("data") or {})
