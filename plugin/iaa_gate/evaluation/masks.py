"""Pixel-level alpha of mask fields (brushes), as character-level alpha of spans: every pixel of
every task's image is a unit, and each annotator who rated the task gives it the label of the
mask covering it, or "outside". Masks are runs of row-major pixel indices, so they are spans of
the flattened image and the run-based position alpha applies unchanged: the work and memory
follow the runs, never the pixel count."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import metrics


def pixel_alpha(regions: metrics.Regions) -> float:
    """Nominal alpha over the pixels of the images of mask ``regions`` (geometry column 4: the
    image's pixel count; points: the masks' runs)."""
    runs = regions.points or ()
    count = np.array([len(r) for r in runs], dtype=np.int64)
    row = np.repeat(np.arange(regions.n, dtype=np.int64), count)
    spans: np.ndarray[Any, np.dtype[np.float64]] = (
        np.concatenate(runs) if regions.n else np.zeros((0, 2))
    )
    pixels = np.zeros(regions.rated.shape[0], dtype=np.int64)
    np.maximum.at(pixels, regions.unit, regions.geometry[:, 4].astype(np.int64))
    flat = metrics.Regions(
        regions.unit[row],
        regions.annotator[row],
        regions.label[row],
        spans,
        regions.rated,
        "span",
        regions.labels,
    )
    return metrics.position_alpha(flat, pixels)


__all__ = ["pixel_alpha"]
