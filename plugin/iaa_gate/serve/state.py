"""The service's state in one SQLite database (WAL): survives a kill -9 as committed.

Tables:

- ``inbox``: webhook events acknowledged but not yet applied (the durable event queue,
  :mod:`.inbox`);
- ``tasks``: each task's body as Label Studio sent it (``id``, ``data``, ``meta``, and from a
  pull iaa-gate's own consensus ``predictions``; JSON), and ``deleted``;
- ``annotations``: every live annotation by id (JSON, as Label Studio sent it) with its task and
  ``updated_at``; a task's latest annotation per annotator is chosen from these by the batch
  reading rules when the state is evaluated;
- ``gone``: ids of deleted annotations (a late or repeated delivery never brings one back);
- ``dirty``: tasks changed since their flags were last written, with the arrival time of the
  earliest event (for the event → flag lag);
- ``kv``: counters and the last verdict.

Applying an event is idempotent and order-free: an annotation is replaced only by a version with
an equal or later ``updated_at``, and a deletion wins over any delivery of the same id.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..adapters.label_studio import wire
from ..adapters.label_studio.project import ANNOTATION_FIELDS, PulledTask, annotators_of
from ..adapters.label_studio.rules import CONSENSUS_MODEL_VERSION
from ..model import TaskId
from .events import Event
from .inbox import Inbox, now

CHUNK = 200
"""Events or pulled tasks applied per transaction."""


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


class State(Inbox):
    """The worker's connection to the state database at ``path``; ``clock`` (wall-clock
    seconds, :func:`~.inbox.now` unless a test orders events by explicit times) stamps what it
    learns, which a pull's snapshot compares with the time it began."""

    def __init__(self, path: Path, clock: Callable[[], float] = now) -> None:
        super().__init__(path)
        self.clock = clock

    # -- applying events ------------------------------------------------------------------------

    def apply(self, event: Event, received: float) -> set[int]:
        """Apply ``event`` (inside :meth:`transaction`); the tasks whose annotations changed."""
        changed: set[int] = set()
        for task in filter(wire.is_task, event.tasks):  # each has an id (parse_event)
            self._task(task)
        for tid in event.deleted_tasks:
            changed |= self._delete_task(tid)
        for ann in event.annotations:
            if wire.is_annotation(ann) and self._annotation(ann):
                changed.add(int(ann["task"]))
        for aid in event.deleted:
            changed |= self._delete_annotation(aid)
        self._mark(changed, received)
        return changed

    def reread(self, tasks: list[wire.Task], started: float) -> set[int]:
        """Bring ``tasks`` (read again from the project at ``started``) up to date, as a pull
        does, and mark them changed: starring an annotation as ground truth silently un-stars
        another of the task, which no webhook says. Inside :meth:`transaction`."""
        done = {int(task["id"]) for task in tasks if self._pulled(task, started) is not None}
        self._mark(done, started)
        return done

    def snapshot(self, tasks: list[wire.Task], started: float) -> set[int]:
        """Bring the state to a full pull of the project that began at ``started`` (local
        time): what the state learnt before then and the pull lacks is removed (a task, an
        annotation), each pulled annotation is kept unless the state has a later version or
        its deletion, a pulled task body replaces one stored before then. Events applied
        while the pull ran are newer than it and stay. Returns the tasks whose annotations
        changed. Committed :data:`CHUNK` tasks at a time, so a webhook waits for the write
        lock only briefly; an interrupted snapshot is redone by the next one."""
        changed: set[int] = set()
        for start in range(0, len(tasks), CHUNK):
            with self.transaction():
                part = tasks[start : start + CHUNK]
                done = {t for task in part if (t := self._pulled(task, started))}
                self._mark(done, started)
            changed |= done
        pulled = {int(task["id"]) for task in tasks}
        with self.transaction():
            rows = self.db.execute(
                "SELECT id FROM tasks WHERE deleted = 0 AND seen < ?", (started,)
            )
            for (tid,) in rows.fetchall():
                if tid not in pulled:
                    self._delete_task(tid)
        return changed

    def _pulled(self, task: wire.Task, started: float) -> int | None:
        """Store a pulled task and its annotations; its id if its annotations changed."""
        tid, changed = int(task["id"]), False
        anns = [a for a in task.get("annotations") or [] if wire.is_annotation(a)]
        self._task(task, pulled=started)
        ids = {int(a["id"]) for a in anns}
        stored = self.db.execute(
            "SELECT id FROM annotations WHERE task = ? AND seen < ?", (tid, started)
        )
        for (aid,) in stored.fetchall():
            if aid not in ids:
                self.db.execute("DELETE FROM annotations WHERE id = ?", (aid,))
                changed = True
        for ann in anns:
            changed = self._annotation({**ann, "task": tid}) or changed
        return tid if changed else None

    def _task(self, task: wire.Task, *, pulled: float | None = None) -> None:
        """Keep a task's body. An event's body only fills a task not known yet (or known only
        by id): it was serialised when the annotation was saved, and may predate flags written
        since; a pull that began at ``pulled`` replaces a body stored before then."""
        tid = int(task["id"])
        body = {"id": tid, "data": task.get("data") or {}, "meta": task.get("meta") or {}}
        if isinstance(task.get("overlap"), int):  # what routing a dispute raises
            body["overlap"] = task["overlap"]
        if pulled is not None:  # iaa-gate's own predictions (the consensus), as last seen
            body["predictions"] = [
                p
                for p in task.get("predictions") or []
                if wire.is_prediction(p) and p.get("model_version") == CONSENSUS_MODEL_VERSION
            ]
        newer, args = "seen < ?", [pulled]
        if pulled is None:
            newer, args = f"body = '{_dump({'id': tid})}'", []
        self.db.execute(
            "INSERT INTO tasks (id, body, seen) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            f"body = excluded.body, seen = excluded.seen WHERE deleted = 0 AND {newer}",
            (tid, _dump(body), self.clock(), *args),
        )

    def _annotation(self, ann: wire.Annotation) -> bool:
        """Keep ``ann`` unless deleted or older than the stored version; whether it changed."""
        aid, tid = int(ann["id"]), int(ann["task"])
        if self.db.execute("SELECT 1 FROM gone WHERE id = ?", (aid,)).fetchone():
            return False
        if self.db.execute("SELECT deleted FROM tasks WHERE id = ?", (tid,)).fetchone() == (1,):
            return False
        self.db.execute(
            "INSERT OR IGNORE INTO tasks (id, body, seen) VALUES (?, ?, ?)",
            (tid, _dump({"id": tid}), self.clock()),
        )
        keep = {k: ann.get(k) for k in ANNOTATION_KEYS if k in ann}
        updated, body = str(ann.get("updated_at") or ""), _dump(keep)
        old = self.db.execute(
            "SELECT updated, body FROM annotations WHERE id = ?", (aid,)
        ).fetchone()
        if old is not None and (old[0] > updated or old[1] == body):
            return False
        self.db.execute(
            "INSERT OR REPLACE INTO annotations (id, task, updated, body, seen) "
            "VALUES (?, ?, ?, ?, ?)",
            (aid, tid, updated, body, self.clock()),
        )
        return True

    def _delete_annotation(self, aid: int) -> set[int]:
        self.db.execute("INSERT OR IGNORE INTO gone (id) VALUES (?)", (aid,))
        row = self.db.execute("SELECT task FROM annotations WHERE id = ?", (aid,)).fetchone()
        if row is None:
            return set()
        self.db.execute("DELETE FROM annotations WHERE id = ?", (aid,))
        return {int(row[0])}

    def _delete_task(self, tid: int) -> set[int]:
        self.db.execute(
            "INSERT INTO tasks (id, body, deleted, seen) VALUES (?, ?, 1, ?) "
            "ON CONFLICT (id) DO UPDATE SET deleted = 1",
            (tid, _dump({"id": tid}), self.clock()),
        )
        self.db.execute(
            "INSERT OR IGNORE INTO gone (id) SELECT id FROM annotations WHERE task = ?", (tid,)
        )
        self.db.execute("DELETE FROM annotations WHERE task = ?", (tid,))
        self.db.execute("DELETE FROM dirty WHERE task = ?", (tid,))
        return set()  # a deleted task has no flags to write

    def _mark(self, tasks: set[int], received: float) -> None:
        self.db.executemany(
            "INSERT INTO dirty (task, since) VALUES (?, ?) ON CONFLICT (task) DO UPDATE SET "
            "since = min(since, excluded.since)",
            [(t, received) for t in tasks],
        )

    # -- reading --------------------------------------------------------------------------------

    def task_documents(self, ids: Iterable[int] | None = None) -> list[bytes]:
        """Every live task (or those among ``ids``) as Label Studio's tasks API gives it (JSON
        with ``annotations``, in id order), for
        :func:`~iaa_gate.adapters.label_studio.export.parse_tasks`."""
        if ids is not None:
            return [d for tid in sorted(set(ids)) for d in self._documents(tid)]
        return self._documents(None)

    def _documents(self, tid: int | None) -> list[bytes]:
        one = "" if tid is None else " AND task = ?"
        args = () if tid is None else (tid,)
        anns: dict[int, list[str]] = {}
        rows = self.db.execute(
            f"SELECT task, body FROM annotations WHERE 1{one} ORDER BY task, id", args
        )
        for t, body in rows:
            anns.setdefault(t, []).append(body)
        out = []
        for tid, body in self.db.execute(
            f"SELECT id, body FROM tasks WHERE deleted = 0{one.replace('task', 'id')} ORDER BY id",
            args,
        ):
            joined = ",".join(anns.get(tid, ()))
            out.append(f'{body[:-1]},"annotations":[{joined}]}}'.encode())
        return out

    def pulled(self, ids: Iterable[int], *, data: bool) -> dict[TaskId, PulledTask]:
        """What write-back merges into, of the live tasks among ``ids``: ``meta``, ``data``
        (when ``data``) and iaa-gate's own predictions, as last written or pulled."""
        out: dict[TaskId, PulledTask] = {}
        for tid in ids:
            row = self.db.execute(
                "SELECT body FROM tasks WHERE id = ? AND deleted = 0", (tid,)
            ).fetchone()
            if row is not None:
                body = json.loads(row[0])
                anns = self.db.execute("SELECT body FROM annotations WHERE task = ?", (tid,))
                out[tid] = PulledTask(
                    body.get("meta") or {},
                    body.get("data") or {} if data else None,
                    body.get("predictions") or [],
                    overlap=body.get("overlap"),
                    annotators=annotators_of([json.loads(a) for (a,) in anns]),
                )
        return out

    def with_predictions(self) -> set[int]:
        """The live tasks that carry one of iaa-gate's own predictions (as last seen)."""
        rows = self.db.execute(
            "SELECT id FROM tasks "
            "WHERE deleted = 0 AND json_array_length(body, '$.predictions') > 0"
        )
        return {int(t) for (t,) in rows}

    def all_meta(self, key: str) -> dict[int, object]:
        """``{task: meta[key]}`` of every live task (what was last written or pulled)."""
        rows = self.db.execute(
            "SELECT id, json_extract(body, '$.meta.' || ?) FROM tasks WHERE deleted = 0", (key,)
        )
        return {int(t): json.loads(v) if v is not None else None for t, v in rows}

    def set_meta(
        self,
        tid: int,
        meta: dict[str, object],
        data: dict[str, object] | None,
        predictions: list[wire.Prediction] | None = None,
    ) -> None:
        """What was written to task ``tid`` (``data``, ``predictions`` None: unchanged)."""
        row = self.db.execute("SELECT body FROM tasks WHERE id = ?", (tid,)).fetchone()
        if row is None:
            return
        body = json.loads(row[0])
        body["meta"] = meta
        if data is not None:
            body["data"] = data
        if predictions is not None:
            body["predictions"] = predictions
        self.db.execute(
            "UPDATE tasks SET body = ?, seen = ? WHERE id = ?", (_dump(body), self.clock(), tid)
        )

    def dirty(self) -> dict[int, float]:
        return {int(t): float(s) for t, s in self.db.execute("SELECT task, since FROM dirty")}

    def clean(self, tasks: Iterable[int]) -> None:
        self.db.executemany("DELETE FROM dirty WHERE task = ?", [(t,) for t in tasks])

    def get(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else default

    def put(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)", (key, value))

    def count(self) -> tuple[int, int]:
        """``(live tasks, live annotations)``."""
        tasks = self.db.execute("SELECT count(*) FROM tasks WHERE deleted = 0").fetchone()[0]
        anns = self.db.execute("SELECT count(*) FROM annotations").fetchone()[0]
        return int(tasks), int(anns)


ANNOTATION_KEYS = ("id", *ANNOTATION_FIELDS)
"""What is kept of an annotation: what the batch reader reads (the live pull's ``include``)."""
