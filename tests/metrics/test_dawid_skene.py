"""Dawid–Skene against crowd-kit's ``DawidSkene`` (the reference), on simulated rounds and on the
bundled examples, and what the consensus and the review order mean to a lead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from iaa_gate.config import load_config
from iaa_gate.core.errors import UsageError
from iaa_gate.evaluation import consensus
from iaa_gate.evaluation.matrix import ratings_matrix
from iaa_gate.evaluation.results import UnitResult
from iaa_gate.metrics import Coded
from iaa_gate.metrics.dawid_skene import dawid_skene
from iaa_gate.pipeline import evaluate, make_source

crowdkit = pytest.importorskip("crowdkit.aggregation")
ROOT = Path(__file__).resolve().parents[2]


def simulate(
    seed: int, units: int, accuracy: list[float], k: int, missing: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Known truth ``(units,)`` and codes ``(units, annotators)``: annotator ``a`` gives the true
    class with probability ``accuracy[a]``, else a uniformly drawn one; ``missing`` share left
    out."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, units)
    acc = np.asarray(accuracy)
    right = rng.random((units, acc.size)) < acc
    codes = np.where(right, truth[:, None], rng.integers(0, k, (units, acc.size)))
    codes[rng.random(codes.shape) < missing] = -1
    return truth, codes


def reference(codes: np.ndarray, k: int, n_iter: int) -> Any:
    """crowd-kit's DawidSkene, run exactly ``n_iter`` EM steps."""
    unit, ann = np.nonzero(codes >= 0)
    data = pd.DataFrame({"task": unit, "worker": ann, "label": codes[unit, ann]})
    return crowdkit.DawidSkene(n_iter=n_iter, tol=float("-inf")).fit(data)


def compare(codes: np.ndarray, k: int, n_iter: int) -> None:
    ours = dawid_skene(codes, k, max_iter=n_iter, tol=0.0)
    ref = reference(codes, k, n_iter)
    rated = np.flatnonzero((codes >= 0).any(axis=1))
    probas = ref.probas_.reindex(index=rated, columns=range(k), fill_value=0.0).to_numpy()
    np.testing.assert_allclose(ours.posteriors[rated], probas, atol=1e-9)
    np.testing.assert_allclose(ours.priors, ref.priors_.reindex(range(k)).to_numpy(), atol=1e-9)
    errors = ref.errors_  # (worker, given) × true
    # a true class a worker never met (no posterior mass on the units they rated) has no
    # estimate: uniform over every class here, over the classes the worker gave in crowd-kit
    met = np.stack([ours.posteriors[(codes[:, w] >= 0)].sum(axis=0) for w in range(codes.shape[1])])
    for (worker, given), row in errors.iterrows():
        seen = met[worker] > 1e-9
        np.testing.assert_allclose(
            ours.confusion[worker, seen, given], row.reindex(range(k)).to_numpy()[seen], atol=1e-6
        )


@pytest.mark.parametrize("n_iter", [1, 3, 20])
@pytest.mark.parametrize(("seed", "k", "missing"), [(0, 2, 0.0), (1, 3, 0.3), (2, 5, 0.5)])
def test_matches_crowd_kit_on_simulated_rounds(
    seed: int, k: int, missing: float, n_iter: int
) -> None:
    _, codes = simulate(seed, 300, [0.9, 0.8, 0.7, 0.55, 0.4], k, missing)
    compare(codes, k, n_iter)


def test_matches_crowd_kit_on_the_bundled_example() -> None:
    """The Label Studio example's sentiment (4 annotators, 250 tasks): the run's consensus is
    crowd-kit's label, with its probability, after the same number of EM steps."""
    cfg = load_config(ROOT / "examples" / "label-studio" / "iaa-gate.yaml")
    dataset = make_source(cfg).load()
    result = evaluate(cfg, dataset).results["sentiment"]
    assert result.skill is not None and result.skill.converged
    matrix = ratings_matrix(dataset, "sentiment", labels=cfg.fields["sentiment"].labels)
    k = matrix.coded.n_values
    compare(matrix.coded.codes, k, result.skill.iterations)
    ref = reference(matrix.coded.codes, k, result.skill.iterations)
    row = {t: i for i, t in enumerate(matrix.unit_ids)}
    values = matrix.coded.values.tolist()
    checked = 0
    for u in result.units:
        if u.consensus is None:
            continue
        probas = ref.probas_.loc[row[u.id]]
        assert u.consensus.value == values[int(probas.idxmax())]
        assert u.consensus.posterior == pytest.approx(float(probas.max()), abs=1e-6)
        checked += 1
    assert checked == len(result.units) > 200
    # the annotator the agreement check flags is the one Dawid–Skene rates least accurate
    outlier = next(a.id for a in result.annotators if a.outlier)
    assert min(result.skill.annotators, key=lambda a: a.accuracy).id == outlier


def test_beats_majority_vote_on_simulated_rounds() -> None:
    """One reliable annotator among four noisy ones: Dawid–Skene learns whom to trust."""
    for seed in range(5):
        truth, codes = simulate(seed, 2000, [0.95, 0.55, 0.5, 0.45, 0.5], 3)
        fit = dawid_skene(codes, 3)
        votes = np.stack([np.count_nonzero(codes == c, axis=1) for c in range(3)], axis=1)
        majority = np.argmax(votes, axis=1)
        # seeds 0–4: 0.971 vs 0.926, 0.976 vs 0.910, 0.967 vs 0.924, 0.981 vs 0.916, 0.974 vs 0.912
        assert (fit.best == truth).mean() > (majority == truth).mean() + 0.04


def _units(n: int) -> list[UnitResult]:
    return [UnitResult(i, "disputed", 1 / 3, {}) for i in range(n)]


def test_an_outvoted_reliable_annotator_ranks_first() -> None:
    """Two 2-to-1 splits: where the reliable annotator is in the majority, the answer is settled
    (low priority); where the two noisy ones outvote them, a person should look first."""
    _, codes = simulate(3, 400, [0.97, 0.6, 0.6], 2)
    codes = np.vstack([codes, [[0, 0, 1], [0, 1, 1]]])
    units = _units(len(codes))
    coded = Coded(codes, np.array(["A", "B"], dtype=object))
    ids = ["reliable", "noisy1", "noisy2"]
    skill = consensus.nominal(coded, units, list(range(len(codes))), ids, ids, str)
    with_reliable, outvoted = units[-2], units[-1]
    assert with_reliable.consensus is not None and outvoted.consensus is not None
    assert with_reliable.consensus.value == "A" and outvoted.consensus.value == "A"
    assert outvoted.priority is not None and with_reliable.priority is not None
    assert outvoted.priority > with_reliable.priority + 0.05
    accuracy = {a.id: a.accuracy for a in skill.annotators}
    # the noisy ones' 0.6 + 0.4 of chance on two classes: about 0.8
    assert accuracy["reliable"] > accuracy["noisy1"] + 0.1


def test_an_even_split_is_a_tie_never_broken_silently() -> None:
    codes = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    fit = dawid_skene(codes, 2)
    assert fit.tie.tolist() == [True, True, False, False]
    units = _units(4)
    consensus.nominal(
        Coded(codes, np.array(["A", "B"], dtype=object)),
        units,
        [0, 1, 2, 3],
        ["a", "b"],
        ["a", "b"],
        str,
    )
    assert [u.consensus.tie for u in units if u.consensus] == [True, True, False, False]
    assert units[0].priority == pytest.approx(0.5)


def test_shapes_and_missing_units() -> None:
    codes = np.array([[0, -1, 1], [-1, -1, -1], [2, 2, -1]])
    fit = dawid_skene(codes, 3)
    assert fit.posteriors.shape == (3, 3) and fit.confusion.shape == (3, 3, 3)
    np.testing.assert_allclose(fit.confusion.sum(axis=2), 1.0)
    np.testing.assert_allclose(fit.posteriors[1], fit.priors)  # nobody rated it
    with pytest.raises(UsageError, match="codes must lie in"):
        dawid_skene([[3]], 2)


def test_past_max_classes_the_majority_vote_proposes() -> None:
    """A field of more than MAX_CLASSES labels gets the majority vote (no unit × class table)."""
    values = np.array([f"L{i}" for i in range(consensus.MAX_CLASSES + 10)], dtype=object)
    codes = np.array([[0, 0, 1], [2, 3, 4], [5, 5, -1], [7, 8, -1], [-1, -1, -1]])
    units = _units(5)
    consensus.majority(Coded(codes, values), units, [0, 1, 2, 3, 4], str)
    got = [(u.consensus.value, u.consensus.posterior, u.consensus.tie) for u in units[:4]]
    assert got == [
        ("L0", pytest.approx(2 / 3), False),
        ("L2", pytest.approx(1 / 3), True),  # a three-way split: a tie, never settled
        ("L5", 1.0, False),
        ("L7", 0.5, True),
    ]
    assert all(u.consensus.method == "majority" for u in units[:4])
    assert units[4].consensus is None and units[1].priority == pytest.approx(2 / 3)


@pytest.mark.parametrize("name", ["raw_4raters", "raw_5observers"])
@pytest.mark.parametrize("n_iter", [1, 5, 50])
def test_matches_crowd_kit_on_gwets_published_ratings(name: str, n_iter: int) -> None:
    """Real ratings from Gwet's handbook as irrCAC ships them (12 units × 4 raters, 15 units ×
    5 observers, with missing ratings): the fit is crowd-kit's step for step."""
    datasets = pytest.importorskip("irrCAC.datasets")
    table = getattr(datasets, name)().to_numpy(dtype=float)
    values = np.unique(table[~np.isnan(table)])
    codes = np.where(np.isnan(table), -1, np.searchsorted(values, np.nan_to_num(table)))
    compare(codes.astype(np.int64), len(values), n_iter)
