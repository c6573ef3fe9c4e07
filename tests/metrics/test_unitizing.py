"""Unitizing alpha (Krippendorff 1995, 2004) and position-level alpha for spans.

The published numbers are the worked examples as reproduced in dkpro-statistics' tests
(Krippendorff1995Test, Krippendorff2004Test). On 60 random studies (2–4 coders, two labels) the
per-label D_o, D_e and pooled α_U agreed with dkpro-statistics' KrippendorffAlphaUnitizingAgreement
to 4e-16 (checked when this module was written; Java is not a test dependency).
"""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics import (
    Regions,
    position_alpha,
    position_ratings,
    unitizing_alpha,
    unitizing_alpha_tasks,
)

# Krippendorff (2004, p. 254): (begin, length, coder, label) on the continuum [150, 450)
EXAMPLE_2004 = [
    (225, 70, 0, "c"), (370, 30, 0, "c"), (220, 80, 1, "c"), (355, 20, 1, "c"), (400, 20, 1, "c"),
    (180, 60, 0, "k"), (300, 50, 0, "k"), (180, 60, 1, "k"), (300, 50, 1, "k"),
]  # fmt: skip
# Krippendorff (1995, p. 57): four two-coder studies A–D on a continuum of 24
EXAMPLE_1995 = [
    (2, 8, 0, "A"), (14, 6, 0, "A"), (4, 4, 1, "A"), (15, 2, 1, "A"),
    (0, 18, 0, "B"), (0, 2, 1, "B"), (2, 1, 1, "B"), (3, 1, 1, "B"), (4, 1, 1, "B"),
    (5, 1, 1, "B"), (6, 3, 1, "B"), (9, 1, 1, "B"),
    (2, 6, 0, "C"), (10, 2, 0, "C"), (14, 4, 0, "C"), (20, 2, 0, "C"), (0, 2, 1, "C"),
    (4, 4, 1, "C"), (10, 4, 1, "C"), (16, 2, 1, "C"), (20, 2, 1, "C"),
    (0, 2, 0, "D"), (2, 8, 0, "D"), (10, 4, 0, "D"), (14, 6, 0, "D"), (20, 4, 0, "D"),
    (0, 4, 1, "D"), (4, 4, 1, "D"), (8, 7, 1, "D"), (15, 2, 1, "D"), (17, 7, 1, "D"),
]  # fmt: skip


def _segments(rows: list[tuple[int, int, int, str]], stretch: int = 1) -> list[tuple]:
    return [(c, b * stretch, (b + n) * stretch, lab) for b, n, c, lab in rows]


def test_krippendorff_2004_example() -> None:
    r = unitizing_alpha(_segments(EXAMPLE_2004), (150, 450))
    assert round(r.value, 3) == 0.859  # published 0.8591 ± 0.0005 in dkpro's test: 0.85867
    assert round(r.observed["c"], 4) == 0.0144 and round(r.expected["c"], 4) == 0.0532
    assert round(r.by_label["c"], 4) == 0.7286
    assert r.observed["k"] == 0.0 and round(r.expected["k"], 4) == 0.0490
    assert r.by_label["k"] == 1.0


def test_krippendorff_1995_example() -> None:
    r = unitizing_alpha(_segments(EXAMPLE_1995), (0, 24))
    observed = {"A": 0.03125, "B": 2.26736, "C": 0.02777, "D": 0.38715}
    for label, want in observed.items():
        assert r.observed[label] == pytest.approx(want, abs=1e-5)
    # D_e needs a fine continuum (the published digits are for continuous lengths): stretch it;
    # the 1995 paper's D_e and alpha carry small errors (dkpro's tolerance is 0.005 and 0.02)
    big = unitizing_alpha(_segments(EXAMPLE_1995, 50_000), (0, 24 * 50_000))
    published = {"A": (0.06990, 0.553), "B": (1.17731, -0.926), "C": (0.08642, 0.679)}
    published["D"] = (0.41445, 0.066)
    for label, (d_e, alpha) in published.items():
        assert big.expected[label] == pytest.approx(d_e, abs=0.005)
        assert big.by_label[label] == pytest.approx(alpha, abs=0.02)
    assert round(big.expected["A"], 4) == 0.0699 and round(big.expected["D"], 5) == 0.41445
    # at stretch 1/2 the published D_e of C is exact
    half = [(c, b // 2, b // 2 + n // 2, lab) for b, n, c, lab in EXAMPLE_1995]
    assert unitizing_alpha(half, (0, 12)).expected["C"] == pytest.approx(0.05494, abs=1e-5)


def test_degenerate_cases_are_undefined() -> None:
    none = unitizing_alpha([], (0, 10), annotators=["a", "b"])
    assert math.isnan(none.value) and "no segments" in none.value.reason  # type: ignore[attr-defined]
    one = unitizing_alpha([("a", 0, 4, "x")], (0, 10))
    assert math.isnan(one.value) and "two coders" in one.value.reason  # type: ignore[attr-defined]
    whole = unitizing_alpha([("a", 0, 10, "x"), ("b", 0, 10, "x")], (0, 10))
    assert math.isnan(whole.value) and math.isnan(whole.by_label["x"])
    assert "whole" in whole.by_label["x"].reason  # type: ignore[attr-defined]


def test_a_silent_coder_counts_when_named() -> None:
    alone = unitizing_alpha([("a", 0, 4, "x"), ("b", 0, 4, "x")], (0, 20))
    with_c = unitizing_alpha([("a", 0, 4, "x"), ("b", 0, 4, "x")], (0, 20), annotators="abc")
    assert alone.value == 1.0 and with_c.value < 0.5 and with_c.coders == 3


def test_overlapping_segments_of_one_coder_and_label_are_refused() -> None:
    with pytest.raises(UsageError, match="overlapping segments"):
        unitizing_alpha([("a", 0, 4, "x"), ("a", 2, 6, "x"), ("b", 0, 4, "x")], (0, 10))
    # the same stretch marked twice counts once
    twice = unitizing_alpha([("a", 0, 4, "x"), ("a", 0, 4, "x"), ("b", 0, 4, "x")], (0, 10))
    assert twice.duplicates == 1 and twice.value == 1.0
    # other labels may overlap (nested entities): each label has its own continuum
    ok = unitizing_alpha([("a", 0, 4, "x"), ("a", 2, 6, "y"), ("b", 0, 4, "x")], (0, 10))
    assert set(ok.by_label) == {"x", "y"}


def test_tasks_laid_end_to_end() -> None:
    # two texts of 10 and 8; D_o is that of the plain concatenation, D_e cuts gaps at the seam
    seg = [(0, 0, 0, 2, 6), (0, 1, 0, 3, 6), (1, 0, 0, 0, 4), (1, 1, 0, 1, 4)]
    pooled = unitizing_alpha_tasks(table(seg, np.ones((2, 2), bool), ("x",)), [10, 8])
    flat = unitizing_alpha([(a, s + 10 * t, e + 10 * t, "x") for t, a, _, s, e in seg], (0, 18))
    assert pooled.observed["x"] == pytest.approx(flat.observed["x"])
    assert pooled.expected["x"] != pytest.approx(flat.expected["x"])
    # a task rated by fewer annotators than the rest is left out, and counted
    rated = np.array([[1, 1], [1, 1], [1, 0]], bool)
    part = unitizing_alpha_tasks(table([*seg, (2, 0, 0, 0, 3)], rated, ("x",)), [10, 8, 5])
    assert part.excluded == 1 and part.value == pytest.approx(pooled.value)


def test_merge_counts_overlapping_spans_as_their_union() -> None:
    """Nested, overlapping and repeated spans of one annotator and label (what a region field
    passes with ``merge=True``) score as their union; touching ones stay apart."""
    rated = np.ones((2, 2), bool)
    raw = [(0, 0, 0, 0, 3), (0, 0, 0, 2, 5), (0, 0, 0, 1, 2), (0, 0, 0, 5, 7), (0, 1, 0, 0, 6)]
    raw += [(1, 0, 0, 0, 4), (1, 0, 0, 0, 4), (1, 1, 0, 1, 4), (1, 1, 1, 2, 3)]
    union = [(0, 0, 0, 0, 5), (0, 0, 0, 5, 7), (0, 1, 0, 0, 6)]
    union += [(1, 0, 0, 0, 4), (1, 1, 0, 1, 4), (1, 1, 1, 2, 3)]
    with pytest.raises(UsageError, match="overlapping segments"):
        unitizing_alpha_tasks(table(raw, rated, ("x", "y")), [10, 8])
    merged = unitizing_alpha_tasks(table(raw, rated, ("x", "y")), [10, 8], merge=True)
    want = unitizing_alpha_tasks(table(union, rated, ("x", "y")), [10, 8])
    assert merged.observed == want.observed and merged.expected == want.expected
    assert merged.value == want.value and merged.duplicates == 1


def table(rows: list[tuple[int, ...]], rated: np.ndarray, labels: tuple[str, ...]) -> Regions:
    """Spans from (task, annotator, label, start, end) rows."""
    t, a, lab, s, e = (np.array(c, dtype=np.int64) for c in zip(*rows, strict=True))
    return Regions(t, a, lab, np.column_stack([s, e]), rated, "span", labels)


def _random_spans(rng: np.random.Generator, tasks: int, n_ann: int, n_lab: int):
    lengths = rng.integers(5, 40, tasks)
    rows = []
    for t in range(tasks):
        for a in range(n_ann):
            for _ in range(rng.integers(0, 4)):
                s = int(rng.integers(0, lengths[t]))
                rows.append(
                    (t, a, s, int(rng.integers(s, lengths[t] + 1)), int(rng.integers(n_lab)))
                )
    rated = rng.random((tasks, n_ann)) < 0.85
    rows = [r for r in rows if rated[r[0], r[1]]]
    return rows, lengths, rated


# cover counts packed in an int64, or a bit set (many labels); coincidences by annotator pair, or
# from per-run value counts (many annotators)
@pytest.mark.parametrize(("n_labels", "n_ann"), [(3, 3), (40, 3), (3, 8)])
def test_position_alpha_matches_krippendorff_package(n_labels: int, n_ann: int) -> None:
    rng = np.random.default_rng(11)
    labels = ("PER", "ORG", "LOC", *(f"L{k}" for k in range(n_labels - 3)))
    for _ in range(5):
        rows, lengths, rated = _random_spans(rng, 12, n_ann, n_labels)
        spans = table([(t, a, lab, s, e) for t, a, s, e, lab in rows], rated, labels)
        t, a, lab = spans.unit, spans.annotator, spans.label
        s, e = spans.geometry[:, 0], spans.geometry[:, 1]
        coded = position_ratings(spans, lengths)
        # the expanded matrix by brute force: overlapping spans of one annotator → label set
        want = np.full((int(lengths.sum()), n_ann), np.nan)
        names: dict[frozenset[int], int] = {}
        offset = np.r_[0, np.cumsum(lengths)]
        for task in range(len(lengths)):
            for ann in np.flatnonzero(rated[task]):
                for p in range(lengths[task]):
                    cover = frozenset(
                        int(lab[k])
                        for k in np.flatnonzero((t == task) & (a == ann) & (s <= p) & (p < e))
                    )
                    want[offset[task] + p, ann] = names.setdefault(cover, len(names))
        assert position_alpha(spans, lengths) == pytest.approx(
            krippendorff.alpha(reliability_data=want.T, level_of_measurement="nominal"), abs=1e-12
        )
        # the same cells missing, and the same partition of the others into categories
        got = coded.codes
        assert np.array_equal(got < 0, np.isnan(want))
        pairs = {(int(g), int(w)) for g, w in zip(got[got >= 0], want[got >= 0], strict=True)}
        assert len(pairs) == len({g for g, _ in pairs}) == len({w for _, w in pairs})


def test_position_ratings_by_hand() -> None:
    # annotator 0: A [0,4) and B [2,6) overlap; annotator 1: A [0,4), A [5,8); task 1 by 0 only
    rows = [(0, 0, 0, 0, 4), (0, 0, 1, 2, 6), (0, 1, 0, 0, 4), (0, 1, 0, 5, 8), (1, 0, 1, 0, 3)]
    coded = position_ratings(table(rows, np.array([[1, 1], [1, 0]], bool), ("A", "B")), [8, 4])
    names = [coded.values[c] if c >= 0 else None for c in coded.codes[:, 0]]
    assert names == ["A", "A", "A+B", "A+B", "B", "B", "(outside)", "(outside)"] + ["B"] * 3 + [
        "(outside)"
    ]
    assert coded.codes[8:, 1].tolist() == [-1] * 4
