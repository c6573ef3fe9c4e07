"""Model predictions as a reference, on an export with two model versions: never ratings, each
version against the human consensus per field and per label (worked by hand against the
majority consensus, set explicitly so the figures do not depend on how the run's consensus is
found), the started-from split, in every report format; predictions given by id only are listed
as not compared."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import msgspec
import pytest

import iaa_gate
from iaa_gate.cli import main
from iaa_gate.evaluation.sections import Models

ROOT = Path(__file__).resolve().parent
CASE = ROOT / "corpus" / "model-predictions-two-versions"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("models") / "out"
    assert main(["run", "-c", str(CASE / "iaa-gate.yaml"), "--out", str(out), "-q"]) == 0
    return out


def _models(out: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return doc


def test_predictions_are_never_ratings(written: Path) -> None:
    doc = _models(written)
    field = doc["fields"]["sentiment"]
    assert (field["n_annotators"], field["n_ratings"]) == (3, 24)
    assert doc["input"]["annotators"] == 3


def _against_majority() -> dict[str, Any]:
    """The models section with every unit's consensus its majority answer (a tie marked)."""
    from iaa_gate.evaluation.models import models_section
    from iaa_gate.pipeline import make_source
    from majority import majority

    config = iaa_gate.load_config(CASE / "iaa-gate.yaml")
    outcome = iaa_gate.evaluate(config)
    for u in outcome.results["sentiment"].units:
        u.consensus = majority(list(u.labels.values()))
    section = models_section(outcome.results, make_source(config).load(), config)
    assert section is not None
    data: dict[str, Any] = msgspec.to_builtins(section)  # the report.json form
    return data


def test_each_model_version_against_the_human_consensus() -> None:
    """Worked by hand: model-v1 gives the majority answer on 6 of the 7 tasks without a tie,
    model-v2 on 2 of 4; annotator 1 started from model-v1 on tasks 1-4 and kept it each time,
    the 20 other answers on those 8 tasks give model-v1's label 13 times."""
    models = _against_majority()
    # iaa-gate's own consensus prediction on task 2 is no model's
    assert models["model_versions"] == ["model-v1", "model-v2"]
    assert models["predictions"] == 12 and models["started_from"] == 4
    f = models["fields"]["sentiment"]
    assert (f["consensus_tasks"], f["ties"], f["comparison"]) == (7, 1, "exact match")
    people = {a["annotator"]: (a["n_tasks"], a["agreement"]) for a in f["annotators"]}
    assert people == {"1": (7, 1.0), "2": (7, 1.0), "3": (7, pytest.approx(5 / 7, abs=1e-6))}
    v1, v2 = f["versions"]
    assert (v1["model_version"], v1["n_tasks"], v1["predicted_tasks"]) == ("model-v1", 7, 8)
    assert v1["agreement"] == pytest.approx(6 / 7, abs=1e-6)
    assert {k: (r["n_tasks"], r["agreement"]) for k, r in v1["labels"].items()} == {
        "Negative": (3, pytest.approx(2 / 3, abs=1e-6)),
        "Neutral": (1, 1.0),
        "Positive": (3, 1.0),
    }
    assert v1["started_from_it"] == {"n": 4, "agreement": 1.0}
    assert v1["not_started_from_it"] == {"n": 20, "agreement": 0.65}
    assert (v2["n_tasks"], v2["agreement"]) == (4, 0.5)
    assert v2["labels"]["Neutral"] == {"n_tasks": 0, "agreement": None}
    assert v2["started_from_it"] == {"n": 0, "agreement": None}
    assert v2["not_started_from_it"] == {"n": 12, "agreement": 0.5}


def test_the_python_api_gives_the_run_s_figures(written: Path) -> None:
    outcome = iaa_gate.evaluate(CASE / "iaa-gate.yaml")
    assert outcome.document["models"] == _models(written)["models"]


def _rows(written: Path) -> list[tuple[str, ...]]:
    from iaa_gate.sinks.report.format import model_rows

    rows = model_rows(msgspec.convert(_models(written)["models"], Models))
    assert [r[:2] for r in rows] == [("sentiment", "model-v1"), ("sentiment", "model-v2")]
    return rows


def test_every_report_format_shows_the_models(written: Path) -> None:
    """The run's figures (report.json) in report.md, report.html and junit.xml."""
    v1, v2 = _rows(written)
    md = (written / "report.md").read_text(encoding="utf-8")
    assert "## Model predictions" in md
    assert "| " + " | ".join(v1) + " |" in md and "| " + " | ".join(v2) + " |" in md
    assert "| sentiment | model-v1 | Negative |" in md
    html = (written / "report.html").read_text(encoding="utf-8")
    table = re.search(r'<table id="models">.*?</table>', html, re.S)
    assert table is not None
    assert re.findall(r"<td>(.*?)</td>", table.group(0)) == [*v1, *v2]
    assert '<table id="model-labels">' in html
    suite = ET.parse(written / "junit.xml").getroot().find("testsuite[@name='model-predictions']")
    assert suite is not None and suite.get("failures") == "0"
    cases = {c.get("name"): c.findtext("system-out") for c in suite.iter("testcase")}
    assert set(cases) == {"model-v1", "model-v2"}
    assert f"agreement with consensus: {v2[3]}" in (cases["model-v2"] or "")


def test_predictions_given_by_id_only_are_listed_as_not_compared(tmp_path: Path) -> None:
    """Label Studio's default export names predictions by id: they cannot be compared, and
    every format says so."""
    tasks = json.loads((CASE / "export.json").read_text(encoding="utf-8"))
    for t in tasks:
        t["predictions"] = [p["id"] for p in t["predictions"]]
    (tmp_path / "export.json").write_text(json.dumps(tasks), encoding="utf-8")
    cfg = (CASE / "iaa-gate.yaml").read_text(encoding="utf-8")
    (tmp_path / "c.yaml").write_text(cfg, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", "-c", str(tmp_path / "c.yaml"), "--out", str(out), "-q"]) == 0
    models = _models(out)["models"]
    assert models["ids_only"] == 13 and models["predictions"] == 0 and models["fields"] == {}
    assert "Not evaluated: 13 model prediction(s) are given by id only" in (
        out / "report.md"
    ).read_text(encoding="utf-8")
    assert "13 model prediction(s) are given by id only" in (out / "report.html").read_text(
        encoding="utf-8"
    )
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite[@name='model-predictions']")
    assert suite is not None and suite.get("skipped") == "1"


def test_no_predictions_no_section(tmp_path: Path) -> None:
    doc = iaa_gate.evaluate(ROOT.parent / "examples" / "label-studio-ner" / "iaa-gate.yaml")
    assert doc.document["models"] is None


def _span(rid: str, start: int, end: int, label: str) -> dict[str, Any]:
    value = {"start": start, "end": end, "text": "Ann went to IBM"[start:end], "labels": [label]}
    return {"id": rid, "from_name": "ner", "to_name": "text", "type": "labels", "value": value}


def test_a_region_field_is_compared_by_matched_region_f1(tmp_path: Path) -> None:
    """Consensus regions (as the adjudication fills them) against a model's spans: the F1 an
    annotator gets against ground truth."""
    both = [_span("a", 0, 3, "PER"), _span("b", 12, 15, "ORG")]
    tasks = [
        {
            "id": t,
            "data": {"text": "Ann went to IBM"},
            "annotations": [{"id": t * 10 + a, "completed_by": a, "result": both} for a in (1, 2)],
            "predictions": [
                {"id": t, "model_version": "v1", "result": both if t == 1 else both[:1]}
            ],
        }
        for t in (1, 2)
    ]
    (tmp_path / "export.json").write_text(json.dumps(tasks), encoding="utf-8")
    (tmp_path / "c.yaml").write_text(
        "version: 1\nsource: {type: label-studio-export, path: export.json}\nfields: {ner: {}}\n",
        encoding="utf-8",
    )
    config = iaa_gate.load_config(tmp_path / "c.yaml")
    from iaa_gate.evaluation.models import models_section
    from iaa_gate.evaluation.results import Consensus
    from iaa_gate.pipeline import make_source

    dataset = make_source(config).load()
    outcome = iaa_gate.evaluate(config)
    regions = [
        {"label": "PER", "start": 0, "end": 3},
        {"label": "ORG", "start": 12, "end": 15},
    ]
    for u in outcome.results["ner"].units:
        u.consensus = Consensus(regions, 0.9, "dawid-skene")
    section = models_section(outcome.results, dataset, config)
    assert section is not None
    f = msgspec.to_builtins(section)["fields"]["ner"]
    assert f["comparison"].startswith("pairwise F1 of matched regions")
    [v1] = f["versions"]
    assert v1["n_tasks"] == 2 and v1["agreement"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-6)
    assert [a["agreement"] for a in f["annotators"]] == [1.0, 1.0]


def test_the_terminal_names_each_model_version(
    written: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "-c", str(CASE / "iaa-gate.yaml"), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    for row in _rows(written):
        assert f"model {row[1]} vs the consensus on sentiment: {row[3]} over {row[2]} tasks" in (
            printed
        )
