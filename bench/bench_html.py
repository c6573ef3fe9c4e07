"""The HTML report's cost: the bundled example's whole run, and a 100,000-task round.

    PYTHONPATH=plugin .venv/bin/python bench/bench_html.py [--tasks 100000] [--repeats 3]

Prints Markdown tables (see bench/README.md). References in the same run: the same CLI run
without the HTML format; the JSON and Markdown writers on the same document; and the plain
script a user would write for the disputed table, ``pandas.DataFrame.to_html`` over every row.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from _data import ratings
from iaa_gate.config import parse_config
from iaa_gate.evaluation.document import Disputed, Report
from iaa_gate.model import Annotation, Dataset, FieldValue
from iaa_gate.pipeline import evaluate
from iaa_gate.sinks.report import charts
from iaa_gate.sinks.report.html import HtmlWriter
from iaa_gate.sinks.report.json import DisputedTasksWriter, JsonWriter
from iaa_gate.sinks.report.markdown import MarkdownWriter

ROOT = Path(__file__).resolve().parent.parent
LABELS = ["Positive", "Negative", "Neutral", "Mixed"]


def median_time(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cli_run(formats: list[str], out: Path) -> None:
    args = [sys.executable, "-m", "iaa_gate.cli", "run", "-q", "--out", str(out)]
    args += [x for f in formats for x in ("--format", f)]
    args += ["--config", "examples/label-studio/iaa-gate.yaml"]
    subprocess.run(args, cwd=ROOT, check=True)


def example(repeats: int) -> None:
    print("\n### Bundled example (250 tasks, 4 annotators, 3 fields): whole CLI run\n")
    print("| formats | wall time (s) | report.html (KB) |")
    print("|:---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for formats in (["json", "markdown", "junit"], ["json", "markdown", "html", "junit"]):
            out = Path(tmp) / "-".join(formats)
            t = median_time(lambda f=formats, o=out: cli_run(f, o), repeats)
            html = out / "report.html"
            size = f"{html.stat().st_size / 1e3:.0f}" if html.exists() else "—"
            print(f"| {', '.join(formats)} | {t:.2f} | {size} |")


def dataset(tasks: int, annotators: int = 12) -> Dataset:
    """One nominal field, ``tasks`` tasks, each rated by ~3 of ``annotators`` (seeded)."""
    x = ratings(tasks, annotators, categories=len(LABELS), agree=0.75, missing=0.75, seed=1)
    anns = [
        Annotation(
            t, f"ann{a:02d}@example.com", {"sentiment": FieldValue("choices", (LABELS[int(v)],))}
        )
        for t, a in zip(*np.nonzero(~np.isnan(x)), strict=True)
        for v in [x[t, a]]
    ]
    return Dataset("synthetic", anns, list(range(tasks)))


def large(tasks: int, repeats: int) -> None:
    config = parse_config(
        {
            "version": 1,
            "source": {"type": "label-studio-export", "path": "synthetic.json"},
            "fields": {"sentiment": {"labels": LABELS, "bootstrap": {"replicates": 0}}},
        }
    )
    data = dataset(tasks)
    outcome = evaluate(config, data)
    doc, disputed = outcome.report, outcome.disputed
    f = doc.fields["sentiment"]
    print(f"\n### {tasks:,} tasks, 12 annotators, ~3 ratings per task: {f.n_disputed:,} disputed\n")
    print("| renders | time (s) | size (MB) |")
    print("|:---|---:|---:|")
    rows: list[tuple[str, Callable[[], str | bytes]]] = [
        ("report.html with charts (iaa-gate)", lambda: HtmlWriter().render(doc, disputed)),
        ("report.json (iaa-gate)", lambda: JsonWriter().render(doc)),
        ("disputed-tasks.jsonl (iaa-gate)", lambda: DisputedTasksWriter().render(doc, disputed)),
        ("report.md (iaa-gate)", lambda: MarkdownWriter().render(doc)),
    ]
    try:
        import pandas as pd

        every = disputed["sentiment"]
        table = [{"task": d.id, "score": d.score, **d.labels} for d in every]
        rows.append(
            (
                "every disputed row, pandas `DataFrame.to_html`",
                lambda: pd.DataFrame(table).to_html(),
            )
        )
    except ImportError:
        pass
    rows.append(
        ("report.html without matplotlib (tables only)", lambda: tables_only(doc, disputed))
    )
    for name, fn in rows:
        text = fn()
        t = median_time(fn, repeats)
        size = len(text.encode() if isinstance(text, str) else text)
        print(f"| {name} | {t:.2f} | {size / 1e6:.2f} |")


def tables_only(doc: Report, disputed: Disputed) -> str:
    """The HTML report as rendered where matplotlib is not installed."""
    real = charts.available
    charts.available = lambda: False  # type: ignore[assignment]
    try:
        return HtmlWriter().render(doc, disputed)
    finally:
        charts.available = real  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    example(args.repeats)
    large(args.tasks, args.repeats)


if __name__ == "__main__":
    main()
