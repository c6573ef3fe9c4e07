"""Kappa-type coefficients: published worked examples, cross-checks against sklearn, statsmodels,
nltk and irrCAC on seeded random data, edge cases and hypothesis properties."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from irrCAC.raw import CAC
from nltk.metrics.agreement import AnnotationTask
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics._base import Undefined
from iaa_gate.metrics.kappa import (
    KappaEstimate,
    allocation_disagreement,
    bias_index,
    cohen_kappa,
    cohen_kappa_ci,
    fleiss_kappa,
    kappa_max,
    light_kappa,
    mean_pairwise_cohen_kappa,
    pabak,
    pairwise_cohen_kappa,
    percent_agreement,
    pooled_pair_agreement,
    prevalence_index,
    quantity_disagreement,
    scott_pi,
)

# ----------------------------------------------------------------------------- helpers


def from_table(table: list[list[int]] | np.ndarray) -> np.ndarray:
    """Two annotators' ratings (units × 2) from a count table: rows annotator 1, columns 2."""
    t = np.asarray(table)
    rows = [[i, j] for i in range(t.shape[0]) for j in range(t.shape[1]) for _ in range(t[i, j])]
    return np.array(rows, dtype=float)


def from_counts(counts: list[list[int]] | np.ndarray) -> np.ndarray:
    """Raw ratings (units × m) from a units × categories count table (Fleiss layout)."""
    c = np.asarray(counts)
    return np.array([np.repeat(np.arange(c.shape[1]), row) for row in c], dtype=float)


def random_ratings(
    rng: np.random.Generator, units: int, annotators: int, k: int, missing: float
) -> np.ndarray:
    """Correlated random codes 0..k-1 (a latent truth plus noise) with NaN for missing."""
    truth = rng.integers(0, k, size=(units, 1))
    noise = rng.integers(0, k, size=(units, annotators))
    keep = rng.random((units, annotators)) < rng.uniform(0.3, 0.9)
    x = np.where(keep, truth, noise).astype(float)
    x[rng.random((units, annotators)) < missing] = np.nan
    return x


def is_undefined(value: float) -> bool:
    return isinstance(value, Undefined) and math.isnan(value) and bool(value.reason)


# ------------------------------------------------------------- published worked examples


def test_seed_001_two_annotators_five_items() -> None:
    # A = 1,2,2,1,2 and B = 1,2,1,1,2: p_o = 0.8, p_e = 0.48, κ = 0.32/0.52 ≈ 0.615.
    r = np.array([[1, 1], [2, 2], [2, 1], [1, 1], [2, 2]])
    assert cohen_kappa(r) == pytest.approx(0.32 / 0.52, abs=1e-15)
    assert round(cohen_kappa(r), 3) == 0.615
    assert percent_agreement(r) == pytest.approx(0.8)


def test_seed_001_quadratic_weighted_example() -> None:
    # A = 1,2,3,1,2, B = 1,1,3,2,2, weights 1 − (i−j)²/(K−1)² (w_12 = 0.75, as in the seed):
    # p_o = 4.5/5 = 0.9, margins (.4, .4, .2) for both, p_e = 0.72, κ_w = 0.18/0.28 = 9/14.
    r = np.array([[1, 1], [2, 1], [3, 3], [1, 2], [2, 2]])
    assert cohen_kappa(r, "quadratic") == pytest.approx(9 / 14, abs=1e-15)
    sk = cohen_kappa_score(r[:, 0], r[:, 1], weights="quadratic")
    assert cohen_kappa(r, "quadratic") == pytest.approx(sk, abs=1e-12)
    w = np.array([[1, 0.75, 0], [0.75, 1, 0.75], [0, 0.75, 1]])
    assert cohen_kappa(r, w) == pytest.approx(9 / 14, abs=1e-15)


def test_seed_000_and_wikipedia_grant_example() -> None:
    # 50 proposals: yes/yes 20, A yes B no 5, A no B yes 10, no/no 15 → p_o 0.7, p_e 0.5, κ 0.4.
    r = from_table([[20, 5], [10, 15]])
    assert percent_agreement(r) == pytest.approx(0.7)
    assert cohen_kappa(r) == pytest.approx(0.4, abs=1e-14)
    # Byrt et al.: PI = (20 − 15)/50, BI = (5 − 10)/50, PABAK = 2·0.7 − 1.
    assert prevalence_index(r) == pytest.approx(0.1)
    assert bias_index(r) == pytest.approx(-0.1)
    assert pabak(r) == pytest.approx(0.4)


def test_wikipedia_same_agreement_different_kappa() -> None:
    # Both tables have p_o = 0.60; Wikipedia gives κ = 0.1304 and κ = 0.2593.
    assert round(cohen_kappa(from_table([[45, 15], [25, 15]])), 4) == 0.1304
    assert round(cohen_kappa(from_table([[25, 35], [5, 35]])), 4) == 0.2593


def test_seed_004_sandwich_table() -> None:
    # Rows B0/B1, columns A0/A1: 400, 90 / 60, 450. p_o = 0.85, margins A (.46, .54),
    # B (.49, .51), p_e = 0.5008, κ = 0.3492/0.4992 = 291/416.
    table_b_by_a = np.array([[400, 90], [60, 450]])
    r = from_table(table_b_by_a.T)  # column 0: annotator A, column 1: annotator B
    assert percent_agreement(r) == pytest.approx(0.85)
    assert cohen_kappa(r) == pytest.approx(291 / 416, abs=1e-14)
    assert cohen_kappa(r[:, ::-1]) == pytest.approx(291 / 416, abs=1e-14)
    assert quantity_disagreement(r) == pytest.approx(0.03)  # ½(|.46−.49| + |.54−.51|)
    assert allocation_disagreement(r) == pytest.approx(0.12)  # 2·min(.09, .06)


def test_pontius_millones_death_to_kappa_examples() -> None:
    # Wikipedia (seed 003): comparison 1 [[1, 14], [0, 1]]: disagreement 14/16 all quantity,
    # κ ≈ 0.01; comparison 2 [[0, 1], [1, 14]]: disagreement 2/16 all allocation, κ ≈ −0.07.
    r1 = from_table([[1, 14], [0, 1]])
    assert quantity_disagreement(r1) == pytest.approx(0.875)
    assert allocation_disagreement(r1) == pytest.approx(0.0)
    assert round(cohen_kappa(r1), 2) == 0.01
    r2 = from_table([[0, 1], [1, 14]])
    assert quantity_disagreement(r2) == pytest.approx(0.0)
    assert allocation_disagreement(r2) == pytest.approx(0.125)
    assert round(cohen_kappa(r2), 2) == -0.07


SAS_TABLE = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]


def test_sas_proc_freq_agreement_example_with_ase() -> None:
    # SAS PROC FREQ output for this table (quoted in statsmodels' test suite): simple kappa
    # 0.4842, ASE 0.1380, 95% CI 0.2137–0.7547; weighted kappa (Cicchetti–Allison = linear
    # agreement weights) 0.4701, ASE 0.1457, 95% CI 0.1845–0.7558. ASE is the FCE non-null SE.
    r = from_table(SAS_TABLE)
    est = cohen_kappa_ci(r)
    assert [round(x, 4) for x in (est.kappa, est.se, est.lower, est.upper)] == [
        0.4842,
        0.1380,
        0.2137,
        0.7547,
    ]
    est_w = cohen_kappa_ci(r, weights="linear")
    assert [round(x, 4) for x in (est_w.value, est_w.se, est_w.lower, est_w.upper)] == [
        0.4701,
        0.1457,
        0.1845,
        0.7558,
    ]


WIKI_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_1971_wikipedia_example() -> None:
    # 10 subjects × 14 raters × 5 categories (seed 000 / Wikipedia): p_1 = 0.143, P_2 = 0.253,
    # P̄ = 0.378, P̄_e = 0.213, κ = 0.210.
    r = from_counts(WIKI_FLEISS)
    counts = np.array(WIKI_FLEISS, dtype=float)
    assert round(counts[:, 0].sum() / 140, 3) == 0.143
    assert round((counts[1] ** 2).sum() - 14, 0) / (14 * 13) == pytest.approx(46 / 182)
    assert round(percent_agreement(r), 3) == 0.378
    kappa = fleiss_kappa(r)
    assert round(kappa, 3) == 0.210
    assert kappa == pytest.approx(sm_fleiss_kappa(counts), abs=1e-12)


# Seed 002: six people A–F answer five yes/no questions; the blog lost the table but lists the
# 15 pairwise kappas (2 decimals) and their mean −0.16/15 ≈ −0.01. Searching all 32⁶ tables
# gives exactly 240 tables with these 15 kappas: this one up to the 5! orders of the questions and
# swapping yes/no, none of which changes a kappa. (A–B matches the blog's table: p_o = 0.2.)
SEED_002 = np.array(
    [
        [0, 0, 0, 0, 0, 1],
        [0, 1, 1, 0, 1, 0],
        [0, 1, 1, 1, 1, 0],
        [1, 0, 0, 0, 0, 1],
        [1, 0, 1, 1, 0, 1],
    ],
    dtype=float,
)
SEED_002_KAPPAS = {
    "AB": -0.67, "AC": -0.15, "AD": 0.17, "AE": -0.67, "AF": 0.62,
    "BC": 0.62, "BD": 0.17, "BE": 1.00, "BF": -0.92, "CD": 0.62,
    "CE": 0.62, "CF": -0.67, "DE": 0.17, "DF": -0.15, "EF": -0.92,
}  # fmt: skip


def test_seed_002_mean_pairwise_kappa() -> None:
    m = pairwise_cohen_kappa(SEED_002)
    for pair, published in SEED_002_KAPPAS.items():
        a, b = ("ABCDEF".index(c) for c in pair)
        assert round(m[a, b], 2) == published
        assert m[a, b] == m[b, a]
    assert np.isnan(np.diag(m)).all()
    assert round(mean_pairwise_cohen_kappa(SEED_002), 2) == -0.01
    assert sum(SEED_002_KAPPAS.values()) == pytest.approx(-0.16)
    # nltk's AnnotationTask.kappa is the plain mean of Cohen's kappa over coder pairs. It assumes
    # complete data (observed agreement is divided by all items) and scores a pair with p_e = 1
    # and p_o = 1 as 1.0, where this module skips the pair as undefined.
    task = AnnotationTask([(c, str(i), int(SEED_002[i, c])) for i in range(5) for c in range(6)])
    assert mean_pairwise_cohen_kappa(SEED_002) == pytest.approx(task.kappa(), abs=1e-12)


def test_byrt_identity_kappa_from_pabak_pi_bi() -> None:
    # Byrt, Bishop & Carlin (1993): κ = (PABAK − PI² + BI²)/(1 − PI² + BI²) on any 2×2 table.
    rng = np.random.default_rng(3)
    for _ in range(200):
        t = rng.integers(0, 30, size=(2, 2))
        t[0, 0] += 1
        t[1, 1] += 1
        r = from_table(t)
        pi_, bi_, pab = prevalence_index(r), bias_index(r), pabak(r)
        expected = (pab - pi_**2 + bi_**2) / (1 - pi_**2 + bi_**2)
        assert cohen_kappa(r) == pytest.approx(expected, abs=1e-12)


# ------------------------------------------------------------- randomised cross-checks


@pytest.mark.parametrize("seed", range(40))
def test_cohen_matches_sklearn_with_missing_and_unobserved(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    x = random_ratings(rng, int(rng.integers(5, 80)), 2, k, missing=0.2)
    extra = int(rng.integers(0, 3))  # declared categories nobody used
    categories = list(range(k + extra))
    both = ~np.isnan(x).any(axis=1)
    a, b = x[both, 0].astype(int), x[both, 1].astype(int)
    for weights in (None, "linear", "quadratic"):
        ours = cohen_kappa(x, weights, categories=categories)
        with np.errstate(all="ignore"):
            ref = cohen_kappa_score(a, b, labels=categories, weights=weights)
        if np.isnan(ref):
            assert is_undefined(ours)
        else:
            assert ours == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_cohen_se_matches_statsmodels(seed: int) -> None:
    # statsmodels' std_kappa is the Fleiss–Cohen–Everitt (1969) non-null ASE, as here; its
    # weighted kappa takes *disagreement* scores: weights=arange(K) with wt="linear"/"quadratic"
    # is |i−j|/(K−1) resp. (i−j)²/(K−1)², i.e. 1 − our agreement weights.
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 7))
    x = random_ratings(rng, int(rng.integers(8, 120)), 2, k, missing=0.1)
    categories = list(range(k))
    both = ~np.isnan(x).any(axis=1)
    table = np.zeros((k, k))
    np.add.at(table, (x[both, 0].astype(int), x[both, 1].astype(int)), 1)
    if table.sum(axis=0).max() == table.sum() and table.sum(axis=1).max() == table.sum():
        pytest.skip("one category only: statsmodels divides by zero")
    cases = [(None, {}), ("linear", {"wt": "linear"}), ("quadratic", {"wt": "quadratic"})]
    for ours_w, sm_kw in cases:
        sm_w = None if ours_w is None else np.arange(k)
        res = cohens_kappa(table, weights=sm_w, **sm_kw)
        est = cohen_kappa_ci(x, weights=ours_w, categories=categories)
        assert est.kappa == pytest.approx(res.kappa, abs=1e-12)
        assert est.se == pytest.approx(res.std_kappa, abs=1e-12)
        assert est.lower == pytest.approx(res.kappa_low, abs=1e-12)
        assert est.upper == pytest.approx(min(res.kappa_upp, 1.0), abs=1e-12)
    assert kappa_max(x) == pytest.approx(cohens_kappa(table).kappa_max, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_fleiss_matches_statsmodels_complete(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    k = int(rng.integers(2, 7))
    x = random_ratings(rng, int(rng.integers(3, 60)), int(rng.integers(2, 8)), k, missing=0.0)
    table, _ = aggregate_raters(x.astype(int), n_cat=k)
    ref = sm_fleiss_kappa(table)
    ours = fleiss_kappa(x)
    if np.isnan(ref):
        assert is_undefined(ours)
    else:
        assert ours == pytest.approx(ref, abs=1e-12)


@pytest.mark.filterwarnings("ignore::pandas.errors.SettingWithCopyWarning")
@pytest.mark.parametrize("seed", range(30))
def test_fleiss_matches_irrcac_with_missing(seed: int) -> None:
    # irrCAC's fleiss() is Gwet's (2014) missing-data generalisation, the one used here.
    rng = np.random.default_rng(300 + seed)
    k = int(rng.integers(2, 7))
    x = random_ratings(rng, int(rng.integers(5, 60)), int(rng.integers(2, 8)), k, missing=0.3)
    if (np.sum(~np.isnan(x), axis=1) >= 2).sum() == 0 or len(np.unique(x[~np.isnan(x)])) < 2:
        pytest.skip("degenerate draw")
    ref = CAC(pd.DataFrame(x), digits=14).fleiss()["est"]
    assert fleiss_kappa(x) == pytest.approx(ref["coefficient_value"], abs=1e-12)
    assert percent_agreement(x) == pytest.approx(ref["pa"], abs=1e-12)  # Gwet's p_a


@pytest.mark.parametrize("seed", range(30))
def test_scott_pi_matches_nltk(seed: int) -> None:
    rng = np.random.default_rng(400 + seed)
    k = int(rng.integers(2, 7))
    x = random_ratings(rng, int(rng.integers(3, 60)), 2, k, missing=0.0).astype(int)
    if len(np.unique(x)) < 2:
        pytest.skip("one category only")
    task = AnnotationTask([(c, str(i), int(x[i, c])) for i in range(len(x)) for c in range(2)])
    assert scott_pi(x) == pytest.approx(task.pi(), abs=1e-12)
    assert percent_agreement(x) == pytest.approx(task.avg_Ao(), abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_light_kappa_matches_nltk_and_sklearn_loop(seed: int) -> None:
    rng = np.random.default_rng(500 + seed)
    k = int(rng.integers(2, 7))
    a_count = int(rng.integers(2, 8))
    x = random_ratings(rng, int(rng.integers(6, 60)), a_count, k, missing=0.25)
    kappas, skipped = [], 0
    for a, b in combinations(range(a_count), 2):
        both = ~np.isnan(x[:, a]) & ~np.isnan(x[:, b])
        pa, pb = x[both, a], x[both, b]
        if both.sum() == 0 or (len(np.unique(pa)) == len(np.unique(pb)) == 1 and pa[0] == pb[0]):
            skipped += 1
            continue
        kappas.append(cohen_kappa_score(pa, pb))
    res = light_kappa(x)
    assert (res.pairs_used, res.pairs_skipped) == (len(kappas), skipped)
    if kappas:
        assert res.value == pytest.approx(np.mean(kappas), abs=1e-12)
    else:
        assert is_undefined(res.value)
    # Complete data: nltk's pairwise mean (it assumes every coder rated every item).
    full = x[~np.isnan(x).any(axis=1)].astype(int)
    if len(full) and light_kappa(full).pairs_skipped == 0:
        task = AnnotationTask(
            [(c, str(i), int(full[i, c])) for i in range(len(full)) for c in range(a_count)]
        )
        assert mean_pairwise_cohen_kappa(full) == pytest.approx(task.kappa(), abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_percent_agreement_brute_force_and_disagreement_split(seed: int) -> None:
    rng = np.random.default_rng(600 + seed)
    k = int(rng.integers(2, 7))
    x = random_ratings(rng, int(rng.integers(3, 40)), int(rng.integers(2, 8)), k, missing=0.3)
    agree = total = 0
    shares = []
    for row in x:
        vals = row[~np.isnan(row)]
        pairs = list(combinations(range(len(vals)), 2))
        same = sum(vals[i] == vals[j] for i, j in pairs)
        total += len(pairs)
        agree += same
        if pairs:
            shares.append(same / len(pairs))
    if total:
        assert pooled_pair_agreement(x) == pytest.approx(agree / total, abs=1e-12)
        assert percent_agreement(x) == pytest.approx(np.mean(shares), abs=1e-12)
    two = x[:, :2]
    if (~np.isnan(two).any(axis=1)).any():
        po = percent_agreement(two)
        q, a = quantity_disagreement(two), allocation_disagreement(two)
        assert q + a == pytest.approx(1 - po, abs=1e-12)
        assert q >= 0 and a >= 0


# ------------------------------------------------------------------------ edge cases


def test_perfect_agreement_is_one() -> None:
    r = np.array([[0, 0], [1, 1], [2, 2], [1, 1]])
    for value in (
        cohen_kappa(r),
        cohen_kappa(r, "quadratic"),
        scott_pi(r),
        fleiss_kappa(r),
        mean_pairwise_cohen_kappa(r),
        kappa_max(r),
        pabak(r),
    ):
        assert value == 1.0
    est = cohen_kappa_ci(r)
    assert est.se == 0.0 and est.lower == est.upper == 1.0


def test_single_category_is_undefined_not_zero_or_one() -> None:
    r = np.array([["a", "a"], ["a", "a"], ["a", "a"]], dtype=object)
    for value in (
        cohen_kappa(r),
        cohen_kappa(r, "linear"),
        scott_pi(r),
        fleiss_kappa(r),
        kappa_max(r),
        mean_pairwise_cohen_kappa(r),
        pabak(r),
        prevalence_index(r),
    ):
        assert is_undefined(value), value
    assert "single category" in cohen_kappa(r).reason
    est = cohen_kappa_ci(r)
    assert all(is_undefined(v) for v in (est.value, est.se, est.lower, est.upper))
    # Declaring a second category does not rescue kappa: p_e is still 1.
    assert is_undefined(cohen_kappa(r, categories=["a", "b"]))
    # ... but the two-category indices exist: PI = 1, BI = 0, PABAK = 1 (all units agree).
    assert prevalence_index(r, categories=["a", "b"]) == 1.0
    assert bias_index(r, categories=["a", "b"]) == 0.0
    assert pabak(r, categories=["a", "b"]) == 1.0


def test_one_annotator_and_no_overlap() -> None:
    one = np.array([[1.0], [2.0], [1.0]])
    with pytest.raises(UsageError, match=r"exactly two annotator columns.*\(3, 1\)"):
        cohen_kappa(one)
    with pytest.raises(UsageError, match="exactly two"):
        cohen_kappa(np.zeros((4, 3)))
    assert is_undefined(fleiss_kappa(one))
    assert is_undefined(light_kappa(one).value)
    assert is_undefined(percent_agreement(one))
    apart = np.array([[1, np.nan], [2, np.nan], [np.nan, 1], [np.nan, 2]])
    for value in (
        cohen_kappa(apart),
        scott_pi(apart),
        kappa_max(apart),
        quantity_disagreement(apart),
        allocation_disagreement(apart),
        pabak(apart),
        fleiss_kappa(apart),
        percent_agreement(apart),
    ):
        assert is_undefined(value), value
    assert "both" in cohen_kappa(apart).reason
    res = light_kappa(apart)
    assert is_undefined(res.value) and (res.pairs_used, res.pairs_skipped) == (0, 1)


def test_light_skips_undefined_pairs() -> None:
    # Annotator 3 shares one unit with each other annotator, on which all say 1: p_e = 1.
    x = np.array([[1, 1, np.nan], [2, 2, np.nan], [np.nan, np.nan, 2], [1, 1, 1]])
    m = pairwise_cohen_kappa(x)
    assert np.isnan(m[0, 2]) and np.isnan(m[1, 2]) and m[0, 1] == 1.0
    res = light_kappa(x)
    assert (res.pairs_used, res.pairs_skipped) == (1, 2)
    assert res.value == pytest.approx(m[0, 1])


def test_negative_kappa() -> None:
    r = np.array([[0, 1], [1, 0], [0, 1], [1, 0]])
    assert cohen_kappa(r) == -1.0
    assert scott_pi(r) == -1.0
    assert pabak(r) == -1.0


def test_unobserved_categories_matter_only_when_weighted() -> None:
    r = np.array([[1, 1], [2, 1], [3, 3], [1, 2], [2, 2]])
    full = [1, 2, 3, 4, 5]
    assert cohen_kappa(r, categories=full) == pytest.approx(cohen_kappa(r), abs=1e-15)
    # Unobserved categories at the end only rescale linear/quadratic disagreement weights,
    # which kappa ignores; inside the scale they move the positions.
    assert cohen_kappa(r, "linear", categories=full) == pytest.approx(cohen_kappa(r, "linear"))
    gap = np.array([[1, 1], [2, 1], [5, 5], [1, 2], [2, 2], [5, 2]])
    for weights in ("linear", "quadratic"):
        wider = cohen_kappa(gap, weights, categories=full)
        assert wider != pytest.approx(cohen_kappa(gap, weights))
        sk = cohen_kappa_score(gap[:, 0], gap[:, 1], labels=full, weights=weights)
        assert wider == pytest.approx(sk, abs=1e-12)
        sk_observed = cohen_kappa_score(gap[:, 0], gap[:, 1], weights=weights)
        assert cohen_kappa(gap, weights) == pytest.approx(sk_observed, abs=1e-12)
    # PABAK uses K = number of declared categories: (K p_o − 1)/(K − 1) with p_o = 0.6.
    assert pabak(r) == pytest.approx((3 * 0.6 - 1) / 2)
    assert pabak(r, categories=full) == pytest.approx((5 * 0.6 - 1) / 4)
    assert is_undefined(prevalence_index(r)) and "exactly two" in prevalence_index(r).reason
    with pytest.raises(UsageError, match="not in the value order"):
        cohen_kappa(r, categories=[1, 2])


def test_string_labels_and_weight_validation() -> None:
    r = np.array([["lo", "lo"], ["hi", "lo"], ["mid", "mid"], ["hi", "hi"]], dtype=object)
    order = ["lo", "mid", "hi"]
    num = np.array([[0, 0], [2, 0], [1, 1], [2, 2]])
    assert cohen_kappa(r, "quadratic", categories=order) == pytest.approx(
        cohen_kappa(num, "quadratic"), abs=1e-15
    )
    with pytest.raises(UsageError, match="3 × 3"):
        cohen_kappa(num, np.eye(2))
    with pytest.raises(UsageError, match="diagonal"):
        cohen_kappa(num, np.full((3, 3), 0.5))
    with pytest.raises(UsageError, match="weights='cubic' is not accepted"):
        cohen_kappa(num, "cubic")
    with pytest.raises(UsageError, match="confidence"):
        cohen_kappa_ci(num, confidence=1.0)
    assert isinstance(cohen_kappa_ci(num), KappaEstimate)


# ---------------------------------------------------------------- hypothesis properties

codes_2 = st.integers(2, 30).flatmap(
    lambda n: st.lists(st.tuples(st.integers(-1, 4), st.integers(-1, 4)), min_size=n, max_size=n)
)


def _as_ratings(rows: list[tuple[int, int]]) -> np.ndarray:
    x = np.array(rows, dtype=float)
    x[x < 0] = np.nan
    return x


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12


@settings(max_examples=300, deadline=None)
@given(codes_2)
def test_properties_two_annotators(rows: list[tuple[int, int]]) -> None:
    x = _as_ratings(rows)
    kappa = cohen_kappa(x)
    # swapping the annotators
    assert _same(kappa, cohen_kappa(x[:, ::-1]))
    assert _same(cohen_kappa(x, "quadratic"), cohen_kappa(x[:, ::-1], "quadratic"))
    assert _same(scott_pi(x), scott_pi(x[:, ::-1]))
    # permuting the units
    perm = np.random.default_rng(len(rows)).permutation(len(rows))
    assert _same(kappa, cohen_kappa(x[perm]))
    assert _same(cohen_kappa(x, "linear"), cohen_kappa(x[perm], "linear"))
    # relabelling the categories (unweighted only; a weighted kappa depends on the order)
    relabel = np.array([3.0, 0.0, 4.0, 1.0, 2.0])
    y = np.where(np.isnan(x), np.nan, relabel[np.nan_to_num(x, nan=0).astype(int)])
    assert _same(kappa, cohen_kappa(y))
    assert _same(scott_pi(x), scott_pi(y))
    # range
    for v in (
        kappa,
        cohen_kappa(x, "linear"),
        cohen_kappa(x, "quadratic"),
        scott_pi(x),
        pabak(x),
        fleiss_kappa(x[~np.isnan(x).any(axis=1)]),
        kappa_max(x),
    ):
        assert math.isnan(v) or -1.0 - 1e-12 <= v <= 1.0
        assert not math.isnan(v) or is_undefined(v)
    if not math.isnan(kappa):
        assert kappa <= kappa_max(x) + 1e-12


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda a: st.lists(
            st.lists(st.integers(-1, 3), min_size=a, max_size=a), min_size=1, max_size=25
        )
    )
)
def test_properties_many_annotators(rows: list[list[int]]) -> None:
    x = np.array(rows, dtype=float)
    x[x < 0] = np.nan
    perm_units = np.random.default_rng(0).permutation(len(x))
    perm_annot = np.random.default_rng(1).permutation(x.shape[1])
    complete = not np.isnan(x).any()
    for f in (fleiss_kappa, percent_agreement, mean_pairwise_cohen_kappa):
        v = f(x)
        assert _same(v, f(x[perm_units]))
        assert _same(v, f(x[:, perm_annot]))
        assert not math.isnan(v) or is_undefined(v)
        assert math.isnan(v) or v <= 1.0
        # With varying numbers of ratings per unit, Fleiss' P̄ and P̄_e weigh units differently
        # and κ can fall below −1 (e.g. units (a, b) and (a) alone: P̄ = 0, P̄_e = 0.625).
        if complete or f is not fleiss_kappa:
            assert math.isnan(v) or v >= -1.0 - 1e-12


def test_many_categories_do_not_overflow_small_codes() -> None:
    # Codes may be stored as int8/int16: table indices must be widened before arithmetic.
    rng = np.random.default_rng(7)
    k = 300
    x = rng.integers(0, k, size=(2000, 2)).astype(float)
    x[:1000, 1] = x[:1000, 0]
    assert cohen_kappa(x) == pytest.approx(cohen_kappa_score(x[:, 0], x[:, 1]), abs=1e-12)
    many = rng.integers(0, 200, size=(500, 4))
    many[:, 1] = many[:, 0]
    table, _ = aggregate_raters(many, n_cat=200)
    assert fleiss_kappa(many) == pytest.approx(sm_fleiss_kappa(table), abs=1e-12)


def test_kappa_max_of_equal_margins_is_exactly_one() -> None:
    """Two annotators who used each category equally often could have agreed on every unit:
    κ_max is 1, not a rounding error above it (a sum of shares gave 1.0000000000000002 here)."""
    x = [[1, 0], [1, 0], [1, 4], [4, 1], [2, 1], [1, 2], [4, 2], [0, 2], [0, 1], [2, 1], [2, 4]]
    x += [[0, 0], [4, 4]]
    assert kappa_max(x) == 1.0
