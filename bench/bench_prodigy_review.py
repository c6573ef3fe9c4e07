"""Prodigy write-back (``disputed.jsonl``): ``ProdigyReviewFile.apply`` against the plain loop a
user would write, in one process, on issue 10's Prodigy JSONL (``bench_run.make_jsonl``).

The plain loop: per line ``json.loads``, the unit id, and for a disputed unit ``meta.iaa`` set and
``json.dumps`` (what iaa-gate did before). Both get the same analysis results (computed once) and
write their file; the files must parse to the same examples, or the script exits non-zero.

    PYTHONPATH=plugin .venv/bin/python bench/bench_prodigy_review.py              # 300,000 lines
    PYTHONPATH=plugin .venv/bin/python bench/bench_prodigy_review.py --tasks 1e4  # 30,000
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_run import config, make_jsonl
from iaa_gate.adapters.prodigy.source import unit_id
from iaa_gate.config import load_config
from iaa_gate.evaluation.analysis import analyse
from iaa_gate.pipeline import make_source
from iaa_gate.sinks.prodigy import ProdigyReviewFile


def plain(source: Path, out: Path, results: dict[str, Any]) -> int:
    """The per-line ``json.loads`` / ``json.dumps`` loop; returns the lines written."""
    disputed: dict[Any, dict[str, Any]] = {}
    for name, result in results.items():
        for u in result.disputed:
            disputed.setdefault(u.id, {})[name] = {"score": u.score, "labels": u.labels}
    lines = []
    with open(source, encoding="utf-8") as f:
        for line in f:
            ex = json.loads(line)
            task = unit_id(ex)
            if task in disputed:
                meta = ex.get("meta")
                meta = dict(meta) if isinstance(meta, dict) else {"original": meta}
                meta["iaa"] = {"status": "disputed", "fields": disputed[task]}
                ex["meta"] = meta
                lines.append(json.dumps(ex, ensure_ascii=False))
    out.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return len(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=float, default=1e5)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data, cfg = work / "prodigy.jsonl", work / "prodigy.yaml"
        make_jsonl(data, int(args.tasks))
        config(cfg, "prodigy", data, "choice", work / "out")
        conf = load_config(cfg)
        results = analyse(make_source(conf).load(), conf)
        times: dict[str, list[float]] = {"iaa-gate": [], "plain loop": []}
        ours, ref = work / "ours.jsonl", work / "plain.jsonl"
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            n = ProdigyReviewFile(data, ours).apply(results)["lines"]
            times["iaa-gate"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            plain(data, ref, results)
            times["plain loop"].append(time.perf_counter() - t0)
        lines = sum(1 for _ in data.open())
        same = [json.loads(x) for x in ours.open()] == [json.loads(x) for x in ref.open()]
    print(f"{lines:,} lines, {n:,} written; same examples: {same}\n")
    print("| write-back | median (s) | min (s) |\n|:---|---:|---:|")
    for name, ts in times.items():
        print(f"| {name} | {statistics.median(ts):.2f} | {min(ts):.2f} |")
    speed = statistics.median(times["plain loop"]) / statistics.median(times["iaa-gate"])
    print(f"| speed-up | {speed:.1f}× | |")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
