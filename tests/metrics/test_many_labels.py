"""Many labels over many units: the per-category and kappa-family counts are kept sparse, so
memory follows the number of ratings, never units × labels (issue 17: 10,000 labels over
100,000 units asked for a 7.45 GiB table)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from iaa_gate import metrics


@pytest.mark.parametrize(
    "fn",
    [
        metrics.category_agreement,
        metrics.specific_agreement,
        metrics.fleiss_kappa,
        metrics.gwet_ac1,
        metrics.percent_agreement,
        metrics.pooled_pair_agreement,
    ],
)
def test_memory_follows_the_ratings_not_units_times_labels(fn: object) -> None:
    rng = np.random.default_rng(0)
    units, labels = 4_000, 20_000  # a dense units × labels table: 640 MB of float64
    truth = rng.integers(0, labels, units)
    x = np.where(rng.random((units, 3)) < 0.8, truth[:, None], rng.integers(0, labels, (units, 3)))
    coded = metrics.encode(x)
    tracemalloc.start()
    try:
        fn(coded)  # type: ignore[operator]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6  # O(ratings + labels): a few MB


def test_sparse_counts_equal_the_dense_computation() -> None:
    """The same values as counting every cell of the units × labels table."""
    rng = np.random.default_rng(1)
    x = rng.integers(0, 6, (50, 4)).astype(float)
    x[rng.random(x.shape) < 0.3] = np.nan
    coded = metrics.encode(x)
    k = coded.n_values
    dense = np.zeros((50, k))
    for u, a in zip(*np.nonzero(coded.codes >= 0), strict=True):
        dense[u, coded.codes[u, a]] += 1
    r = dense.sum(axis=1)
    rated = r >= 2
    num = (dense * (dense - 1)).sum(axis=1)[rated] / (r * (r - 1))[rated]
    assert metrics.percent_agreement(coded) == pytest.approx(num.mean(), abs=1e-12)
    c, ck = dense[rated], r[rated, None]
    specific = (c * (c - 1)).sum(axis=0) / (c * (ck - 1)).sum(axis=0)
    got = metrics.specific_agreement(coded)
    assert [got[v] for v in coded.values.tolist()] == pytest.approx(list(specific), abs=1e-12)


@pytest.mark.parametrize(("values", "annotators"), [(3, 6), (40, 4)])
def test_pairwise_agreement_by_value_and_by_pair_equal_brute_force(
    values: int, annotators: int
) -> None:
    """Few values: a matrix product per value; more values than annotators: a comparison per
    annotator pair. Both give the pairs' shares of agreeing units."""
    rng = np.random.default_rng(values)
    x = rng.integers(0, values, (200, annotators)).astype(float)
    x[rng.random(x.shape) < 0.3] = np.nan
    got = metrics.pairwise_agreement(x)
    for a in range(annotators):
        for b in range(annotators):
            both = ~np.isnan(x[:, a]) & ~np.isnan(x[:, b])
            assert got.shared[a, b] == both.sum()
            if a != b and both.any():
                share = (x[both, a] == x[both, b]).mean()
                assert got.agreement[a, b] == pytest.approx(share, abs=1e-12)
