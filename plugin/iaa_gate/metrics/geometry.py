"""Overlap of regions: candidate pairs by a sweep, then IoU per pair, vectorised.

Shapes: ``n`` regions, ``p`` candidate pairs. Spans are ``[start, end)`` offsets, boxes
``[x, y, width, height, rotation]`` (rotation in degrees, clockwise about the top-left corner in
image coordinates, y down), keypoints ``[x, y]``, polygons ``(k, 2)`` vertex arrays. Rotated boxes
and polygons go through shapely (imported lazily).

Each geometry is one :class:`Shape` (:data:`SHAPES`, :func:`shape_of`): its width, words, bounds,
similarity and how it is read, shown and drawn. Code that handles regions asks the shape and
never compares its name; this module is the one place that names them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..core.extras import needed
from ._base import FloatArray, fastest_sort

Kind = Literal["span", "box", "polygon", "keypoint", "mask"]
Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Points = Sequence[FloatArray] | None
"""The regions' point arrays (polygons: vertices; masks: pixel runs), None for other shapes."""
Pairs = tuple[FloatArray, BoolArray]
"""The similarity ``(p,)`` of region pairs and whether each pair is identical ``(p,)``."""
Similarity = Callable[[FloatArray, Points, Int64Array, Int64Array, float], Pairs]
"""``(geometry, points, i, j, tolerance)`` → the :data:`Pairs` of regions ``i`` and ``j``."""

_EQUAL = 1e-9  # IoU ≥ threshold up to rounding: 0.5 computed as 0.49999999999999994 still counts


def group_pairs(starts: Int64Array, ends: Int64Array) -> tuple[Int64Array, Int64Array]:
    """Windows after given positions: all (k, j) with ``starts[k] < j < ends[k]``, ``(p,)`` each,
    in O(p) numpy with no Python loop (e.g. every later member of a sorted run)."""
    count = np.maximum(ends - starts - 1, 0)
    k = np.repeat(np.arange(starts.size, dtype=np.int64), count)
    shift = starts + 1 - (np.cumsum(count) - count)  # pair q of window k is shift[k] + q
    j = np.arange(k.size, dtype=np.int64)
    j += shift[k]
    return k, j


def _span_bounds(geometry: FloatArray, points: Points) -> FloatArray:
    return geometry


def _keypoint_bounds(geometry: FloatArray, points: Points) -> FloatArray:
    x, y = geometry[:, 0], geometry[:, 1]
    return np.column_stack([x, x, y, y])


def _box_bounds(geometry: FloatArray, points: Points) -> FloatArray:
    x, y, w, h = geometry[:, 0], geometry[:, 1], geometry[:, 2], geometry[:, 3]
    out = np.column_stack([x, x + w, y, y + h])
    turned = np.flatnonzero(geometry[:, 4] % 360 != 0)
    if turned.size:
        c = _box_corners(geometry[turned])
        cx, cy = c[..., 0], c[..., 1]
        out[turned] = np.column_stack([cx.min(1), cx.max(1), cy.min(1), cy.max(1)])
    return out


def _mask_bounds(geometry: FloatArray, points: Points) -> FloatArray:
    x, y, w, h = geometry[:, 0], geometry[:, 1], geometry[:, 2], geometry[:, 3]
    return np.column_stack([x, x + w, y, y + h])


def _polygon_bounds(geometry: FloatArray, points: Points) -> FloatArray:
    if points is None:
        raise ValueError("polygon regions need their points")
    return np.array(
        [[p[:, 0].min(), p[:, 0].max(), p[:, 1].min(), p[:, 1].max()] for p in points]
    ).reshape(-1, 4)


def _box_corners(box: FloatArray) -> FloatArray:
    """Corners ``(n, 4, 2)`` of boxes ``(n, 5)`` rotated clockwise (y down) about (x, y)."""
    x, y, w, h, rot = box.T
    t = np.deg2rad(rot)
    c, s = np.cos(t), np.sin(t)
    dx = np.stack([np.zeros_like(w), w * c, w * c - h * s, -h * s], axis=1)
    dy = np.stack([np.zeros_like(w), w * s, w * s + h * c, h * c], axis=1)
    return np.stack([x[:, None] + dx, y[:, None] + dy], axis=2)


def candidate_pairs(
    unit: Int64Array, bounds: FloatArray, reach: float = 0.0, group: Int64Array | None = None
) -> tuple[Int64Array, Int64Array]:
    """Pairs (i, j), i < j as region indices, of one unit whose bounds ``(n, 4)`` (or ``(n, 2)``:
    x only) overlap or touch (within ``reach`` on each axis), and (given ``group`` ``(n,)``, e.g.
    the annotator) of different groups: a sweep on x0 per unit, then the other tests on the
    sorted arrays, whose pairs sit close together in memory. ``(p,)`` each."""
    n = unit.shape[0]
    if n == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    x0, x1 = bounds[:, 0], bounds[:, 1] + reach
    lo = float(x0.min())
    shift = float(x1.max()) - lo + 1.0
    base = unit * shift - lo
    key = base + x0  # units apart by more than any window: x1 − lo < shift
    order = np.argsort(key, kind=fastest_sort(key))
    key = key[order]
    end = np.searchsorted(key, (base + x1)[order], side="right")
    a, b = group_pairs(np.arange(n, dtype=np.int64), end.astype(np.int64, copy=False))
    # each test's kept pairs as one index for both sides (a boolean mask is counted per array)
    if group is not None:
        g = group[order]
        keep = np.flatnonzero(g[a] != g[b])
        a, b = a[keep], b[keep]
    if bounds.shape[1] == 4:  # a y test
        y0, y1 = bounds[order, 2], bounds[order, 3] + reach
        keep = np.flatnonzero((y0[a] <= y1[b]) & (y0[b] <= y1[a]))
        a, b = a[keep], b[keep]
    i, j = order[a], order[b]
    return np.minimum(i, j), np.maximum(i, j)


def _interval_iou(
    a0: FloatArray, a1: FloatArray, b0: FloatArray, b1: FloatArray
) -> tuple[FloatArray, BoolArray]:
    """IoU ``(p,)`` of spans ``[a0, a1)`` and ``[b0, b1)``, and whether they are equal (two
    identical empty spans have IoU 1)."""
    inter = np.minimum(a1, b1)
    inter -= np.maximum(a0, b0)
    np.clip(inter, 0.0, None, out=inter)
    union = (a1 - a0) + (b1 - b0) - inter
    same = (a0 == b0) & (a1 == b1)
    positive = union > 0
    iou = np.where(positive, inter / np.where(positive, union, 1.0), same.astype(np.float64))
    return iou, same


def _span_pairs(geometry: FloatArray, _: Points, i: Int64Array, j: Int64Array, tol: float) -> Pairs:
    """:data:`Similarity` of spans, from the start and end columns (no ``(p, 2)`` copies)."""
    start, end = geometry[:, 0], geometry[:, 1]
    return _interval_iou(start[i], end[i], start[j], end[j])


def mask_iou(runs: Sequence[FloatArray], i: Int64Array, j: Int64Array) -> FloatArray:
    """IoU of mask pairs ``(p,)``: masks as sorted, disjoint runs ``(k, 2)`` ``[start, end)``
    of pixel indices; two empty masks have IoU 1."""
    out = np.empty(i.size, dtype=np.float64)
    for n, (a, b) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
        ra, rb = runs[a], runs[b]
        lo = np.searchsorted(rb[:, 1], ra[:, 0], side="right")  # first run of b ending after
        hi = np.searchsorted(rb[:, 0], ra[:, 1], side="left")  # runs of b starting before
        k, m = group_pairs(lo.astype(np.int64) - 1, hi.astype(np.int64))
        inter = np.clip(
            np.minimum(ra[k, 1], rb[m, 1]) - np.maximum(ra[k, 0], rb[m, 0]), 0.0, None
        ).sum()
        union = (ra[:, 1] - ra[:, 0]).sum() + (rb[:, 1] - rb[:, 0]).sum() - inter
        out[n] = inter / union if union > 0 else 1.0
    return out


def _box_pairs(geometry: FloatArray, _: Points, i: Int64Array, j: Int64Array, tol: float) -> Pairs:
    """:data:`Similarity` of boxes ``[x, y, width, height, rotation]``: IoU in closed form
    when neither box is rotated, else of shapely polygons; from the columns, with no ``(p, 5)``
    copies of the pairs' rows.

    Coordinates need the same scale on x and y when a box is rotated (pixels: Label Studio's
    percentages times ``original_width``/``original_height`` / 100); unrotated IoU does not care.
    """
    columns = np.ascontiguousarray(geometry.T)  # a gather from a contiguous column: 3x quicker
    a = [column[i] for column in columns]
    b = [column[j] for column in columns]
    ax, ay, aw, ah = a[:4]
    bx, by, bw, bh = b[:4]
    same = np.ones(i.shape, dtype=bool)
    for p, q in zip(a, b, strict=True):
        same &= p == q
    iw = np.clip(np.minimum(ax + aw, bx + bw) - np.maximum(ax, bx), 0.0, None)
    ih = np.clip(np.minimum(ay + ah, by + bh) - np.maximum(ay, by), 0.0, None)
    inter = iw * ih
    union = aw * ah + bw * bh - inter
    out = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    empty = np.flatnonzero(union <= 0)  # zero-area boxes: IoU 1 when identical
    out[empty] = same[empty]
    turned = geometry[:, 4] % 360 != 0  # per region: fewer than the pairs
    rotated = np.flatnonzero(turned[i] | turned[j])
    if rotated.size:
        out[rotated] = _shape_iou(
            _polygons(_box_corners(geometry[i[rotated]])),
            _polygons(_box_corners(geometry[j[rotated]])),
        )
    return np.asarray(out, dtype=np.float64), same


def _polygons(corners: FloatArray) -> Any:
    with needed("regions"):
        import shapely

    return shapely.polygons(corners)


def polygon_shapes(points: Sequence[FloatArray]) -> Any:
    """Shapely polygons ``(n,)`` from vertex arrays ``(k, 2)``; invalid rings are made valid."""
    with needed("regions"):
        import shapely

    shapes = np.array([shapely.Polygon(p) for p in points], dtype=object)
    bad = ~shapely.is_valid(shapes)
    if bad.any():
        shapes[bad] = shapely.make_valid(shapes[bad])
    return shapes


def _shape_iou(a: Any, b: Any) -> FloatArray:
    with needed("regions"):
        import shapely

    inter = shapely.area(shapely.intersection(a, b))
    union = shapely.area(a) + shapely.area(b) - inter
    return np.asarray(np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0))


def polygon_iou(shapes: Any, i: Int64Array, j: Int64Array) -> FloatArray:
    """IoU of polygon pairs ``(p,)`` given shapely polygons ``(n,)`` and pair indices."""
    return _shape_iou(shapes[i], shapes[j])


def keypoint_similarity(a: FloatArray, b: FloatArray, tolerance: float) -> FloatArray:
    """1 − distance/tolerance for keypoints ``(p, 2)`` (1 when they coincide; < 0 beyond reach)."""
    d = np.hypot(a[:, 0] - b[:, 0], a[:, 1] - b[:, 1])
    if tolerance <= 0:
        return np.where(d == 0, 1.0, -1.0)
    return np.asarray(1.0 - d / tolerance)


def at_least(similarity: FloatArray, threshold: float) -> BoolArray:
    """``similarity ≥ threshold`` up to rounding."""
    return np.asarray(similarity >= threshold - _EQUAL)


def components(n: int, a: Int64Array, b: Int64Array) -> Int64Array:
    """Connected components ``(n,)`` of the undirected graph on nodes ``0 … n − 1`` with edges
    ``(a, b)`` ``(e,)``, numbered 0, 1, … in the order of their smallest node (as
    ``scipy.sparse.csgraph.connected_components`` numbers them, without importing scipy.sparse).

    Every node points to a root (first: itself). Each round hooks the larger root of every edge
    under the smaller (so trees only join, never cycle, and their number per component at least
    halves), then points each node at its root (pointer jumping), until every edge joins one
    root: the component's smallest node. O(e log n) numpy, no Python loop over nodes.
    """
    label: Int64Array = np.arange(n, dtype=np.int64)
    while a.size:
        la, lb = label[a], label[b]
        if np.array_equal(la, lb):
            break
        np.minimum.at(label, np.maximum(la, lb), np.minimum(la, lb))
        while True:
            up = label[label]
            if np.array_equal(up, label):
                break
            label = up
    root = label == np.arange(n)
    return np.asarray((np.cumsum(root) - 1)[label], dtype=np.int64)


def _rows(measure: Callable[[FloatArray, FloatArray, float], FloatArray]) -> Similarity:
    """The similarity of shapes whose geometry rows are the whole region (spans, boxes,
    keypoints): ``measure`` on the pairs' rows; identical when the rows are equal."""

    def pairs(geometry: FloatArray, _: Points, i: Int64Array, j: Int64Array, tol: float) -> Pairs:
        a, b = geometry[i], geometry[j]
        return measure(a, b, tol), np.all(a == b, axis=1)

    return pairs


def _mask_pairs(
    geometry: FloatArray,
    points: Sequence[FloatArray] | None,
    i: Int64Array,
    j: Int64Array,
    _: float,
) -> Pairs:
    runs = points or ()
    exact = np.array(
        [np.array_equal(runs[a], runs[b]) for a, b in zip(i.tolist(), j.tolist(), strict=True)],
        dtype=bool,
    )
    return mask_iou(runs, i, j), exact


def _polygon_pairs(
    geometry: FloatArray,
    points: Sequence[FloatArray] | None,
    i: Int64Array,
    j: Int64Array,
    _: float,
) -> Pairs:
    with needed("regions"):
        import shapely

    shapes = polygon_shapes(points or ())
    exact = np.asarray(shapely.equals_exact(shapes[i], shapes[j], tolerance=0.0), dtype=bool)
    return polygon_iou(shapes, i, j), exact


Drawing = Callable[[Mapping[str, Any], tuple[float, float]], dict[str, Any]]
"""A region as a drawing tool writes it: from a region in the report's words (``start``/``end``,
``x``/``y``/``width``/``height``/``rotation``, ``points``) and the pixels per percent of its
image ``(x, y)`` to coordinates in percent of the image (Label Studio's result ``value``)."""

_BOX = ("x", "y", "width", "height")


def _draw_span(region: Mapping[str, Any], scale: tuple[float, float]) -> dict[str, Any]:
    value: dict[str, Any] = {"start": int(region["start"]), "end": int(region["end"])}
    if "text" in region:
        value["text"] = region["text"]
    return value


def _draw_box(region: Mapping[str, Any], scale: tuple[float, float]) -> dict[str, Any]:
    value = {k: float(region[k]) / scale[i % 2] for i, k in enumerate(_BOX)}
    value["rotation"] = float(region.get("rotation") or 0.0)
    return value


def _draw_polygon(region: Mapping[str, Any], scale: tuple[float, float]) -> dict[str, Any]:
    return {"points": [[x / scale[0], y / scale[1]] for x, y in region["points"]]}


def _draw_keypoint(region: Mapping[str, Any], scale: tuple[float, float]) -> dict[str, Any]:
    value = {"x": float(region["x"]) / scale[0], "y": float(region["y"]) / scale[1]}
    if "width" in region:
        value["width"] = float(region["width"]) / scale[0]
    return value


def _vertices(points: Any) -> FloatArray:
    return np.asarray(points, dtype=np.float64)


def _runs(points: Any) -> FloatArray:
    return np.asarray(points, dtype=np.float64).reshape(-1, 2)


@dataclass(frozen=True)
class Shape:
    """A region geometry and everything that differs by it; code that handles regions asks the
    shape (``shape.linear``, ``shape.similarity(…)``), never compares its name.

    Attributes
    ----------
    name : str
        ``span``, ``box``, ``polygon``, ``keypoint`` or ``mask`` (a region table's ``shape``).
    width : int
        Columns of a region's geometry row: span ``[start, end)``; box ``[x, y, width, height,
        rotation]``; polygon its bounds ``[x, y, width, height]``; keypoint ``[x, y]``; mask its
        pixel box and its image's pixel count ``[x, y, width, height, pixels]``.
    keys : tuple of str
        The words of those columns in reports and consensus regions.
    bounds : callable
        ``(geometry (n, width), points) → (n, 4)`` axis-aligned ``[x0, x1, y0, y1]`` (spans:
        ``(n, 2)`` ``[x0, x1]``).
    similarity : callable
        ``(geometry, points, i (p,), j (p,), tolerance) → (similarity (p,), identical (p,))``:
        IoU, or 1 − distance/tolerance for keypoints.
    points : callable or None
        Shapes whose regions carry point arrays (polygons: vertices ``(k, 2)``; masks: runs
        ``[start, end)`` of pixel indices ``(k, 2)``): one region's points as that array.
    drawn : callable or None
        The region as a drawing tool writes it (see :data:`Drawing`); None: not drawable.
    linear : bool
        A region is an interval ``[start, end)`` along its unit's text or timeline: read by
        ``start``/``end``, shown with the text under it, scored per position as well.
    whole : bool
        Coordinates are counted offsets: a consensus median is rounded down to whole numbers.
    rotates : bool
        Regions may be rotated, so their coordinates need one scale on x and y (read in pixels
        when the image's size is known).
    tolerance : bool
        Regions match within a distance (``tolerance``), not by IoU.
    pixels : bool
        Regions are sets of pixels: alpha is computed over the image's pixels.
    vertices : bool
        Regions are outlines: reports show their vertices, and a cluster's consensus is one of
        its regions (vertices have no median).
    reading : tuple of str
        The keys that put a unit's consensus regions in reading order (empty: as they come).
    widens_to : str or None
        A field of this shape holding a region of shape ``widens_to`` is read as that shape
        (an image of boxes and some other polygon: polygons, a box by its bounds).

    Examples
    --------
    >>> span = shape_of("span")
    >>> span.width, span.keys, span.linear
    (2, ('start', 'end'), True)
    >>> box = shape_of("box")
    >>> box.similarity(np.array([[0, 0, 2, 2, 0], [1, 0, 2, 2, 0.0]]), None,
    ...                np.array([0]), np.array([1]), 0.0)[0].round(3).tolist()
    [0.333]
    """

    name: str
    width: int
    keys: tuple[str, ...]
    bounds: Callable[[FloatArray, Points], FloatArray]
    similarity: Similarity
    points: Callable[[Any], FloatArray] | None = None
    drawn: Drawing | None = None
    linear: bool = False
    whole: bool = False
    rotates: bool = False
    tolerance: bool = False
    pixels: bool = False
    vertices: bool = False
    reading: tuple[str, ...] = ("y", "x")
    widens_to: str | None = None


SHAPES: dict[str, Shape] = {
    s.name: s
    for s in (
        Shape(
            "span",
            2,
            ("start", "end"),
            _span_bounds,
            _span_pairs,
            drawn=_draw_span,
            linear=True,
            whole=True,
            reading=("start", "end"),
        ),
        Shape(
            "box",
            5,
            (*_BOX, "rotation"),
            _box_bounds,
            _box_pairs,
            drawn=_draw_box,
            rotates=True,
            widens_to="polygon",
        ),
        Shape(
            "polygon",
            4,
            _BOX,
            _polygon_bounds,
            _polygon_pairs,
            points=_vertices,
            drawn=_draw_polygon,
            vertices=True,
            reading=(),
        ),
        Shape(
            "keypoint",
            2,
            ("x", "y"),
            _keypoint_bounds,
            _rows(keypoint_similarity),
            drawn=_draw_keypoint,
            tolerance=True,
        ),
        Shape("mask", 5, (*_BOX, "pixels"), _mask_bounds, _mask_pairs, points=_runs, pixels=True),
    )
}
"""Every region shape by name."""


def shape_of(name: str) -> Shape:
    """The region shape called ``name``.

    Parameters
    ----------
    name : str
        ``span``, ``box``, ``polygon``, ``keypoint`` or ``mask``.

    Returns
    -------
    Shape
        Its geometry and behaviour.

    Raises
    ------
    ValueError
        For an unknown name.

    Examples
    --------
    >>> shape_of("keypoint").tolerance, shape_of("mask").pixels
    (True, True)
    """
    found = SHAPES.get(name)
    if found is None:
        raise ValueError(f"unknown region shape {name!r}: use {', '.join(SHAPES)}")
    return found
