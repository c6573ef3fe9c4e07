"""Bootstrap confidence interval for Krippendorff's alpha, by resampling units.

Hayes & Krippendorff (2007, "Answering the call for a standard reliability measure for coding
data", *Communication Methods and Measures* 1(1)) recommend judging alpha by its bootstrap
distribution: a confidence interval and q, the probability that the true alpha is below the
smallest acceptable one. Their KALPHA macro resamples *pairable values* within the coincidence
matrix; here whole *units* are resampled with replacement (the units are the sample; a unit's
ratings stay together, so their dependence is kept). Units with fewer than two ratings hold no
pair and never enter alpha: they are set aside first, and every replicate draws as many pairable
units as the data have.

Alpha is a ratio of sums over units, so each replicate is a weighted sum of per-unit terms with
weights w_u (how often unit u was drawn; Σ_u w_u = U, the number of pairable units). For unit
value counts N_u (a V-vector) and m_u = Σ_v N_uv ratings,

    o_b = Σ_u w_u (N_u N_uᵀ − diag N_u) / (m_u − 1),   n_v = Σ_u w_u N_uv,   n = Σ_v n_v,
    α_b = 1 − (n − 1) Σ_{v,v'} o_b,vv' δ²_vv' / Σ_{v,v'} n_v n_v' δ²_vv'

(Krippendorff 2011). Per-unit terms are computed once and the replicates are a matrix product
``W (replicates × units) @ F (units × features)`` in blocks (a few MiB of weights at a time):

- nominal, ratio, jaccard, masi, callables (δ² fixed): F = [N_u, D_u] with D_u the unit's
  Σ_{i≠j} δ² / (m_u − 1); n_v then gives the expected disagreement n_bᵀ Δ n_b. With more than
  ``DENSE_VALUES`` values n_v is a weighted bincount of the ratings instead of a product with
  dense counts;
- ordinal: δ² is the interval δ² of mid-ranks Σ_{g<v} n_g + n_v/2, which move with n_v, so F
  holds N_u and 2 N_uv N_uv' / (m_u − 1) for every co-occurring value pair v < v'; the mid-ranks
  and δ² are rebuilt per replicate;
- interval: the sums form, F = [m_u, S1_u, S2_u, D_u] with S1, S2 the sums of the unit's values
  and their squares (centred on the pairable mean) and D_u = (2 m S2 − 2 S1²)/(m − 1); the
  expected disagreement is 2(n ΣS2 − (ΣS1)²).

Units with the same multiset of ratings (a *rating pattern*) have the same terms. When the
pairable units show at most 1/``GROUP_RATIO`` as many patterns as units (5 annotators and 5
values allow 252; interval data only when the values are integers), :func:`alpha_bootstrap`
draws multinomial counts over the patterns, with probabilities their shares of the units:
exactly the distribution of the pattern totals when units are drawn, at one binomial per
pattern instead of one random integer per unit.

Above ``ORDINAL_PAIRS`` co-occurring pairs (ordinal) or ``TABLE_MAX`` values (other levels, the
δ² table would not fit), each replicate is computed from scratch with
:func:`~iaa_gate.metrics.unit_disagreement` on the resampled units: the same numbers, one alpha
computation per replicate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import progress
from ..core.arguments import number
from ..core.errors import UsageError
from . import distance as dist
from . import sampled
from ._base import (
    CodeArray,
    Coded,
    FloatArray,
    Undefined,
    as_float_ratings,
    check_confidence,
    encode,
    ratings_array,
    row_blocks,
)
from .alpha import (
    TABLE_MAX,
    LevelArg,
    UnitDisagreement,
    check_level,
    krippendorff_alpha,
    level_distance,
    n_ratings,
    unit_disagreement,
)

__all__ = ["AlphaBootstrap", "alpha_bootstrap", "alpha_replicates"]

CELLS = 1 << 20  # replicates × units per block of weights (8 MiB of float64 weights)
FEATURE_CELLS = 1 << 23  # per-unit feature matrices up to this size (64 MiB) are built once
DENSE_VALUES = 64  # up to this many values n_v comes from dense per-unit counts
ORDINAL_PAIRS = 820  # ordinal: most co-occurring value pairs (40 values) for the weighted sums
GROUP_RATIO = 16  # draw over rating patterns when units ≥ GROUP_RATIO × patterns
_FLAT = 1e-12  # interval: n·ΣS2 − (ΣS1)² below this share of n·ΣS2 is rounding: no variation

IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True)
class AlphaBootstrap:
    """Krippendorff's alpha with its unit-bootstrap distribution.

    Values that cannot be computed are :class:`~iaa_gate.metrics.Undefined`.

    Attributes
    ----------
    alpha : float
        The point estimate (:func:`~iaa_gate.metrics.krippendorff_alpha`).
    lower, upper : float
        The percentile interval at ``confidence`` (quantiles (1 ∓ c)/2 of the defined
        replicates, linear interpolation).
    se : float
        Standard deviation of the defined replicates (ddof 1).
    q : float or None
        Share of defined replicates below ``alpha_min``: Krippendorff's probability of failing to
        reach the smallest acceptable alpha; ``None`` without ``alpha_min``.
    replicates : int
        Replicates used.
    n_undefined : int
        Replicates dropped because alpha was undefined on them (one value only).
    confidence : float
        The interval's coverage.
    alpha_min : float or None
        The threshold ``q`` is computed for.
    samples : ndarray
        ``(replicates,)`` the defined replicate alphas, in draw order.

    Examples
    --------
    >>> from iaa_gate.metrics import alpha
    >>> b = alpha_bootstrap([[1, 1], [2, 2], [1, 2], [2, 2], [1, 1]], replicates=200, alpha_min=0.5)
    >>> round(b.alpha, 3), b.replicates + b.n_undefined
    (0.64, 200)
    """

    alpha: float
    lower: float
    upper: float
    se: float
    q: float | None
    replicates: int
    n_undefined: int
    confidence: float
    alpha_min: float | None
    samples: FloatArray = field(repr=False, compare=False)


def alpha_bootstrap(
    ratings: npt.ArrayLike | Coded,
    level: LevelArg = "nominal",
    *,
    replicates: int = 1000,
    confidence: float = 0.95,
    alpha_min: float | None = None,
    seed: int | np.random.Generator | None = 0,
) -> AlphaBootstrap:
    """Percentile bootstrap interval and q for Krippendorff's alpha, resampling pairable units.

    ``ratings``: ``(units, annotators)``, NaN/``None`` missing; ``level`` as for
    :func:`~iaa_gate.metrics.krippendorff_alpha`. ``replicates`` resamples of the pairable units
    (with replacement, as many as there are) drawn from ``numpy.random.default_rng(seed)``: the
    same seed, data and numpy version give the same result. Replicates on which alpha is
    undefined are dropped and counted in ``n_undefined``. Cost: one alpha computation plus, per
    replicate, drawing the weights (per rating pattern when there are few, else per unit) and a
    product with a few per-unit terms (see the module docstring); memory is bounded by blocks of
    ``CELLS`` weights.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    level : str or Distance
        ``nominal``, ``ordinal``, ``interval``, ``ratio``, a named distance (``jaccard``, ``masi``,
        ``hierarchical``, ``levenshtein``) or a callable δ².
    replicates : int
        Resamples of the pairable units.
    confidence : float
        The interval's coverage, strictly between 0 and 1.
    alpha_min : float, optional
        A threshold: ``q`` is the share of replicates below it.
    seed : int or Generator, optional
        The random numbers' seed: the same seed, data and numpy give the same result.

    Returns
    -------
    AlphaBootstrap
        Alpha, the percentile interval, ``q`` and the replicate counts.

    Examples
    --------
    >>> b = alpha_bootstrap([[1, 1], [2, 2], [1, 2], [2, 2], [1, 1]], replicates=200, alpha_min=0.5)
    >>> round(b.alpha, 3), b.replicates + b.n_undefined
    (0.64, 200)
    """
    number("replicates", replicates, low=1, whole=True)
    check_confidence(confidence)
    if alpha_min is not None:
        number("alpha_min", alpha_min)  # any threshold; above 1 every replicate is below it
    estimator, point = _estimator(ratings, level)
    if math.isnan(point):
        u = point if isinstance(point, Undefined) else Undefined("alpha is undefined")
        q: float | None = None if alpha_min is None else u
        return AlphaBootstrap(point, u, u, u, q, 0, 0, confidence, alpha_min, np.empty(0))
    alphas = _draw_alphas(estimator, np.random.default_rng(seed), replicates)
    ok = ~np.isnan(alphas)
    samples = alphas[ok]
    n_undefined = int(replicates - samples.size)
    if samples.size == 0:
        u = Undefined("alpha is undefined on every bootstrap replicate")
        q = None if alpha_min is None else u
        return AlphaBootstrap(point, u, u, u, q, 0, n_undefined, confidence, alpha_min, samples)
    lower, upper = np.quantile(samples, [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0])
    se = float(samples.std(ddof=1)) if samples.size > 1 else Undefined("a single replicate")
    q = None if alpha_min is None else float(np.mean(samples < alpha_min))
    return AlphaBootstrap(
        point,
        float(lower),
        float(upper),
        se,
        q,
        int(samples.size),
        n_undefined,
        confidence,
        alpha_min,
        samples,
    )


def alpha_replicates(
    ratings: npt.ArrayLike | Coded, level: LevelArg, weights: npt.ArrayLike
) -> FloatArray:
    """Alpha of weighted copies of ``ratings``: one per row of ``weights``; NaN where undefined.

    ``weights``: ``(replicates, units)`` non-negative integers, how often each unit is taken
    (a bootstrap draw, or ones with a zero for a jackknife). Row b gives exactly
    ``krippendorff_alpha(ratings[np.repeat(np.arange(units), weights[b])], level)`` (up to
    rounding), computed as in :func:`alpha_bootstrap`. Returns ``(replicates,)``.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    level : str or Distance
        ``nominal``, ``ordinal``, ``interval``, ``ratio``, a named distance (``jaccard``, ``masi``,
        ``hierarchical``, ``levenshtein``) or a callable δ².
    weights : array_like
        ``(replicates, units)`` non-negative integers: how often each unit is taken.

    Returns
    -------
    ndarray
        ``(replicates,)`` alpha of each weighted copy; NaN where undefined.

    Examples
    --------
    >>> weights = [[1, 1, 1], [2, 1, 0]]  # replicate 2: unit 0 twice, unit 2 left out
    >>> alpha_replicates([[1, 1], [2, 2], [1, 2]], 'nominal', weights).round(4).tolist()
    [0.4444, 1.0]
    """
    check_level(level)
    units = (ratings.codes if isinstance(ratings, Coded) else ratings_array(ratings)).shape[0]
    try:
        wf = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        wf = np.empty(0)  # not a table of numbers: refused by its shape below
    if wf.ndim != 2 or wf.shape[1] != units:
        raise UsageError(
            f"weights must be (replicates, units) = (·, {units}), got {np.shape(weights)}",
            parameter="weights",
        )
    if not np.all(np.isfinite(wf)) or np.any(wf < 0) or np.any(wf != np.round(wf)):
        raise UsageError(
            "weights must be non-negative integers (how often each unit is drawn)",
            parameter="weights",
        )
    estimator, _ = _estimator(ratings, level)
    wp = wf[:, estimator.pairable]
    out = np.empty(wf.shape[0])
    step = max(1, CELLS // max(estimator.n_units, 1))
    for start in range(0, wf.shape[0], step):
        out[start : start + step] = estimator(wp[start : start + step])
    return out


# ------------------------------------------------------------------------------ weights


def _draw_alphas(estimator: _Estimator, rng: np.random.Generator, replicates: int) -> FloatArray:
    """``(replicates,)`` bootstrap alphas, over rating patterns when they are few."""
    grouped = estimator.grouped() if isinstance(estimator, _Linear) else None
    if grouped is None:
        blocks = _weight_blocks(rng, replicates, estimator.n_units)
        shown = replicates * estimator.n_units >= PROGRESS_CELLS
        done = progress.step("bootstrap", replicates, "replicates") if shown else None
        alphas = []
        for w in blocks:
            alphas.append(estimator(w))
            if done is not None:
                done.advance(len(w))
        if done is not None:
            done.close()
        return np.concatenate(alphas)
    total = int(grouped.sizes.sum())
    shares = grouped.sizes / total
    step = max(1, CELLS // grouped.n_units)
    sizes = [min(step, replicates - start) for start in range(0, replicates, step)]
    draws = (rng.multinomial(total, shares, size=b) for b in sizes)
    return np.concatenate([grouped(d.astype(np.float64)) for d in draws])


PROGRESS_CELLS = 50_000_000
"""Replicates × units from which the bootstrap reports its progress (a few seconds' work)."""


def _weight_blocks(rng: np.random.Generator, replicates: int, n_units: int) -> Iterator[FloatArray]:
    """Blocks ``(b, n_units)`` of multinomial unit counts (Σ = n_units per row), b·n ≲ CELLS.

    Row r counts ``rng.integers(0, n_units, n_units)``, the r-th such call on ``rng``: uniform
    draws of a unit, tallied by ``np.bincount``, so the draws do not depend on the block size.
    One row at a time is the fastest exact way in numpy here (``rng.multinomial`` over the units
    is ~5× slower, a bincount over a whole block ~25 % slower: its counts leave the cache). The
    same buffer is yielded each time: use a block before asking for the next.
    """
    step = max(1, CELLS // n_units)
    buffer = np.empty((min(step, replicates), n_units))
    for start in range(0, replicates, step):
        block = buffer[: min(step, replicates - start)]
        for row in block:
            row[:] = np.bincount(rng.integers(0, n_units, n_units), minlength=n_units)
        yield block


def _pattern_groups(codes: CodeArray, n_values: int) -> tuple[IntArray, IntArray] | None:
    """First row and size of each distinct multiset of codes (rows of ``codes``, −1 missing).

    Each row, sorted, is read as a number in base V + 1; ``None`` when that would not fit in 62
    bits or the patterns are not at most 1/``GROUP_RATIO`` of the rows.
    """
    n_rows, n_cols = codes.shape
    base = n_values + 1
    if n_rows == 0 or base**n_cols >= 1 << 62:
        return None
    keys = np.empty(n_rows, dtype=np.int64)
    for s in row_blocks(n_rows, n_cols):
        digits = np.sort(codes[s], axis=1).astype(np.int64) + 1
        key = np.zeros(digits.shape[0], dtype=np.int64)
        for col in digits.T:
            key = key * base + col
        keys[s] = key
    _, first, sizes = np.unique(keys, return_index=True, return_counts=True)
    if len(first) * GROUP_RATIO > n_rows:
        return None
    return first, sizes


# --------------------------------------------------------------------------- estimators


class _Estimator:
    """Replicate alphas from unit weights over the pairable units.

    ``pairable``: ``(units,)`` mask of units with two or more ratings; ``n_units``: their number.
    ``__call__(w)``: ``w`` ``(b, n_units)`` → ``(b,)`` alphas, NaN where undefined.
    """

    pairable: npt.NDArray[np.bool_]
    n_units: int

    def _keep(self, coded: Coded, pairable: npt.NDArray[np.bool_]) -> None:
        """Keep ``pairable`` and the codes of those units (``codes``, ``n_units`` of them)."""
        self.pairable = pairable
        self.codes = coded.codes[pairable]
        self.n_units = self.codes.shape[0]

    def __call__(self, w: FloatArray) -> FloatArray:
        raise NotImplementedError


class _Linear(_Estimator):
    """Replicates that are weighted sums ``w @ F`` of per-unit features, then a finish.

    ``F`` ``(n_units, k)`` is built once when it holds at most ``FEATURE_CELLS`` cells, else
    rebuilt in unit blocks for every block of replicates.
    """

    n_features: int
    _full: FloatArray | None = None
    pattern_codes: CodeArray | None = None  # codes (−1 missing) whose multisets fix the features
    pattern_values: int = 0

    def block(self, s: slice | IntArray) -> FloatArray:
        """Features ``(rows, k)`` of the pairable units ``s`` (a slice or row indices)."""
        raise NotImplementedError

    def grouped(self) -> _Grouped | None:
        """The estimator over rating patterns, or ``None`` when they are not few."""
        if self.pattern_codes is None:
            return None
        groups = _pattern_groups(self.pattern_codes, self.pattern_values)
        if groups is None:
            return None
        first, sizes = groups
        features = self._full[first] if self._full is not None else self.block(first)
        return _Grouped(self, features, first, sizes)

    def finish(self, sums: FloatArray, w: FloatArray) -> FloatArray:
        raise NotImplementedError

    def __call__(self, w: FloatArray) -> FloatArray:
        if self._full is None and self.n_units * self.n_features <= FEATURE_CELLS:
            self._full = self.block(slice(0, self.n_units))
        if self._full is not None:
            sums = w @ self._full
        else:
            sums = np.zeros((w.shape[0], self.n_features))
            for s in row_blocks(self.n_units, self.n_features, FEATURE_CELLS):
                sums += w[:, s] @ self.block(s)
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.finish(sums, w)


class _Grouped(_Estimator):
    """``base`` over rating patterns: weights ``(b, patterns)``; ``first``: the first pairable
    unit of each pattern, whose features stand for it; ``sizes``: units per pattern."""

    def __init__(
        self, base: _Linear, features: FloatArray, first: IntArray, sizes: IntArray
    ) -> None:
        self.base = base
        self.features = features
        self.first = first
        self.sizes = sizes
        self.pairable = base.pairable
        self.n_units = len(sizes)

    def __call__(self, w: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.base.finish(w @ self.features, w)


def _estimator(ratings: npt.ArrayLike | Coded, level: LevelArg) -> tuple[_Estimator, float]:
    """The replicate estimator for ``level`` and the point estimate of alpha."""
    check_level(level)
    if isinstance(level, str) and level == "interval":
        return _IntervalSums(_float_matrix(ratings)), krippendorff_alpha(ratings, "interval")
    coded = encode(ratings)
    if isinstance(level, str) and level == "ordinal":
        point = krippendorff_alpha(coded, "ordinal")
        pairable = n_ratings(coded.codes) >= 2
        ordinal = _Ordinal(coded, pairable)
        if len(ordinal.pairs_a) <= ORDINAL_PAIRS:
            return ordinal, point
        return _Resampled(coded, pairable, level), point
    fn = level_distance(level)
    ud = unit_disagreement(coded, level)
    pairable = ud.pairable
    if isinstance(fn, sampled.Sampled):
        return _SampledExpected(coded, ud, fn), ud.alpha()
    if coded.n_values > TABLE_MAX and not isinstance(fn, dist.Tabulated):
        return _Resampled(coded, pairable, level), ud.alpha()
    m = ud.n_ratings[pairable].astype(np.float64)
    per_unit = ud.observed[pairable] / (m - 1.0)
    return _FixedDelta(coded, pairable, per_unit, None if fn is dist.nominal else fn), ud.alpha()


def _float_matrix(ratings: npt.ArrayLike | Coded) -> FloatArray:
    """Numeric ratings ``(units, annotators)`` as float64, NaN missing."""
    if isinstance(ratings, Coded):
        if ratings.values.dtype.kind not in "iuf":
            raise UsageError("interval and ratio levels need numeric ratings", parameter="ratings")
        lookup = np.append(ratings.values.astype(np.float64), np.nan)
        return np.asarray(lookup[ratings.codes], dtype=np.float64)
    return as_float_ratings(ratings)


def _unit_counts(codes: CodeArray, n_values: int) -> FloatArray:
    """``(rows, V)`` value counts per unit from codes ``(rows, annotators)`` (−1 missing)."""
    rows = codes.shape[0]
    counts = np.zeros(rows * n_values + 1)  # the last cell collects missing ratings
    base = np.arange(rows, dtype=np.intp) * n_values
    for col in codes.T:  # one rating per unit and annotator: no repeated index in a column
        counts[np.where(col >= 0, base + col, rows * n_values)] += 1.0
    return counts[:-1].reshape(rows, n_values)


class _IntervalSums(_Linear):
    """Interval δ² from per-unit m, S1 = Σ(x − c), S2 = Σ(x − c)², D = (2 m S2 − 2 S1²)/(m − 1)."""

    def __init__(self, x: FloatArray) -> None:
        m = np.count_nonzero(~np.isnan(x), axis=1)
        self.pairable = m >= 2
        xp = x[self.pairable]
        self.n_units = xp.shape[0]
        self.n_features = 4
        centre = float(np.nanmean(xp)) if self.n_units else 0.0
        d = np.nan_to_num(xp - centre, nan=0.0)
        mp = m[self.pairable].astype(np.float64)
        s1 = d.sum(axis=1)
        s2 = np.einsum("ij,ij->i", d, d)
        per_unit = np.maximum(2.0 * mp * s2 - 2.0 * s1 * s1, 0.0) / (mp - 1.0)
        self._full = np.column_stack([mp, s1, s2, per_unit])  # 4 columns: always kept
        values = xp[~np.isnan(xp)]
        if values.size and np.array_equal(values, np.round(values)):  # integer-valued: patterns
            lo, span = float(values.min()), float(values.max() - values.min())
            if span < 1 << 15:
                self.pattern_codes = np.where(np.isnan(xp), -1, xp - lo).astype(np.int16)
                self.pattern_values = int(span) + 1

    def finish(self, sums: FloatArray, w: FloatArray) -> FloatArray:
        n, t1, t2, d_o = sums.T
        spread = n * t2 - t1 * t1
        alpha = 1.0 - (n - 1.0) * d_o / (2.0 * spread)
        return np.where(spread > _FLAT * n * t2, alpha, np.nan)


class _FixedDelta(_Linear):
    """δ² fixed by the value table: features [N_u, D_u] (or [D_u] and a bincount for n_v)."""

    def __init__(
        self,
        coded: Coded,
        pairable: npt.NDArray[np.bool_],
        per_unit: FloatArray,
        fn: Callable[..., Any] | None,
    ) -> None:
        self._keep(coded, pairable)
        self.n_values = coded.n_values
        self.per_unit = per_unit
        self.delta: npt.NDArray[np.floating[Any]] | None = None  # None: nominal (n² − Σ n_v²)
        if isinstance(fn, dist.Tabulated):  # a field's table (float32 when large): no copy
            self.delta = fn.over(coded.values)
        elif fn is not None:
            self.delta = np.asarray(
                fn(coded.values[:, None], coded.values[None, :]), dtype=np.float64
            )
        self.dense = self.n_values <= DENSE_VALUES
        self.n_features = self.n_values + 1 if self.dense else 1
        if self.dense:  # the sparse finish needs per-unit weights: no patterns
            self.pattern_codes, self.pattern_values = self.codes, self.n_values
        if not self.dense:  # the pairable ratings as (unit, value) for a weighted bincount
            rated = self.codes >= 0
            self.rating_unit = np.broadcast_to(np.arange(self.n_units)[:, None], self.codes.shape)[
                rated
            ]
            self.rating_value = self.codes[rated].astype(np.intp)

    def block(self, s: slice | IntArray) -> FloatArray:
        d = self.per_unit[s, None]
        return np.hstack([_unit_counts(self.codes[s], self.n_values), d]) if self.dense else d

    def _value_counts(self, w: FloatArray) -> FloatArray:
        b, v = w.shape[0], self.n_values
        flat = (np.arange(b, dtype=np.intp) * v)[:, None] + self.rating_value
        counts = np.bincount(flat.ravel(), weights=w[:, self.rating_unit].ravel(), minlength=b * v)
        return np.asarray(counts, dtype=np.float64).reshape(b, v)

    def finish(self, sums: FloatArray, w: FloatArray) -> FloatArray:
        n_v = sums[:, : self.n_values] if self.dense else self._value_counts(w)
        d_o = sums[:, -1]
        n = n_v.sum(axis=1)
        if self.delta is None:
            expected = n * n - np.einsum("bv,bv->b", n_v, n_v)
        else:
            spread = (n_v.astype(self.delta.dtype) @ self.delta).astype(np.float64)
            expected = np.einsum("bv,bv->b", spread, n_v)
        ok = (np.count_nonzero(n_v, axis=1) >= 2) & (expected > 0)
        return np.where(ok, 1.0 - (n - 1.0) * d_o / expected, np.nan)


class _Ordinal(_Linear):
    """Ordinal δ²: features [N_u, 2 N_uv N_uv' / (m_u − 1) for co-occurring pairs v < v']."""

    def __init__(self, coded: Coded, pairable: npt.NDArray[np.bool_]) -> None:
        self._keep(coded, pairable)
        self.n_values = coded.n_values
        together = np.zeros((self.n_values, self.n_values), dtype=bool)
        for s in row_blocks(self.n_units, max(self.n_values, 1)):
            present = _unit_counts(self.codes[s], self.n_values) > 0
            p = present.astype(np.float64)
            together |= (p.T @ p) > 0
        self.pairs_a, self.pairs_b = np.nonzero(np.triu(together, k=1))
        self.n_features = self.n_values + len(self.pairs_a)
        self.pattern_codes, self.pattern_values = self.codes, self.n_values

    def block(self, s: slice | IntArray) -> FloatArray:
        counts = _unit_counts(self.codes[s], self.n_values)
        m = counts.sum(axis=1, keepdims=True)
        pairs = 2.0 * counts[:, self.pairs_a] * counts[:, self.pairs_b] / (m - 1.0)
        return np.hstack([counts, pairs])

    def finish(self, sums: FloatArray, w: FloatArray) -> FloatArray:
        n_v = sums[:, : self.n_values]
        coinc = sums[:, self.n_values :]
        n = n_v.sum(axis=1)
        ranks = np.cumsum(n_v, axis=1) - n_v / 2.0  # mid-ranks
        gap = ranks[:, self.pairs_a] - ranks[:, self.pairs_b]
        d_o = np.einsum("bj,bj->b", coinc, gap * gap)
        centre = np.einsum("bv,bv->b", n_v, ranks) / n
        dev = ranks - centre[:, None]
        expected = 2.0 * n * np.einsum("bv,bv->b", n_v, dev * dev)
        ok = (np.count_nonzero(n_v, axis=1) >= 2) & (expected > 0)
        return np.where(ok, 1.0 - (n - 1.0) * d_o / expected, np.nan)


class _SampledExpected(_Estimator):
    """A sampled D_e (:mod:`.sampled`): a replicate weighting units by ``w`` weights each drawn
    pair of ratings by the product of its two units' weights (Σ_{r≠r'} w_u w_u' δ² is the
    replicate's expected sum, the drawn pairs its uniform sample); D_o and n are exact sums."""

    def __init__(self, coded: Coded, ud: UnitDisagreement, fn: sampled.Sampled) -> None:
        self.pairable = ud.pairable
        self.n_units = int(self.pairable.sum())
        m = ud.n_ratings[self.pairable].astype(np.float64)
        self.m, self.per_unit = m, ud.observed[self.pairable] / (m - 1.0)
        units, drawn = sampled.draw(coded.codes, fn.pairs, fn.seed)
        place = np.cumsum(self.pairable) - 1  # unit → its index among the pairable units
        self.units = place[units]
        self.deltas = sampled.pair_deltas(coded.values, drawn, fn)
        n0 = float(m.sum())
        self.scale = n0 * (n0 - 1.0) / max(len(self.deltas), 1)  # ordered pairs per drawn one

    def __call__(self, w: FloatArray) -> FloatArray:
        n = w @ self.m
        d_o = w @ self.per_unit
        if not len(self.deltas):
            return np.full(w.shape[0], np.nan)
        expected = np.empty(w.shape[0])
        step = max(1, (1 << 22) // len(self.deltas))  # replicates × pairs weights at a time
        for s in range(0, w.shape[0], step):
            b = w[s : s + step]
            pair_w = b[:, self.units[:, 0]] * b[:, self.units[:, 1]]
            expected[s : s + step] = self.scale * (pair_w @ self.deltas)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(expected > 0, 1.0 - (n - 1.0) * d_o / expected, np.nan)


class _Resampled(_Estimator):
    """Fallback: alpha recomputed on the resampled units for every replicate."""

    def __init__(self, coded: Coded, pairable: npt.NDArray[np.bool_], level: LevelArg) -> None:
        self._keep(coded, pairable)
        self.values = coded.values
        self.level = level

    def __call__(self, w: FloatArray) -> FloatArray:
        units = np.arange(self.n_units)
        out = np.empty(w.shape[0])
        for b, row in enumerate(w):
            idx = np.repeat(units, row.astype(np.intp))
            out[b] = unit_disagreement(Coded(self.codes[idx], self.values), self.level).alpha()
        return out
