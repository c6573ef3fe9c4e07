"""Agreement per unit (item) and per annotator, to find disputed tasks and outlier annotators."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._base import Coded, FloatArray, as_float_ratings, encode, rated_cells, row_blocks
from .alpha import LevelArg, alphas_without, check_level, unit_disagreement
from .categories import DENSE_CELLS


@dataclass(frozen=True)
class ItemAgreement:
    """Per-unit agreement; each array has shape ``(units,)``, NaN where a unit has < 2 ratings.

    Attributes
    ----------
    pair_agreement : ndarray
        Share of annotator pairs that gave the same value.
    score : ndarray
        1 − D_u / D_e, the unit's disagreement against chance (1 perfect, 0 chance level,
        negative worse); for nominal data it is the pair agreement rescaled by chance.
    n_ratings : ndarray
        Ratings per unit.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> item_agreement(x).pair_agreement.round(3).tolist()
    [0.333, 1.0, 0.0, 1.0]
    """

    pair_agreement: FloatArray
    score: FloatArray
    n_ratings: npt.NDArray[np.int64]


def item_agreement(ratings: npt.ArrayLike | Coded, level: LevelArg = "nominal") -> ItemAgreement:
    """Per-unit agreement of ``ratings`` ``(units, annotators)`` (see :class:`ItemAgreement`).

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    level : str or Distance
        ``nominal``, ``ordinal``, ``interval``, ``ratio``, a named distance (``jaccard``, ``masi``,
        ``hierarchical``, ``levenshtein``) or a callable δ².

    Returns
    -------
    ItemAgreement
        Per unit: its score and the number of ratings.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> item_agreement(x).n_ratings.tolist()
    [3, 3, 2, 3]
    """
    check_level(level)
    nominal = unit_disagreement(ratings, "nominal")
    m = nominal.n_ratings.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        pairs = np.where(m >= 2, 1.0 - nominal.observed / (m * (m - 1)), np.nan)
    scores = nominal if level == "nominal" else unit_disagreement(ratings, level)
    return ItemAgreement(pairs, scores.unit_scores(), nominal.n_ratings)


@dataclass(frozen=True)
class AnnotatorAgreement:
    """Per-annotator agreement; each array has shape ``(annotators,)``.

    Attributes
    ----------
    n_units : ndarray
        Units the annotator rated that someone else rated too.
    pair_agreement : ndarray
        Share of the annotator's pairs with co-annotators that agree.
    alpha_without : ndarray
        Alpha with the annotator left out (NaN when undefined).

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> annotator_agreement(x).pair_agreement.round(3).tolist()
    [0.714, 0.714, 0.667]
    """

    n_units: npt.NDArray[np.int64]
    pair_agreement: FloatArray
    alpha_without: FloatArray


def annotator_agreement(
    ratings: npt.ArrayLike | Coded, level: LevelArg = "nominal"
) -> AnnotatorAgreement:
    """Each annotator against the others in ``ratings`` ``(units, annotators)``.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    level : str or Distance
        ``nominal``, ``ordinal``, ``interval``, ``ratio``, a named distance (``jaccard``, ``masi``,
        ``hierarchical``, ``levenshtein``) or a callable δ².

    Returns
    -------
    AnnotatorAgreement
        Per annotator: alpha without them, and their agreement with the others.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> annotator_agreement(x).n_units.tolist()
    [4, 4, 3]
    """
    check_level(level)
    coded = encode(ratings)
    codes = coded.codes
    n_units, n_cols = codes.shape
    unit, ann = rated_cells(coded)  # each rating: O(ratings), not O(annotators² × units)
    m = np.bincount(unit, minlength=n_units)[unit]  # ratings of the rating's unit
    width = max(coded.n_values, 1)
    key = unit * width + codes[unit, ann]  # (unit, value) of each rating
    if n_units * width <= DENSE_CELLS:
        same = np.bincount(key, minlength=n_units * width)[key] - 1.0  # the others who gave it
    else:
        _, at, count = np.unique(key, return_inverse=True, return_counts=True)
        same = count[at.reshape(-1)] - 1.0
    paired = m >= 2
    agree = np.bincount(ann[paired], weights=same[paired], minlength=n_cols)
    pairs = np.bincount(ann[paired], weights=m[paired] - 1.0, minlength=n_cols)
    units = np.bincount(ann[paired], minlength=n_cols).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(pairs > 0, agree / pairs, np.nan)
    without = alphas_without(coded, level)
    return AnnotatorAgreement(units, share, without)


def annotator_offsets(values: npt.ArrayLike) -> FloatArray:
    """Each annotator's mean offset from the others, in the ratings' units.

    ``values``: ``(units, annotators)`` numbers, NaN missing. On every unit with two or more
    ratings, annotator ``a``'s offset is ``x_a`` minus the mean of the other ratings; the result,
    ``(annotators,)``, is its mean over those units (NaN when there are none). A rater who is
    always one point above the others gets about +1.

    Parameters
    ----------
    values : array_like
        ``(units, annotators)`` numbers, NaN missing.

    Returns
    -------
    ndarray
        ``(annotators,)`` each one's mean offset from the others; NaN with no shared unit.

    Examples
    --------
    >>> annotator_offsets([[1, 2], [3, 4], [2, 3]]).tolist()
    [-1.0, 1.0]
    """
    x = as_float_ratings(values, "values")
    rated = ~np.isnan(x)
    m = rated.sum(axis=1, keepdims=True)
    total = np.nansum(x, axis=1, keepdims=True)
    ok = rated & (m >= 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        offset = np.where(ok, x - (total - np.where(rated, x, 0.0)) / (m - 1), 0.0)
        n = ok.sum(axis=0)
        return np.asarray(np.where(n > 0, offset.sum(axis=0) / n, np.nan), dtype=np.float64)


@dataclass(frozen=True)
class PairwiseAgreement:
    """Every annotator pair; both arrays have shape ``(annotators, annotators)``, symmetric.

    Attributes
    ----------
    shared : ndarray
        Units both annotators rated (the diagonal: units the annotator rated).
    agreement : ndarray
        Share of the shared units on which the two gave the same value; NaN on the diagonal and
        where a pair shares no unit.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> pairwise_agreement(x).agreement.round(3).tolist()
    [[nan, 0.75, 0.667], [0.75, nan, 0.667], [0.667, 0.667, nan]]
    """

    shared: npt.NDArray[np.int64]
    agreement: FloatArray


def pairwise_agreement(ratings: npt.ArrayLike | Coded) -> PairwiseAgreement:
    """Percent agreement of each annotator pair in ``ratings`` ``(units, annotators)``.

    With few values, one ``(A, A)`` matrix product per value and per block of units:
    O(units · A² · V); with more values than annotators, one comparison per annotator pair:
    O(units · A²), whatever the number of values.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).

    Returns
    -------
    PairwiseAgreement
        ``(A, A)`` agreement and shared units per pair.

    Examples
    --------
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 2, None], [1, 1, 1]]  # units × annotators
    >>> pairwise_agreement(x).shared.tolist()
    [[4, 4, 3], [4, 4, 3], [3, 3, 3]]
    """
    coded = encode(ratings)
    n_cols = coded.codes.shape[1]
    shared = np.zeros((n_cols, n_cols))
    same: FloatArray = np.zeros((n_cols, n_cols))
    for s in row_blocks(*coded.codes.shape):
        codes = coded.codes[s]
        rated = (codes >= 0).astype(np.float64)
        shared += rated.T @ rated
        if coded.n_values <= n_cols:
            for v in range(coded.n_values):
                hit = (codes == v).astype(np.float64)
                same += hit.T @ hit
            continue
        for a in range(n_cols):
            ca = codes[:, a]
            for b in range(a, n_cols):
                same[a, b] += np.count_nonzero((ca == codes[:, b]) & (ca >= 0))
    if coded.n_values > n_cols:
        same = np.triu(same) + np.triu(same, 1).T
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(shared > 0, same / shared, np.nan)
    np.fill_diagonal(agreement, np.nan)
    return PairwiseAgreement(shared.astype(np.int64), agreement)
