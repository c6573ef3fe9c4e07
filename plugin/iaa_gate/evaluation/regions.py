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
from functools import cached_property
from itertools import compress
from operator import itemgetter
from typing import Any, cast

import numpy as np
from msgspec import UNSET

from .. import metrics
from ..config import Config, FieldConfig
from ..core import progress
from ..kinds import REGION_SHAPES
from ..metrics import Coded, Undefined, code_dtype
from ..metrics.regions import NO_LABEL, UNMATCHED, canonical_rank
from ..model import Dataset, TaskId
from . import consensus
from .coefficients import Estimate, compute, interpreted
from .masks import pixel_alpha
from .matrix import RatingsMatrix, RegionTable, region_table
from .results import AnnotatorResult, FieldResult, Skill, UnitResult
from .scalar import field_level, matrix_result
from .sections import (
    AnnotatorAlpha,
    Coincidence,
    Details,
    Disagreement,
    Excerpt,
    LowestRegion,
    Matching,
    RegionPairs,
    Regions,
    RelationDecision,
    Relations,
    UnitizingAlpha,
)

EXCERPT = 300
"""Characters of context kept around a disputed task's regions in the report."""
EXCERPT_MAX = 20_000
"""Characters of a disputed task's text its excerpt holds at most: beyond, the excerpt is cut
around the task's lowest region (a long document is never copied whole into the report)."""


@dataclass
class Matched:
    """One region field, matched: its table (tasks with too few raters dropped), the metrics'
    :class:`~iaa_gate.metrics.Regions` and the configured matching."""

    table: RegionTable
    keep: np.ndarray[Any, np.dtype[np.bool_]]
    regions: metrics.Regions
    matching: metrics.RegionMatching
    names: list[str]
    cfg: FieldConfig

    @cached_property
    def kept(self) -> np.ndarray[Any, np.dtype[np.intp]]:
        """``(regions.n,)`` the table row of each region of :attr:`regions`."""
        return np.flatnonzero(self.keep)

    def rematch(self, **how: Any) -> metrics.RegionMatching:
        """The matching with some settings changed (``mode``, ``labels``), from the same
        overlapping pairs."""
        return _match(self.regions, self.cfg, overlapping=self.matching.overlaps, **how)

    def rows(self, rows: np.ndarray[Any, np.dtype[np.int64]]) -> np.ndarray[Any, Any]:
        """Table rows → rows of :attr:`regions` (-1 where dropped)."""
        index = np.where(self.keep, np.cumsum(self.keep) - 1, -1)
        return np.asarray(index[rows])


def _match(regions: metrics.Regions, cfg: FieldConfig, **how: Any) -> metrics.RegionMatching:
    m = cfg.matching
    args: dict[str, Any] = {"mode": m.mode, "iou": m.iou, "labels": m.labels, **how}
    tolerance = m.tolerance if regions.kind == "keypoint" else 0.0
    return metrics.match_regions(regions, tolerance=tolerance, **args)


def match(dataset: Dataset, name: str, cfg: FieldConfig) -> Matched:
    """Read region field ``name`` and match it as ``cfg.matching`` says."""
    table = region_table(dataset, name, labels=cfg.labels)
    rated = table.rated.copy()
    rated[rated.sum(axis=1) < cfg.min_annotators] = False
    keep = rated[table.unit, table.annotator] if table.n else np.zeros(0, dtype=bool)
    points = None
    if table.points is not None:
        points = tuple(p for p, k in zip(table.points, keep, strict=True) if k)
    regions = metrics.Regions(
        unit=table.unit[keep],
        annotator=table.annotator[keep],
        label=table.label[keep],
        geometry=table.geometry[keep],
        rated=rated,
        kind=table.shape,  # type: ignore[arg-type]
        labels=table.labels,
        points=points,
    )
    names = [dataset.display_name(a) for a in table.annotators]
    return Matched(table, keep, regions, _match(regions, cfg), names, cfg)


class RegionFields:
    """Results of the configured region fields and sub-fields; each field is matched once."""

    def __init__(self, dataset: Dataset, config: Config, kinds: dict[str, str]) -> None:
        self.dataset, self.config, self.kinds = dataset, config, kinds
        self._matched: dict[str, Matched] = {}

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

    def result(self, name: str, cfg: FieldConfig) -> FieldResult:
        parent = self.parent(name)
        if parent is not None and self.kinds.get(name) not in REGION_SHAPES:
            return attribute_result(self.matched(parent), name, cfg)
        return region_result(self.matched(name), cfg, self.dataset)


def _estimate(name: str, value: float, cfg: FieldConfig) -> Estimate:
    return interpreted(Estimate(name, value), cfg.interpretation)


def _coded(codes: np.ndarray[Any, Any], values: tuple[Any, ...]) -> Coded:
    table = np.empty(len(values), dtype=object)
    table[:] = values
    if values and all(isinstance(v, float) for v in values):
        table = table.astype(np.float64)
    return Coded(codes.astype(code_dtype(max(len(values), 1))), table)


def region_result(m: Matched, cfg: FieldConfig, dataset: Dataset) -> FieldResult:
    """A region field's result (see the module docstring)."""
    reg, table = m.regions, m.table
    scores = metrics.region_scores(m.matching)
    strict = metrics.region_scores(m.rematch(mode="exact")).f1
    clustered = cluster(m, cfg)
    clusters = clustered.coded
    alpha, spans = _alpha(m, cfg, clusters)
    coefficients = {
        "alpha": alpha,
        "f1": _estimate("f1", scores.f1, cfg),
        "strict_f1": _estimate("strict_f1", strict, cfg),
    }
    if spans is not None:
        coefficients["unitizing_alpha"] = _estimate("unitizing_alpha", spans["value"], cfg)
    alpha = coefficients["alpha"]
    relations = _relations(m)
    if relations is not None:
        coefficients["relations_f1"] = _estimate("relations_f1", relations.f1, cfg)
    raters = reg.rated.sum(axis=1)
    base = metrics.krippendorff_alpha(clusters)  # what "alpha without" changes from
    units = _units(m, clustered, cfg, relations)
    skill = _propose(m, clustered, units)
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
        annotators=_annotators(m, scores, clusters, cfg, base),
        units=units,
        coefficients=coefficients,
        regions=_section(m, scores, strict, relations, spans, base),
        skill=skill,
    )


@dataclass(frozen=True)
class Clustered:
    """A region field's regions matched label-free, in clusters (Tschirschwitz et al. 2022).

    ``matching``: the label-free matching; ``clusters``: each region's cluster; ``coded``:
    ``(C, annotators)`` each rater's label in the cluster, ``"(unmatched)"`` where they rated the
    task but have no region in it; ``unit``: ``(C,)`` each cluster's unit; ``score``: ``(C,)``
    the share of agreeing annotator pairs (NaN: fewer than two ratings); ``task_score``:
    ``(units,)`` the lowest score of each task's clusters and relations (1 for a task two or
    more rated with no region at all; NaN: fewer than two raters); ``lowest``: ``(units,)`` its
    lowest cluster (-1: none); ``relations``: the relations, grouped by the clusters they join
    (None without relations)."""

    matching: metrics.RegionMatching
    clusters: metrics.Clusters
    coded: Coded
    unit: np.ndarray[Any, np.dtype[np.int64]]
    score: np.ndarray[Any, np.dtype[np.float64]]
    task_score: np.ndarray[Any, np.dtype[np.float64]]
    lowest: np.ndarray[Any, np.dtype[np.int64]]
    relations: RelationClusters | None = None


def cluster(m: Matched, cfg: FieldConfig) -> Clustered:
    """Cluster ``m``'s regions label-free and score each cluster and task (see
    :class:`Clustered`)."""
    free = m.matching if not cfg.matching.labels else m.rematch(labels=False)
    clusters = metrics.region_clusters(free)
    ratings = metrics.cluster_ratings(free, clusters=clusters)
    coded = _coded(ratings.codes, ratings.values)
    score = metrics.item_scores(coded, "nominal") if clusters.n else np.zeros(0)
    n_units = m.regions.rated.shape[0]
    task = np.full(n_units, np.inf)
    np.fmin.at(task, ratings.unit, score)  # fmin: a NaN cluster does not count
    pairable = m.regions.rated.sum(axis=1) >= 2
    task[np.isinf(task)] = 1.0
    task[~pairable] = np.nan
    lowest = np.full(n_units, -1, dtype=np.int64)
    order = np.lexsort((np.where(np.isnan(score), np.inf, score), ratings.unit))
    first = order[np.flatnonzero(np.diff(ratings.unit[order], prepend=-1))]
    lowest[ratings.unit[first]] = first
    relations = _relation_clusters(m, clusters.cluster)
    if relations is not None:  # a relation is a decision too: the task scores its lowest
        rel_task = np.full(n_units, np.inf)
        np.fmin.at(rel_task, relations.unit, relations.score)
        low = rel_task < np.where(np.isnan(task), np.inf, task)
        task[low & pairable] = rel_task[low & pairable]
    return Clustered(free, clusters, coded, ratings.unit, score, task, lowest, relations)


@dataclass(frozen=True)
class RelationClusters:
    """Relations grouped by the clusters they join: ``(R, annotators)`` ``coded``, each rater
    of the task giving the relation's label or ``"(no relation)"``; ``unit`` ``(R,)``;
    ``score`` ``(R,)`` the share of agreeing annotator pairs; ``ends`` ``(R, 2)`` the source
    and target clusters."""

    coded: Coded
    unit: np.ndarray[Any, np.dtype[np.int64]]
    score: np.ndarray[Any, np.dtype[np.float64]]
    ends: np.ndarray[Any, np.dtype[np.int64]]


NO_RELATION = "(no relation)"


def _relation_clusters(
    m: Matched, cluster: np.ndarray[Any, np.dtype[np.int64]]
) -> RelationClusters | None:
    """Each pair of (source, target) clusters some annotator related, scored as a choices task
    over the task's raters (see :class:`RelationClusters`); None without relations."""
    t, reg = m.table, m.regions
    if not t.rel_from.size:
        return None
    src, dst = m.rows(t.rel_from), m.rows(t.rel_to)
    ok = (src >= 0) & (dst >= 0)
    if not ok.any():
        return None
    src, dst, label = src[ok], dst[ok], t.rel_label[ok].astype(np.int64)
    ends, k = np.unique(np.column_stack([cluster[src], cluster[dst]]), axis=0, return_inverse=True)
    k = k.reshape(-1)
    unit = reg.unit[src][np.unique(k, return_index=True)[1]]
    none = len(t.rel_labels)
    codes = np.where(reg.rated[unit], none, -1).astype(np.int64)
    codes[k, reg.annotator[src]] = np.where(label >= 0, label, none)
    coded = _coded(codes, (*t.rel_labels, NO_RELATION))
    return RelationClusters(coded, unit, metrics.item_scores(coded, "nominal"), ends)


def _propose(m: Matched, cl: Clustered, units: list[UnitResult]) -> Skill:
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
    median = consensus.group_median(cl.clusters.cluster, reg.geometry.astype(np.float64))
    median = median.round(4)
    if reg.kind == "span":  # whole offsets (a median between two is rounded down)
        median = np.floor(median).astype(np.int64)
    geo = cast(list[list[Any]], median.tolist())
    unit = cast(list[int], cl.unit.tolist())
    value: list[list[dict[str, Any]]] = [[] for _ in range(n_units)]
    shown = [c for c in range(cl.clusters.n) if best[c] != UNMATCHED]
    example = _examples(m, cl, shown, best)
    p = cast(list[float], posterior.round(6).tolist())
    t = cast(list[bool], tie.tolist())
    labels = [None if best[c] == NO_LABEL else best[c] for c in shown]
    if reg.kind == "span":  # offsets are ints
        spans = list(map(geo.__getitem__, shown))
        under = _under(m.table.texts, [unit[c] for c in shown], spans)
        regions = [
            {"label": label, "start": s, "end": e}
            if x is None
            else {"label": label, "start": s, "end": e, "text": x}
            for label, (s, e), x in zip(labels, spans, under, strict=True)
        ]
    else:
        place = Describer(m).place
        regions = [
            place({"label": label}, geo[c], example.get(c))
            for c, label in zip(shown, labels, strict=True)
        ]
    for c, region in zip(shown, regions, strict=True):
        region["posterior"], region["tie"] = p[c], t[c]
        value[unit[c]].append(region)
    # in reading order: spans by start and end, other shapes by top-left corner (y, x); a
    # polygon's regions (points, no corner) as they come
    if reg.kind == "span" or not (reg.kind == "polygon" and reg.points is not None):
        key = itemgetter("start", "end") if reg.kind == "span" else itemgetter("y", "x")
        for each in value:
            each.sort(key=key)
    consensus.assign(
        units, list(m.table.unit_ids), value, low, ties, np.asarray(reg.rated.any(axis=1))
    )
    return consensus.skill(
        [fit], [cl.coded.codes], classes, m.table.annotators, m.names, "matched region"
    )


def _examples(m: Matched, cl: Clustered, shown: list[int], best: list[Any]) -> dict[int, int]:
    """Polygons only: per cluster, a region of it with the proposed label (polygons have no
    median; the first one in the canonical order stands for the cluster)."""
    if m.regions.kind != "polygon" or m.regions.points is None:
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


def _alpha(m: Matched, cfg: FieldConfig, clusters: Coded) -> tuple[Estimate, dict[str, Any] | None]:
    """The field's alpha. Spans: nominal alpha over the characters of the tasks whose text is
    known, plus unitizing alpha; masks: over the pixels of their images; other shapes: nominal
    alpha over ``clusters`` with its bootstrap."""
    if m.regions.kind == "mask":  # pixel-level, as characters on spans
        return _estimate("alpha", pixel_alpha(m.regions), cfg), None
    if m.regions.kind != "span":
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
    src, dst = m.rows(t.rel_from), m.rows(t.rel_to)
    ok = (src >= 0) & (dst >= 0)
    rel = metrics.Relations(src[ok], dst[ok], t.rel_label[ok], t.rel_labels)
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
    m: Matched, scores: metrics.RegionScores, coded: Coded, cfg: FieldConfig, alpha: float
) -> list[AnnotatorResult]:
    """Per annotator: tasks rated, F1 with the others (pooled pairs, weighted by shared tasks),
    and the matched-region alpha over ``coded`` clusters without their column (for spans too:
    it is far cheaper than character alpha, and a sloppy annotator shows the same way); the
    change is from ``alpha``, the matched-region alpha with everyone (the report shows it)."""
    out = []
    bar = cfg.thresholds.annotator_gain
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


class Describer:
    """Regions of :attr:`Matched.regions` for the report: id, label, geometry (and text), built
    column-wise for the regions asked (:meth:`many`), with their one-line forms."""

    def __init__(self, m: Matched) -> None:
        reg = m.regions
        self.m, self.kind = m, reg.kind
        self.geometry = reg.geometry.round(4)
        self.whole = reg.kind == "span" and bool(  # span offsets as ints
            np.all(self.geometry == np.floor(self.geometry))
        )

    def many(self, rows: np.ndarray[Any, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """Regions ``rows`` (``(R,)`` region indices), in their order, as dicts ``{id, label,
        <geometry>[, text]}`` and as lines of text (``LABEL [start, end) 'text'`` for a span,
        :func:`_shown` for the other shapes)."""
        reg, t = self.m.regions, self.m.table
        names = [*reg.labels, None]  # label -1: None
        labels = list(map(names.__getitem__, reg.label[rows].tolist()))
        ids = list(map(t.region_ids.__getitem__, self.m.kept[rows].tolist()))
        geo = self.geometry[rows]
        geos = cast(list[list[Any]], (geo.astype(np.int64) if self.whole else geo).tolist())
        if self.kind == "span":  # the dicts and their lines from the same columns
            bounds = geos if self.whole else [[int(s), int(e)] for s, e in geos]
            texts = _under(t.texts, reg.unit[rows].tolist(), bounds)
            out = [
                {"id": i, "label": label, "start": s, "end": e}
                if x is None
                else {"id": i, "label": label, "start": s, "end": e, "text": x}
                for i, label, (s, e), x in zip(ids, labels, geos, texts, strict=True)
            ]
            return out, [
                f"{label or '(no label)'} [{s}, {e})"
                if x is None
                else f"{label or '(no label)'} [{s}, {e}) {x!r}"
                for label, (s, e), x in zip(labels, geos, texts, strict=True)
            ]
        out = [
            self.place({"id": i, "label": label}, g, r)
            for i, label, g, r in zip(ids, labels, geos, rows.tolist(), strict=True)
        ]
        return out, list(map(_shown, out))

    def place(self, out: dict[str, Any], geo: list[Any], r: int | None) -> dict[str, Any]:
        """Add ``geo`` (one region's geometry, or a cluster's median) to ``out``; a polygon's
        points are region ``r``'s. Not spans: :meth:`many` and the proposals describe those by
        column."""
        reg = self.m.regions
        if self.kind == "polygon" and reg.points is not None:
            if r is not None:
                out["points"] = reg.points[r].round(4).tolist()
        else:
            last = "pixels" if self.kind == "mask" else "rotation"  # a mask: its image's pixels
            out.update(zip(("x", "y", "width", "height", last)[: len(geo)], geo, strict=False))
        return out


def _under(texts: list[str | None], units: list[int], spans: list[list[int]]) -> list[str | None]:
    """The text under each span (``spans``: ``[start, end]`` character offsets, in task
    ``units``'s text); None where that text is unknown."""
    return [
        None if (text := texts[u]) is None else text[a:b]
        for u, (a, b) in zip(units, spans, strict=True)
    ]


def _shown(d: dict[str, Any]) -> str:
    """A region other than a span as one line of text for the disputed listing (a span's:
    :meth:`Describer.many`)."""
    label = d["label"] or "(no label)"
    if "points" in d:
        return f"{label} polygon of {len(d['points'])} points at {d['points'][0]}"
    return f"{label} " + " ".join(f"{k}={v:g}" for k, v in d.items() if k not in ("id", "label"))


def _units(
    m: Matched,
    cl: Clustered,
    cfg: FieldConfig,
    relations: metrics.PairwiseF1 | None,
) -> list[UnitResult]:
    """Every task someone answered, with its lowest region's score; disputed ones with details."""
    t = m.table
    rated_any = t.rated.any(axis=1)
    bar = cfg.thresholds.disputed_below
    scores = cl.task_score
    status = np.where(np.isnan(scores), 0, np.where(scores < bar, 1, 2))
    disputed = np.flatnonzero(rated_any & (status == 1))
    details = _details(m, cl, disputed, relations) if disputed.size else {}
    words = ("too_few", "disputed", "agreed")
    out = []
    for u in np.flatnonzero(rated_any).tolist():
        d, labels = details.get(u, (None, {}))
        out.append(UnitResult(t.unit_ids[u], words[status[u]], float(scores[u]), labels, d))
    return out


def _excerpt(
    text: str, regions: tuple[float, float], lowest: tuple[float, float] | None
) -> Excerpt:
    """The part of a disputed task's ``text`` the report shows: from :data:`EXCERPT` / 2
    characters before its first region to as many after its last (``regions``: the first
    start and the last end, 0 and 0 without regions); when that is longer than
    :data:`EXCERPT_MAX`, around its ``lowest`` region's instead, and at most
    :data:`EXCERPT_MAX` characters. ``offset``: where the excerpt starts; ``length``: the
    text's."""

    def around(span: tuple[float, float]) -> tuple[int, int]:
        return max(0, int(span[0]) - EXCERPT // 2), min(len(text), int(span[1]) + EXCERPT // 2)

    lo, hi = around(regions)
    if hi - lo > EXCERPT_MAX and lowest is not None:
        lo, hi = around(lowest)
    hi = min(hi, lo + EXCERPT_MAX)
    return Excerpt(lo, text[lo:hi], len(text))


def _reach(
    geometry: np.ndarray[Any, Any], counts: np.ndarray[Any, Any], keep: np.ndarray[Any, Any]
) -> list[tuple[float, float] | None]:
    """Per group of consecutive spans (``counts``: ``(K,)`` their sizes; ``geometry``: ``(R,
    2)``), the first start and last end of those ``keep`` (``(R,)``) marks; None for a group
    without one."""
    if not len(geometry):
        return [None] * len(counts)
    at = np.minimum(np.concatenate(([0], np.cumsum(counts)[:-1])), len(geometry) - 1)
    first = np.minimum.reduceat(np.where(keep, geometry[:, 0], np.inf), at)
    last = np.maximum.reduceat(np.where(keep, geometry[:, 1], -np.inf), at)
    some = (np.add.reduceat(keep, at) > 0) & (counts > 0)
    return [
        (f, e) if y else None
        for f, e, y in zip(first.tolist(), last.tolist(), some.tolist(), strict=True)
    ]


def _details(
    m: Matched, cl: Clustered, units: np.ndarray[Any, Any], relations: metrics.PairwiseF1 | None
) -> dict[int, tuple[Details, dict[str, list[str]]]]:
    """Per disputed unit (``units``: ``(K,)`` ascending): its details and each rater's regions as
    lines of text. The details: its lowest-scoring region (``region``: its ``score``, each
    rater's ``labels`` in it, ``"(unmatched)"`` where they have none, and its ``regions``), the
    text excerpt, each rater's regions and each disagreement with its kind, those of the lowest
    region first."""
    reg, t = m.regions, m.table
    order = np.argsort(reg.unit, kind="stable")
    starts = np.searchsorted(reg.unit[order], units)
    counts = np.searchsorted(reg.unit[order], units, side="right") - starts
    bounds = np.concatenate(([0], np.cumsum(counts))).tolist()  # unit k: rows[bounds[k]:…[k+1]]
    rows = order[np.arange(bounds[-1]) + np.repeat(starts - bounds[:-1], counts)]
    describe = Describer(m)
    described, lines = describe.many(rows)
    row_list = cast(list[int], rows.tolist())
    by_row = dict(zip(row_list, described, strict=True))
    owner = list(map(m.names.__getitem__, reg.annotator[rows].tolist()))
    in_lowest = cl.clusters.cluster == cl.lowest[reg.unit]  # (regions,): of its task's lowest
    member = cast(list[bool], in_lowest[rows].tolist())
    reach: list[tuple[float, float] | None] = []  # spans: each task's, for its excerpt
    reach_lowest: list[tuple[float, float] | None] = []
    if reg.kind == "span":
        geometry = describe.geometry[rows]
        reach = _reach(geometry, counts, np.ones(len(rows), dtype=bool))
        reach_lowest = _reach(geometry, counts, in_lowest[rows])
    patterns, which = np.unique(reg.rated[units], axis=0, return_inverse=True)
    named = [[m.names[a] for a in np.flatnonzero(p)] for p in patterns]  # who rated, per pattern
    raters = list(map(named.__getitem__, which.reshape(-1).tolist()))
    lowest = cl.lowest[units]
    low_score = [round(x, 6) for x in cl.score[lowest].tolist()]
    values = [str(v) for v in cl.coded.values]
    low_labels = [
        {m.names[a]: values[code] for a, code in enumerate(codes) if code >= 0}
        for codes in cl.coded.codes[lowest].tolist()
    ]
    dis = metrics.disagreements(m.matching, units)
    d_start = np.searchsorted(dis.unit, units).tolist()
    d_end = np.searchsorted(dis.unit, units, side="right").tolist()
    near = in_lowest[dis.region] | ((dis.counterpart >= 0) & in_lowest[dis.counterpart])
    first = np.lexsort((~near, dis.unit))  # each task's, those of its lowest region first
    d_region, d_other, d_counterpart = (
        dis.region[first].tolist(),
        dis.other[first].tolist(),
        dis.counterpart[first].tolist(),
    )
    d_kind = [metrics.KINDS[x] for x in dis.kind[first].tolist()]
    d_owner = list(map(m.names.__getitem__, reg.annotator[dis.region[first]].tolist()))
    rel, rel_low = cl.relations, {}
    if rel is not None:  # each task's lowest relation
        order_r = np.lexsort((np.where(np.isnan(rel.score), np.inf, rel.score), rel.unit))
        first_r = order_r[np.flatnonzero(np.diff(rel.unit[order_r], prepend=-1))]
        rel_low = dict(zip(rel.unit[first_r].tolist(), first_r.tolist(), strict=True))
    lowest_list = lowest.tolist()
    out: dict[int, tuple[Details, dict[str, list[str]]]] = {}
    for k, u in enumerate(progress.estimated("describe disputed tasks", units.tolist(), "tasks")):
        a, b = bounds[k], bounds[k + 1]
        regions: dict[str, list[dict[str, Any]]] = {name: [] for name in raters[k]}
        shown: dict[str, list[str]] = {name: [] for name in raters[k]}
        for name, region, line in zip(owner[a:b], described[a:b], lines[a:b], strict=True):
            regions[name].append(region)
            shown[name].append(line)
        c = lowest_list[k]
        low = list(compress(described[a:b], member[a:b]))
        entry = Details(
            regions=regions,
            disagreements=[
                Disagreement(
                    kind=d_kind[i],
                    annotator=d_owner[i],
                    region=by_row[d_region[i]],
                    other=m.names[d_other[i]],
                    counterpart=by_row.get(d_counterpart[i]),
                )
                for i in range(d_start[k], d_end[k])
            ],
            region=LowestRegion(low_score[k], low_labels[k], low),
        )
        text = t.texts[u]
        if reg.kind == "span" and text is not None:
            entry.text = _excerpt(text, reach[k] or (0, 0), reach_lowest[k])
        j = rel_low.get(u)
        if rel is not None and j is not None and rel.score[j] < cl.score[c]:
            entry.relation = RelationDecision(  # the relation is the lowest decision
                round(float(rel.score[j]), 6),
                {
                    m.names[a]: str(rel.coded.values[code])
                    for a, code in enumerate(rel.coded.codes[j].tolist())
                    if code >= 0
                },
            )
        if relations is not None and not math.isnan(relations.unit[u]):
            entry.relations_f1 = round(float(relations.unit[u]), 4)
        out[u] = entry, shown
    return out


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
            tolerance=cfg.tolerance if m.regions.kind == "keypoint" else UNSET,
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
    coded = _coded(ratings.codes, tuple(table))
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
