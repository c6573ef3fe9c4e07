"""Odd input shapes (issue 17), each a whole ``iaa-gate run`` as a process: wall time and peak
RSS (``os.wait4``).

- ``taxonomy``: a Label Studio export of ``--tasks`` tasks × 3 annotators answering one
  ``taxonomy`` path ``--depth`` levels deep (3 children per node; 70 % give the task's path,
  the others a path that leaves it at a random depth), ``distance: hierarchical``;
- ``text``: one task whose text is ``--mb`` MB long, 2 annotators × ~1,800 ``labels`` spans;
- the dense shapes issue 17 asks to keep under 10 s: ``boxes`` (one image, 3 annotators ×
  5,000 boxes, 10 % moved or relabelled), ``spans`` (one 2 MB document, 3 annotators × 20,000
  spans, likewise) and ``crowd`` (2,000 tasks, each answered by 3 of 500 annotators).

``--tree DIR`` runs another checkout's package on the same input (before/after).

    PYTHONPATH=plugin .venv/bin/python bench/bench_odd_shapes.py taxonomy --tasks 5000 --depth 20
    PYTHONPATH=plugin .venv/bin/python bench/bench_odd_shapes.py text --mb 50
    PYTHONPATH=plugin .venv/bin/python bench/bench_odd_shapes.py boxes --tree /tmp/before
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from _proc import CLI, measure


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


def _moved(rng: random.Random, a: int, x: float) -> float:
    """A coordinate as annotator ``a`` draws it: the first annotator's, moved in 10 % of cases."""
    return x + (rng.uniform(-3, 3) if a and rng.random() < 0.1 else 0.0)


def boxes(n: int = 5000) -> tuple[list[dict[str, Any]], str]:
    rng = random.Random(0)
    base = [(rng.uniform(0, 95), rng.uniform(0, 95), rng.choice("ABC")) for _ in range(n)]
    anns = []
    for a in range(3):
        result = []
        for i, (x, y, lab) in enumerate(base):
            label = rng.choice("ABC") if a and rng.random() < 0.1 else lab
            value = {
                "x": _moved(rng, a, x),
                "y": y,
                "width": 2.0,
                "height": 2.0,
                "rotation": 0,
                "rectanglelabels": [label],
            }
            result.append(
                {
                    "id": f"b{a}-{i}",
                    "from_name": "box",
                    "to_name": "image",
                    "type": "rectanglelabels",
                    "value": value,
                }
            )
        anns.append({"id": a + 1, "completed_by": a + 1, "result": result})
    return [{"id": 1, "data": {"image": "/x.png"}, "annotations": anns}], "  box: {}\n"


def spans(n: int = 20000, size: int = 2_000_000) -> tuple[list[dict[str, Any]], str]:
    rng = random.Random(0)
    body = "".join(rng.choice("abcdefgh ") for _ in range(size))
    starts = sorted(rng.sample(range(0, size - 20, 90), n))
    anns = []
    for a in range(3):
        result = []
        for i, s in enumerate(starts):
            e = s + 8 + (2 if a and rng.random() < 0.1 else 0)
            label = rng.choice(["PER", "LOC"]) if a and rng.random() < 0.1 else "PER"
            value = {"start": s, "end": e, "text": body[s:e], "labels": [label]}
            result.append(
                {
                    "id": f"s{a}-{i}",
                    "from_name": "label",
                    "to_name": "text",
                    "type": "labels",
                    "value": value,
                }
            )
        anns.append({"id": a + 1, "completed_by": a + 1, "result": result})
    return [{"id": 1, "data": {"text": body}, "annotations": anns}], "  label: {}\n"


def crowd(tasks: int = 2000, annotators: int = 500) -> tuple[list[dict[str, Any]], str]:
    rng = random.Random(0)
    out = []
    for t in range(tasks):
        truth = rng.choice("ABCD")
        anns = []
        for a in rng.sample(range(1, annotators + 1), 3):
            label = truth if rng.random() < 0.8 else rng.choice("ABCD")
            item = {"from_name": "c", "to_name": "text", "type": "choices"}
            anns.append(
                {
                    "id": 3 * t + len(anns),
                    "completed_by": a,
                    "result": [{**item, "value": {"choices": [label]}}],
                }
            )
        out.append({"id": t + 1, "data": {"text": "x"}, "annotations": anns})
    return out, "  c: {}\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("shape", choices=["taxonomy", "text", "boxes", "spans", "crowd"])
    p.add_argument("--tasks", type=int, default=5000)
    p.add_argument("--depth", type=int, default=20)
    p.add_argument("--mb", type=float, default=50)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "iaa-bench-odd")
    p.add_argument("--tree", type=Path, help="another checkout, run on the same input")
    args = p.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    make = {
        "taxonomy": lambda: taxonomy(args.tasks, args.depth),
        "text": lambda: text(args.mb),
        "boxes": boxes,
        "spans": spans,
        "crowd": crowd,
    }
    tasks, fields = make[args.shape]()
    data, cfg = args.workdir / f"{args.shape}.json", args.workdir / f"{args.shape}.yaml"
    data.write_text(json.dumps(tasks))
    cfg.write_text(
        f"version: 1\nsource:\n  type: label-studio-export\n  path: {data}\nfields:\n{fields}"
        f"report:\n  dir: {args.workdir}/out\n  formats: [json, markdown, html, junit]\n"
    )
    cmd = [sys.executable, "-c", CLI, "run", "-c", str(cfg), "-q"]
    run = measure(cmd, args.repeats)
    print(f"| {args.shape} | this tree | {run.wall:.2f} s | {run.rss:.0f} MiB |")
    if args.tree is not None:
        other = measure(cmd, args.repeats, env={"PYTHONPATH": str(args.tree / "plugin")})
        print(f"| {args.shape} | {args.tree} | {other.wall:.2f} s | {other.rss:.0f} MiB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
