"""Agreement on rankings: Kendall's coefficient of concordance W (with the tie correction) and
the mean pairwise Kendall tau-b, on one task's ``(annotators, items)`` ranks.

Ranks are numbers where smaller is better; tied items share a rank (a bucket of a partial
ranking). They are turned into mid-ranks per annotator before W, as Kendall and Babington Smith
(1939) and Legendre (2005) do: ``W = 12 S / (m² (n³ − n) − m Σ T)``, ``S`` the sum of squared
deviations of the items' rank sums from their mean, ``T = Σ (t³ − t)`` over one annotator's
groups of ``t`` tied items.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ._base import Undefined

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def kendall_w(ranks: FloatArray) -> float:
    """Kendall's W of ``ranks`` ``(m annotators, n items)`` with the tie correction (0–1);
    :class:`Undefined` with fewer than 2 annotators or items, or when every annotator ties
    every item."""
    r = np.asarray(ranks, dtype=np.float64)
    m, n = r.shape
    if m < 2 or n < 2:
        return Undefined(f"needs 2 or more annotators and items (has {m} and {n})")
    mid = np.vstack([mid_ranks(row) for row in r])
    sums = mid.sum(axis=0)
    s = float(((sums - sums.mean()) ** 2).sum())
    ties = 0.0
    for row in r:
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts.astype(np.float64) ** 3 - counts).sum())
    denominator = m * m * (n**3 - n) - m * ties
    if denominator <= 0:
        return Undefined("every annotator put every item in one tie")
    return 12.0 * s / denominator


def mean_tau_b(ranks: FloatArray) -> float:
    """The mean Kendall tau-b (−1–1) over pairs of annotators of ``ranks`` ``(m, n)``;
    pairs for which tau-b is undefined (one of them ties every item) are left out."""
    r = np.asarray(ranks, dtype=np.float64)
    m, n = r.shape
    if m < 2 or n < 2:
        return Undefined(f"needs 2 or more annotators and items (has {m} and {n})")
    taus = [tau_b(r[a], r[b]) for a, b in itertools.combinations(range(m), 2)]
    kept = [t for t in taus if not math.isnan(t)]
    if not kept:
        return Undefined("every pair has an annotator who tied every item")
    return float(np.mean(kept))


def mid_ranks(row: FloatArray) -> FloatArray:
    """``(n,)`` ranks 1…n of ``row`` (smaller first), tied values sharing their mean rank."""
    _, inverse, counts = np.unique(row, return_inverse=True, return_counts=True)
    before = np.cumsum(counts) - counts
    return np.asarray((before + (counts + 1) / 2.0)[inverse], dtype=np.float64)


def tau_b(x: FloatArray, y: FloatArray) -> float:
    """Kendall's tau-b of two ``(n,)`` rankings: ``(P − Q) / √((n₀ − n₁)(n₀ − n₂))`` over
    the ``n₀`` item pairs, ``n₁``/``n₂`` the pairs tied in ``x``/``y``; NaN when either ties
    every pair."""
    sx = np.sign(np.subtract.outer(x, x))
    sy = np.sign(np.subtract.outer(y, y))
    upper = np.triu_indices(len(x), k=1)
    sx, sy = sx[upper], sy[upper]
    untied = float(np.count_nonzero(sx)) * float(np.count_nonzero(sy))
    if untied == 0:
        return math.nan
    return float((sx * sy).sum() / math.sqrt(untied))
