"""Region matching and pairwise F1: cases worked by hand, order-freedom, geometry, clusters."""

from __future__ import annotations

import math
from typing import Any

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics import (
    KINDS,
    Regions,
    Relations,
    cluster_alpha,
    cluster_ratings,
    disagreements,
    match_regions,
    region_clusters,
    region_scores,
    relation_scores,
)

LABELS = ("PER", "ORG", "LOC")


def spans(
    rows: list[tuple[int, int, int, int, int]], rated: Any, labels: tuple[str, ...] = LABELS
) -> Regions:
    """Regions from (unit, annotator, label, start, end) rows."""
    arr = np.array(rows, dtype=np.int64).reshape(-1, 5)
    return Regions(
        arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3:5], np.asarray(rated, bool), "span", labels
    )


def f1(regions: Regions, **kw: Any) -> float:
    return region_scores(match_regions(regions, **kw)).f1


def kinds(regions: Regions, **kw: Any) -> list[tuple[int, int, str]]:
    """(region, other annotator, kind) of each disagreement."""
    d = disagreements(match_regions(regions, **kw))
    return [(int(r), int(o), KINDS[k]) for r, o, k in zip(d.region, d.other, d.kind, strict=True)]


def test_exact_and_partial_overlap() -> None:
    r = spans([(0, 0, 0, 0, 10), (0, 1, 0, 0, 6)], [[1, 1]])  # IoU 0.6
    assert f1(r) == 1.0
    assert f1(r, iou=0.7) == 0.0
    assert f1(r, mode="exact") == 0.0
    assert region_scores(match_regions(r)).mean_similarity == pytest.approx(0.6)
    assert kinds(r, mode="exact") == [(0, 1, "boundary shift"), (1, 0, "boundary shift")]


def test_iou_threshold_is_inclusive() -> None:
    r = spans([(0, 0, 0, 0, 10), (0, 1, 0, 0, 5)], [[1, 1]])  # IoU exactly 0.5
    assert f1(r) == 1.0


def test_nested_regions_are_kept_and_matched_one_to_one() -> None:
    # "name" [0, 20) holds "first name" [0, 5): both annotators mark both
    rows = [(0, a, lab, s, e) for a in (0, 1) for lab, s, e in ((1, 0, 20), (0, 0, 5))]
    r = spans(rows, [[1, 1]])
    assert f1(r) == 1.0
    assert f1(r, labels=False) == 1.0
    m = match_regions(r, labels=False)
    assert sorted(zip(m.first.tolist(), m.second.tolist(), strict=True)) == [(0, 2), (1, 3)]


def test_optimal_not_greedy() -> None:
    # a0 [0,10) prefers b [1,11) (IoU .82) but a1 [2,12) can only take that one; b' [0,6) fits a0
    r = spans([(0, 0, 0, 0, 10), (0, 0, 0, 2, 12), (0, 1, 0, 1, 11), (0, 1, 0, 0, 6)], [[1, 1]])
    m = match_regions(r)
    assert sorted(zip(m.first.tolist(), m.second.tolist(), strict=True)) == [(0, 3), (1, 2)]
    assert f1(r) == 1.0


def test_adjacent_spans_do_not_overlap() -> None:
    r = spans([(0, 0, 0, 0, 5), (0, 1, 0, 5, 10)], [[1, 1]])
    assert f1(r) == 0.0
    assert kinds(r) == [(0, 1, "missed"), (1, 0, "missed")]


def test_label_swap() -> None:
    r = spans([(0, 0, 0, 0, 5), (0, 1, 1, 0, 5)], [[1, 1]])
    assert f1(r) == 0.0
    assert f1(r, labels=False) == 1.0  # localisation alone agrees
    assert kinds(r) == [(0, 1, "label swap"), (1, 0, "label swap")]
    assert kinds(r, labels=False) == [(0, 1, "label swap"), (1, 0, "label swap")]
    scores = region_scores(match_regions(r, labels=False))
    assert scores.by_label["PER"] == 0.0 and scores.by_label["ORG"] == 0.0


def test_empty_annotations() -> None:
    # unit 0: both empty; unit 1: one marks a span, the other nothing; unit 2: one rater only
    r = spans([(1, 0, 0, 0, 4)], [[1, 1], [1, 1], [1, 0]])
    s = region_scores(match_regions(r))
    assert s.unit[:2].tolist() == [1.0, 0.0]
    assert math.isnan(s.unit[2])
    assert s.pairs.tolist() == [1, 1, 0]
    assert s.f1 == 0.0
    assert kinds(r) == [(0, 1, "missed")]


def test_no_pair_of_raters_is_undefined() -> None:
    s = region_scores(match_regions(spans([(0, 0, 0, 0, 4)], [[1, 0], [0, 1]])))
    assert math.isnan(s.f1) and "two or more" in s.f1.reason  # type: ignore[attr-defined]
    assert np.isnan(s.unit).all()


def test_split_merge_and_three_annotators() -> None:
    # a: [0,12); b: [0,4) [4,8) [8,12) (IoU 1/3 each); c: [0,12) and an extra [20,25)
    rows = [(0, 0, 0, 0, 12), (0, 1, 0, 0, 4), (0, 1, 0, 4, 8), (0, 1, 0, 8, 12)]
    rows += [(0, 2, 0, 0, 12), (0, 2, 0, 20, 25)]
    r = spans(rows, [[1, 1, 1]])
    got = kinds(r)
    assert (0, 1, "split/merge") in got and (1, 0, "split/merge") in got
    assert (5, 0, "extra") in got and (5, 1, "extra") in got  # only c has [20,25)
    s = region_scores(match_regions(r))
    # pairs: a–b 0/(1+3), a–c 2/(1+2), b–c 0/(3+2)
    assert s.unit[0] == pytest.approx((0 + 2 / 3 + 0) / 3)
    assert s.f1 == pytest.approx(2 / (4 + 3 + 5))
    assert s.annotators[0, 2] == pytest.approx(2 / 3) and s.shared[0, 2] == 1


def test_missed_by_minority() -> None:
    r = spans([(0, 0, 0, 0, 5), (0, 1, 0, 0, 5)], [[1, 1, 1]])
    assert kinds(r) == [(0, 2, "missed"), (1, 2, "missed")]


def test_annotator_matrix_and_labels() -> None:
    rows = [(0, 0, 0, 0, 5), (0, 1, 0, 0, 5), (1, 0, 1, 0, 5), (1, 2, 2, 0, 5)]
    s = region_scores(match_regions(spans(rows, [[1, 1, 0], [1, 0, 1]])))
    assert s.annotators[0, 1] == 1.0 and s.annotators[0, 2] == 0.0
    assert math.isnan(s.annotators[1, 2]) and s.shared[1, 2] == 0
    assert s.shared[0, 0] == 2
    assert s.by_label == {"PER": 1.0, "ORG": 0.0, "LOC": 0.0}


def test_bad_input_is_refused() -> None:
    with pytest.raises(UsageError, match="did not rate"):
        spans([(0, 1, 0, 0, 5)], [[1, 0]])
    with pytest.raises(UsageError, match="ends before"):
        spans([(0, 0, 0, 5, 1)], [[1, 0]])


unit_spans = st.lists(
    st.tuples(
        st.integers(0, 2),
        st.integers(0, 2),
        st.integers(0, 1),
        st.integers(0, 12),
        st.integers(1, 6),
    ),
    max_size=24,
)


def _content(r: Regions, i: int) -> tuple[int, ...]:
    return (
        int(r.unit[i]),
        int(r.annotator[i]),
        int(r.label[i]),
        *r.geometry[i].astype(int).tolist(),
    )


def _summary(r: Regions, labels: bool) -> tuple[Any, ...]:
    m = match_regions(r, labels=labels)
    s = region_scores(m)
    d = disagreements(m)
    matched = sorted(
        (_content(r, i), _content(r, j)) for i, j in zip(m.first, m.second, strict=True)
    )
    disputes = sorted(
        (_content(r, i), int(o), int(k)) for i, o, k in zip(d.region, d.other, d.kind, strict=True)
    )
    cl = region_clusters(m)
    groups = sorted(
        sorted(_content(r, i) for i in np.flatnonzero(cl.cluster == c)) for c in range(cl.n)
    )
    return (
        np.nan_to_num(s.unit, nan=-1).round(12).tolist(),
        np.nan_to_num(s.annotators, nan=-1).round(12).tolist(),
        round(s.f1, 12),
        matched,
        disputes,
        groups,
    )


@settings(max_examples=60, deadline=None)
@given(unit_spans, st.randoms(use_true_random=False), st.booleans())
def test_results_do_not_depend_on_region_order(rows: list[Any], rnd: Any, labels: bool) -> None:
    data = [(u, a, lab, s, s + w) for u, a, lab, s, w in rows]
    rated = np.ones((3, 3), bool)
    shuffled = list(data)
    rnd.shuffle(shuffled)
    assert _summary(spans(data, rated), labels) == _summary(spans(shuffled, rated), labels)


unit_boxes = st.lists(
    st.tuples(
        st.integers(0, 2), st.integers(0, 1), st.integers(0, 6), st.integers(0, 6),
        st.integers(1, 4), st.integers(1, 4), st.sampled_from([0, 90]),
    ),
    max_size=16,
)  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(unit_boxes, st.randoms(use_true_random=False))
def test_box_results_do_not_depend_on_region_order(rows: list[Any], rnd: Any) -> None:
    def table(data: list[Any]) -> Regions:
        arr = np.array(data, dtype=float).reshape(-1, 7)
        n = arr.shape[0]
        return Regions(
            np.zeros(n), arr[:, 0], arr[:, 1], arr[:, 2:], np.ones((1, 3), bool), "box", ("a", "b")
        )

    shuffled = list(rows)
    rnd.shuffle(shuffled)
    assert _summary(table(rows), True) == _summary(table(shuffled), True)


# -- geometry -----------------------------------------------------------------------------------


def boxes(rows: list[tuple[float, ...]], n_ann: int = 2) -> Regions:
    """One unit; rows are (annotator, x, y, w, h, rotation)."""
    arr = np.array(rows, dtype=np.float64)
    n = arr.shape[0]
    return Regions(
        np.zeros(n), arr[:, 0], np.zeros(n), arr[:, 1:], np.ones((1, n_ann), bool), "box", ("car",)
    )


def iou_of(r: Regions) -> float:
    m = match_regions(r, iou=1e-6)
    return float(m.similarity[0]) if m.similarity.size else 0.0


def test_box_iou_axis_aligned() -> None:
    assert iou_of(boxes([(0, 0, 0, 2, 2, 0), (1, 1, 1, 2, 2, 0)])) == pytest.approx(1 / 7)
    assert iou_of(boxes([(0, 0, 0, 2, 2, 0), (1, 2, 0, 2, 2, 0)])) == 0.0  # touching


def test_box_iou_rotated() -> None:
    # rotated 90° clockwise about the top-left corner, the square swings to x ∈ [−2, 0]
    assert iou_of(boxes([(0, 0, 0, 2, 2, 0), (1, 0, 0, 2, 2, 90)])) == 0.0
    # 180° about (2, 2) covers [0, 2]² again
    assert iou_of(boxes([(0, 0, 0, 2, 2, 0), (1, 2, 2, 2, 2, 180)])) == pytest.approx(1.0)
    # 45°: intersection 4√2 − 4, union 12 − 4√2 (worked by hand)
    want = (math.sqrt(2) - 1) / (3 - math.sqrt(2))
    assert iou_of(boxes([(0, 0, 0, 2, 2, 0), (1, 0, 0, 2, 2, 45)])) == pytest.approx(want)


def test_polygon_iou_and_exact() -> None:
    square = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], float)
    triangle = np.array([[0, 0], [2, 0], [0, 2]], float)

    def poly(*shapes: np.ndarray) -> Regions:
        n = len(shapes)
        return Regions(
            np.zeros(n), np.arange(n), np.zeros(n), np.zeros((n, 0)), np.ones((1, n), bool),
            "polygon", ("roof",), tuple(shapes),
        )  # fmt: skip

    m = match_regions(poly(square, triangle))
    assert m.similarity.tolist() == [pytest.approx(0.5)]
    assert KINDS[disagreements(match_regions(poly(square, triangle), iou=0.6)).kind[0]] == (
        "boundary shift"
    )
    alone = Regions(
        [0], [0], [0], np.zeros((1, 0)), np.ones((1, 2), bool), "polygon", ("roof",), (square,)
    )
    assert KINDS[disagreements(match_regions(alone)).kind[0]] == "missed"
    assert match_regions(poly(square, triangle), mode="exact").first.size == 0
    assert match_regions(poly(square, square.copy()), mode="exact").first.size == 1


def test_keypoints_within_tolerance() -> None:
    pts = np.array([[0, 0], [0.6, 0.8], [5, 5], [6, 6]], float)  # distances 1 and √2
    r = Regions(
        [0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0], pts, np.ones((2, 2), bool), "keypoint", ("eye",)
    )
    assert region_scores(match_regions(r, tolerance=1.0)).unit.tolist() == [1.0, 0.0]
    assert region_scores(match_regions(r)).unit.tolist() == [0.0, 0.0]  # exact by default


# -- clusters, cluster alpha, relations ---------------------------------------------------------


def test_cluster_chain_with_two_regions_of_one_annotator() -> None:
    # a0 ~ b [0,10); c [1,10) ~ b? b is taken by a0; c matches a1 [1,10), and a0 ~ c ... build a
    # chain a0–b–c–a1: a0 [0,10), b [0,10), c [1,11), a1 [2,11)
    rows = [(0, 0, 0, 0, 10), (0, 0, 0, 2, 11), (0, 1, 0, 0, 10), (0, 2, 0, 1, 11)]
    r = spans(rows, [[1, 1, 1]])
    m = match_regions(r)
    cl = region_clusters(m)
    assert cl.n == 1 and cl.ambiguous.tolist() == [True]
    # a per-region attribute: a's two regions disagree → a's cell is missing, counted
    att = cluster_ratings(m, [0, 1, 0, 0], ("sure", "unsure"), clusters=cl)
    assert att.codes.tolist() == [[-1, 0, 0]] and att.conflicts.tolist() == [1]


def test_cluster_ratings_with_unmatched_category() -> None:
    # a: car box, person box; b: car box (matched), nothing for the person; c did not rate
    rows = [(0, 0, 0, 0, 5), (0, 0, 1, 10, 15), (0, 1, 0, 0, 5)]
    r = spans(rows, [[1, 1, 0]], ("car", "person"))
    cr = cluster_ratings(match_regions(r, labels=False))
    assert cr.values == ("car", "person", "(no label)", "(unmatched)")
    assert cr.codes.tolist() == [[0, 0, -1], [1, 3, -1]]


def test_cluster_alpha_matches_krippendorff_package() -> None:
    rng = np.random.default_rng(3)
    rows = []
    for u in range(40):
        for k in range(rng.integers(1, 5)):
            start, label = 10 * k, int(rng.integers(0, 3))
            for a in range(3):
                if rng.random() < 0.8:
                    shift = int(rng.integers(0, 4))
                    rows.append(
                        (u, a, label if rng.random() < 0.8 else 2 - label, start + shift, start + 6)
                    )
    r = spans(rows, np.ones((40, 3), bool))
    m = match_regions(r, labels=False)
    codes = cluster_ratings(m).codes.T.astype(float)
    codes[codes < 0] = np.nan
    want = krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")
    assert cluster_alpha(m) == pytest.approx(want, abs=1e-12)


def test_relations() -> None:
    # both annotators mark PER [0,5) and ORG [10,15) on unit 0
    rows = [(0, a, lab, s, s + 5) for a in (0, 1) for lab, s in ((0, 0), (1, 10))]
    m = match_regions(spans(rows, [[1, 1]]))

    def score(b_source: int, b_target: int, b_label: int, directed: bool = True) -> float:
        rel = Relations(
            [0, b_source], [1, b_target], [0, b_label], ("works_for", "born_in"), directed
        )
        return relation_scores(rel, m).f1

    assert score(2, 3, 0) == 1.0
    assert score(2, 3, 1) == 0.0  # another label
    assert score(3, 2, 0) == 0.0  # reversed
    assert score(3, 2, 0, directed=False) == 1.0
    with pytest.raises(UsageError, match="different units or annotators"):
        relation_scores(Relations([0], [2], [0], ("works_for",)), m)


def test_matching_is_optimal_against_per_pair_assignment() -> None:
    """Heavily overlapping random spans: per (unit, pair), the matching has as many pairs and as
    much total IoU as scipy's linear_sum_assignment on the full IoU matrix."""
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(5)
    rows = []
    for u in range(40):
        for a in range(3):
            for _ in range(rng.integers(0, 7)):
                s = int(rng.integers(0, 30))
                rows.append((u, a, int(rng.integers(0, 2)), s, s + int(rng.integers(1, 12))))
    r = spans(rows, np.ones((40, 3), bool))
    for labels in (True, False):
        for iou in (0.3, 0.5):
            m = match_regions(r, iou=iou, labels=labels)
            got: dict[tuple[int, int, int], list[float]] = {}
            for i, j, sim in zip(m.first, m.second, m.similarity, strict=True):
                got.setdefault(
                    (int(r.unit[i]), int(r.annotator[i]), int(r.annotator[j])), []
                ).append(sim)
            for u in range(40):
                for a in range(3):
                    for b in range(a + 1, 3):
                        ia = np.flatnonzero((r.unit == u) & (r.annotator == a))
                        ib = np.flatnonzero((r.unit == u) & (r.annotator == b))
                        ga, gb = r.geometry[ia], r.geometry[ib]
                        inter = np.clip(
                            np.minimum(ga[:, None, 1], gb[None, :, 1])
                            - np.maximum(ga[:, None, 0], gb[None, :, 0]),
                            0,
                            None,
                        )
                        union = (ga[:, 1] - ga[:, 0])[:, None] + (gb[:, 1] - gb[:, 0]) - inter
                        sim = inter / union
                        ok = sim >= iou - 1e-9
                        if labels:
                            ok &= r.label[ia][:, None] == r.label[ib][None, :]
                        x, y = linear_sum_assignment(np.where(ok, 1.0 - sim, 1e6))
                        want = sim[x, y][ok[x, y]]
                        mine = got.get((u, a, b), [])
                        assert len(mine) == want.size
                        assert sum(mine) == pytest.approx(want.sum(), abs=1e-9)


def _random_spans(seed: int, units: int = 40) -> Regions:
    """Heavily overlapping spans of 3 labels by 3 annotators, some repeated exactly."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(units):
        for a in range(3):
            for _ in range(rng.integers(0, 7)):
                s = int(rng.integers(0, 30))
                rows.append((u, a, int(rng.integers(0, 3)), s, s + int(rng.integers(1, 12))))
    rows += rows[::9]
    return spans(rows, np.ones((units, 3), bool))


def test_matchings_from_shared_overlaps_equal_fresh_ones() -> None:
    """Matching the same regions several ways from one set of overlapping pairs (what a region
    field's exact and label-free matchings do) gives each matching as computed on its own."""
    r = _random_spans(11)
    base = match_regions(r)
    for how in ({"mode": "exact"}, {"labels": False}, {"iou": 0.3, "labels": False}):
        shared = match_regions(r, overlapping=base.overlaps, **how)
        fresh = match_regions(r, **how)
        for name in ("first", "second", "similarity"):
            assert np.array_equal(getattr(shared, name), getattr(fresh, name))


def test_disagreements_of_some_units_equal_their_rows_of_all() -> None:
    r = _random_spans(12)
    for labels in (True, False):
        m = match_regions(r, labels=labels)
        every = disagreements(m)
        most = np.setdiff1d(np.arange(r.units), [1, 5, 6])  # all but three: rows of all
        for units in (np.array([0, 3, 4, 17, 39]), most[::-1]):  # a few: on a cut matching
            some = disagreements(m, units)
            rows = np.isin(every.unit, units)
            assert rows.sum() > 10
            for name in ("unit", "region", "other", "kind", "counterpart"):
                assert np.array_equal(getattr(every, name)[rows], getattr(some, name))


def test_components_number_like_scipy() -> None:
    """Clusters and the matcher's ambiguous groups are connected components, numbered in the
    order of their smallest node, as scipy's ``connected_components`` numbers them."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    from iaa_gate.metrics.geometry import components

    rng = np.random.default_rng(4)
    chain = rng.permutation(2000)  # one long path, stored in random order
    graphs = [(2000, chain[:-1], chain[1:])]
    for _ in range(100):
        n, e = int(rng.integers(1, 60)), int(rng.integers(0, 80))
        graphs.append((n, rng.integers(0, n, e), rng.integers(0, n, e)))
    for n, a, b in graphs:
        graph = coo_matrix((np.ones(a.size), (a, b)), shape=(n, n))
        assert np.array_equal(components(n, a, b), connected_components(graph, directed=False)[1])
