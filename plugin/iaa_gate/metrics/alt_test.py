"""The alternative annotator test (alt-test): may a model take a human annotator's place?

Calderon, Reichart & Dror, "The Alternative Annotator Test for LLM-as-a-Judge" (ACL 2025),
procedure as published (their reference code: ``nitaytech/AltTest``):

1. Keep the instances (units) the model answered that at least ``min_humans`` humans answered.
2. For each human ``h`` in turn (leave one out), on the kept instances ``h`` answered: score
   ``h``'s answer and the model's against the **remaining** humans' answers (accuracy,
   negative RMSE, or the field's own pairwise agreement averaged over them:
   :func:`alignment_scores`), and set the
   indicators ``W_h = [score_h >= score_model]``, ``W_model = [score_model >= score_h]``
   (:func:`winning_indicators`; a tie gives both 1).
3. A human with fewer than ``min_instances`` instances is not tested. For a tested human, the
   one-sided one-sample t-test of ``d = W_h − W_model`` against ``epsilon`` (H0: mean(d) ≥ ε,
   alternative "less", :func:`ttest_less`) gives their p-value.
4. The Benjamini–Yekutieli procedure at ``q`` over the tested humans' p-values decides whose
   null is rejected (:func:`benjamini_yekutieli`): the model "wins" against them.
5. Winning rate ω = rejected / tested (:func:`winning_rate`); the model passes when ω ≥ 0.5.
   Advantage probability ρ = the mean over tested humans of mean(W_model)
   (:func:`advantage_probability`).

The Student-t distribution function is computed here (:func:`t_cdf`, through the regularized
incomplete beta function :func:`betainc`), so the test needs numpy only; ``tests/metrics``
holds it to ``scipy.stats``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from ._base import Undefined

Array = np.ndarray[Any, Any]
Scoring = Literal["accuracy", "neg_rmse"] | Callable[[Any, Sequence[Any]], float]
"""How an answer is scored against the remaining humans' answers of one instance (higher is
better): ``"accuracy"``, ``"neg_rmse"``, or a function ``(answer, others) -> float``."""

PASS_RATE = 0.5
"""The model passes the alt-test when its winning rate is at least this."""
_MAX_TERMS = 10_000
_TINY = 1e-300


def _lgamma(x: Array) -> Array:
    out: Array = np.vectorize(math.lgamma, otypes=[np.float64])(x)
    return out


def _beta_fraction(a: Array, b: Array, x: Array) -> Array:
    """The continued fraction of the incomplete beta function (modified Lentz), elementwise;
    converges fast for ``x < (a + 1) / (a + b + 2)``."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    h = d.copy()
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2.0 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
            c = 1.0 + aa / c
            c = np.where(np.abs(c) < _TINY, _TINY, c)
            step = d * c
            h = h * step
        if np.all(np.abs(step - 1.0) < 1e-16):
            break
    return h


def betainc(a: Any, b: Any, x: Any) -> Array:
    """The regularized incomplete beta function I_x(a, b), elementwise.

    Parameters
    ----------
    a, b : array_like
        Positive shape parameters.
    x : array_like
        Points in [0, 1].

    Returns
    -------
    numpy.ndarray
        ``I_x(a, b)`` (float64, the broadcast shape); NaN where ``x`` is NaN.

    Examples
    --------
    >>> float(betainc(1.0, 1.0, 0.3))  # the uniform distribution function
    0.3
    >>> round(float(betainc(2.0, 3.0, 0.4)), 6)
    0.5248
    """
    a, b, x = np.broadcast_arrays(
        np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(x, np.float64)
    )
    out = np.full(x.shape, np.nan)
    inside = (x > 0) & (x < 1)
    out[x <= 0] = 0.0
    out[x >= 1] = 1.0
    if not inside.any():
        return out
    a, b, x = a[inside], b[inside], x[inside]
    # x^a (1 − x)^b / B(a, b), in logs
    front = np.exp(a * np.log(x) + b * np.log1p(-x) - (_lgamma(a) + _lgamma(b) - _lgamma(a + b)))
    direct = x < (a + 1.0) / (a + b + 2.0)  # else by symmetry: I_x(a, b) = 1 − I_{1−x}(b, a)
    value = np.empty_like(x)
    if direct.any():
        ad, bd, xd = a[direct], b[direct], x[direct]
        value[direct] = front[direct] * _beta_fraction(ad, bd, xd) / ad
    if (~direct).any():
        ar, br, xr = a[~direct], b[~direct], x[~direct]
        value[~direct] = 1.0 - front[~direct] * _beta_fraction(br, ar, 1.0 - xr) / br
    out[inside] = value
    return out


def t_cdf(t: Any, df: Any) -> Array:
    """The Student-t distribution function P(T ≤ t) with ``df`` degrees of freedom.

    Parameters
    ----------
    t : array_like
        Points; ±inf give 0 and 1.
    df : array_like
        Degrees of freedom (> 0).

    Returns
    -------
    numpy.ndarray
        P(T ≤ t), float64, the broadcast shape.

    Examples
    --------
    >>> float(t_cdf(0.0, 5))
    0.5
    >>> round(float(t_cdf(-2.015048, 5)), 4)  # the 5% quantile with 5 degrees of freedom
    0.05
    """
    t, df = np.broadcast_arrays(np.asarray(t, np.float64), np.asarray(df, np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.where(np.isinf(t), 0.0, df / (df + t * t))
    tail = 0.5 * betainc(df / 2.0, 0.5, x)  # P(T ≤ −|t|)
    out: Array = np.where(t < 0, tail, 1.0 - tail)
    return out


@dataclass(frozen=True)
class TTest:
    """A one-sample t-test: ``statistic`` t, ``pvalue`` (an :class:`Undefined` NaN with its
    reason when there is nothing to test), degrees of freedom ``df``."""

    statistic: float
    pvalue: float
    df: int


def ttest_less(d: Any, popmean: float) -> TTest:
    """One-sided one-sample t-test of H0: mean(d) ≥ ``popmean`` against mean(d) < ``popmean``
    (``scipy.stats.ttest_1samp(d, popmean, alternative="less")``).

    When every difference is the same (no variance), t is −inf or +inf by the sign of
    mean − popmean, as scipy gives it, so the p-value is 0 (mean below ``popmean``) or 1
    (above); when the mean equals ``popmean`` as well, the p-value is undefined (NaN with its
    reason) and the null is never rejected.

    Parameters
    ----------
    d : array_like
        ``(n,)`` differences, n ≥ 2.
    popmean : float
        The mean under the null hypothesis (the alt-test's ε).

    Returns
    -------
    TTest
        t, its p-value and n − 1 degrees of freedom.

    Examples
    --------
    >>> r = ttest_less([0, -1, 0, 1, -1, 0, -1, -1], 0.1)
    >>> round(r.statistic, 4), round(r.pvalue, 4), r.df
    (-1.8057, 0.057, 7)
    >>> ttest_less([0, 0, 0], 0.1).pvalue  # no variance, mean below ε
    0.0
    """
    x = np.asarray(d, dtype=np.float64)
    n = x.size
    if n < 2:
        return TTest(math.nan, Undefined(f"{n} difference(s): a t-test needs two or more"), n - 1)
    mean = float(x.mean())
    sd = float(x.std(ddof=1))
    gap = mean - popmean
    if sd == 0.0:
        if gap == 0.0:
            why = f"every difference equals {popmean:g}: no variance to test"
            return TTest(math.nan, Undefined(why), n - 1)
        return TTest(math.copysign(math.inf, gap), 0.0 if gap < 0 else 1.0, n - 1)
    t = gap / (sd / math.sqrt(n))
    return TTest(t, float(t_cdf(t, n - 1)), n - 1)


def winning_indicators(human: Any, model: Any) -> tuple[Array, Array]:
    """The alt-test's indicators per instance from two alignment scores (higher is better).

    Parameters
    ----------
    human, model : array_like
        ``(n,)`` the left-out human's and the model's score against the remaining humans.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``W_h = human >= model`` and ``W_model = model >= human`` as 0/1 int arrays: a tie
        gives both 1.

    Examples
    --------
    >>> w_h, w_m = winning_indicators([1.0, 0.5, 0.0], [0.5, 0.5, 1.0])
    >>> w_h.tolist(), w_m.tolist()
    ([1, 1, 0], [0, 1, 1])
    """
    h, m = np.asarray(human, np.float64), np.asarray(model, np.float64)
    return (h >= m).astype(np.int64), (m >= h).astype(np.int64)


def benjamini_yekutieli(pvalues: Any, q: float) -> Array:
    """Which null hypotheses the Benjamini–Yekutieli step-up procedure rejects at FDR ``q``.

    With the m p-values sorted, p_(1) ≤ … ≤ p_(m), and c(m) = 1 + 1/2 + … + 1/m, it rejects
    the k smallest, k the largest rank with p_(k) ≤ k q / (m c(m)) (none when there is no such
    rank). An undefined (NaN) p-value is never rejected and still counts in m.

    Parameters
    ----------
    pvalues : array_like
        ``(m,)`` p-values.
    q : float
        The false discovery rate to control.

    Returns
    -------
    numpy.ndarray
        ``(m,)`` bool, True where the null is rejected.

    Examples
    --------
    >>> benjamini_yekutieli([0.001, 0.01, 0.02, 0.5], 0.05).tolist()
    [True, True, False, False]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    order = np.argsort(p, kind="stable")  # NaN last
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    bars = np.arange(1, m + 1) / m * (q / harmonic)
    below = np.flatnonzero(p[order] <= bars)
    if below.size:
        out[order[: below[-1] + 1]] = True
    return out


def winning_rate(rejected: Any) -> float:
    """ω: the share of tested humans whose null is rejected (the model wins against them).

    Parameters
    ----------
    rejected : array_like
        ``(m,)`` bool over the tested humans.

    Returns
    -------
    float
        ω in [0, 1]; :class:`Undefined` when no human was tested.

    Examples
    --------
    >>> winning_rate([True, True, False, True])
    0.75
    """
    r = np.asarray(rejected, dtype=bool)
    if not r.size:
        return Undefined("no human annotator was tested")
    return float(r.mean())


def advantage_probability(model_wins: Sequence[Any]) -> float:
    """ρ: the mean over tested humans of mean(W_model), the probability that the model is as
    good as or better than a human annotator (it ranks model versions; higher is better).

    Parameters
    ----------
    model_wins : sequence of array_like
        One ``(n_h,)`` 0/1 array of W_model per tested human.

    Returns
    -------
    float
        ρ in [0, 1]; :class:`Undefined` when no human was tested.

    Examples
    --------
    >>> advantage_probability([[1, 1, 0, 1], [1, 0]])
    0.625
    """
    if not len(model_wins):
        return Undefined("no human annotator was tested")
    return float(np.mean([np.mean(np.asarray(w, np.float64)) for w in model_wins]))


def _present(values: Array) -> Array:
    if values.dtype.kind == "f":
        return ~np.isnan(values)
    if values.dtype.kind in "iu":
        return values >= 0
    return (
        np.vectorize(lambda v: v is not None, otypes=[bool])(values)
        if values.size
        else (np.zeros(values.shape, dtype=bool))
    )


def alignment_scores(
    values: Any, model: Any, human: int, scoring: Scoring, rows: Any
) -> tuple[Array, Array]:
    """The left-out ``human``'s and the model's score against the remaining humans on each of
    ``rows``.

    Parameters
    ----------
    values : array_like
        ``(units, humans)`` answers; missing: NaN (floats), −1 (integer codes) or None.
    model : array_like
        ``(units,)`` the model's answers, missing the same way.
    human : int
        The column left out.
    scoring : Scoring
        ``"accuracy"`` (the share of remaining humans giving the same answer), ``"neg_rmse"``
        (minus the root mean square difference from their values) or a function
        ``(answer, others) -> float``.
    rows : array_like
        ``(n,)`` the units to score: each answered by ``human``, the model and another human.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``(n,)`` the human's and the model's scores.

    Examples
    --------
    >>> v = [["a", "a", "b"], ["b", "b", "b"]]
    >>> h, m = alignment_scores(v, ["b", "b"], 0, "accuracy", [0, 1])
    >>> h.tolist(), m.tolist()
    ([0.5, 1.0], [0.5, 1.0])
    """
    vals = np.asarray(values)
    mod = np.asarray(model)
    at = np.asarray(rows, dtype=np.int64)
    v, mv = vals[at], mod[at]
    others = _present(v)
    others[:, human] = False
    n = others.sum(axis=1)
    mine = v[:, human]
    if scoring == "accuracy":
        same_h = ((v == mine[:, None]) & others).sum(axis=1)
        same_m = ((v == mv[:, None]) & others).sum(axis=1)
        return same_h / n, same_m / n
    if scoring == "neg_rmse":
        f = np.where(others, v.astype(np.float64), 0.0)
        mine_f, mv_f = mine.astype(np.float64), mv.astype(np.float64)
        sq_h = np.where(others, (f - mine_f[:, None]) ** 2, 0.0).sum(axis=1)
        sq_m = np.where(others, (f - mv_f[:, None]) ** 2, 0.0).sum(axis=1)
        return -np.sqrt(sq_h / n), -np.sqrt(sq_m / n)
    if not callable(scoring):
        raise ValueError(f"unknown scoring {scoring!r}: use accuracy, neg_rmse or a function")
    hs, ms = np.empty(len(at)), np.empty(len(at))
    for k in range(len(at)):
        rest = [v[k, j] for j in np.flatnonzero(others[k])]
        hs[k], ms[k] = scoring(mine[k], rest), scoring(mv[k], rest)
    return hs, ms


@dataclass(frozen=True)
class HumanTest:
    """One left-out human: the ``column``, the ``n_instances`` they share with the model (on
    instances with enough humans), whether they were ``tested`` (``n_instances`` ≥
    ``min_instances``), the t-test (``statistic``, ``p_value``), whether the null was
    ``rejected`` (the model wins against them), mean(W_model) (``model_advantage``),
    mean(W_h) (``human_advantage``) and the mean alignment scores of the human and of the model
    against the remaining humans (``human_score``, ``model_score``). NaN where not tested."""

    column: int
    n_instances: int
    tested: bool
    statistic: float
    p_value: float
    rejected: bool
    model_advantage: float
    human_advantage: float
    human_score: float
    model_score: float


@dataclass(frozen=True)
class AltTest:
    """The alt-test of one model: ``winning_rate`` ω, ``advantage_probability`` ρ (both
    :class:`Undefined` with the reason when no human was tested, which ``not_tested`` says),
    whether it ``passed`` (ω ≥ 0.5; None when not tested), the ``instances`` kept (the model
    and ``min_humans`` or more humans answered them) and each human's :class:`HumanTest`."""

    winning_rate: float
    advantage_probability: float
    passed: bool | None
    instances: int
    humans: tuple[HumanTest, ...]
    not_tested: str | None
    epsilon: float
    q: float

    @property
    def tested(self) -> list[HumanTest]:
        """The humans with enough instances to be tested."""
        return [h for h in self.humans if h.tested]


def alt_test(
    values: Any,
    model: Any,
    *,
    scoring: Scoring = "accuracy",
    epsilon: float = 0.15,
    q: float = 0.05,
    min_instances: int = 30,
    min_humans: int = 2,
) -> AltTest:
    """The alt-test of one model against the humans of ``values``.

    Parameters
    ----------
    values : array_like
        ``(units, humans)`` the humans' answers; missing: NaN (floats), −1 (integer codes) or
        None (objects).
    model : array_like
        ``(units,)`` the model's answers, missing the same way.
    scoring : Scoring
        How an answer is scored against the remaining humans (see :func:`alignment_scores`).
    epsilon : float
        ε, the cost-benefit allowance (0.2 experts, 0.15 skilled annotators, 0.1 crowd).
    q : float
        The false discovery rate of the Benjamini–Yekutieli procedure.
    min_instances : int
        A human with fewer instances is not tested.
    min_humans : int
        Humans an instance needs (with the model) to be kept.

    Returns
    -------
    AltTest
        ω, ρ, the verdict and each human's test.

    Examples
    --------
    >>> humans = [["a", "a", "a"], ["b", "b", "a"], ["a", "b", "b"]] * 10
    >>> r = alt_test(humans, ["a", "b", "b"] * 10, epsilon=0.2)
    >>> r.winning_rate, round(r.advantage_probability, 3), r.passed
    (1.0, 1.0, True)
    """
    if min_humans < 2:
        raise ValueError(
            f"min_humans must be at least 2 (one left out, one to compare with), got {min_humans}"
        )
    vals = np.asarray(values)
    mod = np.asarray(model)
    if vals.ndim != 2 or mod.shape != vals.shape[:1]:
        raise ValueError(
            f"values must be (units, humans) and model (units,), got {vals.shape} and {mod.shape}"
        )
    present = _present(vals)
    answered = _present(mod)
    kept = answered & (present.sum(axis=1) >= min_humans)
    humans: list[HumanTest] = []
    wins: list[Array] = []
    pvalues: list[float] = []
    for h in range(vals.shape[1]):
        rows = np.flatnonzero(kept & present[:, h])
        if len(rows) < min_instances:
            nan = math.nan
            humans.append(HumanTest(h, len(rows), False, nan, nan, False, nan, nan, nan, nan))
            continue
        hs, ms = alignment_scores(vals, mod, h, scoring, rows)
        w_h, w_m = winning_indicators(hs, ms)
        test = ttest_less(w_h - w_m, epsilon)
        wins.append(w_m)
        pvalues.append(test.pvalue)
        humans.append(
            HumanTest(
                h,
                len(rows),
                True,
                test.statistic,
                test.pvalue,
                False,
                float(w_m.mean()),
                float(w_h.mean()),
                float(hs.mean()),
                float(ms.mean()),
            )
        )
    rejected = iter(benjamini_yekutieli(pvalues, q).tolist())
    humans = [replace(h, rejected=next(rejected)) if h.tested else h for h in humans]
    why = _not_tested(present, answered, kept, humans, min_humans, min_instances)
    omega = winning_rate([h.rejected for h in humans if h.tested])
    rho = advantage_probability(wins)
    if why is not None:
        omega, rho = Undefined(why), Undefined(why)
    return AltTest(
        omega,
        rho,
        None if why is not None else omega >= PASS_RATE,
        int(kept.sum()),
        tuple(humans),
        why,
        epsilon,
        q,
    )


def _not_tested(
    present: Array,
    answered: Array,
    kept: Array,
    humans: list[HumanTest],
    min_humans: int,
    min_instances: int,
) -> str | None:
    """Why no human could be tested (None: some were)."""
    if any(h.tested for h in humans):
        return None
    if not (answered & present.any(axis=1)).any():
        return "no overlap: the model answered none of the tasks the humans answered"
    if not kept.any():
        most = int(present[answered].sum(axis=1).max())
        return (
            f"too few humans per instance: no task the model answered has {min_humans} or more "
            f"human answers (most: {most})"
        )
    most = max(h.n_instances for h in humans)
    return (
        f"too few instances: no human shares {min_instances} or more instances with the model "
        f"(most: {most})"
    )
