"""Start-up: ``iaa-gate --help`` and the bundled example's whole run, as whole processes.

Each command runs ``--repeats`` times, interleaved with the others (so a burst of load on the
shared machine hits them all alike); the table gives median wall time and median peak RSS
(``os.wait4``'s ``ru_maxrss``, what ``/usr/bin/time -v`` reports). References in the same run:
the bare interpreter (``python -c pass``) and ``import numpy``. ``--tree DIR`` adds the same
commands on another checkout's ``plugin/`` (e.g. ``main`` before a change), imported first via
``PYTHONPATH``.

The HTML report's template is compiled on a run's first use into the user cache
(``$XDG_CACHE_HOME/iaa-gate``): "warm" runs share a cache the first run filled, "cold" runs
start each from an empty one (the first run after installing, or after a Jinja2 upgrade).

    PYTHONPATH=plugin .venv/bin/python bench/bench_startup.py [--repeats 7] [--tree /path/to/other]

Goals (issue 10): ``--help`` < 0.2 s, ``run`` on the bundled example < 0.4 s.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from _proc import CLI, Proc, compiled, measure

ROOT = Path(__file__).resolve().parents[1]
COLD = "iaa-gate run (bundled example, cold template cache)"


def commands(out: str) -> dict[str, list[str]]:
    py = sys.executable
    example = str(ROOT / "examples" / "label-studio" / "iaa-gate.yaml")
    return {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import numpy'": [py, "-c", "import numpy"],
        "iaa-gate --help": [py, "-c", CLI, "--help"],
        "iaa-gate run (bundled example)": [py, "-c", CLI, "run", "--config", example, "--out", out],
        COLD: [py, "-c", CLI, "run", "--config", example, "--out", out],
        "iaa-gate run (bundled example, no HTML)": [
            *(py, "-c", CLI, "run", "--config", example, "--out", out),
            *("--format", "json", "--format", "markdown", "--format", "junit"),
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tree", type=Path, action="append", default=[])
    args = parser.parse_args()
    trees = {"this tree": ROOT, **{str(t): t.resolve() for t in args.tree}}
    for path in trees.values():
        compiled(path / "plugin")
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as caches:
        warm, cold = Path(caches) / "warm", Path(caches) / "cold"
        jobs = {
            (tree, name): (
                cmd,
                {
                    "PYTHONPATH": str(path / "plugin"),
                    "XDG_CACHE_HOME": str(cold if name == COLD else warm),
                },
            )
            for tree, path in trees.items()
            for name, cmd in commands(out).items()
            if tree == "this tree" or name.startswith("iaa-gate")
        }
        runs: dict[tuple[str, str], list[Proc]] = {k: [] for k in jobs}
        for _ in range(args.repeats):  # interleaved: one run of each per round
            for key, (cmd, env) in jobs.items():
                shutil.rmtree(cold, ignore_errors=True)
                runs[key].append(measure(cmd, 1, env))
    print(f"median of {args.repeats} runs, interleaved\n")
    print("| tree | command | wall (s) | min–max (s) | peak RSS (MiB) |")
    print("|:---|:---|---:|---:|---:|")
    for (tree, name), rs in runs.items():
        walls = sorted(r.wall for r in rs)
        rss = sorted(r.rss for r in rs)[len(rs) // 2]
        print(
            f"| {tree} | {name} | {walls[len(walls) // 2]:.3f} | {walls[0]:.2f}–{walls[-1]:.2f} "
            f"| {rss:.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
