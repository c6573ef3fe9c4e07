"""The alt-test (Calderon, Reichart & Dror, ACL 2025) against a straightforward implementation of
the published procedure written here, with scipy's ``ttest_1samp`` as the p-value reference, on
seeded simulations (a model as noisy as the humans, a better one, a worse one, ties); the
Student-t function against ``scipy.stats.t``; Benjamini–Yekutieli against a hand-worked example."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

from iaa_gate.metrics.alt_test import (
    alt_test,
    benjamini_yekutieli,
    betainc,
    t_cdf,
    ttest_less,
)

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")


def test_the_t_distribution_function_is_scipys() -> None:
    t = np.array([-50, -8.5, -3.2, -2.0, -1.0, -0.3, 0.0, 0.4, 1.7, 4.0, 12.0, -np.inf, np.inf])
    for df in (1, 2, 5, 29, 49, 99, 400, 5000, 100_000):
        ours = t_cdf(t, df)
        np.testing.assert_allclose(ours, stats.t.cdf(t, df), rtol=1e-10, atol=1e-300)


def test_the_incomplete_beta_is_scipys() -> None:
    rng = np.random.default_rng(3)
    a, b, x = rng.uniform(0.1, 60, 300), rng.uniform(0.1, 60, 300), rng.uniform(0, 1, 300)
    np.testing.assert_allclose(betainc(a, b, x), special.betainc(a, b, x), rtol=1e-10, atol=1e-14)
    assert betainc(2.0, 3.0, [0.0, 1.0]).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("seed", range(12))
def test_the_one_sided_t_test_is_scipys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    d = rng.choice([-1, 0, 1], size=n, p=rng.dirichlet([1, 1, 1]))
    eps = float(rng.choice([0.0, 0.1, 0.15, 0.2]))
    ours = ttest_less(d, eps)
    ref = stats.ttest_1samp(d, eps, alternative="less")
    if np.isnan(ref.pvalue):
        assert math.isnan(ours.pvalue)
    else:
        assert ours.pvalue == pytest.approx(float(ref.pvalue), rel=1e-9, abs=1e-300)
        assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-12)


def test_no_variance_gives_what_scipy_gives_and_an_equal_mean_is_undefined() -> None:
    for d, eps in (([0, 0, 0, 0], 0.15), ([1, 1, 1], 0.15), ([-1, -1], 0.2)):
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # scipy: "catastrophic cancellation"
            ref = stats.ttest_1samp(d, eps, alternative="less")
        assert ttest_less(d, eps).pvalue == float(ref.pvalue)
    undefined = ttest_less([0, 0, 0], 0.0)
    assert math.isnan(undefined.pvalue)
    assert "no variance" in undefined.pvalue.reason  # type: ignore[attr-defined]


def test_benjamini_yekutieli_hand_worked() -> None:
    """m = 4, q = 0.05: c(4) = 1 + 1/2 + 1/3 + 1/4 = 25/12, so the bar of rank k is
    k · 0.05 / (4 · 25/12) = 0.006 k: 0.006, 0.012, 0.018, 0.024."""
    # sorted 0.004 ≤ 0.006, 0.011 ≤ 0.012, 0.020 > 0.018, 0.030 > 0.024: the first two
    assert benjamini_yekutieli([0.004, 0.030, 0.011, 0.020], 0.05).tolist() == [
        True,
        False,
        True,
        False,
    ]
    # step-up: 0.007 > 0.006 fails its own bar, but rank 3 (0.017 ≤ 0.018) takes ranks 1-3
    assert benjamini_yekutieli([0.5, 0.017, 0.010, 0.007], 0.05).tolist() == [
        False,
        True,
        True,
        True,
    ]
    assert benjamini_yekutieli([0.0061, 0.5, 0.9, 0.99], 0.05).tolist() == [False] * 4
    assert benjamini_yekutieli([math.nan, 0.001], 0.05).tolist() == [False, True]


def accuracy(answer: Any, others: list[Any]) -> float:
    """The share of the remaining humans giving ``answer`` (the paper's code)."""
    return float(np.mean([answer == o for o in others]))


def neg_rmse(answer: float, others: list[float]) -> float:
    """Minus the root mean square difference from the remaining humans (the paper's code)."""
    return -1 * float(np.sqrt(np.mean([(answer - o) ** 2 for o in others])))


def reference(
    humans: dict[str, dict[int, Any]],
    model: dict[int, Any],
    scoring: str,
    epsilon: float,
    q: float = 0.05,
    min_humans: int = 2,
    min_instances: int = 30,
) -> tuple[float, float, list[float], list[bool]]:
    """The published procedure, step by step on dicts (annotator → instance → answer)."""
    score = accuracy if scoring == "accuracy" else neg_rmse
    who: dict[int, list[str]] = {}
    for h, answers in humans.items():
        for i in answers:
            who.setdefault(i, []).append(h)
    keep = {i for i, hs in who.items() if len(hs) >= min_humans and i in model}
    pvalues, rho = [], []
    for h, answers in humans.items():
        instances = [i for i in answers if i in keep]
        if len(instances) < min_instances:
            continue
        w_h, w_m = [], []
        for i in instances:
            rest = [humans[o][i] for o in who[i] if o != h]
            s_h, s_m = score(answers[i], rest), score(model[i], rest)
            w_h.append(1 if s_h >= s_m else 0)
            w_m.append(1 if s_m >= s_h else 0)
        d = np.array(w_h) - np.array(w_m)
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            pvalues.append(float(stats.ttest_1samp(d, epsilon, alternative="less").pvalue))
        rho.append(float(np.mean(w_m)))
    m = len(pvalues)
    order = sorted(range(m), key=lambda k: (math.isnan(pvalues[k]), pvalues[k]))
    c = sum(1 / k for k in range(1, m + 1))
    last = max((r for r in range(m) if pvalues[order[r]] <= (r + 1) / m * q / c), default=-1)
    rejected = [False] * m
    for r in range(last + 1):
        rejected[order[r]] = True
    return sum(rejected) / m, float(np.mean(rho)), pvalues, rejected


def simulate(
    seed: int, noise_humans: float, noise_model: float, kind: str, units: int = 90
) -> tuple[dict[str, dict[int, Any]], dict[int, Any]]:
    """Four humans and a model answering ``units`` instances: each gives the true answer, or
    with probability ``noise`` a uniformly drawn one (``kind`` labels) or the truth plus a
    step of −2…2 (``kind`` ratings); each human leaves a tenth of the instances out."""
    rng = np.random.default_rng(seed)
    labels = ["pos", "neg", "neutral", "mixed"]
    truth = rng.integers(0, 4, units) if kind == "labels" else rng.integers(1, 6, units)

    def answer(noise: float) -> list[Any]:
        out = []
        for t in truth:
            if kind == "labels":
                out.append(labels[rng.integers(0, 4)] if rng.random() < noise else labels[t])
            else:
                step = int(rng.integers(-2, 3)) if rng.random() < noise else 0
                out.append(float(min(5, max(1, t + step))))
        return out

    humans = {}
    for h in ("ann", "bob", "cy", "dee"):
        given = answer(noise_humans)
        humans[h] = {i: v for i, v in enumerate(given) if rng.random() > 0.1}
    model = dict(enumerate(answer(noise_model)))
    return humans, model


def ours(
    humans: dict[str, dict[int, Any]], model: dict[int, Any], scoring: Any, epsilon: float
) -> Any:
    units = sorted({i for a in humans.values() for i in a} | set(model))
    names = sorted(humans)
    float_values = scoring == "neg_rmse"
    missing = math.nan if float_values else None
    values = np.full(
        (len(units), len(names)), missing, dtype=np.float64 if float_values else object
    )
    for j, h in enumerate(names):
        for k, u in enumerate(units):
            if u in humans[h]:
                values[k, j] = humans[h][u]
    m = np.full(len(units), missing, dtype=values.dtype)
    for k, u in enumerate(units):
        if u in model:
            m[k] = model[u]
    return alt_test(values, m, scoring=scoring, epsilon=epsilon), names


CASES = {
    "as noisy as the humans": (0.3, 0.3),
    "better": (0.4, 0.05),
    "worse": (0.2, 0.7),
}


@pytest.mark.parametrize("kind", ["labels", "ratings"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("seed", range(3))
def test_the_procedure_is_the_published_one(kind: str, case: str, seed: int) -> None:
    humans, model = simulate(seed, *CASES[case], kind)
    scoring = "accuracy" if kind == "labels" else "neg_rmse"
    for eps in (0.1, 0.15, 0.2):
        omega, rho, pvalues, rejected = reference(humans, model, scoring, eps)
        got, _ = ours(humans, model, scoring, eps)
        assert got.winning_rate == pytest.approx(omega, abs=1e-12)
        assert got.advantage_probability == pytest.approx(rho, abs=1e-12)
        tested = got.tested
        assert [h.p_value for h in tested] == pytest.approx(pvalues, rel=1e-9, abs=1e-300)
        assert [h.rejected for h in tested] == rejected
        assert got.passed == (omega >= 0.5)


def test_a_better_model_passes_and_a_worse_one_fails() -> None:
    better, _ = ours(*simulate(1, 0.4, 0.05, "labels"), "accuracy", 0.15)
    worse, _ = ours(*simulate(1, 0.2, 0.7, "labels"), "accuracy", 0.15)
    assert better.passed and better.winning_rate == 1.0
    assert worse.passed is False and worse.winning_rate == 0.0
    assert better.advantage_probability > worse.advantage_probability


def test_ties_give_both_indicators() -> None:
    """A model that copies one human ties with them on every instance: d = 0 throughout, so
    the t-test of that human has no variance and mean 0 < ε: p = 0, rejected."""
    humans, _ = simulate(5, 0.3, 0.3, "labels")
    model = {i: v for i, v in humans["ann"].items()}
    omega, rho, _, _ = reference(humans, model, "accuracy", 0.15)
    got, names = ours(humans, model, "accuracy", 0.15)
    first = got.humans[names.index("ann")]
    assert first.p_value == 0.0 and first.rejected
    assert first.model_advantage == 1.0 and first.human_advantage == 1.0
    assert got.winning_rate == pytest.approx(omega)
    assert got.advantage_probability == pytest.approx(rho)


def test_a_scoring_function_is_averaged_over_the_remaining_humans() -> None:
    humans, model = simulate(2, 0.3, 0.3, "labels")

    def same(a: Any, others: Any) -> float:
        return float(np.mean([a == o for o in others]))

    by_name, _ = ours(humans, model, "accuracy", 0.15)
    by_function, _ = ours(humans, model, same, 0.15)
    assert by_function.winning_rate == by_name.winning_rate
    assert [h.p_value for h in by_function.humans] == pytest.approx(
        [h.p_value for h in by_name.humans], nan_ok=True
    )


def test_humans_with_too_few_instances_are_skipped_and_say_why_when_none_is_left() -> None:
    humans, model = simulate(4, 0.3, 0.3, "labels", units=40)
    humans["eve"] = {i: "pos" for i in range(10)}
    got, names = ours(humans, model, "accuracy", 0.15)
    eve = got.humans[names.index("eve")]
    assert not eve.tested and eve.n_instances == 10 and not eve.rejected
    assert len(got.tested) == 4
    few, _ = ours({h: humans[h] for h in ("ann", "eve")}, model, "accuracy", 0.15)
    assert few.passed is None and math.isnan(few.winning_rate)
    assert few.not_tested is not None and few.not_tested.startswith("too few instances")
    lone, _ = ours({"ann": humans["ann"]}, model, "accuracy", 0.15)
    assert lone.not_tested is not None and lone.not_tested.startswith("too few humans")
    apart, _ = ours(humans, {1000: "pos"}, "accuracy", 0.15)
    assert apart.not_tested is not None and apart.not_tested.startswith("no overlap")
