"""Odd input shapes (issue 17), each a whole ``iaa-gate run`` as a process: wall time and peak
RSS (``os.wait4``).

- ``taxonomy``: a Label Studio export of ``--tasks`` tasks × 3 annotators answering one
  ``taxonomy`` path ``--depth`` levels deep (3 children per node; 70 % give the task's path,
  the others a path that leaves it at a random depth), ``distance: hierarchical``;
- ``text``: one task whose text is ``--mb`` MB long, 2 annotators × ~1,800 ``labels`` spans.

    PYTHONPATH=plugin .venv/bin/python bench/bench_odd_shapes.py taxonomy --tasks 5000 --depth 20
    PYTHONPATH=plugin .venv/bin/python bench/bench_odd_shapes.py text --mb 50
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from _proc import measure

CLI = "import sys; from iaa_gate.cli import main; sys.exit(main())"


def taxonomy(tasks: int, depth: int) -> tuple[list[dict[str, Any]], str]:
    rng = random.Random(0)

    def path() -> list[str]:
        return [f"n{rng.randrange(3)}" for _ in range(depth)]

    out = []
    for t in range(tasks):
        truth = path()
        anns = []
        for a in range(3):
            p = truth if rng.random() < 0.7 else (truth[: rng.randrange(depth)] + path())[:depth]
            value = {"taxonomy": [p]}
            result = [{"from_name": "tax", "to_name": "text", "type": "taxonomy", "value": value}]
            anns.append({"id": 3 * t + a, "completed_by": a + 1, "result": result})
        out.append({"id": t + 1, "data": {"text": "x"}, "annotations": anns})
    return out, "  tax:\n    multiple: false\n    distance: hierarchical\n"


def text(mb: float) -> tuple[list[dict[str, Any]], str]:
    rng = random.Random(0)
    size = int(mb * 1e6)
    words = ["alpha", "beta", "gamma", "delta", "Ada", "Lovelace", "London"]
    body = " ".join(rng.choice(words) for _ in range(size // 5))[:size]
    starts = sorted(rng.sample(range(0, size - 20, 7), 2000))

    def result(a: int) -> list[dict[str, Any]]:
        out = []
        for i, s in enumerate(starts):
            if rng.random() < 0.1:
                continue
            e = s + 5 + (a if rng.random() < 0.1 else 0)
            value = {
                "start": s,
                "end": e,
                "text": body[s:e],
                "labels": [rng.choice(["PER", "LOC"])],
            }
            out.append(
                {
                    "id": f"r{a}-{i}",
                    "from_name": "label",
                    "to_name": "text",
                    "type": "labels",
                    "value": value,
                }
            )
        return out

    anns = [{"id": a, "completed_by": a, "result": result(a)} for a in (1, 2)]
    return [{"id": 1, "data": {"text": body}, "annotations": anns}], "  label: {}\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("shape", choices=["taxonomy", "text"])
    p.add_argument("--tasks", type=int, default=5000)
    p.add_argument("--depth", type=int, default=20)
    p.add_argument("--mb", type=float, default=50)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "iaa-bench-odd")
    args = p.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    tasks, fields = taxonomy(args.tasks, args.depth) if args.shape == "taxonomy" else text(args.mb)
    data, cfg = args.workdir / f"{args.shape}.json", args.workdir / f"{args.shape}.yaml"
    data.write_text(json.dumps(tasks))
    cfg.write_text(
        f"version: 1\nsource:\n  type: label-studio-export\n  path: {data}\nfields:\n{fields}"
        f"report:\n  dir: {args.workdir}/out\n  formats: [json, markdown, html, junit]\n"
    )
    run = measure([sys.executable, "-c", CLI, "run", "-c", str(cfg), "-q"], args.repeats)
    print(f"| {args.shape} | {run.wall:.2f} s | {run.rss:.0f} MiB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
