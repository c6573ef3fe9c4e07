"""Reading a Label Studio export with model predictions: what the predictions cost.

Run from the repo root: ``python bench/bench_predictions.py [--tasks 20000] [--repeats 5]``.
One synthetic export (``--tasks`` tasks, 3 annotators, a ``<Choices>`` field, two model
versions' predictions per task, the first annotator starting from one of them) and the same
export without predictions, each read by :func:`parse_tasks` through the typed fast path
(msgspec elements, as an export file is read) and through the general parser (dicts), runs
interleaved. Prints a Markdown table of medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import msgspec

from iaa_gate.adapters.label_studio.export import parse_tasks

LABELS = ("pos", "neg", "neu")


def _result(label: str) -> list[dict[str, Any]]:
    value = {"choices": [label]}
    return [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": value}]


def export(n: int, predictions: bool) -> bytes:
    tasks = []
    for i in range(n):
        preds = [
            {
                "id": 2 * i + k,
                "model_version": f"v{k}",
                "score": 0.5,
                "result": _result(LABELS[(i + k) % 3]),
            }
            for k in (1, 2)
        ]
        anns = [
            {
                "id": 3 * i + a,
                "completed_by": a,
                "result": _result(LABELS[(i + a) % 3 if i % 4 == 0 else i % 3]),
                "was_cancelled": False,
                "ground_truth": False,
                "created_at": "2026-11-01T10:00:00Z",
                "updated_at": "2026-11-01T10:00:00Z",
                "parent_prediction": 2 * i + 1 if predictions and a == 1 else None,
            }
            for a in (1, 2, 3)
        ]
        task = {"id": i, "data": {"text": f"t{i}"}, "annotations": anns}
        task["predictions"] = preds if predictions else []
        tasks.append(task)
    return json.dumps(tasks).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    data = {p: export(args.tasks, p) for p in (False, True)}
    times: dict[tuple[bool, str], list[float]] = {}
    for _ in range(args.repeats):
        for with_preds, raw in data.items():
            for path in ("fast path", "general parser"):
                start = time.perf_counter()
                if path == "fast path":
                    tasks: Any = msgspec.json.decode(raw, type=list[msgspec.Raw])
                else:
                    tasks = json.loads(raw)
                ds = parse_tasks(tasks, "bench")
                times.setdefault((with_preds, path), []).append(time.perf_counter() - start)
                assert len(ds.predictions) == (2 * args.tasks if with_preds else 0)
    print(f"| export ({args.tasks:,} tasks × 3 annotations) | reader | median s |")
    print("|---|---|---:|")
    for (with_preds, path), t in times.items():
        what = "2 predictions per task" if with_preds else "no predictions"
        print(f"| {what} | {path} | {statistics.median(t):.3f} |")


if __name__ == "__main__":
    main()
