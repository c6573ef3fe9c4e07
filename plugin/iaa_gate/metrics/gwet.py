"""Gwet's AC1/AC2 and Fleiss' kappa with the variance of Gwet's handbook, for missing ratings.

Source: K. L. Gwet, *Handbook of Inter-Rater Reliability*, 4th ed. (2014), chapters on Fleiss'
kappa and AC1/AC2 with an arbitrary number of raters and missing ratings; the ``irrCAC``
package (R and Python) implements the same formulas. Notation, over the ``n`` units with at least
one rating (units rated by no one are dropped): ``r_ik`` ratings of unit ``i`` in category
``k``, ``r_i = Σ_k r_ik``, ``n₂`` units with ``r_i ≥ 2``, ``w`` the ``(K, K)`` agreement weights,
``r*_ik = Σ_l w_kl r_il``, ``T_w = Σ_kl w_kl``, ``π_k = (1/n) Σ_i r_ik/r_i``.

    p_a = (1/n₂) Σ_{i: r_i ≥ 2} Σ_k r_ik (r*_ik − 1)/(r_i (r_i − 1))
    p_e = T_w/(K(K − 1)) · Σ_k π_k (1 − π_k)                      (AC1/AC2)
    AC  = (p_a − p_e)/(1 − p_e)

Variance conditional on the sample of raters (units sampled from an infinite population):
    AC_i  = (n/n₂)(p_a|i − p_e [r_i ≥ 2])/(1 − p_e),  p_a|i the unit's term of p_a (0 if r_i < 2)
    p_e|i = T_w/(K(K − 1)) · Σ_k r_ik (1 − π_k)/r_i
    AC*_i = AC_i − 2(1 − AC)(p_e|i − p_e)/(1 − p_e)
    Var   = Σ_i (AC*_i − AC)² / (n(n − 1))
The confidence interval is ``AC ± t_{n−1} · se`` (Student t with ``n − 1`` degrees of freedom,
as irrCAC), upper limit clipped at 1. Runtime needs numpy only: the t quantile is computed here.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..core.arguments import choice
from ..core.errors import UsageError
from ._base import Coded, FloatArray, Undefined, check_confidence, encode_ordered
from .categories import counts_of
from .kappa import (
    EPS,
    Categories,
    KappaEstimate,
    fleiss_parts,
    normal_quantile,
    weight_matrix,
)

__all__ = [
    "GWET_WEIGHTS",
    "fleiss_kappa_ci",
    "gwet_ac1",
    "gwet_ac1_ci",
    "gwet_ac2",
    "gwet_ac2_ci",
    "gwet_weights",
]

GWET_WEIGHTS = (
    "identity",
    "quadratic",
    "linear",
    "ordinal",
    "radical",
    "ratio",
    "circular",
    "bipolar",
)

GwetWeights = str | npt.ArrayLike


# ------------------------------------------------------------------------------ weights


def _scores(values: npt.ArrayLike) -> FloatArray:
    """Gwet's category scores: the values when all are numbers, else the ranks 1..K."""
    v = np.asarray(values, dtype=object).ravel()
    if len(v) and all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in v
    ):
        return np.array([float(x) for x in v], dtype=np.float64)
    return np.arange(1, len(v) + 1, dtype=np.float64)


def gwet_weights(kind: str, categories: npt.ArrayLike) -> FloatArray:
    """Gwet's (2014, ch. 3) ``(K, K)`` agreement weights for the categories in the given order.

    Scores ``x_k`` are the category values when all are numbers, else ranks ``1..K``;
    ``R = x_max − x_min``. With ``d = x_k − x_l``:
      identity ``[k = l]``; quadratic ``1 − d²/R²``; linear ``1 − |d|/R``;
      radical ``1 − √|d|/√R``; ratio ``1 − ((d/(x_k + x_l))²)/((R/(x_max + x_min))²)`` (scores
      must be positive); circular ``1 − sin²(π d/(R + 1))/max``; bipolar
      ``1 − [d²/((x_k + x_l − 2x_min)(2x_max − x_k − x_l))]/max`` (0 on the diagonal before the
      rescaling); ordinal (ranks ``k`` only, not the values): ``1 − M_kl/max`` with
      ``M_kl = (|k − l| + 1)|k − l|/2``. ``/max`` divides by the largest off-diagonal
      dissimilarity. Gwet's ordinal weights are not Krippendorff's ordinal metric.

    Parameters
    ----------
    kind : str
        identity, quadratic, linear, ordinal, radical, ratio, circular or bipolar.
    categories : array_like
        ``(K,)`` the categories in order.

    Returns
    -------
    ndarray
        ``(K, K)`` agreement weights, ones on the diagonal.

    Examples
    --------
    >>> gwet_weights('linear', [1, 2, 3]).tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    choice("kind", kind, GWET_WEIGHTS)
    if np.ndim(categories) != 1:
        raise UsageError(
            f"categories must be the (K,) categories in order, got {categories!r}",
            parameter="categories",
        )
    x = _scores(categories)
    k = len(x)
    if kind == "identity" or k < 2:
        return np.eye(k)
    lo, hi = float(x.min()), float(x.max())
    span = hi - lo
    d = np.subtract.outer(x, x)
    if span == 0:
        raise UsageError(
            "categories: weights need at least two distinct category scores",
            parameter="categories",
        )
    if kind == "quadratic":
        return np.asarray(1.0 - (d / span) ** 2, dtype=np.float64)
    if kind == "linear":
        return np.asarray(1.0 - np.abs(d) / span, dtype=np.float64)
    if kind == "radical":
        return np.asarray(1.0 - np.sqrt(np.abs(d)) / math.sqrt(span), dtype=np.float64)
    if kind == "ratio":
        if lo <= 0:
            raise UsageError(
                "categories: ratio weights need positive category values",
                parameter="categories",
            )
        s = np.add.outer(x, x)
        return np.asarray(1.0 - (d / s) ** 2 / (span / (hi + lo)) ** 2, dtype=np.float64)
    if kind == "circular":
        dis = np.sin(np.pi * d / (span + 1.0)) ** 2
    elif kind == "bipolar":
        s = np.add.outer(x, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            dis = np.where(d == 0, 0.0, d**2 / ((s - 2.0 * lo) * (2.0 * hi - s)))
    else:  # ordinal
        ranks = np.arange(k, dtype=np.float64)
        m = np.abs(np.subtract.outer(ranks, ranks)) + 1.0
        dis = m * (m - 1.0) / 2.0
    return np.asarray(1.0 - dis / dis.max(), dtype=np.float64)


def _weight_matrix(weights: GwetWeights, values: npt.ArrayLike, k: int) -> FloatArray:
    if isinstance(weights, str):
        return gwet_weights(weights, values)
    return weight_matrix(weights, k, GWET_WEIGHTS)


# ------------------------------------------------------------------------- t quantile

_CF_DF = 1000  # from here on the Cornish–Fisher expansion is within ~1e-13 of the quantile


def t_abs_cdf(t: float, df: int) -> float:
    """``P(|T| ≤ t)`` for Student's t with integer ``df`` (Abramowitz & Stegun 26.7.3–4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:
        if df == 1:
            return 2.0 * theta / math.pi
        j = np.arange(1, (df - 3) // 2 + 1, dtype=np.float64)
        series = 1.0 + float(np.cumprod(2.0 * j / (2.0 * j + 1.0) * c2).sum())
        return 2.0 / math.pi * (theta + math.sin(theta) * math.cos(theta) * series)
    j = np.arange(1, (df - 2) // 2 + 1, dtype=np.float64)
    series = 1.0 + float(np.cumprod((2.0 * j - 1.0) / (2.0 * j) * c2).sum())
    return math.sin(theta) * series


def _t_pdf(t: float, df: int) -> float:
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))


def _cornish_fisher(z: float, df: int) -> float:
    """Student t quantile from the normal one, Abramowitz & Stegun 26.7.5 (to ``df⁻⁴``)."""
    g1 = (z**3 + z) / 4.0
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96.0
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384.0
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160.0
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _t_quantile(p: float, df: int) -> float:
    """Quantile of Student's t with integer ``df ≥ 1`` degrees of freedom, ``0 < p < 1``.

    ``df ≥ 1000``: Cornish–Fisher expansion. Otherwise Newton's method on the exact finite
    series for ``P(|T| ≤ t)``, started from the expansion and kept inside a bisection bracket
    (agrees with ``scipy.stats.t.ppf`` to ~1e-12 for central probabilities).
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if p == 0.5:
        return 0.0
    sign = 1.0 if p > 0.5 else -1.0
    target = abs(2.0 * p - 1.0)  # P(|T| ≤ t) for the upper quantile t
    z = normal_quantile(0.5 + target / 2.0)
    if df >= _CF_DF:
        return sign * _cornish_fisher(z, df)
    if df == 1:
        return sign * math.tan(math.pi * target / 2.0)
    if df == 2:
        return sign * target * math.sqrt(2.0 / (1.0 - target * target))
    lo, hi = 0.0, math.inf
    t = max(_cornish_fisher(z, df), z)
    for _ in range(100):
        err = t_abs_cdf(t, df) - target
        if err > 0:
            hi = t
        else:
            lo = t
        step = err / (2.0 * _t_pdf(t, df))
        nxt = t - step
        if not lo < nxt < hi:
            nxt = (lo + hi) / 2.0 if math.isfinite(hi) else 2.0 * t
        if abs(nxt - t) <= 1e-15 * max(1.0, abs(t)):
            t = nxt
            break
        t = nxt
    return sign * t


# ---------------------------------------------------------------------- AC1 / AC2


def _interval(value: float, var: float, n: int, confidence: float) -> KappaEstimate:
    se = math.sqrt(max(var, 0.0))
    q = _t_quantile(0.5 + confidence / 2.0, n - 1)
    return KappaEstimate(value, se, value - q * se, min(value + q * se, 1.0))


def _gwet(
    ratings: npt.ArrayLike | Coded,
    weights: GwetWeights,
    categories: Categories,
    confidence: float | None,
) -> KappaEstimate:
    if isinstance(weights, str):  # refused even when the data leave AC2 undefined
        choice("weights", weights, GWET_WEIGHTS)
    coded = encode_ordered(ratings, categories, "categories")
    k = coded.n_values
    if coded.codes.shape[1] < 2:
        return KappaEstimate.undefined("fewer than two annotators")
    if k < 2:
        return KappaEstimate.undefined(
            "only one category is known: chance agreement is undefined "
            "(declare the label set as categories)"
        )
    identity = isinstance(weights, str) and weights == "identity"
    w = None if identity else _weight_matrix(weights, coded.values, k)  # never a K × K eye
    counts = counts_of(coded, k)
    r = counts.r
    n = len(r)
    multi = r >= 2
    n2 = int(multi.sum())
    if n2 == 0:
        return KappaEstimate.undefined("no unit has two or more ratings")
    if w is None:  # AC1: Σ_k r_ik (r_ik − 1), from the nonzero cells only
        pairs = counts.pair_sums()
    else:  # r*_ik = Σ_l w_kl r_il over the dense (n, K) table
        table = counts.dense()
        pairs = (table * (table @ w.T - 1.0)).sum(axis=1)
    pair_den = np.where(multi, r * (r - 1.0), 1.0)
    pa_i = np.where(multi, pairs / pair_den, 0.0)
    pa = float(pa_i.sum() / n2)
    pi = counts.share_means()
    scale = (k if w is None else float(w.sum())) / (k * (k - 1.0))
    pe = scale * float(pi @ (1.0 - pi))
    if 1.0 - pe <= EPS:
        return KappaEstimate.undefined("chance agreement is 1 under these weights")
    value = float(min((pa - pe) / (1.0 - pe), 1.0))
    if confidence is None:
        return KappaEstimate(value, math.nan, math.nan, math.nan)
    if n < 2:
        u = Undefined("the standard error needs at least two rated units")
        return KappaEstimate(value, u, u, u)
    ac_i = (n / n2) * (pa_i - pe * multi) / (1.0 - pe)
    pe_i = scale * counts.dot(1.0 - pi) / r
    ac_star = ac_i - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe)
    var = float(((ac_star - value) ** 2).sum()) / (n * (n - 1.0))
    return _interval(value, var, n, confidence)


def gwet_ac1(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Gwet's AC1 (2008) for any number of annotators with missing ratings (module docstring,
    identity weights: ``p_e = Σ_k π_k(1 − π_k)/(K − 1)``).

    ``K`` counts the declared ``categories`` (or the observed ones), so unobserved categories
    change ``p_e``. With ``K ≥ 2`` declared and one category used by all, ``p_e = 0`` and
    ``AC1 = p_a``; with one category known at all AC1 is undefined.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        AC1; Undefined with one category known.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> round(gwet_ac1(x), 4)
    0.1724
    """
    return _gwet(ratings, "identity", categories, None).value


def gwet_ac2(
    ratings: npt.ArrayLike | Coded,
    weights: GwetWeights = "quadratic",
    categories: Categories = None,
) -> float:
    """Gwet's weighted AC2 (module docstring) with :func:`gwet_weights` named ``weights`` or a
    ``(K, K)`` agreement matrix. The named weights use the category *values* when they are
    numbers (ranks otherwise), as Gwet and irrCAC do.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    weights : str or array_like
        One of Gwet's named weights (:func:`gwet_weights`) or a ``(K, K)`` agreement matrix.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        AC2; Undefined when chance agreement is 1.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> round(gwet_ac2(x, 'linear'), 4)
    0.1724
    """
    return _gwet(ratings, weights, categories, None).value


def gwet_ac1_ci(
    ratings: npt.ArrayLike | Coded, categories: Categories = None, confidence: float = 0.95
) -> KappaEstimate:
    """AC1 with Gwet's standard error and t-interval (module docstring).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.
    confidence : float
        The interval's coverage, strictly between 0 and 1.

    Returns
    -------
    KappaEstimate
        AC1, its standard error and the t-interval.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> round(gwet_ac1_ci(x).se, 4)
    0.496
    """
    check_confidence(confidence)
    return _gwet(ratings, "identity", categories, confidence)


def gwet_ac2_ci(
    ratings: npt.ArrayLike | Coded,
    weights: GwetWeights = "quadratic",
    categories: Categories = None,
    confidence: float = 0.95,
) -> KappaEstimate:
    """AC2 with Gwet's standard error and t-interval (module docstring).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    weights : str or array_like
        One of Gwet's named weights (:func:`gwet_weights`) or a ``(K, K)`` agreement matrix.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.
    confidence : float
        The interval's coverage, strictly between 0 and 1.

    Returns
    -------
    KappaEstimate
        AC2, its standard error and the t-interval.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> round(gwet_ac2_ci(x).se, 4)
    0.496
    """
    check_confidence(confidence)
    return _gwet(ratings, weights, categories, confidence)


def fleiss_kappa_ci(
    ratings: npt.ArrayLike | Coded, categories: Categories = None, confidence: float = 0.95
) -> KappaEstimate:
    """Fleiss' kappa (:func:`~iaa_gate.metrics.kappa.fleiss_kappa`) with Gwet's standard error.

    Same linearisation as AC1 with ``p_e = Σ_k π_k²`` and ``p_e|i = Σ_k r_ik π_k / r_i``
    (Gwet 2014; irrCAC ``fleiss``); t-interval with ``n − 1`` degrees of freedom.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.
    confidence : float
        The interval's coverage, strictly between 0 and 1.

    Returns
    -------
    KappaEstimate
        Kappa, Gwet's standard error and the t-interval.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> round(fleiss_kappa_ci(x).se, 4)
    0.5108
    """
    check_confidence(confidence)
    parts = fleiss_parts(ratings, categories)
    if isinstance(parts, Undefined):
        return KappaEstimate.undefined(parts.reason)
    kappa = float(min((parts.pa - parts.pe) / (1.0 - parts.pe), 1.0))
    n = len(parts.r)
    if n < 2:
        u = Undefined("the standard error needs at least two rated units")
        return KappaEstimate(kappa, u, u, u)
    multi = parts.r >= 2
    k_i = (n / parts.n2) * (parts.pa_i - parts.pe * multi) / (1.0 - parts.pe)
    pe_i = parts.counts.dot(parts.pi) / parts.r
    k_star = k_i - 2.0 * (1.0 - kappa) * (pe_i - parts.pe) / (1.0 - parts.pe)
    var = float(((k_star - kappa) ** 2).sum()) / (n * (n - 1.0))
    return _interval(kappa, var, n, confidence)
