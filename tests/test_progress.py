"""Progress of long steps (issue 17): reading, the bootstrap and free-text distances announce
their steps to a listener only; the library prints nothing unless asked, ``--quiet`` silences
the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.adapters.prodigy.source import ProdigyJSONL
from iaa_gate.cli import main
from iaa_gate.core import progress
from iaa_gate.metrics import bootstrap

ROOT = Path(__file__).resolve().parents[1]


class Recorder:
    def __init__(self) -> None:
        self.steps: list[list[Any]] = []

    def __call__(self, what: str, total: int, unit: str, estimate: float | None) -> Any:
        self.steps.append([what, total, unit, 0, False])
        return self

    def advance(self, n: int) -> None:
        self.steps[-1][3] += n

    def close(self) -> None:
        self.steps[-1][4] = True


def test_reading_reports_its_progress_to_a_listener_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = next((ROOT / "examples" / "prodigy").glob("*.jsonl"))
    rec = Recorder()
    with progress.reporting(rec):
        ProdigyJSONL(path).load()
        LabelStudioExport(ROOT / "examples" / "label-studio" / "export.json").load()
    size = path.stat().st_size
    tasks = len(json.loads((ROOT / "examples/label-studio/export.json").read_text()))
    assert rec.steps == [
        [f"read {path.name}", size, "B", size, True],
        ["read tasks", tasks, "tasks", tasks, True],
    ]
    ProdigyJSONL(path).load()  # nobody listens
    assert capsys.readouterr() == ("", "")


def test_a_long_bootstrap_reports_its_replicates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bootstrap, "PROGRESS_CELLS", 1)
    rec = Recorder()
    ratings = [[1, 2, 3], [1, 1, 2], [3, 3, 3], [2, 1, 1], [1, None, 2]] * 4
    with progress.reporting(rec):
        bootstrap.alpha_bootstrap(ratings, "interval", replicates=300)
    assert rec.steps == [["bootstrap", 300, "replicates", 300, True]]


def test_quiet_runs_print_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = ROOT / "examples" / "label-studio" / "iaa-gate.yaml"
    main(["run", "-c", str(cfg), "--out", str(tmp_path), "-q"])
    assert capsys.readouterr() == ("", "")


def test_describing_disputed_region_tasks_reports_its_progress() -> None:
    """Describing each disputed region task (its regions, excerpt and disagreements: the long
    step of a dense region field) is a step too: every task advanced, the step closed."""
    from iaa_gate.config import load_config
    from iaa_gate.pipeline import evaluate

    cfg = load_config(ROOT / "examples" / "label-studio-ner" / "iaa-gate.yaml")
    data = LabelStudioExport(ROOT / "examples" / "label-studio-ner" / "export.json").load()
    rec = Recorder()
    with progress.reporting(rec):
        out = evaluate(cfg, data)
    steps = [s for s in rec.steps if s[0] == "describe disputed tasks"]
    disputed = sum(len(r.disputed) for r in out.results.values() if r.regions is not None)
    assert steps and all(s[1:] == [s[1], "tasks", s[1], True] for s in steps)
    assert sum(s[1] for s in steps) == disputed > 0


def test_a_long_matching_reports_its_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """Region matching announces its groups of competing regions (one assignment each) from
    ``PROGRESS_GROUPS`` on, to a listener only."""
    from iaa_gate.metrics import regions

    monkeypatch.setattr(regions, "PROGRESS_GROUPS", 1)
    # two annotators, each with two spans that overlap both of the other's: one group per task
    spans = [(u, a, s) for u in range(3) for a in (0, 1) for s in ((0, 10), (2, 12))]
    table = regions.Regions(
        unit=np.array([u for u, _, _ in spans]),
        annotator=np.array([a for _, a, _ in spans]),
        label=np.zeros(len(spans), dtype=np.int64),
        geometry=np.array([s for _, _, s in spans], dtype=np.float64),
        rated=np.ones((3, 2), dtype=bool),
        kind="span",
        labels=("X",),
    )
    rec = Recorder()
    with progress.reporting(rec):
        matched = regions.match_regions(table)
    assert len(matched.first) == 6  # each task: both pairs matched
    assert rec.steps == [["match regions", 3, "groups", 3, True]]
    regions.match_regions(table)  # nobody listens: nothing recorded, nothing printed
    assert len(rec.steps) == 1
