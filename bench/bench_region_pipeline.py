"""A whole region run, export file to every report, beside the plain script a user would write.

    PYTHONPATH=plugin .venv/bin/python bench/bench_region_pipeline.py              # issue sizes
    PYTHONPATH=plugin .venv/bin/python bench/bench_region_pipeline.py --scale 0.1  # a tenth
    PYTHONPATH=plugin .venv/bin/python bench/bench_region_pipeline.py --tree /path/to/other/checkout
    PYTHONPATH=plugin .venv/bin/python bench/bench_region_pipeline.py --repeats 5 --only Prodigy

Spans: a Label Studio export of N texts × 3 annotators × ~10 spans (``labels``, 600-character
texts). Boxes: N images × 3 annotators × ~10 ``rectanglelabels`` boxes. Prodigy spans: twice as
many texts as ``ner_manual`` lines, each span's label swapped with p 0.1, so that most tasks are
disputed and described. ``iaa-gate run`` (a fresh process: start-up, parse, matching, every
coefficient, JSON, Markdown, HTML and JUnit reports) is measured against the plain script, in a
fresh process too: ``json.load`` the export, then per task and annotator pair
``scipy.optimize.linear_sum_assignment`` on the IoU matrix, pairwise F1, the mean.

Each command runs once per round, the rounds alternated (``--repeats``), under
``/usr/bin/time``: its CPU (user + system, its forked children included) and peak RSS. CPU is
the figure a shared machine disturbs least, so the speed-up is taken from it; the load average
is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from itertools import combinations
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

from _proc import CLI, Proc, compiled

LABELS = ["PER", "ORG", "LOC", "MISC"]
ROOT = Path(__file__).resolve().parent.parent


def span_tasks(n: int, rng: np.random.Generator, swap: float = 0.0) -> list[dict[str, Any]]:
    """n texts; each annotator keeps each true span with p 0.9, shifts its end with p 0.1 and
    gives it another label with p ``swap``."""
    tasks = []
    text = ("lorem ipsum dolor sit amet " * 23)[:600]
    for t in range(n):
        starts = np.sort(rng.choice(np.arange(0, 590, 10), 10, replace=False))
        truth = [
            (int(s), int(s) + int(rng.integers(3, 9)), LABELS[rng.integers(4)]) for s in starts
        ]
        anns = []
        for user in (1, 2, 3):
            result = []
            for k, (s, e, lab) in enumerate(truth):
                if rng.random() < 0.1:
                    continue
                e2 = e + (1 if rng.random() < 0.1 else 0)
                if swap and rng.random() < swap:
                    lab = LABELS[(LABELS.index(lab) + 1) % len(LABELS)]
                value = {"start": s, "end": e2, "text": text[s:e2], "labels": [lab]}
                result.append(
                    {
                        "id": f"{t}-{user}-{k}",
                        "from_name": "ner",
                        "to_name": "text",
                        "type": "labels",
                        "value": value,
                    }
                )
            anns.append({"id": t * 10 + user, "completed_by": user, "result": result})
        tasks.append({"id": t, "data": {"text": text}, "annotations": anns})
    return tasks


def box_tasks(n: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """n images; each annotator keeps each true box with p 0.9 and jitters it by ~1 %."""
    tasks = []
    for t in range(n):
        truth = rng.uniform([0, 0, 5, 5], [80, 80, 20, 20], (10, 4))
        labels = rng.integers(0, 3, 10)
        anns = []
        for user in (1, 2, 3):
            result = []
            for k in range(10):
                if rng.random() < 0.1:
                    continue
                x, y, w, h = (truth[k] + rng.normal(0, 1, 4)).round(3).tolist()
                value = {
                    "x": x,
                    "y": y,
                    "width": w,
                    "height": h,
                    "rotation": 0,
                    "rectanglelabels": [LABELS[labels[k]]],
                }
                result.append(
                    {
                        "id": f"{t}-{user}-{k}",
                        "from_name": "objects",
                        "to_name": "image",
                        "type": "rectanglelabels",
                        "value": value,
                    }
                )
            anns.append({"id": t * 10 + user, "completed_by": user, "result": result})
        tasks.append({"id": t, "data": {"image": f"{t}.jpg"}, "annotations": anns})
    return tasks


def prodigy_lines(tasks: list[dict[str, Any]]) -> str:
    """The span tasks as Prodigy ``ner_manual`` answers, one ``db-out`` line per annotator."""
    lines = []
    for t, task in enumerate(tasks):
        for ann in task["annotations"]:
            spans = [
                {
                    "start": r["value"]["start"],
                    "end": r["value"]["end"],
                    "label": r["value"]["labels"][0],
                }
                for r in ann["result"]
            ]
            line = {
                "text": task["data"]["text"],
                "_input_hash": t,
                "_task_hash": -t,
                "spans": spans,
                "_view_id": "ner_manual",
                "answer": "accept",
                "_timestamp": 1794821857 + t,
                "_annotator_id": f"u{ann['completed_by']}",
            }
            lines.append(json.dumps(line, separators=(",", ":")) + "\n")
    return "".join(lines)


def span_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    return inter / (max(a[1], b[1]) - min(a[0], b[0]))


def box_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    w = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = w * h
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def plain_script(path: Path, kind: str) -> float:
    """What a user would write: mean over tasks of the mean pairwise F1 (IoU ≥ 0.5, same label)."""
    from scipy.optimize import linear_sum_assignment

    keys = ("start", "end") if kind != "box" else ("x", "y", "width", "height")
    iou = box_iou if kind == "box" else span_iou
    by_task: list[list[list[tuple[tuple[float, ...], str]]]] = []
    if path.suffix == ".jsonl":  # Prodigy: one line per answer, grouped by its input
        grouped: dict[Any, list[Any]] = {}
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                if e.get("answer") == "accept":
                    grouped.setdefault(e["_input_hash"], []).append(
                        [(tuple(float(x[k]) for k in keys), x["label"]) for x in e["spans"]]
                    )
        by_task = list(grouped.values())
    else:
        with open(path) as f:
            tasks = json.load(f)
        for task in tasks:
            by_task.append(
                [
                    [
                        (tuple(float(r["value"][k]) for k in keys), r["value"][r["type"]][0])
                        for r in ann["result"]
                    ]
                    for ann in task["annotations"]
                ]
            )
    per_task = []
    for regions in by_task:
        f1s = []
        for a, b in combinations(regions, 2):
            if not a and not b:
                f1s.append(1.0)
                continue
            sim = np.zeros((len(a), len(b)))
            for i, (ga, la) in enumerate(a):
                for j, (gb, lb) in enumerate(b):
                    if la == lb:
                        v = iou(ga, gb)
                        sim[i, j] = v if v >= 0.5 else 0.0
            rows, cols = linear_sum_assignment(-sim)
            tp = int((sim[rows, cols] > 0).sum())
            f1s.append(2 * tp / (len(a) + len(b)))
        per_task.append(sum(f1s) / len(f1s))
    return sum(per_task) / len(per_task)


def gate_command(path: Path, field: str, out: Path) -> list[str]:
    """``iaa-gate run`` on ``path`` (every report, bootstrap off) writing to ``out``, as a
    command for whichever tree ``PYTHONPATH`` names."""
    out.mkdir(parents=True, exist_ok=True)
    config = out / "c.yaml"
    source = "prodigy" if path.suffix == ".jsonl" else "label-studio-export"
    config.write_text(
        f"source: {{type: {source}, path: {path}}}\n"
        f"fields: {{{field}: {{bootstrap: {{replicates: 0}}}}}}\n"
        f"report: {{dir: {out}, formats: [json, markdown, html, junit]}}\n"
    )
    return [sys.executable, "-c", CLI, "run", "-c", str(config), "-q"]


def timed(cmd: list[str], env: dict[str, str]) -> Proc:
    """One run of ``cmd`` under ``/usr/bin/time``: wall, CPU (user + system, children
    included) and peak RSS as it reports them. Not ``os.wait4`` from this process: a child's
    peak RSS starts from its parent's at the fork (Linux keeps it across ``exec``), and this
    process has held the generated round."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S %M", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        check=False,
    )
    if out.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr[-2000:]}")
    wall, user, system, peak = out.stderr.split()[-4:]
    return Proc(float(wall), int(peak) / 1024, (float(wall),), float(user) + float(system))


def load() -> str:
    """The 1-minute load average, as the tables say it."""
    return f"{os.getloadavg()[0]:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the issue's sizes")
    ap.add_argument(
        "--tree", type=Path, action="append", default=[], help="also run this checkout's iaa-gate"
    )
    ap.add_argument("--repeats", type=int, default=3, help="alternated rounds of every command")
    ap.add_argument("--only", default="", help="the rounds whose name holds this text")
    ap.add_argument("--plain", nargs=2, metavar=("PATH", "KIND"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.plain:  # the plain script, in a process of its own
        print(plain_script(Path(args.plain[0]), args.plain[1]))
        return
    trees = [ROOT, *args.tree]
    for tree in trees:
        compiled(tree / "plugin")
    rng = np.random.default_rng(0)
    rows, runs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, field, n, make in (
            ("span", "ner", int(50_000 * args.scale), span_tasks),
            ("box", "objects", int(20_000 * args.scale), box_tasks),
            ("Prodigy span, 10 % swapped", "ner_manual", int(100_000 * args.scale), span_tasks),
        ):
            prodigy = kind.startswith("Prodigy")
            tasks = make(n, rng, 0.1) if prodigy else make(n, rng)
            if args.only not in kind:
                continue
            path = Path(tmp) / ("ner.jsonl" if prodigy else f"{kind.replace(' ', '_')}.json")
            n_regions = sum(len(a["result"]) for t in tasks for a in t["annotations"])
            path.write_text(prodigy_lines(tasks) if prodigy else json.dumps(tasks))
            del tasks
            size = path.stat().st_size / 1e6
            plain_kind = "span" if prodigy else kind
            commands = {
                "plain script": ([sys.executable, __file__, "--plain", str(path), plain_kind], {}),
                **{
                    ("this tree" if tree == ROOT else str(tree)): (
                        gate_command(path, field, Path(tmp) / str(k)),
                        {"PYTHONPATH": str(tree / "plugin")},
                    )
                    for k, tree in enumerate(trees)
                },
            }
            measured: dict[str, list[Proc]] = {name: [] for name in commands}
            loads = [load()]
            for _ in range(args.repeats):  # alternated: each command once per round
                for name, (cmd, env) in commands.items():
                    measured[name].append(timed(cmd, env))
                loads.append(load())
            plain = float(
                subprocess.run(commands["plain script"][0], capture_output=True, text=True).stdout
            )
            report = json.loads((Path(tmp) / "0" / "report.json").read_text())
            f = report["fields"][field]
            ref = median(p.cpu for p in measured["plain script"])
            for name, procs in measured.items():
                cpu = median(p.cpu for p in procs)
                runs.append(
                    f"| {kind} | {name} | {cpu:.1f} | {min(p.cpu for p in procs):.1f}–"
                    f"{max(p.cpu for p in procs):.1f} | {median(p.wall for p in procs):.1f} | "
                    f"{max(p.rss for p in procs):,.0f} | {ref / cpu:.2f}× | {'–'.join(loads)} |"
                )
            ours = median(p.cpu for p in measured["this tree"])
            rows.append(
                f"| {kind} | {n:,} | {n_regions:,} | {size:.0f} | {ours:.1f} | {ref:.1f} | "
                f"{ref / ours:.2f}× | {f['regions']['f1']:.4f} | {plain:.4f} | "
                f"{f['n_disputed']:,} |"
            )
    print(
        "| regions | tasks | regions in file | file (MB) | iaa-gate run, all reports, CPU (s) | "
        "plain script, F1 only, CPU (s) | speed-up | iaa-gate pooled F1 | plain mean F1 | "
        "disputed |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(
        f"\n{args.repeats} alternated rounds; CPU is user + system (with forked children), "
        "the median; peak RSS the largest of the rounds; speed-up: the plain script's median "
        "CPU over this one's.\n"
    )
    print(
        "| regions | command | CPU median (s) | CPU min–max (s) | wall median (s) | "
        "peak RSS (MiB) | plain CPU / its CPU | load average (1 min) before, after each round |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|")
    print("\n".join(runs))


if __name__ == "__main__":
    main()
