"""One field's count table for the running sums: each task's value counts, score and status.

A row per task with ratings (rows are reused when a task loses them), a column per value in
order of first use. A task's score is a quadratic form of its row and the field's δ² table, so
scoring every task again (ordinal, interval and ratio fields, whose table moves with every
change) is one vectorised product over the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..evaluation.results import STATUSES
from ..metrics import AlphaAccumulator
from ..metrics.alpha import delta_table
from ..model import TaskId

MAX_VALUES = 64
"""Most distinct values of a field kept live (the count table is tasks × values)."""


class TooManyValues(Exception):
    """A field has more than :data:`MAX_VALUES` values."""


class CountTable:
    """Each task's value counts (``counts``: ``(rows, values)``), score and status
    (``status``: an index of :data:`~iaa_gate.evaluation.results.STATUSES`, -1: no unit)."""

    def __init__(self) -> None:
        self.values: list[Any] = []  # the columns, in order of first use
        self.column: dict[Any, int] = {}
        self.slot: dict[TaskId, int] = {}  # each task's row
        self.free: list[int] = []
        self.counts = np.zeros((0, 0), dtype=np.int32)
        self.status: npt.NDArray[np.int8] = np.zeros(0, dtype=np.int8)
        self.score: npt.NDArray[np.float64] = np.zeros(0, dtype=np.float64)
        self.owner: list[TaskId | None] = []  # each row's task

    def load(self, ids: list[TaskId], values: list[Any], codes: npt.NDArray[np.int64]) -> None:
        """Start from a whole field: ``codes`` ``(len(ids), annotators)``, indices into
        ``values`` (-1: not rated), one row per task of ``ids``."""
        if len(values) > MAX_VALUES:
            raise TooManyValues
        n = len(ids)
        self.values, self.column = list(values), {v: i for i, v in enumerate(values)}
        self.counts = np.zeros((n, len(values)), dtype=np.int32)
        for j in range(codes.shape[1]):
            col = codes[:, j]
            ok = col >= 0
            np.add.at(self.counts, (np.flatnonzero(ok), col[ok]), 1)
        self.status = np.full(n, -1, np.int8)
        self.score = np.full(n, math.nan)
        self.owner = list(ids)
        self.slot = {t: i for i, t in enumerate(ids)}

    def place(self, task: TaskId, values: Iterable[Any]) -> None:
        """Put ``task``'s ratings (``values``, one per annotator) in a row of its own."""
        values = list(values)
        for v in values:
            if v not in self.column:
                if len(self.values) >= MAX_VALUES:
                    raise TooManyValues
                self.column[v] = len(self.values)
                self.values.append(v)
        rows, cols = self.counts.shape
        if not self.free:
            grow = max(64, rows)
            self.free = list(range(rows + grow - 1, rows - 1, -1))
            self.status = np.concatenate([self.status, np.full(grow, -1, np.int8)])
            self.score = np.concatenate([self.score, np.full(grow, math.nan)])
            self.owner += [None] * grow
            rows += grow
        if rows != self.counts.shape[0] or cols != len(self.values):
            grown = np.zeros((rows, max(len(self.values), cols)), dtype=np.int32)
            grown[: self.counts.shape[0], :cols] = self.counts
            self.counts = grown
        s = self.slot[task] = self.free.pop()
        self.owner[s] = task
        self.counts[s] = 0
        for v in values:
            self.counts[s, self.column[v]] += 1

    def drop(self, task: TaskId) -> None:
        """Free ``task``'s row (it has no ratings now)."""
        s = self.slot.pop(task)
        self.counts[s] = 0
        self.status[s], self.score[s], self.owner[s] = -1, math.nan, None
        self.free.append(s)

    def rescore(
        self, total: AlphaAccumulator, level: str, bar: float, changed: Iterable[TaskId]
    ) -> set[TaskId]:
        """Score again the tasks whose score may have moved (``changed``, and every task where
        the δ² table of ``total`` at ``level`` is not fixed) against the disputed ``bar``; the
        tasks whose status changed. (Where the table is not fixed, the scores of unchanged
        tasks drift a little with every change elsewhere: what a flag shows of them is brought
        up to date by the next full report.)"""
        n = len(self.values)
        if not n:
            return set()
        acc_index = {v: i for i, v in enumerate(total.values.tolist())}
        order = np.array([acc_index[v] for v in self.values], dtype=np.intp)
        n_v = total.pairable_counts()[order]
        counts = total.pairable_counts().astype(np.float64)
        delta = delta_table(total.values, level, counts)[np.ix_(order, order)]
        present = n_v > 0
        scale = float(delta[np.ix_(present, present)].max()) if present.sum() >= 2 else 0.0
        if level == "nominal":
            slots = np.array([self.slot[t] for t in changed if t in self.slot], dtype=np.intp)
        else:
            slots = np.flatnonzero(self.counts.sum(axis=1) > 0)
        if not len(slots):
            return set()
        c = self.counts[slots, :n].astype(np.float64)
        m = c.sum(axis=1)
        observed = np.einsum("ij,jk,ik->i", c, delta, c)
        score = np.full(len(slots), math.nan)
        ok = m >= 2
        if scale <= 0:
            score[ok] = 1.0
        else:
            score[ok] = np.clip(1.0 - observed[ok] / (m[ok] * (m[ok] - 1)) / scale, 0.0, 1.0)
        status = np.where(np.isnan(score), 2, np.where(score < bar, 1, 0)).astype(np.int8)
        moved = status != self.status[slots]
        self.status[slots], self.score[slots] = status, score
        return {t for s in slots[moved].tolist() if (t := self.owner[s]) is not None}

    def unit(self, task: TaskId) -> tuple[str, float | None] | None:
        """``task``'s status and score (None: undefined); None: no unit."""
        s = self.slot.get(task)
        if s is None or self.status[s] < 0:
            return None
        score = float(self.score[s])
        return STATUSES[int(self.status[s])], None if math.isnan(score) else round(score, 4)

    def disputed(self) -> list[TaskId]:
        """The disputed tasks."""
        rows = np.flatnonzero(self.status == 1).tolist()
        return [t for s in rows if (t := self.owner[s]) is not None]
