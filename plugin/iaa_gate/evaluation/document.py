"""The report document, built as typed msgspec Structs (:class:`Report`) from the gate's results.

Its shape is versioned (``schema_version``); its JSON Schema is generated from the Structs
(:func:`report_schema`, ``plugin/iaa_gate/schemas/report.schema.json``);
scripts rely on ``verdict`` and ``fields.<name>.{alpha, alpha_undefined_reason, categories,
n_disputed, disputed.lowest[].id, disputed.lowest[].score}``. The document keeps the first
:data:`LOWEST` disputed tasks per field in review order (by priority, highest first, then by
score); every disputed task is a row of
:func:`disputed_tasks`, written beside it as :data:`DISPUTED_FILE`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from typing import Any, Literal, overload

import msgspec
import numpy as np
import numpy.typing as npt

from .. import metrics
from ..adapters import SourceValue
from ..config import WidthThreshold
from ..core.version import __version__
from ..metrics import undefined_reason
from ..model import SourceStats, TaskId, annotator
from .coefficients import DESCRIPTION, Estimate
from .gate import (
    Check,
    Verdict,
    VerdictName,
    interval_width,
    small_sample,
    width_goal,
    worst,
)
from .lifecycle import BASIS, STATES, FieldLifecycle, State
from .results import (
    Consensus,
    FieldResult,
    FieldTruth,
    Skill,
    UnitResult,
    UnitTable,
    unit_scores,
    with_status,
)
from .sections import (
    CategoriesUsed,
    Coincidence,
    Details,
    Models,
    Regions,
    Round,
    Trend,
    TruthSetup,
    Writeback,
    plain,
)

SCHEMA_VERSION: Literal[2] = 2
"""2: ``fields.<name>.disputed`` became ``{file, lowest}``, the full list moved to
:data:`DISPUTED_FILE` (1: ``disputed`` was the list of every disputed task)."""
LOWEST = 100
"""Disputed tasks per field kept in the document: the lowest scores."""
DISPUTED_FILE = "disputed-tasks.jsonl"
"""Every disputed task, one JSON line per (field, task), beside ``report.json``."""


class Tool(msgspec.Struct):
    """What wrote the report: ``name`` ``iaa-gate`` and its ``version``."""

    name: Literal["iaa-gate"]
    version: str


class InvalidRecord(msgspec.Struct):
    """A record skipped with ``--skip-invalid``: ``where`` (task, line or row), ``field``,
    ``part`` (a region or column inside it), ``code`` (``invalid_task``, ``invalid_line``,
    ``invalid_row``) and ``message``."""

    where: str
    field: str | None
    code: str
    message: str
    part: str | None = None


class Input(msgspec.Struct):
    """What the source read and set aside (counts of annotations unless named): ``tasks``;
    ``annotations``; ``cancelled`` (skips); ``superseded`` (replaced by the same annotator's
    later one); ``ignored`` (Prodigy ignore); ``empty`` selections; ``invalid_skipped`` records
    with ``invalid_examples`` (the first 10, as text) and ``invalid`` (the first 1,000,
    structured); ``ground_truth_excluded`` references left out of agreement;
    ``outside_round``; ``annotators`` (people with at least one rating)."""

    tasks: int
    annotations: int
    cancelled: int
    superseded: int
    ignored: int
    empty: int
    invalid_skipped: int
    invalid_examples: list[str]
    invalid: list[InvalidRecord]
    ground_truth_excluded: int
    outside_round: int
    annotators: int


class CheckReport(msgspec.Struct):
    """One threshold applied to one number: ``name``, the ``value`` checked (null: undefined),
    the ``fail``/``warn`` thresholds (null: not set), the ``verdict`` (pass, warn, fail) and the
    ``message`` saying why."""

    name: str
    value: float | None
    fail: float | None
    warn: float | None
    verdict: VerdictName
    message: str


class CoefficientReport(msgspec.Struct):
    """One coefficient: ``value`` (null: undefined, with ``undefined_reason``), its standard
    error ``se``, interval ``lower``–``upper`` at ``confidence``, the band it falls in
    (``interpretation`` on ``scale``; Gwet's ``benchmark``), ``q`` (alpha: the probability it is
    below the fail threshold), ``description`` and ``ignores_order`` (exact matches only on an
    ordered field)."""

    value: float | None
    undefined_reason: str | None
    se: float | None
    lower: float | None
    upper: float | None
    confidence: float | None
    interpretation: str | None
    scale: str | None
    benchmark: str | None
    q: float | None
    description: str
    ignores_order: bool


class LowestCategory(msgspec.Struct):
    """The category with the lowest agreement: its ``label`` and ``rate`` (0–1)."""

    label: str
    rate: float


class AnnotatorReport(msgspec.Struct, omit_defaults=True):
    """One annotator of a field (see :class:`~iaa_gate.evaluation.results.AnnotatorResult`);
    ``left_share`` only on pairwise preference fields."""

    id: str
    name: str
    n_units: int
    pair_agreement: float | None
    alpha_without: float | None
    alpha_gain: float | None
    outlier: bool
    mean_offset: float | None
    left_share: float | None = None


class Pairwise(msgspec.Struct):
    """Annotator × annotator: the ``annotators`` (rows and columns), the ``agreement`` (share
    of shared tasks with the same value; null on the diagonal and without shared tasks) and
    ``shared`` (tasks both rated)."""

    annotators: list[str]
    agreement: list[list[float | None]]
    shared: list[list[int]]


class ScoreHistogram(msgspec.Struct):
    """Tasks per score bin: ``counts`` between consecutive ``edges`` (0 to 1)."""

    edges: list[float]
    counts: list[int]


class LowestTask(msgspec.Struct, omit_defaults=True, gc=False):
    """A disputed task in ``disputed.lowest``: its ``id``, ``score``, each annotator's
    ``labels``, for region fields ``details``, and where a consensus was found its
    ``priority`` (1 − the consensus posterior) and ``consensus`` (``value``, ``posterior``,
    ``method``, ``tie``); with ``adjudication:`` its ``state``, ``final`` answer and ``note``.
    A struct, not a dict: the collector does not track it (it holds no cycle), so half a
    million of them (10^6 tasks) take ~0.05 s to make, where dicts took ~0.4 s of rescans."""

    id: TaskId
    score: float | None
    labels: dict[str, Any]
    details: Details | None = None
    priority: float | None = None
    consensus: Consensus | None = None
    state: str | None = None
    """With ``adjudication:``: open, routed, settled or resolved (see :mod:`.lifecycle`)."""
    final: Any = None
    """A settled or resolved task's final answer (the consensus, or the adjudicated one)."""
    note: str | None = None
    """Why an open task needs a person ("needs a person: 5 annotations, no majority")."""


class DisputedTask(LowestTask, kw_only=True, omit_defaults=True, gc=False):
    """One disputed task of a field, a :class:`LowestTask` that names its ``field``: a line of
    :data:`DISPUTED_FILE`."""

    field: str


Disputed = dict[str, Sequence[DisputedTask]]
"""Field name → every disputed task of the field, by task id (:func:`disputed_tasks`)."""


REVIEW_ORDER = "priority, highest first (1 − the consensus posterior); then score, lowest first"


class DisputedReport(msgspec.Struct):
    """Where every disputed task is (``file``, beside report.json) and the first :data:`LOWEST`
    in review order (``lowest``, ordered as ``order`` says: by priority, highest first, then by
    score, lowest first)."""

    file: str
    lowest: list[LowestTask]
    order: str = REVIEW_ORDER


class AlphaSampling(msgspec.Struct):
    """Alpha's expected disagreement was estimated from ``pairs`` drawn pairs of ratings
    (``expected_sample``): ``standard_error`` is alpha's from that sampling (null: undefined)."""

    pairs: int
    standard_error: float | None


class IntervalWidth(msgspec.Struct):
    """How wide alpha's confidence interval is, beside alpha: ``width`` (upper − lower; null
    when alpha has no interval, with ``undefined_reason``) at ``confidence``, over
    ``n_tasks`` tasks with two or more ratings; the ``goal`` (the field's
    ``thresholds.interval_width``, its warn bar or else its fail bar; null: none set) and, when
    the interval is wider than the goal, ``more_tasks``: about how many more such tasks would
    narrow it to the goal, if it shrinks as 1/√n (null otherwise)."""

    width: float | None
    undefined_reason: str | None
    confidence: float | None
    n_tasks: int
    goal: float | None = None
    more_tasks: int | None = None


class AdjudicatedAgreement(msgspec.Struct):
    """One annotator against the adjudicated answers: ``n_tasks`` compared and the mean
    ``agreement`` (0–1; null: undefined)."""

    id: str
    name: str
    n_tasks: int
    agreement: float | None


class DisputeStates(msgspec.Struct):
    """A field's disputes by state (with ``adjudication:``; see :mod:`.lifecycle`):
    ``n_disputed``; ``states`` (open, routed, settled, resolved → tasks); ``needs_a_person``
    (open after routing to the most annotators allowed); ``n_adjudicated`` (tasks, disputed or
    not, with one agreed adjudicated answer) and ``conflicting`` (tasks whose adjudications
    disagree: left open); ``proposal_confirmed`` of ``proposal_compared`` resolved tasks
    whose adjudicated answer equals the consensus proposal; each annotator's ``agreement``
    with the adjudicated answers, compared as ``comparison`` says, on ``basis`` (disputed tasks,
    not a random sample)."""

    n_disputed: int
    states: dict[str, int]
    needs_a_person: int
    n_adjudicated: int
    conflicting: list[TaskId]
    proposal_confirmed: int
    proposal_compared: int
    comparison: str | None
    agreement: list[AdjudicatedAgreement]
    basis: str


class FieldReport(msgspec.Struct):
    """One field of the report (the attributes of
    :class:`~iaa_gate.evaluation.results.FieldResult`, JSON-ready: undefined numbers are null
    with their reason), its ``checks`` and ``verdict``, the per-task tallies (``n_agreed``,
    ``n_disputed``, ``n_too_few``) under ``disputed_below`` (and ``disputed_tolerance``),
    ``regions`` for region fields, ``skill`` (Dawid–Skene), ``categories_used`` (ordered fields:
    the categories of the kappa family and AC2, and their source) and ``small_sample`` (why the
    round is too small to judge, else null)."""

    kind: str
    level: str
    multiple: bool
    n_tasks: int
    n_rated: int
    n_pairable: int
    n_annotators: int
    n_ratings: int
    alpha: float | None
    alpha_undefined_reason: str | None
    coefficients: dict[str, CoefficientReport]
    verdict: VerdictName
    checks: list[CheckReport]
    category_method: str
    categories: dict[str, float | None]
    categories_undefined: dict[str, str | None]
    lowest_category: LowestCategory | None
    coincidence: Coincidence | None
    annotators: list[AnnotatorReport]
    pairwise: Pairwise | None
    score_histogram: ScoreHistogram
    ground_truth: FieldTruth | None
    disputed_below: float
    disputed_tolerance: float | None
    n_agreed: int
    n_disputed: int
    n_too_few: int
    disputed: DisputedReport
    regions: Regions | None
    skill: Skill | None = None
    categories_used: CategoriesUsed | None = None
    small_sample: str | None = None
    alpha_sampling: AlphaSampling | None = None
    interval_width: IntervalWidth | None = None
    disputes: DisputeStates | None = None
    """With ``adjudication:``: the disputes by state."""


class AltTestHuman(msgspec.Struct):
    """One left-out human of a model's alt-test: ``n_instances`` shared with the model (on
    instances with enough humans), whether they were ``tested`` (``min_instances`` or more), the
    one-sided t-test's ``p_value`` (null: not tested, or undefined with its reason), whether the
    null was ``rejected`` (the model wins against them) and the ``decision`` in words,
    mean(W_model) ``model_advantage`` and mean(W_h) ``human_advantage``, and the human's and the
    model's mean score against the remaining humans (``human_score``, ``model_score``: accuracy
    or mean agreement, or RMSE for ratings)."""

    id: str
    name: str
    n_instances: int
    tested: bool
    p_value: float | None
    p_value_undefined_reason: str | None
    rejected: bool | None
    decision: str
    model_advantage: float | None
    human_advantage: float | None
    human_score: float | None
    model_score: float | None


class AltTestConsensus(msgspec.Struct):
    """The model against the humans' consensus (``model``) next to each human against the
    consensus of the others (``humans``, pooled): ``measure`` says which (accuracy against the
    majority label, RMSE against the median rating); ``n_tasks`` with a consensus."""

    measure: str
    model: float | None
    humans: float | None
    n_tasks: int


class LabelShare(msgspec.Struct):
    """One label's share of the model's answers and of the humans' answers."""

    model: float
    humans: float


class AltTestVersion(msgspec.Struct):
    """One model version's alt-test on one field: how answers are scored (``scoring``), the
    settings (``epsilon``, ``q``, ``min_instances``, ``min_humans``), the ``n_instances`` used,
    ``n_humans_tested``, the winning rate ω (``winning_rate``) and advantage probability ρ
    (``advantage_probability``), whether it ``passed`` (ω ≥ 0.5; null: not tested, with the
    reason in ``not_tested``), each human, the comparison with the humans' ``consensus``, the
    label distribution (``labels``, label fields) or ``mean_offset`` (ratings: model − the
    humans' mean)."""

    model_version: str
    scoring: str
    epsilon: float
    q: float
    min_instances: int
    min_humans: int
    n_instances: int
    n_humans_tested: int
    winning_rate: float | None
    advantage_probability: float | None
    passed: bool | None
    not_tested: str | None
    humans: list[AltTestHuman]
    consensus: AltTestConsensus | None
    labels: dict[str, LabelShare] | None
    mean_offset: float | None


class AltTestReport(msgspec.Struct):
    """The alternative annotator test: the ``model_versions`` in the round and, per field, each
    version's :class:`AltTestVersion`."""

    model_versions: list[str]
    fields: dict[str, list[AltTestVersion]]


class Review(msgspec.Struct, frozen=True):
    """The disputed tasks to review: ``count`` in all (``by_field``), ``where`` to find them and,
    with ``adjudication:``, how many are in each dispute state (``states``)."""

    count: int
    where: str
    by_field: dict[str, int]
    states: dict[str, int] = {}


class TalkTo(msgspec.Struct, frozen=True):
    """An annotator to talk to (``id``, ``name`` as the reports show it) and ``why``."""

    id: str
    name: str
    why: str


class Revisit(msgspec.Struct, frozen=True):
    """A field whose guideline to revisit, and ``why`` (its least agreed category, or the
    offset of a scale)."""

    field: str
    why: str


class NextSteps(msgspec.Struct, frozen=True):
    """What to do next: what the ``meaning`` of the verdict is, the disputed tasks to
    ``review``, the annotators to ``talk_to`` and the fields whose guideline to ``revisit``
    (built by :func:`.next_steps.next_steps`)."""

    meaning: str
    review: Review | None
    talk_to: list[TalkTo]
    revisit: list[Revisit]

    def lines(self) -> list[str]:
        """The next steps as sentences, the verdict's meaning first.

        Returns
        -------
        list of str
            One sentence per step.

        Examples
        --------
        >>> NextSteps("pass: fine.", None, [], []).lines()
        ['pass: fine.', 'no disputed task to review']
        """
        out = [self.meaning]
        r = self.review
        if r is None or not r.count:
            out.append("no disputed task to review")
        else:
            per = ", ".join(f"{n} on {f}" for f, n in r.by_field.items() if n)
            line = f"review {r.count} disputed task{'s' * (r.count != 1)} ({per}) in {r.where}"
            if r.states:
                line += " (" + ", ".join(f"{n} {s}" for s, n in r.states.items()) + ")"
            out.append(line)
        out += [f"talk to {annotator(t.name)}: {t.why}" for t in self.talk_to]
        out += [f"revisit the guideline for {v.field}: {v.why}" for v in self.revisit]
        return out


class Report(msgspec.Struct):
    """The whole report (``report.json``): ``schema_version``, the ``tool``, when it was
    ``generated_at`` (UTC, ISO 8601), the overall ``verdict``, the ``source`` (never a secret)
    and ``round``, what was read (``input``), each field's report, the fields present but not
    evaluated (``not_evaluated``: name → control type), and, when there are any, the
    ``writeback`` summary, the ``trend`` since the last round, the ``ground_truth`` setup and
    the ``models`` (model predictions against the human consensus) and their ``alt_test``."""

    schema_version: Literal[2]
    tool: Tool
    generated_at: str
    verdict: VerdictName
    source: dict[str, SourceValue]
    round: Round | None
    input: Input
    fields: dict[str, FieldReport]
    not_evaluated: dict[str, str]
    writeback: Writeback | None = None
    trend: Trend | None = None
    ground_truth: TruthSetup | None = None
    models: Models | None = None
    """Model predictions against the human consensus (see :mod:`.models`), when there are any."""
    alt_test: AltTestReport | None = None
    """The alternative annotator test of each model version (see :mod:`.alt_test`)."""
    next_steps: NextSteps | None = None
    """What to do next (see :mod:`.next_steps`)."""


def as_json_data(report: Report) -> dict[str, object]:
    """The report as JSON data (dicts, lists, numbers, strings): what ``report.json`` holds and
    what a script reads; the report formats, the trend and the CLI read the :class:`Report`."""
    data = msgspec.to_builtins(report, enc_hook=plain)
    assert isinstance(data, dict)  # a Struct encodes as an object
    return data


def decode_report(data: bytes | str) -> Report:
    """A ``report.json`` of this :data:`SCHEMA_VERSION` as the typed :class:`Report` (an
    earlier version: :class:`~iaa_gate.evaluation.trend.Earlier`, what the trend reads of it).

    Parameters
    ----------
    data
        The content of a ``report.json``.

    Returns
    -------
    Report
        The report, read by attribute (``report.fields["sentiment"].alpha``).

    Raises
    ------
    msgspec.ValidationError
        The data is JSON but not a report of this version (the message names the key).

    Examples
    --------
    >>> import msgspec
    >>> decode_report(b"{}")
    Traceback (most recent call last):
    ...
    msgspec.ValidationError: Object missing required field `schema_version`
    """
    return msgspec.json.decode(data, type=Report)


def report_schema() -> dict[str, object]:
    """The JSON Schema of ``report.json``, generated from :class:`Report`; ``$defs`` also
    holds :class:`DisputedTask`, a line of :data:`DISPUTED_FILE`
    (``plugin/iaa_gate/schemas/report.schema.json``, shipped in the wheel, and
    ``config/report.schema.json``; ``iaa-gate schema --report`` prints it)."""
    (schema, _), components = msgspec.json.schema_components(
        [Report, DisputedTask], ref_template="#/$defs/{name}"
    )
    schema = {**schema, "$defs": components}
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"iaa-gate report.json, schema_version {SCHEMA_VERSION}"
    return schema


def num(x: float | None) -> float | None:
    """A finite float, or None (JSON null) for NaN/undefined."""
    if x is None or math.isnan(x):
        return None
    return float(x)


def _id_key(task: TaskId) -> tuple[int, Any]:
    return (0, task) if isinstance(task, int) else (1, str(task))


def _check(c: Check) -> CheckReport:
    return CheckReport(c.name, num(c.value), c.fail, c.warn, c.verdict.word, c.message)


def _estimate(e: Estimate) -> CoefficientReport:
    return CoefficientReport(
        value=num(e.value),
        undefined_reason=undefined_reason(e.value),
        se=e.se,
        lower=e.lower,
        upper=e.upper,
        confidence=e.confidence,
        interpretation=e.interpretation,
        scale=e.scale,
        benchmark=e.benchmark,
        q=e.q,
        description=DESCRIPTION[e.name],
        ignores_order=e.ignores_order,
    )


SCORE_BINS = 20


def _pairwise(result: FieldResult) -> Pairwise | None:
    pw = result.pairwise
    if pw is None:
        return None
    return Pairwise(
        [a.name for a in result.annotators],
        [[num(x) for x in row] for row in pw.agreement.round(6).tolist()],
        pw.shared.tolist(),
    )


def _score_histogram(scores: np.ndarray[Any, np.dtype[np.float64]]) -> ScoreHistogram:
    """``scores``: the per-task scores, NaN for a task too few annotators rated."""
    counts, edges = np.histogram(scores[~np.isnan(scores)], bins=SCORE_BINS, range=(0.0, 1.0))
    return ScoreHistogram(edges.round(6).tolist(), counts.tolist())


def disputed_tasks(
    name: str, units: Sequence[UnitResult], states: dict[TaskId, State] | None = None
) -> Sequence[DisputedTask]:
    """Every disputed task of field ``name`` whose units are ``units`` (its result's), in review
    order (:func:`_review_order`): a :class:`DisputedTable` for a :class:`UnitTable`.
    ``states``: each disputed task's state (:func:`.lifecycle.field_lifecycle`), when
    adjudication is set up."""
    if isinstance(units, UnitTable):  # made from the arrays, no object per unit
        return DisputedTable(name, units, states)
    disputed = with_status(units, "disputed")
    tasks = [
        _with_state(
            DisputedTask(
                field=name,
                id=u.id,
                score=u.score,
                labels=u.labels,
                details=u.details,
                priority=u.priority,
                consensus=u.consensus,
            ),
            states,
        )
        for u in disputed
    ]
    order = _review_order(
        [t.id for t in tasks], [u.priority for u in disputed], [u.score for u in disputed]
    )
    return [tasks[k] for k in order]


class DisputedTable(Sequence[DisputedTask]):
    """The disputed tasks of field ``name`` whose units are ``units``, column-wise: entry ``k``
    is unit ``at[k]`` (task ``ids[k]``, ``score[k]``, its proposal entry ``k`` of
    ``proposals``), in unit order; ``order`` lists the entries in review order, which is the
    order of the sequence. A :class:`DisputedTask` is made only when one is asked for (the
    report's first ones); the JSON sink writes them all from the columns."""

    def __init__(
        self, name: str, units: UnitTable, states: dict[TaskId, State] | None = None
    ) -> None:
        self.name, self.units, self.states = name, units, states
        self.at = units.where("disputed")
        self.proposals = units.proposals(self.at)
        self.ids = list(map(units.ids.__getitem__, self.at))
        score = units.score[self.at]
        self.score = score.tolist()
        self.order = _review_order(self.ids, self.proposals.priority, score)

    def __len__(self) -> int:
        return len(self.at)

    @overload
    def __getitem__(self, i: int) -> DisputedTask: ...
    @overload
    def __getitem__(self, i: slice) -> list[DisputedTask]: ...
    def __getitem__(self, i: int | slice) -> DisputedTask | list[DisputedTask]:
        if isinstance(i, int):
            return self._tasks([self.order[i]])[0]
        return self._tasks(self.order[i])

    def __iter__(self) -> Iterator[DisputedTask]:
        return iter(self._tasks(self.order))

    def _tasks(self, ks: list[int]) -> list[DisputedTask]:
        at = [self.at[k] for k in ks]
        labels, details = self.units.labels(at), self.units.details(at)
        p = self.proposals
        return [
            _with_state(
                DisputedTask(
                    field=self.name,
                    id=self.ids[k],
                    score=self.score[k],
                    labels=lab,
                    details=d,
                    priority=p.priority[k],
                    consensus=p.consensus(k),
                ),
                self.states,
            )
            for k, lab, d in zip(ks, labels, details, strict=True)
        ]


def _with_state(task: DisputedTask, states: dict[TaskId, State] | None) -> DisputedTask:
    """``task`` with its state, final answer and note from ``states`` (None: none kept)."""
    s = states.get(task.id) if states is not None else None
    if s is not None:
        task.state, task.final, task.note = s.state, s.final, s.note
    return task


def dispute_states(lc: FieldLifecycle) -> DisputeStates:
    """The report's :class:`DisputeStates` of one field's :class:`FieldLifecycle`."""
    truth = lc.agreement
    return DisputeStates(
        n_disputed=len(lc.states),
        states={s: lc.count(s) for s in STATES},
        needs_a_person=lc.needs_a_person(),
        n_adjudicated=len(lc.adjudicated),
        conflicting=lc.conflicting,
        proposal_confirmed=lc.confirmed,
        proposal_compared=lc.compared,
        comparison=truth.comparison if truth else None,
        agreement=[
            AdjudicatedAgreement(a.id, a.name, a.n_tasks, num(a.agreement))
            for a in (truth.annotators if truth else [])
        ],
        basis=BASIS,
    )


def id_order(ids: list[TaskId]) -> list[int]:
    """The positions of ``ids`` in task-id order, as the report lists tasks: numbers first,
    then text (integer ids sorted by numpy)."""
    n = len(ids)
    as_array = np.array(ids) if n else np.zeros(0, dtype=np.int64)
    if as_array.dtype.kind == "i":  # all numbers
        order: list[int] = np.argsort(as_array, kind="stable").tolist()
        return order
    at = list(range(n))
    try:
        at.sort(key=ids.__getitem__)  # all text: compared as it is
    except TypeError:  # numbers and text
        at.sort(key=lambda k: _id_key(ids[k]))
    return at


def _review_order(
    ids: list[TaskId], priority: list[float | None], score: npt.ArrayLike
) -> list[int]:
    """Positions in review order: priority highest first (none: last), then score lowest
    first, then task id (numbers first, then text)."""
    rank = np.array(ids) if ids else np.zeros(0, dtype=np.int64)
    if rank.dtype.kind != "i":  # text (or numbers and text): each id's rank in id order
        rank = np.empty(len(ids), dtype=np.int64)
        rank[id_order(ids)] = np.arange(len(ids))
    urgency = np.array(priority, dtype=np.float64)  # None: NaN
    urgency[np.isnan(urgency)] = -1.0
    order: list[int] = np.lexsort((rank, np.asarray(score, dtype=np.float64), -urgency)).tolist()
    return order


def lowest_scores(tasks: Sequence[DisputedTask], n: int) -> list[DisputedTask]:
    """The first ``n`` disputed tasks in review order; ``tasks`` come from
    :func:`disputed_tasks`, already in that order."""
    return list(tasks[:n])


def _interval_width(result: FieldResult, goal: float | None) -> IntervalWidth:
    width = interval_width(result)
    n = result.n_pairable
    more = None if goal is None or math.isnan(width) else metrics.more_units(n, width, goal) or None
    confidence = result.coefficients["alpha"].confidence
    return IntervalWidth(num(width), undefined_reason(width), confidence, n, goal, more)


def field_document(
    result: FieldResult,
    checks: list[Check],
    disputed: Sequence[DisputedTask],
    disputed_below: float,
    disputed_tolerance: float | None = None,
    width_bar: WidthThreshold | None = None,
    lifecycle: FieldLifecycle | None = None,
) -> FieldReport:
    """One field of the report; ``disputed``: its :func:`disputed_tasks`; ``width_bar``: its
    ``thresholds.interval_width`` (the goal its interval width is given against);
    ``lifecycle``: its disputes by state (with ``adjudication:``)."""
    lowest = result.lowest_category
    scores = unit_scores(result.units)
    too_few = int(np.count_nonzero(np.isnan(scores)))  # a task too few annotators rated: NaN
    return FieldReport(
        kind=result.kind,
        level=result.level,
        multiple=result.multiple,
        n_tasks=result.n_tasks,
        n_rated=result.n_rated,
        n_pairable=result.n_pairable,
        n_annotators=result.n_annotators,
        n_ratings=result.n_ratings,
        alpha=num(result.alpha),
        alpha_undefined_reason=undefined_reason(result.alpha),
        coefficients={name: _estimate(e) for name, e in result.coefficients.items()},
        verdict=worst([c.verdict for c in checks]).word,
        checks=[_check(c) for c in checks],
        category_method=result.category_method,
        categories={k: num(v) for k, v in result.categories.items()},
        categories_undefined={
            k: undefined_reason(v) for k, v in result.categories.items() if math.isnan(v)
        },
        lowest_category=LowestCategory(lowest[0], lowest[1]) if lowest else None,
        coincidence=result.coincidence,
        annotators=[
            AnnotatorReport(
                id=a.id,
                name=a.name,
                n_units=a.n_units,
                pair_agreement=num(a.pair_agreement),
                alpha_without=num(a.alpha_without),
                alpha_gain=num(a.alpha_gain),
                outlier=a.outlier,
                mean_offset=num(a.mean_offset),
                left_share=num(a.left_share),
            )
            for a in result.annotators
        ],
        pairwise=_pairwise(result),
        score_histogram=_score_histogram(scores),
        ground_truth=result.ground_truth,
        disputed_below=disputed_below,
        disputed_tolerance=disputed_tolerance,
        n_agreed=len(scores) - too_few - len(disputed),
        n_disputed=len(disputed),
        n_too_few=too_few,
        disputed=DisputedReport(
            DISPUTED_FILE,
            [
                LowestTask(
                    d.id,
                    d.score,
                    d.labels,
                    d.details,
                    d.priority,
                    d.consensus,
                    d.state,
                    d.final,
                    d.note,
                )
                for d in lowest_scores(disputed, LOWEST)
            ],  # without the field's name, which the report says once
        ),
        regions=result.regions,
        skill=result.skill,
        alpha_sampling=None
        if result.alpha_sampling is None
        else AlphaSampling(result.alpha_sampling[0], num(result.alpha_sampling[1])),
        categories_used=result.categories_used,
        small_sample=small_sample(result),
        interval_width=_interval_width(result, width_goal(width_bar) if width_bar else None),
        disputes=None if lifecycle is None else dispute_states(lifecycle),
    )


def with_checks(fields: dict[str, FieldReport], checks: list[Check]) -> dict[str, FieldReport]:
    """``fields`` with ``checks`` (made after the fields, e.g. ``max_drop`` from the trend)
    added to their fields; a field's verdict follows. New reports: the given ones are kept as
    they are."""
    out = dict(fields)
    for c in checks:
        f = out[c.field]
        verdict = worst([Verdict(f.verdict), c.verdict]).word
        out[c.field] = msgspec.structs.replace(f, checks=[*f.checks, _check(c)], verdict=verdict)
    return out


def build_document(
    *,
    source: dict[str, SourceValue],
    round_: Round | None,
    stats: SourceStats,
    n_annotators: int,
    fields: dict[str, FieldReport],
    not_evaluated: dict[str, str],
    generated_at: datetime | None = None,
    writeback: Writeback | None = None,
    trend: Trend | None = None,
    ground_truth: TruthSetup | None = None,
    models: Models | None = None,
    alt_test: AltTestReport | None = None,
    next_steps: NextSteps | None = None,
) -> Report:
    """The whole report, in one go; ``fields`` are :func:`field_document` outputs by field
    name (with every check: :func:`with_checks`)."""
    verdict = worst([Verdict(f.verdict) for f in fields.values()])
    return Report(
        schema_version=SCHEMA_VERSION,
        tool=Tool("iaa-gate", __version__),
        generated_at=(generated_at or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
        verdict=verdict.word,
        source=source,
        round=round_,
        input=Input(
            tasks=stats.tasks,
            annotations=stats.annotations,
            cancelled=stats.cancelled,
            superseded=stats.superseded,
            ignored=stats.ignored,
            empty=stats.empty,
            invalid_skipped=stats.invalid_skipped,
            invalid_examples=stats.invalid_examples,
            invalid=[
                InvalidRecord(p.where, p.field, p.code, p.message, p.part) for p in stats.invalid
            ],
            ground_truth_excluded=stats.ground_truth_excluded,
            outside_round=stats.outside_round,
            annotators=n_annotators,
        ),
        fields=fields,
        not_evaluated=not_evaluated,
        writeback=writeback,
        trend=trend,
        ground_truth=ground_truth,
        models=models,
        alt_test=alt_test,
        next_steps=next_steps,
    )
