"""Position-level (character or token) nominal alpha for spans.

Every position of every task is a unit; each annotator who rated the task gives it the label of
the span covering it, or "outside". A position covered by two or more spans of one annotator
takes the combination of their labels as its own category (``"PER+ORG"``; the same label twice
is that label): never one of them.

Positions between two consecutive span boundaries (or task edges) carry identical rows, so the
work is per run of positions, not per position: runs come from the sorted boundaries, each
annotator's labels per run from running sums of start/end events (numpy, no Python loop over
positions), and alpha from the coincidence matrix weighted by run length, which is exactly
Krippendorff's alpha of the expanded ``(positions, annotators)`` matrix.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._base import Coded, FloatArray, code_dtype
from .regions import Regions
from .unitizing import span_columns

OUTSIDE = "(outside)"
Int64Array = npt.NDArray[np.int64]


def position_runs(regions: Regions, lengths: npt.ArrayLike) -> tuple[Coded, Int64Array]:
    """Runs of identical positions: ratings ``(runs, annotators)`` and run lengths ``(runs,)``.

    ``lengths``: ``(units,)`` positions per unit (characters or tokens). Values: the labels
    (then ``"(no label)"`` if a span has none), ``"(outside)"``, then the label combinations that
    occur (``"A+B"``, labels in code order). -1: the annotator did not rate the unit.
    """
    task, ann, lo, hi, lab, labels = span_columns(regions, lengths)
    size = np.asarray(lengths, dtype=np.int64)
    n_lab = len(labels)
    if n_lab >= 62:
        raise ValueError("position alpha supports at most 61 labels")
    offset = np.concatenate([[0], np.cumsum(size)])
    g_lo, g_hi = lo + offset[task], hi + offset[task]
    cuts = np.unique(np.concatenate([offset, g_lo, g_hi]))
    start, weight = cuts[:-1], np.diff(cuts)
    run_task = np.searchsorted(offset, start, side="right") - 1
    at_lo, at_hi = np.searchsorted(cuts, g_lo), np.searchsorted(cuts, g_hi)
    runs, n_ann = start.size, regions.annotators
    codes = np.full((n_ann, runs), -1, dtype=np.int64)  # annotator-major: contiguous columns
    masks: list[Int64Array] = []
    for k in range(n_ann):
        mine = ann == k
        bits = np.zeros(runs, dtype=np.int64)  # labels covering each run, as a bit set
        count = np.zeros(runs, dtype=np.int64)
        total = np.zeros(runs, dtype=np.int64)
        for code in np.unique(lab[mine]).tolist():
            sel = mine & (lab == code)
            edges = np.bincount(at_lo[sel], minlength=runs + 1)
            edges -= np.bincount(at_hi[sel], minlength=runs + 1)
            on = np.cumsum(edges[:runs]) > 0
            bits |= on.astype(np.int64) << code
            count += on
            total += on * code
        col = np.where(count == 0, n_lab, total)  # one label: its code
        many = count >= 2
        masks.append(bits[many])
        col[many] = -2 - bits[many]  # combinations: numbered below
        codes[k] = np.where(regions.rated[run_task, k], col, -1)
    combos = np.unique(np.concatenate(masks)) if masks else np.zeros(0, dtype=np.int64)
    combo = codes <= -2
    codes[combo] = n_lab + 1 + np.searchsorted(combos, -2 - codes[combo])
    codes = codes.T
    names = [*labels, OUTSIDE]
    names += [
        "+".join(labels[b] for b in range(n_lab) if mask >> b & 1) for mask in combos.tolist()
    ]
    values = np.empty(len(names), dtype=object)
    values[:] = names
    return Coded(codes.astype(code_dtype(len(names))), values), weight


def position_ratings(regions: Regions, lengths: npt.ArrayLike) -> Coded:
    """Ratings ``(Σ lengths, annotators)``: one row per position of each unit in turn (values as
    in :func:`position_runs`). Memory grows with the text: prefer :func:`position_alpha`."""
    runs, weight = position_runs(regions, lengths)
    return Coded(np.repeat(runs.codes, weight, axis=0), runs.values)


def position_alpha(regions: Regions, lengths: npt.ArrayLike) -> float:
    """Nominal Krippendorff's alpha over positions, equal to ``krippendorff_alpha`` of
    :func:`position_ratings`, computed per run of identical positions."""
    from .alpha import _alpha

    runs, weight = position_runs(regions, lengths)
    o = weighted_coincidences(runs, weight.astype(np.float64))
    n_v = np.rint(o.sum(axis=1))
    n = float(n_v.sum())
    d_o = float(o.sum() - np.trace(o))
    d_e = float(n * n - n_v @ n_v)
    return _alpha(d_o, d_e, int(n), int(np.count_nonzero(n_v)))


def weighted_coincidences(coded: Coded, weight: FloatArray) -> FloatArray:
    """Coincidence matrix ``(V, V)`` of ratings ``(rows, A)`` whose row r stands for
    ``weight[r]`` identical units: Σ_r w_r (c_r c_rᵀ − diag c_r)/(m_r − 1) over rows m_r ≥ 2."""
    rows, n_values = coded.codes.shape[0], coded.n_values
    codes = coded.codes.astype(np.int64)
    flat = (np.arange(rows)[:, None] * n_values + codes)[codes >= 0]
    counts = np.bincount(flat, minlength=rows * n_values).reshape(rows, n_values)
    m = counts.sum(axis=1).astype(np.float64)
    scale = np.divide(weight, m - 1.0, out=np.zeros(rows), where=m >= 2)
    c = counts.astype(np.float64)
    out: FloatArray = (c * scale[:, None]).T @ c
    out[np.diag_indices(n_values)] -= scale @ c
    return out
