"""Kappa-type coefficients: Cohen (weighted, with standard error), Scott, Fleiss, Light.

Every function takes ``ratings`` shaped ``(units, annotators)`` (``None``/NaN missing) and an
optional ``categories`` sequence that fixes the category order and adds unobserved categories
(a rating outside it raises :class:`~iaa_gate.UsageError`). Two-annotator functions need
exactly two columns and use the units rated by both. Notation for two annotators: ``p_ij`` the
share of shared units that annotator 1 put in category ``i`` and annotator 2 in ``j``;
``p_i+``/``p_+i`` its row/column margins; ``p_o = Σ_i p_ii``; ``p_e = Σ_i p_i+ p_+i``;
``κ = (p_o − p_e)/(1 − p_e)``.

A value that its data do not determine is :class:`Undefined` (NaN with a reason), never 0 or 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from ..core.arguments import choice
from ..core.errors import UsageError
from ._base import CodeArray, Coded, FloatArray, Undefined, check_confidence, encode_ordered
from .categories import UnitCounts, counts_of

__all__ = [
    "KappaEstimate",
    "LightKappa",
    "allocation_disagreement",
    "bias_index",
    "cohen_kappa",
    "cohen_kappa_ci",
    "fleiss_kappa",
    "kappa_max",
    "light_kappa",
    "mean_pairwise_cohen_kappa",
    "pabak",
    "pairwise_cohen_kappa",
    "percent_agreement",
    "prevalence_index",
    "quantity_disagreement",
    "scott_pi",
]

Categories = npt.ArrayLike | None
Weights = str | npt.ArrayLike | None
KAPPA_WEIGHTS = ("identity", "linear", "quadratic")
"""Cohen's (1968) named agreement weights; ``None`` is ``"identity"``."""

# 1 − p_e at or below this is "expected agreement is 1" (p_e is a sum of products of shares, so
# with two or more categories in use it stays far from 1 at any realistic sample size).
EPS = 1e-12


@dataclass(frozen=True)
class KappaEstimate:
    """A coefficient with its large-sample standard error and confidence interval.

    Each value may be :class:`Undefined`. ``kappa`` is an alias of ``value``.

    Attributes
    ----------
    value : float
        The coefficient.
    se : float
        Its standard error.
    lower, upper : float
        The confidence limits (``upper`` is clipped at 1, the largest value any of these
        coefficients can take).

    Examples
    --------
    >>> from iaa_gate.metrics import kappa
    >>> e = cohen_kappa_ci([[1, 1], [2, 2], [1, 2], [2, 2]])
    >>> e.kappa == e.value, bool(e.lower < e.value <= e.upper)
    (True, True)
    """

    value: float
    se: float
    lower: float
    upper: float

    @property
    def kappa(self) -> float:
        return self.value

    @classmethod
    def undefined(cls, reason: str) -> KappaEstimate:
        u = Undefined(reason)
        return cls(u, u, u, u)


@dataclass(frozen=True)
class LightKappa:
    """Light's kappa with its bookkeeping.

    Attributes
    ----------
    value : float
        The mean of Cohen's kappa over the pairs where it is defined.
    pairs_used : int
        Those pairs.
    pairs_skipped : int
        Pairs whose kappa is undefined (no shared unit, or one shared category only).

    Examples
    --------
    >>> light_kappa([[1, 1, None], [2, 2, None], [None, 1, 1]]).pairs_skipped
    2
    """

    value: float
    pairs_used: int
    pairs_skipped: int


# --------------------------------------------------------------------------- shared helpers


def _coded(ratings: npt.ArrayLike | Coded, categories: Categories) -> Coded:
    return encode_ordered(ratings, categories, "categories")


def _two_columns(coded: Coded, name: str) -> None:
    if coded.codes.shape[1] != 2:
        raise UsageError(
            f"{name} needs exactly two annotator columns (units × 2), "
            f"got ratings of shape {coded.codes.shape}",
            parameter="ratings",
        )


def _pair_counts(a: CodeArray, b: CodeArray, k: int) -> FloatArray:
    """``(k, k)`` counts of (a, b) code pairs over the units where both are rated."""
    both = (a >= 0) & (b >= 0)
    flat = a[both].astype(np.intp) * k + b[both]  # codes may be int8: widen before multiplying
    return np.bincount(flat, minlength=k * k).reshape(k, k).astype(np.float64)


def _table(ratings: npt.ArrayLike | Coded, categories: Categories, name: str) -> FloatArray:
    """Two annotators' ``(K, K)`` count table over the units both rated."""
    coded = _coded(ratings, categories)
    _two_columns(coded, name)
    return _pair_counts(coded.codes[:, 0], coded.codes[:, 1], coded.n_values)


def weight_matrix(weights: object, k: int, named: tuple[str, ...]) -> FloatArray:
    """``weights`` given as a matrix: ``(k, k)`` finite numbers, one row per category; else a
    :class:`UsageError` that names ``named``, the weights a name gives."""
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        w = np.empty(0)  # not a matrix of numbers: refused by its shape below
    if w.shape != (k, k) or not np.all(np.isfinite(w)):
        raise UsageError(
            f"weights must be one of {', '.join(map(repr, named))} or a {k} × {k} matrix of "
            f"finite numbers (one row per category), got {w.shape if w.size else weights!r}",
            parameter="weights",
            accepted=named,
        )
    return w


def _agreement_weights(weights: Weights, k: int) -> FloatArray:
    """Cohen (1968) agreement weights over the category order, ``(k, k)``.

    linear: ``w_ij = 1 − |i − j|/(k − 1)``; quadratic: ``w_ij = 1 − (i − j)²/(k − 1)²``; ``None``
    or ``"identity"``: ``w_ij = [i = j]``. A matrix must be ``(k, k)`` with ones on the diagonal
    and entries in [0, 1].
    """
    if weights is None or (isinstance(weights, str) and weights == "identity"):
        return np.eye(k)
    if isinstance(weights, str):
        choice("weights", weights, KAPPA_WEIGHTS)
        if k < 2:
            return np.ones((k, k))
        d = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) / (k - 1)
        return np.asarray(1.0 - (d if weights == "linear" else d * d), dtype=np.float64)
    w = weight_matrix(weights, k, KAPPA_WEIGHTS)
    if w.min() < 0 or w.max() > 1 or not np.all(np.diag(w) == 1):
        raise UsageError(
            "weights: agreement weights must lie in [0, 1] with ones on the diagonal",
            parameter="weights",
        )
    return w


@dataclass(frozen=True)
class _CohenParts:
    n: float
    p: FloatArray  # (K, K) shares
    w: FloatArray  # (K, K) agreement weights
    po: float
    pe: float


def _cohen_parts(counts: FloatArray, w: FloatArray) -> _CohenParts | Undefined:
    n = float(counts.sum())
    if n == 0:
        return Undefined("no unit was rated by both annotators")
    p = counts / n
    po = float((w * p).sum())
    pe = float(p.sum(axis=1) @ w @ p.sum(axis=0))
    if 1.0 - pe <= EPS:
        used = int(np.count_nonzero(p.sum(axis=1) + p.sum(axis=0)))
        if used < 2:
            return Undefined(
                "expected agreement is 1: both annotators gave every shared unit the same "
                "single category"
            )
        return Undefined("expected agreement is 1 under these weights")
    return _CohenParts(n, p, w, po, pe)


def _cohen(
    ratings: npt.ArrayLike | Coded, weights: Weights, categories: Categories
) -> _CohenParts | Undefined:
    """Cohen's kappa's parts for two annotators' ``ratings`` under agreement ``weights``."""
    counts = _table(ratings, categories, "Cohen's kappa")
    return _cohen_parts(counts, _agreement_weights(weights, counts.shape[0]))


def _kappa(parts: _CohenParts) -> float:
    return float(min((parts.po - parts.pe) / (1.0 - parts.pe), 1.0))


# ------------------------------------------------------------------------------- Cohen


def cohen_kappa(
    ratings: npt.ArrayLike | Coded, weights: Weights = None, categories: Categories = None
) -> float:
    """Cohen's kappa (1960), or weighted kappa (Cohen 1968), of two annotators.

    ``ratings``: ``(units, 2)``; only units rated by both count. With agreement weights ``w_ij``
    (see ``weights``): ``p_o = Σ w_ij p_ij``, ``p_e = Σ w_ij p_i+ p_+j``,
    ``κ_w = (p_o − p_e)/(1 − p_e)``; ``weights=None`` gives the unweighted kappa.

    ``weights``: ``None``, ``"linear"`` (``1 − |i − j|/(K − 1)``), ``"quadratic"``
    (``1 − (i − j)²/(K − 1)²``) or a ``(K, K)`` agreement matrix, all over the category *order*
    (positions, not numeric values). Linear/quadratic weights thus depend on which categories
    exist: an unobserved category inside the scale moves the positions (one at either end only
    rescales the weights, which kappa ignores), so pass the full scale as ``categories``
    (``sklearn.cohen_kappa_score`` likewise uses only observed labels unless given ``labels=``).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    weights : {None, 'identity', 'linear', 'quadratic'} or array_like
        Agreement weights over the category order, or a ``(K, K)`` matrix with ones on the diagonal;
        ``None``: unweighted.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        Kappa; Undefined when ``p_e`` is 1.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> cohen_kappa(x)
    0.5
    >>> round(cohen_kappa([[1, 1], [2, 3], [3, 3], [1, 2]], weights='quadratic'), 4)
    0.6923
    """
    parts = _cohen(ratings, weights, categories)
    return parts if isinstance(parts, Undefined) else _kappa(parts)


def normal_quantile(p: float) -> float:
    """Standard normal quantile (``statistics.NormalDist``: Wichura's AS241, full precision)."""
    return NormalDist().inv_cdf(p)


def cohen_kappa_ci(
    ratings: npt.ArrayLike | Coded,
    weights: Weights = None,
    categories: Categories = None,
    confidence: float = 0.95,
) -> KappaEstimate:
    """Cohen's (weighted) kappa with the Fleiss, Cohen & Everitt (1969) standard error.

    Non-null (not under H0: κ = 0) large-sample variance, valid for weighted kappa:
        Var(κ_w) = [Σ_ij p_ij (w_ij − (w̄_i· + w̄_·j)(1 − κ_w))² − (κ_w − p_e(1 − κ_w))²]
                   / (n (1 − p_e)²),
    ``w̄_i· = Σ_j p_+j w_ij``, ``w̄_·j = Σ_i p_i+ w_ij``, ``n`` shared units. With identity
    weights it is the FCE unweighted formula. This is SAS PROC FREQ's "ASE" and statsmodels'
    ``cohens_kappa(...).std_kappa``. Wald interval ``κ ± z·se`` with the normal quantile ``z``;
    the upper limit is clipped at 1.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    weights : {None, 'identity', 'linear', 'quadratic'} or array_like
        Agreement weights over the category order, or a ``(K, K)`` matrix with ones on the diagonal;
        ``None``: unweighted.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.
    confidence : float
        The interval's coverage, strictly between 0 and 1.

    Returns
    -------
    KappaEstimate
        Kappa, its standard error and the Wald interval.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> e = cohen_kappa_ci(x)
    >>> round(e.value, 4), round(e.se, 4)
    (0.5, 0.375)
    """
    check_confidence(confidence)
    parts = _cohen(ratings, weights, categories)
    if isinstance(parts, Undefined):
        return KappaEstimate.undefined(parts.reason)
    kappa = _kappa(parts)
    p, w = parts.p, parts.w
    row, col = p.sum(axis=1), p.sum(axis=0)
    w_row = w @ col  # w̄_i·
    w_col = row @ w  # w̄_·j
    term = (p * (w - np.add.outer(w_row, w_col) * (1.0 - kappa)) ** 2).sum()
    var = (term - (kappa - parts.pe * (1.0 - kappa)) ** 2) / (parts.n * (1.0 - parts.pe) ** 2)
    se = math.sqrt(max(float(var), 0.0))
    z = normal_quantile(0.5 + confidence / 2.0)
    return KappaEstimate(kappa, se, kappa - z * se, min(kappa + z * se, 1.0))


def kappa_max(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Largest Cohen's kappa the two annotators' margins allow (Umesh et al. 1989).

    ``κ_max = (p_max − p_e)/(1 − p_e)`` with ``p_max = Σ_i min(p_i+, p_+i)``.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        κ_max; Undefined when ``p_e`` is 1.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> round(kappa_max(x), 4)
    0.5
    """
    counts = _table(ratings, categories, "kappa_max")
    parts = _cohen_parts(counts, np.eye(counts.shape[0]))
    if isinstance(parts, Undefined):
        return parts
    # the largest agreement the margins allow, from the counts: a sum of shares can exceed 1 by
    # a rounding error, and κ_max must then be exactly 1, not 1.0000000000000004
    po_max = np.minimum(counts.sum(axis=1), counts.sum(axis=0)).sum() / counts.sum()
    return float((po_max - parts.pe) / (1.0 - parts.pe))


def _shares(ratings: npt.ArrayLike | Coded, categories: Categories, name: str) -> FloatArray:
    counts = _table(ratings, categories, name)
    n = counts.sum()
    return counts / n if n > 0 else counts


def quantity_disagreement(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Pontius & Millones (2011) quantity disagreement of two annotators.

    ``Q = ½ Σ_i |p_i+ − p_+i|``: the disagreement that different category totals force.
    ``Q + A = 1 − p_o`` (see :func:`allocation_disagreement`).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        Q in [0, 1]; Undefined with no shared unit.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> quantity_disagreement(x)
    0.25
    """
    p = _shares(ratings, categories, "quantity disagreement")
    if p.sum() == 0:
        return Undefined("no unit was rated by both annotators")
    return float(0.5 * np.abs(p.sum(axis=1) - p.sum(axis=0)).sum())


def allocation_disagreement(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Pontius & Millones (2011) allocation disagreement of two annotators.

    ``A = ½ Σ_i 2 min(p_i+ − p_ii, p_+i − p_ii)``: the disagreement left once the totals match
    (swapped labels). ``Q + A = 1 − p_o``.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        A in [0, 1]; Undefined with no shared unit.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> allocation_disagreement(x)
    0.0
    """
    p = _shares(ratings, categories, "allocation disagreement")
    if p.sum() == 0:
        return Undefined("no unit was rated by both annotators")
    d = np.diag(p)
    return float(np.minimum(p.sum(axis=1) - d, p.sum(axis=0) - d).sum())


def _two_by_two(
    ratings: npt.ArrayLike | Coded, categories: Categories, name: str
) -> FloatArray | Undefined:
    """The 2 × 2 table of shares of two annotators, or why the Byrt index ``name`` is undefined."""
    p = _shares(ratings, categories, name)
    if p.shape[0] != 2:
        return Undefined(f"the {name} needs exactly two categories, found {p.shape[0]}")
    if p.sum() == 0:
        return Undefined("no unit was rated by both annotators")
    return p


def prevalence_index(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Byrt, Bishop & Carlin (1993) prevalence index ``PI = (a − d)/n`` (two categories).

    ``a``/``d``: units both annotators put in the first/second category (category order:
    ``categories`` or sorted values). Undefined unless there are exactly two categories.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        PI in [−1, 1]; Undefined unless there are exactly two categories.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> prevalence_index(x)
    -0.25
    """
    p = _two_by_two(ratings, categories, "prevalence index")
    return p if isinstance(p, Undefined) else float(p[0, 0] - p[1, 1])


def bias_index(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Byrt, Bishop & Carlin (1993) bias index ``BI = (b − c)/n`` (two categories).

    ``b``: units annotator 1 put in the first category and annotator 2 in the second; ``c`` the
    reverse. Undefined unless there are exactly two categories.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        BI in [−1, 1]; Undefined unless there are exactly two categories.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> bias_index(x)
    0.25
    """
    p = _two_by_two(ratings, categories, "bias index")
    return p if isinstance(p, Undefined) else float(p[0, 1] - p[1, 0])


def pabak(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Prevalence- and bias-adjusted kappa (Byrt, Bishop & Carlin 1993) of two annotators.

    Two categories: ``PABAK = 2 p_o − 1``. For ``K > 2`` categories this module uses the same
    uniform-chance idea, ``(K p_o − 1)/(K − 1)`` (Brennan & Prediger's coefficient for two
    annotators). ``K`` counts the categories in ``categories`` (observed or not) or, without it,
    the observed ones, so the value depends on declaring the full label set.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        PABAK; Undefined with no shared unit.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> pabak(x)
    0.5
    """
    p = _shares(ratings, categories, "PABAK")
    k = p.shape[0]
    if p.sum() == 0:
        return Undefined("no unit was rated by both annotators")
    if k < 2:
        return Undefined("PABAK needs at least two categories, only one is known")
    return float((k * np.trace(p) - 1.0) / (k - 1.0))


# ------------------------------------------------------------------ Scott, Fleiss, Light


def scott_pi(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Scott's pi (1955) of two annotators on the units both rated.

    ``π = (p_o − p_e)/(1 − p_e)`` with ``p_e = Σ_k ((p_k+ + p_+k)/2)²`` (pooled margins).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, 2)``: two annotators' ratings, ``None``/NaN missing; only units both rated count.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        Pi; Undefined when ``p_e`` is 1.

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2], [2, 2]]  # units × 2 annotators
    >>> round(scott_pi(x), 4)
    0.4667
    """
    counts = _table(ratings, categories, "Scott's pi")
    n = counts.sum()
    if n == 0:
        return Undefined("no unit was rated by both annotators")
    p = counts / n
    pooled = (p.sum(axis=0) + p.sum(axis=1)) / 2.0
    pe = float(pooled @ pooled)
    if 1.0 - pe <= EPS:
        return Undefined("expected agreement is 1: only one category occurs on the shared units")
    return float(min((np.trace(p) - pe) / (1.0 - pe), 1.0))


@dataclass(frozen=True)
class FleissParts:
    """Per-unit pieces of Fleiss' kappa with missing ratings (Gwet 2014), ``n`` rated units.

    ``counts``: the ratings per category (:class:`UnitCounts`, sparse); ``r``: ``(n,)`` ratings
    per unit; ``pa_i``:
    ``(n,)`` per-unit agreement (0 where ``r < 2``); ``n2``: units with ``r ≥ 2``; ``pi``:
    ``(K,)`` classification probabilities ``π_k = mean_i r_ik / r_i``; ``pa``, ``pe``.
    """

    counts: UnitCounts
    r: FloatArray
    pa_i: FloatArray
    n2: int
    pi: FloatArray
    pa: float
    pe: float


def fleiss_parts(
    ratings: npt.ArrayLike | Coded, categories: Categories = None
) -> FleissParts | Undefined:
    """Fleiss' kappa pieces (see :func:`fleiss_kappa`), or the reason it is undefined."""
    coded = _coded(ratings, categories)
    if coded.codes.shape[1] < 2:
        return Undefined("fewer than two annotators")
    counts = counts_of(coded)
    r = counts.r
    multi = r >= 2
    n2 = int(multi.sum())
    if n2 == 0:
        return Undefined("no unit has two or more ratings")
    pair_den = np.where(multi, r * (r - 1.0), 1.0)
    pa_i = np.where(multi, counts.pair_sums() / pair_den, 0.0)
    pi = counts.share_means()
    pe = float(pi @ pi)
    if 1.0 - pe <= EPS:
        return Undefined("expected agreement is 1: only one category occurs")
    return FleissParts(counts, r, pa_i, n2, pi, float(pa_i.sum() / n2), pe)


def fleiss_kappa(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Fleiss' kappa (1971) for any number of annotators, with missing ratings.

    ``ratings``: ``(units, annotators)``. Fleiss assumed ``m`` ratings per unit; with a varying
    number ``r_i`` this follows Gwet's generalisation (Handbook of Inter-Rater Reliability,
    4th ed., ch. 2; irrCAC ``fleiss``):
        ``P_i = Σ_k r_ik (r_ik − 1)/(r_i (r_i − 1))`` for units with ``r_i ≥ 2``,
        ``P̄ = mean of P_i`` over those units,
        ``π_k = mean over all rated units (r_i ≥ 1) of r_ik/r_i``, ``P̄_e = Σ_k π_k²``,
        ``κ = (P̄ − P̄_e)/(1 − P̄_e)``.
    With the same number of ratings on every rated unit, ``π_k`` is the pooled share of category
    ``k`` and this is exactly Fleiss (1971). (An alternative pools ``r_ik`` over the units with
    ``r_i ≥ 2`` only; the two differ only when ``r_i`` varies.)

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
        Kappa; Undefined when ``P̄_e`` is 1.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> round(fleiss_kappa(x), 4)
    0.1608
    """
    parts = fleiss_parts(ratings, categories)
    if isinstance(parts, Undefined):
        return parts
    return float(min((parts.pa - parts.pe) / (1.0 - parts.pe), 1.0))


def percent_agreement(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Gwet's percent agreement p_a: each unit's share of agreeing annotator pairs, averaged over
    the units with two or more ratings.

    ``(1/n') Σ_i Σ_k r_ik (r_ik − 1) / (r_i (r_i − 1))`` over the ``n'`` units with ``r_i ≥ 2``
    (Gwet 2014, eq. 2.9; irrCAC's ``pa``, R irr's ``agree`` on complete data; the p_a of
    Fleiss' kappa and AC1). For two annotators this is ``p_o``. :func:`pooled_pair_agreement`
    pools the pairs over units instead.

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
        p_a in [0, 1]; Undefined with no unit of two ratings.

    Examples
    --------
    >>> percent_agreement([[1, 1, 2], [1, 1, np.nan]])  # (1/3 + 1) / 2
    0.6666666666666666
    """
    coded = _coded(ratings, categories)
    counts = counts_of(coded)
    r = counts.r
    rated = r >= 2
    if not rated.any():
        return Undefined("no unit has two or more ratings")
    pairs = (r * (r - 1.0))[rated]
    return float((counts.pair_sums()[rated] / pairs).mean())


def pooled_pair_agreement(ratings: npt.ArrayLike | Coded, categories: Categories = None) -> float:
    """Share of agreeing annotator pairs among all annotator pairs, pooled over units.

    ``Σ_i Σ_k r_ik (r_ik − 1) / Σ_i r_i (r_i − 1)`` over units with ``r_i ≥ 2`` ratings: a unit
    with more ratings weighs more. Equal to :func:`percent_agreement` when every unit has the
    same number of ratings.

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
        The share in [0, 1]; Undefined with no pair.

    Examples
    --------
    >>> pooled_pair_agreement([[1, 1, 2], [1, 1, np.nan]])  # (2 + 2) / (6 + 2)
    0.5
    """
    coded = _coded(ratings, categories)
    counts = counts_of(coded)
    r = counts.r
    pairs = float((r * (r - 1.0)).sum())
    if pairs == 0:
        return Undefined("no unit has two or more ratings")
    return float(counts.pair_sums().sum() / pairs)


def pairwise_cohen_kappa(
    ratings: npt.ArrayLike | Coded, weights: Weights = None, categories: Categories = None
) -> FloatArray:
    """``(A, A)`` symmetric matrix of Cohen's kappa for every annotator pair on the units both
    rated; NaN on the diagonal and where a pair's kappa is undefined. ``A(A − 1)/2`` passes over
    the units, each O(units).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    weights : {None, 'identity', 'linear', 'quadratic'} or array_like
        Agreement weights over the category order, or a ``(K, K)`` matrix with ones on the diagonal;
        ``None``: unweighted.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    ndarray
        ``(A, A)`` kappa per pair, NaN on the diagonal and where undefined.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> pairwise_cohen_kappa(x).round(3).tolist()
    [[nan, 0.5, 0.4], [0.5, nan, 0.4], [0.4, 0.4, nan]]
    """
    coded = _coded(ratings, categories)
    k = coded.n_values
    a_count = coded.codes.shape[1]
    w = _agreement_weights(weights, k)
    out = np.full((a_count, a_count), np.nan)
    for a in range(a_count):
        for b in range(a + 1, a_count):
            parts = _cohen_parts(_pair_counts(coded.codes[:, a], coded.codes[:, b], k), w)
            if not isinstance(parts, Undefined):
                out[a, b] = out[b, a] = _kappa(parts)
    return out


def light_kappa(
    ratings: npt.ArrayLike | Coded, weights: Weights = None, categories: Categories = None
) -> LightKappa:
    """Light's (1971) kappa: the mean of Cohen's kappa over annotator pairs, with pair counts.

    Pairs whose kappa is undefined (no shared unit, or one shared category only) are skipped and
    counted in ``pairs_skipped``; ``value`` is undefined when no pair is defined.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    weights : {None, 'identity', 'linear', 'quadratic'} or array_like
        Agreement weights over the category order, or a ``(K, K)`` matrix with ones on the diagonal;
        ``None``: unweighted.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    LightKappa
        The mean kappa and how many pairs were used and skipped.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> k = light_kappa(x)
    >>> round(k.value, 4), k.pairs_used, k.pairs_skipped
    (0.4333, 3, 0)
    """
    coded = _coded(ratings, categories)
    a_count = coded.codes.shape[1]
    _agreement_weights(weights, coded.n_values)  # refused even when no pair is scored
    if a_count < 2:
        return LightKappa(Undefined("fewer than two annotators"), 0, 0)
    matrix = pairwise_cohen_kappa(coded, weights)
    upper = matrix[np.triu_indices(a_count, 1)]
    defined = ~np.isnan(upper)
    used, skipped = int(defined.sum()), int((~defined).sum())
    if used == 0:
        return LightKappa(
            Undefined(f"Cohen's kappa is undefined for all {skipped} annotator pairs"), 0, skipped
        )
    return LightKappa(float(upper[defined].mean()), used, skipped)


def mean_pairwise_cohen_kappa(
    ratings: npt.ArrayLike | Coded, weights: Weights = None, categories: Categories = None
) -> float:
    """Light's kappa as a float: see :func:`light_kappa` (which also reports skipped pairs).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    weights : {None, 'identity', 'linear', 'quadratic'} or array_like
        Agreement weights over the category order, or a ``(K, K)`` matrix with ones on the diagonal;
        ``None``: unweighted.
    categories : array_like, optional
        The category order, unused categories included; by default the distinct values given,
        sorted.

    Returns
    -------
    float
        The mean kappa over the defined pairs; Undefined when none is.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> round(mean_pairwise_cohen_kappa(x), 4)
    0.4333
    """
    return light_kappa(ratings, weights, categories).value
