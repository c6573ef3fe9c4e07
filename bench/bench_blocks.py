"""Reading in blocks: how many lines (Prodigy) or tasks (Label Studio export) are read
column-wise at a time, against the time of reading the whole file in one process.

Each size is read by a fresh process (``ProdigyJSONL.load`` or ``LabelStudioExport.load``,
``workers=1``, the garbage collector off as the CLI has it), the sizes taking turns for
``--repeats`` rounds; the table gives the median wall time, CPU time (user + system) and minor
page faults of the read alone. The inputs are ``bench_run.py``'s (generated once into
``--workdir``).

    PYTHONPATH=plugin .venv/bin/python bench/bench_blocks.py --repeats 9

A block's decoded structs are what its columns are read from: when they outgrow the CPU's
cache, every pass over them goes to memory (bench/README, "2026-11-26 (2)").
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

from bench_run import input_parser, inputs

READ = """
import gc, json, resource, sys, time
from pathlib import Path
gc.disable()
kind, path, size = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
if kind == "prodigy":
    from iaa_gate.adapters.prodigy import source as module
    module.BLOCK = size
    reader = module.ProdigyJSONL(path)
else:
    from iaa_gate.adapters.label_studio import export as module
    module.BATCH = size
    reader = module.LabelStudioExport(path)
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
reader.load()
r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
print(json.dumps([t1 - t0, cpu, r1.ru_minflt - r0.ru_minflt]))
"""

PRODIGY_BLOCKS = [1 << 16, 1 << 18, 1 << 19, 1 << 20, 1 << 24]
"""Bytes a block (then up to the end of its line): 64 KiB … 16 MiB."""

EXPORT_BATCHES = [128, 512, 4096]
"""Tasks a batch."""


def main() -> int:
    args = input_parser(__doc__, repeats=5).parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    (export, _, _), (jsonl, _, _) = inputs(args.workdir, int(args.tasks)).values()
    cases = [("prodigy", jsonl, size) for size in PRODIGY_BLOCKS]
    cases += [("export", export, size) for size in EXPORT_BATCHES]
    runs: dict[tuple[str, Path, int], list[list[float]]] = {c: [] for c in cases}
    for _ in range(args.repeats):
        for kind, path, size in cases:
            cmd = [sys.executable, "-c", READ, kind, str(path), str(size)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            runs[kind, path, size].append(json.loads(out))
    print("| file | read at a time | wall (s) | CPU (s) | page faults |")
    print("|:---|---:|---:|---:|---:|")
    for (kind, path, size), got in runs.items():
        wall, cpu, faults = (statistics.median(x[i] for x in got) for i in range(3))
        at = f"{size >> 10} KiB" if kind == "prodigy" else f"{size:,} tasks"
        print(f"| {path.name} | {at} | {wall:.3f} | {cpu:.3f} | {faults:,.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
