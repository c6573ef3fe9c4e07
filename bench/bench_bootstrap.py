"""Benchmark ``alpha_bootstrap`` against the naive bootstrap loop, in one run.

Per size and level, the best wall time (``time.perf_counter``) of ``--repeats`` calls — the
minimum, as ``timeit`` advises, because other processes share the machine — of:

- one ``krippendorff_alpha``, for scale;
- ``alpha_bootstrap`` with ``--replicates`` replicates as it runs here (these data have at most
  252 rating patterns, so it draws multinomial counts over the patterns);
- ``alpha_bootstrap`` forced onto its per-unit path (``GROUP_RATIO`` = ∞, the path of data with
  many distinct patterns), and that path's weight draws alone (``rng.integers`` + ``np.bincount``
  per replicate: the RNG part);
- the naive loop: resample the rows with ``rng.integers(0, U, U)``, call ``krippendorff_alpha``
  on them. It is timed once on ``naive`` replicates (all of them at 10^4 units, 10^7 / units by
  default above) and extrapolated linearly to ``--replicates`` (the replicates are independent
  calls of the same cost). ``max abs(Δα_b)`` checks its replicates against ``alpha_replicates``
  on the same resampled rows.

Data: every unit has a true category in 0–4; each annotator gives it with probability 0.7, else a
uniformly random category; 20 % of the ratings are missing.

    PYTHONPATH=plugin .venv/bin/python bench/bench_bootstrap.py            # 10^4 and 10^5 units
    PYTHONPATH=plugin .venv/bin/python bench/bench_bootstrap.py --sizes 1e4 --repeats 1
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

import _data
from iaa_gate.metrics import bootstrap, krippendorff_alpha
from iaa_gate.metrics.bootstrap import _weight_blocks, alpha_bootstrap, alpha_replicates

LEVELS = ("nominal", "ordinal")
TOLERANCE = 1e-9


def ratings(units: int, seed: int = 0) -> npt.NDArray[np.float64]:
    """This benchmark's data: 5 annotators, 5 categories."""
    return _data.ratings(units, annotators=5, categories=5, seed=seed)


def best_time(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


@dataclass
class Row:
    units: int
    level: str
    alpha: float
    se: float
    one_alpha: float  # seconds
    bootstrap: float  # as it runs (over rating patterns here)
    per_unit: float  # forced onto the per-unit path
    draws: float  # the per-unit path's weight draws
    naive_timed: int  # naive replicates actually run
    naive: float  # seconds for `replicates`, extrapolated from naive_timed
    diff: float  # max |α_b naive − α_b ours| on the same resampled rows


def naive_loop(
    x: npt.NDArray[np.float64], level: str, replicates: int, seed: int
) -> tuple[float, npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Time the naive loop; return seconds, the counts of the drawn rows and the alphas."""
    rng = np.random.default_rng(seed)
    units = x.shape[0]
    counts = np.empty((replicates, units), dtype=np.int64)
    alphas = np.empty(replicates)
    gc.collect()
    t0 = time.perf_counter()
    for b in range(replicates):
        idx = rng.integers(0, units, units)
        alphas[b] = krippendorff_alpha(x[idx], level)
        counts[b] = np.bincount(idx, minlength=units)  # for the check only
    return time.perf_counter() - t0, counts, alphas


def run(sizes: list[int], replicates: int, repeats: int, naive_cells: int) -> list[Row]:
    rows = []
    for units in sizes:
        x = ratings(units)
        pairable = int(np.count_nonzero(np.count_nonzero(~np.isnan(x), axis=1) >= 2))
        for level in LEVELS:
            one = best_time(lambda: krippendorff_alpha(x, level), max(repeats, 5))  # noqa: B023
            boot = best_time(
                lambda: alpha_bootstrap(x, level, replicates=replicates),  # noqa: B023
                repeats,
            )
            grouping, bootstrap.GROUP_RATIO = bootstrap.GROUP_RATIO, 1 << 62
            try:
                per_unit = best_time(
                    lambda: alpha_bootstrap(x, level, replicates=replicates),  # noqa: B023
                    repeats,
                )
            finally:
                bootstrap.GROUP_RATIO = grouping

            def draw_all() -> int:
                rng = np.random.default_rng(0)
                return sum(1 for _ in _weight_blocks(rng, replicates, pairable))  # noqa: B023

            draws = best_time(draw_all, repeats)
            result = alpha_bootstrap(x, level, replicates=replicates)
            n_naive = max(1, min(replicates, naive_cells // units))
            seconds, counts, naive_alphas = naive_loop(x, level, n_naive, seed=1)
            ours = alpha_replicates(x, level, counts)
            row = Row(
                units, level, result.alpha, result.se, one, boot, per_unit, draws, n_naive,
                seconds * replicates / n_naive, float(np.max(np.abs(ours - naive_alphas))),
            )  # fmt: skip
            rows.append(row)
            print(
                f"{units:>9,} {level:<8} bootstrap {boot:.3f} s (per unit {per_unit:.3f} s), "
                f"naive {row.naive:.1f} s "
                f"({row.naive / boot:.0f}×)",
                file=sys.stderr,
            )
    return rows


def table(rows: list[Row], replicates: int) -> str:
    lines = [
        f"| units | level | α | bootstrap SE | one α (s) | bootstrap, {replicates} (s) "
        "| bootstrap / one α | per-unit path (s) | of which draws (s) | naive loop (s) "
        "| naive timed on | speed-up | speed-up, per-unit path | max abs(Δα_b) |",
        "|---:|:---|" + "---:|" * 12,
    ]
    for r in rows:
        lines.append(
            f"| {r.units:,} | {r.level} | {r.alpha:.4f} | {r.se:.4f} | {r.one_alpha:.4f} "
            f"| {r.bootstrap:.3f} | {r.bootstrap / r.one_alpha:.0f}× | {r.per_unit:.3f} "
            f"| {r.draws:.3f} | {r.naive:.1f} | {r.naive_timed:,} "
            f"| {r.naive / r.bootstrap:.0f}× | {r.naive / r.per_unit:.0f}× | {r.diff:.0e} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=lambda s: [int(float(v)) for v in s.split(",")],
        default=[10_000, 100_000],
        help="comma-separated unit counts, default 1e4,1e5",
    )
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per measure (best)")
    parser.add_argument(
        "--naive-cells",
        type=int,
        default=10_000_000,
        help="the naive loop runs min(replicates, naive_cells / units) replicates (extrapolated)",
    )
    args = parser.parse_args()
    rows = run(args.sizes, args.replicates, args.repeats, args.naive_cells)
    print(
        f"5 annotators, 5 categories, 20 % missing; {args.replicates} replicates; best of "
        f"{args.repeats}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the "
        f"end; Python {platform.python_version()}, numpy {np.__version__}\n"
    )
    print(table(rows, args.replicates))
    return 0 if all(r.diff <= TOLERANCE for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
