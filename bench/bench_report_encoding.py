"""Report encoding: ``report.json`` and ``disputed-tasks.jsonl`` of issue 10's 100,000-task run,
through each JSON encoder, on the same in-memory document.

    PYTHONPATH=plugin .venv/bin/python bench/bench_report_encoding.py [--tasks 100000] [--repeats 5]

The export is ``bench_run.py``'s (generated once into ``--workdir``); it is read and evaluated once,
in process, then each encoder renders the same document (median of ``--repeats``):

- ``json`` (standard library), schema 1: the whole report with every disputed task inline,
  ``indent=2, sort_keys=True, allow_nan=False``, what iaa-gate wrote before schema 2;
- ``json`` (standard library), schema 2: report.json with the 100 lowest scores per field, and
  one ``json.dumps`` per disputed-tasks.jsonl line;
- ``msgspec.json``: ``Encoder(order="sorted")``, ``format(indent=2)`` and ``encode_lines`` —
  iaa-gate's writers, with their guard against NaN (msgspec writes it as null): a walk over
  report.json's document, and over the disputed tasks only when their lines hold a ``null``;
- ``orjson`` (if installed; not a dependency): ``OPT_SORT_KEYS | OPT_INDENT_2``, one call per
  line, with the same guard.

Each output is checked against the standard library's: report.json parsed back equal, the
JSON Lines byte for byte (compact separators).
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from bench_html import median_time
from bench_run import LABELS, input_parser, make_export
from iaa_gate.config import parse_config
from iaa_gate.evaluation.document import Disputed, DisputedTask
from iaa_gate.pipeline import Outcome, evaluate, make_source
from iaa_gate.sinks.report.json import DisputedTasksWriter, JsonWriter, check_finite


def outcome(work: Path, tasks: int) -> Outcome:
    export = work / f"export-{tasks}.json"
    if not export.exists():
        make_export(export, tasks)
    config = parse_config(
        {
            "version": 1,
            "source": {"type": "label-studio-export", "path": str(export)},
            "fields": {"label": {"labels": LABELS}},
        }
    )
    return evaluate(config, make_source(config).load())


Plain = dict[str, list[dict[str, Any]]]  # the disputed tasks as dicts, for json and orjson
Rendering = Callable[[dict[str, Any], Any], bytes]


def _rows(disputed: Plain) -> list[dict[str, Any]]:
    return [row for name in sorted(disputed) for row in disputed[name]]


def plain(disputed: Disputed) -> Plain:
    return {k: [msgspec.to_builtins(t) for t in v] for k, v in disputed.items()}


def _without_field(task: DisputedTask) -> dict[str, Any]:
    """A disputed task as schema 1 listed it in report.json: without its field's name."""
    return {k: v for k, v in msgspec.to_builtins(task).items() if k != "field"}


def stdlib_report(doc: dict[str, Any], disputed: Any) -> bytes:
    text = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode()


def stdlib_lines(doc: dict[str, Any], disputed: Plain) -> bytes:
    return "".join(
        json.dumps(r, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        + "\n"
        for r in _rows(disputed)
    ).encode()


def ours_report(doc: dict[str, Any], disputed: Disputed) -> bytes:
    out = JsonWriter().render(doc, disputed)
    return out if isinstance(out, bytes) else out.encode()


def ours_lines(doc: dict[str, Any], disputed: Disputed) -> bytes:
    out = DisputedTasksWriter().render(doc, disputed)
    return out if isinstance(out, bytes) else out.encode()


def orjson_report(doc: dict[str, Any], disputed: Any) -> bytes:
    import orjson

    check_finite(doc, "report.json")
    out: bytes = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)
    return out + b"\n"


def orjson_lines(doc: dict[str, Any], disputed: Plain) -> bytes:
    import orjson

    out = b"".join(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) + b"\n" for r in _rows(disputed))
    if b"null" in out:  # the same guard as iaa-gate's
        check_finite(disputed, "disputed-tasks.jsonl")
    return out


def main() -> int:
    args = input_parser(__doc__, repeats=5).parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    out = outcome(args.workdir, int(args.tasks))
    doc, disputed = out.document, out.disputed
    # schema 1: every disputed task inline (without the field name each line carries)
    v1 = {
        **doc,
        "fields": {
            name: {**f, "disputed": [_without_field(d) for d in rows]}
            for (name, f), rows in zip(doc["fields"].items(), disputed.values(), strict=True)
        },
    }
    dicts = plain(disputed)  # built once, outside the timings (iaa-gate encodes its structs)
    gc.freeze()  # as in iaa-gate run: the collector does not rescan the loaded data
    n = sum(map(len, disputed.values()))
    print(f"\n{int(args.tasks):,} tasks, {n:,} disputed\n")
    encoders: dict[str, tuple[Rendering, Rendering | None, Any]] = {
        "json, schema 1 (every disputed task in report.json)": (stdlib_report, None, None),
        "json, schema 2": (stdlib_report, stdlib_lines, dicts),
        "msgspec, schema 2 (iaa-gate)": (ours_report, ours_lines, disputed),
    }
    try:
        import orjson  # noqa: F401

        encoders["orjson, schema 2"] = (orjson_report, orjson_lines, dicts)
    except ImportError:
        print("(orjson not installed: pip install orjson to add it)\n")
    reference = stdlib_report(doc, None), stdlib_lines(doc, dicts)
    print(
        "| encoder | report.json (s) | report.json (MB) | disputed-tasks.jsonl (s) | jsonl (MB) |"
    )
    print("|:---|---:|---:|---:|---:|")
    for name, (report_fn, lines_fn, tasks) in encoders.items():
        d = doc if lines_fn else v1
        report = report_fn(d, tasks)
        lines = lines_fn(doc, tasks) if lines_fn else b""
        if lines_fn:  # the same data as the standard library's; the same bytes but for floats
            assert json.loads(report) == json.loads(reference[0]), name
            assert lines == reference[1], name
        t_report = median_time(lambda f=report_fn, d=d, x=tasks: f(d, x), args.repeats)
        t_lines = (
            median_time(lambda f=lines_fn, x=tasks: f(doc, x), args.repeats) if lines_fn else 0
        )
        print(
            f"| {name} | {t_report:.3f} | {len(report) / 1e6:.2f} | "
            + (f"{t_lines:.3f} | {len(lines) / 1e6:.2f} |" if lines_fn else "— | — |")
        )
    walk = median_time(lambda: check_finite(disputed, "x"), args.repeats)
    print(f"\nThe finite-number walk over every disputed task (not needed: no null): {walk:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
