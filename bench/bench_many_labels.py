"""Many labels (issue 17): a field with 10,000 distinct labels over 100,000 tasks, 3 annotators.

Generates (once, in ``--workdir``) a Label Studio export of that shape, then times, as whole
processes interleaved for ``--repeats`` rounds:

- ``iaa-gate run`` with every report format (the default 1,000 bootstrap replicates);
- the plain script a user would write: ``json.load``, a ``(units, annotators)`` array,
  ``krippendorff.alpha`` (alpha only; no per-label agreement, kappa or report).

``--tree DIR`` adds ``iaa-gate run`` from another checkout's ``plugin/`` (e.g. the tree before a
change). Before this change the run stopped with ``MemoryError: Unable to allocate 7.45 GiB``.

    PYTHONPATH=plugin .venv/bin/python bench/bench_many_labels.py [--repeats 3] [--tree DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from _proc import CLI, Proc, measure

PLAIN = """
import json, sys
import numpy as np, krippendorff
tasks = json.load(open(sys.argv[1]))
who, codes, rows = {}, {}, []
for t in tasks:
    row = {}
    for a in t["annotations"]:
        label = a["result"][0]["value"]["choices"][0]
        row[who.setdefault(a["completed_by"], len(who))] = codes.setdefault(label, len(codes))
    rows.append(row)
x = np.full((len(who), len(rows)), np.nan)
for u, row in enumerate(rows):
    for a, c in row.items():
        x[a, u] = c
print(krippendorff.alpha(x, level_of_measurement="nominal"))
"""


def generate(work: Path, tasks: int, labels: int) -> tuple[Path, Path]:
    export, config = work / f"many-{tasks}-{labels}.json", work / "many.yaml"
    if not export.exists():
        rng = random.Random(0)
        out = []
        for t in range(tasks):
            truth = rng.randrange(labels)
            anns = []
            for a in range(3):
                lab = truth if rng.random() < 0.8 else rng.randrange(labels)
                value = {"choices": [f"L{lab}"]}
                result = [
                    {
                        "id": "r",
                        "from_name": "label",
                        "to_name": "text",
                        "type": "choices",
                        "value": value,
                    }
                ]
                anns.append(
                    {
                        "id": t * 3 + a,
                        "completed_by": a + 1,
                        "result": result,
                        "was_cancelled": False,
                        "created_at": "2026-11-02T10:00:00Z",
                    }
                )
            out.append({"id": t + 1, "data": {"text": "x"}, "annotations": anns})
        export.write_text(json.dumps(out))
    config.write_text(
        f"version: 1\nsource: {{type: label-studio-export, path: {export}}}\n"
        f"fields: {{label: {{}}}}\n"
        f"report: {{dir: {work / 'out'}, formats: [json, markdown, html, junit]}}\n"
    )
    return export, config


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--labels", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tree", type=Path, action="append", default=[])
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "iaa-bench")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    export, config = generate(args.workdir, args.tasks, args.labels)
    py = sys.executable
    cmds = {"iaa-gate run (this tree)": ([py, "-c", CLI, "run", "-c", str(config), "-q"], None)}
    for tree in args.tree:
        env = {"PYTHONPATH": str(tree / "plugin")}
        cmds[f"iaa-gate run ({tree})"] = ([py, "-c", CLI, "run", "-c", str(config), "-q"], env)
    cmds["plain script (krippendorff.alpha)"] = ([py, "-c", PLAIN, str(export)], None)
    runs: dict[str, list[Proc]] = {k: [] for k in cmds}
    for _ in range(args.repeats):
        for name, (cmd, env) in cmds.items():
            try:
                runs[name].append(measure(cmd, 1, env))
            except Exception as exc:  # e.g. the MemoryError this benchmark is about
                print(f"{name}: failed: {str(exc).strip().splitlines()[-1][:200]}")
    print(f"{args.tasks:,} tasks × 3 annotators, {args.labels:,} labels, medians of {args.repeats}")
    print("| command | wall (s) | peak RSS (MiB) |\n|:---|---:|---:|")
    for name, procs in runs.items():
        if procs:
            walls = sorted(p.wall for p in procs)
            rss = sorted(p.rss for p in procs)
            print(f"| {name} | {walls[len(walls) // 2]:.2f} | {rss[len(rss) // 2]:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
