"""Hypothesis strategies shared by the tests: ratings as ``(units, annotators)`` lists of lists."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def rating_rows(
    units: tuple[int, int] = (1, 30),
    annotators: tuple[int, int] = (1, 5),
    values: st.SearchStrategy[Any] | None = None,
) -> st.SearchStrategy[list[list[Any]]]:
    """Rows of ratings, one list per unit with one cell per annotator (``None``: missing).

    ``units`` and ``annotators``: inclusive ranges of their numbers; ``values``: the ratings
    (by default the integers 0–4). Every row has the same length."""
    cell = st.one_of(st.none(), values if values is not None else st.integers(0, 4))
    return st.integers(*annotators).flatmap(
        lambda a: st.lists(
            st.lists(cell, min_size=a, max_size=a), min_size=units[0], max_size=units[1]
        )
    )
