"""The mergeable accumulator: any split into blocks and any merge order give the same result,
equal to the whole-matrix functions."""

import itertools
import math
import pickle
import random

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_alpha import PUBLISHED  # the published examples (tests/metrics is on sys.path)

from iaa_gate.metrics import (
    AlphaAccumulator,
    Undefined,
    category_agreement,
    coincidence_matrix,
    krippendorff_alpha,
    specific_agreement,
)
from strategies import rating_rows

nan = math.nan
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _blocks(x: np.ndarray, cuts: list[int]) -> list[np.ndarray]:
    edges = sorted({0, x.shape[0], *(c % (x.shape[0] + 1) for c in cuts)})
    return [x[a:b] for a, b in itertools.pairwise(edges)]


def _merged(blocks: list[np.ndarray], rnd: random.Random) -> AlphaAccumulator:
    """One accumulator per block, merged pairwise in a random tree order."""
    parts = [AlphaAccumulator().update(b) for b in blocks]
    while len(parts) > 1:
        i, j = rnd.sample(range(len(parts)), 2)
        merged = parts[i].merge(parts[j])
        parts = [p for k, p in enumerate(parts) if k not in (i, j)] + [merged]
    return parts[0] if parts else AlphaAccumulator()


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _same_rates(a: dict, b: dict) -> bool:
    """Equal keys and bit-equal rates (an undefined rate equals an undefined one)."""
    return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)


@pytest.mark.parametrize(("data", "level", "published"), PUBLISHED)
def test_published_examples_in_blocks(data: np.ndarray, level: str, published: float) -> None:
    acc = _merged(_blocks(data, [3, 7, 8]), random.Random(0))
    assert round(acc.result(level).alpha, 3) == published
    assert acc.result(level).alpha == pytest.approx(krippendorff_alpha(data, level), abs=1e-15)


def test_seed_004_sandwich_rates_in_blocks() -> None:
    sandwich = np.array([[0, 0]] * 400 + [[1, 0]] * 90 + [[0, 1]] * 60 + [[1, 1]] * 450)
    res = _merged(_blocks(sandwich, [123, 500, 999]), random.Random(1)).result()
    assert res.categories == {0.0: 400 / 550, 1.0: 450 / 600}
    assert res.specific == {0.0: 800 / 950, 1.0: 900 / 1050}
    assert res.units == res.pairable_units == 1000


@pytest.mark.parametrize("values", [5, 40])  # value counts, and annotator pairs (> 16 values)
@pytest.mark.parametrize("level", LEVELS)
def test_matches_krippendorff_package(values: int, level: str) -> None:
    rng = np.random.default_rng(values)
    x = rng.integers(1, values + 1, size=(3000, 6)).astype(float)
    x[rng.random(x.shape) < 0.3] = nan
    acc = _merged(np.array_split(x, 7), random.Random(2))
    ours = acc.result(level).alpha
    assert ours == pytest.approx(krippendorff.alpha(x.T, level_of_measurement=level), abs=1e-12)
    assert ours == pytest.approx(krippendorff_alpha(x, level), abs=1e-14)


def test_string_labels_blocks_with_different_value_tables() -> None:
    a = [["x", "y"], ["y", "y"]]
    b = [["z", "x", None], ["z", "z", "z"], [None, "q", None]]
    whole = [[*r, None] for r in a] + b
    res = AlphaAccumulator().update(a).merge(AlphaAccumulator().update(b)).result()
    assert list(res.values) == ["q", "x", "y", "z"]
    assert res.alpha == pytest.approx(krippendorff_alpha(whole), abs=1e-15)
    assert _same_rates(res.categories, category_agreement(whole))
    assert isinstance(res.categories["q"], Undefined)  # only in a unit with one rating
    o, _ = coincidence_matrix(whole)
    np.testing.assert_allclose(res.coincidence, o, atol=1e-15)


def test_undefined_and_picklable() -> None:
    assert "no unit" in AlphaAccumulator().result().alpha.reason
    assert "no unit" in AlphaAccumulator().update([[1, nan], [2, nan]]).result().alpha.reason
    one = AlphaAccumulator().update([[1, 1], [1, 1]])
    assert "one value" in one.result("interval").alpha.reason
    back = pickle.loads(pickle.dumps(one.update([[1, 2]])))  # workers ship accumulators
    assert back.result().alpha == one.result().alpha


rows = rating_rows(units=(1, 30), annotators=(1, 5))


@settings(max_examples=200, deadline=None)
@given(
    rows,
    st.lists(st.integers(0, 30), max_size=6),
    st.randoms(use_true_random=False),
    st.sampled_from(LEVELS),
    st.booleans(),
)
def test_any_split_and_merge_order_is_bit_identical(
    data: list, cuts: list, rnd: random.Random, level: str, many: bool
) -> None:
    x = np.array([[nan if v is None else float(v) for v in r] for r in data])
    if many:  # > 16 distinct values: the annotator-pairs path
        x = x * 7 + 1
        x[0, 0] = 1000
    whole = AlphaAccumulator().update(x).result(level)
    split = _merged(_blocks(x, cuts), rnd).result(level)
    assert _same(split.alpha, whole.alpha)
    assert _same_rates(split.categories, whole.categories)
    assert _same_rates(split.specific, whole.specific)
    assert np.array_equal(split.coincidence, whole.coincidence)
    # and equal to the whole-matrix functions: the rates exactly, alpha to rounding
    assert _same_rates(whole.categories, category_agreement(x))
    assert _same_rates(whole.specific, specific_agreement(x))
    ref = krippendorff_alpha(x, level)
    assert (math.isnan(ref) and math.isnan(whole.alpha)) or whole.alpha == pytest.approx(
        ref, abs=1e-13
    )


@settings(max_examples=150, deadline=None)
@given(rows, rows, st.sampled_from(LEVELS))
def test_remove_takes_a_block_out_exactly(kept: list, gone: list, level: str) -> None:
    """Adding units and removing them again leaves the integer sums of the others exactly
    (alpha to rounding: values no unit has any more stay in the table with zero counts): what
    the live service does when a task's ratings change (its old row out, its new row in)."""
    x = np.array([[nan if v is None else float(v) for v in r] for r in kept])
    y = np.array([[nan if v is None else float(v) for v in r] for r in gone]) * 3 + 2
    acc = AlphaAccumulator().update(y[: len(y) // 2]).update(x).update(y[len(y) // 2 :])
    acc.remove(y[len(y) // 2 :]).remove(y[: len(y) // 2])
    alone = AlphaAccumulator().update(x)
    res, ref = acc.result(level), alone.result(level)
    assert (math.isnan(ref.alpha) and math.isnan(res.alpha)) or res.alpha == pytest.approx(
        ref.alpha, abs=1e-13
    )
    assert acc.units == alone.units and res.pairable_units == ref.pairable_units

    def counts(a: AlphaAccumulator) -> dict:
        pairs = zip(a.values.tolist(), a.pairable_counts().tolist(), strict=True)
        return {v: n for v, n in pairs if n}

    assert counts(acc) == counts(alone)
    assert all(_same(res.categories[v], r) for v, r in ref.categories.items())
