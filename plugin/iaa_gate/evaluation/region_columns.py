"""A region field's scored columns: its regions matched as the field's ``matching`` says, and
clustered label-free, each cluster and task scored (:class:`Clustered`).

What :mod:`.regions` turns into the field's result and :mod:`.region_details` into the words a
report shows about a disputed task are these arrays, built once per field. The field's config
is read here once: :class:`Matched` keeps it (``cfg``) and its matching settings
(:meth:`Matched.rematch` changes some of them), so the metrics get plain arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .. import metrics
from ..config import FieldConfig
from ..metrics import Coded, code_dtype
from ..metrics.geometry import shape_of
from ..model import Dataset
from .matrix import RegionTable, region_table


@dataclass
class Matched:
    """One region field, matched: its table (tasks with too few raters dropped), the metrics'
    :class:`~iaa_gate.metrics.Regions` and the configured matching; ``how``: the matching's
    settings as :func:`~iaa_gate.metrics.match_regions` takes them (read from ``cfg`` once)."""

    table: RegionTable
    keep: np.ndarray[Any, np.dtype[np.bool_]]
    regions: metrics.Regions
    matching: metrics.RegionMatching
    names: list[str]
    cfg: FieldConfig
    how: dict[str, Any]

    @cached_property
    def kept(self) -> np.ndarray[Any, np.dtype[np.intp]]:
        """``(regions.n,)`` the table row of each region of :attr:`regions`."""
        return np.flatnonzero(self.keep)

    def rematch(self, **how: Any) -> metrics.RegionMatching:
        """The matching with some settings changed (``mode``, ``labels``), from the same
        overlapping pairs."""
        settings = {**self.how, **how}
        return metrics.match_regions(self.regions, overlapping=self.matching.overlaps, **settings)

    def rows(self, rows: np.ndarray[Any, np.dtype[np.int64]]) -> np.ndarray[Any, Any]:
        """Table rows → rows of :attr:`regions` (-1 where dropped)."""
        index = np.where(self.keep, np.cumsum(self.keep) - 1, -1)
        return np.asarray(index[rows])

    def relations(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The relations between regions of :attr:`regions`: source rows, target rows and label
        codes (into ``table.rel_labels``); those with a dropped end are left out."""
        t = self.table
        src, dst = self.rows(t.rel_from), self.rows(t.rel_to)
        ok = (src >= 0) & (dst >= 0)
        return src[ok], dst[ok], t.rel_label[ok]


def settings(cfg: FieldConfig, shape: str) -> dict[str, Any]:
    """``cfg.matching`` as :func:`~iaa_gate.metrics.match_regions` takes it (a tolerance for
    keypoints only)."""
    m = cfg.matching
    tolerance = m.tolerance if shape_of(shape).tolerance else 0.0
    return {"mode": m.mode, "iou": m.iou, "labels": m.labels, "tolerance": tolerance}


def match(dataset: Dataset, name: str, cfg: FieldConfig) -> Matched:
    """Read region field ``name`` and match it as ``cfg.matching`` says."""
    table = region_table(dataset, name, labels=cfg.labels)
    rated = table.rated.copy()
    rated[rated.sum(axis=1) < cfg.min_annotators] = False
    keep = rated[table.unit, table.annotator] if table.n else np.zeros(0, dtype=bool)
    points = None
    if table.points is not None:
        points = tuple(p for p, k in zip(table.points, keep, strict=True) if k)
    kept = slice(None) if keep.all() else keep  # most rounds drop none: no copies
    regions = metrics.Regions(
        unit=table.unit[kept],
        annotator=table.annotator[kept],
        label=table.label[kept],
        geometry=table.geometry[kept],
        rated=rated,
        kind=table.shape,  # type: ignore[arg-type]
        labels=table.labels,
        points=points,
    )
    names = [dataset.display_name(a) for a in table.annotators]
    how = settings(cfg, regions.kind)
    return Matched(table, keep, regions, metrics.match_regions(regions, **how), names, cfg, how)


def coded_as(codes: np.ndarray[Any, Any], values: tuple[Any, ...]) -> Coded:
    table = np.empty(len(values), dtype=object)
    table[:] = values
    if values and all(isinstance(v, float) for v in values):
        table = table.astype(np.float64)
    return Coded(codes.astype(code_dtype(max(len(values), 1))), table)


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


def cluster(m: Matched) -> Clustered:
    """Cluster ``m``'s regions label-free and score each cluster and task (see
    :class:`Clustered`)."""
    free = m.rematch(labels=False) if m.how["labels"] else m.matching
    clusters = metrics.region_clusters(free)
    ratings = metrics.cluster_ratings(free, clusters=clusters)
    coded = coded_as(ratings.codes, ratings.values)
    score = metrics.item_scores(coded, "nominal") if clusters.n else np.zeros(0)
    n_units = m.regions.rated.shape[0]
    task = np.full(n_units, np.inf)
    lowest = np.full(n_units, -1, dtype=np.int64)
    if clusters.n:  # clusters are numbered by unit: each unit's are one run
        key = np.where(np.isnan(score), np.inf, score)  # a NaN cluster does not count
        start = np.flatnonzero(np.diff(ratings.unit, prepend=-1))
        low = np.minimum.reduceat(key, start)
        task[ratings.unit[start]] = low
        at = np.flatnonzero(key == np.repeat(low, np.diff(start, append=key.size)))
        first = at[np.diff(ratings.unit[at], prepend=-1) != 0]  # its first lowest cluster
        lowest[ratings.unit[first]] = first
    pairable = m.regions.rated.sum(axis=1) >= 2
    task[np.isinf(task)] = 1.0
    task[~pairable] = np.nan
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
    src, dst, label = m.relations()
    if not src.size:
        return None
    label = label.astype(np.int64)
    ends, k = np.unique(np.column_stack([cluster[src], cluster[dst]]), axis=0, return_inverse=True)
    k = k.reshape(-1)
    unit = reg.unit[src][np.unique(k, return_index=True)[1]]
    none = len(t.rel_labels)
    codes = np.where(reg.rated[unit], none, -1).astype(np.int64)
    codes[k, reg.annotator[src]] = np.where(label >= 0, label, none)
    coded = coded_as(codes, (*t.rel_labels, NO_RELATION))
    return RelationClusters(coded, unit, metrics.item_scores(coded, "nominal"), ends)
