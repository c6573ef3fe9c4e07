"""Difference functions δ² for Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's
Alpha-Reliability", section E).

A :class:`Distance` takes two broadcastable arrays of *values* and returns δ²(a, b) elementwise:
squared differences, ``0`` for identical values. The ordinal difference depends on the
frequencies of all values and is handled inside :func:`~iaa_gate.metrics.krippendorff_alpha`
(it equals the interval difference of mid-ranks). The set, taxonomy-path and edit distances
(0–1) are used as δ² as they are, as nltk does for MASI.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from ..core import progress
from ..core.arguments import choice
from ..core.errors import UsageError
from ..core.extras import needed

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


class Distance(Protocol):
    """δ²(a, b) for two broadcastable value arrays; 0 where a == b, symmetric, non-negative.

    Called as ``fn(a, b)`` on value arrays that broadcast against each other, it returns δ² of
    each pair. Any callable of this shape is a level for :func:`krippendorff_alpha`; the named
    ones are in :mod:`iaa_gate.metrics.distance`.

    Examples
    --------
    >>> from iaa_gate.metrics import krippendorff_alpha
    >>> def squared(a, b):
    ...     return (np.asarray(a, dtype=float) - b) ** 2
    >>> x = [[1, 1], [2, 3], [3, 3]]
    >>> krippendorff_alpha(x, squared) == krippendorff_alpha(x, "interval")
    True
    """

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


def _elementwise(fn: Callable[[Any, Any], float]) -> Distance:
    """A :class:`Distance` applying ``fn`` to each pair of values (labels, texts, sets)."""
    ufunc = np.frompyfunc(fn, 2, 1)

    def distance(a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]:
        return np.asarray(ufunc(a, b), dtype=np.float64)

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


def _hierarchical(x: str, y: str) -> float:
    """Taxonomy paths ``"root / … / node"``: 1 − 2·s / (d_x + d_y), with s the depth of the
    shared path from the root and d the depths (Wu & Palmer's 1994 similarity, as a distance).

    The parent instead of the child scores ⅓ apart, siblings ½, different roots 1.

    >>> _hierarchical("Animal / Dog", "Animal"), _hierarchical("Animal / Dog", "Animal / Cat")
    (0.33333333333333337, 0.5)
    """
    a, b = str(x).split(PATH_SEPARATOR), str(y).split(PATH_SEPARATOR)
    return 1.0 - 2 * _shared_depth(a, b) / (len(a) + len(b))


def _shared_depth(a: list[str], b: list[str]) -> int:
    """How many nodes two paths share from the root."""
    shared = 0
    for p, q in zip(a, b, strict=False):
        if p != q:
            break
        shared += 1
    return shared


def _levenshtein(x: str, y: str) -> float:
    """Normalised character edit distance: Levenshtein edits / the longer text's length
    (0 for two empty texts), computed by ``rapidfuzz``.

    >>> _levenshtein("kitten", "sitting")
    0.42857142857142855
    """
    with needed("text"):
        from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_distance(str(x), str(y)))


PATH_SEPARATOR = " / "
"""How a taxonomy path's nodes are joined in a value (``"Animal / Dog"``)."""

jaccard: Distance = _elementwise(lambda x, y: _jaccard(frozenset(x), frozenset(y)))
jaccard.__doc__ = _jaccard.__doc__
masi: Distance = _elementwise(lambda x, y: _masi(frozenset(x), frozenset(y)))
masi.__doc__ = _masi.__doc__
hierarchical: Distance = _elementwise(_hierarchical)
hierarchical.__doc__ = _hierarchical.__doc__
_levenshtein_pairs = _elementwise(_levenshtein)


def levenshtein(a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]:
    """Normalised Levenshtein distance between texts; a column ``(n, 1)`` against a row
    ``(1, m)`` (the value table) goes through ``rapidfuzz.process.cdist`` in one call, each
    unordered pair of distinct texts computed once when the two are the same table: the floor
    of exact alpha, n(n − 1)/2 edit distances for n distinct texts."""
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == 1 and b.shape[0] == 1:
        with needed("text"):
            from rapidfuzz.distance import Levenshtein
            from rapidfuzz.process import cdist

        scorer = Levenshtein.normalized_distance
        rows, cols = [str(x) for x in a[:, 0]], [str(y) for y in b[0]]
        if rows == cols:  # the value table against itself: one list, so rapidfuzz computes each
            cols = rows  # unordered pair once and mirrors it (half the edit distances)
        return np.asarray(cdist(rows, cols, scorer=scorer, dtype=np.float64), dtype=np.float64)
    return _levenshtein_pairs(a, b)


TABULATE_MIN = 256
"""Distinct texts from which the Levenshtein distances of a field are computed once, as a table
every coefficient, interval and score then reads (below, computing them again is cheap)."""

FLOAT32_FROM = 4096
"""Distinct texts from which the table holds float32 (4 bytes a pair: 10,000 texts, 400 MB)."""


class Tabulated:
    """A distance read from a table computed once: δ²(``values[i]``, ``values[j]``) is
    ``table[i, j]``. Every value it is asked about must be among ``values``.

    Parameters
    ----------
    name : str
        The distance it tabulates.
    values : sequence
        ``(V,)`` the values, in the table's order.
    table : ndarray
        ``(V, V)`` δ² between them.

    Examples
    --------
    >>> from iaa_gate.metrics import krippendorff_alpha
    >>> t = Tabulated('custom', ['a', 'b'], np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> krippendorff_alpha([['a', 'a'], ['a', 'b']], t)
    0.0
    """

    def __init__(self, name: str, values: Sequence[Any], table: npt.NDArray[np.floating[Any]]):
        self.name, self.table, self.values = name, table, list(values)
        self.index = {v: i for i, v in enumerate(values)}

    def over(self, values: npt.NDArray[Any]) -> npt.NDArray[np.floating[Any]]:
        """δ² between ``values`` ``(V, V)``: the table itself (no copy) when they are its
        values in its order, else the rows and columns they pick."""
        if len(values) == len(self.values) and list(values) == self.values:
            return self.table
        at = self._at(values)
        return self.table[np.ix_(at, at)]

    def __call__(self, a: npt.NDArray[Any], b: npt.NDArray[Any], /) -> npt.NDArray[np.float64]:
        return np.asarray(self.table[self._at(a), self._at(b)], dtype=np.float64)

    def weighted_sum(self, values: npt.NDArray[Any], counts: npt.NDArray[np.float64]) -> float:
        """Σ_{v,v'} n_v n_v' δ²(v, v') over ``values`` with ``counts`` ``(V,)``: one product
        with the table (the expected disagreement's sum, without gathering a V × V block)."""
        full = np.zeros(len(self.table), dtype=self.table.dtype)
        full[self._at(values)] = counts
        return float(np.dot((self.table @ full).astype(np.float64), full.astype(np.float64)))

    def _at(self, x: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
        x = np.asarray(x, dtype=object)
        at = np.fromiter(map(self.index.__getitem__, x.ravel().tolist()), np.int64, x.size)
        return at.reshape(x.shape)


def tabulate(values: npt.NDArray[Any], level: str) -> str | Tabulated:
    """``level`` as the metrics should use it for a field whose distinct values are ``values``:
    the Levenshtein and hierarchical distances over :data:`TABULATE_MIN` values or more become
    a :class:`Tabulated` table, computed once (a field's alpha, its interval, each annotator's
    alpha without them and the per-task scores all read it; each used to compute it again, the
    hierarchical one a Python call per pair). Announced as a progress step.

    Parameters
    ----------
    values : ndarray
        ``(V,)`` a field's distinct values.
    level : str
        The field's level or distance.

    Returns
    -------
    str or Tabulated
        ``level`` itself, or its table when it is worth computing once.

    Examples
    --------
    >>> tabulate(np.array(['a', 'b'], dtype=object), 'levenshtein')
    'levenshtein'
    """
    choice("level", level, LEVEL_NAMES)
    if np.ndim(values) != 1:
        raise UsageError(
            f"values must be the (V,) distinct values, got shape {np.shape(values)}",
            parameter="values",
        )
    make = {"levenshtein": levenshtein_table, "hierarchical": hierarchical_table}.get(level)
    if make is None or len(values) < TABULATE_MIN:
        return level
    return Tabulated(level, list(values), make([str(v) for v in values]))


def hierarchical_table(paths: list[str]) -> npt.NDArray[np.floating[Any]]:
    """:func:`_hierarchical` between every two of ``paths`` ``(V, V)``, vectorised: sorted, two
    paths share the smallest common prefix of the neighbours between them (a running minimum
    of the sorted order's common-prefix lengths, one numpy pass per path). Cost O(V·depth) in
    Python and O(V²) in numpy; memory as :func:`levenshtein_table`."""
    split = [p.split(PATH_SEPARATOR) for p in paths]
    n = len(split)
    order = sorted(range(n), key=split.__getitem__)
    nodes = [split[i] for i in order]
    lcp = np.zeros(n, dtype=np.float64)  # lcp[k]: nodes shared by sorted paths k − 1 and k
    for k in range(1, n):
        lcp[k] = _shared_depth(nodes[k - 1], nodes[k])
    lengths = np.array([len(x) for x in nodes], dtype=np.float64)
    dtype = np.float32 if n >= FLOAT32_FROM else np.float64
    ranked = np.zeros((n, n), dtype=dtype)  # in sorted order, then mirrored and reordered
    done = progress.step(f"taxonomy distances between {n:,} distinct paths", n - 1, "paths")
    try:
        for k in range(n - 1):
            shared_later = np.minimum.accumulate(lcp[k + 1 :])
            ranked[k, k + 1 :] = 1.0 - 2.0 * shared_later / (lengths[k] + lengths[k + 1 :])
            if not k % 256:
                done.advance(min(256, n - 1 - k))
    finally:
        done.close()
    ranked += ranked.T
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(n)
    return ranked[np.ix_(place, place)]


def levenshtein_table(texts: list[str]) -> npt.NDArray[np.floating[Any]]:
    """The normalised Levenshtein distance between every two of ``texts`` ``(V, V)``, each
    unordered pair measured once: triangular row blocks (a block against itself is one list,
    which rapidfuzz measures once per pair and mirrors; against the later texts, mirrored
    here). Memory: 8·V² bytes (4·V² from :data:`FLOAT32_FROM` texts)."""
    with needed("text"):
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cdist

    n = len(texts)
    dtype = np.float32 if n >= FLOAT32_FROM else np.float64
    scorer = Levenshtein.normalized_distance
    table = np.zeros((n, n), dtype=dtype)
    total = n * (n - 1) // 2
    estimate = None
    if progress.listening() and total > 1_000_000:  # measure the speed on a sample
        sample = texts[:: max(1, n // 100)][:100]
        t0 = time.perf_counter()
        cdist(sample, sample, scorer=scorer, dtype=dtype)
        pairs = len(sample) * (len(sample) - 1) // 2
        estimate = total * (time.perf_counter() - t0) / max(pairs, 1)
    done = progress.step(
        f"Levenshtein distances between {n:,} distinct texts", total, "pairs", estimate
    )
    step = max(64, n // 100)
    try:
        for s in range(0, n, step):
            e = min(s + step, n)
            block = texts[s:e]
            table[s:e, s:e] = cdist(block, block, scorer=scorer, dtype=dtype)
            if e < n:
                later = cdist(block, texts[e:], scorer=scorer, dtype=dtype)
                table[s:e, e:] = later
                table[e:, s:e] = later.T
            done.advance((e - s) * (e - s - 1) // 2 + (e - s) * (n - e))
    finally:
        done.close()
    return table


NAMED: dict[str, Distance] = {
    "nominal": nominal,
    "interval": interval,
    "ratio": ratio,
    "jaccard": jaccard,
    "masi": masi,
    "hierarchical": hierarchical,
    "levenshtein": levenshtein,
}
LEVEL_NAMES: tuple[str, ...] = tuple(dict.fromkeys([*LEVELS, *NAMED]))
"""The levels and named distances a ``level`` argument accepts (besides a Distance callable)."""
