"""``iaa_gate.alt_test`` on long data: the same figures whatever shape the data come in
(tuples, a DataFrame, the model as a mapping, pairs or long rows), the published procedure
(scipy's ``ttest_1samp`` for the p-values, computed step by step here), and errors that say
what to fix."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import iaa_gate
from iaa_gate import UsageError

stats = pytest.importorskip("scipy.stats")


def _round(seed: int = 7) -> tuple[list[tuple[Any, ...]], dict[str, float]]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, 50)
    humans = [
        (f"t{t}", h, float(min(5, max(1, truth[t] + rng.integers(-1, 2)))))
        for t in range(50)
        for h in ("ann", "bob", "cy")
        if rng.random() > 0.05
    ]
    model = {f"t{t}": float(truth[t]) for t in range(50)}
    return humans, model


def test_the_p_values_are_the_published_procedures() -> None:
    humans, model = _round()
    got = iaa_gate.alt_test(humans, model, scoring="neg_rmse", epsilon=0.1)
    by_task: dict[str, dict[str, float]] = {}
    for t, h, v in humans:
        by_task.setdefault(t, {})[h] = v
    for row in got.humans:
        d = []
        for t, answers in by_task.items():
            if row.annotator not in answers or len(answers) < 2:
                continue
            rest = [v for h, v in answers.items() if h != row.annotator]
            s_h = -math.sqrt(np.mean([(answers[row.annotator] - o) ** 2 for o in rest]))
            s_m = -math.sqrt(np.mean([(model[t] - o) ** 2 for o in rest]))
            d.append(int(s_h >= s_m) - int(s_m >= s_h))
        assert row.n_instances == len(d)
        ref = stats.ttest_1samp(d, 0.1, alternative="less").pvalue
        assert row.p_value == pytest.approx(float(ref), rel=1e-9)
    assert got.passed is (got.winning_rate >= 0.5)


def test_every_shape_of_long_data_gives_the_same_figures() -> None:
    pd = pytest.importorskip("pandas")
    humans, model = _round()
    first = iaa_gate.alt_test(humans, model, scoring="neg_rmse")
    frame = pd.DataFrame(humans, columns=["item", "rater", "score"])
    for h, m in (
        (frame, model),
        (frame, list(model.items())),
        (frame, [(t, "gpt-4o", v) for t, v in model.items()]),
        (frame, pd.DataFrame({"item": list(model), "score": list(model.values())})),
    ):
        again = iaa_gate.alt_test(
            h, m, scoring="neg_rmse", task="item", annotator="rater", value="score"
        )
        assert again == first


def test_errors_say_what_to_fix() -> None:
    humans, model = _round()
    with pytest.raises(UsageError, match="rated task 't0' twice"):
        iaa_gate.alt_test([*humans, ("t0", "ann", 1.0), ("t0", "ann", 2.0)], model)
    with pytest.raises(UsageError, match="call alt_test once per model"):
        iaa_gate.alt_test(humans, [("t0", "a", 1.0), ("t1", "b", 2.0)])
    with pytest.raises(UsageError, match="scoring='f1' is not accepted"):
        iaa_gate.alt_test(humans, model, scoring="f1")


def test_too_few_instances_is_said_never_a_verdict() -> None:
    humans, model = _round()
    got = iaa_gate.alt_test(humans, model, scoring="neg_rmse", min_instances=100)
    assert got.passed is None and math.isnan(got.winning_rate)
    assert got.not_tested is not None and got.not_tested.startswith("too few instances")
