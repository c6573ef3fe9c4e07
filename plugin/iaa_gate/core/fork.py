"""Work done in a forked child, for readers asked to use two processes (``workers=2``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TypeVar

from . import progress

T = TypeVar("T")


def can_fork() -> bool:
    """Whether a second process can help: Linux (fork is cheap and safe there) with 2+ CPUs."""
    return sys.platform == "linux" and (os.cpu_count() or 1) > 1


def in_child(work: Callable[[], T]) -> Callable[[], T | None]:
    """Run ``work`` in a forked child; the returned function waits for its result, pickled
    back through a pipe (None when the child failed: the caller then does the work itself).
    Call it also when the caller's own work fails, so no child is left behind."""
    import pickle

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(read_end)
            with os.fdopen(write_end, "wb") as out, progress.reporting(None):  # one bar: ours
                pickle.dump(work(), out, protocol=pickle.HIGHEST_PROTOCOL)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)

    def result() -> T | None:
        with os.fdopen(read_end, "rb") as f:
            try:
                done: T | None = pickle.load(f)
            except Exception:  # the child died or sent nothing usable
                done = None
        _, status = os.waitpid(pid, 0)
        return done if status == 0 else None

    return result
