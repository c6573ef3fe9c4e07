"""Krippendorff's alpha: published examples, the `krippendorff` and `nltk` packages, invariants."""

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics import (
    Undefined,
    encode,
    krippendorff_alpha,
    undefined_reason,
    unit_disagreement,
)
from iaa_gate.metrics.distance import masi
from strategies import rating_rows

nan = math.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 3 coders × 15
# units with missing data (units × coders here).
KRIPP_C = np.array(
    [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
).T
# Krippendorff (2011), section E: 4 observers × 12 units, values 1–5.
KRIPP_E = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
).T


PUBLISHED = [  # (data, level, alpha to 3 decimals as published)
    (KRIPP_C, "nominal", 0.691),
    (KRIPP_C, "interval", 0.811),
    (KRIPP_E, "nominal", 0.743),
    (KRIPP_E, "ordinal", 0.815),
    (KRIPP_E, "interval", 0.849),
    (KRIPP_E, "ratio", 0.797),
]


@pytest.mark.parametrize(("data", "level", "published"), PUBLISHED)
def test_published_examples(data: np.ndarray, level: str, published: float) -> None:
    assert round(krippendorff_alpha(data, level), 3) == published


def test_string_labels_and_none_match_numbers() -> None:
    labels = np.array(["a", "b", "c", "d", "e"], dtype=object)
    as_strings = [[None if math.isnan(v) else labels[int(v) - 1] for v in row] for row in KRIPP_E]
    assert krippendorff_alpha(as_strings) == pytest.approx(krippendorff_alpha(KRIPP_E), abs=1e-12)


def _random(rng: np.random.Generator, units: int, annotators: int, values: int, missing: float):
    truth = rng.integers(0, values, units)
    x = np.where(
        rng.random((units, annotators)) < 0.6,
        truth[:, None],
        rng.integers(0, values, (units, annotators)),
    )
    x = x.astype(float) + rng.choice([0.0, 1.0, 7.0])  # ratio needs positive values sometimes
    x[rng.random((units, annotators)) < missing] = nan
    return x


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_matches_krippendorff_package(level: str) -> None:
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(150):
        x = _random(
            rng,
            int(rng.integers(2, 60)),
            int(rng.integers(2, 8)),
            int(rng.integers(2, 9)),
            rng.random() * 0.5,
        )
        if rng.random() < 0.3:  # non-integer values take the sorting path
            x = x * 0.37 + 0.05
        ours = krippendorff_alpha(x, level)
        try:
            ref = krippendorff.alpha(x.T, level_of_measurement=level)
        except ValueError:  # the package raises where alpha is undefined
            assert math.isnan(ours) and undefined_reason(ours)
            continue
        assert ours == pytest.approx(ref, abs=1e-9)
        checked += 1
    assert checked > 100


LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _small_blocks(monkeypatch: pytest.MonkeyPatch, cells: int = 97) -> None:
    import iaa_gate.metrics._base as base_mod
    import iaa_gate.metrics.alpha as alpha_mod
    import iaa_gate.metrics.categories as categories_mod

    row_blocks = base_mod.row_blocks
    for mod in (alpha_mod, categories_mod, base_mod):
        monkeypatch.setattr(mod, "row_blocks", lambda r, c, cells_=0: row_blocks(r, c, cells))


@pytest.mark.parametrize("counts_max", [0, 16, 1000])
def test_every_path_and_small_blocks(monkeypatch: pytest.MonkeyPatch, counts_max: int) -> None:
    """Value counts (few values), lookups and annotator pairs (many), tabulated δ² or not, and
    many small blocks all give the package's numbers."""
    import iaa_gate.metrics.alpha as alpha_mod

    rng = np.random.default_rng(3)
    many = rng.normal(50, 3, (600, 5)).round(1)  # ~200 values: the package needs U·V² memory
    few = _random(rng, 600, 5, 9, 0.2)
    for x in (many, few):
        x[rng.random(x.shape) < 0.2] = nan
    ref = {
        (i, lvl): krippendorff.alpha(x.T, level_of_measurement=lvl)
        for i, x in enumerate((many, few))
        for lvl in LEVELS
    }
    monkeypatch.setattr(alpha_mod, "COUNTS_MAX", counts_max)
    monkeypatch.setattr(alpha_mod, "TABLE_MAX", 10)
    _small_blocks(monkeypatch)
    for (i, lvl), want in ref.items():
        x = (many, few)[i]
        assert krippendorff_alpha(x, lvl) == pytest.approx(want, abs=1e-9)
        assert unit_disagreement(x, lvl).alpha() == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("level", LEVELS)
def test_per_unit_pieces_agree_with_alpha(level: str) -> None:
    """unit_disagreement (per unit) and krippendorff_alpha (coincidences) agree, unit by unit
    with a direct sum over annotator pairs."""
    rng = np.random.default_rng(5)
    x = _random(rng, 300, 4, 6, 0.3)
    ud = unit_disagreement(x, level)
    assert ud.alpha() == pytest.approx(krippendorff_alpha(x, level), abs=1e-12)
    if level == "ordinal":
        return  # δ² depends on all the data: covered through alpha above
    fn = {"nominal": lambda a, b: float(a != b), "interval": lambda a, b: (a - b) ** 2}.get(
        level, lambda a, b: ((a - b) / (a + b)) ** 2 if a + b else 0.0
    )
    for u, row in enumerate(x):
        vals = row[~np.isnan(row)]
        want = sum(fn(a, b) for i, a in enumerate(vals) for j, b in enumerate(vals) if i != j)
        assert ud.observed[u] == pytest.approx(want if len(vals) > 1 else 0.0, abs=1e-9)
        assert ud.n_ratings[u] == len(vals)


def test_interval_far_apart_units() -> None:
    """Nearly unanimous units far apart: per-block shifts keep alpha's digits."""
    rng = np.random.default_rng(9)
    x = rng.uniform(0, 1e6, 80).round()[:, None] + rng.integers(-2, 3, (80, 3)) * 0.5
    x[rng.random(x.shape) < 0.1] = nan
    ref = krippendorff.alpha(x.T, level_of_measurement="interval")
    assert krippendorff_alpha(x, "interval") == pytest.approx(ref, abs=1e-9)
    scores = unit_disagreement(x, "interval").unit_scores()
    unanimous = np.array([len(set(r[~np.isnan(r)])) == 1 and (~np.isnan(r)).sum() > 1 for r in x])
    assert unanimous.any() and np.all(scores[unanimous] == 1.0)


@pytest.mark.parametrize(
    "x",
    [
        [[1, 5], [9, 5], [nan, 1]],  # gaps in the integers
        [[-3, 0.5], [2.5, nan]],  # shifted by a fractional minimum
        [[1e15, 1e15 + 2], [1e15 + 4, nan]],  # large offsets
        [[0, 100], [37, 250]],  # wide span: presence by bincount
        [[0.1, 0.2], [0.3, 0.25]],  # not integer offsets: sorted
        [[nan, nan], [nan, nan]],
    ],
)
def test_encode_numbers(x: list) -> None:
    arr = np.array(x, dtype=float)
    coded = encode(arr)
    values = np.unique(arr[~np.isnan(arr)])
    assert coded.values.tolist() == values.tolist()
    want = np.full(arr.shape, -1)
    want[~np.isnan(arr)] = np.searchsorted(values, arr[~np.isnan(arr)])
    assert coded.codes.tolist() == want.tolist()


def test_masi_matches_nltk() -> None:
    rng = np.random.default_rng(11)
    labels = ["a", "b", "c", "d"]
    rows = []
    for _ in range(40):
        base = frozenset(rng.choice(labels, size=rng.integers(1, 3), replace=False).tolist())
        rows.append(
            [
                base
                if rng.random() < 0.6
                else frozenset(rng.choice(labels, size=rng.integers(1, 4), replace=False).tolist())
                for _ in range(3)
            ]
        )
    task = AnnotationTask(
        data=[(f"c{a}", str(u), row[a]) for u, row in enumerate(rows) for a in range(3)],
        distance=masi_distance,
    )
    ratings = np.empty((len(rows), 3), dtype=object)
    for u, row in enumerate(rows):
        for a in range(3):
            ratings[u, a] = row[a]
    assert krippendorff_alpha(ratings, masi) == pytest.approx(task.alpha(), abs=1e-9)
    assert krippendorff_alpha(ratings, "masi") == pytest.approx(task.alpha(), abs=1e-9)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([[1, 1], [1, 1], [1, nan]], "only one value"),
        ([[1, nan], [nan, 2], [3, nan]], "no unit has two"),
        ([[nan, nan], [nan, nan]], "no unit has two"),
        ([[1], [2], [3]], "no unit has two"),
        ([[0.3, 0.3, 0.3], [0.1, nan, nan]], "only one value"),  # a lone rating differs
    ],
)
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_undefined_is_nan_with_reason(data: list, reason: str, level: str) -> None:
    value = krippendorff_alpha(np.array(data, dtype=float), level)
    assert isinstance(value, Undefined) and math.isnan(value)
    assert reason in (undefined_reason(value) or "")


def test_edge_values() -> None:
    assert (
        krippendorff_alpha([[1, 1], [2, 2], [3, 3], [4, nan]]) == 1.0
    )  # perfect; unit rated once ignored
    assert krippendorff_alpha([[1, 2], [2, 1]]) < 0  # systematic disagreement: negative alpha
    assert krippendorff_alpha([[0.1, 0.1, 0.1]] * 3, "interval") != krippendorff_alpha(
        [[0.1, 0.2]], "interval"
    )
    assert isinstance(krippendorff_alpha([[0.1, 0.1, 0.1]] * 5, "interval"), Undefined)


def test_bad_input() -> None:
    with pytest.raises(UsageError, match="2-D"):
        krippendorff_alpha([1, 2, 3])
    with pytest.raises(UsageError, match="numeric"):
        krippendorff_alpha([["a", "b"], ["a", "a"]], "interval")
    with pytest.raises(UsageError, match="finite"):
        krippendorff_alpha([[1, math.inf], [1, 2]])
    with pytest.raises(UsageError, match="unknown level"):
        krippendorff_alpha([[1, 2]], "cosine")


matrices = rating_rows(units=(2, 12), annotators=(2, 5))


def _f(rows: list) -> np.ndarray:
    return np.array([[nan if v is None else float(v) for v in r] for r in rows])


@settings(max_examples=150, deadline=None)
@given(
    matrices, st.randoms(use_true_random=False), st.sampled_from(["nominal", "ordinal", "interval"])
)
def test_invariant_to_permuting_units_and_annotators(rows: list, rnd, level: str) -> None:
    x = _f(rows)
    a = krippendorff_alpha(x, level)
    units = list(range(x.shape[0]))
    cols = list(range(x.shape[1]))
    rnd.shuffle(units)
    rnd.shuffle(cols)
    b = krippendorff_alpha(x[units][:, cols], level)
    assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(matrices, st.permutations(list(range(5))))
def test_nominal_invariant_to_relabelling(rows: list, perm: list) -> None:
    x = _f(rows)
    relabelled = np.where(
        np.isnan(x), nan, np.take(np.array(perm, dtype=float) * 3 + 1, np.nan_to_num(x).astype(int))
    )
    a, b = krippendorff_alpha(x), krippendorff_alpha(relabelled)
    assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)
