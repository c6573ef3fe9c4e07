"""Overlap of regions: candidate pairs by a sweep, then IoU per pair, vectorised.

Shapes: ``n`` regions, ``p`` candidate pairs. Spans are ``[start, end)`` offsets, boxes
``[x, y, width, height, rotation]`` (rotation in degrees, clockwise about the top-left corner in
image coordinates, y down), keypoints ``[x, y]``, polygons ``(k, 2)`` vertex arrays. Rotated boxes
and polygons go through shapely (imported lazily).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ._base import FloatArray

Kind = Literal["span", "box", "polygon", "keypoint"]
Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_EQUAL = 1e-9  # IoU ≥ threshold up to rounding: 0.5 computed as 0.49999999999999994 still counts


def group_pairs(starts: Int64Array, ends: Int64Array) -> tuple[Int64Array, Int64Array]:
    """Windows after given positions: all (k, j) with ``starts[k] < j < ends[k]``, ``(p,)`` each,
    in O(p) numpy with no Python loop (e.g. every later member of a sorted run)."""
    count = np.maximum(ends - starts - 1, 0)
    k = np.repeat(np.arange(starts.size, dtype=np.int64), count)
    offset = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(count) - count, count
    )
    return k, starts[k] + 1 + offset


def extents(kind: Kind, geometry: FloatArray, points: Sequence[FloatArray] | None) -> FloatArray:
    """Axis-aligned bounds ``(n, 4)`` ``[x0, x1, y0, y1]``; spans ``(n, 2)`` ``[x0, x1]``."""
    if kind == "span":
        return geometry
    if kind == "keypoint":
        x, y = geometry[:, 0], geometry[:, 1]
        return np.column_stack([x, x, y, y])
    if kind == "box":
        corners = _box_corners(geometry)
        x, y = corners[..., 0], corners[..., 1]
        return np.column_stack([x.min(1), x.max(1), y.min(1), y.max(1)])
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
    unit: Int64Array, bounds: FloatArray, reach: float = 0.0
) -> tuple[Int64Array, Int64Array]:
    """Pairs (i, j), i < j as region indices, of one unit whose bounds ``(n, 4)`` (or ``(n, 2)``:
    x only) overlap or touch (within ``reach`` on each axis): a sweep on x0 per unit, then a y
    test. ``(p,)`` each."""
    n = unit.shape[0]
    if n == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    x0, x1 = bounds[:, 0], bounds[:, 1] + reach
    lo = float(x0.min())
    shift = float(x1.max()) - lo + 1.0
    base = unit * shift - lo
    key = base + x0  # units apart by more than any window: x1 − lo < shift
    order = np.argsort(key)
    key = key[order]
    end = np.searchsorted(key, (base + x1)[order], side="right")
    a, b = group_pairs(np.arange(n, dtype=np.int64), end.astype(np.int64))
    i, j = order[a], order[b]
    if bounds.shape[1] == 4:  # a y test
        y = (bounds[i, 2] <= bounds[j, 3] + reach) & (bounds[j, 2] <= bounds[i, 3] + reach)
        i, j = i[y], j[y]
    return np.minimum(i, j), np.maximum(i, j)


def span_iou(a: FloatArray, b: FloatArray) -> FloatArray:
    """IoU of spans ``(p, 2)`` ``[start, end)``; two identical empty spans have IoU 1."""
    inter = np.clip(np.minimum(a[:, 1], b[:, 1]) - np.maximum(a[:, 0], b[:, 0]), 0.0, None)
    union = (a[:, 1] - a[:, 0]) + (b[:, 1] - b[:, 0]) - inter
    same = np.all(a == b, axis=1)
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), same.astype(np.float64))


def box_iou(a: FloatArray, b: FloatArray) -> FloatArray:
    """IoU of boxes ``(p, 5)``; closed form when neither is rotated, else shapely polygons.

    Coordinates need the same scale on x and y when a box is rotated (pixels: Label Studio's
    percentages times ``original_width``/``original_height`` / 100); unrotated IoU does not care.
    """
    rotated = (a[:, 4] % 360 != 0) | (b[:, 4] % 360 != 0)
    out = np.empty(a.shape[0])
    s = ~rotated
    ax, ay, aw, ah = a[s, 0], a[s, 1], a[s, 2], a[s, 3]
    bx, by, bw, bh = b[s, 0], b[s, 1], b[s, 2], b[s, 3]
    iw = np.clip(np.minimum(ax + aw, bx + bw) - np.maximum(ax, bx), 0.0, None)
    ih = np.clip(np.minimum(ay + ah, by + bh) - np.maximum(ay, by), 0.0, None)
    inter = iw * ih
    union = aw * ah + bw * bh - inter
    same = np.all(a[s] == b[s], axis=1).astype(np.float64)
    out[s] = np.where(union > 0, inter / np.where(union > 0, union, 1.0), same)
    if rotated.any():
        out[rotated] = _shape_iou(
            _polygons(_box_corners(a[rotated])), _polygons(_box_corners(b[rotated]))
        )
    return out


def _polygons(corners: FloatArray) -> Any:
    import shapely

    return shapely.polygons(corners)


def polygon_shapes(points: Sequence[FloatArray]) -> Any:
    """Shapely polygons ``(n,)`` from vertex arrays ``(k, 2)``; invalid rings are made valid."""
    import shapely

    shapes = np.array([shapely.Polygon(p) for p in points], dtype=object)
    bad = ~shapely.is_valid(shapes)
    if bad.any():
        shapes[bad] = shapely.make_valid(shapes[bad])
    return shapes


def _shape_iou(a: Any, b: Any) -> FloatArray:
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
