"""Krippendorff's alpha in O(units × annotators) time and O(chunk) extra memory.

α = 1 − D_o / D_e with, over pairable units (m_u ≥ 2 ratings) and n pairable values,
    D_o = 1/n · Σ_u 1/(m_u − 1) · Σ_{i≠j in u} δ²(x_i, x_j)
    D_e = 1/(n(n − 1)) · Σ_{v,v'} n_v n_v' δ²(v, v')
(Krippendorff 2011). Nothing here builds the units × values × values coincidence tensor; the
per-unit sums Σ_{i≠j} δ² come from, by block of units:

- few values (V ≤ COUNTS_MAX): the unit's value counts c (one bincount per block), as cᵀΔc:
  m² − Σ_v c_v² for nominal; 2(m·Σ c t² − (Σ c t)²) for interval (t = the values) and ordinal
  (t = mid-ranks Σ_{g<v} n_g + n_v/2, whose interval δ² is Krippendorff's ordinal δ²); a V × V
  product for ratio and other distances. D_e is the same form applied to the totals n_v;
- interval on numeric ratings: Σ_{i≠j}(x_i − x_j)² = 2mΣx² − 2(Σx)² from per-unit sums of the
  floats themselves, with no encoding (so no sort of many distinct values);
- many values: ordinal as interval on looked-up mid-ranks; nominal, ratio and other distances by
  annotator pairs (A(A − 1)/2 passes), δ² looked up in a V × V table when that is small.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from . import distance as dist
from ._base import CHUNK_CELLS, Coded, FloatArray, Undefined, encode, row_blocks
from .categories import value_count_blocks

COUNTS_MAX = 16  # most values for which units are summarised by their value counts
TABLE_MAX = 2048  # largest value table for which δ² is precomputed as a V × V matrix

LevelArg = str | dist.Distance


@dataclass(frozen=True)
class UnitDisagreement:
    """Per-unit pieces of alpha; every array has shape ``(units,)``.

    ``observed``: Σ_{i≠j in u} δ²(x_i, x_j) over ordered pairs (0 for non-pairable units).
    ``n_ratings``: m_u, the number of ratings of the unit.
    ``expected``: Σ_{v,v'} n_v n_v' δ²(v, v') over all pairable values (a scalar).
    ``n_pairable``: n, the number of pairable values.
    ``n_values``: distinct values among the pairable ones.
    """

    observed: FloatArray
    n_ratings: npt.NDArray[np.int64]
    expected: float
    n_pairable: int
    n_values: int

    @property
    def pairable(self) -> npt.NDArray[np.bool_]:
        return self.n_ratings >= 2

    def alpha(self) -> float:
        """α from the pieces, or :class:`Undefined` with the reason."""
        if self.n_pairable == 0:
            return Undefined("no unit has two or more ratings")
        if self.n_values < 2 or self.expected <= 0:
            return Undefined(
                "only one value occurs among pairable ratings: no variation to agree on"
            )
        d_o = float(np.sum(self.observed / np.maximum(self.n_ratings - 1, 1)))  # 0 if unpairable
        return float(1.0 - (self.n_pairable - 1) * d_o / self.expected)

    def unit_scores(self) -> FloatArray:
        """1 − D_u / D_e per unit: 1 = no disagreement, 0 = chance level; NaN if not pairable."""
        out = np.full(self.n_ratings.shape, np.nan)
        if self.n_pairable < 2 or self.expected <= 0:
            return out
        p = self.pairable
        m = self.n_ratings[p].astype(np.float64)
        d_e = self.expected / (self.n_pairable * (self.n_pairable - 1))
        out[p] = 1.0 - self.observed[p] / (m * (m - 1)) / d_e
        return out


def krippendorff_alpha(ratings: npt.ArrayLike | Coded, level: LevelArg = "nominal") -> float:
    """Krippendorff's alpha of ``ratings`` ``(units, annotators)``; NaN ``None`` = missing.

    ``level``: ``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``, a named set distance
    (``"jaccard"``, ``"masi"``) or any :class:`~iaa_gate.metrics.distance.Distance`. Units with
    fewer than two ratings do not count. Returns :class:`~iaa_gate.metrics.Undefined` (NaN with a
    reason) when no unit is pairable or only one value occurs.

    >>> krippendorff_alpha([[1, 1], [2, 2], [1, 2]])
    0.4444444444444444
    """
    return unit_disagreement(ratings, level).alpha()


def unit_disagreement(
    ratings: npt.ArrayLike | Coded, level: LevelArg = "nominal"
) -> UnitDisagreement:
    """The per-unit pieces of alpha (see :class:`UnitDisagreement`)."""
    if level == "interval" and not isinstance(ratings, Coded):
        arr = np.asarray(ratings)
        if arr.ndim == 2 and arr.dtype.kind in "iubf":
            x = arr.astype(np.float64, copy=False)
            return _interval(x.shape, lambda s: x[s])
    coded = encode(ratings)
    codes = coded.codes
    few = coded.n_values <= COUNTS_MAX
    if level in ("ordinal", "interval"):
        counts = pairable_counts(coded)
        # Krippendorff's ordinal δ² is the interval δ² of mid-ranks Σ_{g<v} n_g + n_v/2
        mid_ranks = np.cumsum(counts) - counts / 2.0
        table = _numeric_values(coded) if level == "interval" else mid_ranks
        if few:
            return _from_counts(coded, _quadratic_form(dist.interval(table[:, None], table)))
        lookup = np.append(table, np.nan)  # code −1 reads NaN
        ud = _interval(codes.shape, lambda s: lookup[codes[s]])
        return replace(ud, n_values=int(np.count_nonzero(counts)))
    fn = dist.NAMED.get(level) if isinstance(level, str) else level
    if fn is None:
        raise ValueError(
            f"unknown level {level!r}: use {', '.join(dist.LEVELS)}, jaccard, masi or a callable"
        )
    if fn is dist.ratio:
        _numeric_values(coded)
    if few and fn is dist.nominal:
        return _from_counts(coded, _nominal_form)
    if few:
        return _from_counts(coded, _quadratic_form(_delta_table(coded.values, fn)))
    return _pairwise(coded, fn)


def _numeric_values(coded: Coded) -> FloatArray:
    if coded.values.dtype.kind not in "iuf":
        raise ValueError("interval and ratio levels need numeric ratings")
    return coded.values.astype(np.float64)


def _count_rows(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """True cells per row of ``mask`` ``(rows, A)``; einsum sums short rows much faster than
    ``sum(axis=1)``."""
    small = mask.shape[1] < 128  # an int8 sum cannot overflow
    return np.asarray(
        np.einsum("ij->i", mask.view(np.int8)) if small else mask.sum(axis=1), dtype=np.int64
    )


def n_ratings(codes: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """m_u: ratings per unit, ``(units,)``, from codes ``(units, annotators)`` (−1 missing)."""
    out = np.empty(codes.shape[0], dtype=np.int64)
    for s in row_blocks(*codes.shape):
        out[s] = _count_rows(codes[s] >= 0)
    return out


def pairable_counts(coded: Coded) -> FloatArray:
    """n_v: how often each value occurs in units with two or more ratings, ``(V,)``."""
    codes = coded.codes
    counts = np.zeros(coded.n_values + 1, dtype=np.int64)
    for s in row_blocks(*codes.shape):
        block = codes[s]
        pairable = block[_count_rows(block >= 0) >= 2]
        counts += np.bincount(pairable.ravel() + 1, minlength=coded.n_values + 1)
    return counts[1:].astype(np.float64)


Form = Callable[[FloatArray, FloatArray], FloatArray]


def _from_counts(coded: Coded, form: Form) -> UnitDisagreement:
    """Alpha's pieces from per-unit value counts.

    ``form(c, m)`` gives Σ_{i≠j} δ² = cᵀΔc for each row of counts ``c`` ``(rows, V)`` with row
    sums ``m`` ``(rows,)``; applied to the totals n_v it gives D_e's sum.
    """
    n_units, n_cols = coded.codes.shape
    observed = np.zeros(n_units)
    m_all = np.zeros(n_units, dtype=np.int64)
    totals = np.zeros(coded.n_values)
    for s, counts in value_count_blocks(coded):
        block = counts.astype(np.float64)  # the small products below go to BLAS
        c, m = block[:, 1:], n_cols - block[:, 0]
        m_all[s] = m
        observed[s] = form(c, m)
        totals += (m >= 2) @ c
    observed[m_all < 2] = 0.0  # (exactly 0 already unless δ²(v, v) ≠ 0)
    n = float(totals.sum())
    expected = float(form(totals[None, :], np.array([n]))[0])
    return UnitDisagreement(observed, m_all, expected, int(n), int(np.count_nonzero(totals)))


def _nominal_form(c: FloatArray, m: FloatArray) -> FloatArray:
    """Σ_{i≠j}[x_i ≠ x_j] = m² − Σ_v c_v²."""
    return np.asarray(m * m - np.einsum("rv,rv->r", c, c), dtype=np.float64)


def _quadratic_form(delta: FloatArray) -> Form:
    """cᵀΔc per row: O(V²) per unit, for any tabulated δ²."""

    def form(c: FloatArray, m: FloatArray) -> FloatArray:
        return np.asarray(np.einsum("rv,rv->r", c, c @ delta), dtype=np.float64)

    return form


def _interval(shape: tuple[int, ...], blocks: Callable[[slice], FloatArray]) -> UnitDisagreement:
    """Interval δ² on float blocks ``(rows, A)`` (NaN missing) of a ``(units, A)`` matrix.

    Per unit Σ_{i≠j}(x_i − x_j)² = 2m·Σ_i(x_i − x̄)², two passes (mean, then squares) so nothing
    cancels. Values are shifted by the least pairable value of their block, which makes NaN → 0
    a clip; the blocks' sums of squares are merged exactly (Chan, Golub & LeVeque 1979).
    """
    n_units, n_cols = shape[0], shape[1]
    m_all = np.empty(n_units, dtype=np.int64)
    observed = np.zeros(n_units)
    n, mean, m2 = 0, 0.0, 0.0
    for s in row_blocks(n_units, n_cols):
        x = blocks(s)
        m = n_cols - _count_rows(np.isnan(x))
        m_all[s] = m
        w = np.where(m >= 2, m, 0)  # pairable units' weights
        nb = int(w.sum())
        if nb == 0:
            continue
        # shift by the least pairable value: all pairable values equal ⇒ all shifted to exactly 0
        lone = nb < m.sum()  # some unit has a single rating
        where = (w > 0)[:, None] if lone else True
        lo = float(np.fmin.reduce(x, axis=None, where=where, initial=np.inf))
        d = np.subtract(x, lo)  # ≥ 0 in pairable rows
        unit_mean = np.einsum("ij->i", np.fmax(d, 0.0)) / np.maximum(m, 1)  # fmax: NaN → 0
        d -= unit_mean[:, None]
        d *= d
        within = np.einsum("ij->i", np.fmax(d, 0.0, out=d))  # Σ_i (x_i − x̄)²
        if lone:
            within[w == 0] = 0.0
        observed[s] = 2.0 * w * within
        block_mean = float(w @ unit_mean) / nb
        dev = unit_mean - block_mean
        m2b = float(within.sum() + w @ (dev * dev))
        delta = lo + block_mean - mean
        mean += delta * (nb / (n + nb))  # exact when every block has the same mean
        m2 += m2b + delta * delta * n * nb / (n + nb)
        n += nb
    # only whether values vary matters here; exact zeros when every pairable value is the same
    n_values = 0 if n == 0 else (1 if m2 == 0.0 else 2)
    return UnitDisagreement(observed, m_all, 2.0 * n * m2, n, n_values)


def _pairwise(coded: Coded, fn: Callable[..., Any]) -> UnitDisagreement:
    """Any δ² by annotator pairs; δ² is tabulated over values (plus a zero row for "missing")."""
    codes = coded.codes
    n_units, n_cols = codes.shape
    counts = pairable_counts(coded)
    m_all = n_ratings(codes)
    values = coded.values
    n_v = coded.n_values
    table: FloatArray | None = None
    if n_v <= TABLE_MAX:
        table = np.zeros((n_v + 1, n_v + 1))
        table[:n_v, :n_v] = _delta_table(values, fn)
    observed = np.zeros(n_units)
    for s in row_blocks(n_units, n_cols):
        t = codes[s].T.astype(np.int64)  # (A, rows): one contiguous row per annotator
        t[t < 0] = n_v
        acc = observed[s]
        for i in range(n_cols - 1):
            for j in range(i + 1, n_cols):
                if table is not None:
                    acc += table.ravel().take(t[i] * (n_v + 1) + t[j])
                else:
                    both = (t[i] < n_v) & (t[j] < n_v)
                    acc[both] += np.asarray(fn(values[t[i, both]], values[t[j, both]]), dtype=float)
        acc *= 2.0
    observed[m_all < 2] = 0.0
    expected = _expected(values, counts, fn, None if table is None else table[:n_v, :n_v])
    return UnitDisagreement(
        observed, m_all, expected, int(counts.sum()), int(np.count_nonzero(counts))
    )


def _delta_table(values: npt.NDArray[Any], fn: Callable[..., Any]) -> FloatArray:
    return np.asarray(fn(values[:, None], values[None, :]), dtype=np.float64)


def _expected(
    values: npt.NDArray[Any], counts: FloatArray, fn: Callable[..., Any], table: FloatArray | None
) -> float:
    """Σ_{v,v'} n_v n_v' δ²(v, v'), in row blocks of the value table when it is large."""
    if table is not None:
        return float(counts @ table @ counts)
    present = counts > 0
    vals, cnt = values[present], counts[present]
    total = 0.0
    step = max(1, CHUNK_CELLS // max(len(vals), 1))
    for start in range(0, len(vals), step):
        block = fn(vals[start : start + step, None], vals[None, :])
        total += float(cnt[start : start + step] @ np.asarray(block, dtype=np.float64) @ cnt)
    return total
