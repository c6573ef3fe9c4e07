"""Reading a large list of tasks in two processes: a forked child reads the second half while
this process reads the first, and the halves are joined in order, so that the result is the one
reading alone gives. What reads a run of tasks is the caller's (:func:`.export.parse_tasks`);
this module only schedules it and joins what it collected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import Problem
from ...core.fork import can_fork, in_child
from ...model import Columns, SourceStats, TaskId
from .rules import References

PARALLEL_MIN = 20_000
"""With ``workers=2``, exports with at least this many tasks are read by two processes (Linux,
2+ CPUs)."""

MAX_PROBLEMS = 50


@dataclass
class Part:
    """What reading a run of tasks collects (joined in task order by :meth:`join`)."""

    stats: SourceStats = field(default_factory=SourceStats)
    cols: Columns = field(default_factory=Columns)
    task_ids: list[TaskId] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    first_seen: dict[str, int] = field(default_factory=dict)
    texts: dict[tuple[TaskId, str], str] = field(default_factory=dict)
    refs: References = field(default_factory=References)

    def __getstate__(self) -> dict[str, Any]:
        """What a forked child sends back: all but :attr:`first_seen`, whose keys are the ids
        of :attr:`task_ids` as text, costly to pickle and not needed by the parent
        (bench/README.md "2026-11-26 (4)")."""
        return {**self.__dict__, "first_seen": {}}

    def join(self, later: Part) -> bool:
        """Append the part read after this one, the last to be read (its ids already seen are
        not added to ours: nothing looks them up afterwards); False (nothing changed) when a
        task id occurs in both, which only reading in order reports right."""
        if not _disjoint(self.first_seen, self.task_ids, later.task_ids):
            return False
        if len(self.problems) >= MAX_PROBLEMS:
            return True  # reading in order would have stopped before the later part
        self.problems += later.problems[: MAX_PROBLEMS - len(self.problems)]
        self.stats.join(later.stats)
        self.cols.extend(later.cols)
        self.task_ids += later.task_ids
        self.names.update(later.names)
        self.texts = later.texts | self.texts
        self.refs.join(later.refs)
        return True


def _disjoint(seen: dict[str, int], ids: list[TaskId], later: list[TaskId]) -> bool:
    """Whether no id of ``later`` is one of ``ids``, the ids of ``seen`` (as text: the id 7
    and the id "7" are one task). When all are ints, or all text, the ids themselves are
    compared, sparing the conversion of ``later`` to text (bench/README.md "2026-11-27 (3)")."""
    kinds = set(map(type, ids)) | set(map(type, later))
    if kinds == {int} or kinds == {str}:
        return set(ids).isdisjoint(later)
    return seen.keys().isdisjoint(map(str, later))


def read_in_halves(
    tasks: Iterable[Any], read: Callable[[Part, int, int | None], Part], workers: int
) -> Part:
    """What ``read(part, start, end)`` collects over ``tasks[start:end]`` (end None: all of an
    iterable), for the whole of ``tasks``: with ``workers`` > 1 and a list of
    :data:`PARALLEL_MIN` tasks or more, the second half is read in a forked child. A child that
    fails, or a task id in both halves (which only reading in order names right), leaves its
    half to this process."""
    if workers > 1 and isinstance(tasks, list) and len(tasks) >= PARALLEL_MIN and can_fork():
        end = len(tasks)
        mid = end // 2
        child = in_child(lambda: read(Part(), mid, end))
        try:
            part = read(Part(), 0, mid)
        finally:
            later = child()  # also on an error here, so no child is left behind
        if later is None or not part.join(later):
            part = read(part, mid, end)
        return part
    return read(Part(), 0, None)
