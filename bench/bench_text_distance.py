"""Alpha on free text with the Levenshtein distance: iaa-gate (rapidfuzz, the value table in one
``cdist`` call) against the plain script a user would write (nltk's ``AnnotationTask`` with
``edit_distance`` normalised by the longer text), in the same run.

    PYTHONPATH=plugin .venv/bin/python bench/bench_text_distance.py [--units 30,60,1000]

The nltk script is quadratic in pure Python (60 units take ~30 s), so it runs up to
``--script-max`` units (default 60) only.

Data: 3 annotators transcribe each unit; each copies a 20–60 character reference text and
changes each character with probability 0.05 (so most transcripts are distinct). Prints a
Markdown table: time per call (median of 3, ``time.perf_counter``) and abs(Δα).
"""

from __future__ import annotations

import argparse
import statistics
import string
import time

import numpy as np
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import edit_distance

from iaa_gate.metrics import krippendorff_alpha

LETTERS = np.array(list(string.ascii_lowercase + " "))


def transcripts(units: int, seed: int = 0) -> np.ndarray:
    """``(units, 3)`` object array of texts."""
    rng = np.random.default_rng(seed)
    out = np.empty((units, 3), dtype=object)
    for u in range(units):
        ref = rng.choice(LETTERS, size=rng.integers(20, 61))
        for a in range(3):
            text = ref.copy()
            flip = rng.random(len(text)) < 0.05
            text[flip] = rng.choice(LETTERS, size=int(flip.sum()))
            out[u, a] = "".join(text)
    return out


def plain_script(texts: np.ndarray) -> float:
    data = [(f"c{a}", str(u), texts[u, a]) for u in range(len(texts)) for a in range(3)]
    task = AnnotationTask(
        data=data, distance=lambda x, y: edit_distance(x, y) / max(len(x), len(y), 1)
    )
    return float(task.alpha())


def timed(fn, *args, repeats: int = 3) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    times, value = [], 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        value = fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times), value


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--units", default="30,60,1000")
    p.add_argument("--script-max", type=int, default=60)
    args = p.parse_args()
    print("| units | distinct texts | α | iaa-gate (s) | nltk script (s) | speed-up | abs(Δα) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for units in (int(x) for x in args.units.split(",")):
        texts = transcripts(units)
        ours, a = timed(lambda t: krippendorff_alpha(t, "levenshtein"), texts)
        distinct = len(set(texts.ravel().tolist()))
        row = f"| {units:,} | {distinct:,} | {a:.4f} | {ours:.3f} |"
        if units > args.script_max:
            print(row + " — | — | — |")
            continue
        theirs, b = timed(plain_script, texts, repeats=1)
        print(row + f" {theirs:.2f} | {theirs / ours:.0f}× | {abs(a - b):.1e} |")


if __name__ == "__main__":
    main()
