"""Kendall's W and tau-b against scipy and published worked examples."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import kendalltau, rankdata, spearmanr

from iaa_gate.metrics.rankings import kendall_w, mean_tau_b, mid_ranks, tau_b


def test_w_proofwiki_example() -> None:
    """ProofWiki, Kendall's Coefficient of Concordance, Arbitrary Example 1: 3 competitors
    ranked by 4 judges, W = 1/16."""
    judges = np.array([[1, 3, 2], [1, 2, 3], [2, 3, 1], [3, 1, 2]], dtype=float)
    assert kendall_w(judges) == pytest.approx(1 / 16)


def test_w_ten_projects_four_judges() -> None:
    """A textbook example: 10 projects ranked by 4 judges, sum of squared deviations 1048, so
    W = 12 · 1048 / (4² · (10³ − 10)) = 0.7939."""
    projects = [
        (1, 2, 3, 4), (3, 1, 2, 2), (4, 4, 1, 3), (5, 5, 5, 1), (2, 6, 7, 6),
        (8, 3, 4, 7), (6, 8, 6, 5), (7, 7, 8, 9), (10, 10, 9, 8), (9, 9, 10, 10),
    ]  # fmt: skip
    judges = np.array(projects, dtype=float).T
    assert kendall_w(judges) == pytest.approx(12 * 1048 / (16 * 990))


def test_w_tie_correction_by_hand() -> None:
    """Two annotators, items a b c d; the second ties b and c. Mid-ranks [1 2 3 4] and
    [1 2.5 2.5 4]: rank sums 2 4.5 5.5 8, S = 18.5; T = 2³ − 2 = 6 for the second;
    W = 12 · 18.5 / (2² · 60 − 2 · 6) = 222 / 228."""
    r = np.array([[1, 2, 3, 4], [1, 2, 2, 3]], dtype=float)
    assert kendall_w(r) == pytest.approx(222 / 228)
    assert kendall_w(np.array([[1, 2, 3], [1, 2, 3]], dtype=float)) == pytest.approx(1.0)


def test_w_is_the_mean_spearman_rho_rescaled_without_ties() -> None:
    """Without ties, mean pairwise Spearman rho = (m W − 1) / (m − 1) (Kendall 1948)."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        m, n = int(rng.integers(2, 6)), int(rng.integers(3, 9))
        r = np.vstack([rng.permutation(n) for _ in range(m)]).astype(float)
        rho = np.mean(
            [spearmanr(r[i], r[j]).statistic for i, j in itertools.combinations(range(m), 2)]
        )
        assert rho == pytest.approx((m * kendall_w(r) - 1) / (m - 1))


def test_tau_b_and_mid_ranks_match_scipy() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        x, y = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
        ours, ref = tau_b(x, y), float(kendalltau(x, y).statistic)
        assert (math.isnan(ours) and math.isnan(ref)) or ours == pytest.approx(ref)
        assert np.allclose(mid_ranks(x), rankdata(x))
    r = np.array([[1, 2, 3], [3, 2, 1], [1, 3, 2]], dtype=float)
    want = np.mean([kendalltau(r[i], r[j]).statistic for i, j in ((0, 1), (0, 2), (1, 2))])
    assert mean_tau_b(r) == pytest.approx(want)


def test_undefined_with_reasons() -> None:
    assert math.isnan(kendall_w(np.array([[1.0, 2.0]])))
    assert "every item in one tie" in kendall_w(np.ones((3, 4))).reason  # type: ignore[attr-defined]
    assert math.isnan(mean_tau_b(np.ones((2, 3))))
