"""The life of a dispute: each disputed task of a field is ``open``, ``routed`` (one more
annotator was asked for), ``settled`` (after extra annotations the consensus is sure enough) or
``resolved`` (a person adjudicated it).

Adjudications are read by :func:`split` before anything is scored, so they never move an
agreement figure: an annotation by someone in ``adjudication.by`` is taken out of the ratings,
and a Label Studio ground-truth mark outside the gold tasks (``ground_truth.tasks``; none
declared: every mark) stays its author's rating and is also the task's final answer. Without an
``adjudication:`` section nothing is read as one. :func:`field_lifecycle` then gives each
disputed task its state, and the report the counts by state, how often the adjudicated answer
confirmed the proposal, and each annotator's agreement with the adjudicated answers.
"""

from __future__ import annotations

import copy
import math
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import numpy as np

from ..config import Config, CountLimit, FieldConfig
from ..model import Annotation, Dataset, FieldValue, LazyAnnotations, TaskId, task_mask
from .gate import Check, Verdict
from .ground_truth import field_truth
from .results import Consensus, FieldResult, FieldTruth, UnitTable
from .scalar import shown_value

STATES = ("open", "routed", "settled", "resolved")
"""A disputed task's states, from waiting to final."""
FINAL = frozenset({"settled", "resolved"})
"""States whose dispute has a final answer: write-back gives it no flag, no review priority
and no consensus prediction."""
BASIS = "disputed tasks a person adjudicated: not a random sample of the round"
"""What the annotators' agreement with the adjudicated answers is measured on."""


@dataclass(frozen=True)
class State:
    """One disputed task's ``state`` (one of :data:`STATES`), its ``final`` answer (settled: the
    consensus; resolved: the adjudicated answer; else None) and a ``note`` when it needs a person
    after routing."""

    state: str
    final: Any = None
    note: str | None = None


_OPEN = State("open")
"""An open dispute without a note (frozen: shared by every such task)."""


@dataclass
class FieldLifecycle:
    """The disputes of one field by state.

    ``states``: disputed task → :class:`State`; ``adjudicated``: every task (disputed or not)
    with one agreed adjudicated answer → that answer as the report shows it; ``conflicting``:
    tasks whose adjudications disagree (left open); ``confirmed``/``compared``: resolved tasks
    whose adjudicated answer equals the consensus proposal, of those with a proposal;
    ``agreement``: each annotator against the adjudicated answers (:data:`BASIS`)."""

    states: dict[TaskId, State] = field(default_factory=dict)
    adjudicated: dict[TaskId, Any] = field(default_factory=dict)
    conflicting: list[TaskId] = field(default_factory=list)
    confirmed: int = 0
    compared: int = 0
    agreement: FieldTruth | None = None

    def count(self, state: str) -> int:
        """How many disputed tasks are in ``state``."""
        return sum(1 for s in self.states.values() if s.state == state)

    def needs_a_person(self) -> int:
        """Open tasks that were routed to the most annotators allowed without settling."""
        return sum(1 for s in self.states.values() if s.note is not None)


def split(dataset: Dataset, config: Config) -> tuple[Dataset, list[Annotation]]:
    """The dataset without the adjudicators' annotations, and the adjudications: the source's
    own (:attr:`Dataset.adjudications`, e.g. Prodigy's review file), those annotations and the
    ground-truth marks outside the gold tasks (which stay ratings, their mark cleared, so they
    are never references). Without ``adjudication:`` in ``config``:
    ``dataset`` unchanged and no adjudication.

    Parameters
    ----------
    dataset
        The round as its source read it.
    config
        The run's config (``adjudication.by``, ``ground_truth.tasks``).

    Returns
    -------
    tuple[Dataset, list[Annotation]]
        The ratings, and the adjudicated answers.

    Examples
    --------
    An adjudicator's annotation leaves the ratings::

        ratings, adjudications = split(dataset, config)  # adjudication: {by: [lead]}
        "lead" in ratings.annotator_ids()  # False
    """
    adj = config.adjudication
    if adj is None:
        return dataset, []
    read = list(dataset.adjudications)  # the source's own review data (Prodigy review)
    cols = dataset.columns()
    by = adj.names()
    by_annotator = np.array(
        [a in by or dataset.display_name(a) in by for a in cols.annotators] or [False]
    )
    is_by = by_annotator[cols.array("annotator")] if len(cols) else np.zeros(0, dtype=bool)
    gold = config.ground_truth.ids() if config.ground_truth else None
    starred = (cols.array("ground_truth") == 1) & ~task_mask(cols, gold or frozenset())
    starred &= ~is_by
    if not is_by.any() and not starred.any():
        return dataset, read
    adjudications = read + cols.select(is_by | starred).annotations()
    kept = copy.copy(cols.select(~is_by))  # select gives the same columns when it keeps all
    flags = kept.array("ground_truth").copy()
    flags[starred[~is_by]] = 0
    kept.ground_truth = array("b", flags.tobytes())
    return replace(dataset, annotations=LazyAnnotations(kept)), adjudications


def field_lifecycle(
    result: FieldResult,
    cfg: FieldConfig,
    dataset: Dataset,
    adjudications: Sequence[Annotation],
    config: Config,
    routed: Mapping[TaskId, int] | None = None,
    max_annotations: int | None = None,
) -> FieldLifecycle:
    """The disputes of ``result``'s field by state.

    Parameters
    ----------
    result, cfg
        The field's result and config.
    dataset
        The ratings (after :func:`split`): each annotator is compared with the adjudicated
        answers on them.
    adjudications
        From :func:`split`.
    config
        The run's config (``adjudication.settle_at``).
    routed
        Task → the number of annotations write-back asked for when it routed the task.
    max_annotations
        The most annotations a task is routed to (``writeback.route.max_annotations``).

    Returns
    -------
    FieldLifecycle

    Examples
    --------
    A resolved task is final; a routed one whose extra answer has not come yet is routed::

        lc = field_lifecycle(result, cfg, dataset, adjudications, config, routed={7: 3})
        lc.states[7].state  # "routed" while task 7 has fewer than 3 ratings
    """
    name = result.name
    out = FieldLifecycle()
    answers: dict[TaskId, FieldValue] = {}
    conflicting: set[TaskId] = set()
    for a in adjudications:
        fv = a.fields.get(name)
        if fv is None:
            continue
        if a.task_id in answers and answers[a.task_id].value != fv.value:
            conflicting.add(a.task_id)
        answers.setdefault(a.task_id, fv)
    out.conflicting = sorted(conflicting, key=str)
    for t in conflicting:
        del answers[t]
    regions = any(fv.regions is not None for fv in answers.values())
    out.adjudicated = {
        t: None if fv.regions is not None else shown_value(fv.value, result.multiple)
        for t, fv in answers.items()
    }
    units = result.units
    at, tasks = _disputed(units)
    # a disputed task neither adjudicated nor routed is open (most of a round, every task of
    # one without adjudication): one shared State, its proposal never read
    out.states = dict.fromkeys(tasks, _OPEN)
    routed = routed or {}
    decide = (
        [k for k, t in enumerate(tasks) if t in answers or t in routed] if answers or routed else []
    )
    proposal = _proposals(units, [at[k] for k in decide])
    settle_at = config.adjudication.settle_at if config.adjudication else math.inf
    for task, (proposed, posterior, tie, n) in zip(
        map(tasks.__getitem__, decide), proposal, strict=True
    ):
        if task in answers:
            final = out.adjudicated[task]
            out.states[task] = State("resolved", final)
            if not regions and (value := proposed()) is not None:
                out.compared += 1
                out.confirmed += final == value
            continue
        asked = routed[task]
        if n < asked:
            out.states[task] = State("routed")
        elif not tie and posterior >= settle_at and (value := proposed()) is not None:
            out.states[task] = State("settled", value)
        elif max_annotations is not None and n >= max_annotations:
            out.states[task] = State("open", None, f"needs a person: {n} annotations, no majority")
    if answers and not regions:
        out.agreement = field_truth(
            name,
            result.kind,
            result.level,
            cfg,
            dataset,
            [a for a in adjudications if a.task_id in answers],
        )
    return out


def _disputed(units: Sequence[Any]) -> tuple[list[int], list[TaskId]]:
    """The index and the task of each disputed unit."""
    if isinstance(units, UnitTable):
        at = units.where("disputed")
        return at, list(map(units.ids.__getitem__, at))
    at = [i for i, u in enumerate(units) if u.status == "disputed"]
    return at, [units[i].id for i in at]


def _proposals(
    units: Sequence[Any], at: list[int]
) -> list[tuple[Callable[[], Any], float, bool, int]]:
    """Per unit ``at``: its proposed value (read when called; None: none), posterior, tie and
    number of ratings (a region task's list of regions is made only for a task that needs it)."""
    if isinstance(units, UnitTable):
        p = units.proposals(at)
        n = units.n_labels(at)
        return [
            (partial(p.value.__getitem__, k), p.posterior[k], p.tie[k], n[k])
            for k in range(len(at))
        ]
    out: list[tuple[Callable[[], Any], float, bool, int]] = []
    for i in at:
        u = units[i]
        c = u.consensus
        out.append(
            (_none, math.nan, False, len(u.labels))
            if c is None
            else (partial(_value, c), c.posterior, c.tie, len(u.labels))
        )
    return out


def _none() -> None:
    """No proposal."""
    return None


def _value(c: Consensus) -> Any:
    """``c``'s proposed value."""
    return c.value


def open_disputes_check(name: str, lc: FieldLifecycle, limit: CountLimit) -> Check | None:
    """``thresholds.open_disputes`` on field ``name``: more disputes without a final answer
    (open or routed: neither settled nor resolved) than ``fail`` fails, than ``warn`` warns
    (None: neither set).

    Parameters
    ----------
    name
        The field.
    lc
        Its disputes by state (:func:`field_lifecycle`).
    limit
        ``thresholds.open_disputes``.

    Returns
    -------
    Check | None

    Examples
    --------
    ``{fail: 0}`` with one open dispute fails::

        open_disputes_check("sentiment", lc, CountLimit(fail=0)).verdict  # Verdict.FAIL
    """
    if limit.fail is None and limit.warn is None:
        return None
    routed = lc.count("routed")
    n = lc.count("open") + routed
    what = f"{n} open dispute{'' if n == 1 else 's'}" + (f" ({routed} routed)" if routed else "")
    if limit.fail is not None and n > limit.fail:
        verdict, msg = Verdict.FAIL, f"{what}: more than the fail limit {limit.fail}"
    elif limit.warn is not None and n > limit.warn:
        verdict, msg = Verdict.WARN, f"{what}: more than the warn limit {limit.warn}"
    else:
        most = limit.warn if limit.warn is not None else limit.fail
        verdict, msg = Verdict.PASS, f"{what}: at most {most}"
    return Check(name, "open_disputes", float(n), _f(limit.fail), _f(limit.warn), verdict, msg)


def _f(x: int | None) -> float | None:
    return None if x is None else float(x)


def summary(lc: FieldLifecycle) -> str:
    """The disputes by state in words.

    Parameters
    ----------
    lc
        A field's disputes by state.

    Returns
    -------
    str
        e.g. "57 disputed: 12 resolved, 8 settled, 9 routed, 28 open".

    Examples
    --------
    >>> summary(FieldLifecycle({1: State("open"), 2: State("resolved", "A")}))
    '2 disputed: 1 resolved, 0 settled, 0 routed, 1 open'
    """
    parts = ", ".join(f"{lc.count(s)} {s}" for s in reversed(STATES))
    return f"{len(lc.states)} disputed: {parts}"


__all__ = [
    "BASIS",
    "FINAL",
    "STATES",
    "FieldLifecycle",
    "State",
    "field_lifecycle",
    "open_disputes_check",
    "split",
    "summary",
]
