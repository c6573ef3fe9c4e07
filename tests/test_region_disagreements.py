"""A region field's disagreements and its disputed tasks' columns, each vectorised step held to
the computation it replaced: :func:`iaa_gate.metrics.disagreements` (each region's slots, one
per other rater) to ``tests/disagreements_general.py`` (sorted and searched keys, a cut-down
matching for a few units), and the :class:`~iaa_gate.evaluation.region_details.Disputes`
helpers to the numpy calls they stand for."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import disagreements_general
from iaa_gate.evaluation import region_details
from iaa_gate.metrics import Regions, disagreements, match_regions
from iaa_gate.metrics import regions as region_metrics

FIELDS = ("unit", "region", "other", "kind", "counterpart")


@st.composite
def rounds(draw: Any) -> Regions:
    """Small crowded rounds: up to 5 units, 2–7 annotators rating some of them, spans or boxes
    of 3 labels on a small grid (many exact repeats, ties and overlaps), stored in any order."""
    n_units, n_ann = draw(st.integers(1, 5)), draw(st.integers(2, 7))
    rated = np.array(
        draw(st.lists(st.booleans(), min_size=n_units * n_ann, max_size=n_units * n_ann)),
        dtype=bool,
    ).reshape(n_units, n_ann)
    cells = np.argwhere(rated)
    box = draw(st.booleans())
    rows = []
    if len(cells):
        for _ in range(draw(st.integers(0, 30))):
            u, a = cells[draw(st.integers(0, len(cells) - 1))].tolist()
            label = draw(st.integers(0, 2))
            x, w = draw(st.integers(0, 8)), draw(st.integers(1, 5))
            if box:
                y, h = draw(st.integers(0, 4)), draw(st.integers(1, 3))
                rows.append((u, a, label, [x, y, w, h, draw(st.sampled_from([0, 90]))]))
            else:
                rows.append((u, a, label, [x, x + w]))
    rows = draw(st.permutations(rows))
    width = 5 if box else 2
    return Regions(
        unit=[r[0] for r in rows],
        annotator=[r[1] for r in rows],
        label=[r[2] for r in rows],
        geometry=np.array([r[3] for r in rows], dtype=float).reshape(-1, width),
        rated=rated,
        kind="box" if box else "span",
        labels=("PER", "ORG", "LOC"),
    )


@pytest.mark.parametrize("dense", [0, 10**9])  # places searched among the cells / read
@settings(max_examples=150, deadline=None)
@given(
    rounds(),
    st.sampled_from(["overlap", "exact"]),
    st.booleans(),
    st.sampled_from([0.3, 0.5]),
    st.data(),
)
def test_disagreements_equal_the_general_computation(
    dense: int, regions: Regions, mode: Any, labels: bool, iou: float, data: Any
) -> None:
    m = match_regions(regions, mode=mode, labels=labels, iou=iou)
    units = data.draw(
        st.none() | st.lists(st.integers(0, regions.units - 1), max_size=2 * regions.units)
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(region_metrics, "DENSE_PLACES", dense)
        got = disagreements(m, units)
    want = disagreements_general.disagreements(m, units)
    for name in FIELDS:
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_a_large_round_equals_the_general_computation() -> None:
    """Thousands of regions, stored by unit as the readers store them, every unit and a few."""
    rng = np.random.default_rng(7)
    n_units, n_ann = 300, 4
    rated = rng.random((n_units, n_ann)) < 0.8
    cells = np.argwhere(rated)
    pick = cells[np.sort(rng.integers(0, len(cells), 5000))]
    start = rng.integers(0, 60, pick.shape[0])
    regions = Regions(
        pick[:, 0],
        pick[:, 1],
        rng.integers(0, 3, pick.shape[0]),
        np.column_stack([start, start + rng.integers(1, 15, pick.shape[0])]),
        rated,
        "span",
        ("PER", "ORG", "LOC"),
    )
    for labels in (True, False):
        m = match_regions(regions, labels=labels)
        for units in (None, np.arange(0, n_units, 7), np.arange(n_units)[::-1]):
            got, want = disagreements(m, units), disagreements_general.disagreements(m, units)
            assert len(got.unit) > 100
            for name in FIELDS:
                assert np.array_equal(getattr(got, name), getattr(want, name)), name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.booleans()), max_size=40))
def test_near_first_is_a_stable_partition_within_each_unit(rows: list[tuple[int, bool]]) -> None:
    rows.sort(key=lambda r: r[0])
    unit = np.array([u for u, _ in rows], dtype=np.int64)
    near = np.array([x for _, x in rows], dtype=bool)
    got = region_details._near_first(unit, near, 7)
    assert np.array_equal(got, np.lexsort((~near, unit)))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 70).flatmap(
        lambda width: st.lists(
            st.lists(st.booleans(), min_size=width, max_size=width), min_size=1, max_size=12
        )
    )
)
def test_rater_patterns_are_numpy_uniques(rows: list[list[bool]]) -> None:
    """Packed into integers (up to 62 annotators) or not, the patterns are np.unique's."""
    rated = np.array(rows, dtype=bool).reshape(len(rows), -1)
    raters, which = region_details._patterns(rated)
    distinct, inverse = np.unique(rated, axis=0, return_inverse=True)
    assert raters == [np.flatnonzero(p).tolist() for p in distinct]
    assert which.tolist() == inverse.reshape(-1).tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 5), max_size=30),
    st.sets(st.integers(0, 5)),
    st.randoms(use_true_random=False),
)
def test_task_rows_list_each_units_regions_in_storage_order(
    unit_of: list[int], chosen: set[int], rnd: Any
) -> None:
    if rnd.random() < 0.5:
        unit_of.sort()  # stored by unit, as the readers store them
    unit = np.array(unit_of, dtype=np.int64)
    units = np.array(sorted(chosen), dtype=np.int64)
    rows, counts = region_details._task_rows(unit, 6, units)
    want = [r for u in units.tolist() for r in np.flatnonzero(unit == u).tolist()]
    assert rows.tolist() == want
    assert counts.tolist() == [int((unit == u).sum()) for u in units.tolist()]
    # each task's reach, read where its spans are stored when they are together: as from a
    # copy of its rows (signed zeros and NaN in the same order)
    values = [0.0, -0.0, 2.5, 7.0, np.nan]
    geometry = np.array([[rnd.choice(values), rnd.choice(values)] for _ in unit_of]).reshape(-1, 2)
    first, last = region_details._reach(geometry, rows, counts)
    some = np.flatnonzero(counts)
    at = (np.cumsum(counts) - counts)[some]
    want_first, want_last = np.zeros(len(counts)), np.zeros(len(counts))
    if some.size:
        want_first[some] = np.minimum.reduceat(geometry[rows, 0], at)
        want_last[some] = np.maximum.reduceat(geometry[rows, 1], at)
    for got, expected in ((first, want_first), (last, want_last)):
        np.testing.assert_array_equal(got, expected)
        assert np.array_equal(np.signbit(got), np.signbit(expected))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1 / 3, 2 / 3, 0.5, 1 / 7, 0.1234565, np.nan]), max_size=20))
def test_rounded_rounds_as_python(values: list[float]) -> None:
    got = region_details._rounded(np.array(values, dtype=float), 6)
    want = [round(v, 6) for v in values]
    assert np.array_equal(np.array(got), np.array(want), equal_nan=True)
