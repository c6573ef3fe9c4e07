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
  interval is on rounds drawn from a model, and the smallest number of units whose interval is
  at most a width wide in a given share of rounds, for any level of measurement. The models:
  :func:`resampled` draws a pilot's units with replacement (its values, disagreements and
  annotators per unit as they are); :func:`settled`, before any data, is the settled-unit model.

The settled-unit model (the one kappaSize's formulas assume, Donner & Rotondi 2010): a unit
is *settled* with probability ``alpha``, and then every annotator gives the same value, drawn
with the value shares; otherwise each annotator draws a value on their own, with the same
shares. Both the observed and the expected disagreement are then sums over independent draws,
the observed one ``1 − alpha`` times the expected one, so the model's alpha is ``alpha`` at
every level of measurement (every distance δ²).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import progress
from ..core.arguments import instance, number
from ..core.errors import UsageError
from ._base import Coded, FloatArray, check_confidence, whole_numbers
from .alpha import LevelArg, check_level
from .bootstrap import alpha_bootstrap

__all__ = [
    "Draw",
    "Simulation",
    "WidthPlan",
    "cohen_kappa_sample_size",
    "interval_widths",
    "kappa_ci_sample_size",
    "kappa_power_sample_size",
    "krippendorff_sample_size",
    "more_units",
    "resampled",
    "settled",
    "settled_ratings",
    "width_sample_size",
]

_NORMAL = NormalDist()


def _share(name: str, x: float) -> float:
    return number(name, x, low=0, high=1, open_low=True, open_high=True)


def _at_least(name: str, n: int, least: int) -> int:
    return int(number(name, n, low=least, whole=True))


def _numbers(name: str, x: object) -> FloatArray:
    """``x`` as a float array; a :class:`UsageError` naming ``name`` when it holds other things."""
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError(f"{name} must be numbers, got {x!r}", parameter=name) from None


def _values(values: npt.ArrayLike) -> npt.NDArray[Any]:
    """The value table ``(V,)`` a :data:`Draw`'s codes index."""
    vals = np.asarray(list(values) if isinstance(values, range) else values)
    if vals.ndim != 1 or vals.size == 0:
        raise UsageError(
            f"values must be the (V,) values the codes index, got {values!r}", parameter="values"
        )
    return vals


def _draw(draw: object) -> None:
    if not callable(draw):
        raise UsageError(
            f"draw must be a Draw: settled(...) or resampled(codes), got {type(draw).__name__}",
            parameter="draw",
        )


def _differ(kappa: float, kappa_null: float) -> None:
    if kappa == kappa_null:
        raise UsageError(
            f"kappa and kappa_null must differ, got {kappa_null} for both", parameter="kappa_null"
        )


def krippendorff_sample_size(
    alpha_min: float, smallest_share: float, *, significance: float = 0.05, coders: int = 2
) -> int:
    """The minimum number of values for alpha to be at least ``alpha_min`` at ``significance``
    (Krippendorff's N).

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
    _at_least("coders", coders, 2)
    z = _NORMAL.inv_cdf(1.0 - significance)
    p = smallest_share
    a = alpha_min
    n = coders * z * z * ((1 + a) * (3 - a) / (4 * (1 - a) * p * (1 - p)) - a)
    return math.ceil(n - 1e-9)  # 138.0000000001 from rounding is 138


def _rater_probabilities(kappa: float, prevalence: float, raters: int) -> FloatArray:
    """P(j of ``raters`` say yes), j = 0…raters, under the common-kappa model: with
    probability kappa all raters give one answer (yes with ``prevalence``), else each on their
    own (Donner & Rotondi 2010; kappaSize writes these polynomials out for 2 to 6 raters)."""
    j = np.arange(raters + 1)
    pmf = [math.comb(raters, k) * prevalence**k * (1 - prevalence) ** (raters - k) for k in j]
    p = (1.0 - kappa) * np.array(pmf)
    p[0] += kappa * (1.0 - prevalence)
    p[-1] += kappa * prevalence
    out: FloatArray = p
    return out


def _chi2_1(q: float) -> float:
    """The ``q`` quantile of χ² with one degree of freedom: the square of the standard normal
    quantile at (1 + q) / 2."""
    return _NORMAL.inv_cdf((1.0 + q) / 2.0) ** 2


def _noncentrality(crit: float, below: float) -> float:
    """λ such that a non-central χ²₁(λ) is below ``crit`` with probability ``below``. χ²₁(λ) is
    (Z + √λ)², so P(χ²₁(λ) ≤ c) = Φ(√c − √λ) − Φ(−√c − √λ), which falls as λ grows: bisection
    (to 1e-12 relative, finer than kappaSize's own search)."""
    root = math.sqrt(crit)

    def cdf(lam: float) -> float:
        r = math.sqrt(lam)
        return _NORMAL.cdf(root - r) - _NORMAL.cdf(-root - r)

    lo, hi = 0.0, 1.0
    while cdf(hi) > below:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if cdf(mid) > below else (lo, mid)
    return (lo + hi) / 2.0


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
    _at_least("raters", raters, 2)


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
    _kappa_args(prevalence, raters, significance)
    _share("kappa", kappa)
    for name, limit, low, high in (("lower", lower, 0, kappa), ("upper", upper, kappa, 1)):
        if limit is not None and not (isinstance(limit, (int, float)) and low < limit < high):
            raise UsageError(
                f"{name}={limit!r} is not accepted: need 0 < lower < kappa < upper < 1, "
                f"and kappa={kappa}",
                parameter=name,
            )
    crit = _chi2_1(1.0 - (2 * significance if upper is None else significance))
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
    is ``1 − power`` (from the normal distribution: χ²₁(λ) is (Z + √λ)²).

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
    _kappa_args(prevalence, raters, significance)
    _share("power", power)
    _share("kappa", kappa)
    _share("kappa_null", kappa_null)
    _differ(kappa, kappa_null)
    lam = _noncentrality(_chi2_1(1.0 - significance), 1.0 - power)
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
    for name, k in (("kappa", kappa), ("kappa_null", kappa_null)):
        number(name, k, low=-1, high=1, open_low=True, open_high=True)
    _differ(kappa, kappa_null)

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


Draw = Callable[[int, np.random.Generator], npt.NDArray[np.int32]]
"""A model of rounds: ``draw(n_units, rng)`` gives ``(n_units, annotators)`` value codes, ``-1``
missing (:func:`settled` or :func:`resampled`)."""


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
        Annotators per unit: a number, or the counts to draw each unit's from (each at least 2).
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
    settled_units = rng.random(n_units) < alpha
    truth = rng.choice(len(p), size=n_units, p=p)
    codes = rng.choice(len(p), size=(n_units, width), p=p).astype(np.int32)
    codes[settled_units] = truth[settled_units, None]
    if counts.size > 1 or counts[0] != width:
        m = rng.choice(counts, size=n_units) if counts.size > 1 else np.full(n_units, width)
        codes[np.arange(width)[None, :] >= m[:, None]] = -1
    return codes


def settled(alpha: float, shares: npt.ArrayLike, annotators: int | npt.ArrayLike = 2) -> Draw:
    """The settled-unit model (module docstring) as a :data:`Draw`: before a round, from the
    alpha to expect, the values' shares and the annotators per unit.

    Parameters
    ----------
    alpha : float
        The model's alpha, in [0, 1).
    shares : array_like
        ``(V,)`` each value's probability.
    annotators : int or array_like
        Annotators per unit, or the counts each unit's is drawn from.

    Returns
    -------
    Draw
        The model.

    Examples
    --------
    >>> settled(0.8, [0.5, 0.5])(4, np.random.default_rng(0)).shape
    (4, 2)
    """
    if not (isinstance(alpha, (int, float)) and 0.0 <= alpha < 1.0):
        raise UsageError(
            f"the simulation's model needs an alpha in [0, 1), got {alpha}: "
            "a negative alpha is systematic disagreement, which it does not draw",
            parameter="alpha",
        )
    p = _numbers("shares", shares)
    if p.ndim != 1 or p.size < 2 or np.any(p < 0) or np.count_nonzero(p) < 2:
        raise UsageError(
            f"shares: at least two values with a positive share (none negative), got {shares!r}",
            parameter="shares",
        )
    counts = _numbers("annotators", annotators)
    if counts.ndim > 1 or np.any(counts < 2) or np.any(counts != np.round(counts)):
        raise UsageError(
            f"annotators per unit must be whole numbers ≥ 2, got {annotators!r}",
            parameter="annotators",
        )
    return lambda n, rng: settled_ratings(n, alpha, p, annotators, rng)


def resampled(codes: npt.ArrayLike) -> Draw:
    """A pilot's units drawn with replacement, as a :data:`Draw`: rounds like the pilot (its
    values, their shares, its disagreements and its annotators per unit), only larger.

    Parameters
    ----------
    codes : array_like
        ``(units, annotators)`` the pilot's value codes, ``-1`` missing; units with fewer than
        two ratings are left out (alpha never uses them).

    Returns
    -------
    Draw
        The model.

    Examples
    --------
    >>> draw = resampled([[0, 0], [0, 1], [1, -1]])
    >>> sorted(set(map(tuple, draw(20, np.random.default_rng(0)).tolist())))
    [(0, 0), (0, 1)]
    """
    c = whole_numbers(codes, "codes", "(units, annotators) value codes ≥ 0, -1 missing")
    if c.ndim != 2 or np.any(c < -1):
        raise UsageError(
            "codes must be (units, annotators) value codes ≥ 0, -1 missing", parameter="codes"
        )
    pairable = c[(c >= 0).sum(axis=1) >= 2].astype(np.int32)
    if len(pairable) < 2:
        raise UsageError(
            "codes: the pilot needs at least two units with two or more ratings",
            parameter="codes",
        )
    return lambda n, rng: pairable[rng.integers(0, len(pairable), n)]


def interval_widths(
    n_units: int,
    draw: Draw,
    *,
    values: npt.ArrayLike,
    level: LevelArg = "nominal",
    rounds: int = 2000,
    replicates: int = 200,
    confidence: float = 0.95,
    seed: int | np.random.Generator = 0,
) -> FloatArray:
    """Alpha's bootstrap interval width on ``rounds`` rounds of ``n_units`` units from ``draw``.

    Each round's interval is :func:`~iaa_gate.metrics.alpha_bootstrap`'s percentile interval
    from ``replicates`` resamples, as a report's is from its own (a report's default 1,000
    replicates give the same interval up to Monte Carlo noise).

    Parameters
    ----------
    n_units : int
        Units per round (at least 2).
    draw : Draw
        The model of rounds (:func:`settled`, :func:`resampled`).
    values : array_like
        ``(V,)`` the values the codes stand for: what the level's distance compares.
    level : str or Distance
        The level of measurement (as for :func:`~iaa_gate.metrics.krippendorff_alpha`).
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
    >>> w = interval_widths(200, settled(0.8, [0.25] * 4), values=range(4), rounds=20, seed=1)
    >>> w.shape, bool(0.05 < np.median(w) < 0.3)
    ((20,), True)
    """
    _at_least("n_units", n_units, 2)
    _draw(draw)
    check_level(level)
    _at_least("rounds", rounds, 1)
    _at_least("replicates", replicates, 1)
    check_confidence(confidence)
    vals = _values(values)
    rng = np.random.default_rng(seed)
    out = np.empty(rounds)
    # a round costs a bootstrap: a few timed rounds say how long the rest will take
    what = f"simulate rounds of {n_units:,} units"
    for r in progress.estimated(what, list(range(rounds)), "rounds", sample=8):
        b = alpha_bootstrap(
            Coded(draw(n_units, rng), vals),
            level,
            replicates=replicates,
            confidence=confidence,
            seed=rng,
        )
        out[r] = b.upper - b.lower
    return out


@dataclass(frozen=True)
class Simulation:
    """How :func:`width_sample_size` simulates.

    Parameters
    ----------
    assurance : float
        The share of rounds that must meet the width, in (0, 1).
    rounds : int
        Rounds drawn at the planned number of units (the search steps draw a quarter as many,
        at least 200).
    replicates : int
        Bootstrap resamples per round.
    confidence : float
        The interval's confidence.
    seed : int
        The random numbers: the same seed and model give the same plan.

    Examples
    --------
    >>> Simulation(rounds=500).assurance
    0.9
    """

    assurance: float = 0.9
    rounds: int = 2000
    replicates: int = 200
    confidence: float = 0.95
    seed: int = 0


@dataclass(frozen=True)
class WidthPlan:
    """The smallest number of units whose interval is at most ``width`` wide in at least
    ``simulation.assurance`` of simulated rounds (:func:`width_sample_size`).

    Parameters
    ----------
    n_units : int
        That number.
    width : float
        The widest interval wanted.
    share : float
        The share of the final ``simulation.rounds`` rounds at ``n_units`` whose interval was
        at most ``width`` wide (at least ``simulation.assurance``).
    simulation : Simulation
        How the rounds were drawn.

    Examples
    --------
    >>> WidthPlan(410, 0.1, 0.91, Simulation()).n_units
    410
    """

    n_units: int
    width: float
    share: float
    simulation: Simulation


def width_sample_size(
    width: float,
    draw: Draw,
    *,
    values: npt.ArrayLike,
    level: LevelArg = "nominal",
    simulation: Simulation = Simulation(),
    start: int | None = None,
) -> WidthPlan:
    """The smallest number of units (to within about 1 %) whose alpha interval is at most
    ``width`` wide in at least ``assurance`` of ``rounds`` rounds from ``draw`` (the
    ``simulation``'s).

    A width shrinks about as 1/√n, so each step of the search scales n by (w_q / width)², w_q
    the ``assurance`` quantile of the widths of a quarter of ``rounds`` rounds (at least 200)
    at n, until a step moves n by at most 1 %. There ``rounds`` fresh rounds are drawn; while
    fewer than ``assurance`` of them meet the width (Monte Carlo noise), n grows by 1 % and
    they are drawn again. The plan states the share of its final rounds that met the width.
    Each step draws from its own stream of the simulation's seed.

    Parameters
    ----------
    width : float
        The widest interval wanted, in (0, 2).
    draw, values, level
        As for :func:`interval_widths`.
    simulation : Simulation
        The assurance, rounds, replicates, confidence and seed.
    start : int, optional
        Where the search starts (default: 100 units).

    Returns
    -------
    WidthPlan
        The plan.

    Examples
    --------
    >>> quick = Simulation(rounds=100, replicates=100, seed=3)
    >>> plan = width_sample_size(0.2, settled(0.8, [0.25] * 4), values=range(4), simulation=quick)
    >>> plan.share >= 0.9, 50 < plan.n_units < 400
    (True, True)
    """
    number("width", width, low=0, high=2, open_low=True, open_high=True)
    sim = instance("simulation", simulation, Simulation, "a Simulation")
    _share("assurance", sim.assurance)
    _draw(draw)
    check_level(level)
    _values(values)
    if start is not None:
        _at_least("start", start, 2)
    streams = iter(np.random.SeedSequence(sim.seed).spawn(64))

    def widths(n: int, k: int) -> FloatArray:
        w = interval_widths(
            n,
            draw,
            values=values,
            level=level,
            rounds=k,
            replicates=sim.replicates,
            confidence=sim.confidence,
            seed=np.random.default_rng(next(streams)),
        )
        return np.where(np.isnan(w), np.inf, w)  # an undefined interval never meets a width

    n = max(2, start or 100)
    search = min(sim.rounds, max(200, sim.rounds // 4))
    for _ in range(6):  # the 1/√n step, until it moves n by at most 1 %
        q = float(np.quantile(widths(n, search), sim.assurance))
        nxt = 4 * n if not math.isfinite(q) else max(2, math.ceil(n * (q / width) ** 2))
        if abs(nxt - n) <= max(1.0, 0.01 * n):
            break
        n = nxt
    w = widths(n, sim.rounds)
    while float(np.mean(w <= width)) < sim.assurance:
        n = math.ceil(n * 1.01) + 1
        w = widths(n, sim.rounds)
    return WidthPlan(n_units=n, width=width, share=float(np.mean(w <= width)), simulation=sim)


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
    _at_least("n", n, 1)
    number("width", width, low=0, open_low=True)
    number("goal", goal, low=0, open_low=True)
    if width <= goal:
        return 0
    return max(0, math.ceil(n * (width / goal) ** 2 - 1e-9) - n)
