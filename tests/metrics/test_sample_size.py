"""Sample sizes: Krippendorff's minimum against his worked values, the kappa closed forms against
the numbers R's kappaSize 1.2 and irr 0.84 give, and the seeded width simulation against fresh
rounds of its own model."""

from __future__ import annotations

import numpy as np
import pytest

from iaa_gate.core.errors import UsageError
from iaa_gate.metrics import krippendorff_alpha
from iaa_gate.metrics.sample_size import (
    Simulation,
    cohen_kappa_sample_size,
    interval_widths,
    kappa_ci_sample_size,
    kappa_power_sample_size,
    krippendorff_sample_size,
    more_units,
    resampled,
    settled,
    settled_ratings,
    width_sample_size,
)


def test_krippendorff_worked_values() -> None:
    """Krippendorff (2019): two coders, four equally likely values, p = .05: α_min .800 needs
    139 values and .667 needs 81 (the example ATLAS.ti's manual quotes from his table)."""
    assert krippendorff_sample_size(0.8, 0.25, significance=0.05) == 139
    assert krippendorff_sample_size(0.667, 0.25, significance=0.05) == 81


def test_krippendorff_coders_multiply_z_squared() -> None:
    """More coders multiply z² by their number: three coders need 3/2 of two coders' values
    (before rounding)."""
    two, three = krippendorff_sample_size(0.8, 0.25), krippendorff_sample_size(0.8, 0.25, coders=3)
    assert three == pytest.approx(1.5 * two, abs=2)


def test_krippendorff_moves_the_right_way() -> None:
    """Stricter alpha, stricter significance or a rarer least likely value: more values."""
    assert krippendorff_sample_size(0.9, 0.25) > krippendorff_sample_size(0.8, 0.25)
    assert krippendorff_sample_size(0.8, 0.25, significance=0.01) > 139
    assert krippendorff_sample_size(0.8, 0.1) > 139


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.2, 1.5])
def test_krippendorff_refuses_out_of_range(bad: float) -> None:
    with pytest.raises(UsageError, match="strictly between 0 and 1"):
        krippendorff_sample_size(bad, 0.25)
    with pytest.raises(UsageError, match="strictly between 0 and 1"):
        krippendorff_sample_size(0.8, bad)


# R 4.2.2, kappaSize 1.2: CIBinary(kappa0, kappaL, kappaU, props, raters, alpha=0.05)$n
CI_BINARY = [
    # kappa, lower, upper, prevalence, raters → n
    *[
        (0.4, 0.3, 0.5, 0.3, r, n)
        for r, n in zip(range(2, 7), (397, 206, 154, 133, 121), strict=True)
    ],
    *[(0.6, 0.4, None, 0.2, r, n) for r, n in zip(range(2, 7), (83, 50, 39, 34, 29), strict=True)],
    *[(0.8, 0.7, 0.9, 0.5, r, n) for r, n in zip(range(2, 7), (196, 120, 98, 89, 85), strict=True)],
]


@pytest.mark.parametrize(("kappa", "lower", "upper", "prevalence", "raters", "n"), CI_BINARY)
def test_kappa_ci_as_kappasize(
    kappa: float, lower: float, upper: float | None, prevalence: float, raters: int, n: int
) -> None:
    """kappaSize's example (0.4 ± 0.1 at prevalence 0.3) and two more goals, 2 to 6 raters:
    kappaSize writes each rater count's probabilities out as polynomials; here they come from
    the one common-kappa model."""
    assert kappa_ci_sample_size(kappa, lower, upper, prevalence=prevalence, raters=raters) == n


# R 4.2.2, kappaSize 1.2: PowerBinary(kappa0, kappa1, props, raters, alpha, power)$N (unrounded)
POWER_BINARY = [
    *[
        (0.6, 0.4, 0.3, r, 0.05, 0.8, n)
        for r, n in zip(
            range(2, 7), (190.456402, 105.521665, 80.611580, 68.741641, 61.698727), strict=True
        )
    ],
    *[
        (0.8, 0.6, 0.1, r, 0.01, 0.9, n)
        for r, n in zip(
            range(2, 7), (634.842112, 426.369526, 338.206036, 283.133361, 244.955669), strict=True
        )
    ],
]


@pytest.mark.parametrize(
    ("kappa", "null", "prevalence", "raters", "significance", "power", "n"), POWER_BINARY
)
def test_kappa_power_as_kappasize(
    kappa: float,
    null: float,
    prevalence: float,
    raters: int,
    significance: float,
    power: float,
    n: float,
) -> None:
    """kappaSize's example (0.4 vs 0.6 at prevalence 0.3, α .05, power .8) and a stricter one;
    kappaSize prints N rounded up."""
    got = kappa_power_sample_size(
        kappa,
        null,
        prevalence=prevalence,
        raters=raters,
        significance=significance,
        power=power,
    )
    assert got == int(np.ceil(n))


@pytest.mark.parametrize(
    ("args", "kwargs", "n"),
    [
        ((0.5, 0.5, 0.7, 0.85), {}, 96),  # irr's published example output
        ((0.5, 0.5, 0.85, 0.7), {}, 117),
        ((0.3, 0.4, 0.8, 0.6), {"two_sided": True}, 113),
        ((0.2, 0.25, 0.6, 0.0), {"significance": 0.01, "power": 0.9}, 35),
    ],
)
def test_cohen_kappa_as_irr(args: tuple[float, ...], kwargs: dict[str, object], n: int) -> None:
    """irr's N.cohen.kappa: its example (96, in its documentation) and three more computed by
    irr 0.84 in R 4.2.2."""
    assert cohen_kappa_sample_size(*args, **kwargs) == n  # type: ignore[arg-type]


def test_kappa_refusals() -> None:
    with pytest.raises(UsageError, match="lower < kappa"):
        kappa_ci_sample_size(0.4, 0.5, prevalence=0.3)
    with pytest.raises(UsageError, match="differ"):
        kappa_power_sample_size(0.4, 0.4, prevalence=0.3)
    with pytest.raises(UsageError, match="raters=1"):
        kappa_ci_sample_size(0.4, 0.3, prevalence=0.3, raters=1)


# ------------------------------------------------------------------------------ simulation


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_settled_model_has_its_alpha(level: str) -> None:
    """The model's alpha is its settled share at every level: a large draw lands near it."""
    rng = np.random.default_rng(5)
    codes = settled_ratings(20_000, 0.7, [0.1, 0.2, 0.3, 0.4], 3, rng).astype(float)
    assert krippendorff_alpha(codes, level) == pytest.approx(0.7, abs=0.02)


def test_settled_ratings_draw_annotator_counts() -> None:
    """A pilot's annotators per task: each unit has one of the given counts."""
    codes = settled_ratings(500, 0.5, [0.5, 0.5], [2, 3], np.random.default_rng(1))
    per_unit = (codes >= 0).sum(axis=1)
    assert set(per_unit.tolist()) == {2, 3}


def test_interval_widths_are_seeded() -> None:
    def widths(seed: int) -> np.ndarray:
        model = settled(0.8, [0.25] * 4)
        return interval_widths(80, model, values=range(4), rounds=5, replicates=50, seed=seed)

    assert np.array_equal(widths(9), widths(9)) and not np.array_equal(widths(9), widths(10))


def test_the_settled_model_refuses_a_negative_alpha() -> None:
    with pytest.raises(UsageError, match="negative alpha"):
        settled(-0.2, [0.5, 0.5])


def test_resampled_rounds_are_the_pilots_pairable_units() -> None:
    """A pilot's rounds: its units with two or more ratings, drawn with replacement; a large
    one has the pilot's alpha."""
    rng = np.random.default_rng(2)
    pilot = settled_ratings(300, 0.6, [0.5, 0.3, 0.2], [2, 3], rng)
    pilot[:5, 1:] = -1  # units with one rating never enter alpha, nor the rounds
    drawn = resampled(pilot)(30_000, rng)
    assert ((drawn >= 0).sum(axis=1) >= 2).all()
    want = krippendorff_alpha(pilot.astype(float) + np.where(pilot < 0, np.nan, 0), "nominal")
    got = krippendorff_alpha(drawn.astype(float) + np.where(drawn < 0, np.nan, 0), "nominal")
    assert got == pytest.approx(want, abs=0.01)


def test_more_units_scales_as_inverse_square_root() -> None:
    assert more_units(240, 0.13, 0.10) == 406 - 240
    assert more_units(240, 0.09, 0.10) == 0


@pytest.mark.slow
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_planned_n_meets_the_width_in_fresh_rounds(level: str) -> None:
    """The plan's n gives an interval at most the width wide in at least the stated share of
    fresh rounds from the same known model (other seeds), up to Monte Carlo error (3 standard
    errors of a share of 2,000 rounds at 0.9: 0.02)."""
    model, values = settled(0.75, [0.4, 0.3, 0.2, 0.1]), [1, 2, 3, 4]
    plan = width_sample_size(
        0.12, model, values=values, level=level, simulation=Simulation(seed=11)
    )
    assert plan.share >= 0.9
    fresh = interval_widths(plan.n_units, model, values=values, level=level, seed=12345)
    assert float(np.mean(fresh <= 0.12)) >= 0.9 - 0.02
    # and it is about the smallest such n: a fifth fewer units miss the width more often
    fewer = interval_widths(int(plan.n_units * 0.8), model, values=values, level=level, seed=9)
    assert float(np.mean(fewer <= 0.12)) < 0.9
