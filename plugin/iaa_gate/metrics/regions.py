"""Region agreement: one-to-one matching of regions between annotators, pairwise F1, clusters.

A region field (NER spans, boxes, polygons, keypoints) is a table of ``n`` regions, one row each
(:class:`Regions`). :func:`match_regions` pairs regions of two annotators on the same unit, one to
one and optimally; the scores, clusters and disagreement kinds all read that matching. Results
never depend on the order regions are stored in.

Conventions:

- An annotator "rated" a unit when they submitted an annotation for it, even one with no region
  ("nothing here"); a skipped or unassigned unit is missing and takes part in no pair.
- Pairwise F1 of annotators a, b on a unit: 2·TP / (n_a + n_b), TP their matched regions, n their
  region counts. Two empty annotations agree: F1 = 1 (at every level: unit, pair, field).
- Pooled F1 (field, label, annotator pair): 2·ΣTP / Σ(n_a + n_b) over the (unit, pair) cells,
  i.e. micro-averaged, so units with many regions weigh more.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, TypeVar

import numpy as np
import numpy.typing as npt

from ..core import progress
from ..core.arguments import choice, instance, number
from ..core.errors import UsageError
from ..core.extras import needed
from ._base import FloatArray, Undefined, distinct, fastest_sort, sort_order
from .geometry import (
    SHAPES,
    BoolArray,
    Int64Array,
    Kind,
    Shape,
    at_least,
    candidate_pairs,
    components,
    group_pairs,
    shape_of,
)

Mode = Literal["overlap", "exact"]
ScalarT = TypeVar("ScalarT", bound=np.generic)
MODES: tuple[Mode, ...] = ("overlap", "exact")


def _ints(a: npt.ArrayLike, parameter: str = "values") -> Int64Array:
    try:
        return np.asarray(a, dtype=np.int64).reshape(-1)
    except (TypeError, ValueError):
        raise UsageError(f"{parameter} must be integers, got {a!r}", parameter=parameter) from None


@dataclass(frozen=True)
class Regions:
    """The ``n`` regions of one field, columnar.

    Nested and overlapping regions of one annotator are kept as they are. A region on a unit its
    annotator did not rate raises ``ValueError``.

    Attributes
    ----------
    unit : ndarray
        ``(n,)`` row of the region's unit (task) in ``0 … units − 1``.
    annotator : ndarray
        ``(n,)`` column in ``0 … annotators − 1``.
    label : ndarray
        ``(n,)`` code into ``labels``; ``-1``: no label.
    geometry : ndarray
        ``(n, d)`` float: span ``[start, end)`` (end exclusive; characters or tokens), box
        ``[x, y, width, height, rotation]`` (rotation in degrees clockwise about the top-left
        corner; give pixels, or any units with the same scale on x and y, when boxes are
        rotated), keypoint ``[x, y]``; mask its pixel box and the image's pixel count ``[x, y,
        width, height, pixels]``; polygon: unused (may hold anything, e.g. ``(n, 0)``).
    rated : ndarray
        ``(units, annotators)`` bool, the annotator submitted the unit (even with no region).
    kind : {"span", "box", "polygon", "keypoint", "mask"}
        The regions' shape.
    labels : tuple of str
        The label names.
    points : tuple of ndarray, optional
        Polygons: ``n`` vertex arrays ``(k, 2)``; masks: ``n`` run arrays ``(k, 2)`` ``[start,
        end)`` of row-major pixel indices, sorted and disjoint (IoU counts pixels).

    Examples
    --------
    >>> from iaa_gate.metrics import geometry
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...             geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...             kind="span", labels=("PER", "ORG"))
    >>> len(spans.unit), spans.rated.shape
    (4, (1, 2))
    """

    unit: Int64Array
    annotator: Int64Array
    label: Int64Array
    geometry: FloatArray
    rated: BoolArray
    kind: Kind = "span"
    labels: tuple[str, ...] = ()
    points: tuple[FloatArray, ...] | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ("unit", "annotator", "label"):
            set_(self, name, _ints(getattr(self, name), name))
        set_(self, "rated", np.asarray(self.rated, dtype=bool))
        n = self.unit.shape[0]
        shape = _shape(self.kind)
        try:
            geometry = np.asarray(self.geometry, dtype=np.float64)
        except (TypeError, ValueError):
            raise UsageError(
                "geometry must be numbers, one row per region", parameter="geometry"
            ) from None
        if shape.points is not None:
            if self.points is None or len(self.points) != n:
                raise UsageError(
                    f"{shape.name} regions need one (k, 2) array per region", parameter="points"
                )
            set_(self, "points", tuple(map(shape.points, self.points)))
        if shape.vertices:  # bounds come from the vertices: any geometry (or none) is kept
            geometry = geometry.reshape(n, -1) if geometry.size else np.zeros((n, 0))
        else:
            geometry = _rows(geometry, n, shape.width)
        set_(self, "geometry", geometry)
        self._check(n)

    def _check(self, n: int) -> None:
        if self.rated.ndim != 2:
            raise UsageError("rated must be (units, annotators)", parameter="rated")
        for name in ("annotator", "label"):
            if getattr(self, name).shape[0] != n:
                raise UsageError(
                    f"unit, annotator and label must have one entry per region, {name} has "
                    f"{getattr(self, name).shape[0]} for {n}",
                    parameter=name,
                )
        units, annotators = self.rated.shape
        if n and (self.unit.min() < 0 or self.unit.max() >= units):
            raise UsageError(f"region units must lie in 0 … {units - 1}", parameter="unit")
        if n and (self.annotator.min() < 0 or self.annotator.max() >= annotators):
            raise UsageError(
                f"region annotators must lie in 0 … {annotators - 1}", parameter="annotator"
            )
        if n and (self.label.min() < -1 or self.label.max() >= len(self.labels)):
            raise UsageError(
                f"region labels must be -1 or codes into {len(self.labels)} labels",
                parameter="label",
            )
        unrated = np.flatnonzero(~self.rated[self.unit, self.annotator])
        if unrated.size:
            r = int(unrated[0])
            raise UsageError(
                f"region {r}: annotator {self.annotator[r]} did not rate unit {self.unit[r]}",
                parameter="rated",
            )
        if not np.isfinite(self.geometry).all():
            raise UsageError("region geometry must be finite", parameter="geometry")
        if self.shape.linear and n and (self.geometry[:, 1] < self.geometry[:, 0]).any():
            raise UsageError("a span ends before it starts", parameter="geometry")

    @property
    def shape(self) -> Shape:
        """The regions' geometry (:class:`~iaa_gate.metrics.geometry.Shape`) and its behaviour."""
        return shape_of(self.kind)

    @property
    def n(self) -> int:
        return int(self.unit.shape[0])

    @property
    def units(self) -> int:
        return int(self.rated.shape[0])

    @property
    def annotators(self) -> int:
        return int(self.rated.shape[1])


@dataclass(frozen=True)
class Overlaps:
    """Every pair of regions of two annotators on one unit that overlap, ``(p,)`` each.

    ``first``/``second``: region indices, ``annotator[first] < annotator[second]``.
    ``similarity``: IoU (spans, boxes, polygons) or 1 − distance/tolerance (keypoints, ≥ 0).
    ``exact``: identical geometry (boundaries, box, vertices or point).
    """

    first: Int64Array
    second: Int64Array
    similarity: FloatArray
    exact: BoolArray


@dataclass(frozen=True)
class RegionMatching:
    """A one-to-one matching between the regions of each annotator pair on each unit.

    Attributes
    ----------
    regions : Regions
        The regions matched.
    first, second : ndarray
        ``(m,)`` matched region indices, ``annotator[first] < annotator[second]``.
    similarity : ndarray
        ``(m,)`` their IoU (keypoints: 1 − distance/tolerance).
    overlaps : Overlaps
        All overlapping pairs (matched or not), for the disagreement kinds.
    mode, iou, labels, tolerance
        How the regions were matched (see :func:`match_regions`).

    Examples
    --------
    >>> from iaa_gate.metrics import geometry
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...             geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...             kind="span", labels=("PER", "ORG"))
    >>> m = match_regions(spans)
    >>> m.first.tolist(), m.second.tolist(), m.similarity.round(2).tolist()
    ([0, 1], [2, 3], [1.0, 0.8])
    """

    regions: Regions
    first: Int64Array
    second: Int64Array
    similarity: FloatArray
    overlaps: Overlaps
    mode: Mode
    iou: float
    labels: bool
    tolerance: float

    @property
    def close(self) -> BoolArray:
        """``(p,)``: overlapping pairs whose geometry is admissible (labels aside)."""
        ov = self.overlaps
        if self.mode == "exact":
            return ov.exact
        return at_least(ov.similarity, 0.0 if self.regions.shape.tolerance else self.iou)

    @property
    def admissible(self) -> BoolArray:
        """``(p,)``: overlapping pairs that may match (geometry and, with labels, label)."""
        ov, lab = self.overlaps, self.regions.label
        return self.close & (lab[ov.first] == lab[ov.second]) if self.labels else self.close


def _shape(kind: object) -> Shape:
    """The :class:`Shape` a ``kind`` names; a :class:`UsageError` listing them for another."""
    if not (isinstance(kind, str) and kind in SHAPES):
        raise UsageError(
            f"unknown region shape {kind!r}: use {', '.join(SHAPES)}",
            parameter="kind",
            accepted=tuple(SHAPES),
        )
    return shape_of(kind)


def _rows(geometry: FloatArray, n: int, width: int) -> FloatArray:
    """``geometry`` as ``(n, width)``: one row per region."""
    if geometry.size != n * width:
        raise UsageError(
            f"geometry must be ({n}, {width}): one row per region, got shape {geometry.shape}",
            parameter="geometry",
        )
    return geometry.reshape(n, width)


def _matching(matching: object) -> RegionMatching:
    return instance("matching", matching, RegionMatching, "a RegionMatching: match_regions(...)")


def overlaps(regions: Regions, *, tolerance: float = 0.0) -> Overlaps:
    """All overlapping region pairs of different annotators within a unit (see :class:`Overlaps`).

    Touching spans (IoU 0) are left out; keypoints overlap within ``tolerance``.
    """
    shape = regions.shape
    bounds = shape.bounds(regions.geometry, regions.points)
    reach = tolerance if shape.tolerance else 0.0
    ann = regions.annotator
    i, j = candidate_pairs(regions.unit, bounds, reach, ann)
    flip = ann[i] > ann[j]
    i, j = np.where(flip, j, i), np.where(flip, i, j)
    sim, exact = shape.similarity(regions.geometry, regions.points, i, j, tolerance)
    keep = np.flatnonzero((sim > 0) | exact | (shape.tolerance & at_least(sim, 0.0)))
    if keep.size < i.size:  # copies only when some do not overlap (a span round: all do)
        i, j, sim, exact = i[keep], j[keep], sim[keep], exact[keep]
    return Overlaps(i, j, np.maximum(sim, 0.0), exact)


def match_regions(
    regions: Regions,
    *,
    mode: Mode = "overlap",
    iou: float = 0.5,
    labels: bool = True,
    tolerance: float = 0.0,
    overlapping: Overlaps | None = None,
) -> RegionMatching:
    """Optimal one-to-one matching of regions per (unit, annotator pair).

    Admissible pairs: ``mode="exact"``: identical geometry; ``mode="overlap"``: IoU ≥ ``iou``
    (spans: character IoU; boxes: IoU, rotation respected; polygons: polygon IoU), keypoints
    within ``tolerance`` (same units as their coordinates). ``labels=True``: only same-label
    pairs; ``labels=False``: labels are ignored (a matched pair with two labels is a label swap).

    Among admissible pairs, the matching has the most pairs, then the largest total IoU (then,
    label-free, the most same-label pairs). Unambiguous pairs (each region's only candidate with
    that annotator) are taken directly; the rest are solved per connected component, rows and
    columns in a canonical order (unit, label, geometry), so ties break the same way whatever
    the storage order: a small component with one best assignment by trying every assignment
    (:func:`smallest_assignments`), a tie or a larger one by
    ``scipy.optimize.linear_sum_assignment``, which keeps the same pairs on every other input.

    ``overlapping``: :func:`overlaps` of these regions at this ``tolerance`` when already known
    (e.g. ``other.overlaps`` of another matching of them), so matching the same regions several
    ways computes the candidate pairs and their IoU once.

    Parameters
    ----------
    regions : Regions
        One field's regions.
    mode : {'overlap', 'exact'}
        Overlap (IoU ≥ ``iou``) or identical geometry.
    iou : float
        The least IoU of a matched pair.
    labels : bool
        Match only regions with the same label.
    tolerance : float
        Keypoints: the largest distance of a match.
    overlapping : optional
        The candidate pairs of these regions at this tolerance, when already known.

    Returns
    -------
    RegionMatching
        The matched pairs, with their IoU.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> len(match_regions(spans).first), len(match_regions(spans, mode='exact').first)
    (2, 1)
    """
    instance("regions", regions, Regions, "a Regions")
    choice("mode", mode, MODES)
    number("iou", iou, low=0, high=1, open_low=True)
    number("tolerance", tolerance, low=0)
    if overlapping is not None:
        instance("overlapping", overlapping, Overlaps, "overlaps(regions), or None")
    ov = overlapping if overlapping is not None else overlaps(regions, tolerance=tolerance)
    matching = RegionMatching(
        regions, ov.first[:0], ov.second[:0], ov.similarity[:0], ov, mode, iou, labels, tolerance
    )
    ok = np.flatnonzero(matching.admissible)
    i, j, sim = ov.first, ov.second, ov.similarity
    if ok.size < i.size:  # label-free overlap matching admits every overlapping pair: no copies
        i, j, sim = i[ok], j[ok], sim[ok]
    pick = _assign(regions, i, j, sim)
    if pick.size < i.size:  # some competing regions were not matched
        i, j, sim = i[pick], j[pick], sim[pick]
    order = sort_order(regions.unit[i], i)
    return RegionMatching(regions, i[order], j[order], sim[order], ov, mode, iou, labels, tolerance)


def canonical_rank(regions: Regions, idx: Int64Array | None = None) -> Int64Array:
    """Rank ``(k,)`` of regions ``idx`` (default: all) in an order that depends on their content,
    not their position: unit, annotator, label, then geometry (polygons: bounds, vertex count,
    vertex sums). Identical regions tie in content; their order among themselves is immaterial."""
    sel = np.arange(regions.n) if idx is None else idx
    if sel.size == 0:
        return np.empty(0, dtype=np.int64)
    geo = regions.geometry[sel]
    if regions.shape.points is not None:
        pts = [(regions.points or ())[k] for k in sel.tolist()]
        geo = np.column_stack(
            [
                regions.shape.bounds(geo, pts),
                [len(p) for p in pts],
                [p.sum() for p in pts],
                [float((p * p).sum()) for p in pts],
            ]
        ).reshape(sel.size, -1)
    # whole-number geometry (spans' offsets) packs into one integer sort; fractions: lexsort
    order = sort_order(regions.unit[sel], regions.annotator[sel], regions.label[sel], *geo.T)
    rank = np.empty(sel.size, dtype=np.int64)
    rank[order] = np.arange(sel.size)
    return rank


def _ranks_of(regions: Regions, *members: Int64Array) -> Int64Array:
    """``(n,)`` content ranks, filled only for the regions among ``members`` (others: 0)."""
    sub = np.unique(np.concatenate(members))
    rank = np.zeros(regions.n, dtype=np.int64)
    rank[sub] = canonical_rank(regions, sub)
    return rank


def _assign(regions: Regions, i: Int64Array, j: Int64Array, sim: FloatArray) -> Int64Array:
    """Indices into the admissible edges ``(e,)`` that form the optimal one-to-one matching."""
    if i.size == 0:
        return np.empty(0, dtype=np.int64)
    n_ann = regions.annotators
    ann = regions.annotator
    left = i * n_ann + ann[j]  # region i facing annotator ann[j]: a node of that pair's graph
    right = j * n_ann + ann[i]
    trivial = _single(left) & _single(right)
    hard = np.flatnonzero(~trivial)
    if hard.size == 0:
        return np.flatnonzero(trivial)
    _, li = np.unique(left[hard], return_inverse=True)
    _, ri = np.unique(right[hard], return_inverse=True)
    n_left = int(li.max()) + 1
    nodes = n_left + int(ri.max()) + 1
    comp = components(nodes, li, n_left + ri)
    rank = _ranks_of(regions, i[hard], j[hard])
    swap = regions.label[i[hard]] != regions.label[j[hard]]
    cost = 1.0 - sim[hard] + 1e-9 * swap  # label-free: prefer the same label on a tie
    edge_comp = comp[li]
    row = _dense_within(edge_comp, rank[i[hard]])  # rows, columns: in canonical order
    col = _dense_within(edge_comp, rank[j[hard]])
    n_comp = int(edge_comp.max()) + 1
    rows = np.zeros(n_comp, dtype=np.int64)
    cols = np.zeros(n_comp, dtype=np.int64)
    np.maximum.at(rows, edge_comp, row + 1)
    np.maximum.at(cols, edge_comp, col + 1)
    chosen = trivial.copy()  # the unambiguous edges, and each component's choice
    shape = rows * (int(cols.max()) + 1) + cols
    shown = n_comp >= PROGRESS_GROUPS
    done = progress.step("match regions", n_comp, "groups") if shown else None
    for s in np.unique(shape).tolist():  # components of one shape: one stack of matrices
        of = np.flatnonzero(shape == s)
        n_r, n_c = int(rows[of[0]]), int(cols[of[0]])
        slot = np.full(n_comp, -1, dtype=np.int64)
        slot[of] = np.arange(of.size)
        e = np.flatnonzero(slot[edge_comp] >= 0)
        big = 2.0 * (min(n_r, n_c) + 1)  # any extra pair outweighs all IoU sums
        matrix = np.full((of.size, n_r, n_c), big)
        at = np.full((of.size, n_r, n_c), -1, dtype=np.int64)
        matrix[slot[edge_comp[e]], row[e], col[e]] = cost[e]
        at[slot[edge_comp[e]], row[e], col[e]] = hard[e]
        rest: Int64Array = np.arange(of.size)  # the matrices left to linear_sum_assignment
        if math.perm(max(n_r, n_c), min(n_r, n_c)) <= SMALL_ASSIGNMENTS:
            solved, r, c = smallest_assignments(matrix, at >= 0)
            got = at[np.flatnonzero(solved)[:, None], r[solved], c[solved]]
            chosen[got[got >= 0]] = True
            rest = rest[~solved]
            if done is not None:
                done.advance(of.size - rest.size)
        if rest.size:
            with needed("regions"):
                from scipy.optimize import linear_sum_assignment
        for n, k in enumerate(rest.tolist()):
            r, c = linear_sum_assignment(matrix[k])
            got = at[k, r, c]
            chosen[got[got >= 0]] = True
            if done is not None and n % 4096 == 4095:
                done.advance(4096)
        if done is not None:
            done.advance(rest.size % 4096)
    if done is not None:
        done.close()
    return np.flatnonzero(chosen)


PROGRESS_GROUPS = 500_000
"""Groups of competing regions from which matching reports its progress: up to a few seconds'
work (a group left to ``linear_sum_assignment``: ~5 µs with its bookkeeping; a 2×2 or 3×3
solved by :func:`smallest_assignments`: well under 1 µs)."""

SMALL_ASSIGNMENTS = 120
"""Groups of competing regions with at most this many assignments (up to a 5×5 or 2×11 matrix;
a detection round's are mostly 2×2) are solved by :func:`smallest_assignments`, so a round
without larger groups or ties never imports ``scipy.optimize`` (a quarter of a second). Per
group it takes 0.13 µs at 2×2, 1.2 µs at 4×4 and 5.5 µs at 5×5, as much as a call of scipy
with its bookkeeping; larger ones grow with the assignments (6×6: 720)."""
SMALL_CELLS = 1 << 20
"""Matrices × assignments × pairs that :func:`smallest_assignments` evaluates at once (each of
its few arrays of them: 8 MiB)."""
TIE = 1e-12
"""Two assignments whose costs are closer than this are a tie (far below the 1e-9 that prefers
same-label pairs, far above the rounding of a sum of a few costs below 2·(pairs + 1))."""


def smallest_assignments(
    cost: FloatArray, edge: BoolArray
) -> tuple[BoolArray, Int64Array, Int64Array]:
    """The cheapest assignment of each matrix of a stack ``(k, n_r, n_c)``, by trying all of them.

    An assignment pairs ``m = min(n_r, n_c)`` rows and columns one to one, as
    ``scipy.optimize.linear_sum_assignment`` does. Its cheapest one is *solved* when no other
    assignment with other edges (cells where ``edge`` ``(k, n_r, n_c)`` is true; the others are
    dropped from the matching) costs less than :data:`TIE` more: then every optimal solver
    keeps the same edges, whatever its order. A near tie is not solved; the caller asks scipy,
    so that ties break as they always did.

    Parameters
    ----------
    cost : ndarray
        ``(k, n_r, n_c)`` the cost of each cell.
    edge : ndarray
        ``(k, n_r, n_c)`` the cells that are edges (kept when chosen).

    Returns
    -------
    solved : ndarray
        ``(k,)`` whether the cheapest assignment is the only one with its edges.
    rows, cols : ndarray
        ``(k, m)`` each matrix's cheapest assignment.

    Examples
    --------
    >>> cost = np.array([[[0.1, 0.5], [0.4, 0.2]], [[0.5, 0.25], [0.25, 0.0]]])  # 2nd: a tie
    >>> solved, rows, cols = smallest_assignments(cost, np.ones_like(cost, dtype=bool))
    >>> solved.tolist(), rows[0].tolist(), cols[0].tolist()
    ([True, False], [0, 1], [0, 1])
    """
    k, n_r, n_c = cost.shape
    if n_r > n_c:  # columns onto rows: the same pairs
        solved, cols, rows = smallest_assignments(cost.transpose(0, 2, 1), edge.transpose(0, 2, 1))
        return solved, rows, cols
    tries = np.array(list(itertools.permutations(range(n_c), n_r)), dtype=np.int64)  # (t, m)
    step = max(1, SMALL_CELLS // tries.size)
    if k > step:  # in parts: a few arrays of (k, t, m) at once would be k·t·m·8 bytes each
        parts = [
            smallest_assignments(cost[lo : lo + step], edge[lo : lo + step])
            for lo in range(0, k, step)
        ]
        solved, rows, cols = (np.concatenate(x) for x in zip(*parts, strict=True))
        return solved, rows, cols
    line = np.arange(n_r)
    total = cost[:, line, tries].sum(axis=2)  # (k, t)
    best = total.argmin(axis=1)
    each = np.arange(k)
    kept = np.where(edge[:, line, tries], tries, -1)  # each assignment's edges, row by row
    near = total <= (total[each, best] + TIE)[:, None]
    other = (kept != kept[each, best][:, None, :]).any(axis=2)
    return ~(near & other).any(axis=1), np.broadcast_to(line, (k, n_r)), tries[best]


def _single(keys: Int64Array) -> BoolArray:
    """``(e,)``: whether each of ``keys`` occurs only once, by sorting them.

    A table of counts of every (region, other annotator) key would hold regions × annotators
    entries: 4× the edges of a three-annotator span round, gigabytes for a crowd of hundreds;
    filled in a large process, its fresh pages cost more than the sort (the edges come nearly
    in key order)."""
    order = np.argsort(keys, kind=fastest_sort(keys))
    ordered = keys[order]
    new = np.ones(keys.size + 1, dtype=bool)  # new[k]: sorted key k differs from key k − 1
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:-1])
    out = np.empty(keys.size, dtype=bool)
    out[order] = new[:-1] & new[1:]
    return out


def _dense_within(group: Int64Array, key: Int64Array) -> Int64Array:
    """``(e,)``: each key's rank among the distinct keys of its group (0, 1, …)."""
    order = sort_order(group, key)
    g, k = group[order], key[order]
    start = np.r_[True, np.diff(g) != 0]
    dense = np.cumsum(start | np.r_[True, np.diff(k) != 0]) - 1
    out = np.empty_like(dense)
    out[order] = dense - np.maximum.accumulate(np.where(start, dense, 0))
    return out


@dataclass(frozen=True)
class RatedPairs:
    """The (unit, annotator pair) cells where both annotators rated the unit.

    ``cells``: ``(k,)`` sorted keys unit·A + annotator of the rated cells.
    ``unit``/``a``/``b``: ``(P,)`` per pair, a < b; ``a_cell``/``b_cell``: their cell indices.
    ``raters``: ``(units,)`` m_u, how many annotators rated each unit.
    """

    cells: Int64Array
    unit: Int64Array
    a: Int64Array
    b: Int64Array
    a_cell: Int64Array
    b_cell: Int64Array
    raters: Int64Array
    annotators: int

    @classmethod
    def of(cls, rated: BoolArray) -> RatedPairs:
        units, n_ann = rated.shape
        u, a = np.nonzero(rated)
        u, a = u.astype(np.int64), a.astype(np.int64)
        raters = np.bincount(u, minlength=units).astype(np.int64)
        run_end = np.cumsum(raters)[u]
        x, y = group_pairs(np.arange(u.size, dtype=np.int64), run_end)
        return cls(u * n_ann + a, u[x], a[x], a[y], x, y, raters, n_ann)

    @cached_property
    def _cell_of(self) -> Int64Array | None:
        """``(units · A,)`` the cell index of every key (None where that table would be many
        times the cells: few annotators rated each unit)."""
        size = self.raters.shape[0] * self.annotators
        if size > 4 * self.cells.size + 4096:
            return None
        return np.searchsorted(self.cells, np.arange(size, dtype=np.int64)).astype(np.int64)

    @cached_property
    def _first_pair(self) -> Int64Array:
        """``(k,)`` each cell's first pair as its ``a_cell`` (pairs are listed by ``a_cell``,
        then ``b_cell``, each cell with every later cell of its unit)."""
        at = np.arange(self.cells.size, dtype=np.int64)
        return np.searchsorted(self.a_cell, at).astype(np.int64)

    def cell(self, unit: Int64Array, annotator: Int64Array) -> Int64Array:
        """Cell index ``(…,)`` of rated (unit, annotator) cells."""
        key = unit * self.annotators + annotator
        table = self._cell_of  # one gather per cell, not a binary search
        return np.searchsorted(self.cells, key).astype(np.int64) if table is None else table[key]

    def pair(self, a_cell: Int64Array, b_cell: Int64Array) -> Int64Array:
        """Pair index of rated cell pairs, ``a_cell < b_cell`` (same unit)."""
        return self._first_pair[a_cell] + (b_cell - a_cell - 1)


@dataclass(frozen=True)
class PairwiseF1:
    """Pairwise F1 of items (regions, relations) at every level.

    Attributes
    ----------
    unit : ndarray
        ``(units,)`` mean over the unit's rated pairs of their F1; NaN where fewer than two
        annotators rated the unit.
    pairs : ndarray
        ``(units,)`` rated pairs per unit.
    annotators : ndarray
        ``(A, A)`` pooled F1 of each annotator pair over their shared units (NaN on the diagonal
        and where they share none).
    shared : ndarray
        ``(A, A)`` units both rated.
    f1 : float
        Pooled over every rated pair of the field.
    by_label : dict
        Label → pooled F1 (Undefined when the label never occurs in a unit rated twice).

    Examples
    --------
    >>> from iaa_gate.metrics import geometry
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...             geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...             kind="span", labels=("PER", "ORG"))
    >>> rel = Relations(source=[0, 2], target=[1, 3], label=[0, 0], labels=('works_at',))
    >>> s = relation_scores(rel, match_regions(spans))
    >>> s.f1, s.by_label
    (1.0, {'works_at': 1.0})
    """

    unit: FloatArray
    pairs: Int64Array
    annotators: FloatArray
    shared: Int64Array
    f1: float
    by_label: dict[str, float] = field(default_factory=dict)


def _f1(tp: FloatArray, total: FloatArray) -> FloatArray:
    """2·TP / total, 1 where total = 0 (nothing on either side agrees)."""
    return np.where(total > 0, 2.0 * tp / np.where(total > 0, total, 1.0), 1.0)


def pairwise_f1(
    pairs: RatedPairs,
    item_cell: Int64Array,
    tp_pair: Int64Array,
    tp_label: Int64Array,
    item_label: Int64Array,
    labels: tuple[str, ...],
) -> PairwiseF1:
    """F1 at every level from items' rated cells ``(k_items,)``, the pair index of each true
    positive ``(t,)`` and its label ``(t,)``, and each item's label code ``(k_items,)``."""
    units, n_ann = pairs.raters.shape[0], pairs.annotators
    n_cell = np.bincount(item_cell, minlength=pairs.cells.size).astype(np.float64)
    tp = np.bincount(tp_pair, minlength=pairs.unit.size).astype(np.float64)
    total = n_cell[pairs.a_cell] + n_cell[pairs.b_cell]
    f1 = _f1(tp, total)
    count = np.bincount(pairs.unit, minlength=units)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = np.bincount(pairs.unit, f1, minlength=units) / count
    ab = pairs.a * n_ann + pairs.b
    size = n_ann * n_ann
    tp_ab = np.bincount(ab, tp, minlength=size).reshape(n_ann, n_ann).astype(np.float64)
    tot_ab = np.bincount(ab, total, minlength=size).reshape(n_ann, n_ann).astype(np.float64)
    once = np.bincount(ab, minlength=size).reshape(n_ann, n_ann)
    shared = (once + once.T).astype(np.int64)
    matrix = _f1(tp_ab + tp_ab.T, tot_ab + tot_ab.T)
    matrix[shared == 0] = np.nan
    np.fill_diagonal(matrix, np.nan)
    np.fill_diagonal(shared, np.bincount(pairs.cells % n_ann, minlength=n_ann))
    others = (pairs.raters[pairs.cells // n_ann] - 1).astype(np.float64)  # per rated cell
    weight = others[item_cell]  # each item meets m_u − 1 other annotators
    field_f1: float = (
        float(_f1(np.array([tp.sum()]), np.array([total.sum()]))[0])
        if pairs.unit.size
        else Undefined("no unit was rated by two or more annotators")
    )
    by_label: dict[str, float] = {}
    if labels:
        size_l = len(labels)
        lab_tp = np.bincount(tp_label[tp_label >= 0], minlength=size_l)
        ok = item_label >= 0
        lab_tot = np.bincount(item_label[ok], weight[ok], minlength=size_l)
        for k, name in enumerate(labels):
            by_label[name] = (
                float(2.0 * lab_tp[k] / lab_tot[k])
                if lab_tot[k] > 0
                else Undefined(f"label {name!r} never occurs in a unit rated by two annotators")
            )
    return PairwiseF1(
        unit, count.astype(np.int64), matrix, shared.astype(np.int64), field_f1, by_label
    )


@dataclass(frozen=True)
class RegionScores(PairwiseF1):
    """:class:`PairwiseF1` of regions, with the quality of the matched pairs.

    Attributes
    ----------
    unit, pairs, annotators, shared, f1, by_label
        As :class:`PairwiseF1`.
    mean_similarity : float
        Mean IoU of matched pairs (keypoints: of 1 − distance/tolerance).
    support : ndarray
        ``(n,)`` how many other annotators matched each region.

    Examples
    --------
    >>> from iaa_gate.metrics import geometry
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...             geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...             kind="span", labels=("PER", "ORG"))
    >>> s = region_scores(match_regions(spans))
    >>> s.f1, round(s.mean_similarity, 2), s.support.tolist()
    (1.0, 0.9, [1, 1, 1, 1])
    """

    mean_similarity: float = math.nan
    support: Int64Array = field(default_factory=lambda: np.empty(0, dtype=np.int64))


def region_scores(matching: RegionMatching) -> RegionScores:
    """Pairwise F1 per unit, per label, per annotator pair and for the field (see module doc).

    A matched pair counts as a true positive of its label when both regions carry it (with
    ``labels=False`` a label swap is a true positive of the field, not of either label).

    Parameters
    ----------
    matching : RegionMatching
        A matching from :func:`match_regions`.

    Returns
    -------
    RegionScores
        Pairwise F1 per unit, label, annotator pair and field, and the mean IoU.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> region_scores(match_regions(spans)).f1, region_scores(match_regions(spans, mode='exact')).f1
    (1.0, 0.5)
    """
    reg = _matching(matching).regions
    pairs = RatedPairs.of(reg.rated)
    cell = pairs.cell(reg.unit, reg.annotator)
    f, s = matching.first, matching.second
    tp_pair = pairs.pair(cell[f], cell[s])
    tp_label = np.where(reg.label[f] == reg.label[s], reg.label[f], -1)
    base = pairwise_f1(pairs, cell, tp_pair, tp_label, reg.label, reg.labels)
    mean = (
        float(matching.similarity.mean())
        if matching.similarity.size
        else Undefined("no region was matched")
    )
    support = np.bincount(f, minlength=reg.n) + np.bincount(s, minlength=reg.n)
    return RegionScores(**vars(base), mean_similarity=mean, support=support.astype(np.int64))


@dataclass(frozen=True)
class Clusters:
    """Connected components of matched pairs: regions that agree, one cluster per group.

    Attributes
    ----------
    cluster : ndarray
        ``(n,)`` cluster of each region, numbered by unit (then storage order; the clusters'
        content never depends on it). An unmatched region is a cluster of its own.
    unit : ndarray
        ``(C,)`` each cluster's unit.
    ambiguous : ndarray
        ``(C,)`` the cluster holds two or more regions of one annotator (a chain of matches
        through other annotators, e.g. a1–b1–a2).

    Examples
    --------
    >>> from iaa_gate.metrics import geometry
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...             geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...             kind="span", labels=("PER", "ORG"))
    >>> region_clusters(match_regions(spans, mode='exact')).cluster.tolist()
    [0, 1, 0, 2]
    """

    cluster: Int64Array
    unit: Int64Array
    ambiguous: BoolArray

    @property
    def n(self) -> int:
        return int(self.unit.shape[0])


def region_clusters(matching: RegionMatching) -> Clusters:
    """Clusters of the regions: connected components of the matching's pairs within a unit.

    Parameters
    ----------
    matching : RegionMatching
        A matching from :func:`match_regions`.

    Returns
    -------
    Clusters
        Each region's cluster.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> region_clusters(match_regions(spans)).cluster.tolist()
    [0, 1, 0, 1]
    """
    reg = _matching(matching).regions
    n = reg.n
    comp = components(n, matching.first, matching.second)
    size = int(comp.max()) + 1 if n else 0
    unit: Int64Array = np.zeros(size, dtype=np.int64)
    unit[comp] = reg.unit
    order = sort_order(unit)  # by unit, then storage order
    renumber = np.empty(size, dtype=np.int64)
    renumber[order] = np.arange(size)
    new = renumber[comp]
    unit = unit[order]
    cells = distinct(new * reg.annotators + reg.annotator)
    per_cluster = np.bincount(new, minlength=size) - np.bincount(
        cells // max(reg.annotators, 1), minlength=size
    )
    return Clusters(new, unit, per_cluster > 0)


@dataclass(frozen=True)
class ClusterRatings:
    """A ``(clusters, annotators)`` ratings matrix: each cluster a unit for the usual coefficients.

    Attributes
    ----------
    codes : ndarray
        ``(C, A)`` codes into ``values``, ``-1`` missing.
    values : tuple of str
        The values' names.
    unit : ndarray
        ``(C,)`` each cluster's unit.
    conflicts : ndarray
        ``(C,)`` cells left missing because one annotator's regions in the cluster carry
        different values (see :func:`cluster_ratings`).

    Examples
    --------
    >>> from iaa_gate.metrics import geometry
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...             geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...             kind="span", labels=("PER", "ORG"))
    >>> r = cluster_ratings(match_regions(spans))
    >>> r.codes.tolist(), r.values
    ([[0, 0], [1, 1]], ('PER', 'ORG', '(no label)', '(unmatched)'))
    """

    codes: Int64Array
    values: tuple[str, ...]
    unit: Int64Array
    conflicts: Int64Array


UNMATCHED = "(unmatched)"
NO_LABEL = "(no label)"


def cluster_ratings(
    matching: RegionMatching,
    values: npt.ArrayLike | None = None,
    names: tuple[str, ...] = (),
    *,
    clusters: Clusters | None = None,
) -> ClusterRatings:
    """Ratings ``(C, A)`` over the clusters of a matching.

    ``values=None`` (shape agreement, Tschirschwitz et al. 2022): an annotator's cell holds the
    label of their region in the cluster, and ``"(unmatched)"`` when they rated the unit but have
    no region in the cluster; ``values`` = labels + ``"(no label)"`` + ``"(unmatched)"``. Pair it
    with ``match_regions(..., labels=False)`` to score localisation and label together.

    ``values`` ``(n,)`` codes into ``names`` (-1: not given), e.g. a per-region "certainty" choice:
    a cell holds the value of the annotator's region, missing when they have none in the cluster.

    Two regions of one annotator in a cluster with different values leave that cell missing (and
    counted in ``conflicts``): which one is "theirs" cannot be told; equal values count once.

    Parameters
    ----------
    matching : RegionMatching
        A matching from :func:`match_regions`.
    values : array_like, optional
        ``(n,)`` a per-region value's codes into ``names`` (-1: not given); ``None``: the regions'
        labels.
    names : tuple of str
        The values' names.
    clusters : Clusters, optional
        :func:`region_clusters` of the matching, when already known.

    Returns
    -------
    ClusterRatings
        The ``(clusters, annotators)`` ratings, their value names and the conflicts.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> cluster_ratings(match_regions(spans)).codes.tolist()
    [[0, 0], [1, 1]]
    """
    reg = _matching(matching).regions
    cl = clusters or region_clusters(matching)
    n_ann = reg.annotators
    if values is None:
        if names:
            raise UsageError(
                "names only apply with values (the regions' labels name themselves)",
                parameter="names",
            )
        names = (*reg.labels, NO_LABEL, UNMATCHED)
        vals = np.where(reg.label >= 0, reg.label, len(reg.labels))
        codes = np.where(reg.rated[cl.unit], len(names) - 1, -1).astype(np.int64)
    else:
        vals = _ints(values)
        if vals.shape != (reg.n,) or (reg.n and not -1 <= vals.min() <= vals.max() < len(names)):
            raise UsageError(
                f"values must give one code per region ({reg.n}), each -1 (not given) or a "
                f"code into the {len(names)} names",
                parameter="values",
            )
        codes = np.full((cl.n, n_ann), -1, dtype=np.int64)
    flat = codes.reshape(-1)
    key = cl.cluster * n_ann + reg.annotator
    conflicts: Int64Array = np.zeros(cl.n, dtype=np.int64)
    if key.size:  # each (cluster, annotator) cell's regions together: do their values agree?
        order = np.argsort(key, kind=fastest_sort(key))
        key, vals = key[order], vals[order]
        start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        hi = np.maximum.reduceat(vals, start)
        agree = np.minimum.reduceat(vals, start) == hi
        flat[key[start]] = np.where(agree, hi, -1)
        conflicts = np.bincount(key[start][~agree] // n_ann, minlength=cl.n).astype(np.int64)
    return ClusterRatings(codes, names, cl.unit, conflicts)


def cluster_alpha(matching: RegionMatching) -> float:
    """Nominal Krippendorff's alpha over clusters with an "unmatched" category (Tschirschwitz et
    al. 2022; their setting: ``match_regions(..., iou=0.5, labels=False)``).

    Parameters
    ----------
    matching : RegionMatching
        A matching from :func:`match_regions`.

    Returns
    -------
    float
        Nominal alpha over the clusters; Undefined with no variation.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> round(cluster_alpha(match_regions(spans, labels=False)), 4)
    1.0
    """
    from ._base import Coded
    from .alpha import krippendorff_alpha

    ratings = cluster_ratings(matching)
    table = np.empty(len(ratings.values), dtype=object)
    table[:] = ratings.values
    return krippendorff_alpha(Coded(ratings.codes, table))


@dataclass(frozen=True)
class Relations:
    """``r`` relations between regions of one field (or of fields matched together).

    Attributes
    ----------
    source, target : ndarray
        ``(r,)`` region indices into the :class:`Regions` table (the relation's unit and
        annotator are theirs).
    label : ndarray
        ``(r,)`` codes into ``labels``, -1 for none.
    labels : tuple of str
        The relation labels.
    directed : bool
        A relation from a to b differs from one from b to a.

    Examples
    --------
    >>> Relations(source=[0, 2], target=[1, 3], label=[0, 0], labels=('works_at',)).source.tolist()
    [0, 2]
    """

    source: Int64Array
    target: Int64Array
    label: Int64Array
    labels: tuple[str, ...] = ()
    directed: bool = True

    def __post_init__(self) -> None:
        for name in ("source", "target", "label"):
            object.__setattr__(self, name, _ints(getattr(self, name), name))
        for name in ("target", "label"):
            if getattr(self, name).shape != self.source.shape:
                raise UsageError(
                    "source, target and label must have one entry per relation", parameter=name
                )


def relation_scores(relations: Relations, matching: RegionMatching) -> PairwiseF1:
    """Pairwise F1 of relations: two annotators' relations agree when both endpoints are matched
    regions and the labels are equal (undirected relations also agree reversed). Scored like
    regions: per unit, per label, per annotator pair, pooled; units where both annotators drew no
    relation agree.

    Parameters
    ----------
    relations : Relations
        The relations between the regions.
    matching : RegionMatching
        A matching from :func:`match_regions`.

    Returns
    -------
    PairwiseF1
        Pairwise F1 per unit, label, annotator pair and pooled.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> rel = Relations(source=[0, 2], target=[1, 3], label=[0, 0], labels=('works_at',))
    >>> relation_scores(rel, match_regions(spans)).f1
    1.0
    """
    instance("relations", relations, Relations, "a Relations")
    reg = _matching(matching).regions
    src, dst, lab = relations.source, relations.target, relations.label
    if src.size and (src.min() < 0 or max(src.max(), dst.max()) >= reg.n or dst.min() < 0):
        raise UsageError("relation endpoints must be region indices", parameter="relations")
    bad = (reg.unit[src] != reg.unit[dst]) | (reg.annotator[src] != reg.annotator[dst])
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise UsageError(
            f"relation {r} joins regions of different units or annotators", parameter="relations"
        )
    if not relations.directed:
        src, dst = np.minimum(src, dst), np.maximum(src, dst)
    pairs = RatedPairs.of(reg.rated)
    cell = pairs.cell(reg.unit[src], reg.annotator[src])
    n_ann, n, width = reg.annotators, reg.n, len(relations.labels) + 1
    # partner[r·A + b]: the region of annotator b matched with region r
    f, s = matching.first, matching.second
    keys = np.concatenate([f * n_ann + reg.annotator[s], s * n_ann + reg.annotator[f]])
    partners = np.concatenate([s, f])
    order = np.argsort(keys)
    keys, partners = keys[order], partners[order]

    def partner(r: Int64Array, b: Int64Array) -> Int64Array:
        want = r * n_ann + b
        at = np.minimum(np.searchsorted(keys, want), keys.size - 1)
        return np.where(keys[at] == want, partners[at], -1) if keys.size else np.full_like(r, -1)

    def ident(a: Int64Array, b: Int64Array, c: Int64Array) -> Int64Array:
        lo, hi = (a, b) if relations.directed else (np.minimum(a, b), np.maximum(a, b))
        return (lo * n + hi) * width + (c + 1)

    # each relation of annotator a, mapped into every b > a who rated its unit
    rel_unit, rel_ann = reg.unit[src], reg.annotator[src]
    rel, b = _later_raters(pairs, rel_unit, rel_ann)
    ps, pt = partner(src[rel], b), partner(dst[rel], b)
    ok = (ps >= 0) & (pt >= 0)
    rel, b = rel[ok], b[ok]
    mapped = ident(ps[ok], pt[ok], lab[rel])
    own = ident(src, dst, lab)
    own_keys, own_count = np.unique(own, return_counts=True)
    # multiset intersection per (mapped relation, source annotator)
    combo = np.stack([mapped, rel_ann[rel]], axis=1)
    uniq, first_at, count = np.unique(combo, axis=0, return_index=True, return_counts=True)
    at = np.minimum(np.searchsorted(own_keys, uniq[:, 0]), max(own_keys.size - 1, 0))
    have = own_keys[at] == uniq[:, 0] if own_keys.size else np.zeros(uniq.shape[0], dtype=bool)
    tp_n = np.where(have, np.minimum(count, own_count[at] if own_keys.size else 0), 0)
    lead = rel[first_at]
    a_cell = pairs.cell(rel_unit[lead], rel_ann[lead])
    b_cell = pairs.cell(rel_unit[lead], b[first_at])
    tp_pair = np.repeat(pairs.pair(a_cell, b_cell), tp_n)
    tp_label = np.repeat(lab[lead], tp_n)
    return pairwise_f1(pairs, cell, tp_pair, tp_label, lab, relations.labels)


def _later_raters(
    pairs: RatedPairs, unit: Int64Array, annotator: Int64Array, *, before: bool = False
) -> tuple[Int64Array, Int64Array]:
    """For items ``(k,)`` on rated cells: (item index, other annotator) for every rater of the
    item's unit after its annotator (``before``: before it), ``(q,)`` each."""
    n_ann = pairs.annotators
    cell = pairs.cell(unit, annotator)
    if before:
        first = np.searchsorted(pairs.cells, unit * n_ann)
        item, other = group_pairs(first - 1, cell)
    else:
        item, other = group_pairs(cell, np.searchsorted(pairs.cells, (unit + 1) * n_ann))
    return item, pairs.cells[other] % n_ann


KINDS = ("missed", "extra", "label swap", "boundary shift", "split/merge")


@dataclass(frozen=True)
class Disagreements:
    """Every region that some other rater of its unit did not match, one row per (region, other
    annotator), ``(k,)`` each, sorted by unit, region, other annotator.

    Kinds, in this order of precedence (among the other annotator's regions not matched to this
    annotator, "free"):

    - ``label swap``: a free region there has admissible geometry and another label;
    - ``boundary shift``: exactly one free same-label region overlaps it, and that one overlaps
      no other free same-label region of this annotator;
    - ``split/merge``: it overlaps several free same-label regions there, or one that also
      overlaps another of this annotator's;
    - ``missed``: nothing there, and at least half the unit's raters have the region (it matched
      them): the other annotator missed it;
    - ``extra``: nothing there, and fewer than half have it.

    Attributes
    ----------
    unit : ndarray
        The region's unit.
    region : ndarray
        The region (its annotator is ``regions.annotator[region]``).
    other : ndarray
        The annotator who did not match it.
    kind : ndarray
        Code into :data:`KINDS`.
    counterpart : ndarray
        The other annotator's region involved (-1 for missed/extra).

    Examples
    --------
    >>> from iaa_gate.metrics import geometry
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...             geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...             kind="span", labels=("PER", "ORG"))
    >>> d = disagreements(match_regions(spans, mode='exact'))
    >>> [KINDS[k] for k in d.kind], d.counterpart.tolist()
    (['boundary shift', 'boundary shift'], [3, 1])
    """

    unit: Int64Array
    region: Int64Array
    other: Int64Array
    kind: Int64Array
    counterpart: Int64Array


def disagreements(matching: RegionMatching, units: npt.ArrayLike | None = None) -> Disagreements:
    """The disputed regions of a matching and why (see :class:`Disagreements`).

    With a label-free matching, matched pairs with two labels are listed as label swaps too.
    ``units``: only these units' rows (each unit's rows depend on that unit alone; the other
    units' regions and pairs are passed over, never matched against each other).

    Each region has one slot per other rater of its unit, numbered from counts in the order of
    the rows; a slot is a row when that rater matched nothing to the region. O(regions ·
    raters + pairs), no sort but among tied counterparts.

    Parameters
    ----------
    matching : RegionMatching
        A matching from :func:`match_regions`.
    units : array_like, optional
        Only these units' rows.

    Returns
    -------
    Disagreements
        One row per disputed region: its kind and counterpart.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> d = disagreements(match_regions(spans, mode="exact"))
    >>> [KINDS[k] for k in d.kind], d.region.tolist(), d.other.tolist()
    (['boundary shift', 'boundary shift'], [1, 3], [1, 0])
    """
    _matching(matching)
    reg = matching.regions
    chosen = np.ones(reg.units, dtype=bool)
    if units is not None:
        picked = _ints(units)
        if picked.size and (picked.min() < 0 or picked.max() >= reg.units):
            raise UsageError(f"units must lie in 0 … {reg.units - 1}", parameter="units")
        chosen[:] = False
        chosen[picked] = True
    slots = _Slots(reg, chosen)
    ann, lab, unit = reg.annotator, reg.label, reg.unit
    f, s = matching.first, matching.second
    pick = np.flatnonzero(chosen[unit[f]])
    f, s = f[pick], s[pick]
    matched = np.bincount(f, minlength=reg.n) + np.bincount(s, minlength=reg.n)
    loose = matched < slots.others  # (regions,): some slot free (most regions have none)
    free = slots.spread(loose)  # (region, other rater) slots not matched there
    for a, b in ((f, s), (s, f)):
        x = np.flatnonzero(loose[a])
        free[slots.of(a[x], ann[b[x]])] = False
    swapped = np.flatnonzero(lab[f] != lab[s])  # label-free matching: matched across labels
    swap_slots = np.concatenate(
        [slots.of(f[swapped], ann[s[swapped]]), slots.of(s[swapped], ann[f[swapped]])]
    )
    listed = free.copy()
    listed[swap_slots] = True
    # slot → its row of the result (where listed); summed as int8, as numpy's bool → int64
    # accumulate is several times slower (millions of slots)
    row = np.cumsum(listed.view(np.int8), dtype=np.int64)
    row -= 1
    rows = np.flatnonzero(listed)
    item, other = slots.item_other(rows)
    # overlapping pairs of free regions, both directions: r facing t (a pair is free only if
    # both regions have a free slot, which most regions of a real round have not)
    ov = matching.overlaps
    a, b = ov.first, ov.second
    pick = np.flatnonzero(loose[a] & loose[b] & (unit[a] == unit[b]) & (ann[a] != ann[b]))
    r = np.concatenate([ov.first[pick], ov.second[pick]])
    t = np.concatenate([ov.second[pick], ov.first[pick]])
    r_slot, t_slot = slots.of(r, ann[t]), slots.of(t, ann[r])
    both = np.flatnonzero(free[r_slot] & free[t_slot])
    r, t, at = r[both], t[both], row[r_slot[both]]
    sim = np.tile(ov.similarity[pick], 2)[both]
    close = np.tile(matching.close[pick], 2)[both]
    same = lab[r] == lab[t]
    n_same = np.bincount(at[same], minlength=rows.size)
    swap = ~same & close
    swap_to = _best(reg, at[swap], sim[swap], t[swap], rows.size)
    same_to = _best(reg, at[same], sim[same], t[same], rows.size)
    has_same = np.flatnonzero(same_to >= 0)
    back = np.zeros(rows.size, dtype=np.int64)
    back[has_same] = n_same[row[slots.of(same_to[has_same], ann[item[has_same]])]]
    missed = 2 * (matched[item] + 1) >= slots.raters[unit[item]]
    kind = np.select(
        [swap_to >= 0, (n_same == 1) & (back == 1), same_to >= 0, missed],
        [2, 3, 4, 0],
        1,
    ).astype(np.int64)
    counterpart = np.where(swap_to >= 0, swap_to, same_to)
    kind[row[swap_slots]] = 2
    counterpart[row[swap_slots]] = np.concatenate([s[swapped], f[swapped]])
    return Disagreements(unit[item], item, other, kind, counterpart)


DENSE_PLACES = 4
"""Entries of the dense (units × annotators) table of rater places per region or rated cell
at most: beyond (many annotators, each rating few units), a place is searched among the rated
cells instead of read from the table."""


class _Slots:
    """Each region's slots, one per other rater of its unit (``(units,)`` ``chosen`` units
    only), numbered in the order of the disagreements: by unit, region, other annotator. A
    slot's number comes from counts and places, so no (region, annotator) key is sorted or
    searched."""

    def __init__(self, reg: Regions, chosen: BoolArray) -> None:
        rated, unit = reg.rated, reg.unit
        self.unit, self.annotator, self.n_ann = unit, reg.annotator, reg.annotators
        self.raters: Int64Array = rated.sum(axis=1, dtype=np.int64)
        u, self.who = (x.astype(np.int64) for x in np.nonzero(rated))  # each unit's raters
        self.start: Int64Array = np.cumsum(self.raters) - self.raters  # unit u's in who
        self.cells: Int64Array = u * self.n_ann + self.who  # sorted
        self.table: npt.NDArray[np.int32] | None = None  # the place of each cell u·A + a
        if rated.size <= DENSE_PLACES * (reg.n + self.cells.size) and self.n_ann < 2**31:
            self.table = (np.cumsum(rated, axis=1, dtype=np.int32) - 1).reshape(-1)
        self.others: Int64Array = np.where(chosen[unit], self.raters[unit] - 1, 0)
        self.own = self.place(unit, reg.annotator)
        # the regions by unit: as stored, when they come stored by unit (the readers store a
        # task's regions together), so that no order is applied
        self.order: Int64Array | None = None
        self.count = self.others
        if unit.size and np.any(unit[1:] < unit[:-1]):
            self.order = np.argsort(unit, kind="stable").astype(np.int64)
            self.count = self.others[self.order]
        ends = np.cumsum(self.count)
        self.off = ends - self.count
        if self.order is not None:
            self.off[self.order] = self.off.copy()
        self.size = int(ends[-1]) if ends.size else 0

    def place(self, unit: Int64Array, annotator: Int64Array) -> Int64Array:
        """Each annotator's place among the raters of its unit (each rated it)."""
        cell = unit * self.n_ann + annotator
        if self.table is not None:
            read: Int64Array = self.table[cell].astype(np.int64)
            return read
        found: Int64Array = np.searchsorted(self.cells, cell).astype(np.int64)
        return found - self.start[unit]

    def spread(self, x: npt.NDArray[ScalarT]) -> npt.NDArray[ScalarT]:
        """``(size,)``: each slot's region's ``x`` (``(regions,)``)."""
        return np.repeat(x if self.order is None else x[self.order], self.count)

    def of(self, region: Int64Array, annotator: Int64Array) -> Int64Array:
        """The slot of each region facing another rater of its unit."""
        p = self.place(self.unit[region], annotator)
        p -= p > self.own[region]  # its own place is not a slot
        p += self.off[region]
        return p

    def item_other(self, slots: Int64Array) -> tuple[Int64Array, Int64Array]:
        """Each slot's region and other annotator (``slots``: ascending)."""
        ends = np.cumsum(self.count)
        item = np.searchsorted(ends, slots, side="right")  # its region's place in the order
        if self.order is not None:
            item = self.order[item]
        j = slots - self.off[item]
        j += j >= self.own[item]
        return item, self.who[self.start[self.unit[item]] + j]


def _best(
    reg: Regions, at: Int64Array, sim: FloatArray, target: Int64Array, size: int
) -> Int64Array:
    """Per row ``0 … size − 1``: the target of its most similar edge, -1 where it has none.
    Edges ``(e,)``: row ``at``, ``sim``, ``target``. Equal similarities break on the targets'
    content (:func:`canonical_rank`), ranked only for the rows where they tie."""
    out = np.full(size, -1, dtype=np.int64)
    if not at.size:
        return out
    order = np.lexsort((-sim, at))
    a, x, t = at[order], sim[order], target[order]
    first = np.r_[True, a[1:] != a[:-1]]
    out[a[first]] = t[first]
    lead = np.maximum.accumulate(np.where(first, np.arange(a.size), 0))
    top = x == x[lead]  # as similar as its row's best
    tied = np.zeros(size, dtype=bool)
    tied[a[top & ~first]] = True
    cand = np.flatnonzero(top & tied[a])
    if cand.size:
        sub = np.unique(t[cand])
        rank = canonical_rank(reg, sub)[np.searchsorted(sub, t[cand])]
        o = np.lexsort((rank, a[cand]))
        c = cand[o]
        head = np.r_[True, a[c][1:] != a[c][:-1]]
        out[a[c][head]] = t[c][head]
    return out
