"""Trends: the change since the previous round (--compare, history:), max_drop checks, reports
of another schema version or with other fields, and --json."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
import yaml

from iaa_gate.cli import ExitCode, main
from iaa_gate.config import parse_config, relative_to
from iaa_gate.pipeline import evaluate, make_source
from iaa_gate.sinks.report.history import read_history, save_history

ROOT = Path(__file__).resolve().parent.parent
EXPORT = ROOT / "examples" / "label-studio" / "export.json"
CONFIG = ROOT / "examples" / "label-studio" / "iaa-gate.yaml"


def write_config(tmp_path: Path, **extra: Any) -> Path:
    cfg: dict[str, Any] = {
        "source": {"type": "label-studio-export", "path": str(EXPORT)},
        "fields": {
            "sentiment": {
                "bootstrap": {"replicates": 0},
                "thresholds": {"max_drop": {"alpha": 0.01, "annotator": {"warn": 0.05}}},
            },
            "helpfulness": {"bootstrap": {"replicates": 0}},
        },
        "report": {"dir": str(tmp_path / "out"), "formats": ["json", "markdown"]},
        **extra,
    }
    path = tmp_path / "iaa-gate.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def report(tmp_path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((tmp_path / "out" / "report.json").read_text())
    return doc


def test_history_compares_with_the_last_round_and_fails_on_a_drop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = write_config(tmp_path, history={"dir": str(tmp_path / "hist"), "keep": 2})
    # Round 1: tasks 1750–1870 (sentiment alpha 0.777); nothing to compare with yet.
    assert main(["run", "-c", str(cfg), "--tasks", "1750-1870", "-q"]) == ExitCode.OK
    assert report(tmp_path)["trend"] is None
    # Round 2: all tasks, alpha 0.762: a fall of 0.014 > 0.01 turns the gate red.
    assert main(["run", "-c", str(cfg)]) == ExitCode.GATE_FAILED
    out = capsys.readouterr().out
    assert "since the previous round: alpha -0.014" in out
    assert "fail: alpha changed by -0.014 since" in out and "fell more than 0.01" in out
    doc = report(tmp_path)
    t = doc["trend"]["fields"]["sentiment"]
    assert t["alpha"]["previous"] == pytest.approx(0.7769, abs=1e-4)
    assert t["alpha"]["change"] == pytest.approx(
        doc["fields"]["sentiment"]["alpha"] - 0.7769, abs=1e-4
    )
    assert t["categories"]["Mixed"]["change"] == pytest.approx(0.534 - 0.521, abs=2e-3)
    assert [p["alpha"] for p in t["series"]] == [
        pytest.approx(0.7769, abs=1e-4),
        t["alpha"]["current"],
    ]
    drops = {c["name"]: c for c in doc["fields"]["sentiment"]["checks"]}
    assert drops["max_drop.alpha"]["verdict"] == "fail" and drops["max_drop.alpha"]["fail"] == -0.01
    assert drops["max_drop.annotator"]["verdict"] in ("pass", "warn")
    schema = json.loads(
        (ROOT / "plugin" / "iaa_gate" / "schemas" / "report.schema.json").read_text()
    )
    jsonschema.validate(doc, schema)
    md = (tmp_path / "out" / "report.md").read_text()
    assert "## Since the previous round" in md and "| sentiment | 0.777 | 0.762 | ▼ -0.014 |" in md
    # A third run keeps only the two newest reports.
    main(["run", "-c", str(cfg), "-q"])
    assert len(list((tmp_path / "hist").glob("*.json"))) == 2


def test_other_schema_version_and_fields_are_said_not_scored(tmp_path: Path) -> None:
    cfg = write_config(tmp_path)
    assert main(["run", "-c", str(cfg), "-q"]) == ExitCode.OK
    prev = report(tmp_path)
    prev["schema_version"] = 0
    prev["fields"]["helpfulness"]["level"] = "interval"
    prev["fields"]["topics"] = prev["fields"].pop("sentiment")
    old = tmp_path / "old.json"
    old.write_text(json.dumps(prev))
    code = main(["run", "-c", str(cfg), "--compare", str(old), "-q"])
    doc = report(tmp_path)
    trend = doc["trend"]
    assert any("schema_version 0" in n for n in trend["notes"])
    assert any("previous report only: topics" in n for n in trend["notes"])
    assert trend["fields"]["sentiment"] == {
        "comparable": False,
        "note": "not in the previous report",
        "series": [{"generated_at": None, "alpha": doc["fields"]["sentiment"]["alpha"]}],
    }
    assert "level changed from interval to ordinal" in trend["fields"]["helpfulness"]["note"]
    # max_drop cannot be checked: the field's on_undefined verdict (warn), never a pass.
    check = next(c for c in doc["fields"]["sentiment"]["checks"] if c["name"] == "max_drop.alpha")
    assert check["verdict"] == "warn" and "not in the previous report" in check["message"]
    assert code == ExitCode.OK and doc["verdict"] == "warn"
    jsonschema.validate(
        doc,
        json.loads((ROOT / "plugin" / "iaa_gate" / "schemas" / "report.schema.json").read_text()),
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "previous report not found"), ("{", "not valid JSON"), ("[1]", "not an iaa-gate")],
)
def test_unreadable_previous_report_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    prev = tmp_path / "prev.json"
    if content is not None:
        prev.write_text(content)
    assert main(["run", "-c", str(write_config(tmp_path)), "--compare", str(prev)]) == 2
    err = capsys.readouterr().err
    assert str(prev) in err and message in err and "Traceback" not in err


def test_json_summary_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(tmp_path)
    main(["run", "-c", str(cfg), "-q"])
    capsys.readouterr()
    prev = tmp_path / "out" / "report.json"
    kept = tmp_path / "prev.json"
    kept.write_text(prev.read_text())
    assert main(["run", "-c", str(cfg), "--compare", str(kept), "--json"]) == ExitCode.OK
    summary = json.loads(capsys.readouterr().out)
    assert summary["verdict"] == "warn" and summary["exit_code"] == 0
    assert summary["previous"] == str(kept)
    s = summary["fields"]["sentiment"]
    assert s["alpha_change"] == 0.0 and s["alpha"] == pytest.approx(0.7625, abs=1e-4)
    assert s["problems"][0]["check"] == "alpha" and s["problems"][0]["verdict"] == "warn"
    names = ("report.json", "disputed-tasks.jsonl", "consensus.jsonl", "report.md")
    assert summary["reports"] == [str(tmp_path / "out" / n) for n in names]
    assert s["ground_truth_lowest"]["name"] == "5" and s["ground_truth_lowest"]["agreement"] == 0.5
    width = s["interval_width"]  # no bootstrap here: no interval, and the reason
    assert width["width"] is None and width["undefined_reason"] and width["goal"] is None
    # a run that cannot be done still answers in JSON on stdout (and exits 2)
    assert main(["run", "-c", str(cfg), "--compare", str(tmp_path / "nope.json"), "--json"]) == 2
    error = json.loads(capsys.readouterr().out)
    assert error["verdict"] == "error" and "previous report not found" in error["error"]


def test_history_names_sort_in_run_order(tmp_path: Path) -> None:
    config = relative_to(parse_config(yaml.safe_load(CONFIG.read_text()), CONFIG), CONFIG.parent)
    at = datetime(2026, 11, 23, 1, 5, tzinfo=timezone.utc)
    report = evaluate(config, make_source(config).load(), generated_at=at).report
    first = save_history(msgspec.structs.replace(report, verdict="pass"), tmp_path, None)
    second = save_history(msgspec.structs.replace(report, verdict="fail"), tmp_path, None)
    assert first != second  # the same second
    reports, notes = read_history(tmp_path)
    assert [r.doc.verdict for r in reports] == ["pass", "fail"] and notes == []
    (tmp_path / "2026-11-24T00-00-00-00-00.json").write_text("{")  # a broken file is set aside
    reports, notes = read_history(tmp_path)
    assert len(reports) == 2 and "not valid JSON" in notes[0] and "set aside" in notes[0]
