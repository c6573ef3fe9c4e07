"""Benchmark region agreement: iaa_gate's vectorised matching against the plain per-task script.

The reference is the script a user would write: group the regions by task, and for every task
and annotator pair build the IoU matrix with numpy, call ``scipy.optimize.linear_sum_assignment``
on 1 − IoU (inadmissible pairs: a large cost) and take F1 = 2·matches / (n_a + n_b), averaged
over the task's pairs. Both run on the same data in the same run; the per-task F1 of both must
agree (the script exits non-zero otherwise).

Data (seeded): spans: ``--tasks`` texts of 600 characters, 3 annotators, ~10 true entities
per text (5 labels); each annotator keeps an entity with probability 0.9, moves its start by up
to 3 characters with probability 0.2, changes its label with probability 0.05, and adds one
short entity between the true ones with probability 0.3. Boxes: ``--images`` images, 3
annotators, ~10 true boxes (percent coordinates), kept with probability 0.9, each side jittered
by up to 3 % of the box; 5 labels. Imports (scipy, shapely) are warmed up before timing.

    PYTHONPATH=plugin .venv/bin/python bench/bench_regions.py   # 50,000 texts, 20,000 images
    PYTHONPATH=plugin .venv/bin/python bench/bench_regions.py --tasks 5000 --images 2000
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy as np
import numpy.typing as npt

from iaa_gate.metrics import (
    Regions,
    disagreements,
    match_regions,
    position_alpha,
    region_clusters,
    region_scores,
    unitizing_alpha_tasks,
)

ANNOTATORS = 3
LABELS = ("PER", "ORG", "LOC", "MISC", "DATE")
TEXT = 600


CPU: dict[str, float] = {}  # label → median CPU seconds of the last timed call


def timed(fn: Callable[[], Any], repeats: int, label: str = "") -> tuple[float, Any]:
    """Median wall time of ``repeats`` calls, and the last result; the median CPU time (this
    process, ``time.process_time``) goes to ``CPU[label]``: on a shared machine it shows the
    work done, apart from the time spent waiting for a core."""
    times, cpu, out = [], [], None
    for _ in range(repeats):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    CPU[label] = statistics.median(cpu)
    return statistics.median(times), out


def _annotate(
    rng: np.random.Generator, unit: npt.NDArray[np.int64], geo: npt.NDArray[np.float64]
) -> tuple[list[npt.NDArray[Any]], npt.NDArray[np.int64]]:
    """Per annotator: kept true regions (indices) and the true labels, relabelled at 5 %."""
    label = rng.integers(0, len(LABELS), unit.size)
    kept = [np.flatnonzero(rng.random(unit.size) < 0.9) for _ in range(ANNOTATORS)]
    return kept, label


def spans(tasks: int, seed: int = 0) -> Regions:
    rng = np.random.default_rng(seed)
    per = np.minimum(rng.poisson(10, tasks), TEXT // 50 - 1)
    unit = np.repeat(np.arange(tasks), per)
    slot = np.arange(unit.size) - np.repeat(np.cumsum(per) - per, per)
    start = slot * 50 + rng.integers(0, 30, unit.size)  # disjoint, ≤ 50 per slot
    length = rng.integers(2, 15, unit.size)
    kept, label = _annotate(rng, unit, np.zeros((unit.size, 0)))
    cols: list[list[npt.NDArray[Any]]] = [[], [], [], [], []]
    for a, keep in enumerate(kept):
        s, e = start[keep].copy(), (start + length)[keep].copy()
        shift = rng.random(keep.size) < 0.2
        s[shift] += rng.integers(-3, 4, int(shift.sum()))
        lab = np.where(rng.random(keep.size) < 0.05, rng.integers(0, 5, keep.size), label[keep])
        extra = np.flatnonzero(rng.random(tasks) < 0.3)
        xs = rng.integers(0, TEXT // 50, extra.size) * 50 + 45  # between the true entities
        u = np.r_[unit[keep], extra]
        lo = np.clip(np.r_[s, xs], 0, TEXT - 1)
        hi = np.maximum(np.r_[e, xs + rng.integers(1, 3, extra.size)], lo + 1)
        for col, v in zip(
            cols,
            (u, np.full(u.size, a), np.r_[lab, rng.integers(0, 5, extra.size)], lo, hi),
            strict=True,
        ):
            col.append(v)
    u, a, lab, lo, hi = (np.concatenate(c) for c in cols)
    rated = np.ones((tasks, ANNOTATORS), bool)
    return Regions(u, a, lab, np.column_stack([lo, hi]), rated, "span", LABELS)


def boxes(images: int, seed: int = 1) -> Regions:
    rng = np.random.default_rng(seed)
    per = rng.poisson(10, images)
    unit = np.repeat(np.arange(images), per)
    wh = rng.uniform(3, 20, (unit.size, 2))
    xy = rng.uniform(0, 80, (unit.size, 2))
    kept, label = _annotate(rng, unit, np.zeros((unit.size, 0)))
    rows = []
    for a, keep in enumerate(kept):
        jitter = rng.uniform(-0.03, 0.03, (keep.size, 4)) * np.tile(wh[keep], 2)
        geo = np.column_stack(
            [xy[keep] + jitter[:, :2], wh[keep] + jitter[:, 2:], np.zeros(keep.size)]
        )
        rows.append((unit[keep], np.full(keep.size, a), label[keep], geo))
    u, a, lab = (np.concatenate([r[k] for r in rows]) for k in range(3))
    geo = np.concatenate([r[3] for r in rows])
    return Regions(u, a, lab, geo, np.ones((images, ANNOTATORS), bool), "box", LABELS)


def _iou_matrix(kind: str, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> Any:
    if kind == "span":
        inter = np.clip(
            np.minimum(a[:, None, 1], b[None, :, 1]) - np.maximum(a[:, None, 0], b[None, :, 0]),
            0,
            None,
        )
        union = (a[:, 1] - a[:, 0])[:, None] + (b[:, 1] - b[:, 0])[None, :] - inter
    else:
        iw = np.clip(
            np.minimum(a[:, None, 0] + a[:, None, 2], b[None, :, 0] + b[None, :, 2])
            - np.maximum(a[:, None, 0], b[None, :, 0]),
            0,
            None,
        )
        ih = np.clip(
            np.minimum(a[:, None, 1] + a[:, None, 3], b[None, :, 1] + b[None, :, 3])
            - np.maximum(a[:, None, 1], b[None, :, 1]),
            0,
            None,
        )
        inter = iw * ih
        union = (a[:, 2] * a[:, 3])[:, None] + (b[:, 2] * b[:, 3])[None, :] - inter
    return inter / union


def plain_script(r: Regions, iou: float = 0.5) -> npt.NDArray[np.float64]:
    """Per-task mean pairwise F1 the straightforward way (see the module doc)."""
    from scipy.optimize import linear_sum_assignment

    order = np.argsort(r.unit, kind="stable")
    cuts = np.searchsorted(r.unit[order], np.arange(1, r.units))
    out = np.full(r.units, np.nan)
    for task, idx in enumerate(np.split(order, cuts)):
        f1s = []
        by_ann = [idx[r.annotator[idx] == a] for a in range(r.annotators)]
        for x in range(r.annotators):
            for y in range(x + 1, r.annotators):
                ia, ib = by_ann[x], by_ann[y]
                if ia.size == 0 or ib.size == 0:
                    f1s.append(1.0 if ia.size == ib.size else 0.0)
                    continue
                sim = _iou_matrix(r.kind, r.geometry[ia], r.geometry[ib])
                ok = (sim >= iou - 1e-9) & (r.label[ia][:, None] == r.label[ib][None, :])
                rows, cols = linear_sum_assignment(np.where(ok, 1.0 - sim, 1e6))
                tp = int(ok[rows, cols].sum())
                f1s.append(2 * tp / (ia.size + ib.size))
        out[task] = np.mean(f1s)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=50_000)
    ap.add_argument("--images", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(
        f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, "
        f"Python {platform.python_version()}, numpy {np.__version__}, scipy {version('scipy')}, "
        f"shapely {version('shapely')}\n"
    )
    print("| data | regions | step | iaa-gate (s) | plain script (s) | speed-up | CPU (s) |")
    print("|:---|---:|:---|---:|---:|---:|---:|")
    ok = True
    warm = spans(20)
    plain_script(warm)
    region_clusters(match_regions(warm))
    for name, data in (
        (f"{args.tasks:,} texts × 3 annotators, spans", spans(args.tasks)),
        (f"{args.images:,} images × 3 annotators, boxes", boxes(args.images)),
    ):
        size = np.full(data.units, TEXT)
        t_match, m = timed(lambda d=data: match_regions(d), args.repeats, "match_regions")
        t_scores, s = timed(lambda m=m: region_scores(m), args.repeats, "region_scores")
        t_ref, ref = timed(lambda d=data: plain_script(d), 1, "plain")
        same = np.allclose(ref, s.unit, equal_nan=True, atol=1e-12)
        ok &= same
        total = t_match + t_scores
        cpu = CPU["match_regions"] + CPU["region_scores"]
        c_match = CPU["match_regions"]
        print(f"| {name} | {data.n:,} | match_regions | {t_match:.2f} | | | {c_match:.2f} |")
        print(f"| | | region_scores | {t_scores:.2f} | | | {CPU['region_scores']:.2f} |")
        print(
            f"| | | **match + scores** | **{total:.2f}** | {t_ref:.2f} | {t_ref / total:.0f}× "
            f"| {cpu:.2f} (plain {CPU['plain']:.2f}) |"
        )
        more: list[tuple[str, Callable[[], Any]]] = [
            ("disagreements", lambda m=m: disagreements(m)),
            ("region_clusters", lambda m=m: region_clusters(m)),
        ]
        if data.kind == "span":
            more += [
                ("unitizing_alpha_tasks", lambda d=data, n=size: unitizing_alpha_tasks(d, n).value),
                ("position_alpha", lambda d=data, n=size: position_alpha(d, n)),
            ]
        for label, fn in more:
            t, out = timed(fn, args.repeats, label)
            value = f" (α = {out:.3f})" if isinstance(out, float) else ""
            print(f"| | | {label}{value} | {t:.2f} | | | {CPU[label]:.2f} |")
        if not same:
            print(f"per-task F1 differs from the plain script for {name}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
