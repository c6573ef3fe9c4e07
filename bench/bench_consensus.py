"""Dawid–Skene consensus vs majority vote on simulated rounds with a known truth, and its speed
vs crowd-kit's ``DawidSkene`` in the same run.

Each scenario draws a true class per task, then each annotator's answer: the true class with
their accuracy, else a class drawn uniformly (or, for a "biased" annotator, always class 0).
Majority vote breaks ties at random (seeded), as a person picking one of the tied labels would;
Dawid–Skene takes its most probable class. Printed: accuracy against the truth of each, the
share of tasks each gets right where they differ, and the time of ``dawid_skene`` and of
crowd-kit's ``DawidSkene`` (median of ``--repeats`` calls, 100 EM steps at most, same data).

    PYTHONPATH=plugin .venv/bin/python bench/bench_consensus.py [--tasks 20000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from iaa_gate.metrics.dawid_skene import dawid_skene

SCENARIOS: dict[str, tuple[list[float], int, float, int]] = {
    # name: (accuracy per annotator, classes, share missing, biased annotators)
    "3 equal annotators (0.75)": ([0.75, 0.75, 0.75], 3, 0.0, 0),
    "1 expert (0.95) + 2 noisy (0.6)": ([0.95, 0.6, 0.6], 3, 0.0, 0),
    "5 annotators, 2 spammers (0.33)": ([0.85, 0.8, 0.75, 0.33, 0.33], 3, 0.0, 0),
    "5 annotators, 1 biased to class 0": ([0.85, 0.8, 0.75, 0.7, 0.0], 4, 0.0, 1),
    "7 annotators, 60% missing": ([0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4], 5, 0.6, 0),
    "3 annotators, 2 classes, noisy": ([0.7, 0.65, 0.6], 2, 0.0, 0),
}


def simulate(
    rng: np.random.Generator, tasks: int, acc: list[float], k: int, missing: float, biased: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    truth = rng.integers(0, k, tasks)
    a = np.asarray(acc)
    right = rng.random((tasks, a.size)) < a
    wrong = rng.integers(0, k, (tasks, a.size))
    if biased:
        wrong[:, -biased:] = 0
    codes = np.where(right, truth[:, None], wrong)
    codes[rng.random(codes.shape) < missing] = -1
    none = (codes < 0).all(axis=1)
    codes[none, 0] = truth[none]  # every task has an answer
    return truth, codes


def majority(rng: np.random.Generator, codes: np.ndarray[Any, Any], k: int) -> np.ndarray[Any, Any]:
    votes = np.stack([np.count_nonzero(codes == c, axis=1) for c in range(k)], axis=1)
    jitter = rng.random(votes.shape) * 0.5  # breaks ties only
    return np.argmax(votes + jitter, axis=1)


def timed(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        import pandas as pd
        from crowdkit.aggregation import DawidSkene
    except ImportError:  # the reference is a test-only dependency
        DawidSkene = None
    print(
        "| scenario | tasks | majority vote | Dawid–Skene | DS right where they differ "
        "| ours (s) | crowd-kit (s) | speed-up | max abs Δ posterior |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(args.seed)
    for name, (acc, k, missing, biased) in SCENARIOS.items():
        truth, codes = simulate(rng, args.tasks, acc, k, missing, biased)
        fit = dawid_skene(codes, k)
        mv = majority(rng, codes, k)
        differ = fit.best != mv
        right = (fit.best[differ] == truth[differ]).mean() if differ.any() else float("nan")
        ours = timed(lambda: dawid_skene(codes, k), args.repeats)  # noqa: B023
        ref_s, delta = "—", "—"
        speed = "—"
        if DawidSkene is not None:
            unit, ann = np.nonzero(codes >= 0)
            data = pd.DataFrame({"task": unit, "worker": ann, "label": codes[unit, ann]})
            ref_time = timed(lambda: DawidSkene(n_iter=100).fit(data), args.repeats)  # noqa: B023
            steps = dawid_skene(codes, k).iterations
            same = DawidSkene(n_iter=steps, tol=float("-inf")).fit(data)
            probas = same.probas_.reindex(index=range(len(codes)), columns=range(k)).to_numpy()
            delta = f"{np.abs(probas - fit.posteriors).max():.0e}"
            ref_s, speed = f"{ref_time:.3f}", f"{ref_time / ours:.0f}×"
        print(
            f"| {name} | {args.tasks:,} | {(mv == truth).mean():.4f} "
            f"| {(fit.best == truth).mean():.4f} | {right:.3f} of {int(differ.sum()):,} "
            f"| {ours:.3f} | {ref_s} | {speed} | {delta} |"
        )


if __name__ == "__main__":
    main()
