"""Dawid–Skene: each annotator's confusion matrix and each unit's posterior over the classes,
fitted by EM (Dawid and Skene 1979, "Maximum likelihood estimation of observer error-rates
using the EM algorithm", Applied Statistics 28(1), 20–28).

The model: a unit's true class ``c`` is drawn from ``priors``; annotator ``a`` answers ``k`` with
probability ``confusion[a, c, k]``, independently of the others. EM starts from the share of
votes (soft majority vote), then alternates the M-step (priors and confusion matrices from the
posteriors) and the E-step (posteriors from them) until the log-likelihood changes by less than
``tol`` (relative). It is the algorithm of crowd-kit's ``DawidSkene`` (the test reference),
written on arrays: no loop over units or annotators, only over classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.arguments import number
from ..core.errors import UsageError
from ._base import FloatArray, ratings_array, whole_numbers

EPS = 1e-10
"""Smallest probability in a confusion matrix (an answer never seen is not impossible)."""
TIE = 1e-9
"""Posteriors this close to the largest one tie with it."""


@dataclass(frozen=True)
class DawidSkene:
    """A fitted Dawid–Skene model (:func:`dawid_skene`).

    Posteriors come from the last E-step, ``confusion`` and ``priors`` from the M-step after it
    (as crowd-kit returns them). They are kept once per answer pattern: :attr:`posteriors` of
    unit u is row ``pattern_of[u]`` of ``pattern_posteriors``; a unit nobody rated gets
    ``priors``.

    Attributes
    ----------
    pattern_posteriors : ndarray
        ``(patterns, classes)`` P(true class | answers) per distinct answer pattern.
    pattern_of : ndarray
        ``(units,)`` each unit's pattern.
    confusion : ndarray
        ``(annotators, classes, classes)``: ``confusion[a, c, k]`` = P(a answers k | true class
        c); rows sum to 1 (a true class never met: uniform).
    priors : ndarray
        ``(classes,)`` the share of each true class.
    accuracy : ndarray
        ``(annotators,)`` P(a answers the true class) under the model,
        ``Σ_c priors[c]·confusion[a, c, c]`` (NaN for an annotator with no answer).
    iterations : int
        EM steps run.
    converged : bool
        The log-likelihood settled within ``tol`` before ``max_iter``.
    log_likelihood : float
        Of the answers under the parameters of the last E-step (natural log).

    Examples
    --------
    >>> fit = dawid_skene([[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 1, 0]])
    >>> fit.best.tolist(), fit.accuracy.round(2).tolist()
    ([0, 1, 0, 1], [1.0, 1.0, 0.5])
    """

    pattern_posteriors: FloatArray
    pattern_of: npt.NDArray[np.intp]
    confusion: FloatArray
    priors: FloatArray
    accuracy: FloatArray
    iterations: int
    converged: bool
    log_likelihood: float

    @property
    def posteriors(self) -> FloatArray:
        """``(units, classes)`` P(true class | answers)."""
        return self.pattern_posteriors[self.pattern_of]

    @property
    def best(self) -> npt.NDArray[np.intp]:
        """``(units,)`` the most probable class of each unit (the first of tied ones)."""
        return np.asarray(np.argmax(self.pattern_posteriors, axis=1))[self.pattern_of]

    @property
    def best_posterior(self) -> FloatArray:
        """``(units,)`` the posterior of :attr:`best`."""
        return np.asarray(self.pattern_posteriors.max(axis=1))[self.pattern_of]

    @property
    def tie(self) -> npt.NDArray[np.bool_]:
        """``(units,)`` two or more classes share the largest posterior: no class is proposed."""
        post = self.pattern_posteriors
        top = post.max(axis=1, keepdims=True)
        return np.asarray(np.count_nonzero(post >= top - TIE, axis=1) > 1)[self.pattern_of]


def dawid_skene(
    codes: npt.ArrayLike,
    n_classes: int | None = None,
    *,
    max_iter: int = 100,
    tol: float = 1e-5,
) -> DawidSkene:
    """Fit Dawid–Skene to ``codes``.

    ``codes``: ``(units, annotators)`` integer classes ``0 … n_classes − 1``, ``-1`` missing.
    ``n_classes``: defaults to the largest code + 1. ``max_iter``: EM steps at most; ``tol``:
    stop when the log-likelihood changes by less than this share of itself.

    Parameters
    ----------
    codes : array_like
        ``(units, annotators)`` integer classes ``0 … n_classes − 1``, ``-1`` missing.
    n_classes : int, optional
        How many classes; by default the largest code + 1.
    max_iter : int
        EM steps at most.
    tol : float
        Stop when the log-likelihood changes by less than this share of itself.

    Returns
    -------
    DawidSkene
        Posteriors, confusion matrices, priors and accuracies.

    Examples
    --------
    >>> fit = dawid_skene([[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 1, 0]])
    >>> fit.best.tolist(), bool(fit.converged)
    ([0, 1, 0, 1], True)
    """
    number("max_iter", max_iter, low=1, whole=True)
    number("tol", tol, low=0)
    c = ratings_array(codes, "codes")
    if not np.issubdtype(c.dtype, np.integer):
        c = whole_numbers(c, "codes", "integer classes 0 … n_classes − 1, -1 missing")
    if c.size and c.min(initial=0) < -1:
        raise UsageError("codes must be -1 (missing) or a class ≥ 0", parameter="codes")
    largest = int(c.max(initial=-1))
    if n_classes is None:
        k = largest + 1
    else:
        k = int(number("n_classes", n_classes, low=1, whole=True))
        if largest >= k:
            raise UsageError(
                f"n_classes={n_classes} but the codes go up to {largest}: codes must lie in "
                f"-1 … {k - 1}",
                parameter="n_classes",
            )
    pattern, at, weight = _patterns(c, k)  # units with the same answers share a posterior
    n_units, n_ann = pattern.shape
    unit, ann = np.nonzero(pattern >= 0)
    given = pattern[unit, ann]
    cell = ann * k + given  # (annotator, answer) of each rating
    rated = np.bincount(unit, minlength=n_units) > 0
    votes = np.zeros((n_units, k))
    np.add.at(votes, (unit, given), 1.0)
    total = votes.sum(axis=1, keepdims=True)
    post = np.divide(votes, total, out=np.zeros_like(votes), where=rated[:, None])
    priors, confusion = _m_step(post, rated, weight, unit, cell, n_ann, k)
    last, converged, steps, ll = -np.inf, False, 0, -np.inf
    while steps < max_iter and not converged:
        steps += 1
        post, ll = _e_step(priors, confusion, rated, weight, unit, cell, n_units, k)
        priors, confusion = _m_step(post, rated, weight, unit, cell, n_ann, k)
        converged = bool(np.isfinite(last) and abs(ll - last) <= tol * abs(last))
        last = ll
    answered = np.bincount(ann, minlength=n_ann) > 0
    diag = np.einsum("acc->ac", confusion)
    accuracy = np.where(answered, diag @ priors, np.nan)
    return DawidSkene(post, at, confusion, priors, accuracy, steps, converged, float(ll))


def _patterns(
    c: npt.NDArray[np.int64], k: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp], FloatArray]:
    """The distinct rows of ``c`` ``(units, annotators)``, each unit's row among them
    ``(units,)`` and how many units have each ``(patterns,)``: EM runs once per answer pattern,
    weighted by its units (the same sums as once per unit, in another order)."""
    n_units, n_ann = c.shape
    if not n_units:
        return c.astype(np.int64), np.zeros(0, dtype=np.intp), np.zeros(0)
    key: npt.NDArray[Any]
    if n_ann * np.log2(k + 1) < 62:  # a row as one integer in base k + 1
        key = np.zeros(n_units, dtype=np.int64)
        for column in c.T:  # not a matrix product: numpy has none for integers that is fast
            key = key * (k + 1) + column + 1
    else:  # a row as its bytes
        key = np.ascontiguousarray(c).view(np.dtype((np.void, c.itemsize * n_ann))).ravel()
    _, first, at, count = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    return c[first].astype(np.int64), at.reshape(-1), count.astype(np.float64)


def _m_step(
    post: FloatArray,
    rated: npt.NDArray[np.bool_],
    weight: FloatArray,
    unit: npt.NDArray[np.int64],
    cell: npt.NDArray[np.int64],
    n_ann: int,
    k: int,
) -> tuple[FloatArray, FloatArray]:
    """Priors ``(k,)`` and confusion ``(annotators, k, k)`` from the posteriors ``(units, k)``
    of units that stand for ``weight`` ``(units,)`` units each."""
    w = weight[rated]
    priors = (w @ post[rated]) / w.sum() if rated.any() else np.full(k, 1.0 / k)
    held_post = post * weight[:, None]
    counts = np.asarray(
        np.stack(
            [np.bincount(cell, weights=held_post[unit, t], minlength=n_ann * k) for t in range(k)],
            axis=1,
        ),
        dtype=np.float64,
    ).reshape(n_ann, k, k)  # [annotator, answer, true]
    held = np.maximum(counts, EPS).transpose(0, 2, 1)  # [annotator, true, answer]
    return priors, held / held.sum(axis=2, keepdims=True)


def _e_step(
    priors: FloatArray,
    confusion: FloatArray,
    rated: npt.NDArray[np.bool_],
    weight: FloatArray,
    unit: npt.NDArray[np.int64],
    cell: npt.NDArray[np.int64],
    n_units: int,
    k: int,
) -> tuple[FloatArray, float]:
    """Posteriors ``(units, k)`` and the log-likelihood of the answers (each unit standing for
    ``weight`` ``(units,)`` units)."""
    log_conf = np.log(confusion).transpose(0, 2, 1).reshape(-1, k)  # [(annotator, answer), true]
    with np.errstate(divide="ignore"):
        log_post = np.log(priors)[None, :] + np.stack(
            [np.bincount(unit, weights=log_conf[cell, t], minlength=n_units) for t in range(k)],
            axis=1,
        )
    top = log_post.max(axis=1, keepdims=True)
    joint = np.exp(log_post - top)
    total = joint.sum(axis=1, keepdims=True)
    post = joint / total
    ll = float(weight[rated] @ (np.log(total[rated, 0]) + top[rated, 0]))
    post[~rated] = priors
    return post, ll
