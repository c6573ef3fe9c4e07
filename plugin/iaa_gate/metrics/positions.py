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
    blocks, values = _run_blocks(regions, lengths)
    return _stacked(blocks, values, regions.annotators)


BLOCK = 1 << 17  # regions per block of tasks: each block's arrays stay a few MiB
Block = tuple[Int64Array, list[Int64Array]]


def _stacked(
    blocks: list[Block], values: npt.NDArray[np.object_], n_ann: int
) -> tuple[Coded, Int64Array]:
    """The blocks' runs as one :class:`Coded` ``(runs, annotators)`` and the run lengths."""
    weight = np.concatenate([w for w, _ in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    codes = np.empty((n_ann, weight.size), dtype=code_dtype(len(values)))
    for k in range(n_ann):
        np.concatenate([c[k] for _, c in blocks] or [codes[k]], out=codes[k], casting="unsafe")
    return Coded(codes.T, values), weight


def _run_blocks(
    regions: Regions, lengths: npt.ArrayLike
) -> tuple[list[Block], npt.NDArray[np.object_]]:
    """The runs of consecutive blocks of tasks, in order: each block's run lengths and each
    annotator's codes (as in :func:`position_runs`), and the values. Runs never cross a task, so
    a block's runs are exactly the rounds' runs over its tasks; taking the tasks a block at a
    time keeps every temporary small (fresh arrays of many MiB cost more in page faults than
    the arithmetic on them)."""
    task, ann, lo, hi, lab, labels = span_columns(regions, lengths)
    size = np.asarray(lengths, dtype=np.int64)
    n_lab = len(labels)
    if n_lab >= 62:
        raise UsageError(
            f"regions: position alpha supports at most 61 labels, got {n_lab}",
            parameter="regions",
        )
    n_ann = regions.annotators
    width = _field_width(task, ann, n_ann, n_lab)
    top = width - 1  # label c covers a run when bit width·c + top of its state is set
    offset = np.concatenate([[0], np.cumsum(size)])
    edges = np.unique(np.r_[0, task[::BLOCK], size.size])  # each block's first task
    first = np.searchsorted(task, edges)  # and its first region
    blocks: list[Block] = []
    masks: list[Int64Array] = []
    for t0, t1, r0, r1 in zip(edges[:-1], edges[1:], first[:-1], first[1:], strict=True):
        b_task, b_ann, b_lab = task[r0:r1], ann[r0:r1], lab[r0:r1]
        at_task = offset[b_task]
        n = b_task.size
        cuts, at = _ranks(
            np.concatenate([lo[r0:r1] + at_task, hi[r0:r1] + at_task, offset[t0 : t1 + 1]])
        )
        runs = cuts.size - 1
        # the task edges are cuts, so task t owns the runs between its two edges
        run_task = np.repeat(np.arange(t0, t1), np.diff(at[2 * n :]))
        columns: list[Int64Array] = []
        for k in range(n_ann):
            mine = b_ann == k
            state = _states(at[:n][mine], at[n : 2 * n][mine], b_lab[mine], runs, width)
            many = (state & (state - 1)) != 0  # two labels or more
            bit = np.frexp(state.astype(np.float64))[1].astype(np.int64) - 1  # exact: 2^bit
            col = np.where(state == 0, n_lab, (bit - top) // width)
            masks.append(state[many])
            col[many] = -2 - state[many]  # combinations: numbered below
            rated = regions.rated[run_task, k]
            if not rated.all():
                col[~rated] = -1
            columns.append(col)
        blocks.append((np.diff(cuts), columns))
    combos = np.unique(np.concatenate(masks)) if masks else np.zeros(0, dtype=np.int64)
    for _, columns in blocks:  # combinations numbered in the order of their labels' codes
        for col in columns:
            combo = col <= -2
            col[combo] = n_lab + 1 + np.searchsorted(combos, -2 - col[combo])
    names = [*labels, OUTSIDE]
    names += [
        "+".join(labels[c] for c in range(n_lab) if mask >> (width * c + top) & 1)
        for mask in combos.tolist()
    ]
    values = np.empty(len(names), dtype=object)
    values[:] = names
    return blocks, values


def _ranks(points: Int64Array) -> tuple[Int64Array, Int64Array]:
    """The distinct ``points`` ``(N,)`` in order, and each point's index among them ``(N,)``:
    ``np.unique`` with its inverse, by one sort of value and index packed into an int64. The sort
    is a merge sort: the regions come task by task and mostly in order, which it runs through in
    near-linear time (a quicksort does not)."""
    count = points.size
    bits = max(count - 1, 1).bit_length()
    if count == 0 or int(points.max()) >= 1 << (62 - bits) or int(points.min()) < 0:
        order = np.argsort(points, kind="stable")
        value = points[order]
    else:
        key = np.left_shift(points, bits)
        key |= np.arange(count, dtype=np.int64)
        key.sort(kind="stable")
        order = key & ((1 << bits) - 1)
        value = np.right_shift(key, bits)
    new = np.empty(count, dtype=bool)
    new[:1] = True
    np.not_equal(value[1:], value[:-1], out=new[1:])
    at = np.empty(count, dtype=np.int64)
    at[order] = np.cumsum(new) - 1
    return value[new], at


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

    blocks, values = _run_blocks(regions, lengths)
    if _by_pairs(regions.annotators, len(values)):
        o = _pair_coincidences([(c, w.astype(np.float64)) for w, c in blocks], len(values))
    else:
        runs, weight = _stacked(blocks, values, regions.annotators)
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
    n_ann = codes.shape[1]
    if _by_pairs(n_ann, n_values):
        return _pair_coincidences([([codes[:, a] for a in range(n_ann)], weight)], n_values)
    given = codes >= 0
    m = given.sum(axis=1).astype(np.float64)
    scale = np.divide(weight, m - 1.0, out=np.zeros(rows), where=m >= 2)
    flat = (np.arange(rows)[:, None] * n_values + codes)[given]
    counts = np.bincount(flat, minlength=rows * n_values).reshape(rows, n_values)
    c = counts.astype(np.float64)
    full: FloatArray = (c * scale[:, None]).T @ c
    full[np.diag_indices(n_values)] -= scale @ c
    return full


def _by_pairs(n_ann: int, n_values: int) -> bool:
    """Whether the coincidences are counted per annotator pair (few annotators for the values)."""
    return n_ann * (n_ann - 1) // 2 <= n_values


def _pair_coincidences(
    blocks: list[tuple[list[Int64Array], FloatArray]], n_values: int
) -> FloatArray:
    """:func:`weighted_coincidences` from consecutive blocks of rows, each annotator's codes
    ``(rows,)`` and the rows' weights: one weighted count of value pairs per annotator pair,
    added row after row in order (``np.add.at`` block after block adds exactly as one
    ``np.bincount`` over all rows: the same sums, to the last bit)."""
    size = n_values * n_values
    n_ann = len(blocks[0][0]) if blocks else 0
    pairs = {(a, b): np.zeros(size) for a in range(n_ann) for b in range(a + 1, n_ann)}
    for columns, weight in blocks:
        given = [col >= 0 for col in columns]
        m = np.sum(given, axis=0).astype(np.float64)
        scale = np.divide(weight, m - 1.0, out=np.zeros(weight.size), where=m >= 2)
        for (a, b), acc in pairs.items():
            cell = columns[a] * n_values + columns[b]
            w = scale
            both = given[a] & given[b]
            if not both.all():
                cell, w = cell[both], scale[both]
            np.add.at(acc, cell, w)
    out = np.zeros(size)
    for acc in pairs.values():
        out += acc
    half = out.reshape(n_values, n_values)
    return np.asarray(half + half.T)
