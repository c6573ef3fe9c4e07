"""Region fields (spans, boxes, polygons, keypoints, masks) and their per-region attributes.

The model's region table goes through the region metrics into the same :class:`FieldResult` as
any field, so the gate, the reports and the write-back treat it alike:

- ``alpha``: spans: character-level nominal alpha (each character a unit, "outside" a value);
  shapes: nominal alpha over clusters of matched regions with an "(unmatched)" category
  (Tschirschwitz et al. 2022), matched label-free. ``unitizing_alpha`` for spans.
- ``f1`` (relaxed, by the configured matching) and ``strict_f1`` (exact boundaries): pooled
  pairwise F1. ``categories``: pooled F1 per label.
- Disputes are found per region, as for a choices task: the regions are matched label-free into
  clusters, and each annotator who rated the task gives each cluster their region's label or
  ``"(unmatched)"``. A cluster's score is the share of the task's annotator pairs that agree on
  it (both have it with the same label, or both left it out); a task's score is its lowest
  cluster's (a task where everyone drew nothing scores 1), and a disputed task names that
  region first (``details.region``).
- A per-region attribute (``ner.certainty``) is scored on clusters of matched regions, each
  cluster a unit, with the usual coefficients; a task's score is its lowest cluster's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from msgspec import UNSET

from .. import metrics
from ..config import Config, FieldConfig
from ..kinds import REGION_SHAPES
from ..metrics import Coded, Undefined
from ..metrics.regions import NO_LABEL, UNMATCHED, canonical_rank
from ..model import Dataset, TaskId
from . import consensus
from .coefficients import Estimate, compute, interpreted
from .masks import pixel_alpha
from .matrix import RatingsMatrix
from .region_columns import Clustered, Matched, cluster, coded_as, match
from .region_details import RegionUnits, proposed
from .results import STATUSES, AnnotatorResult, FieldResult, Skill, UnitResult
from .scalar import field_level, matrix_result
from .sections import (
    AnnotatorAlpha,
    Coincidence,
    Matching,
    RegionPairs,
    Regions,
    Relations,
    UnitizingAlpha,
)


class RegionFields:
    """Results of the configured region fields and sub-fields; each field is matched once, and
    its units (:meth:`units`: scores, proposals, disputes) are found once, before or with its
    figures (:meth:`result`)."""

    def __init__(self, dataset: Dataset, config: Config, kinds: dict[str, str]) -> None:
        self.dataset, self.config, self.kinds = dataset, config, kinds
        self._matched: dict[str, Matched] = {}
        self._found: dict[str, Found] = {}

    def parent(self, name: str) -> str | None:
        parent, dot, _ = name.rpartition(".")
        return parent if dot and self.kinds.get(parent) in REGION_SHAPES else None

    def covers(self, name: str) -> bool:
        return self.kinds.get(name) in REGION_SHAPES or self.parent(name) is not None

    def matched(self, name: str) -> Matched:
        if name not in self._matched:
            cfg = self.config.fields.get(name, FieldConfig())
            self._matched[name] = match(self.dataset, name, cfg)
        return self._matched[name]

    def units(self, name: str) -> RegionUnits:
        """Region field ``name``'s units (each task's score and proposal; its disputes), found
        before its figures are computed."""
        return self._find(name).units

    def result(self, name: str, cfg: FieldConfig) -> FieldResult:
        parent = self.parent(name)
        if parent is not None and self.kinds.get(name) not in REGION_SHAPES:
            return attribute_result(self.matched(parent), name, cfg)
        return region_result(self.matched(name), self._find(name))

    def _find(self, name: str) -> Found:
        if name not in self._found:
            self._found[name] = find(self.matched(name))
        return self._found[name]


def _estimate(name: str, value: float, cfg: FieldConfig) -> Estimate:
    return interpreted(Estimate(name, value), cfg.interpretation)


@dataclass(frozen=True)
class Found:
    """What a region field's disputed tasks are made of, found before its figures: its matched
    regions ``clustered``, ``relations`` scored, its ``units`` (each task's score, proposal and
    disputes) and the annotators' ``skill`` that proposed them."""

    clustered: Clustered
    relations: metrics.PairwiseF1 | None
    units: RegionUnits
    skill: Skill


def find(m: Matched) -> Found:
    """A region field's units and proposals (see :class:`Found`), as ``m.cfg`` says."""
    clustered = cluster(m)
    relations = _relations(m)
    units = _units(m, clustered, relations)
    return Found(clustered, relations, units, _propose(m, clustered, units))


def region_result(m: Matched, found: Found) -> FieldResult:
    """A region field's result (see the module docstring), as ``m.cfg`` says; ``found``: what
    :func:`find` found of it."""
    cfg = m.cfg
    reg, table = m.regions, m.table
    relations, clusters = found.relations, found.clustered.coded
    scores = metrics.region_scores(m.matching)
    strict = metrics.region_scores(m.rematch(mode="exact")).f1
    alpha, spans = _alpha(m, clusters)
    coefficients = {
        "alpha": alpha,
        "f1": _estimate("f1", scores.f1, cfg),
        "strict_f1": _estimate("strict_f1", strict, cfg),
    }
    if spans is not None:
        coefficients["unitizing_alpha"] = _estimate("unitizing_alpha", spans["value"], cfg)
    alpha = coefficients["alpha"]
    if relations is not None:
        coefficients["relations_f1"] = _estimate("relations_f1", relations.f1, cfg)
    raters = reg.rated.sum(axis=1)
    base = metrics.krippendorff_alpha(clusters)  # what "alpha without" changes from
    return FieldResult(
        name=table.field,
        kind=table.kind,
        level="nominal",
        multiple=False,
        n_tasks=len(table.unit_ids),
        n_rated=int(np.count_nonzero(raters)),
        n_pairable=int(np.count_nonzero(raters >= 2)),
        n_annotators=len(table.annotators),
        n_ratings=int(raters.sum()),
        alpha=alpha.value,
        category_method="pairwise_f1",
        categories=dict(scores.by_label),
        coincidence=_coincidence(clusters),
        annotators=_annotators(m, scores, clusters, base),
        units=found.units,
        coefficients=coefficients,
        regions=_section(m, scores, strict, relations, spans, base),
        skill=found.skill,
    )


def _propose(m: Matched, cl: Clustered, units: RegionUnits) -> Skill:
    """Dawid–Skene over the clusters (``"(unmatched)"`` a class); each task's consensus is the
    list of its clusters whose most probable class is a label (as ``consensus.jsonl`` writes
    them: the label, the median boundaries or box, the cluster's ``posterior`` and ``tie``),
    its posterior the least certain cluster's, a tie when any cluster ties. Returns the
    annotators' skill."""
    reg = m.regions
    classes = [str(v) for v in cl.coded.values.tolist()]
    fit = consensus.fit(cl.coded)
    best, posterior, tie = consensus.proposals(fit, classes)
    n_units = reg.rated.shape[0]
    low, ties = consensus.least(cl.unit, posterior, tie, n_units)
    median = consensus.group_median(cl.clusters.cluster, np.asarray(reg.geometry, np.float64))
    median = median.round(4)
    if reg.shape.whole:  # whole offsets (a median between two is rounded down)
        median = np.floor(median).astype(np.int64)
    unmatched = np.array([c == UNMATCHED for c in classes], dtype=bool)
    shown = np.flatnonzero(~unmatched[fit.best])  # the clusters that propose a region
    example = _examples(m, cl, shown.tolist(), best)
    value = proposed(m, cl.unit, shown, best, median, example, posterior, tie)
    consensus.assign(
        units, list(m.table.unit_ids), value, low, ties, np.asarray(reg.rated.any(axis=1))
    )
    return consensus.skill(
        [fit], [cl.coded.codes], classes, m.table.annotators, m.names, "matched region"
    )


def _examples(m: Matched, cl: Clustered, shown: list[int], best: list[Any]) -> dict[int, int]:
    """Polygons only: per cluster, a region of it with the proposed label (polygons have no
    median; the first one in the canonical order stands for the cluster)."""
    if not m.regions.shape.vertices or m.regions.points is None:
        return {}
    reg = m.regions
    want = set(shown)
    out: dict[int, int] = {}
    for r in canonical_rank(reg).argsort().tolist():
        c = int(cl.clusters.cluster[r])
        label = reg.labels[reg.label[r]] if reg.label[r] >= 0 else NO_LABEL
        if c in want and c not in out and label == best[c]:
            out[c] = r
    return out


def _alpha(m: Matched, clusters: Coded) -> tuple[Estimate, dict[str, Any] | None]:
    """The field's alpha. Spans: nominal alpha over the characters of the tasks whose text is
    known, plus unitizing alpha; masks: over the pixels of their images; other shapes: nominal
    alpha over ``clusters`` with its bootstrap."""
    cfg = m.cfg
    if m.regions.shape.pixels:  # pixel-level, as characters on spans
        return _estimate("alpha", pixel_alpha(m.regions), cfg), None
    if not m.regions.shape.linear:
        est = compute(
            "alpha",
            clusters,
            "nominal",
            multiple=False,
            weights=None,
            confidence=cfg.confidence,
            replicates=cfg.bootstrap.replicates,
            seed=cfg.bootstrap.seed,
            alpha_min=cfg.thresholds.alpha.fail,
        )
        return interpreted(est, cfg.interpretation), None
    regions, lengths, missing = _with_text(m)
    spans: dict[str, Any] = {"tasks_without_text": missing}
    if not regions.rated.any():
        why = Undefined(
            "no task's text was found (Label Studio: the task data key named like the spans' "
            "to_name, for spans that carry their text; Prodigy: the line's text): spans in "
            "seconds (audio) or frames (video timelines) index no text, so character-level "
            "alpha does not apply"
        )
        spans.update(value=why, by_label={}, excluded_tasks=0)
        return _estimate("alpha", why, cfg), spans
    try:
        alpha = metrics.position_alpha(regions, lengths)
    except ValueError as exc:  # a span past the end of its text
        why = Undefined(f"the spans do not fit their texts: {exc}")
        spans.update(value=why, by_label={}, excluded_tasks=0)
        return _estimate("alpha", why, cfg), spans
    unitizing = metrics.unitizing_alpha_tasks(regions, lengths, merge=True)
    spans.update(
        value=unitizing.value,
        by_label={str(k): v for k, v in unitizing.by_label.items()},
        excluded_tasks=unitizing.excluded,
    )
    return _estimate("alpha", alpha, cfg), spans


def _with_text(m: Matched) -> tuple[metrics.Regions, np.ndarray[Any, Any], int]:
    """The spans of the tasks whose text is known, those texts' lengths ``(units,)`` (0 where
    unknown), and how many rated tasks have no known text."""
    reg, texts = m.regions, m.table.texts
    known = np.array([t is not None for t in texts], dtype=bool)
    lengths = np.array([len(t) if t is not None else 0 for t in texts], dtype=np.int64)
    if known.all():  # every text known: the field's spans as they are
        return reg, lengths, 0
    keep = known[reg.unit]
    rated = reg.rated & known[:, None]
    missing = int(np.count_nonzero(reg.rated.any(axis=1) & ~known))
    sub = metrics.Regions(
        reg.unit[keep],
        reg.annotator[keep],
        reg.label[keep],
        reg.geometry[keep],
        rated,
        "span",
        reg.labels,
    )
    return sub, lengths, missing


def _relations(m: Matched) -> metrics.PairwiseF1 | None:
    t = m.table
    if not t.rel_from.size:
        return None
    rel = metrics.Relations(*m.relations(), t.rel_labels)
    return metrics.relation_scores(rel, m.matching)


def _coincidence(coded: Coded) -> Coincidence | None:
    """The coincidences of the matched-region labels, without the categories that never pair
    (e.g. an all-zero "(no label)" when every region has a label)."""
    if not 0 < coded.n_values <= 30:
        return None
    o, values = metrics.coincidence_matrix(coded)
    used = (o.sum(axis=0) + o.sum(axis=1)) > 0
    if not used.any():
        return None
    kept = o[np.ix_(used, used)]
    return Coincidence(
        [str(v) for v, u in zip(values, used, strict=True) if u], kept.round(6).tolist()
    )


def _annotators(
    m: Matched, scores: metrics.RegionScores, coded: Coded, alpha: float
) -> list[AnnotatorResult]:
    """Per annotator: tasks rated, F1 with the others (pooled pairs, weighted by shared tasks),
    and the matched-region alpha over ``coded`` clusters without their column (for spans too:
    it is far cheaper than character alpha, and a sloppy annotator shows the same way); the
    change is from ``alpha``, the matched-region alpha with everyone (the report shows it)."""
    out = []
    bar = m.cfg.thresholds.annotator_gain
    n_ann = len(m.names)
    for a in range(n_ann):
        others = [b for b in range(n_ann) if b != a]
        shared = scores.shared[a, others].astype(np.float64)
        f1 = scores.annotators[a, others]
        ok = shared > 0
        pair = float(np.average(f1[ok], weights=shared[ok])) if ok.any() else math.nan
        without = (
            metrics.krippendorff_alpha(Coded(coded.codes[:, others], coded.values))
            if len(others) >= 2
            else Undefined("fewer than two other annotators")
        )
        gain = without - alpha if not (math.isnan(without) or math.isnan(alpha)) else math.nan
        out.append(
            AnnotatorResult(
                id=m.table.annotators[a],
                name=m.names[a],
                n_units=int(scores.shared[a, a]),
                pair_agreement=pair,
                alpha_without=float(without),
                alpha_gain=gain,
                outlier=bar is not None and not math.isnan(gain) and gain >= bar,
            )
        )
    return out


def _units(
    m: Matched,
    cl: Clustered,
    relations: metrics.PairwiseF1 | None,
) -> RegionUnits:
    """Every task someone answered, with its lowest region's score; disputed ones described
    when asked (:class:`RegionUnits`)."""
    t = m.table
    rated = np.flatnonzero(t.rated.any(axis=1))
    bar = m.cfg.thresholds.disputed_below
    scores = cl.task_score[rated]
    status = np.where(
        np.isnan(scores),
        STATUSES.index("too_few"),
        np.where(scores < bar, STATUSES.index("disputed"), STATUSES.index("agreed")),
    ).astype(np.int8)
    ids = list(map(t.unit_ids.__getitem__, rated.tolist()))
    return RegionUnits(ids, status, scores, rated, (m, cl, relations))


def _section(
    m: Matched,
    scores: metrics.RegionScores,
    strict: float,
    relations: metrics.PairwiseF1 | None,
    spans: dict[str, Any] | None,
    base: float,
) -> Regions:
    """The region-specific part of the report; ``base``: the matched-region alpha that each
    annotator's "alpha without" changes from (``annotator_alpha``)."""
    cfg = m.cfg.matching

    def num(x: float) -> float | None:
        return None if math.isnan(x) else round(float(x), 6)

    def matrix(a: np.ndarray[Any, Any]) -> list[list[float | None]]:
        return [[num(float(x)) for x in row] for row in a]

    unitizing = None
    if spans is not None:
        unitizing = UnitizingAlpha(
            value=num(spans["value"]),
            undefined_reason=metrics.undefined_reason(spans["value"]),
            by_label={k: num(v) for k, v in spans["by_label"].items()},
            excluded_tasks=spans["excluded_tasks"],
            tasks_without_text=spans["tasks_without_text"],
        )
    related = None
    if relations is not None:
        related = Relations(
            n=int(m.table.rel_from.size),
            f1=num(relations.f1),
            f1_by_label={k: num(v) for k, v in relations.by_label.items()},
        )
    return Regions(
        shape=m.regions.kind,
        matching=Matching(
            mode=cfg.mode,
            iou=cfg.iou,
            labels=cfg.labels,
            tolerance=cfg.tolerance if m.regions.shape.tolerance else UNSET,
        ),
        n_regions=m.regions.n,
        f1=num(scores.f1),
        strict_f1=num(strict),
        mean_iou=num(scores.mean_similarity),
        f1_by_label={k: num(v) for k, v in scores.by_label.items()},
        annotators=RegionPairs(m.names, matrix(scores.annotators), scores.shared.tolist()),
        relations=related,
        relations_not_evaluated=m.table.dropped_relations,
        unitizing_alpha=unitizing,
        attributes=sorted(m.table.attributes),
        annotator_alpha=AnnotatorAlpha(
            what="matched-region alpha (nominal over clusters of regions matched label-free, "
            '"(unmatched)" a category): each annotator\'s "alpha without" and its change '
            "are measured from it",
            value=num(base),
        ),
    )


def attribute_result(m: Matched, name: str, cfg: FieldConfig) -> FieldResult:
    """A per-region attribute: one unit per cluster of matched regions (see module docstring)."""
    attr = name.rpartition(".")[2]
    kind, rows, values = m.table.attributes.get(attr, ("choices", np.zeros(0, np.int64), []))
    shown = [_value(v) for v in values]
    table = _value_table(shown, cfg.labels)
    index = {v: i for i, v in enumerate(table)}
    codes = np.full(m.regions.n, -1, dtype=np.int64)
    at = m.rows(rows)
    ok = at >= 0
    codes[at[ok]] = [index[v] for v, k in zip(shown, ok, strict=True) if k]
    clusters = metrics.region_clusters(m.matching)
    ratings = metrics.cluster_ratings(m.matching, codes, tuple(map(str, table)), clusters=clusters)
    coded = coded_as(ratings.codes, tuple(table))
    few = np.count_nonzero(coded.codes >= 0, axis=1) < cfg.min_annotators
    coded.codes[few] = -1
    unit_ids: list[TaskId] = [
        f"{m.table.unit_ids[u]}#{c}" for c, u in enumerate(ratings.unit.tolist())
    ]
    matrix = RatingsMatrix(name, kind, unit_ids, m.table.annotators, coded)
    level = field_level(kind, cfg, False)
    units = _attribute_units(m, matrix, ratings.unit, level, cfg)
    result = matrix_result(matrix, level, m.names, cfg, units)
    if level == "nominal" and 0 < coded.n_values <= consensus.MAX_CLASSES:
        result.skill = _propose_attribute(m, matrix, ratings.unit, units)
    return result


def _propose_attribute(
    m: Matched, matrix: RatingsMatrix, cluster_unit: np.ndarray[Any, Any], units: list[UnitResult]
) -> Skill:
    """Dawid–Skene over a per-region attribute's clusters: each task's consensus is the list of
    its rated regions' most probable values (``region``: ``task#cluster``, ``value``,
    ``posterior``, ``tie``), its posterior the least certain one's."""
    coded = matrix.coded
    classes = [str(_key_value(v)) for v in coded.values.tolist()]
    fit = consensus.fit(coded)
    best, posterior, tie = consensus.proposals(fit, [_key_value(v) for v in coded.values.tolist()])
    rated = np.count_nonzero(coded.codes >= 0, axis=1) > 0
    n_units = len(m.table.unit_ids)
    low, ties = consensus.least(cluster_unit[rated], posterior[rated], tie[rated], n_units)
    value: list[list[dict[str, Any]]] = [[] for _ in range(n_units)]
    for c in np.flatnonzero(rated).tolist():
        value[int(cluster_unit[c])].append(
            {
                "region": matrix.unit_ids[c],
                "value": best[c],
                "posterior": round(float(posterior[c]), 6),
                "tie": bool(tie[c]),
            }
        )
    has = np.zeros(n_units, dtype=bool)
    has[cluster_unit[rated]] = True
    consensus.assign(units, list(m.table.unit_ids), value, low, ties, has)
    return consensus.skill(
        [fit], [coded.codes], classes, matrix.annotators, m.names, "matched region"
    )


def _key_value(v: Any) -> Any:
    """A value as the report shows it (a whole number without ``.0``)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _value(v: Any) -> str | float:
    if isinstance(v, tuple):
        return "|".join(sorted(v))
    return float(v) if isinstance(v, (int, float)) else str(v)


def _value_table(values: list[str | float], labels: list[str] | None) -> list[Any]:
    seen = set(values)
    if seen and all(isinstance(v, float) for v in seen):
        return sorted(seen)
    order = list(labels or [])
    return order + sorted(str(v) for v in seen if v not in order)


def _attribute_units(
    m: Matched,
    matrix: RatingsMatrix,
    cluster_unit: np.ndarray[Any, Any],
    level: str,
    cfg: FieldConfig,
) -> list[UnitResult]:
    """Per task: the lowest score of its clusters; labels: each annotator's values."""
    scores = metrics.item_scores(matrix.coded, level)
    bar = cfg.thresholds.disputed_below
    per_task: dict[int, list[int]] = {}
    for c, u in enumerate(cluster_unit.tolist()):
        per_task.setdefault(u, []).append(c)
    out = []
    for u, cs in sorted(per_task.items()):
        defined = [float(scores[c]) for c in cs if not math.isnan(scores[c])]
        score = min(defined) if defined else math.nan
        status = "too_few" if math.isnan(score) else "disputed" if score < bar else "agreed"
        labels: dict[str, Any] = {}
        if status == "disputed":
            for c in cs:
                for a, v in matrix.labels_of(c).items():
                    labels.setdefault(m.names[matrix.annotators.index(a)], []).append(v)
        out.append(UnitResult(m.table.unit_ids[u], status, score, labels))
    return out
