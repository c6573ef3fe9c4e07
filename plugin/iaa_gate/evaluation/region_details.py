"""What a report says about a region field's disputed tasks, built from its scored columns
(:mod:`.region_columns`): each region as the report shows it (id, label, geometry, the text
under a span) and as one line of text, a task's text excerpt, and per disputed task its lowest
region, each rater's regions and each disagreement with its kind.

The scoring (:mod:`.regions`) decides which tasks are disputed; nothing here changes a score.
"""

from __future__ import annotations

import math
from itertools import compress
from typing import Any, cast

import numpy as np

from .. import metrics
from ..core import progress
from .region_columns import Clustered, Matched
from .sections import Details, Disagreement, Excerpt, LowestRegion, RelationDecision

EXCERPT = 300
"""Characters of context kept around a disputed task's regions in the report."""
EXCERPT_MAX = 20_000
"""Characters of a disputed task's text its excerpt holds at most: beyond, the excerpt is cut
around the task's lowest region (a long document is never copied whole into the report)."""


class Describer:
    """Regions of :attr:`Matched.regions` for the report: id, label, geometry (and text), built
    column-wise for the regions asked (:meth:`many`), with their one-line forms."""

    def __init__(self, m: Matched) -> None:
        reg = m.regions
        self.m, self.shape = m, reg.shape
        self.geometry = reg.geometry.round(4)
        self.whole = reg.shape.whole and bool(  # span offsets as ints
            np.all(self.geometry == np.floor(self.geometry))
        )

    def many(self, rows: np.ndarray[Any, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """Regions ``rows`` (``(R,)`` region indices), in their order, as dicts ``{id, label,
        <geometry>[, text]}`` and as lines of text (``LABEL [start, end) 'text'`` for a span,
        :func:`one_line` for the other shapes)."""
        reg, t = self.m.regions, self.m.table
        names = [*reg.labels, None]  # label -1: None
        labels = list(map(names.__getitem__, reg.label[rows].tolist()))
        ids = list(map(t.region_ids.__getitem__, self.m.kept[rows].tolist()))
        geo = self.geometry[rows]
        geos = cast(list[list[Any]], (geo.astype(np.int64) if self.whole else geo).tolist())
        if self.shape.linear:  # the dicts and their lines from the same columns
            bounds = geos if self.whole else [[int(s), int(e)] for s, e in geos]
            texts = under(t.texts, reg.unit[rows].tolist(), bounds)
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
        return out, list(map(one_line, out))

    def place(self, out: dict[str, Any], geo: list[Any], r: int | None) -> dict[str, Any]:
        """Add ``geo`` (one region's geometry, or a cluster's median) to ``out``; a polygon's
        points are region ``r``'s. Not spans: :meth:`many` and the proposals describe those by
        column."""
        reg = self.m.regions
        if self.shape.vertices and reg.points is not None:
            if r is not None:
                out["points"] = reg.points[r].round(4).tolist()
        else:  # a box's rotation, a mask's image pixels
            out.update(zip(self.shape.keys[: len(geo)], geo, strict=False))
        return out


def under(texts: list[str | None], units: list[int], spans: list[list[int]]) -> list[str | None]:
    """The text under each span (``spans``: ``[start, end]`` character offsets, in task
    ``units``'s text); None where that text is unknown."""
    return [
        None if (text := texts[u]) is None else text[a:b]
        for u, (a, b) in zip(units, spans, strict=True)
    ]


def one_line(d: dict[str, Any]) -> str:
    """A region other than a span as one line of text for the disputed listing (a span's:
    :meth:`Describer.many`)."""
    label = d["label"] or "(no label)"
    if "points" in d:
        return f"{label} polygon of {len(d['points'])} points at {d['points'][0]}"
    return f"{label} " + " ".join(f"{k}={v:g}" for k, v in d.items() if k not in ("id", "label"))


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


def describe(
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
    describer = Describer(m)
    described, lines = describer.many(rows)
    row_list = cast(list[int], rows.tolist())
    by_row = dict(zip(row_list, described, strict=True))
    owner = list(map(m.names.__getitem__, reg.annotator[rows].tolist()))
    in_lowest = cl.clusters.cluster == cl.lowest[reg.unit]  # (regions,): of its task's lowest
    member = cast(list[bool], in_lowest[rows].tolist())
    reach: list[tuple[float, float] | None] = []  # spans: each task's, for its excerpt
    reach_lowest: list[tuple[float, float] | None] = []
    if reg.shape.linear:
        geometry = describer.geometry[rows]
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
        if reg.shape.linear and text is not None:
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
