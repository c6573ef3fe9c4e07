"""Nominal alpha with many distinct values (50–500 labels) against the ``krippendorff`` package.

With more than 16 values, :func:`iaa_gate.metrics.krippendorff_alpha` counts agreeing
annotator pairs (no per-unit value counts). The package builds units × V × V coincidence
tensors (several float64 arrays of that size), so it runs only where those fit: per label count
it is timed at the largest size whose predicted peak (3 · units · V² · 8 bytes) stays under
``--package-gb`` (default 4), and ours at that size (the speed-up) and at ``--units`` (default
10^6). ``AlphaAccumulator`` (update of the whole matrix, then result) is timed at ``--units``.

Data as ``bench_alpha.py``: 10 annotators, each gives the unit's true label with probability
0.7, else a uniform one; 20 % missing. Times are medians of ``--repeats`` calls.

    PYTHONPATH=plugin .venv/bin/python bench/bench_many_values.py
"""

from __future__ import annotations

import argparse
import platform
from importlib.metadata import version

import krippendorff
import numpy as np

from _data import ratings
from bench_alpha import median_time
from iaa_gate.metrics import AlphaAccumulator, krippendorff_alpha

LABELS = (50, 100, 500)
TARGET = 20.0  # speed-up over the package wherever it runs
TOLERANCE = 1e-9


def package_units(labels: int, gigabytes: float, cap: int) -> int:
    """Largest 1-2-5 size ≤ ``cap`` whose predicted package peak fits in ``gigabytes``."""
    fit = gigabytes * 1e9 / (3 * labels * labels * 8)
    sizes = [k * 10**e for e in range(2, 8) for k in (1, 2, 5) if k * 10**e <= min(fit, cap)]
    return max(sizes, default=100)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=float, default=1e6)
    parser.add_argument("--labels", default=",".join(map(str, LABELS)))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--package-gb", type=float, default=4.0)
    args = parser.parse_args()
    units = int(args.units)
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"krippendorff {version('krippendorff')}; median of {args.repeats}\n"
    )
    print(
        "| labels | package units | package (s) | ours there (s) | speed-up | abs(Δα) "
        f"| ours at {units:,} (s) | accumulator at {units:,} (s) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    ok = True
    for labels in map(int, args.labels.split(",")):
        n_pkg = package_units(labels, args.package_gb, units)
        small = ratings(n_pkg, categories=labels)
        t_pkg, a_pkg = median_time(
            lambda s=small: krippendorff.alpha(s.T, level_of_measurement="nominal"), args.repeats
        )
        t_small, a_small = median_time(lambda s=small: krippendorff_alpha(s), args.repeats)
        big = ratings(units, categories=labels)
        t_big, a_big = median_time(lambda b=big: krippendorff_alpha(b), args.repeats)
        t_acc, a_acc = median_time(
            lambda b=big: AlphaAccumulator().update(b).result().alpha, args.repeats
        )
        diff = abs(a_small - a_pkg)
        ok &= t_pkg / t_small >= TARGET and diff <= TOLERANCE and abs(a_acc - a_big) <= 1e-12
        print(
            f"| {labels} | {n_pkg:,} | {t_pkg:.3f} | {t_small:.4f} | {t_pkg / t_small:.0f}× "
            f"| {diff:.0e} | {t_big:.3f} | {t_acc:.2f} |",
            flush=True,
        )
    print(f"\ntarget ≥ {TARGET:.0f}× and abs(Δα) ≤ {TOLERANCE:g}: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
