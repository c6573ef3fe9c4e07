"""The column paths of region matching, clustering and consensus compute what the paths they
replaced computed, value for value (those paths are kept here as the reference)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_gate.evaluation.consensus import group_median
from iaa_gate.metrics import Regions, cluster_ratings, match_regions, region_clusters
from iaa_gate.metrics._base import distinct
from iaa_gate.metrics.geometry import group_pairs
from iaa_gate.metrics.regions import canonical_rank


def _median_per_column(group: np.ndarray[Any, Any], values: np.ndarray[Any, Any]) -> Any:
    """The median per group as it was computed before: one ``lexsort`` per column."""
    n_groups = int(group.max()) + 1 if group.size else 0
    out = np.full((n_groups, values.shape[1]), math.nan)
    if not group.size:
        return out
    size = np.bincount(group, minlength=n_groups)
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    has = size > 0
    lo = (start + (size - 1) // 2)[has]
    hi = (start + size // 2)[has]
    for d in range(values.shape[1]):
        order = np.lexsort((values[:, d], group))
        v = values[order, d]
        out[has, d] = (v[lo] + v[hi]) / 2.0
    return out


VALUES = [0.0, -0.0, 1.0, 2.5, 3.0, 1e308, -7.25, math.nan]


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 12), st.sampled_from(VALUES), st.sampled_from(VALUES)),
        max_size=60,
    )
)
def test_group_median_equals_one_sort_per_column(rows: list[tuple[int, float, float]]) -> None:
    """Groups of every size, empty groups, ties, signed zeros, NaN and sums that overflow give
    the same medians, bit for bit, as sorting each column."""
    group = np.array([g for g, _, _ in rows], dtype=np.int64)
    values = np.array([[a, b] for _, a, b in rows], dtype=np.float64).reshape(-1, 2)
    with np.errstate(invalid="ignore", over="ignore"):
        got, want = group_median(group, values), _median_per_column(group, values)
    assert got.shape == want.shape
    assert np.array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(got, want)


def _cluster_cells(matching: Any, values: np.ndarray[Any, Any]) -> tuple[Any, Any]:
    """Each (cluster, annotator) cell's value and the conflicts per cluster as computed before:
    the largest and smallest value per cell by ``ufunc.at`` over the whole table."""
    reg = matching.regions
    cl = region_clusters(matching)
    n_ann = reg.annotators
    codes = np.full((cl.n, n_ann), -1, dtype=np.int64)
    flat = codes.reshape(-1)
    key = cl.cluster * n_ann + reg.annotator
    hi = np.full(flat.size, -1, dtype=np.int64)
    lo = np.full(flat.size, np.iinfo(np.int64).max, dtype=np.int64)
    np.maximum.at(hi, key, values)
    np.minimum.at(lo, key, values)
    present = np.unique(key)
    agree = lo[present] == hi[present]
    flat[present] = np.where(agree, hi[present], -1)
    return codes, np.bincount(present[~agree] // max(n_ann, 1), minlength=cl.n)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 3),  # unit
            st.integers(0, 2),  # annotator
            st.integers(0, 12),  # start
            st.integers(1, 5),  # width
            st.integers(-1, 2),  # value code (-1: not given)
        ),
        max_size=40,
    ),
    iou=st.sampled_from([0.1, 0.5, 1.0]),
)
def test_cluster_cells_equal_the_whole_table_computation(
    rows: list[tuple[int, int, int, int, int]], iou: float
) -> None:
    """Per-region values over clusters (conflicting cells missing and counted) and the labels'
    cells equal what the whole-table computation gave, whatever the storage order."""
    n = len(rows)
    arr = np.array(rows, dtype=np.int64).reshape(n, 5)
    regions = Regions(
        unit=arr[:, 0],
        annotator=arr[:, 1],
        label=np.maximum(arr[:, 4], 0) % 2,
        geometry=np.column_stack([arr[:, 2], arr[:, 2] + arr[:, 3]]),
        rated=np.ones((4, 3), dtype=bool),
        kind="span",
        labels=("A", "B"),
    )
    matching = match_regions(regions, iou=iou, labels=False)
    got = cluster_ratings(matching, arr[:, 4], ("x", "y", "z"))
    codes, conflicts = _cluster_cells(matching, arr[:, 4])
    np.testing.assert_array_equal(got.codes, codes)
    np.testing.assert_array_equal(got.conflicts, conflicts)
    assert distinct(arr[:, 2]).tolist() == np.unique(arr[:, 2]).tolist()


@settings(max_examples=200, deadline=None)
@given(
    windows=st.lists(st.tuples(st.integers(-3, 20), st.integers(-3, 8)), max_size=30),
)
def test_group_pairs_lists_every_position_inside_each_window(
    windows: list[tuple[int, int]],
) -> None:
    """Every (k, j) with ``starts[k] < j < ends[k]``, by window then position, counted out."""
    starts = np.array([s for s, _ in windows], dtype=np.int64)
    ends = starts + np.array([w for _, w in windows], dtype=np.int64)
    k, j = group_pairs(starts, ends)
    want = [
        (w, q) for w, (s, e) in enumerate(zip(starts, ends, strict=True)) for q in range(s + 1, e)
    ]
    assert list(zip(k.tolist(), j.tolist(), strict=True)) == want
    assert k.dtype == j.dtype == np.int64


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 3),  # unit
            st.integers(0, 2),  # annotator
            st.integers(-1, 1),  # label
            st.sampled_from([0.0, 1.0, 2.0, 2.5, 7.0, 1e6]),  # start
            st.sampled_from([0.0, 1.0, 3.0, 0.25]),  # width
        ),
        max_size=40,
    ),
    whole=st.booleans(),
)
def test_canonical_rank_is_the_lexsort_rank(
    rows: list[tuple[int, int, int, float, float]], whole: bool
) -> None:
    """The content rank (one packed integer sort for whole-number geometry, lexsort for
    fractions) equals ranking by lexsort of unit, annotator, label, start, end."""
    n = len(rows)
    arr = np.array(rows, dtype=np.float64).reshape(n, 5)
    start = np.floor(arr[:, 3]) if whole else arr[:, 3]
    end = start + (np.floor(arr[:, 4]) if whole else arr[:, 4])
    regions = Regions(
        unit=arr[:, 0],
        annotator=arr[:, 1],
        label=arr[:, 2],
        geometry=np.column_stack([start, end]),
        rated=np.ones((4, 3), dtype=bool),
        kind="span",
        labels=("A", "B"),
    )
    order = np.lexsort((end, start, regions.label, regions.annotator, regions.unit))
    want = np.empty(n, dtype=np.int64)
    want[order] = np.arange(n)
    np.testing.assert_array_equal(canonical_rank(regions), want)


@settings(max_examples=150, deadline=None)
@given(
    rated=st.integers(1, 5).flatmap(
        lambda a: st.lists(st.lists(st.booleans(), min_size=a, max_size=a), max_size=12)
    ),
)
def test_rated_cells_and_pairs_are_found_as_by_binary_search(rated: list[list[bool]]) -> None:
    """A rated cell's index (from a table over every key) and a pair's index (its first
    cell's first pair plus the step) equal searching the sorted keys, for every rated cell and
    every pair of them."""
    from iaa_gate.metrics.regions import RatedPairs

    grid = np.array(rated, dtype=bool).reshape(len(rated), -1 if rated else 1)
    pairs = RatedPairs.of(grid)
    unit, annotator = np.nonzero(grid)
    want = np.searchsorted(pairs.cells, unit * pairs.annotators + annotator)
    np.testing.assert_array_equal(pairs.cell(unit, annotator), want)
    k = pairs.cells.size
    keys = pairs.a_cell * k + pairs.b_cell
    found = np.searchsorted(keys, pairs.a_cell * k + pairs.b_cell)
    np.testing.assert_array_equal(pairs.pair(pairs.a_cell, pairs.b_cell), found)
    np.testing.assert_array_equal(found, np.arange(keys.size))


@settings(max_examples=200, deadline=None)
@given(codes=st.lists(st.integers(-1, 40), max_size=80))
def test_distinct_label_codes_are_np_unique(codes: list[int]) -> None:
    """A region table's label codes in use, counted, are those ``np.unique`` sorts out."""
    from iaa_gate.evaluation.matrix import _distinct_codes

    x = np.array(codes, dtype=np.int64)
    assert _distinct_codes(x) == np.unique(x).tolist()


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from([0.0, -0.0, 0.1234, 12.5, 99.9999, -3.0001, 1e9, math.nan, math.inf]),
            st.floats(-1e6, 1e6, allow_nan=False),
        ),
        max_size=40,
    ),
    rounded=st.booleans(),
)
def test_proposals_ordered_in_steps_as_by_lexsort(
    rows: list[tuple[int, float, float]], rounded: bool
) -> None:
    """Median coordinates rounded to 4 places, sorted as whole steps packed into one sort,
    come in the order ``lexsort`` gives the floats (ties, signed zeros); any other values are
    left as they are."""
    from iaa_gate.evaluation.region_details import _in_steps
    from iaa_gate.metrics._base import sort_order

    unit = np.array([r[0] for r in rows], dtype=np.int64)
    y = np.array([r[1] for r in rows], dtype=np.float64)
    x = np.array([r[2] for r in rows], dtype=np.float64)
    if rounded:
        x = x.round(4)
    got = sort_order(unit, _in_steps(y, 4), _in_steps(x, 4))
    np.testing.assert_array_equal(got, np.lexsort((x, y, unit)))
