"""Reading a large list of tasks in two processes: a forked child reads the second half while
this process reads the first, and the halves are joined in order, so that the result is the one
reading alone gives. What reads a run of tasks is the caller's (:func:`.export.parse_tasks`);
this module only schedules it and joins what it collected.

An export file is split after the fork (:func:`read_split`): each process decodes only its own
half of the file's bytes into tasks, so nothing but the file is read before the fork.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ...core.errors import Problem
from ...core.fork import can_fork, in_child
from ...model import Columns, SourceStats, TaskId
from .rules import References

PARALLEL_MIN = 20_000
"""With ``workers=2``, exports with at least this many tasks are read by two processes (Linux,
2+ CPUs)."""

SPLIT_MIN = 12 << 20
"""With ``workers=2``, export files of at least this many bytes (12 MiB, some 20,000 tasks of a
classification round: :data:`PARALLEL_MIN`) are split after the fork (:func:`read_split`)."""

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


_TASK_START = re.compile(
    rb'\}\s*(,)\s*\{\s*"id"\s*:\s*[^,{}\[\]]*,\s*"(?:annotations|completions)"\s*:'
)
"""A comma between two tasks, in Label Studio's key order (a task begins with its ``id`` and
then its ``annotations``, which an annotation, a result or a region does not). Unescaped
quotes never occur inside a JSON string, so a match is an object opening; whether it is an
element of the top-level list, :func:`read_split` checks by decoding."""

SEARCH = 4 << 20
"""Bytes searched after the middle of a file for a comma between two tasks."""


def split_at(data: bytes | bytearray, workers: int) -> int | None:
    """Where :func:`read_split` splits the export ``data``: with ``workers`` > 1, a file of
    :data:`SPLIT_MIN` bytes or more and a second process that helps, the first comma between
    two tasks (:data:`_TASK_START`) from the middle on, within :data:`SEARCH` bytes; None
    (read it in one process) otherwise."""
    if workers < 2 or len(data) < SPLIT_MIN or not can_fork():
        return None
    mid = len(data) // 2
    found = _TASK_START.search(data, mid, mid + SEARCH)
    return None if found is None else found.start(1)


def read_split(
    data: bytearray, comma: int, read: Callable[[Part, list[msgspec.Raw], int], Part]
) -> Part | None:
    """What ``read(part, tasks, base)`` collects over the tasks of the export ``data`` (a JSON
    list), read in two processes split at byte ``comma``: this process decodes ``data`` up to
    it with the comma read as ``]``, a forked child the rest with it read as ``[`` (each patches
    its own copy of that byte: nothing is copied). ``base`` is the index of ``tasks[0]`` in the
    export.

    The child does not know how many tasks come before its half, so its half is taken only when
    nothing in it names a task by its place (no problem, no task skipped as invalid) and no task
    id occurs in both halves; else this process reads that half too, in order, as reading alone
    would. None when ``comma`` is not between two tasks of the list (or the list is not whole):
    the caller reads the file whole, which words what is wrong."""
    child = in_child(lambda: _later(data, comma, read))
    try:
        first = _decode(data, comma, b"]")
        part = None if first is None else read(Part(), first, 0)
    finally:
        later = child()  # also on an error here, so no child is left behind
        data[comma] = ord(",")
    if part is None or first is None:
        return None
    if len(part.problems) >= MAX_PROBLEMS:
        return part  # reading in order would have stopped before the later half
    if later is None or later.problems or later.stats.invalid_skipped or not part.join(later):
        rest = _decode(data, comma, b"[")
        data[comma] = ord(",")
        if rest is None:
            return None
        part = read(part, rest, len(first))
    return part


def _later(
    data: bytearray, comma: int, read: Callable[[Part, list[msgspec.Raw], int], Part]
) -> Part:
    """The child's half of :func:`read_split`: its tasks numbered from 1, a stand-in (the
    parent takes the half only when no number of it is used), but not 0, which would read its
    first task as the export's first."""
    rest = _decode(data, comma, b"[")
    if rest is None:
        raise ValueError("not a list of tasks after the comma")
    return read(Part(), rest, 1)


def _decode(data: bytearray, comma: int, bracket: bytes) -> list[msgspec.Raw] | None:
    """The tasks of ``data`` before ``comma`` (``bracket`` ``]``) or after it (``[``), with the
    comma patched to ``bracket``; None when that is not a JSON list."""
    data[comma] = bracket[0]
    view = memoryview(data)
    try:
        part = view[: comma + 1] if bracket == b"]" else view[comma:]
        return msgspec.json.decode(part, type=list[msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
