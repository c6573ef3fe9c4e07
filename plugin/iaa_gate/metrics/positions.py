"""Position-level (character or token) nominal alpha for spans.

Every position of every task is a unit; each annotator who rated the task gives it the label of
the span covering it, or "outside". A position covered by two or more spans of one annotator
takes the combination of their labels as its own category (``"PER+ORG"``; the same label twice
is that label): never one of them.

Positions between two consecutive span boundaries (or task edges) carry identical rows, so the
work is per run of positions, not per position: runs come from the sorted boundaries, each
annotator's labels per run from running sums of start/end events (numpy, no Python loop over
positions; with few labels one running sum covers them all, a cover count per label in a few
bits of an int64), and alpha from the coincidence matrix weighted by run length, which is exactly
Krippendorff's alpha of the expanded ``(positions, annotators)`` matrix.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..core.errors import UsageError
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

    Parameters
    ----------
    regions : Regions
        One field's span regions, integer offsets.
    lengths : array_like
        ``(units,)`` each unit's length (characters or tokens).

    Returns
    -------
    tuple
        Ratings ``(runs, annotators)`` as :class:`Coded`, and the run lengths ``(runs,)``.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> coded, length = position_runs(spans, [20])
    >>> length.tolist()
    [5, 5, 8, 2]
    """
    task, ann, lo, hi, lab, labels = span_columns(regions, lengths)
    size = np.asarray(lengths, dtype=np.int64)
    n_lab = len(labels)
    if n_lab >= 62:
        raise UsageError(
            f"regions: position alpha supports at most 61 labels, got {n_lab}",
            parameter="regions",
        )
    offset = np.concatenate([[0], np.cumsum(size)])
    g_lo, g_hi = lo + offset[task], hi + offset[task]
    cuts = np.unique(np.concatenate([offset, g_lo, g_hi]))
    start, weight = cuts[:-1], np.diff(cuts)
    run_task = np.searchsorted(offset, start, side="right") - 1
    at_lo, at_hi = np.searchsorted(cuts, g_lo), np.searchsorted(cuts, g_hi)
    runs, n_ann = start.size, regions.annotators
    width = _field_width(task, ann, n_ann, n_lab)
    top = width - 1  # label c covers a run when bit width·c + top of its state is set
    codes = np.full((n_ann, runs), -1, dtype=np.int64)  # annotator-major: contiguous columns
    masks: list[Int64Array] = []
    for k in range(n_ann):
        mine = ann == k
        state = _states(at_lo[mine], at_hi[mine], lab[mine], runs, width)
        many = (state & (state - 1)) != 0  # two labels or more
        bit = np.frexp(state.astype(np.float64))[1].astype(np.int64) - 1  # exact: a power of 2
        col = np.where(state == 0, n_lab, (bit - top) // width)
        masks.append(state[many])
        col[many] = -2 - state[many]  # combinations: numbered below
        codes[k] = np.where(regions.rated[run_task, k], col, -1)
    combos = np.unique(np.concatenate(masks)) if masks else np.zeros(0, dtype=np.int64)
    combo = codes <= -2  # numbered in the order of their labels' codes
    codes[combo] = n_lab + 1 + np.searchsorted(combos, -2 - codes[combo])
    codes = codes.T
    names = [*labels, OUTSIDE]
    names += [
        "+".join(labels[c] for c in range(n_lab) if mask >> (width * c + top) & 1)
        for mask in combos.tolist()
    ]
    values = np.empty(len(names), dtype=object)
    values[:] = names
    return Coded(codes.astype(code_dtype(len(names))), values), weight


def _field_width(task: Int64Array, ann: Int64Array, n_ann: int, n_lab: int) -> int:
    """Bits per label in a run's state: one label's cover count per field of ``width`` bits when
    every count fits below the field's top bit (at most the spans of one annotator on one unit),
    else 1 (a plain bit set, built label by label)."""
    width = 63 // max(n_lab, 1)
    most = int(np.bincount(task * n_ann + ann).max()) if task.size else 0
    return width if width >= 2 and most < 1 << (width - 1) else 1


def _states(
    at_lo: Int64Array, at_hi: Int64Array, lab: Int64Array, runs: int, width: int
) -> Int64Array:
    """``(runs,)`` the labels covering each run, one annotator's spans ``[at_lo, at_hi)`` in runs:
    bit ``width·c + width − 1`` set when label c covers it. With ``width`` ≥ 2, per label a cover
    count in its field (one running sum of all labels at once), then its top bit set when the
    count is non-zero (adding 2^(width−1) − 1 to each field never carries over)."""
    if width >= 2:
        step = np.left_shift(np.int64(1), width * lab)
        edges = np.zeros(runs + 1, dtype=np.int64)
        np.add.at(edges, at_lo, step)
        np.add.at(edges, at_hi, -step)
        half = sum(1 << (width * c + width - 1) for c in range(63 // width))
        return np.asarray((np.cumsum(edges[:runs]) + (half - (half >> (width - 1)))) & half)
    bits = np.zeros(runs, dtype=np.int64)
    for code in np.unique(lab).tolist():
        sel = lab == code
        cover = np.bincount(at_lo[sel], minlength=runs + 1)
        cover -= np.bincount(at_hi[sel], minlength=runs + 1)
        bits |= (np.cumsum(cover[:runs]) > 0).astype(np.int64) << code
    return bits


def position_ratings(regions: Regions, lengths: npt.ArrayLike) -> Coded:
    """Ratings ``(Σ lengths, annotators)``: one row per position of each unit in turn (values as
    in :func:`position_runs`). Memory grows with the text: prefer :func:`position_alpha`.

    Parameters
    ----------
    regions : Regions
        One field's span regions, integer offsets.
    lengths : array_like
        ``(units,)`` each unit's length (characters or tokens).

    Returns
    -------
    Coded
        ``(Σ lengths, annotators)`` one row per position.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> position_ratings(spans, [20]).codes.shape
    (20, 2)
    """
    runs, weight = position_runs(regions, lengths)
    return Coded(np.repeat(runs.codes, weight, axis=0), runs.values)


def position_alpha(regions: Regions, lengths: npt.ArrayLike) -> float:
    """Nominal Krippendorff's alpha over positions, equal to ``krippendorff_alpha`` of
    :func:`position_ratings`, computed per run of identical positions.

    Parameters
    ----------
    regions : Regions
        One field's span regions, integer offsets.
    lengths : array_like
        ``(units,)`` each unit's length (characters or tokens).

    Returns
    -------
    float
        Nominal alpha over positions.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> round(position_alpha(spans, [20]), 4)
    0.8488
    """
    from .alpha import alpha_from_sums

    runs, weight = position_runs(regions, lengths)
    o = weighted_coincidences(runs, weight.astype(np.float64))
    n_v = np.rint(o.sum(axis=1))
    n = float(n_v.sum())
    d_o = float(o.sum() - np.trace(o))
    d_e = float(n * n - n_v @ n_v)
    return alpha_from_sums(d_o, d_e, int(n), int(np.count_nonzero(n_v)))


def weighted_coincidences(coded: Coded, weight: FloatArray) -> FloatArray:
    """Coincidence matrix ``(V, V)`` of ratings ``(rows, A)`` whose row r stands for
    ``weight[r]`` identical units: Σ_r w_r (c_r c_rᵀ − diag c_r)/(m_r − 1) over rows m_r ≥ 2.

    Few annotators (A(A − 1)/2 ≤ V): one weighted count of value pairs per annotator pair;
    else from the per-row value counts ``(rows, V)``."""
    rows, n_values = coded.codes.shape[0], coded.n_values
    codes = coded.codes.astype(np.int64)
    given = codes >= 0
    m = given.sum(axis=1).astype(np.float64)
    scale = np.divide(weight, m - 1.0, out=np.zeros(rows), where=m >= 2)
    n_ann = codes.shape[1]
    if n_ann * (n_ann - 1) // 2 <= n_values:
        size = n_values * n_values
        out = np.zeros(size)
        for a in range(n_ann):
            for b in range(a + 1, n_ann):
                both = given[:, a] & given[:, b]
                cell = codes[both, a] * n_values + codes[both, b]
                out += np.bincount(cell, scale[both], minlength=size)
        half = out.reshape(n_values, n_values)
        return np.asarray(half + half.T)
    flat = (np.arange(rows)[:, None] * n_values + codes)[given]
    counts = np.bincount(flat, minlength=rows * n_values).reshape(rows, n_values)
    c = counts.astype(np.float64)
    full: FloatArray = (c * scale[:, None]).T @ c
    full[np.diag_indices(n_values)] -= scale @ c
    return full
