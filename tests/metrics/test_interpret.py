"""Benchmark scales: band boundaries, NaN, Gwet's membership probabilities against irrCAC (Gwet's
own package, Python port) and against a hand computation with scipy for the t variant."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from irrCAC.benchmark import Benchmark
from scipy import stats

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics import Undefined
from iaa_gate.metrics.interpret import (
    SCALES,
    benchmark_probability,
    gwet_benchmark,
    interpret,
    scale_table,
)

BOUNDARIES = [
    ("krippendorff", 0.8, "reliable"),
    ("krippendorff", 0.7999, "tentative"),
    ("krippendorff", 0.667, "tentative"),
    ("krippendorff", 0.6669, "unreliable"),
    ("krippendorff", 2 / 3, "unreliable"),  # Krippendorff's bound is .667, not 2/3
    ("krippendorff", -0.5, "unreliable"),
    ("landis_koch", -0.01, "poor"),
    ("landis_koch", 0.0, "slight"),
    ("landis_koch", 0.20, "slight"),
    ("landis_koch", 0.205, "fair"),
    ("landis_koch", 0.21, "fair"),
    ("landis_koch", 0.40, "fair"),
    ("landis_koch", 0.41, "moderate"),
    ("landis_koch", 0.60, "moderate"),
    ("landis_koch", 0.61, "substantial"),
    ("landis_koch", 0.80, "substantial"),
    ("landis_koch", 0.81, "almost perfect"),
    ("landis_koch", 1.0, "almost perfect"),
    ("fleiss", 0.3999, "poor"),
    ("fleiss", 0.40, "fair to good"),
    ("fleiss", 0.75, "fair to good"),
    ("fleiss", 0.7501, "excellent"),
    ("altman", 0.19, "poor"),
    ("altman", 0.20, "fair"),
    ("altman", 0.40, "fair"),
    ("altman", 0.41, "moderate"),
    ("altman", 0.60, "moderate"),
    ("altman", 0.61, "good"),
    ("altman", 0.80, "good"),
    ("altman", 0.81, "very good"),
]


@pytest.mark.parametrize(("scale", "value", "label"), BOUNDARIES)
def test_boundaries(scale: str, value: float, label: str) -> None:
    assert interpret(value, scale) == label


@pytest.mark.parametrize("scale", list(SCALES))
def test_every_two_decimal_value_reads_as_printed(scale: str) -> None:
    """On two-decimal values the continuous bands match the published ranges."""
    printed = {
        "landis_koch": [
            (-1.0, -0.01, "poor"),
            (0.0, 0.20, "slight"),
            (0.21, 0.40, "fair"),
            (0.41, 0.60, "moderate"),
            (0.61, 0.80, "substantial"),
            (0.81, 1.0, "almost perfect"),
        ],
        "fleiss": [(-1.0, 0.39, "poor"), (0.40, 0.75, "fair to good"), (0.76, 1.0, "excellent")],
        "altman": [
            (-1.0, 0.19, "poor"),
            (0.20, 0.40, "fair"),
            (0.41, 0.60, "moderate"),
            (0.61, 0.80, "good"),
            (0.81, 1.0, "very good"),
        ],
        "krippendorff": [
            (-1.0, 0.66, "unreliable"),
            (0.67, 0.79, "tentative"),
            (0.80, 1.0, "reliable"),
        ],
    }[scale]
    for lo, hi, label in printed:
        for v in np.arange(round(lo * 100), round(hi * 100) + 1) / 100:
            assert interpret(float(v), scale) == label, v


def test_nan_and_undefined_read_as_none() -> None:
    for scale in SCALES:
        assert interpret(math.nan, scale) is None
        assert interpret(Undefined("no pairable unit"), scale) is None
        assert gwet_benchmark(math.nan, 0.1, scale) is None
        assert gwet_benchmark(0.5, math.nan, scale) is None
        assert all(math.isnan(p) for p in benchmark_probability(math.nan, 0.1, scale).values())


def test_scales_are_ordered_and_printable() -> None:
    for name, bands in SCALES.items():
        assert bands[0].lower == -math.inf
        lowers = [b.lower for b in bands]
        assert lowers == sorted(lowers)
        rows = scale_table(name)
        assert [label for _, label in rows] == [b.label for b in bands]
    assert scale_table("landis_koch")[2] == ("0.20 < v ≤ 0.40", "fair")
    assert scale_table("krippendorff") == [
        ("v < 0.667", "unreliable"),
        ("0.667 ≤ v < 0.800", "tentative"),
        ("v ≥ 0.800", "reliable"),
    ]


def test_unknown_scale_and_bad_arguments() -> None:
    with pytest.raises(UsageError, match="scale='cicchetti' is not accepted"):
        interpret(0.5, "cicchetti")
    with pytest.raises(UsageError, match=r"se=-0.1 is not accepted: use a number ≥ 0"):
        benchmark_probability(0.5, -0.1, "fleiss")
    with pytest.raises(UsageError, match=r"n=1 is not accepted: use a whole number ≥ 2"):
        benchmark_probability(0.5, 0.1, "fleiss", n=1)
    with pytest.raises(UsageError, match="confidence"):
        gwet_benchmark(0.5, 0.1, "fleiss", confidence=1.0)


# ---------------------------------------------------------------- Gwet's benchmarking

IRRCAC = {"landis_koch": "landis_koch", "altman": "altman", "fleiss": "fleiss"}


def test_irrcac_documented_example() -> None:
    """irrCAC's example: κ̂ = 0.67, SE = 0.15 on Altman's scale, cumulative probabilities
    0.18168, 0.67511, 0.96356, 0.99912, 1 from the top: moderate, though 0.67 reads good."""
    probs = benchmark_probability(0.67, 0.15, "altman")
    cumulative = np.cumsum(list(probs.values())[::-1])
    np.testing.assert_allclose(
        cumulative, [0.18168, 0.67511, 0.96356, 0.99912, 1.0], rtol=0, atol=5e-6
    )
    assert gwet_benchmark(0.67, 0.15, "altman") == "moderate"
    assert interpret(0.67, "altman") == "good"


@pytest.mark.parametrize("scale", list(IRRCAC))
@pytest.mark.parametrize(
    ("value", "se"), [(0.67, 0.15), (0.05, 0.2), (0.93, 0.04), (-0.3, 0.5), (0.45, 0.01)]
)
def test_membership_probabilities_match_irrcac(scale: str, value: float, se: float) -> None:
    """irrCAC orders bands from the top and prints cumulative probabilities (5 decimals)."""
    theirs = getattr(Benchmark(value, se), IRRCAC[scale])()["CumProb"]
    ours = np.cumsum(list(benchmark_probability(value, se, scale).values())[::-1])
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=5e-6)


def test_hand_computation_normal_and_t() -> None:
    """Fleiss's scale, κ̂ = 0.5, SE = 0.1: a normal (or t with 19 df) truncated to [−1, 1]."""
    edges = [-1.0, 0.40, 0.75, 1.0]
    for n, dist in ((None, stats.norm(0.5, 0.1)), (20, stats.t(19, loc=0.5, scale=0.1))):
        mass = np.diff(dist.cdf(edges))
        want = mass / mass.sum()
        got = benchmark_probability(0.5, 0.1, "fleiss", n=n)
        np.testing.assert_allclose(list(got.values()), want, rtol=1e-10, atol=1e-12)
    # t has heavier tails: less mass in the middle band than the normal
    normal = benchmark_probability(0.5, 0.1, "fleiss")["fair to good"]
    assert benchmark_probability(0.5, 0.1, "fleiss", n=5)["fair to good"] < normal


@settings(max_examples=200, deadline=None)
@given(
    value=st.floats(-1.0, 1.0),
    se=st.floats(1e-4, 2.0),
    scale=st.sampled_from(list(SCALES)),
    n=st.one_of(st.none(), st.integers(2, 500)),
)
@example(value=1.0, se=0.015625, scale="krippendorff", n=29)  # far t tail: no negative mass
def test_probabilities_sum_to_one(value: float, se: float, scale: str, n: int | None) -> None:
    probs = benchmark_probability(value, se, scale, n)
    assert list(probs) == [b.label for b in SCALES[scale]]
    assert all(0.0 <= p <= 1.0 + 1e-12 for p in probs.values())
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9)
    # a stricter confidence never gives a higher band
    order = list(probs)
    loose = order.index(gwet_benchmark(value, se, scale, 0.5, n))
    strict = order.index(gwet_benchmark(value, se, scale, 0.99, n))
    assert strict <= loose


@pytest.mark.parametrize(
    ("value", "se", "scale", "label"),
    [
        (0.93, 0.01, "landis_koch", "almost perfect"),  # precise: its own band
        (0.85, 0.05, "landis_koch", "substantial"),  # P(> 0.80) ≈ 0.84 only
        (0.85, 0.02, "landis_koch", "almost perfect"),  # P(> 0.80) ≈ 0.994
        (0.85, 0.05, "krippendorff", "tentative"),
        (0.85, 0.0, "krippendorff", "reliable"),  # SE 0: the estimate's own band
        (0.3, 1.5, "fleiss", "poor"),  # very uncertain: the bottom band
        (1.5, 0.01, "altman", "very good"),  # no mass left in [−1, 1]: clipped point mass
    ],
)
def test_gwet_benchmark_examples(value: float, se: float, scale: str, label: str) -> None:
    assert gwet_benchmark(value, se, scale) == label


def test_zero_se_is_a_point_mass() -> None:
    probs = benchmark_probability(0.2, 0.0, "landis_koch")
    assert probs["slight"] == 1.0 and sum(probs.values()) == 1.0
