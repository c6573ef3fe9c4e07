"""The service's SQLite database (WAL) and its inbox, the durable queue of webhook events.

The web app holds an :class:`Inbox` of its own (a connection per thread): it queues each
acknowledged event and counts the queue, nothing else. The worker's :class:`~.state.State` is
an inbox too, so that applying events and taking them off the queue is one transaction.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS inbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, received REAL, body BLOB);
CREATE TABLE IF NOT EXISTS tasks (id INTEGER PRIMARY KEY, body TEXT NOT NULL,
                                  deleted INTEGER NOT NULL DEFAULT 0, seen REAL NOT NULL);
CREATE TABLE IF NOT EXISTS annotations (id INTEGER PRIMARY KEY, task INTEGER NOT NULL,
                                        updated TEXT NOT NULL, body TEXT NOT NULL,
                                        seen REAL NOT NULL);
CREATE INDEX IF NOT EXISTS annotations_task ON annotations (task);
CREATE TABLE IF NOT EXISTS gone (id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS dirty (task INTEGER PRIMARY KEY, since REAL NOT NULL);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Inbox:
    """One connection to the state database at ``path``, and its queue of events."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def push(self, body: bytes, received: float) -> None:
        """Queue an event (committed before the webhook is acknowledged)."""
        self.db.execute("INSERT INTO inbox (received, body) VALUES (?, ?)", (received, body))

    def inbox(self, limit: int = 5000) -> list[tuple[int, float, bytes]]:
        """The oldest queued events: ``(seq, received, body)``."""
        rows = self.db.execute(
            "SELECT seq, received, body FROM inbox ORDER BY seq LIMIT ?", (limit,)
        ).fetchall()
        return [(int(s), float(r), bytes(b)) for s, r, b in rows]

    def queued(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM inbox").fetchone()[0])

    def done(self, last_seq: int) -> None:
        self.db.execute("DELETE FROM inbox WHERE seq <= ?", (last_seq,))


def now() -> float:
    """Wall-clock seconds (event arrival times survive a restart)."""
    return time.time()
