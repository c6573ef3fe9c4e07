"""Krippendorff's alpha in O(units × annotators) time and O(chunk) extra memory.

α = 1 − D_o / D_e with, over pairable units (m_u ≥ 2 ratings) and n pairable values,
    D_o = 1/n · Σ_u 1/(m_u − 1) · Σ_{i≠j in u} δ²(x_i, x_j)
    D_e = 1/(n(n − 1)) · Σ_{v,v'} n_v n_v' δ²(v, v')
(Krippendorff 2011). Nothing here builds a units × values × values tensor. By block of units:

- few values (V ≤ COUNTS_MAX): per-unit value counts c ``(V, rows)``, one bincount per block.
  Alpha alone needs only the coincidence matrix o = Σ_u (c cᵀ − diag c)/(m − 1) ``(V, V)``:
  D_o ∝ Σ o·δ² and n_v = Σ_v' o_vv' (so ordinal's mid-ranks come free). Per unit,
  Σ_{i≠j} δ² = cᵀΔc (m² − Σ c² for nominal).
- interval on numeric ratings: Σ_{i≠j}(x_i − x_j)² = 2mΣx² − 2(Σx)² from per-unit sums of the
  floats themselves, with no encoding (so no sort of many distinct values);
- many values: ordinal as interval on looked-up mid-ranks Σ_{g<v} n_g + n_v/2 (Krippendorff's
  ordinal δ² is their interval δ²); nominal by counting agreeing annotator pairs (A(A − 1)/2
  comparisons of integer codes); ratio and other distances by annotator pairs, δ² looked up in
  a V × V table when that is small.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import UsageError
from . import distance as dist
from . import sampled
from ._base import (
    CHUNK_CELLS,
    Coded,
    FloatArray,
    Undefined,
    encode,
    rated_cells,
    ratings_array,
    row_blocks,
)
from .categories import coincidence_matrix, coincidences, value_count_blocks

COUNTS_MAX = 16  # most values for which units are summarised by their value counts
TABLE_MAX = 2048  # largest value table for which δ² is precomputed as a V × V matrix
PAIR_CELLS = 1 << 18  # cells per block of the annotator-pairs passes (A rows stay in cache)

LevelArg = str | dist.Distance


@dataclass(frozen=True)
class UnitDisagreement:
    """Per-unit pieces of alpha; every array has shape ``(units,)``.

    Attributes
    ----------
    observed : ndarray
        Σ_{i≠j in u} δ²(x_i, x_j) over ordered pairs (0 for non-pairable units).
    n_ratings : ndarray
        m_u, the number of ratings of the unit.
    expected : float
        Σ_{v,v'} n_v n_v' δ²(v, v') over all pairable values.
    n_pairable : int
        n, the number of pairable values.
    n_values : int
        Distinct values among the pairable ones.

    Examples
    --------
    >>> from iaa_gate.metrics import alpha
    >>> d = unit_disagreement([[1, 1], [2, 2], [1, 2]])
    >>> d.observed.tolist(), round(d.alpha(), 4)
    ([0.0, 0.0, 2.0], 0.4444)
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
        if self.n_pairable == 0 or self.n_values < 2 or self.expected <= 0:
            return alpha_from_sums(0.0, self.expected, self.n_pairable, self.n_values)
        d_o = float(np.sum(self.observed / np.maximum(self.n_ratings - 1, 1)))  # 0 if unpairable
        return alpha_from_sums(d_o, self.expected, self.n_pairable, self.n_values)

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


def alpha_from_sums(d_o: float, expected: float, n: int, n_values: int) -> float:
    """1 − (n − 1)·Σ_u D_u/(m_u − 1) / Σ_{v,v'} n_v n_v' δ², or :class:`Undefined`."""
    if n == 0:
        return Undefined("no unit has two or more ratings")
    if n_values < 2 or expected <= 0:
        return Undefined("only one value occurs among pairable ratings: no variation to agree on")
    return float(1.0 - (n - 1) * d_o / expected)


def krippendorff_alpha(ratings: npt.ArrayLike | Coded, level: LevelArg = "nominal") -> float:
    """Krippendorff's alpha of ``ratings`` ``(units, annotators)``; NaN ``None`` = missing.

    ``level``: ``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``, a named set distance
    (``"jaccard"``, ``"masi"``) or any :class:`~iaa_gate.metrics.distance.Distance`. Units with
    fewer than two ratings do not count. Returns :class:`~iaa_gate.metrics.Undefined` (NaN with a
    reason) when no unit is pairable or only one value occurs.

    With few distinct values this is the textbook form: one pass builds the coincidence matrix
    o ``(V, V)``, then D_o ∝ Σ o·δ² and the pairable counts are n_v = Σ_v' o_vv'.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    level : str or Distance
        ``nominal``, ``ordinal``, ``interval``, ``ratio``, a named distance (``jaccard``, ``masi``,
        ``hierarchical``, ``levenshtein``) or a callable δ².

    Returns
    -------
    float
        Alpha, at most 1; Undefined (NaN with its ``reason``) when no unit is pairable or one value
        occurs.

    Examples
    --------
    >>> krippendorff_alpha([[1, 1], [2, 2], [1, 2]])
    0.4444444444444444
    """
    check_level(level)
    if _float_interval(ratings, level) is None:
        coded = encode(ratings)
        if coded.n_values <= COUNTS_MAX:
            return _alpha_of_coincidences(coincidence_matrix(coded)[0], coded, level)
        ratings = coded
    return unit_disagreement(ratings, level).alpha()


def _alpha_of_coincidences(o: FloatArray, coded: Coded, level: LevelArg) -> float:
    """Alpha from the coincidence matrix ``o`` ``(V, V)`` of ``coded``'s values."""
    n_v = np.rint(o.sum(axis=1))  # integers up to rounding
    delta = _delta(coded, level, n_v)
    d_o, d_e = float(np.sum(o * delta)), float(n_v @ delta @ n_v)
    return alpha_from_sums(d_o, d_e, int(n_v.sum()), int(np.count_nonzero(n_v)))


def alphas_without(ratings: npt.ArrayLike | Coded, level: LevelArg = "nominal") -> FloatArray:
    """``(annotators,)`` alpha of ``ratings`` ``(units, annotators)`` with each annotator left
    out in turn (NaN: undefined), as :func:`krippendorff_alpha` of the other columns gives it.

    With few values (at most :data:`COUNTS_MAX`), from one coincidence matrix: annotator a's
    alpha takes out the contribution of the units a rated and puts back those units without a,
    for all annotators at once by the units' rating patterns (:func:`_without_by_patterns`),
    else annotator by annotator: O(ratings × V) in all, not O(annotators × units × V)."""
    coded = encode(ratings)
    codes = coded.codes
    if _float_interval(coded, level) is not None or coded.n_values > COUNTS_MAX:
        return np.array(
            [krippendorff_alpha(Coded(np.delete(codes, a, axis=1), coded.values), level)
             for a in range(codes.shape[1])],
            dtype=np.float64,
        )  # fmt: skip
    o, _ = coincidence_matrix(coded)
    grouped = _without_by_patterns(coded, o)
    if grouped is not None:
        return np.array([_alpha_of_coincidences(w, coded, level) for w in grouped])
    out = np.empty(codes.shape[1])
    for a in range(codes.shape[1]):
        mine = Coded(codes[codes[:, a] >= 0], coded.values)  # the only units that change
        change = np.zeros_like(o)
        for s, counts in value_count_blocks(mine):
            c = counts[1:].astype(np.float64)  # (V, rows) the units' value counts
            m = codes.shape[1] - counts[0]  # their ratings
            change -= coincidences(c, m)
            c[mine.codes[s, a], np.arange(c.shape[1])] -= 1.0  # the same units without a
            change += coincidences(c, m - 1)
        out[a] = _alpha_of_coincidences(o + change, coded, level)
    return out


PATTERN_CELLS = 1 << 20
"""Most cells of the tables of :func:`_without_by_patterns` (patterns × V × V², patterns × V
× annotators) for which it takes every annotator at once."""


def _without_by_patterns(coded: Coded, o: FloatArray) -> FloatArray | None:
    """``(annotators, V, V)``: the coincidences ``o`` of ``coded`` without each annotator in
    turn, from the units' rating patterns (their value counts): how a unit's coincidences
    change when a rater of value v leaves depends only on its pattern and v, so annotator a's
    change is a's count of each (pattern, v) times that change, one product for all. None (go
    annotator by annotator) without units, when a pattern's key would overflow, or when the
    tables are too large (:data:`PATTERN_CELLS`: many ratings a unit over many values). Exact
    in floats where every unit has 2 or 3 ratings (weights 1, ½, 0), as those sums are."""
    codes = coded.codes
    n_cols, n_v = codes.shape[1], coded.n_values
    if not codes.size or n_v * math.log2(n_cols + 1) >= 62:
        return None
    c = np.concatenate([counts[1:] for _, counts in value_count_blocks(coded)], axis=1)
    key = (n_cols + 1) ** np.arange(n_v, dtype=np.int64) @ c  # a count is at most n_cols
    _, first, pattern = np.unique(key, return_index=True, return_inverse=True)
    n_p = len(first)
    if n_p * n_v * max(n_v * n_v, n_cols) > PATTERN_CELLS:
        return None
    unit, ann = rated_cells(coded)
    given = np.bincount(
        (ann * n_p + pattern.reshape(-1)[unit]) * n_v + codes[unit, ann],
        minlength=n_cols * n_p * n_v,
    )
    cp = c[:, first].T.astype(np.float64)  # (patterns, V)
    m = cp.sum(axis=1)
    change = _pairs(cp[:, None, :] - np.eye(n_v), m[:, None] - 1.0) - _pairs(cp, m)[:, None]
    flat = given.reshape(n_cols, n_p * n_v) @ change.reshape(n_p * n_v, n_v * n_v)
    return o + flat.reshape(n_cols, n_v, n_v)


def _pairs(c: FloatArray, m: FloatArray) -> FloatArray:
    """``(…, V, V)`` (c cᵀ − diag c)/(m − 1) of value counts ``c`` ``(…, V)`` with ``m``
    ``(…)`` ratings (0 where m < 2): the coincidences of one unit."""
    out = c[..., :, None] * c[..., None, :]
    diagonal = np.arange(c.shape[-1])
    out[..., diagonal, diagonal] -= c
    weight = np.divide(1.0, m - 1.0, out=np.zeros_like(m), where=m >= 2)
    return np.asarray(out * weight[..., None, None], dtype=np.float64)


def unit_disagreement(
    ratings: npt.ArrayLike | Coded, level: LevelArg = "nominal"
) -> UnitDisagreement:
    """The per-unit pieces of alpha (see :class:`UnitDisagreement`).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    level : str or Distance
        ``nominal``, ``ordinal``, ``interval``, ``ratio``, a named distance (``jaccard``, ``masi``,
        ``hierarchical``, ``levenshtein``) or a callable δ².

    Returns
    -------
    UnitDisagreement
        Per unit: observed disagreement and ratings; the expected disagreement.

    Examples
    --------
    >>> round(unit_disagreement([[1, 1], [2, 2], [1, 2]]).alpha(), 4)
    0.4444
    """
    check_level(level)
    x = _float_interval(ratings, level)
    if x is not None:
        return _interval(x.shape, lambda s: x[s])
    coded = encode(ratings)
    if coded.n_values <= COUNTS_MAX:
        if level == "nominal":
            return _from_counts(coded, _nominal_form)
        return _from_counts(coded, _quadratic_form(_delta(coded, level)))
    codes = coded.codes
    if level in ("ordinal", "interval"):
        counts = pairable_counts(coded)
        table = _numeric_values(coded.values) if level == "interval" else _mid_ranks(counts)
        lookup = np.append(table, np.nan)  # code −1 reads NaN
        ud = _interval(codes.shape, lambda s: lookup[codes[s]])
        return replace(ud, n_values=int(np.count_nonzero(counts)))
    if level == "nominal":
        return _nominal_pairs(coded)
    return _pairwise(coded, _distance(coded.values, level))


def _float_interval(ratings: npt.ArrayLike | Coded, level: LevelArg) -> FloatArray | None:
    """Numeric ratings as floats when the level is interval: those need no encoding."""
    if level != "interval" or isinstance(ratings, Coded):
        return None
    arr = ratings_array(ratings)
    if arr.dtype.kind not in "iubf":
        return None
    return arr.astype(np.float64, copy=False)


def check_level(level: object) -> LevelArg:
    """``level`` when alpha can use it (a name of ``distance.LEVEL_NAMES`` or a Distance
    callable); else a :class:`UsageError` listing them."""
    if (isinstance(level, str) and level in dist.LEVEL_NAMES) or callable(level):
        return level  # a callable is taken as a Distance
    raise UsageError(
        f"unknown level {level!r}: use one of {', '.join(map(repr, dist.LEVEL_NAMES))} or a "
        "Distance callable",
        parameter="level",
        accepted=dist.LEVEL_NAMES,
    )


def level_distance(level: LevelArg) -> Callable[..., Any]:
    """The δ² of ``level``: its named distance, or the callable given. Ordinal has none (alpha
    reads it from the values' mid-ranks), so callers handle it first.

    Parameters
    ----------
    level : str or Distance
        A level of :data:`~iaa_gate.metrics.distance.LEVEL_NAMES` other than ``ordinal``, or a
        callable δ².

    Returns
    -------
    callable
        The distance.

    Examples
    --------
    >>> float(level_distance("interval")(1.0, 3.0))
    4.0
    """
    fn = dist.NAMED.get(level) if isinstance(level, str) else level
    if fn is None:
        check_level(level)  # an unknown level: the UsageError; else ordinal, not handled first
        raise AssertionError(f"{level!r}: a level without its distance")
    return fn


def _distance(values: npt.NDArray[Any], level: LevelArg) -> Callable[..., Any]:
    fn = level_distance(level)
    if fn in (dist.interval, dist.ratio):
        _numeric_values(values)
    return fn


def _mid_ranks(counts: FloatArray) -> FloatArray:
    """Σ_{g<v} n_g + n_v/2: Krippendorff's ordinal δ² is the interval δ² of these."""
    return np.cumsum(counts) - counts / 2.0


def _delta(coded: Coded, level: LevelArg, counts: FloatArray | None = None) -> FloatArray:
    """δ² between the values, ``(V, V)``; ordinal reads the pairable counts n_v ``(V,)``."""
    if level == "ordinal" and counts is None:
        counts = pairable_counts(coded)
    return delta_table(coded.values, level, counts)


def delta_table(
    values: npt.NDArray[Any], level: LevelArg, counts: FloatArray | None = None
) -> FloatArray:
    """δ² between ``values`` ``(V,)``, ``(V, V)``; ordinal needs the pairable counts ``(V,)``."""
    if level == "ordinal":
        if counts is None:
            raise ValueError("the ordinal δ² needs the pairable counts of the values")
        ranks = _mid_ranks(counts)
        return dist.interval(ranks[:, None], ranks)
    return _delta_table(values, _distance(values, level))


def _numeric_values(values: npt.NDArray[Any]) -> FloatArray:
    if values.dtype.kind not in "iuf":
        raise UsageError("interval and ratio levels need numeric ratings", parameter="ratings")
    return values.astype(np.float64)


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
    for s in row_blocks(codes.shape[0], codes.shape[1], CHUNK_CELLS):
        out[s] = _count_rows(codes[s] >= 0)
    return out


def pairable_counts(coded: Coded) -> FloatArray:
    """n_v: how often each value occurs in units with two or more ratings, ``(V,)``."""
    codes = coded.codes
    counts = np.zeros(coded.n_values + 1, dtype=np.int64)
    for s in row_blocks(codes.shape[0], codes.shape[1], CHUNK_CELLS):
        block = codes[s]
        pairable = block[_count_rows(block >= 0) >= 2]
        counts += np.bincount(pairable.ravel() + 1, minlength=coded.n_values + 1)
    return counts[1:].astype(np.float64)


Form = Callable[[FloatArray, FloatArray], FloatArray]


def _from_counts(coded: Coded, form: Form) -> UnitDisagreement:
    """Alpha's pieces from per-unit value counts.

    ``form(c, m)`` gives Σ_{i≠j} δ² = cᵀΔc for each column of counts ``c`` ``(V, rows)`` with
    column sums ``m`` ``(rows,)``; applied to the totals n_v it gives D_e's sum.
    """
    n_units, n_cols = coded.codes.shape
    observed = np.zeros(n_units)
    m_all = np.zeros(n_units, dtype=np.int64)
    totals = np.zeros(coded.n_values)
    for s, counts in value_count_blocks(coded):
        block = counts.astype(np.float64)  # the small products below go to BLAS
        c, m = block[1:], n_cols - block[0]
        m_all[s] = m
        observed[s] = form(c, m)
        totals += c @ (m >= 2)
    observed[m_all < 2] = 0.0  # (exactly 0 already unless δ²(v, v) ≠ 0)
    n = float(totals.sum())
    expected = float(form(totals[:, None], np.array([n]))[0])
    return UnitDisagreement(observed, m_all, expected, int(n), int(np.count_nonzero(totals)))


def _nominal_form(c: FloatArray, m: FloatArray) -> FloatArray:
    """Σ_{i≠j}[x_i ≠ x_j] = m² − Σ_v c_v²."""
    return np.asarray(m * m - np.einsum("vr,vr->r", c, c), dtype=np.float64)


def _quadratic_form(delta: FloatArray) -> Form:
    """cᵀΔc per unit (column of ``c``): O(V²) per unit, for any tabulated δ²."""

    def form(c: FloatArray, m: FloatArray) -> FloatArray:
        return np.asarray(np.einsum("vr,vr->r", c, delta @ c), dtype=np.float64)

    return form


def _interval(shape: tuple[int, ...], blocks: Callable[[slice], FloatArray]) -> UnitDisagreement:
    """Interval δ² on float blocks ``(rows, A)`` (NaN missing) of a ``(units, A)`` matrix.

    Per unit Σ_{i≠j}(x_i − x_j)² = 2(mΣd² − (Σd)²) with d = x − lo, lo the least pairable value
    of the block: d ≥ 0 makes NaN → 0 a clip, and d = 0 exactly where all values are lo. Rounding
    is relative to the block's range, so alpha and unit scores (relative to D_e) keep their
    digits. The blocks' sums of squares are merged exactly (Chan, Golub & LeVeque 1979).
    """
    n_units, n_cols = shape[0], shape[1]
    m_all = np.empty(n_units, dtype=np.int64)
    observed = np.zeros(n_units)
    n, mean, m2 = 0, 0.0, 0.0
    for s in row_blocks(n_units, n_cols, CHUNK_CELLS):
        x = blocks(s)
        m = n_cols - _count_rows(np.isnan(x))
        m_all[s] = m
        w = np.where(m >= 2, m, 0)  # pairable units' weights
        nb = int(w.sum())
        if nb == 0:
            continue
        lone = nb < m.sum()  # some unit has a single rating: leave it out of lo
        where = (w > 0)[:, None] if lone else True
        lo = float(np.fmin.reduce(x, axis=None, where=where, initial=np.inf))
        d = np.subtract(x, lo)
        np.fmax(d, 0.0, out=d)  # NaN → 0 (and lone ratings below lo, which do not count)
        s1 = np.einsum("ij->i", d)
        s2 = np.einsum("ij,ij->i", d, d)
        # exactly 0 where m ≤ 1; rounding can leave −1e-16 where values agree
        observed[s] = np.maximum(2.0 * (m * s2 - s1 * s1), 0.0)
        if lone:
            s1[w == 0] = s2[w == 0] = 0.0
        t1, t2 = float(s1.sum()), float(s2.sum())
        m2b = max(t2 - t1 * t1 / nb, 0.0)
        delta = lo + t1 / nb - mean
        mean += delta * (nb / (n + nb))  # exact when every block has the same mean
        m2 += m2b + delta * delta * n * nb / (n + nb)
        n += nb
    # only whether values vary matters here; exact zeros when every pairable value is the same
    n_values = 0 if n == 0 else (1 if m2 == 0.0 else 2)
    return UnitDisagreement(observed, m_all, 2.0 * n * m2, n, n_values)


def _transposed_blocks(coded: Coded) -> Iterator[tuple[slice, npt.NDArray[Any]]]:
    """Row slices of the codes and their ``(A, rows)`` transposes: a contiguous row per
    annotator."""
    codes = coded.codes
    for s in row_blocks(codes.shape[0], codes.shape[1], PAIR_CELLS):
        yield s, np.ascontiguousarray(codes[s].T)


def _nominal_pairs(coded: Coded) -> UnitDisagreement:
    """Nominal δ² by annotator pairs, for many values: per unit, Σ_{i≠j}[x_i ≠ x_j] =
    m(m − 1) − 2·(agreeing pairs), and agreeing pairs are A(A − 1)/2 comparisons of small
    integer codes, with no per-unit value counts (O(units × V)) and no δ² table look-up."""
    m_all = n_ratings(coded.codes)
    agree = np.zeros(coded.codes.shape[0], dtype=np.int64)
    for s, t in _transposed_blocks(coded):
        valid = t >= 0
        acc = np.zeros(t.shape[1], dtype=np.int32)
        eq = np.empty(t.shape[1], dtype=bool)
        for i in range(t.shape[0] - 1):
            for j in range(i + 1, t.shape[0]):
                np.equal(t[i], t[j], out=eq)
                eq &= valid[i]
                acc += eq
        agree[s] = acc
    observed = (m_all * (m_all - 1) - 2 * agree).astype(np.float64)
    counts = pairable_counts(coded)
    n = float(counts.sum())
    return UnitDisagreement(
        observed, m_all, n * n - float(counts @ counts), int(n), int(np.count_nonzero(counts))
    )


def _pairwise(coded: Coded, fn: Callable[..., Any]) -> UnitDisagreement:
    """Any δ² by annotator pairs; δ² is tabulated over values (plus a zero row for "missing")."""
    codes = coded.codes
    n_units, n_cols = codes.shape
    counts = pairable_counts(coded)
    m_all = n_ratings(codes)
    values = coded.values
    n_v = coded.n_values
    table: FloatArray | None = None
    if n_v <= TABLE_MAX and not isinstance(fn, sampled.Sampled):
        table = np.zeros((n_v + 1, n_v + 1))
        table[:n_v, :n_v] = _delta_table(values, fn)
    observed = np.zeros(n_units)
    for s in row_blocks(n_units, n_cols, CHUNK_CELLS):
        t = np.ascontiguousarray(codes[s].T, dtype=np.int64)  # (A, rows): a row per annotator
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
    if isinstance(fn, sampled.Sampled):  # D_e from drawn pairs of ratings
        expected = sampled.expected(coded, fn, int(counts.sum()))[0]
    else:
        expected = _expected(values, counts, fn, None if table is None else table[:n_v, :n_v])
    return UnitDisagreement(
        observed, m_all, expected, int(counts.sum()), int(np.count_nonzero(counts))
    )


def _delta_table(values: npt.NDArray[Any], fn: Callable[..., Any]) -> FloatArray:
    if isinstance(fn, dist.Tabulated):
        return np.asarray(fn.over(values), dtype=np.float64)
    return np.asarray(fn(values[:, None], values[None, :]), dtype=np.float64)


def _expected(
    values: npt.NDArray[Any], counts: FloatArray, fn: Callable[..., Any], table: FloatArray | None
) -> float:
    """Σ_{v,v'} n_v n_v' δ²(v, v'), in row blocks of the value table when it is large.

    δ² is symmetric, so each block of rows is measured only against itself and the values
    after it, the rest counted twice: about V²/2 distances instead of V², which for edit
    distances on texts is the whole cost."""
    if table is not None:
        return float(counts @ table @ counts)
    if isinstance(fn, dist.Tabulated):  # a field's table, computed once: one product with it
        return fn.weighted_sum(values, counts)
    present = counts > 0
    vals, cnt = values[present], counts[present]
    total = 0.0
    step = max(1, CHUNK_CELLS // max(len(vals), 1))
    for start in range(0, len(vals), step):
        stop = min(start + step, len(vals))
        block = np.asarray(fn(vals[start:stop, None], vals[None, start:]), dtype=np.float64)
        size = stop - start
        own = cnt[start:stop] @ block[:, :size] @ cnt[start:stop]  # both orders inside
        later = cnt[start:stop] @ block[:, size:] @ cnt[stop:]  # one order: doubled
        total += float(own) + 2.0 * float(later)
    return total
