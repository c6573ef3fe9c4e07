"""How many units a reliability study needs: closed forms and a seeded simulation.

- :func:`krippendorff_sample_size`: Krippendorff's minimum number of values for a smallest
  acceptable alpha at a significance level (Krippendorff 2019, *Content Analysis*, 4th ed.,
  using Bloch & Kraemer 1989, eq. 3.7).
- :func:`kappa_ci_sample_size` and :func:`kappa_power_sample_size`: a binary field's kappa
  with a confidence-interval or a power goal, as R's kappaSize computes them (``CIBinary``,
  ``PowerBinary``; Donner & Rotondi 2010, Rotondi & Donner 2012, Donner & Eliasziw 1992).
- :func:`cohen_kappa_sample_size`: Cantor's (1996) sample size for Cohen's kappa, as R's irr
  computes it (``N.cohen.kappa``).
- :func:`interval_widths` and :func:`width_sample_size`: how wide alpha's 95 % bootstrap
  interval is on rounds drawn from a known model, and the smallest number of units whose
  interval is at most a width wide in a given share of rounds, for any level of measurement.

The simulation's model (the one kappaSize's formulas assume, Donner & Rotondi 2010): a unit
is *settled* with probability ``alpha``, and then every annotator gives the same value, drawn
with the value shares; otherwise each annotator draws a value on their own, with the same
shares. Both the observed and the expected disagreement are then sums over independent draws,
the observed one ``1 − alpha`` times the expected one, so the model's alpha is ``alpha`` at
every level of measurement (every distance δ²).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from ._base import Coded, FloatArray
from .alpha import LevelArg
from .bootstrap import alpha_bootstrap

__all__ = [
    "WidthPlan",
    "cohen_kappa_sample_size",
    "interval_widths",
    "kappa_ci_sample_size",
    "kappa_power_sample_size",
    "krippendorff_sample_size",
    "more_units",
    "settled_ratings",
    "width_sample_size",
]

_NORMAL = NormalDist()


def _share(name: str, x: float) -> None:
    if not 0.0 < x < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {x}")


def krippendorff_sample_size(
    alpha_min: float, smallest_share: float, *, significance: float = 0.05, coders: int = 2
) -> int:
    """The minimum number of values (units × coders' values, as Krippendorff counts them) for
    alpha to be at least ``alpha_min`` at ``significance``.

    Krippendorff (2019, *Content Analysis*, 4th ed., section 12.5), from Bloch & Kraemer
    (1989, eq. 3.7)::

        N = coders · z² · ((1 + α_min)(3 − α_min) / (4 (1 − α_min) p_c (1 − p_c)) − α_min)

    rounded up, where z is the one-tailed standard normal quantile at ``1 − significance``
    and p_c the probability of the least likely value (``1 / categories`` when all are equally
    likely). With more than two coders z² is multiplied by their number.

    Parameters
    ----------
    alpha_min : float
        The smallest acceptable alpha, in (0, 1).
    smallest_share : float
        p_c, the probability of the least likely value, in (0, 1).
    significance : float
        The level of statistical significance, in (0, 1).
    coders : int
        How many coders value each unit (at least 2).

    Returns
    -------
    int
        The minimum number of values.

    Examples
    --------
    Krippendorff's worked values: two coders, four equally likely values, p = .05:

    >>> krippendorff_sample_size(0.8, 0.25), krippendorff_sample_size(0.667, 0.25)
    (139, 81)
    """
    _share("alpha_min", alpha_min)
    _share("smallest_share", smallest_share)
    _share("significance", significance)
    if coders < 2:
        raise ValueError(f"coders must be at least 2, got {coders}")
    z = _NORMAL.inv_cdf(1.0 - significance)
    p = smallest_share
    a = alpha_min
    n = coders * z * z * ((1 + a) * (3 - a) / (4 * (1 - a) * p * (1 - p)) - a)
    return math.ceil(n - 1e-9)  # 138.0000000001 from rounding is 138


def _rater_probabilities(kappa: float, prevalence: float, raters: int) -> FloatArray:
    """P(j of ``raters`` say yes), j = 0…raters, under the common-kappa model: with
    probability kappa all raters give one answer (yes with ``prevalence``), else each on their
    own (Donner & Rotondi 2010; kappaSize writes these polynomials out for 2 to 6 raters)."""
    from scipy.stats import binom

    j = np.arange(raters + 1)
    p = (1.0 - kappa) * binom.pmf(j, raters, prevalence)
    p[0] += kappa * (1.0 - prevalence)
    p[-1] += kappa * prevalence
    out: FloatArray = p
    return out


def _distance(kappa_true: float, kappa_at: float, prevalence: float, raters: int) -> float:
    """The chi-square goodness-of-fit per unit between the two models: Σ (P_j(at) −
    P_j(true))² / P_j(true) (terms with P_j(true) = 0 dropped, as kappaSize drops them)."""
    p_true = _rater_probabilities(kappa_true, prevalence, raters)
    p_at = _rater_probabilities(kappa_at, prevalence, raters)
    ok = p_true > 0
    return float(np.sum((p_at[ok] - p_true[ok]) ** 2 / p_true[ok]))


def _kappa_args(prevalence: float, raters: int, significance: float) -> None:
    _share("prevalence", prevalence)
    _share("significance", significance)
    if raters < 2:
        raise ValueError(f"raters must be at least 2, got {raters}")


def kappa_ci_sample_size(
    kappa: float,
    lower: float,
    upper: float | None = None,
    *,
    prevalence: float,
    raters: int = 2,
    significance: float = 0.05,
) -> int:
    """Units for a binary field's kappa interval to reach ``lower`` (and ``upper``).

    The confidence-interval approach of Donner & Rotondi (2010) and Rotondi & Donner (2012),
    as R's kappaSize ``CIBinary`` computes it: the smallest n whose chi-square goodness of fit
    n · Σ_j (P_j(κ) − P_j(κ_L))² / P_j(κ_L) reaches the critical value χ²₁ at ``1 −
    significance`` (two-sided, with ``upper``) or ``1 − 2·significance`` (one-sided, without),
    P_j the probability that j of the raters say yes under the common-kappa model. As in
    kappaSize, the statistic must exceed the critical value by 0.001 and the search starts at
    11 units.

    Parameters
    ----------
    kappa : float
        The anticipated kappa, in (0, 1).
    lower : float
        The lower confidence limit to expect, below ``kappa``.
    upper : float, optional
        The upper confidence limit to expect, above ``kappa``; None for a one-sided interval.
    prevalence : float
        The anticipated share of yes answers, in (0, 1).
    raters : int
        Raters per unit (kappaSize allows 2 to 6; any number from 2 here).
    significance : float
        The type I error rate.

    Returns
    -------
    int
        The number of units.

    Examples
    --------
    kappaSize's example (``CIBinary(kappa0=0.4, kappaL=0.3, kappaU=0.5, props=0.30)``):

    >>> kappa_ci_sample_size(0.4, 0.3, 0.5, prevalence=0.3)
    397
    """
    from scipy.stats import chi2

    _kappa_args(prevalence, raters, significance)
    if not 0.0 < lower < kappa < 1.0 or (upper is not None and not kappa < upper < 1.0):
        raise ValueError(f"need 0 < lower < kappa < upper < 1, got {lower}, {kappa}, {upper}")
    crit = float(chi2.ppf(1.0 - (2 * significance if upper is None else significance), 1))
    n = 11
    for limit in (lower, upper):
        if limit is not None:
            per_unit = _distance(limit, kappa, prevalence, raters)
            n = max(n, math.ceil((crit + 0.001) / per_unit))
    return n


def kappa_power_sample_size(
    kappa: float,
    kappa_null: float,
    *,
    prevalence: float,
    raters: int = 2,
    significance: float = 0.05,
    power: float = 0.8,
) -> int:
    """Units to tell a binary field's kappa ``kappa`` from ``kappa_null`` with ``power``.

    Donner & Eliasziw's (1992) goodness-of-fit approach, as R's kappaSize ``PowerBinary``
    computes it: n = λ / Σ_j (P_j(κ₁) − P_j(κ₀))² / P_j(κ₀), rounded up, with λ the
    non-centrality of a χ²₁ whose probability below the critical value χ²₁(1 − significance)
    is ``1 − power``.

    Parameters
    ----------
    kappa : float
        The kappa to detect (κ₁), in (0, 1).
    kappa_null : float
        The kappa of the null hypothesis (κ₀), in (0, 1).
    prevalence : float
        The anticipated share of yes answers, in (0, 1).
    raters : int
        Raters per unit (at least 2).
    significance : float
        The type I error rate.
    power : float
        The power, 1 − the type II error rate.

    Returns
    -------
    int
        The number of units.

    Examples
    --------
    kappaSize's example (``PowerBinary(kappa0=0.4, kappa1=0.6, props=0.30)``: 190.46):

    >>> kappa_power_sample_size(0.6, 0.4, prevalence=0.3)
    191
    """
    from scipy.optimize import brentq
    from scipy.stats import chi2, ncx2

    _kappa_args(prevalence, raters, significance)
    _share("power", power)
    _share("kappa", kappa)
    _share("kappa_null", kappa_null)
    if kappa == kappa_null:
        raise ValueError("kappa and kappa_null must differ")
    crit = float(chi2.ppf(1.0 - significance, 1))
    hi = 1.0
    while float(ncx2.cdf(crit, 1, hi)) > 1.0 - power:
        hi *= 2.0
    lam = float(brentq(lambda x: float(ncx2.cdf(crit, 1, x)) - (1.0 - power), 1e-9, hi, xtol=1e-10))
    return math.ceil(lam / _distance(kappa_null, kappa, prevalence, raters) - 1e-9)


def cohen_kappa_sample_size(
    rate1: float,
    rate2: float,
    kappa: float,
    kappa_null: float,
    *,
    significance: float = 0.05,
    power: float = 0.8,
    two_sided: bool = False,
) -> int:
    """Units to test Cohen's kappa on a binary field against ``kappa_null`` (Cantor 1996).

    As R's irr ``N.cohen.kappa(rate1, rate2, k1, k0)`` computes it: n = ((z_{1−a} √Q₀ +
    z_power √Q₁) / (κ₁ − κ₀))², rounded up, with Q the asymptotic variance of kappa times n
    (Fleiss, Cohen & Everitt 1969) under each hypothesis and a = significance (halved when
    ``two_sided``).

    Parameters
    ----------
    rate1, rate2 : float
        The probability that the first (second) rater says yes.
    kappa : float
        The true kappa (irr's ``k1``).
    kappa_null : float
        The kappa of the null hypothesis (irr's ``k0``).
    significance : float
        The type I error rate.
    power : float
        The power.
    two_sided : bool
        A two-sided test.

    Returns
    -------
    int
        The number of units.

    Examples
    --------
    irr's example, ``N.cohen.kappa(0.5, 0.5, 0.7, 0.85)``:

    >>> cohen_kappa_sample_size(0.5, 0.5, 0.7, 0.85)
    96
    """
    _share("rate1", rate1)
    _share("rate2", rate2)
    _share("significance", significance)
    _share("power", power)
    if kappa == kappa_null:
        raise ValueError("kappa and kappa_null must differ")

    def variance(k: float) -> float:
        no1, no2 = 1 - rate1, 1 - rate2
        chance = rate1 * rate2 + no1 * no2
        p0 = k * (1 - chance) + chance
        p22 = (p0 - rate1 + no2) / 2
        p11 = p0 - p22
        p12, p21 = rate1 - p11, rate2 - p11
        return float(
            (1 - chance) ** -4
            * (
                p11 * (1 - chance - (rate2 + rate1) * (1 - p0)) ** 2
                + p22 * (1 - chance - (no2 + no1) * (1 - p0)) ** 2
                + (1 - p0) ** 2 * (p12 * (rate2 + no1) ** 2 + p21 * (no2 + rate1) ** 2)
                - (p0 * chance - 2 * chance + p0) ** 2
            )
        )

    z_a = _NORMAL.inv_cdf(1 - significance / (2 if two_sided else 1))
    z_b = _NORMAL.inv_cdf(power)
    root = z_a * math.sqrt(variance(kappa_null)) + z_b * math.sqrt(variance(kappa))
    return math.ceil((root / (kappa - kappa_null)) ** 2 - 1e-9)


# ------------------------------------------------------------------------------ simulation


def settled_ratings(
    n_units: int,
    alpha: float,
    shares: npt.ArrayLike,
    annotators: int | npt.ArrayLike,
    rng: np.random.Generator,
) -> npt.NDArray[np.int32]:
    """``(n_units, max annotators)`` value codes (``-1`` missing) drawn from the settled-unit
    model (module docstring).

    Parameters
    ----------
    n_units : int
        Units to draw.
    alpha : float
        The model's alpha, in [0, 1]: the probability that a unit is settled.
    shares : array_like
        ``(V,)`` each value's probability (normalised here).
    annotators : int or array_like
        Annotators per unit: a number, or the counts to draw each unit's from (a pilot's
        annotators per task, each at least 2).
    rng : numpy.random.Generator
        The random numbers.

    Returns
    -------
    numpy.ndarray
        The codes, into ``shares``'s values.

    Examples
    --------
    >>> settled_ratings(3, 1.0, [0.5, 0.5], 2, np.random.default_rng(0)).shape
    (3, 2)
    """
    p = np.asarray(shares, dtype=np.float64)
    p = p / p.sum()
    counts = np.atleast_1d(np.asarray(annotators, dtype=np.int64))
    width = int(counts.max())
    settled = rng.random(n_units) < alpha
    truth = rng.choice(len(p), size=n_units, p=p)
    codes = rng.choice(len(p), size=(n_units, width), p=p).astype(np.int32)
    codes[settled] = truth[settled, None]
    if counts.size > 1 or counts[0] != width:
        m = rng.choice(counts, size=n_units) if counts.size > 1 else np.full(n_units, width)
        codes[np.arange(width)[None, :] >= m[:, None]] = -1
    return codes


def _model_args(alpha: float, shares: npt.ArrayLike, annotators: int | npt.ArrayLike) -> None:
    if not 0.0 <= alpha < 1.0:
        raise ValueError(
            f"the simulation's model needs an alpha in [0, 1), got {alpha}: "
            "a negative alpha is systematic disagreement, which it does not draw"
        )
    p = np.asarray(shares, dtype=np.float64)
    if p.ndim != 1 or p.size < 2 or np.any(p < 0) or np.count_nonzero(p) < 2:
        raise ValueError("shares: at least two values with a positive share")
    if np.any(np.atleast_1d(np.asarray(annotators)) < 2):
        raise ValueError("annotators per unit must be at least 2")


def interval_widths(
    n_units: int,
    alpha: float,
    shares: npt.ArrayLike,
    annotators: int | npt.ArrayLike = 2,
    *,
    level: LevelArg = "nominal",
    values: npt.ArrayLike | None = None,
    rounds: int = 2000,
    replicates: int = 200,
    confidence: float = 0.95,
    seed: int | np.random.Generator = 0,
) -> FloatArray:
    """Alpha's bootstrap interval width on ``rounds`` rounds of ``n_units`` units drawn from
    the settled-unit model (module docstring).

    Each round's interval is :func:`~iaa_gate.metrics.alpha_bootstrap`'s percentile interval
    from ``replicates`` resamples, as a report's is from its own (a report's default 1,000
    replicates give the same interval up to Monte Carlo noise).

    Parameters
    ----------
    n_units : int
        Units per round (at least 2).
    alpha : float
        The model's alpha, in [0, 1).
    shares : array_like
        ``(V,)`` each value's probability.
    annotators : int or array_like
        Annotators per unit, or the counts each unit's is drawn from.
    level : str or Distance
        The level of measurement (as for :func:`~iaa_gate.metrics.krippendorff_alpha`).
    values : array_like, optional
        ``(V,)`` the values the shares belong to (default 0, 1, …, V − 1): what the level's
        distance compares.
    rounds, replicates : int
        Rounds drawn; bootstrap resamples per round.
    confidence : float
        The interval's confidence.
    seed : int or numpy.random.Generator
        The random numbers: the same seed gives the same widths.

    Returns
    -------
    numpy.ndarray
        ``(rounds,)`` the widths, NaN where alpha's interval is undefined.

    Examples
    --------
    >>> w = interval_widths(200, 0.8, [0.25] * 4, rounds=20, seed=1)
    >>> w.shape, bool(0.05 < np.median(w) < 0.3)
    ((20,), True)
    """
    _model_args(alpha, shares, annotators)
    if n_units < 2:
        raise ValueError(f"n_units must be at least 2, got {n_units}")
    rng = np.random.default_rng(seed)
    k = len(np.asarray(shares))
    vals = np.arange(k) if values is None else np.asarray(values)
    out = np.empty(rounds)
    for r in range(rounds):
        codes = settled_ratings(n_units, alpha, shares, annotators, rng)
        b = alpha_bootstrap(
            Coded(codes, vals), level, replicates=replicates, confidence=confidence, seed=rng
        )
        out[r] = b.upper - b.lower
    return out


@dataclass(frozen=True)
class WidthPlan:
    """The smallest number of units whose interval is at most ``width`` wide in at least
    ``assurance`` of simulated rounds.

    ``n_units``: that number; ``share``: the share of the ``rounds`` final rounds at
    ``n_units`` whose interval was at most ``width`` wide (≥ ``assurance``);
    ``median_width``: their median width; ``alpha``, ``confidence``: the model's alpha and the
    interval's confidence; ``seed``: the seed the rounds were drawn from."""

    n_units: int
    width: float
    assurance: float
    share: float
    median_width: float
    rounds: int
    alpha: float
    confidence: float
    seed: int


def width_sample_size(
    width: float,
    alpha: float,
    shares: npt.ArrayLike,
    annotators: int | npt.ArrayLike = 2,
    *,
    level: LevelArg = "nominal",
    values: npt.ArrayLike | None = None,
    assurance: float = 0.9,
    rounds: int = 2000,
    replicates: int = 200,
    confidence: float = 0.95,
    start: int | None = None,
    seed: int = 0,
) -> WidthPlan:
    """The smallest number of units (to within about 1 %) whose alpha interval is at most ``width``
    wide in at least ``assurance`` of ``rounds`` simulated rounds.

    A width shrinks about as 1/√n, so each step scales n by (w_q / width)², w_q the
    ``assurance`` quantile of the widths at n, and draws ``rounds`` fresh rounds there, until a
    step moves n by at most 1 % (n then sits where the ``assurance`` quantile is ``width``);
    while that n's rounds meet the width in fewer than ``assurance`` of them (Monte Carlo
    noise), it grows by 1 %. The plan states the share of its rounds that met the width.

    Parameters
    ----------
    width : float
        The widest interval wanted, in (0, 2).
    alpha, shares, annotators, level, values, rounds, replicates, confidence
        As for :func:`interval_widths`.
    assurance : float
        The share of rounds that must meet ``width``, in (0, 1).
    start : int, optional
        Where the search starts (default: 100 units).
    seed : int
        The random numbers (each step draws from its own stream of this seed).

    Returns
    -------
    WidthPlan
        The plan.

    Examples
    --------
    >>> plan = width_sample_size(0.2, 0.8, [0.25] * 4, rounds=100, replicates=100, seed=3)
    >>> plan.share >= 0.9, 50 < plan.n_units < 400
    (True, True)
    """
    if not 0.0 < width < 2.0:
        raise ValueError(f"width must be in (0, 2), got {width}")
    _share("assurance", assurance)
    _model_args(alpha, shares, annotators)
    streams = iter(np.random.SeedSequence(seed).spawn(64))

    def share_at(n: int) -> tuple[float, FloatArray]:
        w = interval_widths(
            n,
            alpha,
            shares,
            annotators,
            level=level,
            values=values,
            rounds=rounds,
            replicates=replicates,
            confidence=confidence,
            seed=np.random.default_rng(next(streams)),
        )
        w = np.where(np.isnan(w), np.inf, w)  # an undefined interval never meets a width
        return float(np.mean(w <= width)), w

    def scaled(n: int, w: FloatArray) -> int:
        q = float(np.quantile(w, assurance))
        if not math.isfinite(q):
            return 4 * n
        return max(2, math.ceil(n * (q / width) ** 2))

    n = max(2, start or 100)
    tried = {n: share_at(n)}
    for _ in range(6):  # the 1/√n step, until it moves n by at most 1 %
        nxt = scaled(n, tried[n][1])
        if abs(nxt - n) <= max(1.0, 0.01 * n):
            break
        n = nxt
        tried.setdefault(n, share_at(n))
    share, w = tried[n]
    while share < assurance:  # short by Monte Carlo noise: grow by 1 % until it is met
        n = math.ceil(n * 1.01) + 1
        share, w = share_at(n)
    finite = w[np.isfinite(w)]
    return WidthPlan(
        n_units=n,
        width=width,
        assurance=assurance,
        share=share,
        median_width=float(np.median(finite)) if finite.size else math.nan,
        rounds=rounds,
        alpha=alpha,
        confidence=confidence,
        seed=seed,
    )


def more_units(n: int, width: float, goal: float) -> int:
    """Units to add to ``n`` for an interval ``width`` wide to be about ``goal`` wide, if it
    shrinks as 1/√n: ⌈n (width / goal)²⌉ − n (0 when it is already no wider).

    Parameters
    ----------
    n : int
        Units the interval is from.
    width : float
        Its width.
    goal : float
        The widest wanted.

    Returns
    -------
    int
        Units to add.

    Examples
    --------
    >>> more_units(100, 0.2, 0.1)
    300
    """
    if width <= goal:
        return 0
    return max(0, math.ceil(n * (width / goal) ** 2 - 1e-9) - n)
