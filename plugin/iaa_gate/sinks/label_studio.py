"""Flags in a live Label Studio project, where people adjudicate.

For every evaluated task, a namespaced entry in the task's ``meta`` (``meta[meta_key]``): the
overall status, the per-field score and status, the labels in conflict, the run time and a hash of
the config. Optionally a flat flag and score merged into ``data`` (Data Manager columns), and a Data
Manager tab that shows exactly the disputed tasks.

Label Studio's PATCH replaces the whole ``meta`` (and ``data``) dict, so each task gets one PATCH of
the dicts pulled with the tasks, merged: other keys are kept as they were. A task is written only
when its entry changed (the run time aside), so a second run on the same data writes nothing.

Right before its PATCH each task is read again: a task someone changed since the pull is skipped
with a warning (their edit wins), and a task another run already flagged the same way is left as
it is. A PATCH is all or nothing on the server, so an interrupted write-back leaves every task
either as it was or fully written, and a re-run completes it.

With ``consensus``, the predictions are written first and a task's flag PATCH also records its
prediction's id; the tasks it did not write get the id merged into their meta as it is then.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

import msgspec
from msgspec import UNSET

from ..adapters import ReadOptions, Source
from ..adapters.label_studio.client import LabelStudioError, selected_tasks
from ..adapters.label_studio.project import LabelStudioProject, PulledTask
from ..adapters.label_studio.rules import CONSENSUS_PREDICTION_KEY, plain_id
from ..adapters.label_studio.wire import (
    FilterItem,
    Filters,
    IdRange,
    Task,
    TaskPatch,
    View,
    ViewData,
    is_task,
    is_view,
)
from ..config import Config, WriteBackConfig
from ..core import progress
from ..core.errors import UsageError
from ..evaluation.lifecycle import FINAL, STATES
from ..evaluation.results import FieldResult
from ..evaluation.sections import ConsensusWriteback, FailedTask, Planned, Writeback
from ..model import RoundFilter, TaskId
from . import Sink, register
from .label_studio_consensus import ConsensusPredictions, as_read_back, read_task
from .label_studio_overlap import LabelStudioOverlap

RUN_KEY = "run"
"""The entry's time stamp: not compared, kept when nothing else changed."""
MAX_VIEW_ITEMS = 900
"""Above this many filter items the tab filters on the flag instead of task ids (SQLite caps an
expression at a depth of 1000)."""
MAX_CONSECUTIVE_ERRORS = 3
"""Tasks in a row whose write failed on connection or server errors (each after its retries),
after which the remaining writes are given up."""
WORKERS = 4
"""PATCHes in flight at once: each waits mostly on the network and the server."""
DEFAULT_VIEW = "Default"
"""The tab the Label Studio UI creates in a project that has none, and iaa-gate creates there
before its own."""
TARGET = "label-studio"
"""The write-back summary's ``target``."""


def _id_filter(operator: str, value: int | IdRange) -> FilterItem:
    """A Data Manager filter on task ids."""
    return {"filter": "filter:tasks:id", "operator": operator, "type": "Number", "value": value}


NO_TASK = _id_filter("equal", 0)


def config_hash(config: Config) -> str:
    """A short hash of what decides the verdicts: the fields and the round (never a secret)."""
    text = config.model_dump_json(include={"fields", "round"}, by_alias=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _score(x: float) -> float | None:
    return None if x != x else round(float(x), 4)  # NaN (too few ratings) → null


class FlagRegion(msgspec.Struct):
    """A disputed region a field's flag names: the disagreement's ``kind``, the ``annotator``
    whose region it is (its ``id`` and ``label``) and the ``other`` annotator."""

    kind: str
    annotator: str
    id: int | str
    label: str | None
    other: str


class FieldFlag(msgspec.Struct, omit_defaults=True):
    """One field's part of a task's flag: its ``status`` and ``score`` (None: too few ratings);
    when disputed, the ``labels`` by annotator, the dispute's ``state``, its review ``priority``
    (none once settled or resolved) and, for a region field, the disputed ``regions``."""

    status: str
    score: float | None
    state: str | None = None
    priority: float | None = None
    labels: dict[str, object] | None = None
    regions: list[FlagRegion] | None = None


class TaskFlag(msgspec.Struct, omit_defaults=True):
    """iaa-gate's entry in a task's ``meta`` (under ``writeback.meta_key``), without the run
    time: the task's ``status`` (its worst field's), whether it waits for someone
    (``disputed``), its lowest ``score``, each field's :class:`FieldFlag`, the ``config`` hash,
    the least final ``state`` and highest ``priority`` of its fields, the annotations asked for
    when it was routed (``route``) and the id of its ``consensus_prediction``."""

    status: str
    disputed: bool
    score: float | None
    fields: dict[str, FieldFlag]
    config: str
    state: str | None = None
    priority: float | None = None
    route: int | None = None
    consensus_prediction: int | str | None = None

    def as_meta(self) -> dict[str, object]:
        """The entry as it reads back from Label Studio's JSON (see :func:`as_read_back`): what
        is compared with a task's entry and written into its ``meta``.

        Returns
        -------
        dict
            The JSON object (the fields left at their default are left out).

        Examples
        --------
        >>> flag = TaskFlag("agreed", False, 0.9, {"s": FieldFlag("agreed", 0.9)}, "c0ffee")
        >>> sorted(flag.as_meta())  # no state, no priority: left out
        ['config', 'disputed', 'fields', 'score', 'status']
        >>> flag.as_meta()["fields"]
        {'s': {'status': 'agreed', 'score': 0.9}}
        """
        plain = as_read_back(msgspec.to_builtins(self, enc_hook=_like_json))
        assert isinstance(plain, dict)  # a Struct encodes as an object
        return plain


def _like_json(value: object) -> object:
    """What :func:`json.dumps` with ``default=str`` writes for a value msgspec does not encode
    (a numpy float is a float, anything else its text), so an entry is written as before."""
    return float(value) if isinstance(value, float) else str(value)


def entries(results: dict[str, FieldResult], digest: str) -> dict[TaskId, TaskFlag]:
    """The desired ``meta`` entry of every evaluated task, without the run time. A disputed
    field's ``state`` (with ``adjudication:``) is in its entry; a settled or resolved one has
    no review priority."""
    per_task: dict[TaskId, dict[str, FieldFlag]] = {}
    for name in sorted(results):
        states = results[name].states or {}
        for u in results[name].units:
            f = FieldFlag(u.status, _score(u.score))
            if u.status == "disputed":
                state = states.get(u.id)
                f.state = state
                if u.priority is not None and state not in FINAL:
                    f.priority = u.priority
                f.labels = u.labels
                if u.details is not None:  # region fields: name the disputed regions
                    f.regions = [
                        FlagRegion(d.kind, d.annotator, d.region["id"], d.region["label"], d.other)
                        for d in u.details.disagreements
                    ]
            per_task.setdefault(u.id, {})[name] = f
    return {task: entry(fields, digest) for task, fields in per_task.items()}


def entry(fields: dict[str, FieldFlag], digest: str) -> TaskFlag:
    """One task's ``meta`` entry from its fields' flags."""
    statuses = {f.status for f in fields.values()}
    status = next(s for s in ("disputed", "agreed", "too_few") if s in statuses)
    scores = [f.score for f in fields.values() if f.score is not None]
    priorities = [f.priority for f in fields.values() if f.priority is not None]
    states = [f.state for f in fields.values() if f.state is not None]
    waiting = [f for f in fields.values() if f.status == "disputed" and f.state not in FINAL]
    out = TaskFlag(
        status,
        bool(waiting),  # a settled or resolved dispute needs no one: no flag
        min(scores) if scores else None,
        fields,
        digest,
    )
    if states:  # the task's: its least final field's
        out.state = min(states, key=STATES.index)
    if priorities:  # the review order: the least settled field's
        out.priority = max(priorities)
    return out


ROUTE_KEY = "route"
"""The entry's memory of routing: the annotations (``overlap``) asked for when the task was
re-opened, so it is never re-opened twice for the same missing answer."""
SEEN_STEP = 0.05
"""A review priority that moved less than this is not rewritten (what a person sees is the
same); a score alone never is."""


def _seen(entry: Mapping[str, object]) -> tuple[dict[str, object], list[object]]:
    """What a person sees of an entry (as read back: JSON), apart from the priorities; and the
    priorities (the task's, then each field's by name)."""
    hidden = (RUN_KEY, "score", "priority", ROUTE_KEY, CONSENSUS_PREDICTION_KEY)
    fields = _dict(entry.get("fields"))
    shown: dict[str, object] = {k: v for k, v in entry.items() if k not in hidden}
    shown["fields"] = {
        n: {k: v for k, v in f.items() if k not in hidden} if isinstance(f, dict) else f
        for n, f in fields.items()
    }
    priorities = [entry.get("priority")]
    priorities += [
        f.get("priority") if isinstance(f, dict) else None for _, f in sorted(fields.items())
    ]
    return shown, priorities


def _routed(entry: TaskFlag, overlap: int) -> TaskFlag:
    """``entry`` of a task this write re-opens for ``overlap`` annotations: its open fields
    are routed now (the next run reads them back as routed until the answers come)."""
    fields = {
        n: msgspec.structs.replace(f, state="routed") if f.state == "open" else f
        for n, f in entry.fields.items()
    }
    return msgspec.structs.replace(entry, fields=fields, state="routed", route=overlap)


def _near(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) < SEEN_STEP


def shows_same(old: object, new: TaskFlag | None) -> bool:
    """Whether a task whose entry is ``old`` shows a person what ``new`` says: the same
    status, state, labels and flags, and each review priority within :data:`SEEN_STEP` (a
    score alone is never a change). The batch run and the live service both write a task only
    when this is false, so after the service a batch run plans no write.

    Parameters
    ----------
    old
        The entry the task has now (anything: a task may hold what someone wrote there).
    new
        The wanted entry (None: no entry).

    Returns
    -------
    bool

    Examples
    --------
    >>> e = TaskFlag("disputed", True, 0.2, {}, "c0ffee", priority=0.36)
    >>> shows_same({**e.as_meta(), "priority": 0.3774, "score": 0.25}, e)
    True
    >>> shows_same({**e.as_meta(), "priority": 0.45}, e)
    False
    """
    return _shows(old, None if new is None else new.as_meta())


def _shows(old: object, new: Mapping[str, object] | None) -> bool:
    """:func:`shows_same` of the wanted entry as the task would hold it
    (:meth:`TaskFlag.as_meta`)."""
    if new is None:
        return old is None
    if not isinstance(old, dict):
        return False
    (a, pa), (b, pb) = _seen(old), _seen(new)
    return a == b and len(pa) == len(pb) and all(map(_near, pa, pb))


@dataclass
class Change:
    """One task to write: the full merged ``meta``, if it changed ``data``, and when the
    task is routed to more annotators its new ``overlap`` (sent with ``is_labeled``)."""

    id: TaskId
    was: str | None
    status: str | None
    meta: dict[str, object]
    data: dict[str, object] | None = None
    overlap: int | None = None


def _unstamped(meta: dict[str, object], key: str) -> dict[str, object]:
    """``meta`` with the entry's run time left out (what two runs with one verdict share)."""
    entry = meta.get(key)
    if not isinstance(entry, dict):
        return meta
    return {**meta, key: {k: v for k, v in entry.items() if k != RUN_KEY}}


def _with_prediction(change: Change, key: str, consensus: ConsensusPredictions) -> Change:
    """``change`` with its entry recording the id of the task's own prediction, just written
    (one PATCH for both; the entry as planned keeps the id it had)."""
    entry = change.meta.get(key)
    if not isinstance(entry, dict) or change.id not in consensus.scope:
        return change
    own = consensus.prediction_id(change.id)
    kept = {k: v for k, v in entry.items() if k != CONSENSUS_PREDICTION_KEY}
    new = kept if own is None else {**kept, CONSENSUS_PREDICTION_KEY: own}
    return replace(change, meta={**change.meta, key: new})


def _dict(value: object) -> dict[str, object]:
    """``value`` if a JSON object (anything else: none), to read what someone may have
    written anywhere."""
    return value if isinstance(value, dict) else {}


@dataclass
class LabelStudioFlags:
    """The write-back sink for a live project; ``source`` is the loaded :class:`LabelStudioProject`
    (its pulled ``meta``/``data`` are merged into, never fetched again). ``tasks``: the tasks
    to write, when not the source's pulled ones (the live service passes those it changed)."""

    source: LabelStudioProject
    config: WriteBackConfig
    digest: str
    round: RoundFilter = field(default_factory=RoundFilter)
    now: datetime | None = None
    tasks: dict[TaskId, PulledTask] | None = None

    @property
    def pulled(self) -> dict[TaskId, PulledTask]:
        """The tasks in scope as pulled (and updated as they are written)."""
        return self.source.tasks if self.tasks is None else self.tasks

    @classmethod
    def for_run(cls, source: LabelStudioProject, config: Config) -> LabelStudioFlags:
        start, end = config.round.bounds()
        return cls(
            source,
            config.writeback,
            config_hash(config),
            RoundFilter(start, end, config.round.ids()),
        )

    @property
    def flag_keys(self) -> tuple[str, str, str]:
        """The ``data`` keys of ``data_flags``: disputed, score and the review priority."""
        key = self.config.meta_key
        return f"{key}_disputed", f"{key}_score", f"{key}_priority"

    def plan(self, results: dict[str, FieldResult]) -> tuple[list[Change], int, list[TaskId]]:
        """``(changes, unchanged, disputed task ids)``.

        Tasks in scope (pulled and in the round) without a result lose an old entry; with a
        date window, only tasks with a result are in scope.
        """
        return self.plan_entries(entries(results, self.digest))

    def plan_entries(
        self, wanted: Mapping[TaskId, TaskFlag]
    ) -> tuple[list[Change], int, list[TaskId]]:
        """:meth:`plan` from the desired entries (see :func:`entries`) of the tasks in scope."""
        stamp = (self.now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
        key = self.config.meta_key
        dated = self.round.start is not None or self.round.end is not None
        changes: list[Change] = []
        unchanged = 0
        for task, pulled in self.pulled.items():
            if task not in wanted and (dated or not self.round.keeps_task(task)):
                continue
            entry = wanted.get(task)
            old = pulled.meta.get(key)
            asked = _dict(old).get(ROUTE_KEY)
            if entry is not None and isinstance(asked, int):
                entry = msgspec.structs.replace(entry, route=asked)  # the memory stays with it
            own = _dict(old).get(CONSENSUS_PREDICTION_KEY)
            if entry is not None and plain_id(own):  # so does the consensus prediction's id
                entry = msgspec.structs.replace(entry, consensus_prediction=own)
            overlap = self._overlap(entry, pulled, asked)
            if entry is not None and overlap is not None:
                entry = _routed(entry, overlap)
            shown = None if entry is None else entry.as_meta()  # as the task will hold it
            meta_same = _shows(old, shown) and overlap is None
            data = self._data(task, shown, refresh=not meta_same)
            if meta_same and data is None:
                unchanged += 1
                continue
            meta = {k: v for k, v in pulled.meta.items() if k != key}
            if shown is not None:
                meta[key] = {**shown, RUN_KEY: stamp} if not meta_same else old
            was = _dict(old).get("status")
            was = was if isinstance(was, str) else None
            status = entry.status if entry is not None else None
            changes.append(Change(task, was, status, meta, data, overlap))
        changes.sort(key=lambda c: (isinstance(c.id, str), c.id))
        disputed = sorted(
            (t for t, e in wanted.items() if e.disputed), key=lambda t: (isinstance(t, str), t)
        )
        return changes, unchanged, disputed

    def _overlap(self, entry: TaskFlag | None, pulled: PulledTask, asked: object) -> int | None:
        """The ``overlap`` to re-open the task with (``writeback.route``), else None.

        An open dispute with fewer than ``max_annotations`` annotations asks for ``extra`` more
        (never twice for the same missing answer: only above what was ``asked``); a routed one
        whose override Label Studio dropped (a project-level overlap change) gets it again."""
        route = self.config.route
        if route is None or entry is None or not entry.disputed:
            return None
        n, state = pulled.annotators, entry.state
        if state == "open" and n < route.max_annotations:
            want = min(n + route.extra, route.max_annotations)
            return want if not isinstance(asked, int) or want > asked else None
        if state == "routed" and isinstance(asked, int) and n < asked:
            dropped = pulled.overlap is not None and pulled.overlap < asked
            return asked if dropped else None
        return None

    def _data(
        self, task: TaskId, entry: Mapping[str, object] | None, refresh: bool = True
    ) -> dict[str, object] | None:
        """The merged ``data`` if its flags must change, else None (``entry``: the wanted entry
        as the task will hold it; ``refresh``: the entry is rewritten, so the score is brought
        up to date too; else only a flag or a priority that a person would see move, as
        :func:`shows_same` says)."""
        if not self.config.data_flags:
            return None
        data = self.pulled[task].data
        if data is None:
            raise UsageError("writeback.data_flags needs the task data pulled (pull_data)")
        keys = flag, score, priority = self.flag_keys
        if entry is None:
            if not any(k in data for k in keys):
                return None
            return {k: v for k, v in data.items() if k not in keys}
        want = {flag: entry["disputed"], score: entry["score"], priority: entry.get("priority")}
        if all(k in data and data[k] == v and type(data[k]) is type(v) for k, v in want.items()):
            return None
        same_flag = flag in data and data[flag] is want[flag]
        if (
            not refresh
            and same_flag
            and score in data
            and _near(data.get(priority), want[priority])
        ):
            return None
        return {**data, **want}

    def apply(self, results: dict[str, FieldResult], *, dry_run: bool = False) -> Writeback:
        """Write the flags; the summary counts what happened and lists ``warnings`` (gathered
        here from the writes, the tab and the consensus predictions, then typed)."""
        changes, unchanged, disputed = self.plan(results)
        consensus: ConsensusPredictions | None = None
        consensus_warnings: list[str] = []
        proposals: ConsensusWriteback | None = None
        if self.config.consensus:  # the predictions first: each task's flag write records its id
            consensus = ConsensusPredictions(
                self.source, self.round, tasks=self.tasks, meta_key=self.config.meta_key
            )
            proposals = consensus.apply(
                results, dry_run=dry_run, warnings=consensus_warnings, record=False
            )
        if dry_run:
            planned = [Planned(c.id, c.status, c.was, c.data is not None) for c in changes]
            summary = Writeback(TARGET, done=0, skipped=0, failed=0, changes=planned)
        else:
            if consensus is not None:
                changes = [_with_prediction(c, self.config.meta_key, consensus) for c in changes]
            summary = self._write(changes)
        summary = msgspec.structs.replace(
            summary,
            project=self.source.project_id,
            meta_key=self.config.meta_key,
            dry_run=dry_run,
            planned=len(changes),
            unchanged=unchanged,
            disputed=len(disputed),
            routed=sum(c.overlap is not None for c in changes),
        )
        warnings = summary.warnings  # the tab's, the predictions' and the overlap's join them
        if self.config.view is not None:
            summary = summary.with_view(self._view(disputed, dry_run=dry_run, warnings=warnings))
        if consensus is not None and proposals is not None:
            summary.consensus = proposals
            if not dry_run:  # the tasks the flags did not write (unchanged, skipped, failed)
                consensus.record(consensus_warnings)
            warnings += consensus_warnings
        if self.config.overlap is not None:
            overlap = LabelStudioOverlap(self.source, self.config.overlap)
            summary.overlap = overlap.apply(results, dry_run=dry_run, warnings=warnings)
        return summary

    def write_entries(self, wanted: Mapping[TaskId, TaskFlag]) -> tuple[list[Change], Writeback]:
        """Write the pulled tasks' entries that differ from ``wanted`` (the live service's
        changed tasks): the changes planned and the write's counts and warnings. The tasks are
        read again in one request (:meth:`read_tasks`) rather than one GET each."""
        changes, _, _ = self.plan_entries(wanted)
        if not changes:
            return changes, self._write(changes)
        return changes, self._write(changes, self.read_tasks([c.id for c in changes]))

    def read_tasks(self, ids: list[TaskId]) -> dict[TaskId, Task]:
        """The tasks ``ids`` as they are now (``id``, ``meta``, ``data``), in one request: the
        tasks list filtered to them (the Data Manager's selected items)."""
        params = {"project": self.source.project_id, "fields": "all", "include": "id,meta,data"}
        tasks = selected_tasks(self.source.api, [int(t) for t in ids], params)
        return {t["id"]: t for t in tasks if is_task(t)}

    def show(self, disputed: list[TaskId]) -> Writeback:
        """Bring the Data Manager tab to ``disputed`` (as :meth:`apply` does): the summary's
        tab fields and warnings."""
        warnings: list[str] = []
        tab = self._view(disputed, dry_run=False, warnings=warnings)
        return msgspec.structs.replace(tab, warnings=warnings)

    def _write_one(self, change: Change, read: Task | None = None) -> str:
        """Re-read the task (unless ``read`` has it as it is now), then PATCH it unless it
        changed since the pull: ``written``, ``already`` (another run wrote the same flags) or
        ``edited`` (skipped). A re-read that is not the task (an empty body, another task) is an
        error, never an edit."""
        api, key = self.source.api, self.config.meta_key
        pulled = self.pulled[change.id]
        path = f"api/tasks/{change.id}/"
        now = read if read is not None else read_task(api, change.id)
        meta, data = _dict(now.get("meta")), _dict(now.get("data"))
        as_pulled = meta == pulled.meta and (change.data is None or data == pulled.data)
        if not as_pulled:
            same = _unstamped(meta, key) == _unstamped(change.meta, key)
            if same and (change.data is None or data == change.data):
                pulled.meta, pulled.data = meta, data if pulled.data is not None else None
                return "already"
            return "edited"
        body: TaskPatch = {"meta": change.meta}
        if change.data is not None:
            body["data"] = change.data
        if change.overlap is not None:  # a PATCH never recomputes is_labeled: both, consistent
            body |= {"overlap": change.overlap, "is_labeled": pulled.annotators >= change.overlap}
        api.request("PATCH", path, f"writing task {change.id}", body=body)
        pulled.meta = change.meta
        if change.data is not None:
            pulled.data = change.data
        if change.overlap is not None:
            pulled.overlap = change.overlap
        return "written"

    def _write(self, changes: list[Change], read: Mapping[TaskId, Task] | None = None) -> Writeback:
        """Write each change (:meth:`_write_one`), :data:`WORKERS` at a time; the counts and
        warnings. After :data:`MAX_CONSECUTIVE_ERRORS` tasks failed in a row on connection or
        server errors, or when the run's time budget runs out, the writes not started are given
        up (and listed as failed). ``read``: tasks already read again (:meth:`read_tasks`)."""
        done, already = 0, 0
        edited: list[TaskId] = []
        failed: list[FailedTask] = []
        in_a_row, gave_up = 0, False
        step = progress.step("write-back", len(changes), "tasks") if changes else None
        pool = ThreadPoolExecutor(max_workers=WORKERS)
        try:
            futures = {pool.submit(self._write_one, c, (read or {}).get(c.id)): c for c in changes}
            for future in as_completed(futures):
                if future.cancelled():
                    continue  # given up below, and counted there
                change = futures[future]
                if step is not None:
                    step.advance(1)
                try:
                    outcome = future.result()
                except LabelStudioError as exc:
                    failed.append(FailedTask(change.id, exc.message))
                    in_a_row = in_a_row + 1 if exc.transient else 0
                    if (in_a_row >= MAX_CONSECUTIVE_ERRORS or exc.out_of_time) and not gave_up:
                        gave_up = True
                        stopped = f"not attempted: gave up after {exc.message}"
                        failed += [
                            FailedTask(c.id, stopped) for f, c in futures.items() if f.cancel()
                        ]
                    continue
                in_a_row = 0
                if outcome == "written":
                    done += 1
                elif outcome == "already":
                    already += 1
                else:
                    edited.append(change.id)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            if step is not None:
                step.close()
        order = {c.id: n for n, c in enumerate(changes)}
        failed.sort(key=lambda f: order[f.id])
        edited.sort(key=lambda t: order[t])
        warnings = []
        if failed:
            warnings.append(
                f"write-back failed for {len(failed)} task(s) (first: task {failed[0].id}: "
                f"{failed[0].error}); a re-run writes them"
            )
        if edited:
            warnings.append(
                f"{len(edited)} task(s) changed in Label Studio since the pull and were not "
                f"written, so the edit is kept (first: task {edited[0]}); a re-run flags them"
            )
        return Writeback(
            TARGET,
            done=done,
            already_done=already,
            skipped=len(edited),
            failed=len(failed),
            warnings=warnings,
            failed_tasks=failed[:20] if failed else UNSET,
            skipped_tasks=edited[:20] if edited else UNSET,
        )

    def view_filters(self, disputed: list[TaskId]) -> Filters:
        """Data Manager filters matching exactly ``disputed`` (none: a filter matching nothing).

        Runs of consecutive ids become one range item; past :data:`MAX_VIEW_ITEMS` items the tab
        filters on the flag in ``data`` (with ``data_flags``) or in ``meta`` instead.
        """
        items: list[FilterItem] = []
        ids = sorted(int(t) for t in disputed)
        i = 0
        while i < len(ids):
            j = i
            while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
                j += 1
            if j - i >= 2:
                span: IdRange = {"min": ids[i], "max": ids[j]}
                items.append(_id_filter("in", span))
            else:
                items += [_id_filter("equal", t) for t in ids[i : j + 1]]
            i = j + 1
        if len(items) > MAX_VIEW_ITEMS:
            flag = self.flag_keys[0]
            item: FilterItem
            if self.config.data_flags:
                item = {
                    "filter": f"filter:tasks:data.{flag}",
                    "operator": "equal",
                    "type": "Boolean",
                    "value": True,
                }
            else:
                item = {
                    "filter": "filter:tasks:meta",
                    "operator": "contains",
                    "type": "String",
                    "value": '"disputed": true',
                }
            items = [item]
        return {"conjunction": "or", "items": items or [NO_TASK]}

    def _view(self, disputed: list[TaskId], *, dry_run: bool, warnings: list[str]) -> Writeback:
        """Create or update the tab in place; unchanged filters send nothing. Two runs at once may
        both create it: the copies with higher ids are deleted. The summary's tab fields."""
        title = self.config.view
        pid = self.source.project_id
        api = self.source.api
        filters = self.view_filters(disputed)
        # the review order, highest priority first: a Data Manager tab sorts on one task column
        # (compared as a number only when the tab says the column holds numbers), so only with
        # data_flags (meta is no column); equal priorities, and tabs without data_flags, keep
        # Label Studio's own order (disputed-tasks.jsonl breaks ties by score)
        want: ViewData = {"filters": filters}
        if self.config.data_flags:
            column = f"tasks:data.{self.flag_keys[2]}"
            want |= {"ordering": [f"-{column}"], "columnsDisplayType": {column: "Number"}}
        out = Writeback(TARGET, view_title=title, view_id=None)
        doing = f"saving the Data Manager tab {title!r}"
        try:
            views = self._all_views()
            mine = self._views(title, views)
            if mine:
                view = mine[0]
                out.view_id = view["id"]
                old = _dict(view.get("data"))
                if all(as_read_back(old.get(k)) == as_read_back(v) for k, v in want.items()):
                    return msgspec.structs.replace(out, view="unchanged")
                if dry_run:
                    return msgspec.structs.replace(out, view="would update")
                data = {**old, "title": title, **want}
                body = {"project": pid, "data": data}
                api.request("PATCH", f"api/dm/views/{view['id']}/", doing, body=body)
                return msgspec.structs.replace(out, view="updated")
            if dry_run:
                return msgspec.structs.replace(out, view="would create")
            if not views:  # never opened in the UI: ours alone would hide every other task
                self._create_once({"title": DEFAULT_VIEW}, f"adding the {DEFAULT_VIEW!r} tab")
            first = self._create_once({"title": title or "", **want}, doing)
            return msgspec.structs.replace(out, view_id=first["id"], view="created")
        except LabelStudioError as exc:
            warnings.append(exc.message)
            return msgspec.structs.replace(out, view="failed", view_error=exc.message)

    def _create_once(self, data: ViewData, doing: str) -> View:
        """Create the tab ``data`` describes; the oldest of that title, once the copies that
        another run created at the same time are deleted."""
        api = self.source.api
        body = {"project": self.source.project_id, "data": data}
        created = api.request("POST", "api/dm/views/", doing, body=body)
        first, *copies = self._views(data.get("title")) or [created]
        for copy in copies:
            api.request("DELETE", f"api/dm/views/{copy['id']}/", doing, absent=(404,))
        return first

    def _all_views(self) -> list[View]:
        """This project's Data Manager tabs."""
        views = self.source.api.request(
            "GET",
            "api/dm/views/",
            "listing the Data Manager tabs",
            params={"project": self.source.project_id},
        )
        return [v for v in views or [] if is_view(v)]

    def _views(self, title: str | None, views: list[View] | None = None) -> list[View]:
        """This project's tabs (of ``views``, if given) titled ``title``, oldest first."""
        views = self._all_views() if views is None else views
        mine = [v for v in views if _dict(v.get("data")).get("title") == title]
        return sorted(mine, key=lambda v: int(v["id"]))


def flags(config: Config, out_dir: Path, source: Source, options: ReadOptions) -> Sink | None:
    """Flags on the project's tasks when ``writeback.enabled``."""
    if not config.writeback.enabled:
        return None
    assert isinstance(source, LabelStudioProject), "write-back needs the pulled project"
    return LabelStudioFlags.for_run(source, config)


register("label-studio", flags)
