"""The live service's running sums of every field (:class:`Live`), each a
:class:`~.field_sums.LiveField`, updated with the changed tasks as the batch rules read them.

What is not additive (the coefficients' intervals, the kappa family, Dawid–Skene and the review
priority, the report itself) comes from a full evaluation, which the service runs debounced
(see :mod:`.service`). Fields this model does not cover (regions, label sets, free text, a
round filter…) make the service evaluate the whole state at each step, as before.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..config import Config, FieldConfig
from ..core.errors import IaaGateError
from ..evaluation.matrix import RatingsMatrix, ratings_matrix
from ..evaluation.results import FieldResult
from ..kinds import registry
from ..model import Dataset, TaskId
from ..sinks.label_studio import FieldFlag
from .field_sums import LiveField, NotLive, Ratings


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
        if config.adjudication is not None:  # adjudications leave the ratings: the batch rules
            raise NotLive("adjudication is evaluated in full")
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
            live.rescore(list(live.table.slot))
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
        out = {t for f in self.fields.values() for t in f.table.disputed()}
        return sorted(out, key=lambda t: (isinstance(t, str), t))

    def summary(self) -> dict[str, tuple[float, int]]:
        """Each field's ``(alpha, disputed tasks)``."""
        return {n: (f.alpha(), f.disputed()) for n, f in sorted(self.fields.items())}

    def entries(self, tasks: Iterable[TaskId]) -> dict[TaskId, dict[str, FieldFlag]]:
        """Each of ``tasks`` with a unit in some field: ``{field: unit}`` (see
        :meth:`LiveField.unit`)."""
        out: dict[TaskId, dict[str, FieldFlag]] = {}
        for task in tasks:
            fields = {
                n: u for n, f in sorted(self.fields.items()) if (u := f.unit(task, self.names))
            }
            if fields:
                out[task] = fields
        return out
