"""Brush masks: iaa-gate's decoder of Label Studio's RLE (runs of mask pixels) against the
Label Studio SDK's ``decode_rle`` (the whole RGBA image), in the same run on the same code.

    PYTHONPATH=plugin .venv/bin/python bench/bench_brush.py [--repeats 7]

Data: a disc of radius 500 pixels on a 3840 × 2160 (4K) image, and 30 random rectangles on it,
coded as Label Studio codes masks (8-bit words, run sizes 3, 4, 8, 16). Runs alternate between
the two decoders (interleaved); prints a Markdown table: median time (``time.perf_counter``) and
peak memory (``tracemalloc``) per decode, and whether both give the same mask.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
from label_studio_sdk.converter.brush import decode_rle

from iaa_gate.adapters.label_studio.brush import mask_runs

W, H = 3840, 2160


def code(mask: np.ndarray[Any, Any]) -> list[int]:
    """Label Studio's RLE of a boolean mask (RGBA bytes all 255 inside, 0 outside)."""
    flat = mask.ravel()
    edges = np.flatnonzero(np.diff(flat.astype(np.int8))) + 1
    bounds = np.concatenate([[0], edges, [flat.size]])
    bits = [f"{flat.size * 4:032b}", f"{7:05b}", "0010", "0011", "0111", "1111"]
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        n, v = 4 * (b - a), 255 if flat[a] else 0
        while n:
            k = min(n, 1 << 16)
            bits.append(f"1{3:02b}{k - 1:016b}{v:08b}")
            n -= k
    text = "".join(bits)
    text += "0" * (-len(text) % 8)
    return [int(text[i : i + 8], 2) for i in range(0, len(text), 8)]


def masks() -> dict[str, np.ndarray[Any, Any]]:
    y, x = np.ogrid[:H, :W]
    rng = np.random.default_rng(0)
    boxes = np.zeros((H, W), dtype=bool)
    for _ in range(30):
        x0, y0 = int(rng.integers(0, W - 300)), int(rng.integers(0, H - 300))
        boxes[y0 : y0 + int(rng.integers(20, 300)), x0 : x0 + int(rng.integers(20, 300))] = True
    return {"disc r=500": (x - 1900) ** 2 + (y - 1000) ** 2 <= 500**2, "30 rectangles": boxes}


def peak(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    print(
        "| mask | code (bytes) | iaa-gate runs: time | SDK decode_rle: time "
        "| iaa-gate peak | SDK peak | same |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, mask in masks().items():
        rle = code(mask)
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(args.repeats):  # interleaved
            t = time.perf_counter()
            runs = mask_runs(rle, W, H)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            image = decode_rle(rle)
            theirs.append(time.perf_counter() - t)
        got = np.zeros(W * H, dtype=bool)
        for a, b in runs.tolist():
            got[a:b] = True
        same = bool((got == (image.reshape(-1, 4)[:, 3] > 0)).all())
        print(
            f"| {name} | {len(rle):,} | {statistics.median(ours) * 1e3:.1f} ms | "
            f"{statistics.median(theirs) * 1e3:.1f} ms | "
            f"{peak(lambda rle=rle: mask_runs(rle, W, H)):.2f} MB | "
            f"{peak(lambda rle=rle: decode_rle(rle)):.1f} MB | {same} |"
        )


if __name__ == "__main__":
    main()
