"""A whole run on free text against its floor, in the same run.

Writes a Label Studio export of ``--units`` tasks × 2 annotators, each transcribing a
300-character text with 5 % of characters changed (so nearly every transcript is distinct),
then times, alternated ``--repeats`` times:

- ``iaa-gate run`` on it (``distance: levenshtein``, 1,000 bootstrap replicates, every
  report), as a whole process;
- the floor: ``rapidfuzz.process.cdist`` over the distinct texts, each unordered pair once
  (one list as queries and choices), in its own process;
- with ``--sample N``, the same run with ``expected_sample: N`` (alpha's expected
  disagreement from N drawn pairs of ratings, its standard error printed).

    PYTHONPATH=plugin .venv/bin/python bench/bench_free_text_run.py --units 1500 [--sample 100000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import string
import sys
import tempfile
from pathlib import Path

import numpy as np

from _proc import CLI, measure

FLOOR = """
import json, sys
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist
tasks = json.load(open(sys.argv[1]))
texts = sorted({r["value"]["text"][0]
             for t in tasks for a in t["annotations"] for r in a["result"]})
cdist(texts, texts, scorer=Levenshtein.normalized_distance)
"""


def export(units: int, seed: int = 0) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    letters = np.array(list(string.ascii_lowercase + " "))
    tasks = []
    for u in range(units):
        ref = rng.choice(letters, size=300)
        anns = []
        for a in range(2):
            text = ref.copy()
            flip = rng.random(300) < 0.05
            text[flip] = rng.choice(letters, size=int(flip.sum()))
            value = {"text": ["".join(text).strip() or "x"]}
            result = [{"from_name": "t", "to_name": "a", "type": "textarea", "value": value}]
            anns.append({"id": 2 * u + a, "completed_by": a + 1, "result": result})
        tasks.append({"id": u + 1, "data": {}, "annotations": anns})
    return tasks


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--units", type=int, default=1500)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--sample", type=int, default=None, help="also run with expected_sample: N")
    p.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "iaa-bench-text")
    args = p.parse_args()
    work = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    data = work / f"text-{args.units}.json"
    data.write_text(json.dumps(export(args.units)))
    cfg, sampled = work / "text.yaml", work / "text-sampled.yaml"
    for path, extra, out in (
        (cfg, "", "out"),
        (sampled, f"    expected_sample: {args.sample}\n", "sampled"),
    ):
        path.write_text(
            f"version: 1\nsource:\n  type: label-studio-export\n  path: {data}\n"
            f"fields:\n  t:\n    distance: levenshtein\n{extra}"
            f"report:\n  dir: {work}/{out}\n  formats: [json, markdown, html, junit]\n"
        )
    floor = work / "floor.py"
    floor.write_text(FLOOR)
    cmds = {
        "iaa-gate run (every report)": [sys.executable, "-c", CLI, "run", "-c", str(cfg), "-q"],
        "floor: cdist over the distinct texts": [sys.executable, str(floor), str(data)],
    }
    if args.sample:
        run_sampled = [sys.executable, "-c", CLI, "run", "-c", str(sampled), "-q"]
        cmds[f"iaa-gate run, expected_sample: {args.sample:,}"] = run_sampled
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(args.repeats):
        for k, cmd in cmds.items():
            walls[k].append(measure(cmd, 1).wall)
    print("| command | median wall (s) | runs (s) |\n|:---|---:|:---|")
    for k, w in walls.items():
        print(f"| {k} | {statistics.median(w):.2f} | {', '.join(f'{x:.2f}' for x in w)} |")
    ratio = statistics.median(walls[next(iter(cmds))]) / statistics.median(walls[list(cmds)[1]])
    print(f"\nrun / floor: {ratio:.2f}×")
    if args.sample:
        exact = json.loads((work / "out" / "report.json").read_text())["fields"]["t"]
        est = json.loads((work / "sampled" / "report.json").read_text())["fields"]["t"]
        se = est["alpha_sampling"]["standard_error"]
        print(f"alpha exact {exact['alpha']:.5f}, sampled {est['alpha']:.5f} (SE {se:.5f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
