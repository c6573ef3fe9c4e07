"""Model predictions as a reference: is the pre-annotation model as good as an annotator?

A source's model predictions (Label Studio ``predictions``, one per task and model version) are
never ratings in inter-annotator agreement. Each model version is compared with the human
consensus of each field (:attr:`UnitResult.consensus`; ties and units without one are left
out) with the same comparison an annotator gets against ground truth
(:func:`~iaa_gate.evaluation.ground_truth.field_truth`: exact match, 1 − a set or text
distance, within the field's tolerance, pairwise F1 of matched regions), over the field and
per consensus label. The annotators get the same comparison with the same consensus beside it;
they are part of that consensus, so their figures lean high.

Where annotations record the prediction they started from (``parent_prediction``), each model
version also gets the human–prediction agreement of the annotations that started from its
prediction against those on the same tasks that did not: a gap suggests pre-annotation pulls
annotators towards the model.
"""

from __future__ import annotations

import math
from typing import Any

from ..config import Config
from ..kinds import REGION_SHAPES, Answer
from ..kinds import kind as registered
from ..metrics.geometry import shape_of
from ..model import Annotation, Dataset, FieldValue, RegionSet, TaskId
from .ground_truth import field_truth
from .results import FieldResult, FieldTruth
from .sections import (
    AnnotatorConsensus,
    FieldModels,
    LabelAgreement,
    Models,
    ModelVersion,
    Pooled,
)


def _canon(value: Any) -> Any:
    """A field value in one form for comparing: label tuples sorted (multi-select order is not
    an answer)."""
    return tuple(sorted(value)) if isinstance(value, tuple) else value


def _regions(shape: str, regions: list[dict[str, Any]]) -> RegionSet:
    """Consensus regions (``label`` and the report's geometry keys) as a :class:`RegionSet`."""
    rs, geometry = RegionSet(shape), shape_of(shape)
    for i, r in enumerate(regions):
        rs.ids.append(str(r.get("id", f"consensus-{i}")))
        rs.labels.append(str(r.get("label") or ""))
        if geometry.vertices:
            pts = [(float(x), float(y)) for x, y in r["points"]]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            rs.coords += [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
            rs.points.append(pts)
        else:
            rs.coords += [float(r.get(k) or 0.0) for k in geometry.keys]
    return rs


def consensus_value(kind: str, value: Any) -> Any:
    """A :class:`Consensus` value (the field's own terms, as reports show it) in the form of a
    :class:`FieldValue` value of control ``kind``."""
    shape = REGION_SHAPES.get(kind)
    if shape is not None:
        return _regions(shape, list(value))
    k = registered(kind)
    if _label_sets(kind):
        return _canon(tuple(value) if isinstance(value, list) else (value,))
    if k is not None and k.answer is Answer.NUMBER:
        return float(value)
    return value


def _label_sets(kind: str) -> bool:
    """Whether a field of ``kind`` answers with a set of labels (one or several) per task."""
    k = registered(kind)
    return k is not None and k.family == "scalar" and k.multiple


def _answer(kind: str, value: Any) -> FieldValue:
    if isinstance(value, RegionSet):
        return FieldValue(kind, "", value)
    return FieldValue(kind, value)


def _canonical(anns: list[Annotation], name: str) -> list[Annotation]:
    """The annotations answering ``name``, with only that field, its labels in one order."""
    out = []
    for a in anns:
        fv = a.fields.get(name)
        if fv is None:
            continue
        fv = FieldValue(fv.kind, _canon(fv.value), fv.regions)
        out.append(Annotation(a.task_id, a.annotator, {name: fv}, annotation_id=a.annotation_id))
    return out


def _pooled(truth: FieldTruth | None) -> Pooled:
    """All annotators of ``truth`` pooled: ``n`` compared answers and their mean agreement."""
    people = truth.annotators if truth is not None else []
    n = sum(a.n_tasks for a in people)
    known = [a.agreement * a.n_tasks for a in people if a.agreement is not None]
    mean = sum(known) / n if n and len(known) == len(people) else None  # one undefined: all
    return Pooled(n, _num(mean))


def _num(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 6)


def _truth(
    name: str,
    result: FieldResult,
    cfg: Any,
    anns: list[Annotation],
    refs: list[Annotation],
    names: dict[str, str] | None = None,
) -> FieldTruth | None:
    """:func:`field_truth` of ``anns`` (their annotators named by ``names``) against ``refs``."""
    tasks = sorted({a.task_id for a in anns}, key=str)
    data = Dataset("predictions", anns, tasks, annotator_names=names or {})
    return field_truth(name, result.kind, result.level, cfg, data, refs)


def field_models(
    name: str,
    result: FieldResult,
    config: Config,
    predictions: list[Annotation],
    humans: list[Annotation],
    started_from: dict[tuple[TaskId, int | str], str],
    names: dict[str, str] | None = None,
) -> FieldModels | None:
    """One field's model section (None: no model predicted this field)."""
    cfg = config.fields[name]
    preds = _canonical(predictions, name)
    if not preds:
        return None
    consensus: dict[TaskId, Any] = {}
    ties = 0
    for u in result.units:
        c = u.consensus
        if c is None:
            continue
        if c.tie:
            ties += 1
            continue
        consensus[u.id] = consensus_value(result.kind, c.value)
    refs = [
        Annotation(t, "(consensus)", {name: _answer(result.kind, v)}, annotation_id="consensus")
        for t, v in consensus.items()
    ]
    overall = _truth(name, result, cfg, preds, refs)
    people = _canonical(humans, name)
    by_annotator = _truth(name, result, cfg, people, refs, names)
    out = FieldModels(
        reference="human consensus",
        comparison=overall.comparison if overall is not None else None,
        consensus_tasks=len(consensus),
        ties=ties,
        annotators=[
            AnnotatorConsensus(a.name, a.n_tasks, _num(a.agreement))
            for a in (by_annotator.annotators if by_annotator is not None else [])
        ],
        versions=[],
    )
    labels: dict[str, list[Annotation]] = {}
    if _label_sets(result.kind):
        for r in refs:
            v = r.fields[name].value
            labels.setdefault(" + ".join(v) if isinstance(v, tuple) else str(v), []).append(r)
    per_label = {
        label: _truth(name, result, cfg, preds, group) for label, group in sorted(labels.items())
    }
    by_version: dict[str, dict[TaskId, Annotation]] = {}
    for p in preds:
        by_version.setdefault(p.annotator, {})[p.task_id] = p
    for version in sorted(by_version):
        found = next((a for a in (overall.annotators if overall else []) if a.id == version), None)
        entry = ModelVersion(
            model_version=version,
            predicted_tasks=len(by_version[version]),
            n_tasks=found.n_tasks if found else 0,
            agreement=_num(found.agreement) if found else None,
            mean_offset=_num(found.mean_offset) if found else None,
        )
        if labels:
            entry.labels = {}
            for label, truth in per_label.items():
                hit = next(
                    (a for a in (truth.annotators if truth else []) if a.id == version), None
                )
                entry.labels[label] = LabelAgreement(
                    hit.n_tasks if hit else 0, _num(hit.agreement) if hit else None
                )
        if started_from:
            mine = by_version[version]
            own = [
                Annotation(t, "(prediction)", p.fields, annotation_id="prediction")
                for t, p in mine.items()
            ]
            on_tasks = [h for h in people if h.task_id in mine]

            def origin(h: Annotation) -> str | None:
                key = h.annotation_id
                return None if key is None else started_from.get((h.task_id, key))

            started = [h for h in on_tasks if origin(h) == version]
            others = [h for h in on_tasks if origin(h) != version]
            entry.started_from_it = _pooled(_truth(name, result, cfg, started, own))
            entry.not_started_from_it = _pooled(_truth(name, result, cfg, others, own))
        out.versions.append(entry)
    return out


def models_section(
    results: dict[str, FieldResult], dataset: Dataset, config: Config
) -> Models | None:
    """The report's ``models`` section: field → :func:`field_models` (None: no predictions).

    Predictions on tasks outside ``dataset.task_ids`` (the round) are left out."""
    if not dataset.predictions and not dataset.prediction_ids_only:
        return None
    tasks = set(dataset.task_ids)
    predictions = [p for p in dataset.predictions if p.task_id in tasks]
    humans = list(dataset.annotations)
    fields = {}
    for name, result in results.items():
        section = field_models(
            name,
            result,
            config,
            predictions,
            humans,
            dataset.started_from,
            dataset.annotator_names,
        )
        if section is not None:
            fields[name] = section
    return Models(
        model_versions=sorted({p.annotator for p in predictions}),
        predictions=len(predictions),
        started_from=len(dataset.started_from),
        ids_only=dataset.prediction_ids_only,
        fields=fields,
    )
