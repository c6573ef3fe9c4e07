"""One field's running sums: alpha, per-category and per-annotator agreement and each task's
score, updated task by task (:class:`LiveField`; every field's together: :mod:`.live`).

Every sum alpha and the per-category rates need is additive over units (see
:class:`~iaa_gate.metrics.AlphaAccumulator`), and so are the per-annotator ones: each
annotator's agreeing pairs, pairs, units and offsets, and the sums of "alpha without them"
(the project's sums, plus for each unit they rated the unit without them, minus the unit).
A changed task's old contribution is removed and its new one added: a step costs O(changed
tasks), not O(project). The project's alpha, per-category and per-annotator agreement then
equal a batch run on the same data (alpha to rounding: the sums are exact integers, the batch
sums floats). A task's score reads its own ratings and the field's δ² table: nominal δ² is
fixed, so only changed tasks are scored again; ordinal δ² follows the values' counts and
interval/ratio scores are scaled by the largest δ² present, so those fields score every task
again after a change, one vectorised quadratic form over a ``(tasks, values)`` count table
(:mod:`.counts`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..evaluation.matrix import RatingsMatrix
from ..metrics import AlphaAccumulator, Coded, Undefined
from ..model import TaskId
from ..sinks.label_studio import FieldFlag
from .counts import MAX_VALUES, CountTable, TooManyValues

LEVELS = ("nominal", "ordinal", "interval", "ratio")
"""Levels the running sums cover (named distances, label sets and free text are not)."""
MAX_CATEGORY_VALUES = 30
"""Interval and ratio fields with more values than this list no categories (as a batch run)."""

Rating = str | int | float
"""One annotator's answer to a field the running sums cover: a label or a number."""
Ratings = dict[str, Rating]
"""One task's ratings of one field: annotator id → value."""


class NotLive(Exception):
    """The field (or a change to it) is outside what the running sums cover: the reason."""


def _shown(v: Any) -> Any:
    """A value as the report shows it (a label, or a number, integral ones as int)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _key(v: Any) -> str:
    """A category's key in the report."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _row(ratings: Ratings, numeric: bool) -> npt.NDArray[Any]:
    """``(1, m)``: one unit's ratings as :class:`AlphaAccumulator` takes them."""
    return np.array([list(ratings.values())], dtype=np.float64 if numeric else object)


@dataclass
class LiveAnnotator:
    """One annotator's running sums on one field (see :class:`LiveField`)."""

    rated: int = 0  # ratings given, in any unit
    units: int = 0  # units rated with someone else
    agree: int = 0  # others' equal ratings in those units
    pairs: int = 0  # others' ratings in those units
    offset: float = 0.0  # Σ (x_a − mean of the others), numeric fields
    without: AlphaAccumulator | None = None  # Σ over their units: (unit without them) − unit


class LiveField:
    """One scalar field's running sums (``name``, its ``level``, configured ``labels``, the
    ``bar`` below which a task is disputed; ``numeric``: its values are numbers); each task's
    score and status are in its count ``table``."""

    def __init__(
        self, name: str, level: str, labels: list[str] | None, bar: float, numeric: bool
    ) -> None:
        if level not in LEVELS:
            raise NotLive(f"field {name!r}: the {level} distance is not kept live")
        if level != "nominal" and not numeric:
            raise NotLive(f"field {name!r}: ordered labels are not kept live")
        self.name, self.level, self.labels = name, level, labels
        self.bar, self.numeric = bar, numeric
        self.total = AlphaAccumulator()
        self.annotators: dict[str, LiveAnnotator] = {}
        self.given: Counter[Any] = Counter()  # ratings per value, in any unit
        self.tasks: dict[TaskId, Ratings] = {}
        self.table = CountTable()

    # -- updates --------------------------------------------------------------------------------

    def load(self, matrix: RatingsMatrix) -> None:
        """Start from a whole field (an empty :class:`LiveField`): the sums in vectorised
        blocks, as :meth:`put` would add them task by task."""
        coded, values = matrix.coded, matrix.coded.values.tolist()
        if self.numeric != (coded.values.dtype.kind == "f") and values:
            raise NotLive(f"field {self.name!r}: numbers and labels mixed")
        if len(values) > MAX_VALUES:
            raise NotLive(f"field {self.name!r}: more than {MAX_VALUES} values")
        codes = coded.codes.astype(np.int64)
        rated = codes >= 0
        m = rated.sum(axis=1)
        units = np.flatnonzero(m > 0)
        self.total.update(Coded(codes[units], coded.values))
        x = np.append(coded.values.astype(np.float64), np.nan)[codes] if self.numeric else None
        for j, a in enumerate(matrix.annotators):
            ann = self.annotators[a] = LiveAnnotator(rated=int(rated[:, j].sum()))
            sel = rated[:, j] & (m >= 2)
            if not sel.any():
                continue
            sub, mm = codes[sel], m[sel]
            ann.units, ann.pairs = int(sel.sum()), int((mm - 1).sum())
            ann.agree = int(((sub == sub[:, [j]]).sum(axis=1) - 1).sum())
            ann.without = (
                AlphaAccumulator()
                .update(Coded(np.delete(sub, j, axis=1), coded.values))
                .remove(Coded(sub, coded.values))
            )
            if x is not None:
                xs = x[sel]
                ann.offset = float((xs[:, j] - (np.nansum(xs, axis=1) - xs[:, j]) / (mm - 1)).sum())
        used = np.bincount(codes[rated], minlength=len(values))
        self.given = Counter({v: int(n) for v, n in zip(values, used.tolist(), strict=True) if n})
        ids = [matrix.unit_ids[u] for u in units.tolist()]
        self.table.load(ids, values, codes[units])
        names = matrix.annotators
        for t, row in zip(ids, codes[units].tolist(), strict=True):
            self.tasks[t] = {names[j]: values[c] for j, c in enumerate(row) if c >= 0}

    def put(self, task: TaskId, ratings: Ratings) -> None:
        """Task ``task``'s ratings are now ``ratings`` (empty: it has none): the old
        contribution out, the new one in."""
        old = self.tasks.pop(task, None)
        if old == ratings:
            if ratings:
                self.tasks[task] = old
            return
        if old:
            self._add(old, -1)
            self.table.drop(task)
        if ratings:
            for v in ratings.values():
                if self.numeric != isinstance(v, float):
                    raise NotLive(f"field {self.name!r}: numbers and labels mixed")
            self._add(ratings, +1)
            self.tasks[task] = dict(ratings)
            try:
                self.table.place(task, ratings.values())
            except TooManyValues:
                raise NotLive(f"field {self.name!r}: more than {MAX_VALUES} values") from None

    def _add(self, ratings: Ratings, sign: int) -> None:
        row = _row(ratings, self.numeric)
        (self.total.update if sign > 0 else self.total.remove)(row)
        m = len(ratings)
        for a, v in ratings.items():
            self.given[v] += sign
            if self.given[v] == 0:
                del self.given[v]
            ann = self.annotators.setdefault(a, LiveAnnotator())
            ann.rated += sign
            if m < 2:
                continue
            ann.units += sign
            ann.agree += sign * (sum(1 for w in ratings.values() if w == v) - 1)
            ann.pairs += sign * (m - 1)
            if self.numeric:
                x, total = float(v), sum(float(w) for w in ratings.values())  # numbers here
                ann.offset += sign * (x - (total - x) / (m - 1))
            rest = {b: w for b, w in ratings.items() if b != a}
            acc = ann.without = ann.without or AlphaAccumulator()
            if sign > 0:
                acc.update(_row(rest, self.numeric)).remove(row)
            else:
                acc.remove(_row(rest, self.numeric)).update(row)
        for a in [a for a in ratings if self.annotators[a].rated == 0]:
            del self.annotators[a]

    def rescore(self, changed: Iterable[TaskId]) -> set[TaskId]:
        """Score ``changed`` tasks again (every task, where the δ² table moves); the tasks
        whose status changed (see :meth:`CountTable.rescore`)."""
        return self.table.rescore(self.total, self.level, self.bar, changed)

    # -- what it says ---------------------------------------------------------------------------

    def unit(self, task: TaskId, names: dict[str, str]) -> FieldFlag | None:
        """``task``'s status, score and (disputed) labels by display name; None: no unit."""
        found = self.table.unit(task)
        if found is None:
            return None
        out = FieldFlag(found[0], found[1])
        if out.status == "disputed":
            out.labels = {names.get(a, a): _shown(v) for a, v in self.tasks[task].items()}
        return out

    def alpha(self) -> float:
        return self.total.result(self.level).alpha

    def categories(self, method: str) -> dict[str, float]:
        """Per-category agreement by ``method`` (``category_agreement`` or
        ``specific_agreement``) over the values in use and the configured labels."""
        listed = set(self.given) | set(self.labels or ())
        if self.level in ("interval", "ratio") and len(listed) > MAX_CATEGORY_VALUES:
            return {}
        res = self.total.result(self.level)
        rates = res.categories if method == "category_agreement" else res.specific
        never = Undefined("the category never occurs in a unit with two or more ratings")
        return {_key(v): rates.get(v, never) for v in listed}

    def annotator_rows(self) -> dict[str, dict[str, float | int | None]]:
        """Each annotator: ``n_units``, ``pair_agreement``, ``alpha_without``, ``mean_offset``."""
        out: dict[str, dict[str, float | int | None]] = {}
        for a, ann in self.annotators.items():
            acc = AlphaAccumulator().merge(self.total)
            if ann.without is not None:
                acc.merge(ann.without)
            out[a] = {
                "n_units": ann.units,
                "pair_agreement": ann.agree / ann.pairs if ann.pairs else math.nan,
                "alpha_without": acc.result(self.level).alpha,
                "mean_offset": (ann.offset / ann.units if ann.units else math.nan)
                if self.numeric
                else None,
            }
        return out

    def disputed(self) -> int:
        return len(self.table.disputed())
