"""Bootstrap of Krippendorff's alpha: every replicate equals alpha recomputed on the resampled
units (on every computation path), the bookkeeping of the summary, and a seeded coverage check."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics import Undefined, encode, krippendorff_alpha
from iaa_gate.metrics import bootstrap as bs
from iaa_gate.metrics.bootstrap import AlphaBootstrap, alpha_bootstrap, alpha_replicates

LEVELS = ("nominal", "ordinal", "interval", "ratio", "masi", "jaccard")
SETS = [frozenset(), frozenset("a"), frozenset("b"), frozenset("ab"), frozenset("c")]


def _ratings(
    rng: np.random.Generator, units: int, annotators: int, values: int, missing: float
) -> np.ndarray:
    """``(units, annotators)`` floats 1 … values, agreeing with a true value 60 % of the time."""
    truth = rng.integers(1, values + 1, units)[:, None]
    noise = rng.integers(1, values + 1, (units, annotators))
    x = np.where(rng.random((units, annotators)) < 0.6, truth, noise).astype(np.float64)
    x[rng.random((units, annotators)) < missing] = np.nan
    return x


def _as_level(x: np.ndarray, level: str) -> np.ndarray:
    """Label sets for the set distances, the numbers otherwise."""
    if level not in ("masi", "jaccard"):
        return x
    out = np.empty(x.shape, dtype=object)
    for (u, a), v in np.ndenumerate(x):
        out[u, a] = None if math.isnan(v) else SETS[int(v) % len(SETS)]
    return out


def _draws(rng: np.random.Generator, replicates: int, units: int) -> np.ndarray:
    """Bootstrap counts ``(replicates, units)`` from explicit resampled indices."""
    idx = rng.integers(0, units, (replicates, units))
    return np.stack([np.bincount(row, minlength=units) for row in idx])


def _naive(ratings: np.ndarray, level: str, weights: np.ndarray) -> np.ndarray:
    units = np.arange(ratings.shape[0])
    return np.array([krippendorff_alpha(ratings[np.repeat(units, w)], level) for w in weights])


def _assert_same(got: np.ndarray, want: np.ndarray) -> None:
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=0, atol=1e-9)


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return _ratings(rng, 70, 4, 5, missing=0.35), _draws(rng, 40, 70)


@pytest.mark.parametrize("level", LEVELS)
def test_replicates_equal_alpha_on_resampled_units(
    data: tuple[np.ndarray, np.ndarray], level: str
) -> None:
    x, weights = data
    ratings = _as_level(x, level)
    _assert_same(alpha_replicates(ratings, level, weights), _naive(ratings, level, weights))


# Each patch forces another computation path: sparse n_v (bincount), the naive fallback for
# ordinal and for large value tables, features rebuilt per unit block, one-row weight blocks.
PATHS = {
    "sparse n_v": {"DENSE_VALUES": 1},
    "ordinal fallback": {"ORDINAL_PAIRS": 0},
    "table fallback": {"TABLE_MAX": 1},
    "feature blocks": {"FEATURE_CELLS": 40},
    "weight blocks": {"CELLS": 1},
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("level", ["nominal", "ordinal", "ratio", "masi"])
def test_every_path_gives_the_same_replicates(
    data: tuple[np.ndarray, np.ndarray], level: str, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    x, weights = data
    ratings = _as_level(x, level)
    want = _naive(ratings, level, weights)
    for name, value in PATHS[path].items():
        monkeypatch.setattr(bs, name, value)
    _assert_same(alpha_replicates(ratings, level, weights), want)


def test_callable_distance_and_coded_input(data: tuple[np.ndarray, np.ndarray]) -> None:
    x, weights = data

    def absolute(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.abs(np.asarray(a, float) - np.asarray(b, float))

    want = _naive(x, absolute, weights)
    _assert_same(alpha_replicates(x, absolute, weights), want)
    coded = encode(x)
    for level in ("interval", "ordinal"):
        _assert_same(alpha_replicates(coded, level, weights), alpha_replicates(x, level, weights))


def test_interval_with_none_and_many_distinct_values() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(50, 10, (60, 3)) + rng.normal(0, 10, (60, 1))
    x[rng.random(x.shape) < 0.2] = np.nan
    weights = _draws(rng, 30, 60)
    want = _naive(x, "interval", weights)
    as_objects = [[None if math.isnan(v) else float(v) for v in row] for row in x]
    _assert_same(alpha_replicates(as_objects, "interval", weights), want)


def _recipe(seed: int, replicates: int, units: int) -> np.ndarray:
    """The documented draw: replicate r counts the r-th ``rng.integers(0, U, U)``."""
    rng = np.random.default_rng(seed)
    return np.stack(
        [np.bincount(rng.integers(0, units, units), minlength=units) for _ in range(replicates)]
    )


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_summary_from_the_replicates(level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Per-unit draws: the bootstrap's replicates are those of the documented recipe."""
    monkeypatch.setattr(bs, "GROUP_RATIO", 1 << 62)  # never draw over rating patterns
    rng = np.random.default_rng(11)
    x = _ratings(rng, 300, 3, 4, missing=0.3)
    pairable = np.count_nonzero(~np.isnan(x), axis=1) >= 2
    assert not pairable.all()  # units with < 2 ratings are set aside before resampling
    weights = np.zeros((500, len(x)), dtype=np.int64)
    weights[:, pairable] = _recipe(5, 500, int(pairable.sum()))
    samples = alpha_replicates(x, level, weights)
    b = alpha_bootstrap(x, level, replicates=500, confidence=0.9, alpha_min=0.4, seed=5)
    assert b.alpha == krippendorff_alpha(x, level)
    np.testing.assert_allclose(b.samples, samples, rtol=0, atol=1e-12)
    assert (b.replicates, b.n_undefined) == (500, 0)
    assert b.lower == pytest.approx(np.quantile(samples, 0.05), abs=1e-12)
    assert b.upper == pytest.approx(np.quantile(samples, 0.95), abs=1e-12)
    assert b.se == pytest.approx(np.std(samples, ddof=1), abs=1e-12)
    assert b.q == np.mean(samples < 0.4)
    assert b.lower < b.alpha < b.upper


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio", "masi"])
def test_draws_over_rating_patterns(level: str) -> None:
    """Few patterns: multinomial counts over them, each standing for its first unit."""
    x = _ratings(np.random.default_rng(12), 3000, 3, 3, missing=0.2)
    ratings = _as_level(x, level)
    estimator, _ = bs._estimator(ratings, level)
    grouped = estimator.grouped()
    assert grouped is not None and grouped.n_units <= 20  # 3 slots, 4 symbols: 20 multisets
    assert grouped.sizes.sum() == estimator.n_units
    b = alpha_bootstrap(ratings, level, replicates=300, seed=8)
    rng = np.random.default_rng(8)
    drawn = rng.multinomial(estimator.n_units, grouped.sizes / estimator.n_units, size=300)
    weights = np.zeros((300, len(x)), dtype=np.int64)
    weights[:, np.flatnonzero(estimator.pairable)[grouped.first]] = drawn
    want = alpha_replicates(ratings, level, weights)
    _assert_same(b.samples, want[~np.isnan(want)])


def test_patterns_and_units_give_the_same_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    x = _ratings(np.random.default_rng(13), 2000, 4, 3, missing=0.1)
    grouped = alpha_bootstrap(x, replicates=4000, seed=1)
    monkeypatch.setattr(bs, "GROUP_RATIO", 1 << 62)
    per_unit = alpha_bootstrap(x, replicates=4000, seed=2)
    assert grouped.se / per_unit.se == pytest.approx(1.0, abs=0.07)  # SE of each ≈ 1.1 %
    assert np.mean(grouped.samples) == pytest.approx(
        np.mean(per_unit.samples), abs=0.1 * per_unit.se
    )
    assert grouped.lower == pytest.approx(per_unit.lower, abs=0.2 * per_unit.se)


def test_no_patterns_for_fractional_interval_data() -> None:
    x = np.random.default_rng(1).normal(size=(5000, 3))
    estimator, _ = bs._estimator(x, "interval")
    assert estimator.grouped() is None
    assert bs._estimator(np.round(x), "interval")[0].grouped() is not None


def test_undefined_replicates_are_dropped_and_counted() -> None:
    x = np.array([[0, 0], [0, 0], [0, 1], [0, 0], [2, np.nan]])  # only unit 2 shows a 1
    b = alpha_bootstrap(x, replicates=400, seed=1)
    weights = np.zeros((400, 5), dtype=np.int64)
    weights[:, :4] = _recipe(1, 400, 4)
    undefined = np.isnan(alpha_replicates(x, "nominal", weights))
    assert b.n_undefined == int(undefined.sum()) > 0  # P(unit 2 not drawn) = (3/4)^4 ≈ 0.32
    assert b.replicates == 400 - b.n_undefined == len(b.samples)
    assert not np.isnan(b.samples).any()


def test_seeded_and_reproducible() -> None:
    x = _ratings(np.random.default_rng(2), 200, 4, 3, missing=0.1)
    first = alpha_bootstrap(x, replicates=300, alpha_min=0.5, seed=42)
    again = alpha_bootstrap(x, replicates=300, alpha_min=0.5, seed=42)
    other = alpha_bootstrap(x, replicates=300, alpha_min=0.5, seed=43)
    assert first == again and np.array_equal(first.samples, again.samples)
    assert not np.array_equal(first.samples, other.samples)
    from_rng = alpha_bootstrap(x, replicates=300, seed=np.random.default_rng(42))
    assert np.array_equal(first.samples, from_rng.samples)
    assert from_rng.q is None and from_rng.alpha_min is None


def test_q_is_the_share_below_the_minimum() -> None:
    x = _ratings(np.random.default_rng(4), 150, 3, 4, missing=0.0)
    b = alpha_bootstrap(x, replicates=400, alpha_min=0.45)
    assert b.q == pytest.approx(np.mean(b.samples < 0.45))
    assert 0.0 < b.q < 1.0
    assert alpha_bootstrap(x, replicates=50, alpha_min=1.01).q == 1.0
    assert alpha_bootstrap(x, replicates=50, alpha_min=-1.0).q == 0.0
    assert alpha_bootstrap(x, replicates=50, alpha_min=0.0).q == 0.0  # 0 is a minimum, not None


@pytest.mark.parametrize(
    ("ratings", "reason"),
    [([[1, 1], [1, 1], [1, np.nan]], "only one value"), ([[1, np.nan], [np.nan, 2]], "no unit")],
)
def test_undefined_alpha(ratings: list[list[float]], reason: str) -> None:
    b = alpha_bootstrap(ratings, alpha_min=0.8)
    assert isinstance(b.alpha, Undefined) and reason in b.alpha.reason
    assert all(isinstance(v, Undefined) for v in (b.lower, b.upper, b.se, b.q))
    assert (b.replicates, b.n_undefined, len(b.samples)) == (0, 0, 0)
    assert alpha_bootstrap(ratings).q is None


def test_jackknife_weights() -> None:
    x = _ratings(np.random.default_rng(9), 30, 3, 4, missing=0.2)
    weights = 1 - np.eye(30, dtype=np.int64)
    for level in ("nominal", "interval"):
        want = [krippendorff_alpha(np.delete(x, u, axis=0), level) for u in range(30)]
        _assert_same(alpha_replicates(x, level, weights), np.array(want))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda x: alpha_bootstrap(x, replicates=0), "replicates"),
        (lambda x: alpha_bootstrap(x, confidence=1.0), "confidence"),
        (lambda x: alpha_bootstrap(x, "cosine"), "unknown level"),
        (lambda x: alpha_replicates(x, "nominal", np.ones((2, 3))), "weights must be"),
        (lambda x: alpha_replicates(x, "nominal", -np.ones((2, 4))), "non-negative integers"),
        (lambda x: alpha_replicates(x, "nominal", np.full((2, 4), 0.5)), "non-negative integers"),
    ],
)
def test_invalid_arguments(call: Callable[[np.ndarray], object], message: str) -> None:
    x = np.array([[1, 1], [2, 2], [1, 2], [2, 2]])
    with pytest.raises(UsageError, match=message):
        call(x)


def test_repr_leaves_out_the_samples() -> None:
    b = alpha_bootstrap([[1, 1], [2, 2], [1, 2], [2, 2], [1, 1]], replicates=20)
    assert isinstance(b, AlphaBootstrap) and "samples" not in repr(b)


# ------------------------------------------------------------------------- coverage

PREVALENCE = np.array([0.4, 0.3, 0.2, 0.1])
P_CORRECT = 0.6


def _population_alpha(level: str) -> float:
    """Alpha of the generating process itself, in closed form.

    Each annotator gives the true category with probability p, else a uniform one, so two
    ratings of one unit are independent given the truth: q_k|t = p[k = t] + (1 − p)/K, the
    rating shares r = πᵀq, α = 1 − E_within δ² / E_between δ², with ordinal δ² the squared
    difference of population mid-rank shares Σ_{g<k} r_g + r_k/2, interval δ² = (k − l)².
    """
    k = len(PREVALENCE)
    q = P_CORRECT * np.eye(k) + (1 - P_CORRECT) / k
    r = PREVALENCE @ q
    if level == "nominal":
        delta = 1.0 - np.eye(k)
    elif level == "interval":
        delta = np.subtract.outer(np.arange(k), np.arange(k)) ** 2.0
    else:
        ranks = np.cumsum(r) - r / 2
        delta = np.subtract.outer(ranks, ranks) ** 2
    within = sum(PREVALENCE[t] * q[t] @ delta @ q[t] for t in range(k))
    return float(1.0 - within / (r @ delta @ r))


def _simulate(rng: np.random.Generator, units: int, annotators: int = 3) -> np.ndarray:
    truth = rng.choice(len(PREVALENCE), size=units, p=PREVALENCE)[:, None]
    noise = rng.integers(0, len(PREVALENCE), (units, annotators))
    x = np.where(rng.random((units, annotators)) < P_CORRECT, truth, noise).astype(np.float64)
    x[rng.random(x.shape) < 0.1] = np.nan  # missing at random
    return x


@pytest.mark.slow
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_percentile_intervals_cover_the_population_alpha(level: str) -> None:
    rng = np.random.default_rng(2024)
    truth = _population_alpha(level)
    # the closed form agrees with a very large sample
    assert krippendorff_alpha(_simulate(rng, 1_000_000), level) == pytest.approx(truth, abs=2e-3)
    repetitions, covered = 400, 0
    for _ in range(repetitions):
        b = alpha_bootstrap(_simulate(rng, 200), level, replicates=1000, seed=rng)
        covered += b.lower <= truth <= b.upper
    assert 0.90 <= covered / repetitions <= 0.99, covered / repetitions
