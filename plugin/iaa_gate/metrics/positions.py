"""Position-level (character or token) nominal alpha for spans.

Every position of every task is a unit; each annotator who rated the task gives it the label of
the span covering it, or "outside". Built with numpy (per-annotator running sums over start/end
events), then the usual :func:`~iaa_gate.metrics.krippendorff_alpha`.

A position covered by two or more spans of one annotator takes the combination of their labels
as its own category (``"PER+ORG"``; the same label twice is that label): never one of them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._base import Coded, code_dtype
from .regions import Regions
from .unitizing import span_columns

OUTSIDE = "(outside)"
Int64Array = npt.NDArray[np.int64]


def position_ratings(regions: Regions, lengths: npt.ArrayLike) -> Coded:
    """Ratings ``(Σ lengths, annotators)`` of a span field: one row per position of each unit in
    turn, ``lengths`` ``(units,)`` positions per unit.

    Values: the labels (then ``"(no label)"`` if a span has none), ``"(outside)"``, then the
    label combinations that occur (``"A+B"``, labels in code order). -1: not rated.
    """
    t, a, lo, hi, lab, labels = span_columns(regions, lengths)
    size = np.asarray(lengths, dtype=np.int64)
    who = regions.rated
    n_lab, n_ann = len(labels), who.shape[1]
    if n_lab >= 62:
        raise ValueError("position alpha supports at most 61 labels")
    offset = np.concatenate([[0], np.cumsum(size)])
    total = int(offset[-1])
    task_of = np.repeat(np.arange(size.size), size)  # (positions,)
    outside = n_lab
    codes = np.empty((total, n_ann), dtype=np.int64)
    combos: dict[int, int] = {}
    for k in range(n_ann):
        mine = a == k
        g_lo, g_hi = lo[mine] + offset[t[mine]], hi[mine] + offset[t[mine]]
        count = _running(g_lo, g_hi, np.ones(g_lo.size, dtype=np.int64), total)
        value = _running(g_lo, g_hi, lab[mine], total)  # Σ labels: the label where count = 1
        col = np.where(count == 0, outside, value)
        many = np.flatnonzero(count >= 2)
        if many.size:
            bits = np.zeros(many.size, dtype=np.int64)
            for code in range(n_lab):
                sel = lab[mine] == code
                covered = np.searchsorted(np.sort(g_lo[sel]), many, side="right") - np.searchsorted(
                    np.sort(g_hi[sel]), many, side="right"
                )
                bits |= (covered > 0).astype(np.int64) << code
            single = (bits & (bits - 1)) == 0
            col[many[single]] = np.log2(bits[single]).astype(np.int64)
            for mask in np.unique(bits[~single]).tolist():
                combos.setdefault(mask, n_lab + 1 + len(combos))
            if (~single).any():
                lookup = np.array(list(combos), dtype=np.int64)
                order = np.argsort(lookup)
                at = order[np.searchsorted(lookup[order], bits[~single])]
                col[many[~single]] = n_lab + 1 + at
        codes[:, k] = np.where(who[task_of, k], col, -1)
    names = [*labels, OUTSIDE]
    names += ["+".join(labels[b] for b in range(n_lab) if mask >> b & 1) for mask in combos]
    values = np.empty(len(names), dtype=object)
    values[:] = names
    return Coded(codes.astype(code_dtype(len(names))), values)


def _running(lo: Int64Array, hi: Int64Array, weight: Int64Array, total: int) -> Int64Array:
    """Σ of ``weight`` over the spans ``[lo, hi)`` covering each position ``(total,)``."""
    w = weight.astype(np.float64)
    events = np.bincount(lo, w, minlength=total + 1) - np.bincount(hi, w, minlength=total + 1)
    return np.cumsum(events[:-1]).astype(np.int64)


def position_alpha(regions: Regions, lengths: npt.ArrayLike) -> float:
    """Nominal Krippendorff's alpha over positions (see :func:`position_ratings`)."""
    from .alpha import krippendorff_alpha

    return krippendorff_alpha(position_ratings(regions, lengths))
