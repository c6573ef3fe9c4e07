"""What a report says about a region field's disputed tasks, built from its scored columns
(:mod:`.region_columns`): each region as the report shows it (id, label, geometry, the text
under a span) and as one line of text, a task's text excerpt, and per disputed task its lowest
region, each rater's regions and each disagreement with its kind.

The scoring (:mod:`.regions`) decides which tasks are disputed; nothing here changes a score.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress
from typing import Any, cast, overload

import numpy as np

from .. import metrics
from ..core import progress
from ..metrics._base import sort_order
from ..model import TaskId
from .region_columns import Clustered, Matched
from .results import STATUSES, UnitResult, UnitTable
from .sections import Details, Disagreement, Excerpt, LowestRegion, RelationDecision

EXCERPT = 300
"""Characters of context kept around a disputed task's regions in the report."""
EXCERPT_MAX = 20_000
"""Characters of a disputed task's text its excerpt holds at most: beyond, the excerpt is cut
around the task's lowest region (a long document is never copied whole into the report)."""


class Describer:
    """Regions of :attr:`Matched.regions` for the report: id, label, geometry (and text), built
    column-wise for the regions asked (:meth:`columns`; as dicts: :meth:`many`), with their
    one-line forms."""

    def __init__(self, m: Matched) -> None:
        reg = m.regions
        self.m, self.shape = m, reg.shape
        self.polygon = reg.shape.vertices and reg.points is not None  # shown by its vertices

    @cached_property
    def geometry(self) -> np.ndarray[Any, Any]:
        """Every region's geometry as the report shows it (4 decimals); made when first asked
        (the proposals' describer asks only for :meth:`keys`)."""
        return self.m.regions.geometry.round(4)

    @cached_property
    def whole(self) -> bool:
        """Whether every geometry value is a whole number of a shape with whole offsets (spans
        shown with int offsets)."""
        return self.shape.whole and bool(np.all(self.geometry == np.floor(self.geometry)))

    def columns(self, rows: np.ndarray[Any, Any]) -> RegionColumns:
        """Regions ``rows`` (``(R,)`` region indices), in their order, as columns."""
        reg, t = self.m.regions, self.m.table
        names = [*reg.labels, None]  # label -1: None
        label = reg.label[rows]
        ids = list(map(t.region_ids.__getitem__, self.m.kept[rows].tolist()))
        geo = self.geometry[rows]
        if self.whole:
            geo = geo.astype(np.int64)
        keys = self.keys(len(geo.T))
        if self.shape.linear:  # spans drawn alike (a task's, same offsets and label): once
            unit = reg.unit[rows]
            bits = geo if self.whole else geo.view(np.int64)  # 0.0 and -0.0 are shown apart
            first, which = alike(unit, bits[:, 0], bits[:, 1], label)
            start, end = geo[first, 0].tolist(), geo[first, 1].tolist()
            labels = take(names, label[first])
            cut = (start, end) if self.whole else (list(map(int, start)), list(map(int, end)))
            texts = under(t.texts, unit[first].tolist(), *cut)
            shown = span_lines(labels, start, end, texts)
            return RegionColumns(
                ids, take(labels, which), take(texts, which), [], keys, geo, take(shown, which)
            )
        points: list[list[list[float]]] = []
        if self.polygon and reg.points is not None:
            points = [reg.points[r].round(4).tolist() for r in rows.tolist()]
        return RegionColumns(ids, take(names, label), [], points, keys, geo)

    def keys(self, width: int) -> tuple[str, ...]:
        """The geometry keys of a region (``width``: its geometry's columns)."""
        if self.polygon:
            return ("points",)
        return self.shape.keys[:width]  # a box's rotation, a mask's image pixels

    def many(self, rows: np.ndarray[Any, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """Regions ``rows`` (``(R,)`` region indices), in their order, as dicts ``{id, label,
        <geometry>[, text]}`` and as lines of text (:meth:`RegionColumns.lines`)."""
        c = self.columns(rows)
        return c.dicts(), c.lines()

    def place(self, out: dict[str, Any], geo: list[Any], r: int | None) -> dict[str, Any]:
        """Add ``geo`` (one region's geometry, or a cluster's median) to ``out``; a polygon's
        points are region ``r``'s. Not spans: :meth:`many` and the proposals describe those by
        column."""
        reg = self.m.regions
        if self.polygon and reg.points is not None:
            if r is not None:
                out["points"] = reg.points[r].round(4).tolist()
        else:
            out.update(zip(self.keys(len(geo)), geo, strict=False))
        return out


@dataclass(frozen=True)
class RegionColumns:
    """Some regions as the report shows them, column-wise: ``ids``, ``labels`` (None: no
    label), ``texts`` (spans: the text under each, None where unknown;
    other shapes: empty), ``points`` (polygons with points: each one's; else empty),
    ``keys``, the geometry's keys in ``geo`` order (``("points",)`` for a polygon); ``geo``:
    each region's geometry, ``(R, d)`` (a span's start and end, a box's ``x, y, width,
    height[, rotation]``; :attr:`geos` as lists); ``shown``: spans' lines (:meth:`lines`).
    Spans drawn alike share their label, text and line objects."""

    ids: list[Any]
    labels: list[str | None]
    texts: list[str | None]
    points: list[list[list[float]]]
    keys: tuple[str, ...]
    geo: np.ndarray[Any, Any]
    shown: list[str] = field(default_factory=list)  # other shapes: made when asked

    @cached_property
    def geos(self) -> list[list[Any]]:
        """Each region's geometry as a list (made when asked: a block's lines need none)."""
        return cast(list[list[Any]], self.geo.tolist())

    @cached_property
    def geo_columns(self) -> list[list[Any]]:
        """Each geometry column as a list (a box's ``x`` values, then its ``y`` …): what a
        region's JSON and its one-line form are made from, without a list per region."""
        return cast(list[list[Any]], self.geo.T.tolist())

    def dicts(self) -> list[dict[str, Any]]:
        """Each region as a dict ``{id, label, <geometry>[, text]}``."""
        ids, labels = self.ids, self.labels
        if self.texts:  # spans: the dicts from the same columns
            return [
                {"id": i, "label": label, "start": s, "end": e}
                if x is None
                else {"id": i, "label": label, "start": s, "end": e, "text": x}
                for i, label, (s, e), x in zip(ids, labels, self.geos, self.texts, strict=True)
            ]
        if self.points:
            return [
                {"id": i, "label": label, "points": p}
                for i, label, p in zip(ids, labels, self.points, strict=True)
            ]
        keys = self.keys
        return [
            {"id": i, "label": label, **dict(zip(keys, g, strict=False))}
            for i, label, g in zip(ids, labels, self.geos, strict=True)
        ]

    def lines(self) -> list[str]:
        """Each region as one line of text: ``LABEL [start, end) 'text'`` for a span,
        ``LABEL x=… y=… width=… height=…`` for a box and the
        like, ``LABEL polygon of N points at [x, y]`` for a polygon (spans: :attr:`shown`)."""
        if self.texts:
            return self.shown
        shown = [label or "(no label)" for label in self.labels]
        if self.points:
            return [
                f"{label} polygon of {len(p)} points at {p[0]}"
                for label, p in zip(shown, self.points, strict=True)
            ]
        # one format of all values, not a join of an f-string per value (%g of a float is
        # f"{x:g}"); a key beyond the geometry's width is left out, and a value beyond the keys
        keys = self.keys[: len(self.geo.T)]
        row = "%s " + " ".join(k.replace("%", "%%") + "=%g" for k in keys)
        values = self.geo_columns[: len(keys)]  # one tuple per region, made by zip in C
        return list(map(row.__mod__, zip(shown, *values, strict=True)))


def span_lines(
    labels: list[str | None], start: list[Any], end: list[Any], texts: list[str | None]
) -> list[str]:
    """Each span as one line of text, ``LABEL [start, end) 'text'`` (``(no label)`` for None;
    without the text where it is unknown).

    Parameters
    ----------
    labels, start, end, texts : list
        Each span's label, offsets and the text under it (None: unknown).

    Returns
    -------
    list of str
        One line per span.

    Examples
    --------
    >>> span_lines(["PER", None], [0, 4], [3, 6], ["Ada", None])
    ["PER [0, 3) 'Ada'", '(no label) [4, 6)']
    """
    return [
        f"{label or '(no label)'} [{s}, {e})"
        if x is None
        else f"{label or '(no label)'} [{s}, {e}) {x!r}"
        for label, s, e, x in zip(labels, start, end, texts, strict=True)
    ]


def take(items: list[Any], at: np.ndarray[Any, Any]) -> list[Any]:
    """``[items[i] for i in at]``, gathered in C (``items`` as an array of objects): no Python
    call per item.

    Examples
    --------
    >>> take(["a", None, "c"], np.array([2, 2, 1]))
    ['c', 'c', None]
    """
    return cast(list[Any], np.fromiter(items, object, len(items))[at].tolist())


def alike(*keys: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Rows alike in every one of ``keys`` (``(n,)`` each), so that what depends on the keys
    only is made once: the first row of each distinct combination, in row order (what is made
    from them then lies in memory in the order the rows read it), and which of those each row
    is (``(n,)``).

    Examples
    --------
    >>> first, which = alike(np.array([1, 0, 1, 0]), np.array([5, 5, 5, 6]))
    >>> first.tolist(), which.tolist()
    ([0, 1, 3], [0, 1, 0, 2])
    """
    order = sort_order(*keys)  # ties in row order: each group's first row leads it
    new = np.zeros(order.size, dtype=bool)
    new[:1] = True
    for key in keys:
        k = key[order]
        new[1:] |= k[1:] != k[:-1]
    lead = np.empty_like(order)
    lead[order] = order[new][np.cumsum(new) - 1]  # each row's group's first row
    is_first = lead == np.arange(order.size)
    return np.flatnonzero(is_first), (np.cumsum(is_first) - 1)[lead]


def under(
    texts: list[str | None], units: list[int], start: list[int], end: list[int]
) -> list[str | None]:
    """The text under each span (``start``, ``end``: its character offsets, in task
    ``units``'s text); None where that text is unknown."""
    return [
        None if (text := texts[u]) is None else text[a:b]
        for u, a, b in zip(units, start, end, strict=True)
    ]


def _excerpt(
    text: str,
    regions: tuple[float, float],
    lowest: Callable[[], tuple[float, float] | None],
) -> Excerpt:
    """The part of a disputed task's ``text`` the report shows: from :data:`EXCERPT` / 2
    characters before its first region to as many after its last (``regions``: the first
    start and the last end, 0 and 0 without regions); when that is longer than
    :data:`EXCERPT_MAX`, around its lowest region's instead (``lowest()``: its first start and
    last end, asked only then), and at most :data:`EXCERPT_MAX` characters. ``offset``: where
    the excerpt starts; ``length``: the text's."""

    def around(span: tuple[float, float]) -> tuple[int, int]:
        return max(0, int(span[0]) - EXCERPT // 2), min(len(text), int(span[1]) + EXCERPT // 2)

    lo, hi = around(regions)
    if hi - lo > EXCERPT_MAX and (low := lowest()) is not None:
        lo, hi = around(low)
    hi = min(hi, lo + EXCERPT_MAX)
    return Excerpt(lo, text[lo:hi], len(text))


_EXACT = float(1 << 53)
"""Offsets below this size are whole numbers as int64 and as floats alike."""


def _reach(
    geometry: np.ndarray[Any, Any], rows: np.ndarray[Any, Any], counts: np.ndarray[Any, Any]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Per group of spans (``rows``: ``(R,)`` region indices, each group's ascending, one group
    after another; ``counts``: ``(K,)`` their sizes; ``geometry``: every region's ``(n, 2)``),
    the first start and the last end (0 and 0 for a group without spans)."""
    first, last = np.zeros(len(counts)), np.zeros(len(counts))
    some = np.flatnonzero(counts)
    if not some.size:
        return first, last
    at = (np.cumsum(counts) - counts)[some]
    n = counts[some]
    lead = rows[at]
    if np.array_equal(rows[at + n - 1] - lead, n - 1) and bool(np.all(lead[1:] > lead[:-1])):
        # each group a stretch of the regions, in order (stored by task): reduced where they
        # are, not from an (R, 2) copy of a round's every disputed span
        cut = np.empty(2 * lead.size, dtype=np.int64)
        cut[0::2], cut[1::2] = lead, lead + n
        cut = cut[:-1] if cut[-1] == len(geometry) else cut  # the last runs to the end
        first[some] = np.minimum.reduceat(geometry[:, 0], cut)[0::2]
        last[some] = np.maximum.reduceat(geometry[:, 1], cut)[0::2]
        return first, last
    first[some] = np.minimum.reduceat(geometry[rows, 0], at)
    last[some] = np.maximum.reduceat(geometry[rows, 1], at)
    return first, last


def _task_rows(
    unit: np.ndarray[Any, Any], n_units: int, units: np.ndarray[Any, Any]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The regions of units ``units`` (``(K,)`` ascending), each unit's in storage order, one
    unit after another (``unit``: ``(R,)`` each region's), and how many each unit has. Regions
    come stored by unit (every reader appends a task's at once): then no sort is needed."""
    order = None
    if unit.size and bool(np.any(unit[1:] < unit[:-1])):
        order = np.argsort(unit, kind="stable")
    per_unit = np.bincount(unit, minlength=n_units)
    starts, counts = (np.cumsum(per_unit) - per_unit)[units], per_unit[units]
    rows = _ranges(starts, counts)
    return (rows if order is None else order[rows]), counts


def _patterns(rated: np.ndarray[Any, Any]) -> tuple[list[list[int]], np.ndarray[Any, Any]]:
    """The distinct rows of ``rated`` (``(K, A)`` bool), each as its True columns, in the order
    of ``np.unique(rated, axis=0)``, and which one each row is (``(K,)``). Rows of up to 62
    columns are packed into one integer each, first column most significant, so one sort of
    integers orders them as ``np.unique`` orders its rows."""
    width = rated.shape[1]
    if width > 62:
        distinct, which = np.unique(rated, axis=0, return_inverse=True)
        return [np.flatnonzero(p).tolist() for p in distinct], which.reshape(-1)
    weight = np.left_shift(1, np.arange(width - 1, -1, -1, dtype=np.int64))
    packed = rated.astype(np.int64) @ weight if width else np.zeros(len(rated), dtype=np.int64)
    codes, which = np.unique(packed, return_inverse=True)
    bits = (codes[:, None] & weight) != 0
    return [np.flatnonzero(p).tolist() for p in bits], which.reshape(-1)


def _ranges(start: np.ndarray[Any, Any], n: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``start[k]:start[k] + n[k]`` for each k, one range after another (``(sum(n),)``)."""
    ends = np.cumsum(n)
    out: np.ndarray[Any, Any] = np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64)
    out += np.repeat(start - (ends - n), n)
    return out


def _near_first(unit: np.ndarray[Any, Any], near: np.ndarray[Any, Any], n_units: int) -> Any:
    """The order that puts, within each unit's rows (``unit``: ``(n,)`` ascending), those
    ``near`` marks first, each part in its order (``np.lexsort((~near, unit))``, without a
    sort: each row's place comes from counts)."""
    per_unit = np.bincount(unit, minlength=n_units)
    start = (np.cumsum(per_unit) - per_unit)[unit]
    before = np.zeros(unit.size + 1, dtype=np.int64)  # near rows before each row
    np.cumsum(near.view(np.int8), dtype=np.int64, out=before[1:])  # int8: a fast accumulate
    n = unit.size
    near_before = before[:n] - before[start]
    n_near = before[start + per_unit[unit]] - before[start]
    index = np.arange(n)
    place = start + np.where(near, near_before, n_near + (index - start) - near_before)
    out = np.empty(n, dtype=np.int64)
    out[place] = index
    return out


def _rounded(x: np.ndarray[Any, Any], digits: int) -> list[float]:
    """``[round(v, digits) for v in x]``, rounding each distinct value once (a field's cluster
    scores take few values)."""
    distinct, which = np.unique(x, return_inverse=True)
    done = [round(v, digits) for v in distinct.tolist()]
    return list(map(done.__getitem__, which.reshape(-1).tolist()))


class Disputes:
    """A region field's disputed tasks as columns, for what a report says about them (units
    ``units``: ``(K,)`` ascending; entry ``k`` is unit ``units[k]``). Task ``k``'s regions are
    ``rows[bounds[k]:bounds[k + 1]]`` (region indices, in their order), ``member`` marks those
    of its lowest region; ``raters[which[k]]`` are the annotators who rated it; its lowest
    region scores ``low_score[k]``, each rater's label in it ``low_codes[k]`` (codes into
    ``values``, -1: none); its disagreements are ``d_*[d_start[k]:d_end[k]]`` (the region,
    its owner, the other annotator, the counterpart (-1: none) and the kind, a code into
    :data:`~iaa_gate.metrics.KINDS`), those of its lowest region first.

    :meth:`details` makes the report's :class:`Details` of some of them; the JSON sink encodes
    them all from these columns, so no dict is made per region."""

    def __init__(
        self,
        m: Matched,
        cl: Clustered,
        units: np.ndarray[Any, Any],
        relations: metrics.PairwiseF1 | None,
    ) -> None:
        reg = m.regions
        self.m, self.cl, self.units, self.relations = m, cl, units, relations
        self.rows, counts = _task_rows(reg.unit, reg.units, units)
        self.starts = np.concatenate(([0], np.cumsum(counts)))
        self.bounds: list[int] = self.starts.tolist()
        self.describer = Describer(m)
        in_lowest = cl.clusters.cluster == cl.lowest[reg.unit]  # (regions,): of its task's lowest
        self.member = in_lowest[self.rows]
        self.raters, which = _patterns(reg.rated[units])
        self.which: list[int] = which.tolist()
        lowest = cl.lowest[units]
        self.low_score = _rounded(cl.score[lowest], 6)
        self.values = [str(v) for v in cl.coded.values]
        self.low_codes = cl.coded.codes[lowest]
        dis = metrics.disagreements(m.matching, units)
        per_unit = np.bincount(dis.unit, minlength=reg.units)
        ends = np.cumsum(per_unit)
        self.d_count = per_unit[units]  # each task's disagreements
        self.d_start: list[int] = (ends - per_unit)[units].tolist()
        self.d_end: list[int] = ends[units].tolist()
        near = in_lowest[dis.region] | ((dis.counterpart >= 0) & in_lowest[dis.counterpart])
        first = _near_first(dis.unit, near, reg.units)  # each task's, its lowest region's first
        self.d_region, self.d_other = dis.region[first], dis.other[first]
        self.d_counterpart, self.d_kind = dis.counterpart[first], dis.kind[first]
        self.d_owner = reg.annotator[self.d_region]
        self.reach = (np.zeros(0), np.zeros(0))  # spans: for each excerpt
        if reg.shape.linear:
            self.reach = _reach(self.describer.geometry, self.rows, counts)
        self.relation = self._relations(lowest)

    def __len__(self) -> int:
        return len(self.units)

    def _relations(self, lowest: np.ndarray[Any, Any]) -> list[int]:
        """Per task, its lowest relation (an index into the clustered relations) when that is
        its lowest decision (it scores below its lowest region), else -1."""
        rel, cl = self.cl.relations, self.cl
        if rel is None:
            return [-1] * len(self.units)
        order = np.lexsort((np.where(np.isnan(rel.score), np.inf, rel.score), rel.unit))
        first = order[np.flatnonzero(np.diff(rel.unit[order], prepend=-1))]
        at = np.full(cl.task_score.size, -1, dtype=np.int64)  # each unit's lowest relation
        at[rel.unit[first]] = first
        j = at[self.units]
        below = (j >= 0) & (rel.score[j] < cl.score[lowest])  # NaN: not below
        out: list[int] = np.where(below, j, -1).tolist()
        return out

    def relation_labels(self, j: int) -> dict[str, str]:
        """Each rater's label of clustered relation ``j``."""
        rel = self.cl.relations
        assert rel is not None
        names = self.m.names
        return {
            names[a]: str(rel.coded.values[code])
            for a, code in enumerate(rel.coded.codes[j].tolist())
            if code >= 0
        }

    def relations_f1(self, k: int) -> float | None:
        """Task ``k``'s relation F1, rounded to 4 places (None: no relations, or undefined)."""
        if self.relations is None:
            return None
        x = float(self.relations.unit[int(self.units[k])])
        return None if math.isnan(x) else round(x, 4)

    def excerpt(self, k: int) -> Excerpt | None:
        """Task ``k``'s text excerpt (spans with a known text; else None)."""
        text = self.m.table.texts[int(self.units[k])]
        if not self.m.regions.shape.linear or text is None:
            return None
        reach = (float(self.reach[0][k]), float(self.reach[1][k]))
        return _excerpt(text, reach, lambda: self.lowest_reach(k))

    def excerpts(self, ks: list[int]) -> list[Excerpt | None]:
        """Tasks ``ks``' text excerpts, as :meth:`excerpt` gives each, made by column: the
        JSON sink asks for every disputed task's. A task whose excerpt would pass
        :data:`EXCERPT_MAX`, or whose offsets are too large for int64, goes by :meth:`excerpt`."""
        if not self.m.regions.shape.linear:
            return [None] * len(ks)
        texts = list(map(self.m.table.texts.__getitem__, self.units[ks].tolist()))
        known = [t is not None for t in texts]
        plain = [t or "" for t in texts]  # an unknown text: its excerpt is None
        length = np.fromiter(map(len, plain), np.int64, len(plain))
        first, last = self.reach[0][ks], self.reach[1][ks]
        if not (np.abs(first) < _EXACT).all() or not (np.abs(last) < _EXACT).all():
            return list(map(self.excerpt, ks))
        # int() of each offset (toward zero), then as _excerpt's around()
        lo = np.maximum(first.astype(np.int64) - EXCERPT // 2, 0).tolist()
        hi = np.minimum(last.astype(np.int64) + EXCERPT // 2, length).tolist()
        cut = map(str.__getitem__, plain, map(slice, lo, hi))
        out: list[Excerpt | None] = list(map(Excerpt, lo, cut, length.tolist()))
        wide = np.flatnonzero(np.subtract(hi, lo) > EXCERPT_MAX)  # cut around the lowest region
        for i in wide.tolist():
            out[i] = self.excerpt(ks[i])
        return [e if ok else None for e, ok in zip(out, known, strict=True)]

    def lowest_reach(self, k: int) -> tuple[float, float] | None:
        """Task ``k``'s lowest region's first start and last end (spans; None: it has none)."""
        a, b = self.bounds[k], self.bounds[k + 1]
        geometry = self.describer.geometry[self.rows[a:b][self.member[a:b]]]
        if not len(geometry):
            return None
        return float(geometry[:, 0].min()), float(geometry[:, 1].max())

    def task_rows(self, ks: list[int]) -> np.ndarray[Any, Any]:
        """Positions in :attr:`rows` of tasks ``ks``' regions, one task after another."""
        start = self.starts
        return _ranges(start[ks], start[np.asarray(ks, dtype=np.int64) + 1] - start[ks])

    def details(self, ks: list[int]) -> list[tuple[Details, dict[str, list[str]]]]:
        """Tasks ``ks`` (entries): each one's details and each rater's regions as lines of text.
        The details: its lowest-scoring region (``region``: its ``score``, each rater's
        ``labels`` in it, ``"(unmatched)"`` where they have none, and its ``regions``), the text
        excerpt, each rater's regions and each disagreement with its kind, those of the lowest
        region first."""
        m, names = self.m, self.m.names
        at = self.task_rows(ks)
        rows = self.rows[at]
        described, lines = self.describer.many(rows)
        by_row = dict(zip(rows.tolist(), described, strict=True))
        owner = list(map(names.__getitem__, m.regions.annotator[rows].tolist()))
        member = cast(list[bool], self.member[at].tolist())
        low_codes = self.low_codes[ks].tolist()
        # the tasks' disagreements, each column read once (no numpy scalar per disagreement)
        n = self.d_count[ks]
        d_at = _ranges(np.asarray(self.d_end, dtype=np.int64)[ks] - n, n)
        disagreements = [
            Disagreement(kind=kind, annotator=who, region=region, other=other, counterpart=cp)
            for kind, who, region, other, cp in zip(
                map(metrics.KINDS.__getitem__, self.d_kind[d_at].tolist()),
                map(names.__getitem__, self.d_owner[d_at].tolist()),
                map(by_row.__getitem__, self.d_region[d_at].tolist()),
                map(names.__getitem__, self.d_other[d_at].tolist()),
                map(by_row.get, self.d_counterpart[d_at].tolist()),
                strict=True,
            )
        ]
        out = []
        a = da = 0
        for k, codes in zip(
            progress.estimated("describe disputed tasks", ks, "tasks"), low_codes, strict=True
        ):
            b = a + self.bounds[k + 1] - self.bounds[k]
            regions: dict[str, list[dict[str, Any]]] = {}
            shown: dict[str, list[str]] = {}
            for who in self.raters[self.which[k]]:
                regions[names[who]], shown[names[who]] = [], []
            for name, region, line in zip(owner[a:b], described[a:b], lines[a:b], strict=True):
                regions[name].append(region)
                shown[name].append(line)
            entry = Details(
                regions=regions,
                disagreements=disagreements[da : da + self.d_end[k] - self.d_start[k]],
                region=LowestRegion(
                    self.low_score[k],
                    {names[w]: self.values[x] for w, x in enumerate(codes) if x >= 0},
                    list(compress(described[a:b], member[a:b])),
                ),
            )
            excerpt = self.excerpt(k)
            if excerpt is not None:
                entry.text = excerpt
            j = self.relation[k]
            if j >= 0 and self.cl.relations is not None:  # the relation is the lowest decision
                score = round(float(self.cl.relations.score[j]), 6)
                entry.relation = RelationDecision(score, self.relation_labels(j))
            f1 = self.relations_f1(k)
            if f1 is not None:
                entry.relations_f1 = f1
            out.append((entry, shown))
            a, da = b, da + self.d_end[k] - self.d_start[k]
        return out

    def disagreement_rows(self, ks: list[int]) -> np.ndarray[Any, Any]:
        """Positions in the ``d_*`` columns of tasks ``ks``' disagreements, one task after
        another (the JSON sink's blocks of tasks)."""
        return _ranges(self._d_starts[ks], self.d_count[ks])

    @cached_property
    def _d_starts(self) -> np.ndarray[Any, Any]:
        return np.asarray(self.d_start, dtype=np.int64)


class RegionUnits(UnitTable):
    """The units of a region field, column-wise (a :class:`UnitTable` without label columns):
    unit ``i`` is task ``ids[i]``, unit ``unit[i]`` of the matched field. Its labels (each
    rater's regions as lines of text) and :class:`Details` are those of a disputed unit (the
    others have none), described when asked (:meth:`described`), the columns of every
    disputed one (:attr:`disputes`) built once, on first need."""

    def __init__(
        self,
        ids: list[TaskId],
        status: np.ndarray[Any, np.dtype[np.int8]],
        score: np.ndarray[Any, np.dtype[np.float64]],
        unit: np.ndarray[Any, np.dtype[np.intp]],
        found: tuple[Matched, Clustered, metrics.PairwiseF1 | None],
    ) -> None:
        none = np.zeros(len(ids), dtype=np.int64)
        super().__init__(ids, status, score, (none, none), ([], none[:0], [], none[:0]))
        self.unit, self._found = unit, found
        self._described: dict[int, tuple[Details, dict[str, list[str]]]] = {}

    @cached_property
    def disputes(self) -> Disputes:
        """The disputed units' columns (entry ``k``: unit ``where("disputed")[k]``)."""
        m, cl, relations = self._found
        return Disputes(m, cl, self.unit[self.where("disputed")], relations)

    @cached_property
    def entry(self) -> dict[int, int]:
        """Unit index → its entry in :attr:`disputes` (disputed units only)."""
        return {i: k for k, i in enumerate(self.where("disputed"))}

    def described(self, at: Sequence[int]) -> list[tuple[Details | None, dict[str, Any]]]:
        """Units ``at`` (indices) described: a disputed one's details and labels, in bulk, and
        kept; (None, {}) for the others."""
        entry = self.entry
        new = sorted({i for i in at if i in entry and i not in self._described})
        if new:
            made = self.disputes.details([entry[i] for i in new])
            self._described.update(zip(new, made, strict=True))
        none: tuple[None, dict[str, Any]] = (None, {})
        return [self._described.get(i, none) for i in at]

    def _make(self, i: int) -> UnitResult:
        details, labels = self.described([i])[0]
        u = UnitResult(self.ids[i], STATUSES[self.status[i]], float(self.score[i]), labels, details)
        u.consensus, u.priority = self._proposal(i)
        return u

    def __iter__(self) -> Iterator[UnitResult]:
        self.described(self.where("disputed"))  # in bulk, not one by one
        return super().__iter__()

    def with_status(self, status: str) -> list[UnitResult]:
        at = self.where(status)
        self.described(at)
        return [self[i] for i in at]

    def labels(self, at: Sequence[int]) -> list[dict[str, Any]]:
        return [labels for _, labels in self.described(at)]

    def details(self, at: Sequence[int]) -> list[Details | None]:
        return [details for details, _ in self.described(at)]

    def n_labels(self, at: Sequence[int]) -> list[int]:
        """Per unit ``at``: a disputed one's raters (by name, as its labels list them), else 0."""
        m = self._found[0]
        rated = m.regions.rated[self.unit[np.asarray(at, dtype=np.int64)]]
        raters, which = _patterns(rated)
        n = [len({m.names[a] for a in p}) for p in raters]
        entry = self.entry
        return [n[w] if i in entry else 0 for i, w in zip(at, which.tolist(), strict=True)]


@dataclass(frozen=True)
class ProposedRegions:
    """Proposed regions, column-wise, one per matched cluster whose most probable class is a
    label: ``labels`` (None: no label), ``geos`` (the cluster's median geometry: a span's
    whole ``[start, end]``, a box's ``[x, y, width, height[, rotation]]``), ``texts`` (spans:
    the text under each, None where unknown; else empty), ``points`` (polygons with points:
    the points of a region standing for each, None for none; else empty), ``keys`` (the
    geometry's keys in ``geos`` order), ``posterior`` (rounded to 6 places) and ``tie``;
    ``finite``: every number is finite."""

    labels: list[str | None]
    geos: list[list[Any]]
    texts: list[str | None]
    points: list[list[list[float]] | None]
    keys: tuple[str, ...]
    posterior: list[float]
    tie: list[bool]
    finite: bool

    def dicts(self, a: int, b: int) -> list[dict[str, Any]]:
        """Regions ``a:b`` as ``consensus.jsonl`` writes them: ``{label, <geometry>[, text],
        posterior, tie}``."""
        out: list[dict[str, Any]] = []
        for r in range(a, b):
            d: dict[str, Any] = {"label": self.labels[r]}
            if self.texts:
                d["start"], d["end"] = self.geos[r]
                if self.texts[r] is not None:
                    d["text"] = self.texts[r]
            elif self.points:
                if self.points[r] is not None:
                    d["points"] = self.points[r]
            else:
                d.update(zip(self.keys, self.geos[r], strict=False))
            d["posterior"], d["tie"] = self.posterior[r], self.tie[r]
            out.append(d)
        return out


class RegionProposals(Sequence[list[dict[str, Any]]]):
    """Each unit's proposed answer, a list of regions (:class:`ProposedRegions` ``regions``),
    column-wise: unit ``u``'s are ``start[u]:start[u + 1]``, in reading order. The lists are
    made when read; ``consensus.jsonl`` and ``disputed-tasks.jsonl`` encode them from the
    columns."""

    def __init__(self, start: list[int], regions: ProposedRegions) -> None:
        self.start, self.regions = start, regions
        self.encoded: list[bytes] | None = None
        """Each unit's list as JSON, while one of the two files that write them has it and the
        other has not yet taken it (the JSON sink's; None: not held)."""

    def __len__(self) -> int:
        return len(self.start) - 1

    @overload
    def __getitem__(self, u: int) -> list[dict[str, Any]]: ...
    @overload
    def __getitem__(self, u: slice) -> list[list[dict[str, Any]]]: ...
    def __getitem__(self, u: int | slice) -> Any:
        if isinstance(u, slice):
            return [self[i] for i in range(*u.indices(len(self)))]
        return self.regions.dicts(self.start[u], self.start[u + 1])


def _in_steps(x: np.ndarray[Any, Any], places: int) -> np.ndarray[Any, Any]:
    """``x`` in whole steps of ``10**-places`` when each value is one (a median rounded to
    that many places: the same order and ties, so :func:`sort_order` packs it with the other
    keys into one sort of integers, not a ``lexsort`` of floats), else ``x`` as it is (whole
    numbers too: scaled, their range would no longer pack)."""
    if x.dtype.kind != "f" or np.array_equal(x, np.floor(x)):
        return x
    scale = 10.0**places
    k = np.rint(x * scale)
    # below 2**40 steps, k / scale is one float per step, in the steps' order
    if (np.abs(k) < 2.0**40).all() and np.array_equal(k / scale, x):
        return k
    return x


def proposed(
    m: Matched,
    unit: np.ndarray[Any, Any],
    shown: np.ndarray[Any, Any],
    best: list[Any],
    median: np.ndarray[Any, Any],
    example: dict[int, int],
    posterior: np.ndarray[Any, Any],
    tie: np.ndarray[Any, Any],
) -> RegionProposals:
    """The proposed regions of clusters ``shown`` (their ``unit``, ``best`` label,
    ``median`` geometry (``(clusters, d)``), a polygon's ``example`` region, ``posterior`` and
    ``tie``), each unit's in reading order (the shape's ``reading`` keys: spans by start and
    end, boxes by top-left corner (y, x); a polygon's regions as they come)."""
    reg = m.regions
    describer = Describer(m)
    geo = median[shown]
    keys = describer.keys(median.shape[1])
    at = unit[shown]
    reading = reg.shape.reading  # the keys that order a unit's regions, first first
    by = [_in_steps(geo[:, reg.shape.keys.index(k)], 4) for k in reading]
    order = sort_order(at, *by)  # ties as they come; whole numbers packed into one sort
    shown, geo, at = shown[order], geo[order], at[order]
    c = cast(list[int], shown.tolist())
    labels: list[str | None] = list(map(best.__getitem__, c))  # a loop in C: a million clusters
    from ..metrics.regions import NO_LABEL  # not at import: a classification run needs none

    if NO_LABEL in labels:  # a cluster of regions drawn without a label proposes none
        labels = [None if x == NO_LABEL else x for x in labels]
    geos = cast(list[list[Any]], geo.tolist())
    texts = []
    if reg.shape.linear:
        texts = under(m.table.texts, at.tolist(), geo[:, 0].tolist(), geo[:, 1].tolist())
    points: list[list[list[float]] | None] = []
    if describer.polygon and reg.points is not None:
        points = [
            None if (r := example.get(x)) is None else reg.points[r].round(4).tolist() for x in c
        ]
    p = posterior[shown]
    finite = bool(np.isfinite(geo).all() and np.isfinite(p).all()) and all(
        np.isfinite(x).all() for x in points if x is not None
    )
    regions = ProposedRegions(
        labels, geos, texts, points, keys, p.round(6).tolist(), tie[shown].tolist(), finite
    )
    start = np.searchsorted(at, np.arange(reg.rated.shape[0] + 1)).tolist()
    return RegionProposals(start, regions)
