"""Large files: peak memory of ``iaa-gate run`` on a ~1 GB Label Studio export, against the plain
``json.load`` a user would write, as whole processes.

Generates (once, cached in ``--workdir``, never committed) two exports with the same tasks: one
whose tasks carry a long text in ``data`` (``--text-kb``, ~1 GB in all by default), and one with a
short text. Each has ``--tasks`` tasks × 3 annotations of one 5-label ``choices`` field. Peak RSS
is the child's ``ru_maxrss``, the figure ``/usr/bin/time -v`` prints as "Maximum resident set
size". The bootstrap is off (``replicates: 0``), so the figures are reading and scoring.

    PYTHONPATH=plugin .venv/bin/python bench/bench_large_export.py
    /usr/bin/time -v .venv/bin/iaa-gate run -c WORKDIR/large.yaml -q   # the same, by hand
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from _proc import measure

LABELS = ["L0", "L1", "L2", "L3", "L4"]
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "labels"]
PLAIN = "import json, sys\ntasks = json.load(open(sys.argv[1]))\nprint(len(tasks))\n"


def write_export(path: Path, tasks: int, text_bytes: int, seed: int = 0) -> None:
    """``tasks`` tasks, each with ~``text_bytes`` of text and 3 annotations by 10 annotators."""
    rng = random.Random(seed)
    block = " ".join(rng.choice(WORDS) for _ in range(text_bytes // 4 + 1))[:text_bytes]
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        for t in range(tasks):
            truth = rng.randrange(5)
            anns = []
            for k, who in enumerate(rng.sample(range(1, 11), 3)):
                label = LABELS[truth if rng.random() < 0.7 else rng.randrange(5)]
                anns.append(
                    {
                        "id": 3 * t + k + 1,
                        "completed_by": who,
                        "was_cancelled": False,
                        "ground_truth": False,
                        "created_at": "2026-11-02T10:00:00Z",
                        "updated_at": "2026-11-02T10:00:00Z",
                        "lead_time": 12.5,
                        "result": [
                            {
                                "id": f"r{t}-{k}",
                                "from_name": "label",
                                "to_name": "text",
                                "type": "choices",
                                "value": {"choices": [label]},
                            }
                        ],
                    }
                )
            task = {"id": t + 1, "data": {"text": f"{t} {block}"}, "meta": {}, "annotations": anns}
            f.write(("," if t else "") + json.dumps(task))
        f.write("]")


def config(workdir: Path, name: str) -> Path:
    path = workdir / f"{name}.yaml"
    path.write_text(
        "version: 1\n"
        f"source: {{type: label-studio-export, path: {workdir / name}.json}}\n"
        "fields: {label: {bootstrap: {replicates: 0}}}\n"
        f"report: {{dir: {workdir / 'report'}, formats: [json]}}\n",
        encoding="utf-8",
    )
    return path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=120_000)
    p.add_argument("--text-kb", type=float, default=8.0, help="text per task in the large file")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "iaa-gate-large")
    args = p.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    exe = str(Path(sys.executable).with_name("iaa-gate"))
    rows = []
    for name, text in (("large", int(args.text_kb * 1024)), ("small", 40)):
        path = args.workdir / f"{name}.json"
        if not path.exists():
            write_export(path, args.tasks, text)
        cfg = config(args.workdir, name)
        ours = measure([exe, "run", "-c", str(cfg), "-q"], args.repeats)
        plain = measure([sys.executable, "-c", PLAIN, str(path)], args.repeats)
        rows.append((name, path.stat().st_size / 2**20, ours, plain))
    print(f"{args.tasks:,} tasks × 3 annotations; bootstrap off\n")
    print(
        "| file | size (MiB) | iaa-gate (s) | peak (MiB) | json.load (s) | json.load peak (MiB) |"
    )
    print("|---|---|---|---|---|---|")
    for name, size, ours, plain in rows:
        print(
            f"| {name} | {size:,.0f} | {ours.wall:.1f} | {ours.rss:,.0f} "
            f"| {plain.wall:.1f} | {plain.rss:,.0f} |"
        )


if __name__ == "__main__":
    main()
