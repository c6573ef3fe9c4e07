"""Benchmark iaa_gate's Krippendorff alpha against the ``krippendorff`` package, in one run.

Both get the same float64 ratings (NaN = missing): ours ``(units, annotators)``, the package
its transpose ``(annotators, units)`` (a view, no copy). Per size and level it reports the
median wall time over ``--repeats`` calls (``time.perf_counter``), the peak memory of one more
call traced by ``tracemalloc`` (started after the input is built; numpy reports its buffers to
it), the speed-up and memory ratio, |α_ours − α_package| and the distance from the floor: our
time over the median time of ``x.sum()``, one plain pass over the input.

Data: every unit has a true category in 0–9; each annotator gives it with probability 0.7, else
a uniformly random category; 20 % of the ratings are missing.

    PYTHONPATH=plugin .venv/bin/python bench/bench_alpha.py            # 10^4, 10^5, 10^6 units
    PYTHONPATH=plugin .venv/bin/python bench/bench_alpha.py --quick    # 10^4, 10^5 units

At 10^6 units the package needs ~2.5 GB and 3–10 s per call (a full run takes ~3 minutes).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version

import krippendorff
import numpy as np
import numpy.typing as npt

from _data import ratings
from iaa_gate.metrics import krippendorff_alpha

LEVELS = ("nominal", "ordinal", "interval", "ratio")
TOLERANCE = 1e-9
# at the largest size: minimum speed-up over the package, maximum share of its peak memory
TARGETS = {"nominal": 15.0, "ordinal": 10.0, "interval": 15.0, "ratio": 10.0}
MEMORY_SHARE = 1 / 20


def median_time(fn: Callable[[], float], repeats: int) -> tuple[float, float]:
    """Median wall time of ``repeats`` calls and the last result."""
    times, result = [], float("nan")
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        result = float(fn())
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def peak_bytes(fn: Callable[[], float]) -> int:
    """Peak memory traced by ``tracemalloc`` during one call (inputs built before are not seen)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@dataclass
class Row:
    units: int
    level: str
    alpha: float
    ours: float  # seconds, median
    package: float
    ours_peak: int  # bytes
    package_peak: int
    diff: float  # |α_ours − α_package|
    floor: float  # seconds of x.sum()

    @property
    def speedup(self) -> float:
        return self.package / self.ours

    @property
    def memory_ratio(self) -> float:
        return self.package_peak / max(self.ours_peak, 1)

    @property
    def met(self) -> bool:
        return (
            self.speedup >= TARGETS[self.level]
            and self.memory_ratio >= 1 / MEMORY_SHARE
            and self.diff <= TOLERANCE
        )


def compare(x: npt.NDArray[np.float64], level: str, repeats: int, floor: float) -> Row:
    """Time and trace both implementations on the same ``(units, annotators)`` array."""

    def ours() -> float:
        return float(krippendorff_alpha(x, level))

    def package() -> float:
        return float(krippendorff.alpha(x.T, level_of_measurement=level))  # type: ignore[arg-type]

    t_ours, a_ours = median_time(ours, repeats)
    t_pkg, a_pkg = median_time(package, repeats)
    return Row(
        x.shape[0], level, a_ours, t_ours, t_pkg, peak_bytes(ours), peak_bytes(package),
        abs(a_ours - a_pkg), floor,
    )  # fmt: skip


def run(sizes: list[int], repeats: int, annotators: int) -> list[Row]:
    rows = []
    for units in sizes:
        x = ratings(units, annotators)
        floor, _ = median_time(x.sum, max(repeats, 5))
        for level in LEVELS:
            r = compare(x, level, repeats, floor)
            rows.append(r)
            print(
                f"{units:>9,} {level:<8} ours {r.ours:.3f} s, package {r.package:.3f} s "
                f"({r.speedup:.1f}×)",
                file=sys.stderr,
            )
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| units | level | α | ours (s) | package (s) | speed-up | ours peak (MB) "
        "| package peak (MB) | memory ratio | abs(Δα) | x.sum() (ms) | ours / floor |",
        "|---:|:---|" + "---:|" * 10,
    ]
    for r in rows:
        lines.append(
            f"| {r.units:,} | {r.level} | {r.alpha:.6f} | {r.ours:.3f} | {r.package:.3f} "
            f"| {r.speedup:.1f}× | {r.ours_peak / 1e6:.1f} | {r.package_peak / 1e6:.1f} "
            f"| 1/{r.memory_ratio:.0f} | {r.diff:.0e} | {r.floor * 1e3:.1f} "
            f"| {r.ours / r.floor:.0f}× |"
        )
    return "\n".join(lines)


def verdicts(rows: list[Row]) -> list[str]:
    """One line per level at the largest size: speed-up, memory and value targets."""
    largest = max(r.units for r in rows)
    return [
        f"- {r.level} at {r.units:,} units: {r.speedup:.1f}× (target ≥ {TARGETS[r.level]:.0f}×), "
        f"memory 1/{r.memory_ratio:.0f} (target ≤ 1/{1 / MEMORY_SHARE:.0f}), "
        f"abs(Δα) {r.diff:.0e} → {'met' if r.met else 'NOT met'}"
        for r in rows
        if r.units == largest
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=lambda s: [int(float(v)) for v in s.split(",")],
        default=[10_000, 100_000, 1_000_000],
        help="comma-separated unit counts (1e6 works), default 1e4,1e5,1e6",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per measure (median)")
    parser.add_argument("--annotators", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="sizes 1e4,1e5 only")
    args = parser.parse_args()
    sizes = [10_000, 100_000] if args.quick else args.sizes
    rows = run(sizes, args.repeats, args.annotators)
    print(
        f"{args.annotators} annotators, 10 categories, 20 % missing; median of {args.repeats}; "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, numpy {np.__version__}, "
        f"krippendorff {version('krippendorff')}\n"
    )
    print(table(rows))
    print()
    print("\n".join(verdicts(rows)))
    return 0 if all(r.diff <= TOLERANCE for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
