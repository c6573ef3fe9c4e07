"""The proposed answer of each unit and each annotator's estimated skill, by Dawid–Skene.

A nominal field is fitted on its ``(units, annotators)`` codes; a multi-select field once per
label (present or absent); a region field on its clusters of matched regions, with
``"(unmatched)"`` as a class (the caller turns cluster answers into regions). A unit's
:class:`~iaa_gate.evaluation.results.Consensus` is its most probable answer with that
probability; where two answers are equally probable it is marked a tie. A disputed unit's
priority is 1 − that probability: the less settled the answer, the sooner a person should look.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..metrics import Coded
from ..metrics._base import sort_order
from ..metrics.dawid_skene import DawidSkene, dawid_skene
from .results import AnnotatorSkill, Consensus, Proposals, Skill, UnitResult, UnitTable

METHOD = "dawid-skene"
"""How the proposals are found (``Consensus.method``, ``Skill.method``)."""


MAX_CLASSES = 50
"""Dawid–Skene is fitted to fields of at most this many classes (labels); a field with more
gets the majority vote (``method: majority``): a unit × class table would not fit in memory."""


def majority(coded: Coded, units: Sequence[UnitResult], unit_ids: list[Any], shown: Any) -> None:
    """Each unit's most common rating (method ``majority``), its posterior the share of ratings
    that gave it, a tie when another rating is as common. ``(units, annotators)`` pairs are
    compared column by column: no table over the classes."""
    codes = coded.codes.astype(np.int64)
    valid = codes >= 0
    votes = np.zeros(codes.shape, dtype=np.int64)
    for b in range(codes.shape[1]):
        votes += valid & (codes == codes[:, b : b + 1])
    votes[~valid] = 0
    n = valid.sum(axis=1)
    best = np.argmax(votes, axis=1)
    rows = np.arange(len(codes))
    top = votes[rows, best]
    distinct_at_top = np.count_nonzero(votes == top[:, None], axis=1) // np.maximum(top, 1)
    share = top / np.maximum(n, 1)
    values = coded.values.tolist()
    top_code = codes[rows, best].tolist()
    value = [shown(values[c]) if m else None for c, m in zip(top_code, n.tolist(), strict=True)]
    assign(units, unit_ids, value, np.round(share, 6), distinct_at_top > 1, n > 0, "majority")


def fit(coded: Coded) -> DawidSkene:
    """Dawid–Skene on ``coded`` ``(units, annotators)``, every value a class."""
    return dawid_skene(coded.codes, max(coded.n_values, 1))


def skill(
    fits: list[DawidSkene],
    codes: list[np.ndarray[Any, Any]],
    classes: list[str],
    ids: list[str],
    names: list[str],
    basis: str,
) -> Skill:
    """The :class:`Skill` of one fit (or several, averaged: one per label), ``codes`` the
    ``(units, annotators)`` each was fitted on; ``ids``, ``names``: the annotators'. Classes
    nobody gave (e.g. "(no label)" when every region has one) are left out of the matrices."""
    # no fit (a multi-label field nobody gave a label on): no matrix, and no numpy warning
    confusion = np.mean([f.confusion for f in fits], axis=0) if fits else np.zeros((len(ids), 0, 0))
    given = np.zeros(len(classes), dtype=bool)  # classes nobody gave are left out
    for c in codes:
        given |= np.bincount(c[c >= 0].astype(np.int64), minlength=len(classes)) > 0
    if given.any() and confusion.ndim == 3:
        confusion = confusion[:, given][:, :, given]
        classes = [c for c, g in zip(classes, given, strict=True) if g]
    # the mean over the fits where an annotator's accuracy is defined; NaN where none is (by
    # hand: np.nanmean warns on an all-NaN column, and a library leaves the warnings to you)
    each = np.array([f.accuracy for f in fits], dtype=float) if fits else np.zeros((1, 0))
    defined = ~np.isnan(each)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(defined, each, 0.0).sum(axis=0) / defined.sum(axis=0)
    answered = sum(np.count_nonzero(c >= 0, axis=0) for c in codes)
    return Skill(
        basis=basis,
        classes=classes,
        iterations=max((f.iterations for f in fits), default=0),
        converged=all(f.converged for f in fits),
        annotators=[
            AnnotatorSkill(
                ids[a],
                names[a],
                int(answered[a]),
                float(accuracy[a]),
                confusion[a].round(6).tolist(),
            )
            for a in range(len(ids))
        ],
    )


def proposals(
    ds: DawidSkene, values: Any
) -> tuple[list[Any], np.ndarray[Any, np.dtype[np.float64]], np.ndarray[Any, np.dtype[np.bool_]]]:
    """Each unit's best class as its value in ``values``, its posterior ``(units,)`` and whether
    it ties ``(units,)``."""
    return list(map(values.__getitem__, ds.best.tolist())), ds.best_posterior, ds.tie


def assign(
    units: Sequence[UnitResult],
    unit_ids: list[Any],
    value: Sequence[Any],
    posterior: np.ndarray[Any, Any],
    tie: np.ndarray[Any, Any],
    rated: np.ndarray[Any, Any],
    method: str = METHOD,
) -> None:
    """Set each unit's consensus (row ``r``: the unit of task ``unit_ids[r]``; rows not ``rated``
    get none) and the priority of disputed ones; a :class:`UnitTable` keeps them as columns."""
    proposals = Proposals(unit_ids, value, posterior, tie, rated, method)
    if isinstance(units, UnitTable):
        units.propose(proposals)
        return
    for u in units:
        i = proposals.index.get(u.id)
        if i is None or not rated[i]:
            continue
        p = float(posterior[i])
        u.consensus = Consensus(value[i], round(p, 6), method, bool(tie[i]))
        if u.status == "disputed":
            u.priority = round(1.0 - p, 6)


def nominal(
    coded: Coded,
    units: Sequence[UnitResult],
    unit_ids: list[Any],
    ids: list[str],
    names: list[str],
    shown: Any,
) -> Skill:
    """Fit a single-label field; fill ``units``' consensus and priority; its :class:`Skill`.
    ``shown``: a value as the report shows it."""
    ds = fit(coded)
    classes = [shown(v) for v in coded.values.tolist()]
    value, posterior, tie = proposals(ds, classes)
    rated = np.count_nonzero(coded.codes >= 0, axis=1) > 0
    assign(units, unit_ids, value, posterior, tie, rated)
    return skill([ds], [coded.codes], [str(c) for c in classes], ids, names, "task")


def label_sets(
    presence: dict[str, np.ndarray[Any, Any]],
    units: Sequence[UnitResult],
    unit_ids: list[Any],
    ids: list[str],
    names: list[str],
) -> Skill:
    """Fit a multi-select field once per label: ``presence`` label → ``(units, annotators)``
    1 chosen, 0 not chosen, -1 missing. A unit's proposal is the labels more likely present than
    not; its posterior the least certain label's (max(p, 1 − p)); a label at exactly 0.5 ties."""
    n = len(unit_ids)
    fits, codes = [], []
    certain = np.ones(n)
    tie = np.zeros(n, dtype=bool)
    chosen: list[list[str]] = [[] for _ in range(n)]
    rated = np.zeros(n, dtype=bool)
    for label, c in presence.items():
        ds = dawid_skene(c, 2)
        fits.append(ds)
        codes.append(c)
        p = ds.posteriors[:, 1]
        certain = np.minimum(certain, np.maximum(p, 1.0 - p))
        tie |= ds.tie
        rated |= np.count_nonzero(c >= 0, axis=1) > 0
        for i in np.flatnonzero(p > 0.5).tolist():
            chosen[i].append(label)
    assign(units, unit_ids, chosen, certain, tie, rated)
    return skill(fits, codes, ["absent", "present"], ids, names, "label")


def median(coded: Coded, units: Sequence[UnitResult], unit_ids: list[Any], shown: Any) -> None:
    """An ordered field (ordinal, interval, ratio; codes in value order): each unit's median
    rating (method ``median``), its posterior the share of ratings equal to it, a tie when an
    even number of ratings has two different middle values (the lower is shown)."""
    codes = coded.codes.astype(np.int64)
    n = np.count_nonzero(codes >= 0, axis=1)
    ordered = np.sort(np.where(codes >= 0, codes, np.iinfo(np.int64).max), axis=1)
    rows = np.arange(len(codes))
    lo = ordered[rows, np.maximum(n - 1, 0) // 2]
    hi = ordered[rows, n // 2]
    share = np.count_nonzero(codes == lo[:, None], axis=1) / np.maximum(n, 1)
    values = coded.values.tolist()
    shown_values = [shown(v) for v in values]
    value = [shown_values[k] if m else None for k, m in zip(lo.tolist(), n.tolist(), strict=True)]
    assign(units, unit_ids, value, np.round(share, 6), lo != hi, n > 0, "median")


def group_median(
    group: np.ndarray[Any, np.dtype[np.int64]], values: np.ndarray[Any, np.dtype[np.float64]]
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """The median of ``values`` ``(n, d)`` per ``group`` ``(n,)`` in ``0 … G − 1``: ``(G, d)``
    (NaN for an empty group); the mean of the middle two for an even count.

    The groups of one size are sorted together, as rows of one ``(groups, size, d)`` array: a
    region field's groups are its clusters, almost all of two or three regions, so a few such
    arrays hold them all and no step works per group.

    Parameters
    ----------
    group : ndarray
        ``(n,)`` each value row's group.
    values : ndarray
        ``(n, d)`` the values.

    Returns
    -------
    ndarray
        ``(G, d)`` each group's median per column.

    Examples
    --------
    >>> group_median(np.array([0, 0, 1, 0]), np.array([[1.0], [5.0], [2.0], [3.0]])).tolist()
    [[3.0], [2.0]]
    """
    n_groups = int(group.max()) + 1 if group.size else 0
    out = np.full((n_groups, values.shape[1]), math.nan)
    if not group.size:
        return out
    size = np.bincount(group, minlength=n_groups)
    order = sort_order(group)  # each group's rows together, in storage order
    sized = size[group[order]]
    narrow = np.int16 if n_groups and int(size.max()) < 2**15 else np.int64
    order = order[np.argsort(sized.astype(narrow), kind="stable")]  # 16 bits: a radix sort
    stop = 0
    for s, count in enumerate(np.bincount(size).tolist()):
        if not s or not count:
            continue
        rows = order[stop : stop + s * count].reshape(count, s)  # a group per row, in order
        stop += s * count
        v = values[rows]
        v.sort(axis=1, kind="stable")  # stable: equal values (0.0 and -0.0) stay as they came
        out[group[rows[:, 0]]] = (v[:, (s - 1) // 2] + v[:, s // 2]) / 2.0
    return out


def least(
    group: np.ndarray[Any, np.dtype[np.int64]],
    posterior: np.ndarray[Any, np.dtype[np.float64]],
    tie: np.ndarray[Any, np.dtype[np.bool_]],
    n_groups: int,
) -> tuple[np.ndarray[Any, np.dtype[np.float64]], np.ndarray[Any, np.dtype[np.bool_]]]:
    """Per group (a task's clusters): the lowest ``posterior`` (1 where it has none) and whether
    any member ties."""
    low = np.ones(n_groups)
    np.minimum.at(low, group, posterior)
    ties = np.zeros(n_groups, dtype=bool)
    np.logical_or.at(ties, group, tie)
    return low, ties
