"""Taxonomy-path and free-text distances: worked examples, nltk as the reference for edit
distance and for alpha with a custom distance."""

from __future__ import annotations

import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import edit_distance

from iaa_gate.metrics import krippendorff_alpha
from iaa_gate.metrics.distance import hierarchical, levenshtein


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [
        ("Animal / Dog", "Animal / Dog", 0.0),
        ("Animal / Dog", "Animal", 1 / 3),  # the parent instead of the child
        ("Animal / Dog", "Animal / Cat", 0.5),  # siblings
        ("Animal / Dog / Puppy", "Animal / Cat", 1 - 2 / 5),
        ("Animal / Dog", "Plant / Tree", 1.0),  # different roots
        ("Animal", "Plant", 1.0),
    ],
)
def test_hierarchical_distance_is_wu_palmer(a: str, b: str, d: float) -> None:
    assert hierarchical(np.array([a], dtype=object), np.array([b], dtype=object))[0] == (
        pytest.approx(d)
    )


def _texts(rng: np.random.Generator, n: int) -> list[str]:
    return ["".join(rng.choice(list("abcde "), size=rng.integers(0, 12))) for _ in range(n)]


def test_levenshtein_matches_nltk_edit_distance() -> None:
    rng = np.random.default_rng(3)
    a, b = _texts(rng, 200), _texts(rng, 200)
    got = levenshtein(np.array(a, dtype=object), np.array(b, dtype=object))
    want = [edit_distance(x, y) / max(len(x), len(y), 1) for x, y in zip(a, b, strict=True)]
    assert got == pytest.approx(want)
    table = levenshtein(np.array(a, dtype=object)[:, None], np.array(b, dtype=object)[None, :])
    assert table[3, 7] == pytest.approx(edit_distance(a[3], b[7]) / max(len(a[3]), len(b[7]), 1))


@pytest.mark.parametrize("level", ["levenshtein", "hierarchical"])
def test_alpha_with_path_and_edit_distances_matches_nltk(level: str) -> None:
    rng = np.random.default_rng(7)
    if level == "levenshtein":
        pool = ["the cat", "the cat.", "a cat", "the hat", "dog", "the dog"]
        ref = lambda x, y: edit_distance(x, y) / max(len(x), len(y), 1)  # noqa: E731
    else:
        pool = ["A", "A / B", "A / B / C", "A / D", "E", "E / F"]
        ref = lambda x, y: float(hierarchical(np.array([x]), np.array([y]))[0])  # noqa: E731
    ratings = np.array([[pool[rng.integers(len(pool))] for _ in range(3)] for _ in range(30)])
    ratings = ratings.astype(object)
    task = AnnotationTask(
        data=[(f"c{a}", str(u), ratings[u, a]) for u in range(30) for a in range(3)],
        distance=ref,
    )
    assert krippendorff_alpha(ratings, level) == pytest.approx(task.alpha(), abs=1e-9)
