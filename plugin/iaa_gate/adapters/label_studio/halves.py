"""Reading a large list of tasks in two processes: a forked child reads the second half while
this process reads the first, and the halves are joined in order, so that the result is the one
reading alone gives. What reads a run of tasks is the caller's (:func:`.export.parse_tasks`);
this module only schedules it and joins what it collected.

An export file is split after the fork (:func:`read_split`): each process reads and decodes
only its own half of the file, so before the fork nothing is read but a window around its
middle.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ...core.errors import Problem
from ...core.fork import can_fork, in_child
from ...model import Columns, SourceStats, TaskId
from .jsonstream import check_utf8
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

    def __getstate__(self) -> dict[str, object]:
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
    rb'\}\s*(,)\s*\{\s*"id"\s*:\s*[^,{}\[\]]*,\s*"(?:annotations|completions|data|predictions)"\s*:'
)
"""A comma between two tasks, in Label Studio's key order (a task begins with its ``id`` and
then its ``annotations``, which an annotation, a result or a region does not; exports written
by hand often put its ``data`` second). Unescaped quotes never occur inside a JSON string, so
a match is an object opening; whether it is an element of the top-level list,
:func:`read_split` checks by decoding."""

SEARCH = 4 << 20
"""Bytes searched after the middle of a file for a comma between two tasks."""


def split_at(path: Path, workers: int) -> int | None:
    """Where :func:`read_split` splits the export at ``path``: with ``workers`` > 1, a file of
    :data:`SPLIT_MIN` bytes or more and a second process that helps, the first comma between
    two tasks (:data:`_TASK_START`) from the middle on, within :data:`SEARCH` bytes; None
    (read it in one process) otherwise, or when the file cannot be read (the reader in one
    process words why)."""
    if workers < 2 or not can_fork():
        return None
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < SPLIT_MIN:
                return None
            f.seek(size // 2)
            found = _TASK_START.search(f.read(SEARCH))
    except OSError:
        return None
    return None if found is None else size // 2 + found.start(1)


def read_split(
    path: Path, comma: int, read: Callable[[Part, list[msgspec.Raw], int], Part]
) -> Part | None:
    """What ``read(part, tasks, base)`` collects over the tasks of the export at ``path`` (a
    JSON list), read by two processes split at byte ``comma``: this process reads and decodes
    the file up to it, with the comma read as ``]``, and a forked child the rest, with it read
    as ``[``. Each reads its own bytes from the file: nothing is read before the fork but a
    window around the middle (:func:`split_at`), nothing is copied between the processes but
    the child's result. ``base`` is the index of ``tasks[0]`` in the export.

    The child does not know how many tasks come before its half, so its half is taken only when
    nothing in it names a task by its place (no problem, no task skipped as invalid) and no task
    id occurs in both halves; else this process reads that half too, in order, as reading alone
    would. None when ``comma`` is not between two tasks of the list, or a half is not UTF-8 or
    cannot be read: the caller reads the file whole, which words what is wrong."""
    child = in_child(lambda: _later(path, comma, read))
    try:
        first = _tasks(path, 0, comma)
        part = None if first is None else read(Part(), first, 0)
        read_first = None if first is None else len(first)
        # its bytes and tasks go back to the heap now: taking and joining the child's half
        # then reuses their memory rather than faulting in new pages (~3 µs a page here)
        del first
    finally:
        later = child()  # also on an error here, so no child is left behind
    if part is None or read_first is None:
        return None
    if len(part.problems) >= MAX_PROBLEMS:
        return part  # reading in order would have stopped before the later half
    if later is None or later.problems or later.stats.invalid_skipped or not part.join(later):
        rest = _tasks(path, comma, None)
        if rest is None:
            return None
        part = read(part, rest, read_first)
    return part


def _later(path: Path, comma: int, read: Callable[[Part, list[msgspec.Raw], int], Part]) -> Part:
    """The child's half of :func:`read_split`: its tasks numbered from 1, a stand-in (the
    parent takes the half only when no number of it is used), but not 0, which would read its
    first task as the export's first."""
    rest = _tasks(path, comma, None)
    if rest is None:
        raise ValueError("not a list of tasks after the comma")
    return read(Part(), rest, 1)


def _tasks(path: Path, start: int, comma: int | None) -> list[msgspec.Raw] | None:
    """The tasks of the export at ``path`` before byte ``comma`` (``start`` 0), or after byte
    ``start`` (``comma`` None), that byte read as ``]`` or ``[``; None when that is not a JSON
    list of UTF-8 (or the file cannot be read)."""
    try:
        with open(path, "rb") as f:
            f.seek(start)
            end = os.fstat(f.fileno()).st_size if comma is None else comma + 1
            data = bytearray(max(end - start, 1))
            del data[f.readinto(data) :]  # shorter than its size said: it changed
            if comma is None:
                data += f.read()  # longer
        if not data:
            return None
        data[-1 if comma is not None else 0] = ord("]" if comma is not None else "[")
        check_utf8(data)
        return msgspec.json.decode(data, type=list[msgspec.Raw])
    except (OSError, UnicodeDecodeError, msgspec.DecodeError, msgspec.ValidationError):
        return None
