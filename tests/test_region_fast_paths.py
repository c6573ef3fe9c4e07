"""The column paths of region matching, clustering and consensus compute what the paths they
replaced computed, value for value (those paths are kept here as the reference)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_gate.evaluation.consensus import group_median


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
