"""Per-category, per-item and per-annotator agreement."""

import math
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_gate.metrics import (
    Undefined,
    alpha,
    annotator_agreement,
    category_agreement,
    coincidence_matrix,
    item_agreement,
    items,
    krippendorff_alpha,
    pairwise_agreement,
    specific_agreement,
    undefined_reason,
)
from iaa_gate.metrics.categories import category_counts, value_count_blocks

nan = math.nan
# Seed 004's sandwich experiment: A0/B0 400, A1/B0 90, A0/B1 60, A1/B1 450.
SANDWICH = [[0, 0]] * 400 + [[1, 0]] * 90 + [[0, 1]] * 60 + [[1, 1]] * 450


def test_seed_004_sandwich() -> None:
    rates = category_agreement(SANDWICH)
    assert rates[0.0] == pytest.approx(400 / 550) and round(rates[0.0], 3) == 0.727
    assert rates[1.0] == pytest.approx(0.75)


def test_two_annotators_closed_forms() -> None:
    # a = both gave the category, b and c = only one did
    a, b, c = 450, 90, 60
    assert category_agreement(SANDWICH)[1.0] == pytest.approx(a / (a + b + c))
    assert specific_agreement(SANDWICH)[1.0] == pytest.approx(2 * a / (2 * a + b + c))
    assert specific_agreement(SANDWICH)[0.0] == pytest.approx(2 * 400 / (2 * 400 + b + c))


def _loop_rates(rows: list) -> tuple[dict, dict]:
    """Direct pair counting: unordered pairs (seed 004) and ordered pairs (Uebersax)."""
    cats = sorted({v for r in rows for v in r if v is not None})
    agree = dict.fromkeys(cats, 0)
    potential = dict.fromkeys(cats, 0)
    for r in rows:
        vals = [v for v in r if v is not None]
        for i in range(len(vals)):
            for j in range(i + 1, len(vals)):
                for cat in cats:
                    if vals[i] == cat and vals[j] == cat:
                        agree[cat] += 1
                    if cat in (vals[i], vals[j]):
                        potential[cat] += 1
    seed = {k: agree[k] / potential[k] for k in cats if potential[k]}
    spec_num = {k: 2 * agree[k] for k in cats}
    spec_den = dict.fromkeys(cats, 0)
    for r in rows:
        vals = [v for v in r if v is not None]
        if len(vals) >= 2:
            for v in vals:
                spec_den[v] += len(vals) - 1
    spec = {k: spec_num[k] / spec_den[k] for k in cats if spec_den[k]}
    return seed, spec


rows_strategy = st.lists(
    st.lists(st.one_of(st.none(), st.sampled_from("xyz")), min_size=4, max_size=4),
    min_size=1,
    max_size=15,
)


@settings(max_examples=200, deadline=None)
@given(rows_strategy)
def test_rates_match_pair_counting(rows: list) -> None:
    seed, spec = _loop_rates(rows)
    ours_seed, ours_spec = category_agreement(rows), specific_agreement(rows)
    for cat, rate in ours_seed.items():
        if cat in seed:
            assert rate == pytest.approx(seed[cat])
            assert ours_spec[cat] == pytest.approx(spec[cat])
            assert 0.0 <= ours_spec[cat] <= 1.0
        else:
            assert isinstance(rate, Undefined)


def test_nltk_style_multiple_annotators_and_missing() -> None:
    rows = [["a", "a", "b"], ["a", None, "a"], ["b", "b", "b"], [None, "c", None]]
    rates = category_agreement(rows)
    # unit 1: a-a agree, a-b and a-b potential → A=1, P=3; unit 2: A=1, P=1
    assert rates["a"] == pytest.approx(2 / 4)
    assert isinstance(rates["c"], Undefined)


def test_coincidence_matrix_sums_to_pairable_values() -> None:
    rows = np.array([[1, 1, nan], [1, 2, 2], [nan, 3, nan], [2, 2, 2]])
    o, values = coincidence_matrix(rows)
    assert list(values) == [1.0, 2.0, 3.0]
    assert o.sum() == pytest.approx(8)  # values in pairable units
    assert np.allclose(o, o.T)
    assert o[0, 1] == pytest.approx(1.0) and o[1, 1] == pytest.approx(1 + 3)


def test_value_counts_and_coincidences_by_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blockwise counts (one bincount per block, any block size) against direct counting."""
    import iaa_gate.metrics.categories as categories_mod
    from iaa_gate.metrics import encode
    from iaa_gate.metrics._base import row_blocks

    rng = np.random.default_rng(2)
    x = rng.integers(0, 5, (157, 4)).astype(float)
    x[rng.random(x.shape) < 0.3] = nan
    want_counts = np.array([[np.sum(row == v) for v in range(5)] for row in x])
    want_o = np.zeros((5, 5))
    for c in want_counts[want_counts.sum(axis=1) >= 2]:
        want_o += (np.outer(c, c) - np.diag(c)) / (c.sum() - 1)
    for cells in (7, 100, 1 << 16):
        blocks = lambda r, c, _=0, k=cells: row_blocks(r, c, k)  # noqa: E731
        monkeypatch.setattr(categories_mod, "row_blocks", blocks)
        got = np.zeros_like(want_counts)
        for s, counts in value_count_blocks(encode(x)):
            got[s] = counts[1:].T
        assert (got == want_counts).all()
        coded = encode(x)
        sparse = category_counts(coded.codes, coded.n_values)  # the rated units, nonzero cells
        assert (sparse.dense() == want_counts[want_counts.sum(axis=1) > 0]).all()
        assert np.allclose(coincidence_matrix(x)[0], want_o, atol=1e-12)


def test_item_agreement() -> None:
    rows = [[1, 1, nan], [1, 2, 2], [nan, 3, nan], [2, 2, 2], [1, 2, 3]]
    items = item_agreement(rows)
    assert items.pair_agreement[0] == 1.0 and items.pair_agreement[1] == pytest.approx(1 / 3)
    assert math.isnan(items.pair_agreement[2]) and items.pair_agreement[4] == 0.0
    assert list(items.n_ratings) == [2, 3, 1, 3, 3]
    # weighted by m_u, the mean score reproduces alpha: Σ m_u·score_u / n ≈ alpha (exactly for
    # nominal up to the n/(n−1) factor)
    ok = items.n_ratings >= 2
    n = items.n_ratings[ok].sum()
    weighted = 1 - (1 - items.score[ok]) @ (items.n_ratings[ok]) / n
    assert weighted == pytest.approx(krippendorff_alpha(rows), abs=1e-12)


def test_annotator_agreement_names_the_outlier() -> None:
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 4, 300)
    x = np.stack([truth, truth, truth, rng.integers(0, 4, 300)], axis=1).astype(float)
    x[rng.random(x.shape) < 0.1] = nan
    result = annotator_agreement(x)
    assert int(np.argmin(result.pair_agreement)) == 3
    assert int(np.argmax(result.alpha_without)) == 3
    assert result.alpha_without[3] == pytest.approx(krippendorff_alpha(x[:, :3]))


def _code_rows(
    annotators: tuple[int, int], top: int, rows: tuple[int, int]
) -> st.SearchStrategy[Any]:
    """Lists of ``rows`` rows of codes (−1 missing, 0…``top``), each of ``annotators``."""
    return st.integers(*annotators).flatmap(
        lambda a: st.lists(
            st.lists(st.integers(-1, top), min_size=a, max_size=a),
            min_size=rows[0],
            max_size=rows[1],
        )
    )


LEVELS = st.sampled_from(["nominal", "ordinal", "interval", "ratio"])


def _ratings(codes: list[list[int]]) -> np.ndarray:
    """Codes as ratings ``(units, annotators)``: value code + 1, NaN missing."""
    return np.array([[np.nan if c < 0 else float(c + 1) for c in row] for row in codes])


@settings(max_examples=200, deadline=None)
@given(codes=_code_rows((1, 7), 4, (0, 30)), level=LEVELS)
def test_alpha_without_each_annotator_by_patterns_equals_one_by_one(
    codes: list[list[int]], level: str
) -> None:
    """Every annotator at once from the units' rating patterns equals the annotator-by-
    annotator computation it stands in for: bit for bit where no unit has more than 3 ratings
    (the weights ½ and 1 are exact), to rounding otherwise; undefined stays undefined."""
    x = _ratings(codes).reshape(len(codes), len(codes[0]) if codes else 1)
    got = alpha.alphas_without(x, level)
    with mock.patch.object(alpha, "PATTERN_CELLS", 0):  # annotator by annotator
        want = alpha.alphas_without(x, level)
    if max((sum(c >= 0 for c in row) for row in codes), default=0) <= 3:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize(("annotators", "per_unit"), [(4, 4), (10, 3), (200, 3), (6, 2)])
def test_alpha_without_each_annotator_matches_the_krippendorff_package(
    level: str, annotators: int, per_unit: int
) -> None:
    """Against ``krippendorff.alpha`` of the matrix without each annotator: a round where
    everyone rates every unit, the usual 3 of 10, a crowd of 200 with 3 a unit, and pairs."""
    import krippendorff

    rng = np.random.default_rng(annotators * 10 + per_unit)
    units = 400
    x = np.full((units, annotators), np.nan)
    truth = rng.integers(1, 6, units)
    for u in range(units):
        who = rng.choice(annotators, per_unit, replace=False)
        x[u, who] = np.where(rng.random(per_unit) < 0.7, truth[u], rng.integers(1, 6, per_unit))
    got = alpha.alphas_without(x, level)
    for a in range(annotators):
        rest = np.delete(x, a, axis=1)
        if np.count_nonzero(np.sum(~np.isnan(rest), axis=1) >= 2) == 0:
            assert math.isnan(got[a])  # nobody left to pair: undefined, not 0
            continue
        want = krippendorff.alpha(reliability_data=rest.T, level_of_measurement=level)
        assert got[a] == pytest.approx(want, abs=1e-9)


def test_alpha_without_the_only_dissenter_is_undefined() -> None:
    """Without the one annotator who ever disagreed, a single value is left: no variation to
    agree on, so alpha is undefined (NaN), never 1."""
    x = np.array([[1.0, 1.0, 2.0], [1.0, 1.0, 1.0], [1.0, 1.0, 2.0]])
    got = alpha.alphas_without(x)
    assert math.isnan(got[2]) and not math.isnan(got[0])
    assert "only one value" in (undefined_reason(krippendorff_alpha(x[:, :2])) or "")


def test_pairwise_agreement_small_example() -> None:
    rows = [[1, 1, nan], [1, 2, 2], [nan, 3, nan], [2, 2, 2], [1, 2, 3]]
    pw = pairwise_agreement(rows)
    # 0 and 1 share units 0, 1, 3, 4 and agree on 0 and 3; 0 and 2 share 1, 3, 4 (agree on 3)
    assert pw.shared.tolist() == [[4, 4, 3], [4, 5, 3], [3, 3, 3]]
    assert pw.agreement[0, 1] == pw.agreement[1, 0] == 0.5
    assert pw.agreement[0, 2] == pytest.approx(1 / 3) and pw.agreement[1, 2] == pytest.approx(2 / 3)
    assert np.isnan(np.diag(pw.agreement)).all()


def test_pairwise_agreement_matches_sklearn_accuracy_per_pair() -> None:
    from sklearn.metrics import accuracy_score

    rng = np.random.default_rng(11)
    x = rng.integers(0, 4, (400, 5)).astype(float)
    x[rng.random(x.shape) < 0.3] = nan
    x[:, 4] = nan  # an annotator who shares nothing with anyone
    pw = pairwise_agreement(x)
    for a in range(4):
        for b in range(a + 1, 4):
            both = ~np.isnan(x[:, a]) & ~np.isnan(x[:, b])
            assert pw.shared[a, b] == both.sum()
            assert pw.agreement[a, b] == pytest.approx(accuracy_score(x[both, a], x[both, b]))
    assert np.isnan(pw.agreement[:, 4]).all() and (pw.shared[:, 4] == 0).all()


def test_sort_order_is_lexsort_order() -> None:
    """The packed sort the region metrics use orders like ``np.lexsort`` (ties by position),
    with fractions and huge ranges falling back to it."""
    from iaa_gate.metrics._base import sort_order

    rng = np.random.default_rng(3)
    for n in (0, 1, 50, 3000):
        keys = [rng.integers(-3, 4, n), rng.integers(0, 3, n).astype(float), rng.integers(0, 5, n)]
        assert np.array_equal(sort_order(*keys), np.lexsort(keys[::-1]))
        for odd in (rng.random(n), rng.integers(0, 2**40, n), rng.integers(0, 2**55, n)):
            assert np.array_equal(sort_order(*keys, odd), np.lexsort([odd, *keys[::-1]]))
        # stored by task: in order but within short stretches (the timsort path)
        near = np.arange(n) // 7 * 7 + rng.integers(0, 7, n)
        assert np.array_equal(sort_order(near, keys[2]), np.lexsort([keys[2], near]))


@settings(max_examples=150, deadline=None)
@given(codes=_code_rows((2, 5), 3, (1, 25)), level=LEVELS)
def test_each_annotator_against_the_others_as_counted_directly(
    codes: list[list[int]], level: str
) -> None:
    """Pair agreement and units from the per-unit counts equal counting pair by pair; alpha
    without each annotator (one coincidence matrix, the annotator's units taken out and put
    back without them) equals the alpha of the other columns, or is undefined where that is."""
    x = _ratings(codes)
    result = annotator_agreement(x, level)
    got = result.alpha_without
    with mock.patch.object(items, "DENSE_CELLS", 0):  # the sorted tally of large fields
        sparse = annotator_agreement(x, level)
    np.testing.assert_array_equal(sparse.pair_agreement, result.pair_agreement)
    for a in range(x.shape[1]):  # pair agreement and units, counted pair by pair
        agree = pairs = units = 0
        for row in codes:
            others = [c for b, c in enumerate(row) if b != a and c >= 0]
            if row[a] >= 0 and others:
                agree += sum(c == row[a] for c in others)
                pairs, units = pairs + len(others), units + 1
        assert result.n_units[a] == units
        if pairs:
            assert result.pair_agreement[a] == pytest.approx(agree / pairs, abs=1e-12)
        else:
            assert math.isnan(result.pair_agreement[a])
    for a in range(x.shape[1]):
        want = krippendorff_alpha(np.delete(x, a, axis=1), level)
        assert (math.isnan(got[a]) and math.isnan(want)) or got[a] == pytest.approx(want, abs=1e-12)
