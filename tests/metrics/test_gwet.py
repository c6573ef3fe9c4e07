"""Gwet's AC1/AC2 and Fleiss' kappa with Gwet's standard errors: the handbook example, irrCAC on
seeded random data with missing ratings, its weight functions, the t quantile against scipy,
edge cases and hypothesis properties."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from irrCAC.datasets import raw_4raters, raw_5observers
from irrCAC.raw import CAC
from irrCAC.weights import Weights
from scipy import stats

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics._base import Undefined
from iaa_gate.metrics.gwet import (
    GWET_WEIGHTS,
    _t_quantile,
    fleiss_kappa_ci,
    gwet_ac1,
    gwet_ac1_ci,
    gwet_ac2,
    gwet_ac2_ci,
    gwet_weights,
)
from iaa_gate.metrics.kappa import KappaEstimate, fleiss_kappa

# Differences from irrCAC 0.4.4, by design: with one category only irrCAC sets p_e = 1 − 1e-15 and
# reports a number, here the value is Undefined; irrCAC replaces a zero standard error by 1e-15,
# here it stays 0; irrCAC builds named weights on the *sorted* categories even when `categories`
# is given unsorted, here weights follow the given order. Both clip only the upper limit at 1.
#
# irrCAC assigns to a pandas slice inside CAC(); the warning is pandas', not ours.
pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.SettingWithCopyWarning")


def random_ratings(
    rng: np.random.Generator, units: int, annotators: int, k: int, missing: float
) -> np.ndarray:
    """Correlated random codes 1..k (latent truth plus noise) with NaN for missing."""
    truth = rng.integers(1, k + 1, size=(units, 1))
    noise = rng.integers(1, k + 1, size=(units, annotators))
    keep = rng.random((units, annotators)) < rng.uniform(0.3, 0.9)
    x = np.where(keep, truth, noise).astype(float)
    x[rng.random((units, annotators)) < missing] = np.nan
    return x


def irr(
    x: np.ndarray, weights: str = "identity", categories: list[float] | None = None, conf=0.95
) -> CAC:
    return CAC(pd.DataFrame(x), weights=weights, categories=categories, confidence_level=conf,
               digits=14)  # fmt: skip


def is_undefined(value: float) -> bool:
    return isinstance(value, Undefined) and math.isnan(value) and bool(value.reason)


# ------------------------------------------------------------------ published example


def test_gwet_handbook_four_raters() -> None:
    # Gwet (2014), 12 units × 4 raters, 5 categories, missing ratings; the values irrCAC
    # documents for it (rounded to 5 digits): AC1 0.77544 (se 0.14295, 95% CI 0.46081–1),
    # Fleiss' kappa 0.76117 (se 0.15302, CI 0.42438–1), AC2 with bipolar weights 0.90037
    # (se 0.10582, CI 0.66747–1).
    x = raw_4raters().to_numpy(dtype=float)
    for est, expected in (
        (gwet_ac1_ci(x), (0.77544, 0.14295, 0.46081, 1.0)),
        (fleiss_kappa_ci(x), (0.76117, 0.15302, 0.42438, 1.0)),
        (gwet_ac2_ci(x, "bipolar"), (0.90037, 0.10582, 0.66747, 1.0)),
    ):
        assert tuple(round(v, 5) for v in (est.value, est.se, est.lower, est.upper)) == expected
    assert round(gwet_ac1(x), 5) == 0.77544
    assert fleiss_kappa(x) == fleiss_kappa_ci(x).value


def test_gwet_handbook_five_observers_against_irrcac() -> None:
    x = raw_5observers().to_numpy(dtype=float)
    for weights in ("identity", "quadratic", "linear", "ordinal", "radical", "circular"):
        ref = irr(x, weights).gwet()["est"]
        est = gwet_ac2_ci(x, weights)
        assert est.value == pytest.approx(ref["coefficient_value"], abs=1e-12)
        assert est.se == pytest.approx(ref["se"], abs=1e-12)
        assert est.lower == pytest.approx(ref["confidence_interval"][0], abs=1e-12)
    # 0 is a category: ratio weights divide by x_k + x_l (irrCAC raises as well).
    with pytest.raises(UsageError, match="positive"):
        gwet_ac2(x, "ratio")


# --------------------------------------------------------------------------- weights


@pytest.mark.parametrize("kind", GWET_WEIGHTS)
@pytest.mark.parametrize(
    "categories", [[1, 2, 3], [1, 2, 3, 4, 5], [1, 2, 5, 7], [0.5, 1.5, 4.0, 10.0, 11.0]]
)
def test_weights_match_irrcac(kind: str, categories: list[float]) -> None:
    if kind == "ratio" and 0 in categories:
        pytest.skip("ratio weights need nonzero scores")
    np.testing.assert_allclose(
        gwet_weights(kind, categories), Weights(categories)[kind], rtol=0, atol=1e-14
    )


def test_string_categories_use_ranks_and_ordinal_is_not_krippendorff() -> None:
    labels = ["bad", "fair", "good", "great"]
    for kind in GWET_WEIGHTS:
        if kind == "ratio":
            continue
        np.testing.assert_allclose(gwet_weights(kind, labels), Weights(labels)[kind], atol=1e-14)
    # Gwet's ordinal weights depend on ranks only: 1 − C(|k−l|+1, 2)/C(K, 2).
    w = gwet_weights("ordinal", [1, 2, 10])
    np.testing.assert_allclose(w, [[1, 2 / 3, 0], [2 / 3, 1, 2 / 3], [0, 2 / 3, 1]], atol=1e-15)
    with pytest.raises(UsageError, match="kind='cubic' is not accepted"):
        gwet_weights("cubic", [1, 2])


# ---------------------------------------------------------- randomised cross-checks


@pytest.mark.parametrize("seed", range(60))
def test_ac1_ac2_and_se_match_irrcac_with_missing(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    a = int(rng.integers(2, 8))
    x = random_ratings(rng, int(rng.integers(4, 80)), a, k, missing=float(rng.uniform(0, 0.5)))
    rated = ~np.isnan(x)
    if (rated.sum(axis=1) >= 2).sum() == 0 or len(np.unique(x[rated])) < 2:
        pytest.skip("degenerate draw")
    kinds = ["identity", "quadratic", "linear", "ordinal", "radical", "ratio", "circular"]
    kinds += ["bipolar"] if k >= 3 else []
    # Half the draws declare the full 1..k scale (some categories may go unused).
    categories = [float(c) for c in range(1, k + 1)] if seed % 2 else None
    conf = [0.9, 0.95, 0.99][seed % 3]
    for kind in kinds:
        try:
            ref = irr(x, kind, categories, conf).gwet()["est"]
        except ZeroDivisionError:
            continue
        est = gwet_ac2_ci(x, kind, categories=categories, confidence=conf)
        assert est.value == pytest.approx(ref["coefficient_value"], abs=1e-12), kind
        assert est.se == pytest.approx(ref["se"], abs=1e-12), kind
        assert est.lower == pytest.approx(ref["confidence_interval"][0], abs=1e-11), kind
        assert est.upper == pytest.approx(ref["confidence_interval"][1], abs=1e-11), kind
        assert gwet_ac2(x, kind, categories) == est.value
    assert gwet_ac1(x, categories) == gwet_ac2(x, "identity", categories)
    ref = irr(x, categories=categories, conf=conf).fleiss()["est"]
    est = fleiss_kappa_ci(x, categories=categories, confidence=conf)
    assert est.value == pytest.approx(ref["coefficient_value"], abs=1e-12)
    assert est.se == pytest.approx(ref["se"], abs=1e-12)
    assert est.lower == pytest.approx(ref["confidence_interval"][0], abs=1e-11)
    assert est.upper == pytest.approx(ref["confidence_interval"][1], abs=1e-11)


def test_weight_matrix_argument_and_two_categories() -> None:
    rng = np.random.default_rng(11)
    x = random_ratings(rng, 40, 4, 4, missing=0.3)
    w = gwet_weights("linear", [1, 2, 3, 4])
    assert gwet_ac2(x, w) == pytest.approx(gwet_ac2(x, "linear"), abs=1e-15)
    with pytest.raises(UsageError, match="4 × 4"):
        gwet_ac2(x, np.eye(3))
    # With two categories quadratic (like linear) weights are the identity: AC2 = AC1.
    y = np.where(np.isnan(x), np.nan, (x > 2).astype(float))
    assert gwet_ac2(y, "quadratic") == pytest.approx(gwet_ac1(y), abs=1e-15)


# ------------------------------------------------------------------------ t quantile


def test_t_quantile_matches_scipy() -> None:
    dfs = [*range(1, 60), 99, 100, 101, 250, 511, 998, 999, 1000, 1001, 5000, 10**5, 10**8]
    for df in dfs:
        for p in (0.005, 0.025, 0.05, 0.1, 0.3, 0.7, 0.9, 0.95, 0.975, 0.995, 0.9995):
            assert _t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-11, abs=1e-12)
    assert _t_quantile(0.5, 7) == 0.0
    # a private helper: its callers check confidence first, so these are invariants, not usage
    with pytest.raises(ValueError):
        _t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        _t_quantile(0.9, 0)


# ------------------------------------------------------------------------ edge cases


def test_perfect_agreement() -> None:
    x = np.array([[1, 1, 1], [2, 2, np.nan], [3, 3, 3], [1, np.nan, 1]])
    for est in (gwet_ac1_ci(x), gwet_ac2_ci(x), fleiss_kappa_ci(x)):
        assert est.value == 1.0 and est.se == 0.0 and est.upper == 1.0


def test_undefined_cases() -> None:
    single = np.array([["a", "a"], ["a", "a"], ["a", np.nan]], dtype=object)
    for est in (gwet_ac1_ci(single), gwet_ac2_ci(single), fleiss_kappa_ci(single)):
        assert all(is_undefined(v) for v in (est.value, est.se, est.lower, est.upper))
    assert "one category" in gwet_ac1(single).reason
    # Declared but unused second category: π = (1, 0) so p_e = 0 and AC1 = p_a = 1 (Gwet);
    # Fleiss' p_e = Σ π² stays 1, so kappa stays undefined.
    assert gwet_ac1(single, categories=["a", "b"]) == 1.0
    assert is_undefined(fleiss_kappa(single, categories=["a", "b"]))
    one = np.array([[1.0], [2.0]])
    assert is_undefined(gwet_ac1(one)) and "two annotators" in gwet_ac1(one).reason
    apart = np.array([[1, np.nan], [np.nan, 2], [2, np.nan]])
    assert is_undefined(gwet_ac1(apart)) and "two or more" in gwet_ac1(apart).reason
    assert is_undefined(fleiss_kappa_ci(apart).se)
    lone = np.array([[1.0, 2.0]])  # one rated unit: a value but no standard error
    est = gwet_ac1_ci(lone)
    assert est.value == pytest.approx(-1.0)
    assert is_undefined(est.se) and "two rated units" in est.se.reason
    with pytest.raises(UsageError, match="confidence"):
        gwet_ac1_ci(apart, confidence=0.0)
    assert isinstance(gwet_ac1_ci(raw_4raters().to_numpy(dtype=float)), KappaEstimate)


def test_all_missing_rows_are_ignored() -> None:
    x = raw_4raters().to_numpy(dtype=float)
    padded = np.vstack([x, np.full((5, 4), np.nan)])
    assert gwet_ac1_ci(padded) == gwet_ac1_ci(x)
    assert fleiss_kappa_ci(padded) == fleiss_kappa_ci(x)


# ---------------------------------------------------------------- hypothesis properties


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda a: st.lists(
            st.lists(st.integers(-1, 4), min_size=a, max_size=a), min_size=1, max_size=30
        )
    )
)
def test_properties(rows: list[list[int]]) -> None:
    x = np.array(rows, dtype=float)
    x[x < 0] = np.nan
    rng = np.random.default_rng(len(rows))
    perm_u, perm_a = rng.permutation(x.shape[0]), rng.permutation(x.shape[1])
    relabel = np.array([3.0, 0.0, 4.0, 1.0, 2.0])
    y = np.where(np.isnan(x), np.nan, relabel[np.nan_to_num(x, nan=0).astype(int)])

    def same(a: float, b: float) -> bool:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= 1e-12

    ac1 = gwet_ac1_ci(x)
    for other in (gwet_ac1_ci(x[perm_u]), gwet_ac1_ci(x[:, perm_a]), gwet_ac1_ci(y)):
        assert same(ac1.value, other.value) and same(ac1.se, other.se)
    assert same(gwet_ac2(x), gwet_ac2(x[perm_u][:, perm_a]))
    for v in (ac1.value, fleiss_kappa_ci(x).value, gwet_ac2(x)):
        assert not math.isnan(v) or is_undefined(v)
        assert math.isnan(v) or v <= 1.0
    # AC1's p_e ≤ 1/K ≤ ½, so AC1 ≥ −1 even with missing ratings.
    assert math.isnan(ac1.value) or ac1.value >= -1.0 - 1e-12
    if not math.isnan(ac1.se):
        assert ac1.se >= 0 and ac1.lower <= ac1.value <= ac1.upper <= 1.0
