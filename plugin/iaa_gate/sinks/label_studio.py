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
import json
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import msgspec

from ..adapters import ReadOptions, Source
from ..adapters.label_studio.client import LabelStudioError
from ..adapters.label_studio.project import LabelStudioProject, PulledTask
from ..adapters.label_studio.rules import CONSENSUS_PREDICTION_KEY, plain_id
from ..config import Config, WriteBackConfig
from ..core import progress
from ..core.errors import UsageError
from ..evaluation.lifecycle import FINAL, STATES
from ..evaluation.results import FieldResult
from ..evaluation.sections import Writeback
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
NO_TASK = {"filter": "filter:tasks:id", "operator": "equal", "type": "Number", "value": 0}


def config_hash(config: Config) -> str:
    """A short hash of what decides the verdicts: the fields and the round (never a secret)."""
    text = config.model_dump_json(include={"fields", "round"}, by_alias=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _score(x: float) -> float | None:
    return None if x != x else round(float(x), 4)  # NaN (too few ratings) → null


def entries(results: dict[str, FieldResult], digest: str) -> dict[TaskId, dict[str, Any]]:
    """The desired ``meta`` entry of every evaluated task, without the run time. A disputed
    field's ``state`` (with ``adjudication:``) is in its entry; a settled or resolved one has
    no review priority."""
    per_task: dict[TaskId, dict[str, dict[str, Any]]] = {}
    for name in sorted(results):
        states = results[name].states or {}
        for u in results[name].units:
            f: dict[str, Any] = {"status": u.status, "score": _score(u.score)}
            if u.status == "disputed":
                state = states.get(u.id)
                if state is not None:
                    f["state"] = state
                if u.priority is not None and state not in FINAL:
                    f["priority"] = u.priority
                f["labels"] = u.labels
                if u.details is not None:  # region fields: name the disputed regions
                    f["regions"] = [
                        {
                            "kind": d.kind,
                            "annotator": d.annotator,
                            "id": d.region["id"],
                            "label": d.region["label"],
                            "other": d.other,
                        }
                        for d in u.details.disagreements
                    ]
            per_task.setdefault(u.id, {})[name] = f
    return {task: entry(fields, digest) for task, fields in per_task.items()}


def entry(fields: dict[str, dict[str, Any]], digest: str) -> dict[str, Any]:
    """One task's ``meta`` entry from its fields' ``{status, score, [priority, labels…]}``."""
    statuses = {f["status"] for f in fields.values()}
    status = next(s for s in ("disputed", "agreed", "too_few") if s in statuses)
    scores = [f["score"] for f in fields.values() if f["score"] is not None]
    priorities = [f["priority"] for f in fields.values() if "priority" in f]
    states = [f["state"] for f in fields.values() if "state" in f]
    waiting = [
        f for f in fields.values() if f["status"] == "disputed" and f.get("state") not in FINAL
    ]
    out = {
        "status": status,
        "disputed": bool(waiting),  # a settled or resolved dispute needs no one: no flag
        "score": min(scores) if scores else None,
        "fields": fields,
        "config": digest,
    }
    if states:  # the task's: its least final field's
        out["state"] = min(states, key=STATES.index)
    if priorities:  # the review order: the least settled field's
        out["priority"] = max(priorities)
    return dict(as_read_back(out))


ROUTE_KEY = "route"
"""The entry's memory of routing: the annotations (``overlap``) asked for when the task was
re-opened, so it is never re-opened twice for the same missing answer."""
SEEN_STEP = 0.05
"""A review priority that moved less than this is not rewritten (what a person sees is the
same); a score alone never is."""


def _seen(entry: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """What a person sees of an entry, apart from the priorities; and the priorities (the
    task's, then each field's by name)."""
    hidden = (RUN_KEY, "score", "priority", ROUTE_KEY, CONSENSUS_PREDICTION_KEY)
    fields = entry.get("fields")
    fields = fields if isinstance(fields, dict) else {}
    shown = {k: v for k, v in entry.items() if k not in hidden and k != "fields"}
    shown["fields"] = {
        n: {k: v for k, v in f.items() if k not in hidden} if isinstance(f, dict) else f
        for n, f in fields.items()
    }
    priorities = [entry.get("priority")]
    priorities += [
        f.get("priority") if isinstance(f, dict) else None for _, f in sorted(fields.items())
    ]
    return shown, priorities


def _routed(entry: dict[str, Any], overlap: int) -> dict[str, Any]:
    """``entry`` of a task this write re-opens for ``overlap`` annotations: its open fields
    are routed now (the next run reads them back as routed until the answers come)."""
    fields = {
        n: {**f, "state": "routed"} if f.get("state") == "open" else f
        for n, f in entry["fields"].items()
    }
    return {**entry, "fields": fields, "state": "routed", ROUTE_KEY: overlap}


def _near(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) < SEEN_STEP


def shows_same(old: Any, new: dict[str, Any] | None) -> bool:
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
    >>> e = {"status": "disputed", "disputed": True, "priority": 0.36, "score": 0.2}
    >>> shows_same({**e, "priority": 0.3774, "score": 0.25}, e)
    True
    >>> shows_same({**e, "priority": 0.45}, e)
    False
    """
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
    meta: dict[str, Any]
    data: dict[str, Any] | None = None
    overlap: int | None = None


def _unstamped(meta: dict[str, Any], key: str) -> dict[str, Any]:
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


def _dict(value: Any) -> dict[str, Any]:
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
        self, wanted: dict[TaskId, dict[str, Any]]
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
            asked = old.get(ROUTE_KEY) if isinstance(old, dict) else None
            if entry is not None and isinstance(asked, int):
                entry = {**entry, ROUTE_KEY: asked}  # the memory stays with the entry
            own = old.get(CONSENSUS_PREDICTION_KEY) if isinstance(old, dict) else None
            if entry is not None and plain_id(own):  # so does the consensus prediction's id
                entry = {**entry, CONSENSUS_PREDICTION_KEY: own}
            overlap = self._overlap(entry, pulled, asked)
            if entry is not None and overlap is not None:
                entry = _routed(entry, overlap)
            meta_same = shows_same(old, entry) and overlap is None
            data = self._data(task, entry, refresh=not meta_same)
            if meta_same and data is None:
                unchanged += 1
                continue
            meta = {k: v for k, v in pulled.meta.items() if k != key}
            if entry is not None:
                meta[key] = {**entry, RUN_KEY: stamp} if not meta_same else old
            was = old.get("status") if isinstance(old, dict) else None
            status = entry["status"] if entry is not None else None
            changes.append(Change(task, was, status, meta, data, overlap))
        changes.sort(key=lambda c: (isinstance(c.id, str), c.id))
        disputed = sorted(
            (t for t, e in wanted.items() if e["disputed"]), key=lambda t: (isinstance(t, str), t)
        )
        return changes, unchanged, disputed

    def _overlap(self, entry: dict[str, Any] | None, pulled: PulledTask, asked: Any) -> int | None:
        """The ``overlap`` to re-open the task with (``writeback.route``), else None.

        An open dispute with fewer than ``max_annotations`` annotations asks for ``extra`` more
        (never twice for the same missing answer: only above what was ``asked``); a routed one
        whose override Label Studio dropped (a project-level overlap change) gets it again."""
        route = self.config.route
        if route is None or entry is None or not entry.get("disputed"):
            return None
        n, state = pulled.annotators, entry.get("state")
        if state == "open" and n < route.max_annotations:
            want = min(n + route.extra, route.max_annotations)
            return want if not isinstance(asked, int) or want > asked else None
        if state == "routed" and isinstance(asked, int) and n < asked:
            dropped = pulled.overlap is not None and pulled.overlap < asked
            return asked if dropped else None
        return None

    def _data(
        self, task: TaskId, entry: dict[str, Any] | None, refresh: bool = True
    ) -> dict[str, Any] | None:
        """The merged ``data`` if its flags must change, else None (``refresh``: the entry is
        rewritten, so the score is brought up to date too; else only a flag or a priority that
        a person would see move, as :func:`shows_same` says)."""
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
        summary: dict[str, Any] = {
            "target": "label-studio",
            "project": self.source.project_id,
            "meta_key": self.config.meta_key,
            "dry_run": dry_run,
            "planned": len(changes),
            "done": 0,
            "unchanged": unchanged,
            "skipped": 0,
            "failed": 0,
            "disputed": len(disputed),
            "routed": sum(c.overlap is not None for c in changes),
            "warnings": [],
        }
        consensus: ConsensusPredictions | None = None
        consensus_warnings: list[str] = []
        if self.config.consensus:  # the predictions first: each task's flag write records its id
            consensus = ConsensusPredictions(
                self.source, self.round, tasks=self.tasks, meta_key=self.config.meta_key
            )
            summary["consensus"] = consensus.apply(
                results, dry_run=dry_run, warnings=consensus_warnings, record=False
            )
        if dry_run:
            summary["changes"] = [
                {"id": c.id, "was": c.was, "now": c.status, "data": c.data is not None}
                for c in changes
            ]
        else:
            if consensus is not None:
                changes = [_with_prediction(c, self.config.meta_key, consensus) for c in changes]
            summary.update(self._write(changes))
        if self.config.view is not None:
            summary.update(self._view(disputed, dry_run=dry_run, warnings=summary["warnings"]))
        if consensus is not None:
            if not dry_run:  # the tasks the flags did not write (unchanged, skipped, failed)
                consensus.record(consensus_warnings)
            summary["warnings"] += consensus_warnings
        if self.config.overlap is not None:
            overlap = LabelStudioOverlap(self.source, self.config.overlap)
            summary["overlap"] = overlap.apply(
                results, dry_run=dry_run, warnings=summary["warnings"]
            )
        return msgspec.convert(summary, Writeback)

    def write_entries(
        self, wanted: dict[TaskId, dict[str, Any]]
    ) -> tuple[list[Change], dict[str, Any]]:
        """Write the pulled tasks' entries that differ from ``wanted`` (the live service's
        changed tasks): the changes planned and the write's counts and warnings. The tasks are
        read again in one request (:meth:`read_tasks`) rather than one GET each."""
        changes, _, _ = self.plan_entries(wanted)
        if not changes:
            return changes, self._write(changes)
        return changes, self._write(changes, self.read_tasks([c.id for c in changes]))

    def read_tasks(self, ids: list[TaskId]) -> dict[TaskId, dict[str, Any]]:
        """The tasks ``ids`` as they are now (``id``, ``meta``, ``data``), in one request: the
        tasks list filtered to them (the Data Manager's selected items)."""
        query = {"selectedItems": {"all": False, "included": [int(t) for t in ids]}}
        body = self.source.api.request(
            "GET",
            "api/tasks/",
            f"re-reading {len(ids)} task(s)",
            params={
                "project": self.source.project_id,
                "fields": "all",
                "include": "id,meta,data",
                "page_size": len(ids),
                "query": json.dumps(query),
            },
        )
        tasks = body.get("tasks") if isinstance(body, dict) else None
        return {t["id"]: t for t in tasks or [] if isinstance(t, dict) and "id" in t}

    def show(self, disputed: list[TaskId]) -> dict[str, Any]:
        """Bring the Data Manager tab to ``disputed`` (as :meth:`apply` does)."""
        warnings: list[str] = []
        return {**self._view(disputed, dry_run=False, warnings=warnings), "warnings": warnings}

    def _write_one(self, change: Change, read: dict[str, Any] | None = None) -> str:
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
        body: dict[str, Any] = {"meta": change.meta}
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

    def _write(
        self, changes: list[Change], read: dict[TaskId, dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """Write each change (:meth:`_write_one`), :data:`WORKERS` at a time; the counts and
        warnings. After :data:`MAX_CONSECUTIVE_ERRORS` tasks failed in a row on connection or
        server errors, or when the run's time budget runs out, the writes not started are given
        up (and listed as failed). ``read``: tasks already read again (:meth:`read_tasks`)."""
        done, already, edited, failed = 0, 0, [], []
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
                    failed.append({"id": change.id, "error": exc.message})
                    in_a_row = in_a_row + 1 if exc.transient else 0
                    if (in_a_row >= MAX_CONSECUTIVE_ERRORS or exc.out_of_time) and not gave_up:
                        gave_up = True
                        stopped = f"not attempted: gave up after {exc.message}"
                        failed += [
                            {"id": c.id, "error": stopped} for f, c in futures.items() if f.cancel()
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
        failed.sort(key=lambda f: order[f["id"]])
        edited.sort(key=lambda t: order[t])
        warnings = []
        if failed:
            warnings.append(
                f"write-back failed for {len(failed)} task(s) (first: task {failed[0]['id']}: "
                f"{failed[0]['error']}); a re-run writes them"
            )
        if edited:
            warnings.append(
                f"{len(edited)} task(s) changed in Label Studio since the pull and were not "
                f"written, so the edit is kept (first: task {edited[0]}); a re-run flags them"
            )
        out: dict[str, Any] = {
            "done": done,
            "already_done": already,
            "skipped": len(edited),
            "failed": len(failed),
            "warnings": warnings,
        }
        if failed:
            out["failed_tasks"] = failed[:20]
        if edited:
            out["skipped_tasks"] = edited[:20]
        return out

    def view_filters(self, disputed: list[TaskId]) -> dict[str, Any]:
        """Data Manager filters matching exactly ``disputed`` (none: a filter matching nothing).

        Runs of consecutive ids become one range item; past :data:`MAX_VIEW_ITEMS` items the tab
        filters on the flag in ``data`` (with ``data_flags``) or in ``meta`` instead.
        """
        items: list[dict[str, Any]] = []
        ids = sorted(int(t) for t in disputed)
        i = 0
        while i < len(ids):
            j = i
            while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
                j += 1
            base = {"filter": "filter:tasks:id", "type": "Number"}
            if j - i >= 2:
                items.append({**base, "operator": "in", "value": {"min": ids[i], "max": ids[j]}})
            else:
                items += [{**base, "operator": "equal", "value": t} for t in ids[i : j + 1]]
            i = j + 1
        if len(items) > MAX_VIEW_ITEMS:
            flag = self.flag_keys[0]
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

    def _view(
        self, disputed: list[TaskId], *, dry_run: bool, warnings: list[str]
    ) -> dict[str, Any]:
        """Create or update the tab in place; unchanged filters send nothing. Two runs at once may
        both create it: the copies with higher ids are deleted."""
        title = self.config.view
        pid = self.source.project_id
        api = self.source.api
        filters = self.view_filters(disputed)
        # the review order, highest priority first: a Data Manager tab sorts on one task column
        # (compared as a number only when the tab says the column holds numbers), so only with
        # data_flags (meta is no column); equal priorities, and tabs without data_flags, keep
        # Label Studio's own order (disputed-tasks.jsonl breaks ties by score)
        want: dict[str, Any] = {"filters": filters}
        if self.config.data_flags:
            column = f"tasks:data.{self.flag_keys[2]}"
            want |= {"ordering": [f"-{column}"], "columnsDisplayType": {column: "Number"}}
        out: dict[str, Any] = {"view_title": title, "view_id": None}
        doing = f"saving the Data Manager tab {title!r}"
        try:
            views = self._all_views()
            mine = self._views(title, views)
            if mine:
                view = mine[0]
                out["view_id"] = view["id"]
                old = _dict(view.get("data"))
                if all(as_read_back(old.get(k)) == as_read_back(v) for k, v in want.items()):
                    return {**out, "view": "unchanged"}
                if dry_run:
                    return {**out, "view": "would update"}
                data = {**old, "title": title, **want}
                body = {"project": pid, "data": data}
                api.request("PATCH", f"api/dm/views/{view['id']}/", doing, body=body)
                return {**out, "view": "updated"}
            if dry_run:
                return {**out, "view": "would create"}
            if not views:  # never opened in the UI: ours alone would hide every other task
                self._create_once({"title": DEFAULT_VIEW}, f"adding the {DEFAULT_VIEW!r} tab")
            first = self._create_once({"title": title, **want}, doing)
            return {**out, "view_id": first["id"], "view": "created"}
        except LabelStudioError as exc:
            warnings.append(exc.message)
            return {**out, "view": "failed", "view_error": exc.message}

    def _create_once(self, data: dict[str, Any], doing: str) -> dict[str, Any]:
        """Create the tab ``data`` describes; the oldest of that title, once the copies that
        another run created at the same time are deleted."""
        api = self.source.api
        body = {"project": self.source.project_id, "data": data}
        created = api.request("POST", "api/dm/views/", doing, body=body)
        first, *copies = self._views(data["title"]) or [created]
        for copy in copies:
            api.request("DELETE", f"api/dm/views/{copy['id']}/", doing, absent=(404,))
        return dict(first)

    def _all_views(self) -> list[dict[str, Any]]:
        """This project's Data Manager tabs."""
        views = self.source.api.request(
            "GET",
            "api/dm/views/",
            "listing the Data Manager tabs",
            params={"project": self.source.project_id},
        )
        return [v for v in views or [] if isinstance(v, dict)]

    def _views(
        self, title: str | None, views: list[dict[str, Any]] | None = None
    ) -> list[dict[str, Any]]:
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
