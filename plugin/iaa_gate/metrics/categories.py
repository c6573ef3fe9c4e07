"""Agreement per category, the coincidence matrix and per-unit value counts.

Notation (``../shared/seeds/004``): c_jk = annotators who gave category j to unit k, c_k =
ratings of unit k. Units with fewer than two ratings hold no annotator pair and do not count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ._base import (
    CHUNK_CELLS,
    CodeArray,
    Coded,
    FloatArray,
    IntArray,
    Undefined,
    encode,
    rated_cells,
    row_blocks,
)

Counts = npt.NDArray[np.int64]


def value_count_blocks(coded: Coded) -> Iterator[tuple[slice, Counts]]:
    """``(V + 1, rows)`` blocks, value-major: per unit its missing ratings, then each value's count.

    One bincount per block of codes ``(rows, A)`` over (code + 1)·rows + u: O(rows × (A + V))
    time and memory.
    """
    codes = coded.codes
    width = coded.n_values + 1
    for s in row_blocks(codes.shape[0], codes.shape[1] + width, CHUNK_CELLS):
        rows = s.stop - s.start
        idx = np.multiply(codes[s], rows, dtype=np.int32)  # 4-byte indices: a block is small
        idx += np.arange(rows, 2 * rows, dtype=np.int32)[:, None]
        yield s, np.bincount(idx.ravel(), minlength=width * rows).reshape(width, rows)


@dataclass(frozen=True)
class UnitCounts:
    """How many ratings each category got in each rated unit, kept sparse: only the nonzero
    cells of the ``(n, K)`` table, so the cost is O(ratings), never O(units × K) (a field with
    10,000 labels over 100,000 units would need a 7.5 GiB dense table).

    ``unit``, ``category``, ``count``: ``(cells,)`` one nonzero cell each (``unit`` in
    ``0..n-1``, the rated units in their original order); ``r``: ``(n,)`` ratings per unit;
    ``k``: the number of categories ``K``.
    """

    unit: npt.NDArray[np.intp]
    category: npt.NDArray[np.intp]
    count: FloatArray
    r: FloatArray
    k: int

    @property
    def n(self) -> int:
        return len(self.r)

    def pair_sums(self) -> FloatArray:
        """``(n,)`` ``Σ_k r_ik (r_ik − 1)``: the ordered pairs of agreeing ratings per unit."""
        c = self.count
        return np.bincount(self.unit, weights=c * (c - 1.0), minlength=self.n).astype(np.float64)

    def dot(self, v: FloatArray) -> FloatArray:
        """``(n,)`` ``Σ_k r_ik v_k`` for a ``(K,)`` vector ``v``."""
        out = np.bincount(self.unit, weights=self.count * v[self.category], minlength=self.n)
        return out.astype(np.float64)

    def share_means(self) -> FloatArray:
        """``(K,)`` ``π_k = mean_i r_ik / r_i`` (Gwet's classification probabilities)."""
        shares = self.count / self.r[self.unit]
        return np.bincount(self.category, weights=shares, minlength=self.k) / self.n

    def dense(self) -> FloatArray:
        """The ``(n, K)`` table itself (for weighted agreement; O(n × K) memory)."""
        out = np.zeros((self.n, self.k))
        out[self.unit, self.category] = self.count
        return out


DENSE_CELLS = 1 << 24
"""Up to this many units × categories (a table of 128 MiB at most), the counts are tallied in a
dense table first (one bincount, no sort); beyond, by sorting the ratings' (unit, category)
keys."""


def category_counts(
    codes: CodeArray, k: int, rated: tuple[IntArray, IntArray] | None = None
) -> UnitCounts:
    """The ratings per category of each unit with at least one rating (missing codes ignored),
    from codes ``(units, annotators)``; see :class:`UnitCounts`. O(units × K) time while that is
    at most :data:`DENSE_CELLS`, else O(R log R) for R ratings; memory O(R) beyond. ``rated``:
    the unit and annotator of each rating, when known (:func:`._base.rated_cells`)."""
    width = max(k, 1)
    unit, ann = np.nonzero(codes >= 0) if rated is None else rated
    keys = unit.astype(np.int64) * width + codes[unit, ann]
    if codes.shape[0] * width <= DENSE_CELLS:
        table = np.bincount(keys, minlength=codes.shape[0] * width)
        cells = np.flatnonzero(table)
        count = table[cells]
    else:
        cells, count = np.unique(keys, return_counts=True)
    unit = cells // width
    new = np.ones(len(unit), dtype=bool)
    new[1:] = unit[1:] != unit[:-1]
    renumbered = np.cumsum(new) - 1
    n = int(new.sum())
    r = np.bincount(renumbered, weights=count, minlength=n).astype(np.float64)
    return UnitCounts(
        renumbered.astype(np.intp), (cells % width).astype(np.intp), count.astype(float), r, k
    )


def counts_of(coded: Coded, k: int | None = None) -> UnitCounts:
    """:func:`category_counts` of ``coded`` over ``k`` categories (default: its values), made
    once per ``coded`` and kept in its ``memo``: the kappa family, Gwet's coefficients and the
    per-category agreement of a field share one tally."""
    width = coded.n_values if k is None else k
    counts: UnitCounts | None = coded.memo.get(("category_counts", width))
    if counts is None:
        rated = rated_cells(coded)
        counts = coded.memo["category_counts", width] = category_counts(coded.codes, width, rated)
    return counts


def _per_category(
    ratings: npt.ArrayLike | Coded,
    terms: Callable[[FloatArray, FloatArray], tuple[FloatArray, FloatArray]],
) -> dict[Any, float]:
    """Σ_k num(c_jk, c_k) / Σ_k den(c_jk, c_k) per category j, over units with c_k ≥ 2; both
    terms are 0 where c_jk = 0, so only the nonzero cells of :func:`category_counts` are read:
    O(ratings), whatever the number of categories."""
    coded = encode(ratings)
    counts = counts_of(coded)
    keep = counts.r[counts.unit] >= 2
    c, ck = counts.count[keep], counts.r[counts.unit[keep]]
    a, p = terms(c, ck)
    num = np.bincount(counts.category[keep], weights=a, minlength=coded.n_values)
    den = np.bincount(counts.category[keep], weights=p, minlength=coded.n_values)
    return category_rates(coded.values, num, den)


def category_rates(
    values: npt.NDArray[Any], num: npt.NDArray[Any], den: npt.NDArray[Any]
) -> dict[Any, float]:
    """``{value: num / den}`` per category in ``values`` order; Undefined where ``den`` is 0.

    Parameters
    ----------
    values : ndarray
        The categories, in code order.
    num, den : ndarray
        Each category's numerator and denominator, over units with two or more ratings.

    Returns
    -------
    dict
        ``{category: rate}``, keyed by the values as given.

    Examples
    --------
    >>> category_rates(np.array(["a", "b"]), np.array([1, 0]), np.array([2, 0]))["a"]
    0.5
    """
    return {
        value: float(num[j] / den[j])
        if den[j] > 0
        else Undefined("the category never occurs in a unit with two or more ratings")
        for j, value in enumerate(values.tolist())
    }


def category_agreement(ratings: npt.ArrayLike | Coded) -> dict[Any, float]:
    """Agreements over potential agreements per category, counting unordered annotator pairs.

    R_j = A_j / P_j with A_j = Σ_k C(c_jk, 2) and P_j = Σ_k [c_jk·c_k − C(c_jk + 1, 2)]: the pairs
    of annotators who both gave j, over the pairs of whom at least one gave j (seed 004; for two
    annotators a / (a + b + c)). ``ratings``: ``(units, annotators)``. Returns ``{category: rate}``
    in category order; a category never given in a pairable unit is :class:`Undefined`.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).

    Returns
    -------
    dict
        ``{category: rate}`` in category order, keyed by the values as given (integers stay
        integers, as :func:`iaa_gate.category_agreement` keys them); Undefined for a category never
        given in a pairable unit.

    Examples
    --------
    >>> category_agreement([[0, 0], [0, 1], [1, 1]])
    {0: 0.5, 1: 0.5}
    """
    return _per_category(ratings, lambda c, ck: (c * (c - 1) / 2, c * ck - c * (c + 1) / 2))


def specific_agreement(ratings: npt.ArrayLike | Coded) -> dict[Any, float]:
    """Uebersax's proportion of specific agreement per category, counting ordered pairs.

    PS_j = Σ_k c_jk(c_jk − 1) / Σ_k c_jk(c_k − 1); for two annotators and a binary rating it is the
    positive (negative) agreement 2a / (2a + b + c). ``ratings``: ``(units, annotators)``.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).

    Returns
    -------
    dict
        ``{category: rate}`` in category order, keyed by the values as given; Undefined for a
        category never given in a pairable unit.

    Examples
    --------
    >>> specific_agreement([[0, 0], [0, 1], [1, 1]])
    {0: 0.6666666666666666, 1: 0.6666666666666666}
    """
    return _per_category(ratings, lambda c, ck: (c * (c - 1), c * (ck - 1)))


def coincidence_matrix(ratings: npt.ArrayLike | Coded) -> tuple[FloatArray, npt.NDArray[Any]]:
    """Krippendorff's coincidence matrix ``(V, V)`` and its value labels ``(V,)``.

    o_vv' = Σ_u n_uv (n_uv' − [v = v']) / (m_u − 1) over pairable units: how often value v was
    paired with v' within a unit. Off-diagonal mass shows which labels are confused. One pass of
    per-unit counts; O(units × V²) time, once per :class:`Coded` (kept in its ``memo``).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).

    Returns
    -------
    tuple of ndarray
        ``(V, V)`` coincidences (the caller's copy) and ``(V,)`` their values.

    Examples
    --------
    >>> o, values = coincidence_matrix([[1, 1], [1, 2]])
    >>> o.tolist(), values.tolist()
    ([[2.0, 1.0], [1.0, 0.0]], [1, 2])
    """
    coded = encode(ratings)
    n_cols = coded.codes.shape[1]
    out: FloatArray | None = coded.memo.get("coincidences")
    if out is None:  # alpha, alpha without each annotator and the report's read it
        out = coded.memo["coincidences"] = np.zeros((coded.n_values, coded.n_values))
        for _, counts in value_count_blocks(coded):
            out += coincidences(counts[1:].astype(np.float64), n_cols - counts[0])
    return out.copy(), coded.values


def coincidences(c: FloatArray, m: npt.NDArray[np.int64]) -> FloatArray:
    """The coincidences ``(V, V)`` of units with value counts ``c`` ``(V, units)`` and ``m``
    ``(units,)`` ratings: Σ_u (n_u n_uᵀ − diag n_u) / (m_u − 1) over the units with m_u ≥ 2."""
    mf = m.astype(np.float64)
    weighted = c * np.divide(1.0, mf - 1.0, out=np.zeros_like(mf), where=mf >= 2)
    out: FloatArray = weighted @ c.T
    out.flat[:: c.shape[0] + 1] -= weighted.sum(axis=1)
    return out
