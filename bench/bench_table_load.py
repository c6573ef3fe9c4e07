"""Loading a long-format table with pyarrow and with the core install's loaders (the ``csv``
module for CSV and TSV, msgspec for JSON Lines), one process per run, measured from outside.

Generates (once, in ``--workdir``) bench_run.py's CSV table of ``--rows`` rows (3 per task) and
the same rows as TSV and JSON Lines, then reads one with ``TableFile.load`` (both loaders give
the same dataset) and prints how many annotations it read. Run it under ``/usr/bin/time -v``
(user + sys CPU), alternating the loaders, as bench/README.md "Table loaders" does:

    PYTHONPATH=plugin /usr/bin/time -v .venv/bin/python bench/bench_table_load.py \\
        --rows 1e6 --format csv --loader core
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from bench_run import make_table


def inputs(work: Path, rows: int) -> dict[str, Path]:
    """The CSV table of ``rows`` rows, and the same rows as TSV and JSON Lines."""
    work.mkdir(parents=True, exist_ok=True)
    paths = {fmt: work / f"table-{rows}.{fmt}" for fmt in ("csv", "tsv", "jsonl")}
    if not paths["csv"].exists():
        make_table(paths["csv"], rows // 3)
    if not paths["tsv"].exists() or not paths["jsonl"].exists():
        with paths["csv"].open(newline="") as f:
            table = list(csv.reader(f))
        with paths["tsv"].open("w", newline="") as f:
            csv.writer(f, delimiter="\t").writerows(table)
        with paths["jsonl"].open("w") as f:
            header = table[0]
            f.writelines(json.dumps(dict(zip(header, r, strict=True))) + "\n" for r in table[1:])
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--format", choices=["csv", "tsv", "jsonl"], default="csv")
    parser.add_argument("--loader", choices=["arrow", "core"], default="core")
    parser.add_argument("--workdir", type=Path, default=Path(".cache/bench-table"))
    args = parser.parse_args()
    path = inputs(args.workdir, int(args.rows))[args.format]
    if args.loader == "core":  # as an install without the [table] extra reads it
        sys.modules["pyarrow"] = None  # type: ignore[assignment]
    from iaa_gate.adapters.table.config import TableSource
    from iaa_gate.adapters.table.source import TableFile

    dataset = TableFile(TableSource(type="table", path=path)).load()
    print(f"{path.name}: {len(dataset.annotations)} annotations, loader {args.loader}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
