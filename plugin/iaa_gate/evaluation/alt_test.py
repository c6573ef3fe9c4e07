"""The alternative annotator test of every model version on every field: may it replace a human?

Models are raters that are never ratings in agreement: Label Studio predictions (by
``model_version``), and in any source the annotator ids ``models.annotators`` names
(:func:`split_models`: a Prodigy ``*.model-annotate`` session id ``<dataset>-<name>`` matches
``<name>``). Each model version is tested on each field it answered with
:func:`iaa_gate.metrics.alt_test.alt_test`, its settings ``models.alt_test`` (per field:
``fields.<name>.models``); the field's kind decides how an answer is scored against the
remaining humans (:func:`scoring_for`):

- single labels compared by exact match (choices, a nominal number): **accuracy**, the share of
  the remaining humans giving the same answer;
- ratings and numbers (ordinal, interval, ratio): **negative RMSE** against their values;
- other kinds: the field's own comparison with ground truth (1 − the set distance of label
  sets, 1 − the text distance, pairwise F1 of matched regions), averaged over the remaining
  humans.

Beside ω and ρ: the model's accuracy (or RMSE) against the humans' consensus (the majority
label, no consensus on a tie; the median rating) next to each human's against the consensus of
the others (leave one out), the model's label distribution against the humans' (labels) or its
mean offset from the humans' mean (ratings), and the reason when it could not be tested.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..config import Config, FieldConfig
from ..metrics import Undefined, undefined_reason
from ..metrics.alt_test import AltTest, Scoring, alt_test
from ..model import Annotation, Dataset, LazyAnnotations
from .document import (
    AltTestConsensus,
    AltTestHuman,
    AltTestReport,
    AltTestVersion,
    LabelShare,
    num,
)
from .gate import Check, threshold_check
from .ground_truth import COMPARISONS
from .results import FieldResult

ORDERED_LEVELS = ("ordinal", "interval", "ratio")


def is_model(annotator: str, name: str, models: Sequence[str]) -> str | None:
    """The model in ``models`` that annotator id ``annotator`` (shown as ``name``) is: the id or
    name itself, or a Prodigy session ``<dataset>-<model>``; None: a person."""
    for m in models:
        if m in (annotator, name) or annotator.endswith(f"-{m}"):
            return m
    return None


def split_models(dataset: Dataset, config: Config) -> Dataset:
    """``dataset`` with the annotations of the annotators ``models.annotators`` names moved to
    its predictions (under the model's configured name): a model is never a rating."""
    names = config.models.annotators
    if not names:
        return dataset
    cols = dataset.columns()
    which = [is_model(a, dataset.display_name(a), names) for a in cols.annotators]
    if not any(which):
        return dataset
    per_annotator = np.array([w is not None for w in which])
    rows = per_annotator[cols.array("annotator")]
    made = cols.select(rows).annotations()
    moved = [
        replace(a, annotator=str(is_model(a.annotator, dataset.display_name(a.annotator), names)))
        for a in made
        if not a.skipped
    ]
    return replace(
        dataset,
        annotations=LazyAnnotations(cols.select(~rows)),
        predictions=[*dataset.predictions, *moved],
    )


def _value(a: Annotation, name: str) -> Any:
    fv = a.fields.get(name)
    if fv is None:
        return None
    if fv.regions is not None:
        return fv.regions
    v = fv.value
    return tuple(sorted(v)) if isinstance(v, tuple) else v


def scoring_for(
    kind: str, level: str, cfg: FieldConfig, numeric: bool
) -> tuple[Scoring | None, str]:
    """How a field's answers are scored against the remaining humans, and its name in the
    report; (None, why) when the kind has no comparison. ``numeric``: every answer is a number."""
    if numeric and level in ORDERED_LEVELS:
        return "neg_rmse", "negative RMSE"
    factory = COMPARISONS.get(kind)
    if factory is None:
        return None, f"no pairwise comparison for {kind} fields"
    compare, how = factory(level, cfg)
    if how == "exact match":
        return "accuracy", "accuracy"

    def mean_agreement(answer: Any, others: Sequence[Any]) -> float:
        return sum(compare(answer, o) for o in others) / len(others)

    return mean_agreement, f"mean {how}"


def _majority(answers: list[Any]) -> Any:
    """The most frequent answer; None on a tie (no settled consensus)."""
    top = Counter(answers).most_common(2)
    return None if len(top) > 1 and top[0][1] == top[1][1] else top[0][0]


def _consensus(values: Any, model: Any, kept: Any, scoring: Scoring) -> AltTestConsensus | None:
    """The model against the humans' consensus, next to each human against the consensus of the
    others, pooled over humans (labels: accuracy against the majority; ratings: RMSE against the
    median)."""
    if scoring not in ("accuracy", "neg_rmse"):
        return None
    ordered = scoring == "neg_rmse"
    hits_m: list[float] = []
    hits_h: list[float] = []
    for i in np.flatnonzero(kept):
        row = values[i]
        present = [j for j in range(len(row)) if _there(row[j])]
        if ordered:
            hits_m.append((float(model[i]) - float(np.median([row[j] for j in present]))) ** 2)
            for j in present:
                rest = [row[k] for k in present if k != j]
                hits_h.append((float(row[j]) - float(np.median(rest))) ** 2)
            continue
        c = _majority([row[j] for j in present])
        if c is not None:
            hits_m.append(float(model[i] == c))
        for j in present:
            c = _majority([row[k] for k in present if k != j])
            if c is not None:
                hits_h.append(float(row[j] == c))

    def pooled(xs: list[float]) -> float | None:
        if not xs:
            return None
        m = sum(xs) / len(xs)
        return round(math.sqrt(m) if ordered else m, 6)

    return AltTestConsensus(
        "RMSE against the median" if ordered else "accuracy against the majority",
        pooled(hits_m),
        pooled(hits_h),
        len(hits_m),
    )


def _there(v: Any) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def _labels(values: Any, model: Any, kept: Any) -> dict[str, LabelShare]:
    """Each label's share of the model's answers and of the humans' answers (kept instances)."""
    mine = Counter(_label(model[i]) for i in np.flatnonzero(kept))
    theirs = Counter(_label(v) for i in np.flatnonzero(kept) for v in values[i] if _there(v))
    n_m, n_h = sum(mine.values()), sum(theirs.values())
    return {
        label: LabelShare(round(mine[label] / n_m, 6), round(theirs[label] / n_h, 6))
        for label in sorted(set(mine) | set(theirs))
    }


def _label(v: Any) -> str:
    """A label as reports show it: a multi-select answer's labels joined by " + "."""
    return " + ".join(map(str, v)) if isinstance(v, tuple) else str(v)


def _offset(values: Any, model: Any, kept: Any) -> float | None:
    """The model's mean offset from the humans' mean rating (kept instances)."""
    gaps = [
        float(model[i]) - float(np.mean([float(v) for v in values[i] if _there(v)]))
        for i in np.flatnonzero(kept)
    ]
    return round(sum(gaps) / len(gaps), 6) if gaps else None


def version_report(
    test: AltTest,
    how: str,
    humans: list[tuple[str, str]],
    settings: Any,
) -> list[AltTestHuman]:
    """The per-human table of one model version's test (``humans``: (id, name) by column)."""
    out = []
    for h in test.humans:
        hid, name = humans[h.column]
        if not h.tested:
            decision = (
                f"not tested: {h.n_instances} instance(s), fewer than min_instances "
                f"{settings.min_instances}"
            )
        elif h.rejected:
            decision = "rejected: the model wins"
        else:
            decision = "not rejected"
        rmse = how == "negative RMSE"  # shown as RMSE (lower is closer)
        out.append(
            AltTestHuman(
                id=hid,
                name=name,
                n_instances=h.n_instances,
                tested=h.tested,
                p_value=num(h.p_value),
                p_value_undefined_reason=undefined_reason(h.p_value) if h.tested else None,
                rejected=h.rejected if h.tested else None,
                decision=decision,
                model_advantage=_round(h.model_advantage),
                human_advantage=_round(h.human_advantage),
                human_score=_round(-h.human_score if rmse else h.human_score),
                model_score=_round(-h.model_score if rmse else h.model_score),
            )
        )
    return out


def _round(x: float) -> float | None:
    v = num(x)
    return None if v is None else round(v, 6)


def field_alt_tests(
    name: str,
    result: FieldResult,
    cfg: FieldConfig,
    config: Config,
    humans: Sequence[Annotation],
    predictions: Sequence[Annotation],
    display: dict[str, str],
) -> list[AltTestVersion]:
    """Every model version's alt-test on field ``name`` (empty: no model answered it)."""
    by_version: dict[str, dict[Any, Any]] = {}
    for p in predictions:
        v = _value(p, name)
        if v is not None:
            by_version.setdefault(p.annotator, {})[p.task_id] = v
    if not by_version:
        return []
    answers: dict[Any, dict[str, Any]] = {}
    for a in humans:
        v = _value(a, name)
        if v is not None and not a.skipped:
            answers.setdefault(a.task_id, {})[a.annotator] = v
    people = sorted({h for row in answers.values() for h in row})
    tasks = sorted(set(answers) | {t for v in by_version.values() for t in v}, key=str)
    numeric = all(
        isinstance(v, (int, float)) and not isinstance(v, bool)
        for row in answers.values()
        for v in row.values()
    ) and bool(answers)
    scoring, how = scoring_for(result.kind, result.level, cfg, numeric)
    settings, _ = config.models.for_field(cfg)
    ordered = scoring == "neg_rmse"
    values = np.full((len(tasks), len(people)), math.nan if ordered else None, dtype=object)
    col = {h: j for j, h in enumerate(people)}
    for i, t in enumerate(tasks):
        for h, v in answers.get(t, {}).items():
            values[i, col[h]] = float(v) if ordered else v
    if ordered:
        values = values.astype(np.float64)
    out = []
    for version in sorted(by_version):
        mine = by_version[version]
        model = np.full(len(tasks), math.nan if ordered else None, dtype=object)
        for i, t in enumerate(tasks):
            if t in mine:
                model[i] = float(mine[t]) if ordered else mine[t]
        if ordered:
            model = model.astype(np.float64)
        if scoring is None:
            test = None
            why: str | None = how
        else:
            test = alt_test(
                values,
                model,
                scoring=scoring,
                epsilon=settings.epsilon,
                q=settings.q,
                min_instances=settings.min_instances,
                min_humans=settings.min_humans,
            )
            why = test.not_tested
        kept = _kept(values, model, settings.min_humans)
        out.append(
            AltTestVersion(
                model_version=version,
                scoring=how,
                epsilon=settings.epsilon,
                q=settings.q,
                min_instances=settings.min_instances,
                min_humans=settings.min_humans,
                n_instances=int(kept.sum()),
                n_humans_tested=len(test.tested) if test else 0,
                winning_rate=num(test.winning_rate) if test else None,
                advantage_probability=_round(test.advantage_probability) if test else None,
                passed=test.passed if test else None,
                not_tested=why,
                humans=version_report(test, how, [(h, display.get(h, h)) for h in people], settings)
                if test
                else [],
                consensus=_consensus(values, model, kept, scoring) if scoring else None,
                labels=_labels(values, model, kept) if scoring == "accuracy" else None,
                mean_offset=_offset(values, model, kept) if ordered else None,
            )
        )
    return out


def _kept(values: Any, model: Any, min_humans: int) -> Any:
    there = np.vectorize(_there, otypes=[bool])
    if not values.size:
        return np.zeros(len(model), dtype=bool)
    return there(model) & (there(values).sum(axis=1) >= min_humans)


def alt_test_section(
    results: dict[str, FieldResult], dataset: Dataset, config: Config
) -> tuple[AltTestReport | None, list[Check]]:
    """The report's ``alt_test`` section (None: no model in the round) and the gate's
    ``winning_rate`` checks (one per field and model version whose threshold is set)."""
    if not dataset.predictions:
        return None, []
    tasks = set(dataset.task_ids)
    predictions = [p for p in dataset.predictions if p.task_id in tasks]
    if not predictions:
        return None, []
    humans = list(dataset.annotations)
    fields: dict[str, list[AltTestVersion]] = {}
    checks: list[Check] = []
    for name, result in results.items():
        cfg = config.fields[name]
        versions = field_alt_tests(
            name, result, cfg, config, humans, predictions, dataset.annotator_names
        )
        if not versions:
            continue
        fields[name] = versions
        _, bars = config.models.for_field(cfg)
        for v in versions:
            value = (
                v.winning_rate
                if v.winning_rate is not None
                else Undefined(f"{v.model_version} was not tested: {v.not_tested}")
            )
            check = threshold_check(
                name,
                f"winning_rate ({v.model_version})",
                f"{v.model_version}'s alt-test winning rate",
                value,
                bars.winning_rate,
                cfg.thresholds.on_undefined,
            )
            if check is not None:
                checks.append(check)
    report = AltTestReport(sorted({p.annotator for p in predictions}), fields)
    return report, checks
