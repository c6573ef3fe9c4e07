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


def test_quiet_runs_print_the_summary_and_no_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--quiet`` turns off the progress bars and time estimates (stderr), as the README says;
    the summary, the run's verdict, is still printed."""
    cfg = ROOT / "examples" / "label-studio" / "iaa-gate.yaml"
    main(["run", "-c", str(cfg), "--out", str(tmp_path), "-q"])
    out, err = capsys.readouterr()
    assert out.startswith("iaa-gate ! warn  ") and "sentiment    alpha 0.762" in out
    assert err == ""


def test_describing_disputed_region_tasks_says_how_long_it_will_take(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Describing each disputed region task (its regions, excerpt and disagreements: the long
    step of a dense region field) is announced once the first tasks are timed, with an
    estimate of the rest: every task advanced, the step closed."""
    from iaa_gate.config import load_config
    from iaa_gate.pipeline import evaluate

    monkeypatch.setattr(progress, "SAMPLE", 2)
    cfg = load_config(ROOT / "examples" / "label-studio-ner" / "iaa-gate.yaml")
    data = LabelStudioExport(ROOT / "examples" / "label-studio-ner" / "export.json").load()
    rec = Estimates()
    with progress.reporting(rec):
        out = evaluate(cfg, data)
    steps = [s for s in rec.steps if s[0] == "describe disputed tasks"]
    disputed = sum(len(r.disputed) for r in out.results.values() if r.regions is not None)
    assert steps and all(s[1:] == [s[1], "tasks", s[1], True] for s in steps)
    assert sum(s[1] + 2 for s in steps) == disputed > 2
    assert all(e is not None and e > 0 for e in rec.estimates)


class Estimates(Recorder):
    """A :class:`Recorder` that keeps each step's estimate too."""

    def __init__(self) -> None:
        super().__init__()
        self.estimates: list[float | None] = []

    def __call__(self, what: str, total: int, unit: str, estimate: float | None) -> Any:
        self.estimates.append(estimate)
        return super().__call__(what, total, unit, estimate)


def test_a_loop_of_even_cost_says_its_time_up_front(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the first items are timed, the CLI's listener writes the rest's estimate (from
    ``ESTIMATE_SAY`` seconds) before the loop goes on; a loop of no more than the sample says
    nothing. The loop's time is set on an injected clock, not spent."""
    now = [0.0]
    monkeypatch.setattr(progress, "clock", lambda: now[0])
    monkeypatch.setattr(progress, "ESTIMATE_SAY", 0.5)
    items = list(range(progress.SAMPLE + 10_000))
    with progress.reporting(progress.Terminal(bars=False)):
        for i in progress.estimated("slow things", items, "things"):
            if i < progress.SAMPLE:
                now[0] += 0.0002  # the sample: 0.2 ms an item, so 2 s for the rest
            if i == progress.SAMPLE:
                said = capsys.readouterr().err
        assert capsys.readouterr().err == ""
        for _ in progress.estimated("few things", items[: progress.SAMPLE], "things"):
            pass
    assert said.startswith("iaa-gate: slow things: 10,000 things, about 2 s")
    assert capsys.readouterr() == ("", "")


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


def test_a_simulated_plan_says_its_time_up_front(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``iaa-gate plan --width`` simulates rounds for minutes at its defaults: once a few rounds
    are timed, it writes the rest's estimate on stderr before going on (``--quiet``: nothing).
    Each round's time is set on an injected clock, not spent."""
    from iaa_gate import cli
    from iaa_gate.metrics import sample_size

    now = [0.0]
    monkeypatch.setattr(progress, "clock", lambda: now[0])
    real = sample_size.alpha_bootstrap

    def slow(*args: Any, **kwargs: Any) -> Any:
        now[0] += 0.05  # 50 ms a simulated round
        return real(*args, **kwargs)

    monkeypatch.setattr(sample_size, "alpha_bootstrap", slow)
    argv = ["plan", "--width", "0.3", "--alpha", "0.8", "--categories", "2", "--rounds", "200"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert "iaa-gate: simulate rounds of 100 units: 192 rounds, about 10 s" in err, err
    assert cli.main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
