"""The assignment inside region matching: small groups of competing regions solved in numpy
(the same edges as scipy's ``linear_sum_assignment`` on every input, scipy asked only for ties
and large groups), and the unambiguous pairs found by counting or by sorting."""

from __future__ import annotations

import itertools
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from iaa_gate.core.errors import MissingExtraError
from iaa_gate.metrics import Regions, match_regions
from iaa_gate.metrics import regions as regions_module
from iaa_gate.metrics.regions import TIE, smallest_assignments

# costs as matching makes them (1 − IoU, + 1e-9 for a label swap), with repeats for ties
COSTS = [0.0, 0.25, 0.5, 0.5 + 1e-9, 1 / 3, 2 / 3, 0.75, 1.0 - 1e-9]


@st.composite
def stacks(draw: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """A stack ``(k, n_r, n_c)`` of cost matrices up to 5×5 (the largest square matching solves
    in numpy), non-edges at matching's "big" cost."""
    k, n_r, n_c = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    cells = st.sampled_from(COSTS) | st.floats(0.0, 1.0)
    cost = np.array(draw(st.lists(cells, min_size=k * n_r * n_c, max_size=k * n_r * n_c)))
    edge = np.array(draw(st.lists(st.booleans(), min_size=cost.size, max_size=cost.size)))
    cost, edge = cost.reshape(k, n_r, n_c), edge.reshape(k, n_r, n_c)
    return np.where(edge, cost, 2.0 * (min(n_r, n_c) + 1)), edge


def kept(edge: np.ndarray[Any, Any], rows: Any, cols: Any) -> set[tuple[int, int]]:
    """The edges an assignment keeps (non-edges are dropped, as matching drops them)."""
    return {(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if edge[r, c]}


@settings(max_examples=300, deadline=None)
@given(stacks())
def test_solved_stacks_keep_scipys_edges_and_only_ties_are_left(stack: Any) -> None:
    """A solved matrix keeps exactly the edges ``linear_sum_assignment`` keeps, at its cost; a
    matrix is left unsolved only when two assignments with other edges are within ``TIE``
    (found here by listing every assignment)."""
    cost, edge = stack
    solved, rows, cols = smallest_assignments(cost, edge)
    for k in range(cost.shape[0]):
        r, c = linear_sum_assignment(cost[k])
        if solved[k]:
            assert kept(edge[k], rows[k], cols[k]) == kept(edge[k], r, c)
            assert cost[k, rows[k], cols[k]].sum() == pytest.approx(cost[k, r, c].sum(), abs=TIE)
        n_r, n_c = cost.shape[1:]
        every = [
            (x, y) if n_r <= n_c else (y, x)
            for x in [tuple(range(min(n_r, n_c)))]
            for y in itertools.permutations(range(max(n_r, n_c)), min(n_r, n_c))
        ]
        low = min(cost[k, list(x), list(y)].sum() for x, y in every)
        near = {
            frozenset(kept(edge[k], x, y)) for x, y in every if cost[k, x, y].sum() <= low + TIE
        }
        assert solved[k] == (len(near) == 1)  # one set of edges among the cheapest


def test_a_stack_in_parts_equals_it_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stack larger than ``SMALL_CELLS`` is evaluated in parts, with the same result."""
    rng = np.random.default_rng(3)
    cost = rng.choice(COSTS, size=(50, 3, 4))
    edge = rng.random(cost.shape) < 0.7
    whole = smallest_assignments(cost, edge)
    monkeypatch.setattr(regions_module, "SMALL_CELLS", 30)  # 24 assignments × 3 pairs: 1 a part
    for a, b in zip(whole, smallest_assignments(cost, edge), strict=True):
        assert np.array_equal(a, b)


def _boxes(seed: int, units: int = 60) -> Regions:
    """Crowded boxes of 2 labels by 3 annotators on a small grid (many competing groups, and
    exact repeats: ties)."""
    rng = np.random.default_rng(seed)
    n = units * 3 * 5
    geometry = np.column_stack(
        [rng.integers(0, 6, n), rng.integers(0, 6, n), rng.integers(2, 5, (n, 2)), np.zeros(n)]
    ).astype(np.float64)
    return Regions(
        np.repeat(np.arange(units), 15),
        np.tile(np.repeat(np.arange(3), 5), units),
        rng.integers(0, 2, n),
        geometry,
        np.ones((units, 3), bool),
        "box",
        ("car", "bus"),
    )


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("how", [{}, {"labels": False}, {"iou": 0.3, "labels": False}])
def test_matching_equals_scipy_on_every_group(
    seed: int, how: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Matching with small groups solved in numpy equals matching with every group sent to
    ``linear_sum_assignment`` (the path it replaces), pair for pair."""
    r = _boxes(seed)
    fast = match_regions(r, **how)
    monkeypatch.setattr(regions_module, "SMALL_ASSIGNMENTS", 0)
    slow = match_regions(r, **how)
    assert fast.first.size > 0
    for name in ("first", "second", "similarity"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name))


def test_scipy_is_asked_only_for_ties(monkeypatch: pytest.MonkeyPatch) -> None:
    """Groups with one best assignment are matched without importing ``scipy.optimize``; a tie
    goes to scipy (here blocked, so it says which extra is missing)."""

    def spans(pairs: list[tuple[int, int, int]]) -> Regions:  # (annotator, start, end)
        arr = np.array(pairs, dtype=np.int64)
        n = arr.shape[0]
        return Regions(
            np.zeros(n), arr[:, 0], np.zeros(n), arr[:, 1:], np.ones((1, 2), bool), "span", ("X",)
        )

    monkeypatch.setitem(sys.modules, "scipy.optimize", None)  # any import of it fails
    clear = match_regions(spans([(0, 0, 10), (0, 2, 12), (1, 0, 10), (1, 2, 11)]))
    assert clear.first.tolist() == [0, 1] and clear.second.tolist() == [2, 3]
    with pytest.raises(MissingExtraError, match="regions"):
        match_regions(spans([(0, 0, 10), (0, 0, 10), (1, 0, 10), (1, 0, 10)]))


def _single_by_counting(keys: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Whether each key occurs once, from a table of counts of every key (the earlier way)."""
    return np.bincount(keys)[keys] == 1


@pytest.mark.parametrize("how", [{}, {"labels": False}, {"mode": "exact"}])
def test_unambiguous_pairs_by_sorting_equal_them_by_counting(
    how: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unambiguous pairs (each node (region, other annotator) on one edge) are found by
    sorting the nodes' keys: the same matching as counting them in a table, with 3 annotators
    or spread over 300."""
    r = _boxes(4)
    many = Regions(r.unit, r.annotator * 100, r.label, r.geometry, np.ones((60, 300), bool),
                   "box", r.labels)  # fmt: skip
    for regions in (r, many):
        got = match_regions(regions, **how)
        with monkeypatch.context() as patched:
            patched.setattr(regions_module, "_single", _single_by_counting)
            want = match_regions(regions, **how)
        assert got.first.size > 0
        for name in ("first", "second", "similarity"):
            assert np.array_equal(getattr(got, name), getattr(want, name))
            assert np.array_equal(getattr(got, name), getattr(match_regions(r, **how), name))
