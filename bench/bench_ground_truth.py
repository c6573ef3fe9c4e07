"""Ground truth with a gold annotator on every task, against the same run without ground truth.

    PYTHONPATH=plugin .venv/bin/python bench/bench_ground_truth.py                 # 100,000 tasks
    PYTHONPATH=plugin .venv/bin/python bench/bench_ground_truth.py --tree DIR      # and DIR's

Data: ``bench_run.py``'s Label Studio export (3 of 10 annotators per task, a 5-label choices
field), plus on every task a fourth annotation by the gold annotator ``99``. With ground truth
the config says ``ground_truth: {annotator: "99", tasks: ["1-N"]}`` and
``include_ground_truth: false`` (the gold answers are compared with, not rated); without it,
the same file and config without those lines, so ``99`` is one more rater. Each tree runs both
configs once per round, rounds alternated, under ``/usr/bin/time``: CPU (user + system) and
peak RSS; the figure is the median ratio of the pairs' CPU (issue 31's goal: ≤ 1.25×).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _proc import CLI, compiled
from bench_run import LABELS, _round

ROOT = Path(__file__).resolve().parent.parent


def make_export(path: Path, tasks: int) -> None:
    """``bench_run``'s export with a gold annotation (annotator 99) on every task."""

    def answer(k: int, who: int, label: str, t: int) -> dict[str, object]:
        result = {"value": {"choices": [label]}, "from_name": "label", "to_name": "text"}
        created = f"2026-10-{1 + k:02d}T10:{t % 60:02d}:00.000000Z"
        return {
            "id": t * 10 + k,
            "completed_by": who,
            "result": [{**result, "type": "choices"}],
            "was_cancelled": False,
            "created_at": created,
        }

    with path.open("w") as f:
        f.write("[")
        for t, who, draw in _round(0, tasks):
            anns = [answer(k, a + 1, draw(), t) for k, a in enumerate(who)]
            anns.append(answer(9, 99, draw(), t))
            task = {"id": t, "annotations": anns, "data": {"text": f"review {t}"}}
            f.write(("," if t > 1 else "") + json.dumps(task, separators=(",", ":")))
        f.write("]")


def run(tree: Path, config: Path) -> tuple[float, float]:
    """CPU seconds (user + system) and peak RSS (MiB) of one ``iaa-gate run``."""
    cmd = [sys.executable, "-c", CLI, "run", "-c", str(config), "-q"]
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%U %S %M", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tree / "plugin")},
        check=False,
    )
    if out.returncode not in (0, 1):
        raise RuntimeError(out.stderr[-2000:])
    user, system, peak = out.stderr.split()[-3:]
    return float(user) + float(system), int(peak) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=float, default=1e5)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tree", type=Path, action="append", default=[])
    args = ap.parse_args()
    tasks, trees = int(args.tasks), [ROOT, *args.tree]
    for tree in trees:
        compiled(tree / "plugin")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        export = work / "export.json"
        make_export(export, tasks)
        base = (
            f"version: 1\nsource: {{type: label-studio-export, path: {export}, "
            f"include_ground_truth: false}}\nfields: {{label: {{labels: [{', '.join(LABELS)}]}}}}\n"
        )
        configs = {}
        for name, extra in (
            ("without", ""),
            ("with", f'ground_truth: {{annotator: "99", tasks: ["1-{tasks}"]}}\n'),
        ):
            configs[name] = work / f"{name}.yaml"
            report = f"report: {{dir: {work / name}, formats: [json]}}\n"
            configs[name].write_text(base + extra + report)
        runs: dict[tuple[int, str], list[tuple[float, float]]] = {}
        loads = [os.getloadavg()[0]]
        for _ in range(args.repeats):
            for k, tree in enumerate(trees):
                for name, config in configs.items():
                    runs.setdefault((k, name), []).append(run(tree, config))
            loads.append(os.getloadavg()[0])
    print(f"{tasks:,} tasks; load average (1 min) {min(loads):.1f}–{max(loads):.1f}\n")
    print(
        "| tree | without ground truth, CPU (s) | with, CPU (s) | ratio of pairs, median "
        "(min–max) | peak RSS without / with (MiB) |"
    )
    print("|---|---:|---:|---:|---:|")
    for k, tree in enumerate(trees):
        plain, gold = runs[k, "without"], runs[k, "with"]
        ratios = [g[0] / p[0] for p, g in zip(plain, gold, strict=True)]
        print(
            f"| {'this tree' if k == 0 else tree} | {statistics.median(p[0] for p in plain):.2f} | "
            f"{statistics.median(g[0] for g in gold):.2f} | {statistics.median(ratios):.2f}× "
            f"({min(ratios):.2f}–{max(ratios):.2f}) | {max(p[1] for p in plain):,.0f} / "
            f"{max(g[1] for g in gold):,.0f} |"
        )


if __name__ == "__main__":
    main()
