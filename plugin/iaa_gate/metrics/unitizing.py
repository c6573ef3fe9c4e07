"""Krippendorff's unitizing alpha α_U (Krippendorff 1995, Sociological Methodology 25; 2004,
Content Analysis 2nd ed. §12.4 and Quality & Quantity 38), per label and pooled.

For a label c, each coder's continuum ``[0, L)`` is a sequence of sections: their segments of c
("units") and the gaps between them. Two coders' overlapping sections g, h disagree by
  δ²(g, h) = (b_g − b_h)² + (e_g − e_h)²   both are units of c,
           = ℓ_g²                          g a unit lying inside the gap h (or the reverse),
           = 0                             otherwise,
with b, e, ℓ a section's begin, end and length. With m coders, N_c units of c, lengths ℓ_g of
those units and ℓ_h of all gaps (every coder's):
  D_o^c = Σ_{ordered coder pairs} Σ_{overlapping g, h} δ² / (m(m − 1) L²)
  D_e^c = 2/L · Σ_g [(N_c − 1)(2ℓ_g³ − 3ℓ_g² + ℓ_g)/3 + ℓ_g² Σ_{ℓ_h ≥ ℓ_g}(ℓ_h − ℓ_g + 1)]
          / (mL(mL − 1) − Σ_g ℓ_g(ℓ_g − 1))
  α_c = 1 − D_o^c / D_e^c;  pooled α_U = 1 − Σ_c D_o^c / Σ_c D_e^c.
Positions are integers (characters or tokens). Checked against the worked examples of
Krippendorff 1995 (p. 57) and 2004 (p. 254), as reproduced in dkpro-statistics' tests.

Many tasks: each task's continuum is laid end to end on one continuum of length ΣL_t, so one
value pools every task the way the definition pools every stretch of one text. Gaps are cut at
task boundaries: a gap is an empty stretch of one text, and D_e counts where a unit could have
been placed, which is never across two texts (D_o is unchanged by the cut: a unit never
crosses a boundary). The definition has a fixed set of m coders for the whole continuum, so
the coders of each task are its raters in column order (coder identity does not enter α_U),
and tasks rated by fewer than the largest number of raters are left out and counted.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core.arguments import instance, number
from ..core.errors import UsageError
from ._base import Undefined, sort_order, whole_numbers
from .geometry import group_pairs
from .regions import NO_LABEL, Regions

Int64Array = npt.NDArray[np.int64]


@dataclass(frozen=True)
class UnitizingAlpha:
    """Krippendorff's α_U, pooled over labels and per label.

    Attributes
    ----------
    value : float
        α_U pooled over labels.
    by_label : dict
        Label → α_U.
    observed, expected : dict
        Each label's D_o and D_e.
    coders : int
        m, the coders.
    excluded : int
        Tasks left out because fewer than m annotators rated them (array entry only).
    duplicates : int
        Segments dropped because the same coder marked the same stretch with the same label
        twice.

    Examples
    --------
    >>> u = unitizing_alpha([('a', 0, 4, 'x'), ('b', 0, 5, 'x')], (0, 10))
    >>> round(u.value, 3), u.coders
    (0.928, 2)
    """

    value: float
    by_label: dict[Hashable, float]
    observed: dict[Hashable, float]
    expected: dict[Hashable, float]
    coders: int
    excluded: int = 0
    duplicates: int = 0


def unitizing_alpha(
    segments: Iterable[tuple[Hashable, int, int, Hashable]],
    continuum: tuple[int, int],
    *,
    annotators: Iterable[Hashable] | None = None,
) -> UnitizingAlpha:
    """α_U of ``segments`` ``(annotator, start, end, label)`` (end exclusive) on the continuum
    ``(begin, end)``.

    ``annotators``: the coders (default: those with a segment; a coder who marked nothing must
    be named here, or they are not counted). Segments of one coder and label must not overlap
    (``ValueError`` names them), except exact repeats, which count once (``.duplicates``);
    empty segments carry no length and are ignored.

    Parameters
    ----------
    segments : iterable of tuple
        ``(annotator, start, end, label)``, end exclusive.
    continuum : tuple of int
        ``(begin, end)``.
    annotators : iterable, optional
        Every coder, including those who marked nothing.

    Returns
    -------
    UnitizingAlpha
        α_U per label and pooled.

    Examples
    --------
    >>> round(unitizing_alpha([("a", 0, 4, "x"), ("b", 0, 5, "x")], (0, 10)).value, 3)
    0.928
    """
    begin, end = _continuum(continuum)
    rows = _segments(segments, begin, end)
    try:
        coders = list(dict.fromkeys([*(annotators or ()), *(r[0] for r in rows)]))
    except TypeError:  # not iterable, or a name that cannot be a key
        raise UsageError(
            f"annotators must be the coders' names, got {annotators!r}", parameter="annotators"
        ) from None
    labels = list(dict.fromkeys(r[3] for r in rows))
    code = {c: k for k, c in enumerate(coders)}
    lab = {c: k for k, c in enumerate(labels)}
    regions = Regions(
        np.zeros(len(rows), dtype=np.int64),
        np.array([code[r[0]] for r in rows], dtype=np.int64),
        np.array([lab[r[3]] for r in rows], dtype=np.int64),
        np.array([(r[1] - begin, r[2] - begin) for r in rows], dtype=np.float64).reshape(-1, 2),
        np.ones((1, len(coders)), dtype=bool),
        "span",
        tuple(str(x) for x in labels),
    )
    return _tasks(regions, np.array([end - begin]), tuple(labels), False, "segments")


def _continuum(continuum: tuple[int, int]) -> tuple[int, int]:
    """``(begin, end)`` of a non-empty continuum of whole positions (``4`` or ``4.0``)."""
    try:
        begin, end = (number("continuum", x) for x in continuum)
    except (TypeError, ValueError):  # not a pair of numbers: refused below
        begin = end = 0.0
    if begin.is_integer() and end.is_integer() and end > begin:
        return int(begin), int(end)
    raise UsageError(
        f"continuum must be (begin, end), whole positions with begin < end, got {continuum!r}",
        parameter="continuum",
    )


def _segments(
    segments: Iterable[tuple[Hashable, int, int, Hashable]], begin: int, end: int
) -> list[tuple[Hashable, int, int, Hashable]]:
    """The segments as ``(coder, begin, end, label)`` rows inside the continuum."""
    rows = list(segments)
    for k, row in enumerate(rows):
        ok = isinstance(row, (tuple, list)) and len(row) == 4
        if ok:
            lo, hi = row[1], row[2]
            whole = all(
                isinstance(x, numbers.Real) and not isinstance(x, bool) and float(x).is_integer()
                for x in (lo, hi)
            )
            ok = whole and begin <= lo <= hi <= end
        if not ok:
            raise UsageError(
                f"segment {k} {row!r}: each segment is (coder, begin, end, label) with whole "
                f"positions {begin} ≤ begin ≤ end ≤ {end}",
                parameter="segments",
            )
    return rows


def unitizing_alpha_tasks(
    regions: Regions, lengths: npt.ArrayLike, *, merge: bool = False
) -> UnitizingAlpha:
    """α_U of a span field over many tasks at once (see the module doc for how tasks are pooled).

    ``regions``: spans with integer offsets; ``lengths``: ``(units,)`` each task's continuum
    length (characters or tokens). Spans without a label count as a label ``"(no label)"``.
    ``merge``: one annotator's overlapping spans of one label count as their union (α_U needs
    them disjoint; without ``merge`` they raise ``ValueError``).

    Parameters
    ----------
    regions : Regions
        One field's span regions, integer offsets.
    lengths : array_like
        ``(units,)`` each unit's length (characters or tokens).
    merge : bool
        One annotator's overlapping spans of one label count as their union.

    Returns
    -------
    UnitizingAlpha
        α_U per label and pooled.

    Examples
    --------
    >>> spans = Regions(unit=[0, 0, 0, 0], annotator=[0, 0, 1, 1], label=[0, 1, 0, 1],
    ...                 geometry=[[0, 5], [10, 20], [0, 5], [10, 18]], rated=[[True, True]],
    ...                 kind="span", labels=("PER", "ORG"))
    >>> round(unitizing_alpha_tasks(spans, [20]).value, 4)
    0.945
    """
    return _tasks(regions, lengths, None, merge, "regions")


def span_columns(
    regions: Regions, lengths: npt.ArrayLike
) -> tuple[Int64Array, Int64Array, Int64Array, Int64Array, Int64Array, tuple[str, ...]]:
    """Spans as integer columns ``(n,)`` in unit order (stable): unit, annotator, start, end,
    label (-1 remapped to a last label ``"(no label)"``), with the label names; checks offsets
    against ``lengths``."""
    instance("regions", regions, Regions, "a Regions")
    if not regions.shape.linear:
        raise UsageError(
            f"{regions.kind} regions have no continuum: use spans", parameter="regions"
        )
    size = _int(lengths, "lengths")
    if size.shape != (regions.units,) or (size.size and size.min() < 0):
        raise UsageError(
            f"lengths needs one length ≥ 0 per unit ({regions.units}), got {lengths!r}",
            parameter="lengths",
        )
    lo, hi = _int(regions.geometry[:, 0], "regions"), _int(regions.geometry[:, 1], "regions")
    task = regions.unit
    outside = np.flatnonzero(hi > size[task])
    if outside.size:
        k = int(outside[0])
        raise UsageError(
            f"span {k} [{lo[k]}, {hi[k]}) runs past the end of unit {task[k]} "
            f"(length {size[task[k]]})",
            parameter="lengths",
        )
    labels = regions.labels
    lab = regions.label
    if (lab < 0).any():
        lab = np.where(lab < 0, len(labels), lab)
        labels = (*labels, NO_LABEL)
    ann = regions.annotator
    if task.size and (task[1:] < task[:-1]).any():  # regions are usually read task by task
        order = np.argsort(task, kind="stable")
        task, ann, lo, hi, lab = task[order], ann[order], lo[order], hi[order], lab[order]
    return task, ann, lo, hi, lab, labels


def _tasks(
    regions: Regions,
    lengths: npt.ArrayLike,
    names: tuple[Hashable, ...] | None,
    merge: bool,
    parameter: str,
) -> UnitizingAlpha:
    """α_U of ``regions``; ``parameter``: the caller's argument the segments came in."""
    task, ann, lo, hi, lab, labels = span_columns(regions, lengths)
    size, who = _int(lengths, "lengths"), regions.rated
    raters = who.sum(axis=1)
    m = int(raters.max()) if raters.size else 0
    keep_task = raters == m
    kept = np.where(keep_task, size, 0)
    excluded = int((~keep_task & (raters > 0)).sum())
    # the walls: the kept tasks' edges, each once, so the continuum is [0, walls[-1]); a task's
    # part: its stretch between two walls (a segment has a length, so its task is not empty)
    walls = np.concatenate([[0], np.cumsum(kept[kept > 0])])
    length = int(walls[-1])
    if m < 2 or length == 0:
        why = "fewer than two coders" if m < 2 else "the continuum is empty"
        return UnitizingAlpha(Undefined(why), {}, {}, {}, m, excluded)
    keep = keep_task[task] & (hi > lo)
    if not keep.all():
        task, ann, lo, hi, lab = task[keep], ann[keep], lo[keep], hi[keep], lab[keep]
    slot = np.cumsum(who, axis=1) - 1  # coder slot of each rater within a task
    part = np.cumsum(kept > 0) - 1
    named = names or labels
    sums = _Sums(len(named), m, walls)
    edges = np.unique(np.r_[0, task[::BLOCK], size.size])  # each block's first task
    first = np.searchsorted(task, edges)  # and its first segment
    for t0, t1, r0, r1 in zip(edges[:-1], edges[1:], first[:-1], first[1:], strict=True):
        b_task = task[r0:r1]
        at = walls[part[b_task]]  # where the segment's task starts on the continuum
        parts = (int(part[t0 - 1]) + 1 if t0 else 0, int(part[t1 - 1]) + 1 if t1 else 0)
        sums.add(
            slot.ravel()[b_task * who.shape[1] + ann[r0:r1]],
            lo[r0:r1] + at,
            hi[r0:r1] + at,
            lab[r0:r1],
            part[b_task],
            parts,
            merge,
        )
    return sums.result(named, excluded, parameter)


BLOCK = 1 << 17  # segments per block of tasks: each block's arrays stay a few MiB


class _Sums:
    """α_U's sums over consecutive blocks of tasks. Segments never cross a task, so each task's
    overlaps and gaps are within its block; D_o sums whole numbers (exact in any order); D_e
    is summed over each label's units in the order of the whole field (coder, then start), as
    one array: those sums are not exact."""

    def __init__(self, n_lab: int, m: int, walls: Int64Array) -> None:
        self.m, self.walls = m, walls
        self.total = [0.0] * n_lab  # Σ δ² and ℓ² over coder pairs (whole numbers)
        self.units: list[list[list[Int64Array]]] = [[[] for _ in range(m)] for _ in range(n_lab)]
        self.gaps: list[list[Int64Array]] = [[] for _ in range(n_lab)]
        self.clashes: list[tuple[int, int, int, str]] = []
        self.duplicates = 0
        self.none = np.zeros(0, dtype=np.int64)

    def add(
        self,
        coder: Int64Array,
        lo: Int64Array,
        hi: Int64Array,
        lab: Int64Array,
        part: Int64Array,
        parts: tuple[int, int],
        merge: bool,
    ) -> None:
        """One block's segments, in reading order; ``parts``: the block's stretches
        ``[first, end)``."""
        m = self.m
        groups = len(self.total) * m
        group = lab * m + coder
        edges = np.concatenate([[0], np.cumsum(np.bincount(group, minlength=groups))])
        # by label and coder, each in reading order: that is by start when the regions came
        # task by task, each annotator's by start; else sorted
        order = np.argsort(
            group.astype(np.uint16 if groups <= 1 << 16 else np.int64), kind="stable"
        )
        s_lo, s_hi, s_part = lo[order], hi[order], part[order]
        if not _in_order(s_lo, s_hi, edges):
            order = sort_order(lab, coder, lo, hi - lo)  # a length: a small range to pack
            s_lo, s_hi, s_part = lo[order], hi[order], part[order]
        stretch = np.diff(self.walls[parts[0] : parts[1] + 1])
        cut = edges.tolist()
        for code in range(len(self.total)):
            if cut[code * m] == cut[code * m + m]:  # every coder left the block's tasks empty
                self.gaps[code] += [stretch] * m
                continue
            units: list[Units] = []
            for c in range(m):
                a, b = cut[code * m + c], cut[code * m + c + 1]
                u_lo, u_hi, u_part, repeats = _disjoint(s_lo[a:b], s_hi[a:b], s_part[a:b], merge)
                self.duplicates += repeats
                clash = np.flatnonzero(u_lo[1:] < u_hi[:-1])
                if clash.size:  # reported once every block is read: the first by label, coder
                    k = int(clash[0])
                    where = f"[{u_lo[k]}, {u_hi[k]}) and [{u_lo[k + 1]}, {u_hi[k + 1]})"
                    self.clashes.append((code, c, len(self.clashes), where))
                units.append((u_lo, u_hi))
                self.units[code][c].append(u_hi - u_lo)
                empty = np.bincount(u_part - parts[0], minlength=stretch.size) == 0
                self.gaps[code].append(_gaps(u_lo, u_hi, u_part, self.walls))
                self.gaps[code].append(stretch[empty])  # a stretch the coder left empty
            if not self.clashes:
                self.total[code] += _observed(units, m)

    def result(self, labels: tuple[Hashable, ...], excluded: int, parameter: str) -> UnitizingAlpha:
        """α_U per label and pooled, once every block is added."""
        if self.clashes:
            code, c, _, where = min(self.clashes)
            raise UsageError(
                f"coder {c} has overlapping segments {where} of label {labels[code]!r}: "
                "unitizing alpha needs each coder's segments of one label to be disjoint",
                parameter=parameter,
            )
        m, walls = self.m, self.walls
        length = int(walls[-1])
        by_label: dict[Hashable, float] = {}
        observed: dict[Hashable, float] = {}
        expected: dict[Hashable, float] = {}
        d_o_sum = d_e_sum = 0.0
        for code, name in enumerate(labels):
            if not any(self.units[code][c] for c in range(m)):
                continue
            sizes = [np.concatenate([self.none, *self.units[code][c]]) for c in range(m)]
            gaps = np.concatenate(self.gaps[code])
            d_o = 2.0 * self.total[code] / (m * (m - 1) * float(length) ** 2)
            d_e = _expected(np.concatenate(sizes), gaps, m, length)
            observed[name], expected[name] = d_o, d_e
            if not (gaps > 0).any() and all(s.size == walls.size - 1 for s in sizes):
                why = f"every coder marks each task whole as {name!r}: no choice"
                by_label[name] = Undefined(why)
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
        return UnitizingAlpha(value, by_label, observed, expected, m, excluded, self.duplicates)


def _int(a: npt.ArrayLike, parameter: str) -> Int64Array:
    return whole_numbers(a, parameter, "whole characters or tokens (span positions)")


def _in_order(lo: Int64Array, hi: Int64Array, edges: Int64Array) -> bool:
    """Whether each run ``[edges[k], edges[k + 1])`` of segments is sorted by start, then end."""
    move = lo[1:] - lo[:-1]
    inside = np.ones(move.size, dtype=bool)
    inside[edges[1:-1][(edges[1:-1] > 0) & (edges[1:-1] <= move.size)] - 1] = False
    if ((move < 0) & inside).any():
        return False
    tie = np.flatnonzero((move == 0) & inside)
    return not (hi[tie + 1] < hi[tie]).any()


def _disjoint(
    lo: Int64Array, hi: Int64Array, part: Int64Array, merge: bool
) -> tuple[Int64Array, Int64Array, Int64Array, int]:
    """One coder's segments of one label (in order of start, then length) without repeats,
    merged when ``merge``, as ``(lo, hi, part, repeats)``."""
    twice = np.zeros(lo.size, dtype=bool)
    twice[1:] = (lo[1:] == lo[:-1]) & (hi[1:] == hi[:-1])
    repeats = int(twice.sum())
    if repeats:
        lo, hi, part = lo[~twice], hi[~twice], part[~twice]
    if merge and lo.size:  # a segment joins the previous one while it starts before its reach
        reach = np.maximum.accumulate(hi)
        first = np.flatnonzero(lo[1:] >= reach[:-1]) + 1
        if first.size < lo.size - 1:
            first = np.r_[0, first]
            hi = np.maximum.reduceat(hi, first)
            lo, part = lo[first], part[first]
    return lo, hi, part, repeats


Units = tuple[Int64Array, Int64Array]


def _gaps(lo: Int64Array, hi: Int64Array, part: Int64Array, walls: Int64Array) -> Int64Array:
    """Lengths of one coder's gaps around their units ``[lo, hi)`` (sorted, disjoint, unit k in
    the stretch ``part[k]`` between two task ``walls``), cut at the walls; 0 for a unit that
    starts where the previous one ends (or at a wall). Stretches without a unit are not here."""
    first = np.ones(lo.size, dtype=bool)  # the first unit in its stretch
    np.not_equal(part[1:], part[:-1], out=first[1:])
    last = np.ones(lo.size, dtype=bool)
    last[:-1] = first[1:]
    inner = np.where(first[1:], 0, lo[1:] - hi[:-1])
    lead = np.where(first, lo - walls[part], 0)
    tail = np.where(last, walls[part + 1] - hi, 0)
    return np.concatenate([inner, lead, tail])


def _observed(units: list[Units], m: int) -> float:
    """D_o of one label times m(m − 1)L²/2: over every coder pair, δ² of overlapping units, plus
    ℓ² of each unit that no unit of the other coder overlaps (it lies inside one of their
    gaps). Every term is a whole number, so the sums are exact in any order."""
    total = 0.0
    for i in range(m):
        for j in range(i + 1, m):
            (lo_i, hi_i), (lo_j, hi_j) = units[i], units[j]
            first = np.searchsorted(hi_j, lo_i, side="right")  # j's first unit ending after lo_i
            end = _reach(first, lo_j, hi_i)  # j's first unit starting at or after hi_i
            count = end - first
            g = np.flatnonzero(count == 1)  # most units overlap one of the other coder's
            h = first[g]
            many = np.flatnonzero(count > 1)
            if many.size:
                k, h_many = group_pairs(first[many] - 1, end[many])
                g, h = np.concatenate([g, many[k]]), np.concatenate([h, h_many])
            d2 = (lo_i[g] - lo_j[h]).astype(np.float64) ** 2 + (hi_i[g] - hi_j[h]) ** 2.0
            len_i = (hi_i - lo_i).astype(np.float64)
            len_j = (hi_j - lo_j).astype(np.float64)
            alone_i = count <= 0
            alone_j = np.bincount(h, minlength=lo_j.size) == 0
            total += float(
                d2.sum() + np.sum(len_i**2, where=alone_i) + np.sum(len_j**2, where=alone_j)
            )
    return total


def _reach(first: Int64Array, lo: Int64Array, hi: Int64Array) -> Int64Array:
    """``np.searchsorted(lo, hi, side="left")`` for sorted disjoint units, given for each query
    a ``first`` unit that does not start after it: stepping on from there while the next unit
    starts before ``hi`` (a unit overlaps one or two of the other coder's, rarely more); the
    few that overlap many are searched."""
    end = first.copy()
    active = np.flatnonzero(end < lo.size)
    for _ in range(4):
        if not active.size:
            return end
        active = active[lo[end[active]] < hi[active]]
        end[active] += 1
        active = active[end[active] < lo.size]
    end[active] = np.searchsorted(lo, hi[active], side="left")
    return end


def _expected(sizes: Int64Array, gaps: Int64Array, m: int, length: int) -> float:
    """D_e of one label, from every coder's unit lengths (coder after coder, each by start) and
    all their gaps' lengths."""
    n_c = sizes.size
    if n_c == 0:
        return 0.0
    units = sizes.astype(np.float64)
    within = (n_c - 1) * (2 * units**3 - 3 * units**2 + units) / 3.0
    room = _room(gaps, sizes).astype(np.float64)  # Σ (ℓ_h − ℓ_g + 1)
    num = 2.0 / length * float((within + units**2 * room).sum())
    den = m * float(length) * (m * float(length) - 1) - float((units * (units - 1)).sum())
    return num / den


def _room(gaps: Int64Array, units: Int64Array) -> Int64Array:
    """``(u,)`` for each unit length ℓ_g, Σ (ℓ_h − ℓ_g + 1) over the gaps ℓ_h ≥ ℓ_g, in whole
    numbers (exact). Lengths are at most a task's: counted per length when that table is not
    much longer than the lists, else from the sorted gaps."""
    top = max(int(gaps.max()) if gaps.size else 0, int(units.max()) if units.size else 0) + 1
    if top <= 4 * (gaps.size + units.size) + 4096:
        count = np.bincount(gaps, minlength=top)
        at_least = np.cumsum(count[::-1])[::-1]  # gaps ≥ ℓ
        total = np.cumsum((count * np.arange(top))[::-1])[::-1]  # their summed length
        return np.asarray(total[units] - (units - 1) * at_least[units])
    ordered = np.sort(gaps)
    at = np.searchsorted(ordered, units, side="left")  # gaps at least as long as the unit
    suffix = np.concatenate([np.cumsum(ordered[::-1])[::-1], [0]])
    return np.asarray(suffix[at] - (units - 1) * (ordered.size - at))
