"""Position and unitizing alpha from shared sorted columns (issue 31) equal the computation they
replace (``spans_reference``) to the last bit: the same runs, codes and values, the same alpha,
D_o and D_e per label, the same counts, and the same error for overlapping segments. Random
rounds with nested, repeated and empty spans, spans without a label, unrated and empty tasks,
regions in reading order or shuffled (the sorted path), and long texts (gap lengths sorted
rather than counted)."""

from __future__ import annotations

import math
from typing import Any
from unittest import mock

import numpy as np
import pytest
import spans_reference as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics import (
    Regions,
    position_alpha,
    position_runs,
    positions,
    unitizing,
    unitizing_alpha_tasks,
)


@st.composite
def rounds(draw: st.DrawFn) -> tuple[Regions, np.ndarray]:
    n_ann = draw(st.integers(2, 5))
    n_lab = draw(st.sampled_from([1, 2, 3, 4, 40]))
    tasks = draw(st.integers(1, 6))
    long = draw(st.booleans())
    lengths = np.array(
        draw(st.lists(st.integers(0, 9000 if long else 30), min_size=tasks, max_size=tasks))
    )
    rated = np.array(
        draw(
            st.lists(
                st.lists(st.booleans(), min_size=n_ann, max_size=n_ann),
                min_size=tasks,
                max_size=tasks,
            )
        ),
        dtype=bool,
    )
    rows: list[tuple[int, int, int, int, int]] = []
    for t in range(tasks):
        for a in np.flatnonzero(rated[t]).tolist():
            size = int(lengths[t])
            spans = draw(
                st.lists(
                    st.tuples(st.integers(0, size), st.integers(0, 12), st.integers(-1, n_lab - 1)),
                    max_size=5,
                )
            )
            for start, width, label in spans:
                rows.append((t, a, label, start, min(start + width, size)))
                if draw(st.integers(0, 6)) == 0:  # the same span twice
                    rows.append(rows[-1])
    rows.sort(key=lambda r: (r[0], r[1], r[3]))  # the order regions are read in
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))
    cols = np.array(rows, dtype=np.int64).reshape(-1, 5)
    regions = Regions(
        cols[:, 0],
        cols[:, 1],
        cols[:, 2],
        cols[:, 3:].astype(np.float64),
        rated,
        "span",
        tuple(f"L{k}" for k in range(n_lab)),
    )
    return regions, lengths


def _outcome(f: Any) -> Any:
    try:
        return repr(f())
    except UsageError as exc:
        return f"UsageError: {exc}"


blocks = st.sampled_from([1, 2, 3, 7, positions.BLOCK])  # regions per block of tasks


@settings(max_examples=300, deadline=None)
@given(rounds(), blocks)
def test_position_columns_equal_the_reference(
    drawn: tuple[Regions, np.ndarray], block: int
) -> None:
    regions, lengths = drawn
    with mock.patch.object(positions, "BLOCK", block):
        coded, weight = position_runs(regions, lengths)
        got = position_alpha(regions, lengths)
    want, want_weight = reference.position_runs(regions, lengths)
    assert coded.codes.dtype == want.codes.dtype
    assert np.array_equal(coded.codes, want.codes)
    assert coded.values.tolist() == want.values.tolist()
    assert np.array_equal(weight, want_weight)
    expected = reference.position_alpha(regions, lengths)
    assert repr(got) == repr(expected)
    assert got == expected or (math.isnan(got) and math.isnan(expected))


@settings(max_examples=300, deadline=None)
@given(rounds(), st.booleans(), blocks)
def test_unitizing_columns_equal_the_reference(
    drawn: tuple[Regions, np.ndarray], merge: bool, block: int
) -> None:
    regions, lengths = drawn
    with mock.patch.object(unitizing, "BLOCK", block):
        got = _outcome(lambda: unitizing_alpha_tasks(regions, lengths, merge=merge))
    want = _outcome(lambda: reference.unitizing_alpha_tasks(regions, lengths, merge=merge))
    assert got == want


def test_far_positions_take_the_general_sort() -> None:
    """Positions too far apart to pack with their index are ranked by a stable argsort."""
    spans = Regions(
        unit=[0, 0, 1, 1],
        annotator=[0, 1, 0, 1],
        label=[0, 0, 1, 0],
        geometry=[[0, 5], [2, 5], [2**55, 2**55 + 8], [3, 2**55 + 4]],
        rated=np.ones((2, 2), dtype=bool),
        kind="span",
        labels=("A", "B"),
    )
    lengths = [10, 2**56]
    coded, weight = position_runs(spans, lengths)
    want, want_weight = reference.position_runs(spans, lengths)
    assert np.array_equal(coded.codes, want.codes) and np.array_equal(weight, want_weight)
    assert position_alpha(spans, lengths) == reference.position_alpha(spans, lengths)


@pytest.mark.parametrize("merge", [False, True])
def test_the_first_overlap_named_is_the_reference_one(merge: bool) -> None:
    # coder 1 overlaps in task 0, coder 0 in task 1: the message names coder 0's (coder order)
    rows = [(0, 0, 0, 0, 4), (0, 1, 0, 0, 4), (0, 1, 0, 2, 6), (1, 0, 0, 0, 3), (1, 0, 0, 1, 5)]
    rows += [(1, 1, 0, 0, 3)]
    cols = np.array(rows, dtype=np.int64)
    spans = Regions(
        cols[:, 0], cols[:, 1], cols[:, 2], cols[:, 3:], np.ones((2, 2), bool), "span", ("x",)
    )
    got = _outcome(lambda: unitizing_alpha_tasks(spans, [8, 8], merge=merge))
    want = _outcome(lambda: reference.unitizing_alpha_tasks(spans, [8, 8], merge=merge))
    assert got == want
    assert merge or "coder 0 has overlapping segments [8, 11) and [9, 13)" in got


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3)), max_size=40),
    st.lists(st.tuples(st.integers(0, 100), st.integers(1, 60)), max_size=30),
)
def test_stepping_to_the_last_overlap_is_a_search(
    steps: list[tuple[int, int]], queries: list[tuple[int, int]]
) -> None:
    """Stepping from the first unit a query reaches (few steps, then a search) finds what
    ``np.searchsorted`` finds, however many units one query overlaps."""
    ends = np.cumsum([gap + width for gap, width in steps], dtype=np.int64)
    lo = ends - np.array([width for _, width in steps], dtype=np.int64)
    q_lo = np.sort(np.array([s for s, _ in queries], dtype=np.int64))
    q_hi = q_lo + np.array([w for _, w in queries], dtype=np.int64)
    first = np.searchsorted(ends, q_lo, side="right")
    want = np.maximum(np.searchsorted(lo, q_hi, side="left"), first)
    assert np.array_equal(unitizing._reach(first, lo, q_hi), want)
