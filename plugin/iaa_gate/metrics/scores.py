"""An agreement score per unit on a 0–1 scale, whatever the level of measurement."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..core.arguments import number
from ._base import Coded, FloatArray, as_float_ratings, encode
from .alpha import LevelArg, level_distance, pairable_counts, unit_disagreement
from .distance import Tabulated
from .sampled import Sampled


def item_scores(ratings: npt.ArrayLike | Coded, level: LevelArg = "nominal") -> FloatArray:
    """1 − (mean δ² over the unit's annotator pairs) / (largest δ² between values that occur).

    ``ratings``: ``(units, annotators)``. Returns ``(units,)``, NaN for units with fewer than two
    ratings. Nominal: the share of agreeing pairs. Label sets: 1 − mean set distance. Rating
    scales: near misses cost little (ratings 4 and 5 on 1–5 score 1 − 1/16), opposite ends score
    0. 1 = every pair agrees.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    level : str or Distance
        ``nominal``, ``ordinal``, ``interval``, ``ratio``, a named distance (``jaccard``, ``masi``,
        ``hierarchical``, ``levenshtein``) or a callable δ².

    Returns
    -------
    ndarray
        ``(units,)`` in [0, 1]; NaN for units with fewer than two ratings.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> item_scores(x).round(4).tolist()
    [0.3333, 1.0, 0.0, 1.0]
    """
    coded = encode(ratings)
    ud = unit_disagreement(coded, level)
    m = ud.n_ratings.astype(np.float64)
    out = np.full(m.shape, np.nan)
    ok = m >= 2
    scale = _largest_delta(coded, level)
    if scale <= 0:
        out[ok] = 1.0
        return out
    out[ok] = 1.0 - ud.observed[ok] / (m[ok] * (m[ok] - 1)) / scale
    return np.clip(out, 0.0, 1.0)


def _largest_delta(coded: Coded, level: LevelArg) -> float:
    counts = pairable_counts(coded)
    present = np.flatnonzero(counts > 0)
    if len(present) < 2:
        return 0.0
    if level in ("nominal", "jaccard", "masi"):
        return 1.0
    if level == "ordinal":
        mid = np.cumsum(counts) - counts / 2.0
        return float((mid[present[-1]] - mid[present[0]]) ** 2)
    fn = level_distance(level)
    vals = coded.values[present]
    if isinstance(fn, Sampled):  # every pair of values is what sampling avoids: the bound
        return 1.0
    if isinstance(fn, Tabulated):  # the field's table: its largest entry among these values
        return float(fn.over(vals).max())
    if level == "interval":
        v = vals.astype(np.float64)
        return float((v.max() - v.min()) ** 2)
    return float(np.max(fn(vals[:, None], vals[None, :])))


def tolerance_scores(values: npt.ArrayLike, tolerance: float) -> FloatArray:
    """The share of each unit's annotator pairs whose ratings differ by at most ``tolerance``.

    ``values``: ``(units, annotators)`` numbers, NaN missing. Returns ``(units,)`` in [0, 1], NaN
    for units with fewer than two ratings. Ratings 3, 4, 5 with tolerance 1 score 2/3.

    Parameters
    ----------
    values : array_like
        ``(units, annotators)`` numbers, NaN missing.
    tolerance : float
        The largest difference that agrees.

    Returns
    -------
    ndarray
        ``(units,)`` in [0, 1]; NaN for units with fewer than two ratings.

    Examples
    --------
    >>> tolerance_scores([[3, 4, 5], [1, 1, np.nan]], 1).round(4).tolist()
    [0.6667, 1.0]
    """
    number("tolerance", tolerance, low=0)
    x = as_float_ratings(values, "values")
    rated = ~np.isnan(x)
    m = rated.sum(axis=1)
    near = np.zeros(len(x))
    for a in range(x.shape[1]):
        for b in range(a + 1, x.shape[1]):
            near += (rated[:, a] & rated[:, b]) & (np.abs(x[:, a] - x[:, b]) <= tolerance + 1e-9)
    pairs = m * (m - 1) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(m >= 2, near / pairs, np.nan), dtype=np.float64)
