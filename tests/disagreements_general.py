"""The disagreement kinds of a region matching as :func:`iaa_gate.metrics.disagreements`
computed them before it worked in each region's slots (issue 31): every (region, other
annotator) key sorted and searched, the content rank of every counterpart, and a cut-down
matching for a few units. An independent computation the vectorised one is held to
(``tests/metrics/test_regions.py``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from iaa_gate.metrics import Disagreements, RegionMatching, Regions
from iaa_gate.metrics._base import sort_order
from iaa_gate.metrics.geometry import group_pairs
from iaa_gate.metrics.regions import Overlaps, RatedPairs, canonical_rank

Ints = npt.NDArray[np.int64]


def later_raters(
    pairs: RatedPairs, unit: Ints, annotator: Ints, *, before: bool = False
) -> tuple[Ints, Ints]:
    """(item, other annotator) for every rater of the item's unit after (before) its own."""
    n_ann = pairs.annotators
    cell = pairs.cell(unit, annotator)
    if before:
        first = np.searchsorted(pairs.cells, unit * n_ann)
        item, other = group_pairs(first - 1, cell)
    else:
        item, other = group_pairs(cell, np.searchsorted(pairs.cells, (unit + 1) * n_ann))
    return item, pairs.cells[other] % n_ann


def member(sorted_keys: Ints, x: Ints) -> npt.NDArray[np.bool_]:
    if sorted_keys.size == 0:
        return np.zeros(x.shape, dtype=bool)
    at = np.minimum(np.searchsorted(sorted_keys, x), sorted_keys.size - 1)
    return np.asarray(sorted_keys[at] == x)


def best(at: Ints, sim: npt.NDArray[np.float64], target: Ints, rank: Ints, size: int) -> Ints:
    out = np.full(size, -1, dtype=np.int64)
    if at.size:
        order = np.lexsort((rank[target], -sim, at))
        first = np.r_[True, np.diff(at[order]) != 0]
        out[at[order][first]] = target[order][first]
    return out


def ranks_of(regions: Regions, *members: Ints) -> Ints:
    sub = np.unique(np.concatenate(members))
    rank = np.zeros(regions.n, dtype=np.int64)
    rank[sub] = canonical_rank(regions, sub)
    return rank


def disagreements(matching: RegionMatching, units: npt.ArrayLike | None = None) -> Disagreements:
    """The disputed regions of a matching and why, as computed before issue 31."""
    if units is not None:
        keep = np.zeros(matching.regions.units, dtype=bool)
        keep[np.asarray(units, dtype=np.int64)] = True
        if 2 * np.count_nonzero(keep) < keep.size:
            return within_units(matching, keep)
        every = disagreements(matching)
        rows = keep[every.unit]
        return Disagreements(
            every.unit[rows],
            every.region[rows],
            every.other[rows],
            every.kind[rows],
            every.counterpart[rows],
        )
    reg = matching.regions
    n_ann = reg.annotators
    pairs = RatedPairs.of(reg.rated)
    ann, lab = reg.annotator, reg.label
    f, s = matching.first, matching.second
    later, later_b = later_raters(pairs, reg.unit, ann)
    earlier, earlier_b = later_raters(pairs, reg.unit, ann, before=True)
    item = np.concatenate([later, earlier])
    other = np.concatenate([later_b, earlier_b])
    key = item * n_ann + other
    order = np.argsort(key)
    item, other, key = item[order], other[order], key[order]
    keep = np.ones(key.size, dtype=bool)
    keep[np.searchsorted(key, np.concatenate([f * n_ann + ann[s], s * n_ann + ann[f]]))] = False
    item, other, key = item[keep], other[keep], key[keep]
    ov = matching.overlaps
    r = np.concatenate([ov.first, ov.second])
    t = np.concatenate([ov.second, ov.first])
    sim = np.tile(ov.similarity, 2)
    close = np.tile(matching.close, 2)
    r_key, t_key = r * n_ann + ann[t], t * n_ann + ann[r]
    free = member(key, r_key) & member(key, t_key)
    r, t, sim, close, r_key = r[free], t[free], sim[free], close[free], r_key[free]
    same = lab[r] == lab[t]
    at = np.searchsorted(key, r_key)
    n_same = np.bincount(at[same], minlength=key.size)
    rank = ranks_of(reg, t)
    swap_to = best(at[~same & close], sim[~same & close], t[~same & close], rank, key.size)
    same_to = best(at[same], sim[same], t[same], rank, key.size)
    has_same = same_to >= 0
    back = np.zeros(key.size, dtype=np.int64)
    back[has_same] = n_same[np.searchsorted(key, same_to[has_same] * n_ann + ann[item[has_same]])]
    support = np.bincount(f, minlength=reg.n) + np.bincount(s, minlength=reg.n) + 1
    missed = 2 * support[item] >= pairs.raters[reg.unit[item]]
    kind = np.select([swap_to >= 0, (n_same == 1) & (back == 1), has_same, missed], [2, 3, 4, 0], 1)
    counterpart = np.where(swap_to >= 0, swap_to, same_to)
    swapped = np.flatnonzero(lab[f] != lab[s])
    item = np.concatenate([item, f[swapped], s[swapped]])
    other = np.concatenate([other, ann[s[swapped]], ann[f[swapped]]])
    kind = np.concatenate([kind, np.full(2 * swapped.size, 2)])
    counterpart = np.concatenate([counterpart, s[swapped], f[swapped]])
    order = sort_order(reg.unit[item], item, other)
    return Disagreements(
        reg.unit[item][order],
        item[order],
        other[order],
        kind[order].astype(np.int64),
        counterpart[order],
    )


def within_units(matching: RegionMatching, keep: npt.NDArray[np.bool_]) -> Disagreements:
    """:func:`disagreements` of the units ``keep`` marks, on the matching cut down to them."""
    reg, ov = matching.regions, matching.overlaps
    idx = np.flatnonzero(keep[reg.unit])
    new = np.full(reg.n, -1, dtype=np.int64)
    new[idx] = np.arange(idx.size)
    sub = Regions(
        reg.unit[idx],
        reg.annotator[idx],
        reg.label[idx],
        reg.geometry[idx],
        reg.rated & keep[:, None],
        reg.kind,
        reg.labels,
        None if reg.points is None else tuple(reg.points[k] for k in idx.tolist()),
    )
    o = np.flatnonzero(keep[reg.unit[ov.first]])
    m = np.flatnonzero(keep[reg.unit[matching.first]])
    cut = RegionMatching(
        sub,
        new[matching.first[m]],
        new[matching.second[m]],
        matching.similarity[m],
        Overlaps(new[ov.first[o]], new[ov.second[o]], ov.similarity[o], ov.exact[o]),
        matching.mode,
        matching.iou,
        matching.labels,
        matching.tolerance,
    )
    d = disagreements(cut)
    counterpart = np.where(d.counterpart >= 0, idx[d.counterpart], -1)
    return Disagreements(d.unit, idx[d.region], d.other, d.kind, counterpart)
