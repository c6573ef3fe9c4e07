"""Agreement coefficients in words: named benchmark scales and Gwet's probabilistic benchmarking.

Scales (each an ordered tuple of :class:`Band`, lowest first):

- ``krippendorff`` (Krippendorff 2004, *Content Analysis*, 2nd ed.; 2011): α ≥ 0.800 reliable;
  0.667 ≤ α < 0.800 tentative (only for tentative conclusions); below, unreliable. The bound
  is .667 as printed, not 2/3.
- ``landis_koch`` (Landis & Koch 1977): < 0 poor, 0.00–0.20 slight, 0.21–0.40 fair,
  0.41–0.60 moderate, 0.61–0.80 substantial, 0.81–1.00 almost perfect.
- ``fleiss`` (Fleiss 1981, *Statistical Methods for Rates and Proportions*): < 0.40 poor,
  0.40–0.75 fair to good, > 0.75 excellent.
- ``altman`` (Altman 1991, *Practical Statistics for Medical Research*): < 0.20 poor,
  0.21–0.40 fair, 0.41–0.60 moderate, 0.61–0.80 good, 0.81–1.00 very good.

The published tables give two-decimal ranges with gaps (0.20 | 0.21). On the continuous scale each
range runs up to and including its printed upper bound: 0.20 is slight and 0.2000001 fair on
Landis–Koch, 0.80 is substantial. Where a table writes the lowest range as "< a" the next range
starts *at* a: Landis–Koch 0.00 is slight, Fleiss 0.40 fair to good, Altman 0.20 fair. So
two-decimal values read exactly as printed. Krippendorff's bounds are "at least" bounds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import pairwise
from types import MappingProxyType
from typing import NamedTuple

from ..core.arguments import choice, number
from ._base import check_confidence
from .gwet import t_abs_cdf

__all__ = [
    "SCALES",
    "Band",
    "benchmark_probability",
    "gwet_benchmark",
    "interpret",
    "scale_table",
]


class Band(NamedTuple):
    """One band of an interpretation scale (:data:`SCALES`).

    Attributes
    ----------
    lower : float
        Where the band starts (``-inf`` for the lowest band); it ends at the next band's
        ``lower``.
    label : str
        The band's name.
    closed : bool
        Whether ``lower`` itself belongs to this band (else to the band below).

    Examples
    --------
    >>> SCALES['landis_koch'][2]
    Band(lower=0.2, label='fair', closed=False)
    """

    lower: float
    label: str
    closed: bool = True


_NEG = -math.inf

SCALES: Mapping[str, tuple[Band, ...]] = MappingProxyType(
    {
        "krippendorff": (
            Band(_NEG, "unreliable"),
            Band(0.667, "tentative"),
            Band(0.800, "reliable"),
        ),
        "landis_koch": (
            Band(_NEG, "poor"),
            Band(0.0, "slight"),
            Band(0.20, "fair", closed=False),
            Band(0.40, "moderate", closed=False),
            Band(0.60, "substantial", closed=False),
            Band(0.80, "almost perfect", closed=False),
        ),
        "fleiss": (
            Band(_NEG, "poor"),
            Band(0.40, "fair to good"),
            Band(0.75, "excellent", closed=False),
        ),
        "altman": (
            Band(_NEG, "poor"),
            Band(0.20, "fair"),
            Band(0.40, "moderate", closed=False),
            Band(0.60, "good", closed=False),
            Band(0.80, "very good", closed=False),
        ),
    }
)
"""Scale name → its bands, lowest first."""


def _scale(scale: str) -> tuple[Band, ...]:
    return SCALES[choice("scale", scale, tuple(SCALES))]


def interpret(value: float, scale: str = "krippendorff") -> str | None:
    """The label of ``value`` on ``scale`` (see :data:`SCALES`); ``None`` when it is NaN.

    Parameters
    ----------
    value : float
        A coefficient.
    scale : str
        A scale of :data:`SCALES`.

    Returns
    -------
    str or None
        The band's label; ``None`` for NaN.

    Examples
    --------
    >>> interpret(0.72), interpret(0.2, "landis_koch"), interpret(0.205, "landis_koch")
    ('tentative', 'slight', 'fair')
    """
    bands = _scale(scale)
    if math.isnan(number("value", value, nan=True)):
        return None
    label = bands[0].label
    for band in bands[1:]:
        if value > band.lower or (band.closed and value == band.lower):
            label = band.label
    return label


def scale_table(scale: str) -> list[tuple[str, str]]:
    """``(range, label)`` rows of ``scale``, lowest first, e.g. ``("0.20 < v ≤ 0.40", "fair")``.

    Parameters
    ----------
    scale : str
        A scale of :data:`SCALES`.

    Returns
    -------
    list of tuple
        ``(range, label)`` rows, lowest first.

    Examples
    --------
    >>> scale_table("fleiss")
    [('v < 0.40', 'poor'), ('0.40 ≤ v ≤ 0.75', 'fair to good'), ('v > 0.75', 'excellent')]
    """
    bands = _scale(scale)
    digits = 3 if scale == "krippendorff" else 2
    rows = []
    for i, band in enumerate(bands):
        nxt = bands[i + 1] if i + 1 < len(bands) else None
        low = "" if i == 0 else f"{band.lower:.{digits}f} {'≤' if band.closed else '<'} "
        high = "" if nxt is None else f" {'<' if nxt.closed else '≤'} {nxt.lower:.{digits}f}"
        if not low:
            text = f"v{high}"
        elif not high:
            text = f"v {'≥' if band.closed else '>'} {band.lower:.{digits}f}"
        else:
            text = f"{low}v{high}"
        rows.append((text, band.label))
    return rows


# -------------------------------------------------------------- Gwet's benchmarking


def _normal_mass(a: float, b: float) -> float:
    """P(a ≤ Z ≤ b) for a standard normal Z, from the nearer tail (no cancellation near 1)."""
    if a >= 0.0:
        return 0.5 * (math.erfc(a / math.sqrt(2.0)) - math.erfc(b / math.sqrt(2.0)))
    if b <= 0.0:
        return 0.5 * (math.erfc(-b / math.sqrt(2.0)) - math.erfc(-a / math.sqrt(2.0)))
    return 1.0 - 0.5 * (math.erfc(-a / math.sqrt(2.0)) + math.erfc(b / math.sqrt(2.0)))


def _t_cdf(t: float, df: int) -> float:
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    half = 0.5 * t_abs_cdf(abs(t), df)
    return 0.5 + half if t >= 0 else 0.5 - half


def benchmark_probability(
    value: float, se: float, scale: str, n: int | None = None
) -> dict[str, float]:
    """Gwet's interval membership probabilities: P(true coefficient in band), per band.

    The true coefficient is taken as normal with mean ``value`` and standard deviation ``se``
    (Student's t with n − 1 degrees of freedom, location ``value`` and scale ``se``, when the
    number of units ``n`` is given), *truncated to [−1, 1] and renormalised*: the lowest band
    starts at −1 and the highest ends at 1. This is what Gwet's own implementations do
    (``landis.koch.bf``, ``altman.bf``, ``fleiss.bf`` in the R package irrCAC, and the Python
    port's ``Benchmark``): P(a ≤ κ ≤ b) = [Φ((κ̂ − a)/se) − Φ((κ̂ − b)/se)] /
    [Φ((κ̂ + 1)/se) − Φ((κ̂ − 1)/se)], the method of Gwet (2014, *Handbook of Inter-Rater
    Reliability*, 4th ed., ch. 6). The t option is ours, matching the t-based intervals of
    :func:`~iaa_gate.metrics.gwet_ac1_ci`. ``se = 0`` puts all the mass on ``value``'s band.

    Returns ``{label: probability}`` lowest band first; the values sum to 1. With a NaN ``value``
    or ``se`` every probability is NaN.

    Parameters
    ----------
    value : float
        The coefficient.
    se : float
        Its standard error.
    scale : str
        A scale of :data:`SCALES`.
    n : int, optional
        The number of units: Student's t with n − 1 degrees of freedom instead of the normal.

    Returns
    -------
    dict
        ``{label: probability}`` lowest band first, summing to 1; NaN with a NaN value or se.

    Examples
    --------
    >>> p = benchmark_probability(0.67, 0.15, "altman")
    >>> [round(p[k], 5) for k in ("very good", "good", "moderate")]  # three bands
    [0.18168, 0.49343, 0.28845]
    """
    bands = _scale(scale)
    number("value", value, nan=True)
    number("se", se, low=0, nan=True)  # the standard error
    if n is not None:
        number("n", n, low=2, whole=True)  # a t distribution has n − 1 ≥ 1 df
    if math.isnan(value) or math.isnan(se):
        return {band.label: math.nan for band in bands}
    edges = [-1.0] + [min(max(b.lower, -1.0), 1.0) for b in bands[1:]] + [1.0]
    if se > 0:
        if n is None:
            mass = [_normal_mass((lo - value) / se, (hi - value) / se) for lo, hi in _pairs(edges)]
        else:
            cdf = [_t_cdf((e - value) / se, n - 1) for e in edges]
            # the CDF is exact to ~1e-16 absolute (not relative) in the tails: no negative mass
            mass = [max(hi - lo, 0.0) for lo, hi in _pairs(cdf)]
        total = sum(mass)
        if total > 0.0:
            return {band.label: m / total for band, m in zip(bands, mass, strict=True)}
    # a point mass (se = 0, or the estimate so far outside [−1, 1] that no mass is left inside)
    here = interpret(min(max(value, -1.0), 1.0), scale)
    return {band.label: float(band.label == here) for band in bands}


def _pairs(xs: list[float]) -> list[tuple[float, float]]:
    return list(pairwise(xs))


def gwet_benchmark(
    value: float, se: float, scale: str, confidence: float = 0.95, n: int | None = None
) -> str | None:
    """Gwet's benchmark: the highest band whose cumulative membership probability, summed from
    the top band down, reaches ``confidence``; ``None`` for a NaN ``value`` or ``se``.

    Membership probabilities as in :func:`benchmark_probability`. E.g. κ̂ = 0.67, SE = 0.15 on
    Altman's scale: cumulative 0.18 (very good), 0.68 (good), 0.96 (moderate) → "moderate",
    although 0.67 itself reads "good" (irrCAC's documented example).

    Parameters
    ----------
    value : float
        The coefficient.
    se : float
        Its standard error.
    scale : str
        A scale of :data:`SCALES`.
    confidence : float
        The interval's coverage, strictly between 0 and 1.
    n : int, optional
        The number of units (Student's t).

    Returns
    -------
    str or None
        The band's label; ``None`` for a NaN value or se.

    Examples
    --------
    >>> gwet_benchmark(0.67, 0.15, "altman")
    'moderate'
    """
    check_confidence(confidence)
    probs = benchmark_probability(value, se, scale, n)
    if any(math.isnan(p) for p in probs.values()):
        return None
    cumulative = 0.0
    labels = list(probs)
    for label in reversed(labels):
        cumulative += probs[label]
        if cumulative >= confidence - 1e-12:
            return label
    return labels[0]
