"""The live service's running sums: alpha, per-category and per-annotator agreement and each
task's score, updated task by task.

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
again after a change, one vectorised quadratic form over a ``(tasks, values)`` count table.

What is not additive (the coefficients' intervals, the kappa family, Dawid–Skene and the review
priority, the report itself) comes from a full evaluation, which the service runs debounced
(see :mod:`.service`). Fields this model does not cover (regions, label sets, free text, a
round filter…) make the service evaluate the whole state at each step, as before.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..config import Config, FieldConfig
from ..core.errors import IaaGateError
from ..evaluation.matrix import RatingsMatrix, ratings_matrix
from ..evaluation.results import STATUSES, FieldResult
from ..kinds import registry
from ..metrics import AlphaAccumulator, Coded, Undefined
from ..metrics.alpha import delta_table
from ..model import Dataset, TaskId

LEVELS = ("nominal", "ordinal", "interval", "ratio")
"""Levels the running sums cover (named distances, label sets and free text are not)."""
MAX_VALUES = 64
"""Most distinct values of a field kept live (the count table is tasks × values)."""
MAX_CATEGORY_VALUES = 30
"""Interval and ratio fields with more values than this list no categories (as a batch run)."""

Ratings = dict[str, Any]
"""One task's ratings of one field: annotator id → value (a label or a number)."""


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
    ``bar`` below which a task is disputed; ``numeric``: its values are numbers)."""

    def __init__(
        self, name: str, level: str, labels: list[str] | None, bar: float, numeric: bool
    ) -> None:
        if level not in LEVELS:
            raise NotLive(f"field {name!r}: the {level} distance is not kept live")
        if level != "nominal" and not numeric:
            raise NotLive(f"field {name!r}: ordered labels are not kept live")
        self.name, self.level, self.labels, self.bar, self.numeric = (
            name,
            level,
            labels,
            bar,
            numeric,
        )
        self.total = AlphaAccumulator()
        self.annotators: dict[str, LiveAnnotator] = {}
        self.given: Counter[Any] = Counter()  # ratings per value, in any unit
        self.tasks: dict[TaskId, Ratings] = {}
        self.values: list[Any] = []  # the count table's columns, in order of first use
        self.column: dict[Any, int] = {}
        self.slot: dict[TaskId, int] = {}  # the count table's rows
        self.free: list[int] = []
        self.counts = np.zeros((0, 0), dtype=np.int32)  # (slots, values)
        self.status: npt.NDArray[np.int8] = np.zeros(0, dtype=np.int8)  # -1: no unit
        self.score: npt.NDArray[np.float64] = np.zeros(0, dtype=np.float64)
        self.owner: list[TaskId | None] = []  # each row's task

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
        self.values, self.column = list(values), {v: i for i, v in enumerate(values)}
        n = len(units)
        self.counts = np.zeros((n, len(values)), dtype=np.int32)
        for j in range(codes.shape[1]):
            col = codes[units, j]
            ok = col >= 0
            np.add.at(self.counts, (np.flatnonzero(ok), col[ok]), 1)
        self.status = np.full(n, -1, np.int8)
        self.score = np.full(n, math.nan)
        ids = [matrix.unit_ids[u] for u in units.tolist()]
        self.owner = list(ids)
        self.slot = {t: i for i, t in enumerate(ids)}
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
            self._place(task, None)
        if ratings:
            for v in ratings.values():
                if self.numeric != isinstance(v, float):
                    raise NotLive(f"field {self.name!r}: numbers and labels mixed")
            self._add(ratings, +1)
            self.tasks[task] = dict(ratings)
            self._place(task, ratings)

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
                ann.offset += sign * (v - (sum(ratings.values()) - v) / (m - 1))
            rest = {b: w for b, w in ratings.items() if b != a}
            acc = ann.without = ann.without or AlphaAccumulator()
            if sign > 0:
                acc.update(_row(rest, self.numeric)).remove(row)
            else:
                acc.remove(_row(rest, self.numeric)).update(row)
        for a in [a for a in ratings if self.annotators[a].rated == 0]:
            del self.annotators[a]

    def _place(self, task: TaskId, ratings: Ratings | None) -> None:
        """Put ``task``'s value counts in its row of the count table (None: free the row)."""
        if ratings is None:
            s = self.slot.pop(task)
            self.counts[s] = 0
            self.status[s], self.score[s], self.owner[s] = -1, math.nan, None
            self.free.append(s)
            return
        for v in ratings.values():
            if v not in self.column:
                if len(self.values) >= MAX_VALUES:
                    raise NotLive(f"field {self.name!r}: more than {MAX_VALUES} values")
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
        for v in ratings.values():
            self.counts[s, self.column[v]] += 1

    def rescore(self, changed: Iterable[TaskId]) -> set[TaskId]:
        """Score again the tasks whose score may have moved (``changed``, and every task where
        the δ² table is not fixed); the tasks whose status changed. (Where the table is not
        fixed, the scores of unchanged tasks drift a little with every change elsewhere: what
        a flag shows of them is brought up to date by the next full report.)"""
        n = len(self.values)
        if not n:
            return set()
        acc_index = {v: i for i, v in enumerate(self.total.values.tolist())}
        order = np.array([acc_index[v] for v in self.values], dtype=np.intp)
        n_v = self.total.pairable_counts()[order]
        counts = self.total.pairable_counts().astype(np.float64)
        delta = delta_table(self.total.values, self.level, counts)[np.ix_(order, order)]
        present = n_v > 0
        scale = float(delta[np.ix_(present, present)].max()) if present.sum() >= 2 else 0.0
        if self.level == "nominal":
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
        status = np.where(np.isnan(score), 2, np.where(score < self.bar, 1, 0)).astype(np.int8)
        moved = status != self.status[slots]
        self.status[slots], self.score[slots] = status, score
        return {t for s in slots[moved].tolist() if (t := self.owner[s]) is not None}

    # -- what it says ---------------------------------------------------------------------------

    def unit(self, task: TaskId, names: dict[str, str]) -> dict[str, Any] | None:
        """``task``'s status, score and (disputed) labels by display name; None: no unit."""
        s = self.slot.get(task)
        if s is None or self.status[s] < 0:
            return None
        score = float(self.score[s])
        out: dict[str, Any] = {
            "status": STATUSES[int(self.status[s])],
            "score": None if math.isnan(score) else round(score, 4),
        }
        if out["status"] == "disputed":
            out["labels"] = {names.get(a, a): _shown(v) for a, v in self.tasks[task].items()}
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
        return int(np.count_nonzero(self.status == 1))


def field_matrix(dataset: Dataset, name: str, cfg: FieldConfig) -> RatingsMatrix:
    """Field ``name``'s ratings in ``dataset``, read by the batch rules."""
    return ratings_matrix(dataset, name, labels=cfg.labels, min_annotators=cfg.min_annotators)


def field_ratings(dataset: Dataset, name: str, cfg: FieldConfig) -> dict[TaskId, Ratings]:
    """Field ``name``'s ratings in ``dataset`` by the batch rules: task → annotator → value."""
    matrix = field_matrix(dataset, name, cfg)
    values = matrix.coded.values.tolist()
    out: dict[TaskId, Ratings] = {}
    codes = matrix.coded.codes
    rows, cols = np.nonzero(codes >= 0)
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        value = values[int(codes[r, c])]
        out.setdefault(matrix.unit_ids[r], {})[matrix.annotators[c]] = value
    return out


class Live:
    """Every field's running sums, when every field of ``config`` is one they cover; built
    from a full evaluation (its ``results``) of ``dataset``."""

    def __init__(self, config: Config, dataset: Dataset, results: dict[str, FieldResult]) -> None:
        if config.ground_truth is not None or config.round.model_dump(exclude_defaults=True):
            raise NotLive("a round filter or ground truth is evaluated in full")
        self.config = config
        self.names = dict(dataset.annotator_names)
        self.fields: dict[str, LiveField] = {}
        for name, result in results.items():
            cfg = config.fields[name]
            known = registry().get(result.kind)
            if result.multiple or known is None or known.family != "scalar":
                raise NotLive(f"field {name!r}: a {result.kind} field is evaluated in full")
            if cfg.min_annotators > 2 or cfg.thresholds.disputed_tolerance is not None:
                raise NotLive(f"field {name!r}: min_annotators/disputed_tolerance")
            matrix = field_matrix(dataset, name, cfg)
            numeric = matrix.coded.values.dtype.kind == "f" or not matrix.coded.n_values
            live = LiveField(name, result.level, cfg.labels, cfg.thresholds.disputed_below, numeric)
            live.load(matrix)
            live.rescore(list(live.slot))
            self.fields[name] = live

    def update(self, dataset: Dataset, tasks: Iterable[TaskId]) -> set[TaskId]:
        """Bring ``tasks`` to what ``dataset`` (holding them, read by the batch rules; a task
        absent from it has no ratings) says; the tasks whose flags may change."""
        tasks = list(tasks)
        self.names.update(dataset.annotator_names)
        moved: set[TaskId] = set(tasks)
        for name, live in self.fields.items():
            try:
                ratings = field_ratings(dataset, name, self.config.fields[name])
            except IaaGateError as exc:  # the batch run refuses it: evaluated in full
                raise NotLive(str(exc)) from exc
            for task in tasks:
                live.put(task, ratings.get(task, {}))
            moved |= live.rescore(tasks)
        return moved

    def disputed_tasks(self) -> list[TaskId]:
        """The tasks disputed in some field, in id order (the Data Manager tab's)."""
        out: set[TaskId] = set()
        for f in self.fields.values():
            out.update(f.owner[s] for s in np.flatnonzero(f.status == 1).tolist())
        return sorted(out, key=lambda t: (isinstance(t, str), t))

    def summary(self) -> dict[str, tuple[float, int]]:
        """Each field's ``(alpha, disputed tasks)``."""
        return {n: (f.alpha(), f.disputed()) for n, f in sorted(self.fields.items())}

    def entries(self, tasks: Iterable[TaskId]) -> dict[TaskId, dict[str, dict[str, Any]]]:
        """Each of ``tasks`` with a unit in some field: ``{field: unit}`` (see
        :meth:`LiveField.unit`)."""
        out: dict[TaskId, dict[str, dict[str, Any]]] = {}
        for task in tasks:
            fields = {
                n: u for n, f in sorted(self.fields.items()) if (u := f.unit(task, self.names))
            }
            if fields:
                out[task] = fields
        return out
