"""How alpha's time and memory grow with units, annotators and labels, up to 10^8 ratings.

Three sweeps from a base of 10^6 units × 10 annotators × 5 labels (nominal, 20 % missing, data
as ``bench_alpha.py``): units 10^5 → 10^7, annotators 3 → 100, labels 2 → 1,000; the largest
point of the first two holds 10^8 ratings (an 800 MB float64 input). Per point:
``krippendorff_alpha`` (median wall of ``--repeats`` calls, ``tracemalloc`` peak of one more
call, input excluded) and ``AlphaAccumulator().update(x).result()`` (one call: it is the
per-block cost of the distributed path). ``ns/rating`` is time over ratings given.

    PYTHONPATH=plugin .venv/bin/python bench/bench_growth.py [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np

from _data import ratings
from bench_alpha import median_time, peak_bytes
from iaa_gate.metrics import AlphaAccumulator, krippendorff_alpha

BASE = {"units": 10**6, "annotators": 10, "labels": 5}
SWEEPS = {
    "units": [10**5, 10**6, 10**7],
    "annotators": [3, 10, 30, 100],
    "labels": [2, 16, 17, 100, 1000],
}


def point(units: int, annotators: int, labels: int, repeats: int) -> str:
    x = ratings(units, annotators, categories=labels)
    given = int(x.size - np.isnan(x).sum())
    t, _ = median_time(lambda: krippendorff_alpha(x), repeats)
    peak = peak_bytes(lambda: krippendorff_alpha(x))
    gc.collect()
    t0 = time.perf_counter()
    acc = AlphaAccumulator().update(x)
    acc.result()
    t_acc = time.perf_counter() - t0
    table_mb = sum(m.nbytes for m in acc.pairs.values()) / 1e6
    return (
        f"| {units:,} | {annotators} | {labels} | {given / 1e6:.1f} M | {t:.3f} "
        f"| {t / given * 1e9:.1f} | {peak / 1e6:.0f} | {t_acc:.2f} | {table_mb:.2f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="stop each sweep below 10^8 ratings")
    args = parser.parse_args()
    print(
        "| units | annotators | labels | ratings | alpha (s) | ns/rating | alpha peak (MB) "
        "| accumulator (s) | accumulator tables (MB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for axis, values in SWEEPS.items():
        for v in values:
            size = {**BASE, axis: v}
            if args.quick and size["units"] * size["annotators"] >= 10**8:
                continue
            print(
                point(size["units"], size["annotators"], size["labels"], args.repeats), flush=True
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
