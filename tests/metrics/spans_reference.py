"""The position and unitizing alpha of spans as first written (one ``np.unique`` of every
boundary, per-coder ``searchsorted`` of the task walls, one packed sort by label and coder): the
reference the columns of ``iaa_gate.metrics.positions`` and ``unitizing`` are held to, to the last
bit (issue 31). The helpers the columns kept as they were (a run's label states, the width of
their fields, whole-number offsets) are the modules' own."""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from typing import Any

import numpy as np
import numpy.typing as npt

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics import Coded, Regions, Undefined, UnitizingAlpha, positions, unitizing
from iaa_gate.metrics._base import code_dtype, sort_order
from iaa_gate.metrics.alpha import alpha_from_sums
from iaa_gate.metrics.geometry import group_pairs
from iaa_gate.metrics.positions import OUTSIDE
from iaa_gate.metrics.unitizing import span_columns

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def position_runs(regions: Regions, lengths: Any) -> tuple[Coded, Int64Array]:
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
    width = positions._field_width(task, ann, n_ann, n_lab)
    top = width - 1  # label c covers a run when bit width·c + top of its state is set
    codes = np.full((n_ann, runs), -1, dtype=np.int64)  # annotator-major: contiguous columns
    masks: list[Int64Array] = []
    for k in range(n_ann):
        mine = ann == k
        state = positions._states(at_lo[mine], at_hi[mine], lab[mine], runs, width)
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


def position_alpha(regions: Regions, lengths: Any) -> float:
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


def unitizing_alpha_tasks(regions: Regions, lengths: Any, *, merge: bool = False) -> UnitizingAlpha:
    return _tasks(regions, lengths, None, merge, "regions")


def _tasks(
    regions: Regions,
    lengths: npt.ArrayLike,
    names: tuple[Hashable, ...] | None,
    merge: bool,
    parameter: str,
) -> UnitizingAlpha:
    """α_U of ``regions``; ``parameter``: the caller's argument the segments came in."""
    task, ann, lo, hi, lab, labels = span_columns(regions, lengths)
    size, who = unitizing._int(lengths, "lengths"), regions.rated
    raters = who.sum(axis=1)
    m = int(raters.max()) if raters.size else 0
    keep_task = raters == m
    offset = np.concatenate([[0], np.cumsum(np.where(keep_task, size, 0))])
    slot = np.cumsum(who, axis=1) - 1  # coder slot of each rater within a task
    keep = keep_task[task] & (hi > lo)
    coder = slot[task[keep], ann[keep]]
    pos = offset[task[keep]]
    bounds = offset[np.r_[np.flatnonzero(keep_task), keep_task.size]] if m else offset[:1]
    excluded = int((~keep_task & (raters > 0)).sum())
    return _pooled(
        coder,
        lo[keep] + pos,
        hi[keep] + pos,
        lab[keep],
        np.unique(bounds),
        m,
        names or labels,
        excluded,
        merge,
        parameter,
    )


def _pooled(
    coder: Int64Array,
    lo: Int64Array,
    hi: Int64Array,
    lab: Int64Array,
    walls: Int64Array,
    m: int,
    labels: tuple[Hashable, ...],
    excluded: int,
    merge: bool,
    parameter: str,
) -> UnitizingAlpha:
    """α_U per label and pooled, on one continuum ``[0, walls[-1])`` cut at ``walls``
    (``merge``: a coder's overlapping segments of one label become their union)."""
    length = int(walls[-1])
    by_label: dict[Hashable, float] = {}
    observed: dict[Hashable, float] = {}
    expected: dict[Hashable, float] = {}
    if m < 2 or length == 0:
        why = "fewer than two coders" if m < 2 else "the continuum is empty"
        return UnitizingAlpha(Undefined(why), {}, {}, {}, m, excluded)
    order = sort_order(lab, coder, lo, hi - lo)  # a length: a small range to pack
    coder, lo, hi, lab = coder[order], lo[order], hi[order], lab[order]
    same = (np.diff(lab) == 0) & (np.diff(coder) == 0)
    twice = np.r_[
        np.zeros(min(lab.size, 1), dtype=bool), same & (np.diff(lo) == 0) & (np.diff(hi) == 0)
    ]
    coder, lo, hi, lab = coder[~twice], lo[~twice], hi[~twice], lab[~twice]
    if merge and lab.size:  # a segment joins the previous one while it starts before its reach
        group = np.r_[True, (np.diff(lab) != 0) | (np.diff(coder) != 0)]
        base = np.cumsum(group) * (length + 1)  # keeps each running maximum inside its group
        reach = np.maximum.accumulate(hi + base)
        first = np.flatnonzero(group | (lo + base >= np.r_[0, reach[:-1]]))
        hi = np.maximum.reduceat(hi + base, first) - base[first]
        coder, lo, lab = coder[first], lo[first], lab[first]
    clash = (np.diff(lab) == 0) & (np.diff(coder) == 0) & (lo[1:] < hi[:-1])
    if clash.any():
        k = int(np.flatnonzero(clash)[0])
        raise UsageError(
            f"coder {coder[k]} has overlapping segments [{lo[k]}, {hi[k]}) and "
            f"[{lo[k + 1]}, {hi[k + 1]}) of label {labels[lab[k]]!r}: unitizing alpha needs "
            "each coder's segments of one label to be disjoint",
            parameter=parameter,
        )
    runs = np.r_[np.flatnonzero(np.r_[True, np.diff(lab) != 0]), lab.size] if lab.size else []
    d_o_sum = d_e_sum = 0.0
    for a, b in itertools.pairwise(runs):
        name = labels[lab[a]]
        units = [(lo[a:b][coder[a:b] == c], hi[a:b][coder[a:b] == c]) for c in range(m)]
        gaps = [_gaps(u_lo, u_hi, walls) for u_lo, u_hi in units]
        d_o = _observed(units, m, length)
        d_e = _expected(units, gaps, m, length)
        observed[name], expected[name] = d_o, d_e
        if not any(g.size for g in gaps) and all(
            np.array_equal(u_lo, walls[:-1]) and np.array_equal(u_hi, walls[1:])
            for u_lo, u_hi in units
        ):
            by_label[name] = Undefined(f"every coder marks each task whole as {name!r}: no choice")
        elif d_e > 0:
            by_label[name] = 1.0 - d_o / d_e
            d_o_sum, d_e_sum = d_o_sum + d_o, d_e_sum + d_e
        else:
            by_label[name] = Undefined(f"label {name!r}: no expected disagreement")
    value = (
        1.0 - d_o_sum / d_e_sum
        if d_e_sum > 0
        else Undefined("no segments" if not by_label else "no label has a defined alpha")
    )
    return UnitizingAlpha(value, by_label, observed, expected, m, excluded, int(twice.sum()))


Units = tuple[Int64Array, Int64Array]


def _gaps(lo: Int64Array, hi: Int64Array, walls: Int64Array) -> Int64Array:
    """Lengths ``(k,)`` of one coder's gaps: the stretches without a unit ``[lo, hi)`` (sorted,
    disjoint, ``(u,)``), cut at the task ``walls`` ``(T + 1,)``."""
    task = np.searchsorted(walls, lo, side="right") - 1
    first = np.r_[True, task[1:] != task[:-1]] if task.size else np.zeros(0, dtype=bool)
    last = np.r_[task[1:] != task[:-1], True] if task.size else np.zeros(0, dtype=bool)
    inner = lo[1:][~first[1:]] - hi[:-1][~first[1:]]
    lead = lo[first] - walls[task[first]]
    tail = walls[task[last] + 1] - hi[last]
    empty = np.diff(walls)[np.bincount(task, minlength=walls.size - 1) == 0]
    out = np.concatenate([inner, lead, tail, empty])
    return np.asarray(out[out > 0], dtype=np.int64)


def _observed(units: list[Units], m: int, length: int) -> float:
    """D_o of one label over every coder pair: δ² of overlapping units, plus ℓ² of each unit
    that no unit of the other coder overlaps (it lies inside one of their gaps)."""
    total = 0.0
    for i in range(m):
        for j in range(i + 1, m):
            (lo_i, hi_i), (lo_j, hi_j) = units[i], units[j]
            first = np.searchsorted(hi_j, lo_i, side="right")  # j's first unit ending after lo_i
            count = np.searchsorted(lo_j, hi_i, side="left") - first
            g, h = group_pairs(first - 1, first + count)
            d2 = (lo_i[g] - lo_j[h]).astype(np.float64) ** 2 + (hi_i[g] - hi_j[h]) ** 2.0
            alone_i = count <= 0
            alone_j = np.bincount(h, minlength=lo_j.size) == 0
            len_i = (hi_i - lo_i)[alone_i].astype(np.float64)
            len_j = (hi_j - lo_j)[alone_j].astype(np.float64)
            total += float(d2.sum() + (len_i**2).sum() + (len_j**2).sum())
    return 2.0 * total / (m * (m - 1) * float(length) ** 2)


def _expected(units_: list[Units], gaps_: list[Int64Array], m: int, length: int) -> float:
    """D_e of one label, from every coder's unit and gap lengths."""
    units = np.concatenate([hi - lo for lo, hi in units_]).astype(np.float64)
    gaps = np.sort(np.concatenate(gaps_).astype(np.float64))
    n_c = units.size
    if n_c == 0:
        return 0.0
    within = (n_c - 1) * (2 * units**3 - 3 * units**2 + units) / 3.0
    at = np.searchsorted(gaps, units, side="left")  # gaps at least as long as the unit
    suffix = np.concatenate([np.cumsum(gaps[::-1])[::-1], [0.0]])
    room = suffix[at] - (units - 1.0) * (gaps.size - at)  # Σ (ℓ_h − ℓ_g + 1)
    num = 2.0 / length * float((within + units**2 * room).sum())
    den = m * float(length) * (m * float(length) - 1) - float((units * (units - 1)).sum())
    return num / den
