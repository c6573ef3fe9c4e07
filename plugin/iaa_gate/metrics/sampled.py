"""Alpha's expected disagreement estimated from drawn pairs of ratings, with its standard error.

D_e is the mean δ² over the n(n − 1) ordered pairs of distinct pairable ratings; exactly it
needs δ² between every two distinct values (V(V − 1)/2 edit distances for V distinct texts).
:class:`Sampled` draws ``pairs`` ordered pairs of distinct pairable ratings uniformly (seeded)
and takes their mean δ²: unbiased, with standard error s/√pairs (s the drawn δ²'s standard
deviation). Alpha = 1 − D_o/D_e then has the delta-method standard error (1 − α)·SE(D_e)/D_e;
D_o (within units) stays exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.arguments import choice, instance, number
from . import distance as dist
from ._base import Coded, FloatArray, IntArray

SAMPLED_LEVELS = ("levenshtein", "hierarchical")
"""The distances whose expected disagreement can be sampled (those of distinct texts/paths)."""


class Sampled:
    """A distance whose expected disagreement is estimated from drawn pairs; δ² itself is exact.

    Parameters
    ----------
    name : str
        One of :data:`SAMPLED_LEVELS`.
    pairs : int
        Pairs of ratings drawn.
    seed : int
        The draw's seed.

    Examples
    --------
    >>> fn = Sampled('levenshtein', pairs=1000, seed=0)
    >>> fn(np.array(['kitten']), np.array(['sitting'])).tolist()
    [0.42857142857142855]
    """

    def __init__(self, name: str, pairs: int, seed: int) -> None:
        self.name, self.pairs, self.seed = name, pairs, seed
        self.fn = dist.NAMED[choice("name", name, SAMPLED_LEVELS)]
        number("pairs", pairs, low=1, whole=True)

    def __call__(self, a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]:
        return self.fn(a, b)


def draw(codes: npt.NDArray[Any], pairs: int, seed: int) -> tuple[IntArray, IntArray]:
    """``pairs`` ordered pairs of distinct pairable ratings of ``codes`` ``(units, annotators)``
    (−1 missing; pairable: in a unit with two or more ratings), uniform: ``(pairs, 2)`` unit
    indices and ``(pairs, 2)`` value codes. Empty when there are fewer than two such ratings."""
    rated = codes >= 0
    keep = rated & (rated.sum(axis=1) >= 2)[:, None]
    unit, _ = np.nonzero(keep)
    value = codes[keep].astype(np.intp)
    n = len(value)
    if n < 2:
        return np.zeros((0, 2), np.intp), np.zeros((0, 2), np.intp)
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, pairs)
    j = rng.integers(0, n - 1, pairs)
    j += j >= i  # a different rating
    return np.column_stack([unit[i], unit[j]]), np.column_stack([value[i], value[j]])


def pair_deltas(values: npt.NDArray[Any], drawn: IntArray, fn: Sampled) -> FloatArray:
    """δ² of each drawn pair of value codes ``(pairs, 2)``: ``(pairs,)`` (0 for equal values,
    not computed)."""
    out = np.zeros(len(drawn))
    differ = drawn[:, 0] != drawn[:, 1]
    if differ.any():
        d = drawn[differ]
        out[differ] = fn(values[d[:, 0]], values[d[:, 1]])
    return out


def expected(coded: Coded, fn: Sampled, n_pairable: int) -> tuple[float, float]:
    """Σ_{v,v'} n_v n_v' δ² estimated from the drawn pairs, and its standard error; both 0 with
    fewer than two pairable ratings."""
    _, drawn = draw(coded.codes, fn.pairs, fn.seed)
    if len(drawn) == 0:
        return 0.0, 0.0
    d = pair_deltas(coded.values, drawn, fn)
    scale = float(n_pairable) * (n_pairable - 1)
    se = float(np.std(d, ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else math.inf
    return scale * float(d.mean()), scale * se


def alpha_standard_error(coded: Coded, fn: Sampled, alpha: float) -> float:
    """Alpha's standard error from the sampled D_e (delta method): (1 − α)·SE(D_e)/D_e; NaN
    when alpha or D_e is undefined.

    Parameters
    ----------
    coded : Coded
        The ratings' codes.
    fn : Sampled
        The sampled distance alpha was computed with.
    alpha : float
        That alpha.

    Returns
    -------
    float
        The standard error; NaN when alpha or D_e is undefined.

    Examples
    --------
    >>> from iaa_gate.metrics import encode, krippendorff_alpha
    >>> coded = encode([["ab", "ab"], ["abc", "b"], ["a", "ab"]])
    >>> fn = Sampled("levenshtein", pairs=1000, seed=0)
    >>> se = alpha_standard_error(coded, fn, krippendorff_alpha(coded, fn))
    >>> bool(se >= 0)
    True
    """
    instance("coded", coded, Coded, "a Coded: encode(ratings)")
    instance("fn", fn, Sampled, f"a Sampled distance (one of {', '.join(SAMPLED_LEVELS)})")
    number("alpha", alpha, high=1, nan=True)
    rated = coded.codes >= 0
    m = rated.sum(axis=1)
    n = int(m[m >= 2].sum())
    total, se = expected(coded, fn, n)
    if math.isnan(alpha) or total <= 0:
        return math.nan
    return (1.0 - alpha) * se / total
