"""Krippendorff's alpha and per-category agreement over a partitioned Parquet dataset, with Dask.

The dataset holds ratings in long format, one row per rating: ``unit``, ``annotator``, ``value``
(a null value is a missing rating). One unit's ratings may sit in different partitions (each
annotator's batch in its own file, say): they are first shuffled so that each unit is whole in
one partition; each partition then becomes an ``(units, ratings)`` block for an
:class:`iaa_gate.metrics.AlphaAccumulator`, and the accumulators are merged in a tree. The sums
are exact integers, so the result is bit for bit the single-machine one.

    pip install "iaa-gate[dask]"
    python examples/dask/agreement.py ratings/ --generate 100000    # write a test dataset first
    python examples/dask/agreement.py ratings/ --level ordinal --check

Runs on a local ``distributed`` cluster (2 workers, loopback only, no dashboard).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from iaa_gate.metrics import AccumulatedAgreement, AlphaAccumulator

COLUMNS = ["unit", "annotator", "value"]


def generate(path: Path, units: int, annotators: int = 5, labels: int = 4, seed: int = 0) -> None:
    """Write a test dataset: one Parquet file per annotator (so every unit spans partitions),
    each annotator rating 80 % of the units; a unit's true label is given with probability 0.7."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(labels, size=units)
    path.mkdir(parents=True, exist_ok=True)
    for a in range(annotators):
        rated = np.flatnonzero(rng.random(units) < 0.8)
        noise = rng.integers(labels, size=len(rated))
        value = np.where(rng.random(len(rated)) < 0.7, truth[rated], noise)
        frame = pd.DataFrame(
            {"unit": rated, "annotator": f"a{a}", "value": [f"L{v}" for v in value]}
        )
        frame.to_parquet(path / f"annotator-{a}.parquet", index=False)


def block(frame: pd.DataFrame) -> np.ndarray:
    """Ratings ``(units, most ratings of a unit)`` of whole units, ``None`` padding; refuses a
    unit rated twice by one annotator (which rating counts is not ours to guess)."""
    frame = frame.dropna(subset=["value"])
    twice = frame.duplicated(["unit", "annotator"])
    if twice.any():
        unit, annotator = frame.loc[twice, ["unit", "annotator"]].iloc[0]
        raise ValueError(f"unit {unit} has two ratings by annotator {annotator}: keep one")
    frame = frame.sort_values("unit", kind="stable")
    units, start, size = np.unique(frame["unit"].to_numpy(), return_index=True, return_counts=True)
    row = np.repeat(np.arange(len(units)), size)
    col = np.arange(len(frame)) - np.repeat(start, size)
    out = np.full((len(units), int(size.max(initial=0))), None, dtype=object)
    out[row, col] = frame["value"].to_numpy(dtype=object)
    return out


def _accumulate(frame: pd.DataFrame) -> AlphaAccumulator:
    return AlphaAccumulator().update(block(frame))


def _merge(a: AlphaAccumulator, b: AlphaAccumulator) -> AlphaAccumulator:
    return a.merge(b)


def dask_agreement(path: Path, level: str = "nominal") -> AccumulatedAgreement:
    """Alpha and per-category rates of the dataset at ``path``, computed on the current Dask
    client (or scheduler): partitions → whole units → accumulators → tree of merges."""
    import dask
    import dask.dataframe as dd

    ratings = dd.read_parquet(str(path), columns=COLUMNS)
    whole_units = ratings.shuffle(on="unit", npartitions=ratings.npartitions)
    parts = [dask.delayed(_accumulate)(p) for p in whole_units.to_delayed()]
    while len(parts) > 1:  # pairwise tree: depth log2(partitions)
        pairs = [dask.delayed(_merge)(a, b) for a, b in zip(parts[::2], parts[1::2], strict=False)]
        parts = pairs + parts[len(pairs) * 2 :]
    acc: AlphaAccumulator = parts[0].compute() if parts else AlphaAccumulator()
    return acc.result(level)


def local_agreement(path: Path, level: str = "nominal") -> AccumulatedAgreement:
    """The same on one machine: the whole dataset read with pandas, one block."""
    return AlphaAccumulator().update(block(pd.read_parquet(path, columns=COLUMNS))).result(level)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "dataset", type=Path, help="folder of Parquet files (unit, annotator, value)"
    )
    parser.add_argument("--level", default="nominal", help="nominal, ordinal, interval, ratio")
    parser.add_argument("--generate", type=int, metavar="UNITS", help="first write a test dataset")
    parser.add_argument("--threads", action="store_true", help="thread workers, not processes")
    parser.add_argument("--check", action="store_true", help="compare with one machine")
    args = parser.parse_args(argv)
    if args.generate:
        generate(args.dataset, args.generate)
    from distributed import Client, LocalCluster

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)  # per-shuffle notices
    where = {} if args.threads else {"host": "127.0.0.1"}  # threads talk in-process
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=not args.threads,
            dashboard_address=None,
            **where,
        ) as cluster,
        Client(cluster),
    ):
        res = dask_agreement(args.dataset, args.level)
    _print(res, args.level)
    if args.check:
        same = _same(res, local_agreement(args.dataset, args.level))
        print("equal to the single-machine result:", "yes" if same else "NO")
        return 0 if same else 1
    return 0


def _print(res: AccumulatedAgreement, level: str) -> None:
    print(f"units: {res.units}, pairable: {res.pairable_units}")
    print(f"Krippendorff's alpha ({level}): {res.alpha!r}")
    for value, rate in res.categories.items():
        print(f"  {value}: agreement {rate:.4f}, specific agreement {res.specific[value]:.4f}")


def _same(a: AccumulatedAgreement, b: AccumulatedAgreement) -> bool:
    """Bit-equal results (an undefined value equals an undefined one)."""

    def key(x: Any) -> Any:
        return "undefined" if isinstance(x, float) and x != x else x

    return (
        key(a.alpha) == key(b.alpha)
        and {k: key(v) for k, v in a.categories.items()}
        == {k: key(v) for k, v in b.categories.items()}
        and {k: key(v) for k, v in a.specific.items()} == {k: key(v) for k, v in b.specific.items()}
        and np.array_equal(a.coincidence, b.coincidence)
        and a.units == b.units
    )


if __name__ == "__main__":
    sys.exit(main())
