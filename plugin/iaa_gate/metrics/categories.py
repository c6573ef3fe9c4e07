"""Agreement per category, the coincidence matrix and per-unit value counts.

Notation (``../shared/seeds/004``): c_jk = annotators who gave category j to unit k, c_k =
ratings of unit k. Units with fewer than two ratings hold no annotator pair and do not count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ._base import CHUNK_CELLS, Coded, FloatArray, Undefined, encode, row_blocks

Counts = npt.NDArray[np.int64]


def unit_value_counts(coded: Coded) -> Iterator[tuple[slice, Counts]]:
    """Blocks of c_jk: ``(rows, V)`` counts of each value per unit, for row slices of the units."""
    for s, counts in value_count_blocks(coded):
        yield s, counts[1:].T


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


def _per_category(
    ratings: npt.ArrayLike | Coded,
    terms: Callable[[FloatArray, FloatArray], tuple[FloatArray, FloatArray]],
) -> dict[Any, float]:
    """Σ_k num(c_jk, c_k) / Σ_k den(c_jk, c_k) per category j, over units with c_k ≥ 2."""
    coded = encode(ratings)
    num = np.zeros(coded.n_values)
    den = np.zeros(coded.n_values)
    for _, counts in unit_value_counts(coded):
        ck = counts.sum(axis=1)
        c = counts[ck >= 2].astype(np.float64)
        a, p = terms(c, ck[ck >= 2, None].astype(np.float64))
        num += a.sum(axis=0)
        den += p.sum(axis=0)
    return {
        value: float(num[j] / den[j])
        if den[j] > 0
        else Undefined("the category never occurs in a unit with two or more ratings")
        for j, value in enumerate(coded.values.tolist())
    }


def category_agreement(ratings: npt.ArrayLike | Coded) -> dict[Any, float]:
    """Agreements over potential agreements per category, counting unordered annotator pairs.

    R_j = A_j / P_j with A_j = Σ_k C(c_jk, 2) and P_j = Σ_k [c_jk·c_k − C(c_jk + 1, 2)]: the pairs
    of annotators who both gave j, over the pairs of whom at least one gave j (seed 004; for two
    annotators a / (a + b + c)). ``ratings``: ``(units, annotators)``. Returns ``{category: rate}``
    in category order; a category never given in a pairable unit is :class:`Undefined`.

    >>> category_agreement([[0, 0], [0, 1], [1, 1]])
    {0.0: 0.5, 1.0: 0.5}
    """
    return _per_category(ratings, lambda c, ck: (c * (c - 1) / 2, c * ck - c * (c + 1) / 2))


def specific_agreement(ratings: npt.ArrayLike | Coded) -> dict[Any, float]:
    """Uebersax's proportion of specific agreement per category, counting ordered pairs.

    PS_j = Σ_k c_jk(c_jk − 1) / Σ_k c_jk(c_k − 1); for two annotators and a binary rating it is the
    positive (negative) agreement 2a / (2a + b + c). ``ratings``: ``(units, annotators)``.

    >>> specific_agreement([[0, 0], [0, 1], [1, 1]])
    {0.0: 0.6666666666666666, 1.0: 0.6666666666666666}
    """
    return _per_category(ratings, lambda c, ck: (c * (c - 1), c * (ck - 1)))


def coincidence_matrix(ratings: npt.ArrayLike | Coded) -> tuple[FloatArray, npt.NDArray[Any]]:
    """Krippendorff's coincidence matrix ``(V, V)`` and its value labels ``(V,)``.

    o_vv' = Σ_u n_uv (n_uv' − [v = v']) / (m_u − 1) over pairable units: how often value v was
    paired with v' within a unit. Off-diagonal mass shows which labels are confused. One pass of
    per-unit counts; O(units × V²) time.
    """
    coded = encode(ratings)
    n_cols = coded.codes.shape[1]
    out = np.zeros((coded.n_values, coded.n_values))
    for _, counts in value_count_blocks(coded):
        block = counts.astype(np.float64)
        c, m = block[1:], n_cols - block[0]
        weighted = c * np.divide(1.0, m - 1.0, out=np.zeros_like(m), where=m >= 2)
        out += weighted @ c.T
        out.flat[:: coded.n_values + 1] -= weighted.sum(axis=1)
    return out, coded.values
