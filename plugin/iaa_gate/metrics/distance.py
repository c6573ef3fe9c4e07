"""Difference functions δ² for Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's
Alpha-Reliability", section E).

A :class:`Distance` takes two broadcastable arrays of *values* and returns δ²(a, b) elementwise:
squared differences, ``0`` for identical values. The ordinal difference depends on the
frequencies of all values and is handled inside :func:`~iaa_gate.metrics.krippendorff_alpha`
(it equals the interval difference of mid-ranks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


class Distance(Protocol):
    """δ²(a, b) for two broadcastable value arrays; 0 where a == b, symmetric, non-negative."""

    def __call__(self, a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]: ...


def nominal(a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]:
    """1 where the values differ, else 0."""
    return np.asarray(a != b, dtype=np.float64)


def interval(a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]:
    """(a − b)²."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return d * d


def ratio(a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]:
    """((a − b) / (a + b))², 0 where a + b = 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    s = a + b
    q: npt.NDArray[np.float64] = np.divide(
        a - b, s, out=np.zeros(np.broadcast(a, b).shape), where=s != 0
    )
    return q * q


def _set_distance(fn: Callable[[frozenset[Any], frozenset[Any]], float]) -> Distance:
    ufunc = np.frompyfunc(lambda x, y: fn(frozenset(x), frozenset(y)), 2, 1)

    def distance(a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]:
        return np.asarray(ufunc(a, b), dtype=np.float64)

    distance.__doc__ = fn.__doc__
    return distance


def _jaccard(x: frozenset[Any], y: frozenset[Any]) -> float:
    """Jaccard distance 1 − |x∩y| / |x∪y| between label sets (0 for two empty sets)."""
    union = len(x | y)
    return 0.0 if union == 0 else 1.0 - len(x & y) / union


def _masi(x: frozenset[Any], y: frozenset[Any]) -> float:
    """MASI distance (Passonneau 2006): 1 − J·M with M = 1, ⅔, ⅓, 0 for identical, subset,
    overlapping and disjoint sets (nltk's ``masi_distance``)."""
    union = len(x | y)
    if union == 0:
        return 0.0
    inter = len(x & y)
    if x == y:
        m = 1.0
    elif x <= y or y <= x:
        m = 2 / 3
    elif inter:
        m = 1 / 3
    else:
        m = 0.0
    return 1.0 - (inter / union) * m


SET_DISTANCES: dict[str, Callable[[frozenset[Any], frozenset[Any]], float]] = {
    "jaccard": _jaccard,
    "masi": _masi,
}
"""The set distances on two label sets (not squared: Jaccard and MASI are used as they are)."""

jaccard: Distance = _set_distance(_jaccard)
masi: Distance = _set_distance(_masi)

NAMED: dict[str, Distance] = {
    "nominal": nominal,
    "interval": interval,
    "ratio": ratio,
    "jaccard": jaccard,
    "masi": masi,
}
