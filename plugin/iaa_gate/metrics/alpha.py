"""Krippendorff's alpha in O(units × annotators) time and O(chunk × annotators) extra memory.

α = 1 − D_o / D_e with, over pairable units (m_u ≥ 2 ratings) and n pairable values,
    D_o = 1/n · Σ_u 1/(m_u − 1) · Σ_{i≠j in u} δ²(x_i, x_j)
    D_e = 1/(n(n − 1)) · Σ_{v,v'} n_v n_v' δ²(v, v')
(Krippendorff 2011). Nothing here builds the units × values × values coincidence tensor:

- interval: Σ_{i≠j}(x_i − x_j)² = 2mΣx² − 2(Σx)², so per-unit sums suffice (values centred on
  their mean first, so the subtraction does not cancel digits);
- ordinal: Krippendorff's ordinal δ² is the interval δ² of mid-ranks
  p_v = Σ_{g<v} n_g + n_v/2, so it is interval on a lookup of the codes;
- nominal: Σ_{i≠j}[x_i ≠ x_j] = m² − Σ_v n_uv², from per-unit value counts;
- ratio and custom distances: annotator pairs (A(A − 1)/2 passes over units), with δ² looked up
  in a values × values table when that is small.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from . import distance as dist
from ._base import Coded, FloatArray, Undefined, encode, row_blocks

CHUNK_CELLS = 1 << 20  # cells per block: bounds the temporaries at a few MiB
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
        m = self.n_ratings[self.pairable]
        d_o = float(np.sum(self.observed[self.pairable] / (m - 1)))
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
            return _interval(x.shape, lambda s: np.ascontiguousarray(x[s].T))
    coded = encode(ratings)
    codes = coded.codes
    if level == "nominal":
        return _nominal(coded)
    if level in ("ordinal", "interval"):
        counts = pairable_counts(coded)
        # Krippendorff's ordinal δ² is the interval δ² of mid-ranks Σ_{g<v} n_g + n_v/2
        mid_ranks = np.cumsum(counts) - counts / 2.0
        table = _numeric_values(coded) if level == "interval" else mid_ranks
        lookup = np.append(table, np.nan)  # code −1 reads NaN
        ud = _interval(codes.shape, lambda s: lookup[codes[s].T])
        return replace(ud, n_values=int(np.count_nonzero(counts)))
    fn = dist.NAMED.get(level) if isinstance(level, str) else level
    if fn is None:
        raise ValueError(
            f"unknown level {level!r}: use {', '.join(dist.LEVELS)}, jaccard, masi or a callable"
        )
    if fn is dist.ratio:
        _numeric_values(coded)
    return _pairwise(coded, fn)


def _numeric_values(coded: Coded) -> FloatArray:
    if coded.values.dtype.kind not in "iuf":
        raise ValueError("interval and ratio levels need numeric ratings")
    return coded.values.astype(np.float64)


def n_ratings(codes: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """m_u: ratings per unit, ``(units,)``, from codes ``(units, annotators)`` (−1 missing)."""
    out = np.empty(codes.shape[0], dtype=np.int64)
    for s in row_blocks(*codes.shape):
        out[s] = np.count_nonzero(codes[s] >= 0, axis=1)
    return out


def pairable_counts(coded: Coded) -> FloatArray:
    """n_v: how often each value occurs in units with two or more ratings, ``(V,)``."""
    codes = coded.codes
    counts = np.zeros(coded.n_values + 1, dtype=np.int64)
    for s in row_blocks(*codes.shape):
        block = codes[s]
        rows = np.count_nonzero(block >= 0, axis=1) >= 2
        counts += np.bincount(block[rows].ravel() + 1, minlength=coded.n_values + 1)
    return counts[1:].astype(np.float64)


def _interval(shape: tuple[int, ...], blocks: Callable[[slice], FloatArray]) -> UnitDisagreement:
    """Interval δ² on float blocks ``(annotators, rows)`` (NaN missing) of a ``(units, A)`` matrix.

    Each block is centred on its own mean (the per-unit terms do not depend on the centre) and
    the blocks' sums of squares are merged exactly (Chan, Golub & LeVeque 1979).
    """
    n_units = shape[0]
    m_all = np.empty(n_units, dtype=np.int64)
    observed = np.zeros(n_units)
    n, mean, m2 = 0, 0.0, 0.0
    for s in row_blocks(*shape):
        x = blocks(s)
        ok = ~np.isnan(x)
        m = ok.sum(axis=0)
        m_all[s] = m
        pair = m >= 2
        nb = int(m[pair].sum())
        if nb == 0:
            continue
        centre = float(x.flat[np.argmax(ok)])  # any rated value: exact zeros where values agree
        d = np.nan_to_num(x - centre, copy=False, nan=0.0)
        s1 = d.sum(axis=0)
        s2 = np.einsum("ij,ij->j", d, d)
        # m = 1 gives exactly 0; rounding can leave −1e-16 where values agree
        observed[s] = np.maximum(2.0 * m * s2 - 2.0 * s1 * s1, 0.0)
        t1, t2 = float(s1[pair].sum()), float(s2[pair].sum())
        m2b = max(t2 - t1 * t1 / nb, 0.0)
        delta = centre + t1 / nb - mean
        mean += delta * (nb / (n + nb))  # exact when every block has the same mean
        m2 += m2b + delta * delta * n * nb / (n + nb)
        n += nb
    # only whether values vary matters here; exact zeros when every pairable value is the same
    n_values = 0 if n == 0 else (1 if m2 == 0.0 else 2)
    return UnitDisagreement(observed, m_all, 2.0 * n * m2, n, n_values)


def _transposed(codes: npt.NDArray[Any], s: slice) -> npt.NDArray[Any]:
    return np.ascontiguousarray(codes[s].T)


def _nominal(coded: Coded) -> UnitDisagreement:
    """Σ_{i≠j}[x_i ≠ x_j] = m(m − 1) − 2·#{i<j: x_i = x_j}, by annotator pairs on small codes."""
    codes = coded.codes
    n_units, n_cols = codes.shape
    observed = np.zeros(n_units)
    m_all = n_ratings(codes)
    for s in row_blocks(n_units, n_cols):
        t = _transposed(codes, s)
        same = np.zeros(t.shape[1], dtype=np.int64)
        for i in range(n_cols - 1):
            ci = t[i]
            rated = ci >= 0
            for j in range(i + 1, n_cols):
                same += (ci == t[j]) & rated
        m = m_all[s]
        observed[s] = np.where(m >= 2, m * (m - 1) - 2 * same, 0)
    counts = pairable_counts(coded)
    n = int(counts.sum())
    expected = float(n * n - counts @ counts)
    return UnitDisagreement(observed, m_all, expected, n, int(np.count_nonzero(counts)))


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
        t = _transposed(codes, s).astype(np.int64)
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
