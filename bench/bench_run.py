"""Whole runs: ``iaa-gate run`` against the plain script a user would write, as whole processes.

Generates (once, cached in ``--workdir``) issue 10's inputs:

- a Label Studio JSON export of ``--tasks`` tasks (default 100,000) × 3 annotations from 10
  annotators, one 5-label ``choices`` field (~62 MB at 100,000 tasks);
- a Prodigy ``db-out`` JSONL of the same design (``choice`` view), 3 lines per task;
- a long-format CSV table of the same design (``task,annotator,field,value``), 3 rows per task.

Then, interleaved for ``--repeats`` rounds, it runs ``iaa-gate run --format json`` (default
1,000 bootstrap replicates) and the plain script (``json.load``, ``json.loads`` per line or
``csv.reader``, a dict of dicts → a ``(units, annotators)`` array, ``krippendorff.alpha``) and
reports median wall time and peak RSS (``os.wait4``); ``--only TEXT``: the inputs whose name
holds it. ``--profile`` adds where the time of one in-process run goes
(cProfile, cumulative, iaa_gate functions); ``--decoders`` times JSON decoders on the same
files (``json``, ``orjson``, ``msgspec``, untyped and typed, each in its own process).

    PYTHONPATH=plugin .venv/bin/python bench/bench_run.py --profile --decoders
    PYTHONPATH=plugin .venv/bin/python bench/bench_run.py --tasks 1e6   # 3·10^6 lines
    PYTHONPATH=plugin .venv/bin/python bench/bench_run.py --tree /path/to/older/checkout
    PYTHONPATH=plugin .venv/bin/python bench/bench_run.py --tasks 1e6 --only table --repeats 1

Goals (issue 10): 100k tasks ≤ 1.0 s and ≤ 400 MiB and ≥ 3× faster than the plain script;
10^6 tasks (and 3·10^6 Prodigy lines) ≤ 10 s and ≤ 2 GiB.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from _proc import CLI, Proc, compiled, measure

LABELS = ["L0", "L1", "L2", "L3", "L4"]
ANNOTATORS = 10
PER_TASK = 3

MATRIX = """
x = np.full((len(rows), len(cols)), np.nan)
for u, c, v in cells:
    x[u, c] = v
print(krippendorff.alpha(x.T, level_of_measurement="nominal"))
"""

PLAIN_LS = (
    """
import json, sys
import numpy as np, krippendorff
tasks = json.load(open(sys.argv[1]))
rows, cols, labels = {}, {}, {}
cells = []
for t in tasks:
    for a in t["annotations"]:
        if a.get("was_cancelled"):
            continue
        for r in a["result"]:
            if r["from_name"] == "label":
                v = labels.setdefault(r["value"]["choices"][0], len(labels))
                cells.append((rows.setdefault(t["id"], len(rows)),
                              cols.setdefault(a["completed_by"], len(cols)), v))
"""
    + MATRIX
)

PLAIN_PRODIGY = (
    """
import json, sys
import numpy as np, krippendorff
rows, cols, labels = {}, {}, {}
cells = []
with open(sys.argv[1]) as f:
    for line in f:
        e = json.loads(line)
        if e.get("answer") != "accept":
            continue
        v = labels.setdefault(e["accept"][0], len(labels))
        cells.append((rows.setdefault(e["_input_hash"], len(rows)),
                      cols.setdefault(e["_annotator_id"], len(cols)), v))
"""
    + MATRIX
)

PLAIN_TABLE = (
    """
import csv, sys
import numpy as np, krippendorff
rows, cols, labels = {}, {}, {}
cells = []
with open(sys.argv[1], newline="") as f:
    for task, annotator, field, value in csv.reader(f):
        if field != "label":
            continue
        v = labels.setdefault(value, len(labels))
        cells.append((rows.setdefault(task, len(rows)), cols.setdefault(annotator, len(cols)), v))
"""
    + MATRIX
)

READ = "open(sys.argv[1], 'rb').read()"
DECODE = {  # name → script body; the file is sys.argv[1]
    "json (whole file)": "import json; d = json.load(open(sys.argv[1], 'rb'))",
    "orjson (whole file)": f"import orjson; d = orjson.loads({READ})",
    "msgspec (whole file)": f"import msgspec; d = msgspec.json.decode({READ})",
    "msgspec typed (whole file)": """
import msgspec
class R(msgspec.Struct):
    from_name: str
    type: str
    value: dict
class A(msgspec.Struct):
    completed_by: int
    result: list[R]
    was_cancelled: bool = False
    created_at: str | None = None
class T(msgspec.Struct):
    id: int
    annotations: list[A]
d = msgspec.json.decode(open(sys.argv[1], 'rb').read(), type=list[T])
""",
}
DECODE_LINES = {
    "json.loads per line": "import json\nfor ln in open(sys.argv[1], 'rb'): json.loads(ln)",
    "orjson.loads per line": "import orjson\nfor ln in open(sys.argv[1], 'rb'): orjson.loads(ln)",
    "msgspec per line": "import msgspec\ndec = msgspec.json.Decoder()\n"
    "for line in open(sys.argv[1], 'rb'): dec.decode(line)",
    "msgspec typed per line": """
import msgspec
class E(msgspec.Struct):
    _input_hash: int = msgspec.field(name="_input_hash")
    _annotator_id: str = msgspec.field(name="_annotator_id")
    answer: str
    accept: list[str] = []
dec = msgspec.json.Decoder(E)
for line in open(sys.argv[1], 'rb'): dec.decode(line)
""",
}


def _label(rng: random.Random) -> tuple[str, list[int]]:
    """A task's true label and its 3 distinct annotators."""
    return LABELS[rng.randrange(len(LABELS))], rng.sample(range(ANNOTATORS), PER_TASK)


def _given(truth: str, rng: random.Random) -> str:
    return truth if rng.random() < 0.7 else LABELS[rng.randrange(len(LABELS))]


def _round(seed: int, tasks: int) -> Iterator[tuple[int, list[int], Callable[[], str]]]:
    """Each task of a simulated round: its id (from 1), its annotators, and a draw of one of
    their answers (the task's true label with p 0.7), to be made in turn."""
    rng = random.Random(seed)
    for t in range(1, tasks + 1):
        truth, who = _label(rng)
        yield t, who, lambda: _given(truth, rng)  # noqa: B023 (drawn before the next task)


def make_export(path: Path, tasks: int) -> None:
    """Label Studio JSON export: a list of tasks, compact separators, ~620 bytes a task."""
    with path.open("w") as f:
        f.write("[")
        for t, who, answer in _round(0, tasks):
            anns = [
                {
                    "id": t * PER_TASK + k,
                    "completed_by": a + 1,
                    "result": [
                        {
                            "value": {"choices": [answer()]},
                            "from_name": "label",
                            "to_name": "text",
                            "type": "choices",
                        }
                    ],
                    "was_cancelled": False,
                    "created_at": f"2026-10-{1 + k:02d}T10:{t % 60:02d}:00.000000Z",
                }
                for k, a in enumerate(who)
            ]
            task = {"id": t, "annotations": anns, "data": {"text": f"review {t}"}}
            f.write(("," if t > 1 else "") + json.dumps(task, separators=(",", ":")))
        f.write("]")


def make_jsonl(path: Path, tasks: int) -> None:
    """Prodigy db-out, ``choice`` view: one line per (task, annotator), answer accept."""
    options = [{"id": x, "text": x} for x in LABELS]
    with path.open("w") as f:
        for t, who, answer in _round(1, tasks):
            for a in who:
                line = {
                    "text": f"review {t}",
                    "_input_hash": t,
                    "_task_hash": -t,
                    "options": options,
                    "_view_id": "choice",
                    "config": {"choice_style": "single"},
                    "accept": [answer()],
                    "answer": "accept",
                    "_timestamp": 1794821857 + t,
                    "_annotator_id": f"a{a}",
                    "_session_id": f"a{a}",
                }
                f.write(json.dumps(line, separators=(",", ":")) + "\n")


def make_table(path: Path, tasks: int) -> None:
    """A long-format CSV table (``task,annotator,field,value``): one row per (task, annotator)."""
    with path.open("w") as f:
        f.write("task,annotator,field,value\n")
        for t, who, answer in _round(2, tasks):
            f.writelines(f"{t},a{a},label,{answer()}\n" for a in who)


def config(path: Path, kind: str, data: Path, field: str, out: Path) -> None:
    path.write_text(
        f"version: 1\nsource:\n  type: {kind}\n  path: {data}\nfields:\n  {field}:\n"
        f"    labels: [{', '.join(LABELS)}]\nreport:\n  dir: {out}\n  formats: [json]\n"
    )


def inputs(work: Path, tasks: int) -> dict[str, tuple[Path, Path, str]]:
    """name → (data file, config, plain script source); generated once per size."""
    export, jsonl = work / f"export-{tasks}.json", work / f"prodigy-{tasks}.jsonl"
    table = work / f"table-{tasks}.csv"
    for path, make in ((export, make_export), (jsonl, make_jsonl), (table, make_table)):
        if not path.exists():
            make(path, tasks)
    config(work / "ls.yaml", "label-studio-export", export, "label", work / "out-ls")
    config(work / "prodigy.yaml", "prodigy", jsonl, "choice", work / "out-prodigy")
    config(work / "table.yaml", "table", table, "label", work / "out-table")
    return {
        f"Label Studio export, {tasks:,} tasks ({export.stat().st_size / 1e6:.0f} MB)": (
            export,
            work / "ls.yaml",
            PLAIN_LS,
        ),
        f"Prodigy JSONL, {PER_TASK * tasks:,} lines ({jsonl.stat().st_size / 1e6:.0f} MB)": (
            jsonl,
            work / "prodigy.yaml",
            PLAIN_PRODIGY,
        ),
        f"CSV table, {PER_TASK * tasks:,} rows ({table.stat().st_size / 1e6:.0f} MB)": (
            table,
            work / "table.yaml",
            PLAIN_TABLE,
        ),
    }


def compare(work: Path, tasks: int, repeats: int, trees: list[Path], only: str = "") -> None:
    """Each input (whose name holds ``only``): ``iaa-gate run`` (this tree, then each of
    ``trees``) and the plain script, in turn ``repeats`` times; median wall, CPU and peak
    RSS."""
    py = sys.executable
    print("| input | command | wall (s) | CPU (s) | peak RSS (MiB) |\n|:---|:---|---:|---:|---:|")
    for name, (data, cfg, plain) in inputs(work, tasks).items():
        if only not in name:
            continue
        script = work / ("plain_" + cfg.stem + ".py")
        script.write_text(plain)
        run = [py, "-c", CLI, "run", "-c", str(cfg), "-q"]
        cmds: dict[str, tuple[list[str], dict[str, str] | None]] = {
            "iaa-gate run --format json": (run, None),
            **{f"iaa-gate run, {t}": (run, {"PYTHONPATH": str(t / "plugin")}) for t in trees},
            "plain script": ([py, str(script), str(data)], None),
        }
        runs: dict[str, list[Proc]] = {k: [] for k in cmds}
        for _ in range(repeats):
            for k, (cmd, env) in cmds.items():
                runs[k].append(measure(cmd, 1, env))
        med = {k: _median(v) for k, v in runs.items()}
        for k, (wall, cpu, rss) in med.items():
            print(f"| {name} | {k} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |", flush=True)
        ours, plain = med["iaa-gate run --format json"], med["plain script"]
        wall, cpu = ours[0] / plain[0], ours[1] / plain[1]
        print(f"| {name} | iaa-gate / plain | {wall:.2f}× | {cpu:.2f}× | |")


def _median(runs: list[Proc]) -> tuple[float, float, float]:
    """Median wall, CPU and peak RSS of single runs."""
    return (
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.rss for r in runs),
    )


def decoders(work: Path, tasks: int, repeats: int) -> None:
    files = list(inputs(work, tasks).values())[:2]  # the JSON files
    print("\n| file | decoder | wall (s) | peak RSS (MiB) |\n|:---|:---|---:|---:|")
    for (data, _, _), table in zip(files, (DECODE, DECODE_LINES), strict=True):
        for name, body in table.items():
            try:
                p = measure([sys.executable, "-c", "import sys\n" + body, str(data)], repeats)
            except RuntimeError as exc:
                print(f"| {data.name} | {name} | failed: {str(exc)[-80:]} | |")
                continue
            print(f"| {data.name} | {name} | {p.wall:.2f} | {p.rss:.0f} |", flush=True)


def profile(work: Path, tasks: int) -> None:
    from iaa_gate.cli import main as cli_main

    for _, cfg, _ in inputs(work, tasks).values():
        prof = cProfile.Profile()
        prof.runcall(cli_main, ["run", "-c", str(cfg), "-q"])
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf).sort_stats("cumulative")
        stats.print_stats(r"iaa_gate|json|krippendorff", 25)
        print(f"\n### profile: {cfg.name}\n\n```\n" + _trim(buf.getvalue()) + "```")
        buf = io.StringIO()  # the report side: building the document and writing the files
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(r"iaa_gate/report/", 8)
        print(f"\nreport side ({cfg.name}):\n\n```\n" + _trim(buf.getvalue()) + "```")


def _trim(text: str) -> str:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    return "\n".join(line.replace(str(Path.cwd()) + "/", "") for line in lines[start:]) + "\n"


def input_parser(doc: str, repeats: int) -> argparse.ArgumentParser:
    """The arguments of every benchmark over issue 10's inputs (:func:`inputs`): ``--tasks``,
    ``--repeats`` (default ``repeats``) and ``--workdir``, the one folder that caches the
    inputs for all of them. ``doc``: the script's docstring, whose first line describes it."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--tasks", type=float, default=1e5)
    parser.add_argument("--repeats", type=int, default=repeats)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "iaa-bench")
    return parser


def main() -> int:
    parser = input_parser(__doc__, repeats=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--decoders", action="store_true")
    parser.add_argument("--no-compare", action="store_true")
    parser.add_argument("--only", default="", help="the inputs whose name holds this text")
    parser.add_argument(
        "--tree", type=Path, action="append", default=[], help="another checkout to alternate"
    )
    args = parser.parse_args()
    tasks = int(args.tasks)
    args.workdir.mkdir(parents=True, exist_ok=True)
    trees = [t.resolve() for t in args.tree]
    for tree in [Path(__file__).resolve().parents[1], *trees]:
        compiled(tree / "plugin")
    if not args.no_compare:
        compare(args.workdir, tasks, args.repeats, trees, args.only)
    if args.decoders:
        decoders(args.workdir, tasks, args.repeats)
    if args.profile:
        profile(args.workdir, tasks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
