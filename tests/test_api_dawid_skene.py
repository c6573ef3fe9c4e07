"""``iaa_gate.dawid_skene`` on long data against crowd-kit 1.4.2's ``DawidSkene`` (the reference),
mirroring crowd-kit's own test file: its ``task, worker, label`` frames, ``fit_predict``'s labels,
``probas_``, ``priors_`` and ``errors_``, and what a user gives and gets back."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import iaa_gate

crowdkit = pytest.importorskip("crowdkit.aggregation")

LABELS = ("cat", "dog", "fox", "owl", "yak")


def answers(seed: int, tasks: int, accuracy: list[float], k: int, missing: float) -> pd.DataFrame:
    """crowd-kit's long frame ``task, worker, label`` with string ids and labels: worker ``w``
    gives the true label with probability ``accuracy[w]``, else a uniformly drawn one; a
    ``missing`` share of the answers left out."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, tasks)
    right = rng.random((tasks, len(accuracy))) < np.asarray(accuracy)
    codes = np.where(right, truth[:, None], rng.integers(0, k, (tasks, len(accuracy))))
    keep = rng.random(codes.shape) >= missing
    task, worker = np.nonzero(keep)
    return pd.DataFrame(
        {
            "task": [f"t{t}" for t in task],
            "worker": [f"w{w}" for w in worker],
            "label": [LABELS[c] for c in codes[task, worker]],
        }
    )


def reference(df: pd.DataFrame, n_iter: int) -> Any:
    """crowd-kit's DawidSkene, run exactly ``n_iter`` EM steps."""
    return crowdkit.DawidSkene(n_iter=n_iter, tol=float("-inf")).fit(df)


@pytest.mark.parametrize("n_iter", [1, 5, 30])
@pytest.mark.parametrize(("seed", "k", "missing"), [(0, 2, 0.0), (1, 3, 0.3), (2, 5, 0.5)])
def test_aggregate_ds_equals_crowd_kit(seed: int, k: int, missing: float, n_iter: int) -> None:
    df = answers(seed, 200, [0.9, 0.8, 0.7, 0.55, 0.4], k, missing)
    ref = reference(df, n_iter)
    fit = iaa_gate.dawid_skene(df, max_iter=n_iter, tol=0.0)
    labels = sorted(df["label"].unique())
    probas = pd.DataFrame.from_dict(fit.posteriors, orient="index")
    pd.testing.assert_frame_equal(
        probas.loc[ref.probas_.index, labels],
        ref.probas_[labels],
        check_names=False,
        atol=1e-8,
    )
    proposed = {t: y for t, y in fit.labels.items() if y is not None}
    assert len(proposed) >= len(fit.labels) - 2  # an exact tie is rare on 200 tasks
    assert proposed == {t: ref.labels_[t] for t in proposed}
    assert fit.priors == pytest.approx(ref.priors_[labels].to_dict(), abs=1e-8)
    for (worker, given), row in ref.errors_.iterrows():  # (worker, given) × true
        met = {c for c in labels if probas.loc[df.task[df.worker == worker], c].sum() > 1e-9}
        for true in met:  # a true label the worker never met has no estimate (see metrics test)
            assert fit.confusion[worker][true][given] == pytest.approx(row[true], abs=1e-6)


def test_accuracy_is_crowd_kit_errors_on_the_diagonal_weighed_by_the_priors() -> None:
    df = answers(4, 300, [0.95, 0.75, 0.5], 3, 0.1)
    ref = reference(df, 30)
    fit = iaa_gate.dawid_skene(df, max_iter=30, tol=0.0)
    for worker in df.worker.unique():
        expected = sum(ref.priors_[c] * ref.errors_.loc[(worker, c), c] for c in ref.priors_.index)
        assert fit.accuracy[worker] == pytest.approx(expected, abs=1e-6)
    assert fit.accuracy["w0"] > fit.accuracy["w1"] > fit.accuracy["w2"]


def test_fit_predict_with_the_defaults_gives_crowd_kits_labels_after_as_many_steps() -> None:
    """The stopping rules differ (ours: the log-likelihood's relative change; crowd-kit's: the
    ELBO per answer's absolute change), so the same number of EM steps is compared."""
    df = answers(5, 300, [0.9, 0.7, 0.6, 0.6], 3, 0.2)
    fit = iaa_gate.dawid_skene(df)
    assert fit.converged and fit.iterations < 100
    expected = crowdkit.DawidSkene(n_iter=fit.iterations, tol=float("-inf")).fit_predict(df)
    assert {t: fit.labels[t] for t in expected.index} == expected.to_dict()


def test_aggregate_ds_on_a_toy_round() -> None:
    """crowd-kit's README shape: the worker who disagrees with two consistent ones is the one
    Dawid–Skene trusts least, and every shape of the same answers gives the same fit."""
    rows = [
        ("t1", "a", "x"), ("t1", "b", "x"), ("t1", "c", "y"),
        ("t2", "a", "y"), ("t2", "b", "y"), ("t2", "c", "y"),
        ("t3", "a", "x"), ("t3", "b", "x"), ("t3", "c", "x"),
        ("t4", "a", "y"), ("t4", "b", "y"), ("t4", "c", "x"),
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["task", "worker", "label"])
    records = [{"task": t, "annotator": w, "value": y} for t, w, y in rows]
    fits = [iaa_gate.dawid_skene(d) for d in (frame, records, rows)]
    assert fits[0] == fits[1] == fits[2]
    fit = fits[0]
    assert fit.labels == crowdkit.DawidSkene(n_iter=100).fit_predict(frame).to_dict()
    assert min(fit.accuracy, key=fit.accuracy.__getitem__) == "c"


def test_a_tie_proposes_no_label() -> None:
    """Two annotators who split evenly: no label is picked for the tasks they split on."""
    rows = [("t1", "a", 0), ("t1", "b", 1), ("t2", "a", 1), ("t2", "b", 0), ("t3", "a", 0)]
    rows += [("t3", "b", 0), ("t4", "a", 1), ("t4", "b", 1)]
    fit = iaa_gate.dawid_skene(rows)
    assert fit.labels == {"t1": None, "t2": None, "t3": 0, "t4": 1}
    assert list(fit.posteriors["t1"]) == [0, 1]  # integer labels stay integers


def test_order_names_a_label_nobody_gave() -> None:
    rows = [("t1", "a", "x"), ("t1", "b", "x"), ("t2", "a", "y"), ("t2", "b", "y")]
    fit = iaa_gate.dawid_skene(rows, order=["x", "y", "z"])
    assert list(fit.priors) == ["x", "y", "z"] and fit.priors["z"] == pytest.approx(0.0, abs=1e-9)
    assert list(fit.posteriors["t1"]) == ["x", "y", "z"]


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [({"max_iter": 0}, "max_iter"), ({"tol": -1.0}, "tol"), ({"tol": float("nan")}, "tol")],
)
def test_bad_arguments_are_usage_errors_naming_the_parameter(
    kwargs: dict[str, Any], parameter: str
) -> None:
    with pytest.raises(iaa_gate.UsageError, match=f"^{parameter}=") as caught:
        iaa_gate.dawid_skene([("t1", "a", "x")], **kwargs)
    assert caught.value.parameter == parameter
