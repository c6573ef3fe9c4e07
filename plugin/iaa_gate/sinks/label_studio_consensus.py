"""The consensus as a Label Studio prediction on each disputed task (``writeback.consensus``).

A reviewer opening a disputed task sees the proposed answer drawn, as a prediction with
``model_version`` :data:`MODEL_VERSION` and the consensus posterior as its ``score``, and accepts
or fixes it. Each task has at most one such prediction, holding one result per disputed field
with a settled consensus (a tie proposes nothing); its score is the lowest posterior of them,
and each result item carries its own field's posterior as ``score``.

iaa-gate owns only predictions of :data:`MODEL_VERSION`: a re-run replaces its own prediction
in place (``PATCH``) when the proposal changed, deletes it when the task is no longer disputed,
and never touches another prediction or anything else of the task. Like the flags, the plan is
made from the pulled tasks and each task's predictions are read again right before a write; a
task whose own prediction is already as wanted is not written (idempotent).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from msgspec import UNSET

from ..adapters.label_studio.client import LabelStudioClient, LabelStudioError
from ..adapters.label_studio.label_config import Control, parse_label_config
from ..adapters.label_studio.project import LabelStudioProject, PulledTask
from ..adapters.label_studio.rules import (
    CONSENSUS_MODEL_VERSION,
    CONSENSUS_PREDICTION_KEY,
    needs_label,
    plain_id,
)
from ..adapters.label_studio.wire import Prediction, ResultItem, Task, is_prediction, is_task
from ..evaluation.lifecycle import FINAL
from ..evaluation.results import Consensus, FieldResult
from ..evaluation.sections import ConsensusWriteback, Planned
from ..kinds import AnswerError
from ..kinds import kind as registered
from ..metrics.geometry import shape_of
from ..model import RoundFilter, TaskId

MODEL_VERSION = CONSENSUS_MODEL_VERSION
"""The ``model_version`` of iaa-gate's own predictions: the only ones it writes or deletes."""


def _scale(region: dict[str, Any], size: tuple[float, float] | None) -> tuple[float, float]:
    """Pixels per percent of the image: from the region's ``original_width`` and
    ``original_height``, else the task's image ``size`` (1, 1: the region is in percent)."""
    w, h = region.get("original_width"), region.get("original_height")
    if isinstance(w, (int, float)) and isinstance(h, (int, float)) and w > 0 and h > 0:
        return w / 100.0, h / 100.0
    return (size[0] / 100.0, size[1] / 100.0) if size is not None else (1.0, 1.0)


class NotDrawable(ValueError):
    """A consensus that cannot be written in the control's result shape (the reason)."""


def _region_value(
    kind: str, region: dict[str, Any], size: tuple[float, float] | None
) -> dict[str, object]:
    """One consensus region (``label`` and the geometry keys of the report's regions: ``start``
    and ``end`` (characters), ``x``/``y``/``width``/``height``/``rotation`` (percent of the
    image, or pixels when the region or the task's image ``size`` gives the image's size, as
    regions read with ``original_width`` are), ``points`` or keypoint ``x``/``y``) as a result
    ``value``."""
    scale = _scale(region, size)
    # only the kinds that say so are drawn: HyperText and paragraph spans (XPath-relative
    # offsets), time series… are counted as not drawn
    k = registered(kind)
    draw = shape_of(k.shape).drawn if k is not None and k.drawn and k.shape else None
    if draw is None:
        raise NotDrawable(f"{kind} regions cannot be drawn from their offsets")
    value = draw(region, scale)
    label = region.get("label")
    if needs_label(kind):
        if not label:
            raise NotDrawable(f"a {kind} region needs a label")
        value[kind] = [label]
    return value


def result_items(
    control: Control,
    consensus: Consensus,
    to_name: str,
    size: tuple[float, float] | None = None,
) -> list[ResultItem]:
    """The Label Studio ``result`` items proposing ``consensus`` for field ``control``.

    Scalar controls give one item (``choices``: a label or a label list; ``taxonomy``: paths
    written ``"a / b"``; ``rating``, ``number``; ``textarea``); region controls one item per
    consensus region, ids ``iaa-<field>-<n>``, each scored by its own ``posterior`` when it
    has one; ``size``: the task's image size in pixels (see :func:`_region_value`). Raises
    :class:`NotDrawable`."""
    kind, name, v = control.kind, control.name, consensus.value
    if control.note.endswith("scored on matched regions"):
        raise NotDrawable("a per-region attribute is proposed with its region, not on its own")
    base: ResultItem = {"from_name": name, "to_name": to_name, "type": kind, "origin": "prediction"}
    score = round(float(consensus.posterior), 4)
    k = registered(kind)
    if k is not None and k.propose is not None:  # one answer: in the kind's result shape
        try:
            value = k.propose(v)
        except AnswerError as e:
            raise NotDrawable(str(e)) from None
        return [{**base, "value": value, "score": score}]
    if not isinstance(v, list):
        raise NotDrawable(f"a {kind} consensus must be a list of regions")
    return [
        {
            **base,
            "id": f"iaa-{name}-{i}",
            "value": _region_value(kind, r, size),
            "score": round(float(r.get("posterior", score)), 4),
        }
        for i, r in enumerate(v)
    ]


@dataclass
class Proposal:
    """What one task's own prediction should hold: ``result`` items and ``score``."""

    result: list[ResultItem]
    score: float

    def body(self) -> Prediction:
        return {"result": self.result, "score": self.score, "model_version": MODEL_VERSION}


def as_read_back(value: object) -> object:
    """``value`` as it reads back from Label Studio's JSON (tuples → lists, int keys → str,
    anything else JSON lacks as its text), to compare what is there with what would be
    written."""
    return json.loads(json.dumps(value, allow_nan=False, default=str))


def _same(prediction: Prediction, proposal: Proposal | None) -> bool:
    """Whether an existing prediction already holds ``proposal``."""
    if proposal is None:
        return False
    score = prediction.get("score")
    return (
        isinstance(score, (int, float))
        and abs(float(score) - proposal.score) < 1e-9
        and as_read_back(prediction.get("result")) == as_read_back(proposal.result)
    )


def _what(answer: object) -> str:
    """What a re-read answered instead of the task, for the message."""
    if answer is None:
        return "an empty body"
    if isinstance(answer, dict):
        return f"task {answer['id']!r}" if "id" in answer else "an object with no id"
    return f"a JSON {type(answer).__name__}"


def read_task(api: LabelStudioClient, task: TaskId) -> Task:
    """Task ``task`` as it is now (``GET api/tasks/{task}/``), before a write merges into it.

    An answer that is not the task (an empty body, another task) raises a transient
    :class:`LabelStudioError`: it is never taken for the task, nor for a person's edit.

    Parameters
    ----------
    api
        The project's client.
    task
        The task's id.

    Returns
    -------
    Task
        The task as the API returns it (``id``, ``data``, ``meta``, ...).

    Examples
    --------
    >>> class Empty:
    ...     url, where = "http://ls", "project 1"
    ...     def request(self, *args, **kwargs): return None
    >>> read_task(Empty(), 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iaa_gate.adapters.label_studio.client.LabelStudioError: ... with an empty body, not the task ...
    """
    now = api.request("GET", f"api/tasks/{task}/", f"re-reading task {task}")
    if not is_task(now) or now["id"] != task:
        raise LabelStudioError(  # never taken for an edit: that would skip the task
            f"Label Studio on {api.url} answered re-reading task {task} with "
            f"{_what(now)}, not the task ({api.where})",
            hint="a re-run writes it",
            transient=True,
        )
    return now


@dataclass
class ConsensusPredictions:
    """Writes the consensus predictions of one run into the pulled ``source`` project (into
    ``tasks``, when not the source's pulled ones)."""

    source: LabelStudioProject
    round: RoundFilter = field(default_factory=RoundFilter)
    ties: int = 0
    """Disputed answers of the last plan whose best answers tie: no proposal."""
    scope: list[TaskId] = field(default_factory=list)
    """The tasks of the last plan: those whose meta :meth:`record` brings up to date."""
    tasks: dict[TaskId, PulledTask] | None = None
    meta_key: str | None = None
    """The key of iaa-gate's ``meta`` entry (``writeback.meta_key``): each task's entry records
    the id of its consensus prediction there, since a JSON export lists predictions by id
    only (None: not recorded)."""

    @property
    def pulled(self) -> dict[TaskId, PulledTask]:
        """The tasks in scope as pulled (and updated as they are written)."""
        return self.source.tasks if self.tasks is None else self.tasks

    def controls(self) -> dict[str, Control]:
        """The labeling config's controls by name (each with its ``to_name``)."""
        if not self.source.label_config:
            return {}
        return {c.name: c for c in parse_label_config(self.source.label_config)}

    def plan(
        self, results: dict[str, FieldResult], warnings: list[str]
    ) -> dict[TaskId, Proposal | None]:
        """Each task in scope → its wanted proposal (None: it should have none): disputed tasks
        with a settled consensus, and every task in scope that has an own prediction now. In
        scope, as for the flags: the tasks evaluated in this run and, without a date window,
        every pulled task of the round."""
        controls = self.controls()
        items: dict[TaskId, list[ResultItem]] = {}
        scores: dict[TaskId, list[float]] = {}
        ties = undrawn = 0
        for name in sorted(results):
            control = controls.get(name)
            states = results[name].states or {}
            for u in results[name].disputed:
                c = u.consensus
                if c is None or u.id not in self.pulled or states.get(u.id) in FINAL:
                    continue  # a settled or resolved dispute has its answer: no proposal
                if c.tie:
                    ties += 1
                    continue
                try:
                    if control is None or not control.to_name:
                        raise NotDrawable(f"field {name!r} is not in the labeling config")
                    size = self.pulled[u.id].image_size
                    found = result_items(control, c, control.to_name, size)
                except (NotDrawable, KeyError, TypeError, ValueError) as exc:
                    undrawn += 1
                    if undrawn == 1:
                        warnings.append(
                            f"consensus of task {u.id}, field {name!r} not written: {exc}"
                        )
                    continue
                items.setdefault(u.id, []).extend(found)
                scores.setdefault(u.id, []).append(round(float(c.posterior), 4))
        if undrawn > 1:
            warnings.append(f"{undrawn} consensus answer(s) in all could not be written")
        plan: dict[TaskId, Proposal | None] = {
            t: Proposal(found, min(scores[t])) for t, found in items.items()
        }
        evaluated = {u.id for r in results.values() for u in r.units}
        dated = self.round.start is not None or self.round.end is not None
        for task, pulled in self.pulled.items():
            if not pulled.predictions or task in plan:
                continue
            if task in evaluated or (not dated and self.round.keeps_task(task)):
                plan[task] = None
        self.ties, self.scope = ties, list(plan)
        return plan

    def apply(
        self,
        results: dict[str, FieldResult],
        *,
        dry_run: bool,
        warnings: list[str],
        record: bool = True,
    ) -> ConsensusWriteback:
        """Write the plan; the counts: ``created``, ``replaced``, ``deleted``, ``unchanged``,
        ``ties`` (disputed answers with no settled proposal), ``failed``. ``record``: then
        record each task's prediction id in its meta (else the caller does, see
        :meth:`record`)."""
        plan = self.plan(results, warnings)
        counts = {"created": 0, "replaced": 0, "deleted": 0, "unchanged": 0, "failed": 0}
        changes: list[tuple[TaskId, Proposal | None]] = []
        for task, proposal in sorted(plan.items(), key=lambda kv: (isinstance(kv[0], str), kv[0])):
            own = self.pulled[task].predictions
            if len(own) == 1 and _same(own[0], proposal):
                counts["unchanged"] += 1
            else:
                changes.append((task, proposal))
        if not dry_run:
            for task, proposal in changes:
                try:
                    outcome = self._write_one(task, proposal)
                except LabelStudioError as exc:
                    counts["failed"] += 1
                    warnings.append(
                        f"consensus prediction of task {task} not written: {exc.message}"
                    )
                    continue
                for key in outcome:
                    counts[key] += 1
        if record and not dry_run:
            self.record(warnings)
        return ConsensusWriteback(
            model_version=MODEL_VERSION,
            dry_run=dry_run,
            planned=len(changes),
            proposals=sum(p is not None for p in plan.values()),
            ties=self.ties,
            **counts,
            changes=[Planned(t, "proposal" if p is not None else "none") for t, p in changes]
            if dry_run
            else UNSET,
        )

    def record(self, warnings: list[str]) -> None:
        """Record the id of each planned task's own prediction in its ``meta`` entry (see
        :meth:`prediction_id`); the tasks whose entry already holds it are not written."""
        for task in self.scope:  # also the unchanged: a project written before ids were kept
            try:
                self._record(task)
            except LabelStudioError as exc:
                warnings.append(
                    f"the consensus prediction of task {task} not recorded in its meta: "
                    f"{exc.message}"
                )

    def prediction_id(self, task: TaskId) -> int | str | None:
        """The id of the task's own prediction as last read or written (None: it has none),
        which its ``meta`` entry records."""
        ids = [p.get("id") for p in self.pulled[task].predictions if isinstance(p, dict)]
        return ids[0] if ids and plain_id(ids[0]) else None

    def _record(self, task: TaskId) -> bool:
        """Record the id of the task's own prediction in its ``meta`` entry (removed when it
        has none); whether the task was written. The entry is the one the flags have just
        brought up to date; a task without an entry is left alone. The id is merged into the
        task's meta as it is now (read again): a person may have changed it since the pull or
        the flags' write (their flags were then skipped), and their keys and values stay."""
        pulled, key = self.pulled[task], self.meta_key
        entry = pulled.meta.get(key) if key is not None else None
        if key is None or not isinstance(entry, dict):
            return False
        want = self.prediction_id(task)
        if entry.get(CONSENSUS_PREDICTION_KEY) == want:
            return False
        now = read_task(self.source.api, task).get("meta")
        meta = now if isinstance(now, dict) else {}
        entry = meta.get(key)
        if not isinstance(entry, dict) or entry.get(CONSENSUS_PREDICTION_KEY) == want:
            pulled.meta = meta  # the entry is gone (a person's choice) or already records it
            return False
        kept = {k: v for k, v in entry.items() if k != CONSENSUS_PREDICTION_KEY}
        meta = {**meta, key: kept if want is None else {**kept, CONSENSUS_PREDICTION_KEY: want}}
        self.source.api.request(
            "PATCH",
            f"api/tasks/{task}/",
            f"recording the consensus prediction of task {task}",
            body={"meta": meta},
        )
        pulled.meta = meta
        return True

    def _write_one(self, task: TaskId, proposal: Proposal | None) -> list[str]:
        """Read the task's own predictions again, then make them exactly ``proposal``: the
        first is replaced in place (or kept when it already holds it), any other is deleted."""
        api = self.source.api
        listed = api.request(
            "GET",
            "api/predictions/",
            f"reading the predictions of task {task}",
            params={"task": task},
        )
        own = sorted(
            (
                p
                for p in listed or []
                if is_prediction(p)
                and p.get("model_version") == MODEL_VERSION
                and p.get("task") in (task, None)
            ),
            key=lambda p: int(p["id"]),
        )
        done: list[str] = []
        keep = own[:1] if proposal is not None else []
        for extra in own[len(keep) :]:
            api.request(
                "DELETE",
                f"api/predictions/{extra['id']}/",
                f"deleting a prediction of task {task}",
                absent=(404,),
            )
            done.append("deleted")
        if proposal is None:
            self.pulled[task].predictions = []
            return done
        doing = f"writing the consensus prediction of task {task}"
        if keep and _same(keep[0], proposal):
            kept = keep[0]
            done = done or ["unchanged"]
        elif keep:
            kept = api.request(
                "PATCH", f"api/predictions/{keep[0]['id']}/", doing, body=proposal.body()
            )
            done.append("replaced")
        else:
            kept = api.request(
                "POST", "api/predictions/", doing, body={"task": task, **proposal.body()}
            )
            done.append("created")
        self.pulled[task].predictions = [kept] if is_prediction(kept) else []
        return done
