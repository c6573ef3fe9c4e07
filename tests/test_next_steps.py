"""Every report says what to do next and names annotators as the config names them (issue 33,
parts 4 and 5): the quick start's next steps, annotator_names as a mapping, a CSV and a JSON
file in the terminal, report.json, Markdown, HTML, JUnit and disputed-tasks.jsonl, and the
errors of a bad names file."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.cli import main
from iaa_gate.config import parse_config, read_names
from iaa_gate.core.errors import ConfigError
from iaa_gate.evaluation.document import NextSteps, Review
from iaa_gate.evaluation.next_steps import MEANING, next_steps
from iaa_gate.pipeline import evaluate
from test_lifecycle import config as lifecycle_config

ROOT = Path(__file__).resolve().parent.parent
EXPORT = ROOT / "examples" / "label-studio" / "export.json"


def config(tmp_path: Path, **top: Any) -> dict[str, Any]:
    """The lifecycle tests' config (sentiment, helpfulness) with helpfulness warned below 0.9
    and every report format."""
    cfg = lifecycle_config(tmp_path, **top)
    cfg["fields"]["helpfulness"]["thresholds"] = {"alpha": {"fail": 0.5, "warn": 0.9}}
    cfg["report"]["formats"] = ["json", "markdown", "html", "junit"]
    return cfg


def save(tmp_path: Path, cfg: dict[str, Any]) -> Path:
    path = tmp_path / "iaa-gate.yaml"
    path.write_text(json.dumps(cfg), encoding="utf-8")  # JSON is YAML
    return path


def test_the_quick_start_says_what_to_do_next(tmp_path: Path, capsys: Any) -> None:
    cfg = ROOT / "examples" / "label-studio" / "iaa-gate.yaml"
    assert main(["run", "--config", str(cfg), "--out", str(tmp_path), "--format", "json"]) == 0
    out = capsys.readouterr().out
    steps = out[out.index("  next steps:") :].splitlines()
    assert steps[1].strip() == MEANING["warn"]
    assert steps[2].strip() == (
        "review 105 disputed tasks (57 on sentiment, 43 on topics, 5 on helpfulness) in "
        "disputed-tasks.jsonl"
    )
    assert steps[3].strip() == (
        "talk to annotator 5: alpha on sentiment rises from 0.762 to 0.916 without them"
    )
    assert "revisit the guideline for sentiment: 'Mixed'" in steps[4]
    assert "without: annotator 5 (+0.154)" in out and "without: 5 " not in out
    doc = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert doc["next_steps"]["talk_to"] == [
        {"id": "5", "name": "5", "why": steps[3].strip().split(": ", 1)[1]}
    ]


def test_a_scale_is_revisited_by_its_offsets_and_a_pass_needs_nothing(tmp_path: Path) -> None:
    cfg = parse_config(config(tmp_path))
    outcome = evaluate(cfg, LabelStudioExport(EXPORT).load())
    steps = outcome.report.next_steps
    assert steps is not None
    (helpfulness,) = [r for r in steps.revisit if r.field == "helpfulness"]
    assert helpfulness.why.startswith("the scale's anchors (annotator ")  # not a category rate
    passing = parse_config(
        {
            **config(tmp_path),
            "fields": {
                "helpfulness": {
                    "level": "ordinal",
                    "thresholds": {"alpha": {"fail": 0.1, "warn": 0.2}},
                    "bootstrap": {"replicates": 0},
                }
            },
        }
    )
    calm = evaluate(passing, LabelStudioExport(EXPORT).load()).report.next_steps
    assert calm is not None and calm.revisit == [] and calm.talk_to == []
    assert calm.meaning == MEANING["pass"]


def test_a_live_project_reviews_in_its_tab_and_states_are_counted(tmp_path: Path) -> None:
    live = {"type": "label-studio", "url": "http://ls", "project": 1, "api_key": "k"}
    cfg = parse_config({**config(tmp_path), "source": live, "writeback": {"enabled": True}})
    adjudicated = parse_config({**config(tmp_path), "adjudication": {}})
    outcome = evaluate(adjudicated, LabelStudioExport(EXPORT).load())
    steps = next_steps(outcome.report.fields, cfg)
    assert steps.review is not None
    assert steps.review.where == f"the {cfg.writeback.view!r} tab of the Label Studio project"
    assert outcome.report.next_steps is not None
    review = outcome.report.next_steps.review
    assert review is not None and sum(review.states.values()) == review.count
    disputes = outcome.report.fields["sentiment"].disputes
    assert disputes is not None and review.states == disputes.states  # helpfulness has none
    assert (
        f"({review.count} open, 0 routed, 0 settled, 0 resolved)"
        in (outcome.report.next_steps.lines()[1])
    )


def test_lines_without_disputes() -> None:
    steps = NextSteps(MEANING["pass"], Review(0, "disputed-tasks.jsonl", {"a": 0}), [], [])
    assert steps.lines() == [MEANING["pass"], "no disputed task to review"]


@pytest.mark.parametrize("how", ["mapping", "csv", "json-object", "json-list"])
def test_annotator_names_in_every_report(tmp_path: Path, capsys: Any, how: str) -> None:
    names = {"5": "dana@example.com", "3": "Lee Park"}
    given: Any = {5: "dana@example.com", "3": "Lee Park"}
    if how == "csv":
        given = "names.csv"
        (tmp_path / given).write_text("id,name\n5,dana@example.com\n3,Lee Park\n", "utf-8")
    elif how == "json-object":
        given = "names.json"
        (tmp_path / given).write_text(json.dumps(names), "utf-8")
    elif how == "json-list":
        given = "names.json"
        rows = [{"id": int(k), "name": v} for k, v in names.items()]
        (tmp_path / given).write_text(json.dumps(rows), "utf-8")
    path = save(tmp_path, config(tmp_path, annotator_names=given))
    assert main(["run", "--config", str(path)]) == 0  # warnings pass
    out = capsys.readouterr().out
    assert "without: annotator dana@example.com (+0.1" in out
    assert "talk to annotator dana@example.com: alpha on sentiment rises" in out
    report = tmp_path / "out"
    doc = json.loads((report / "report.json").read_text(encoding="utf-8"))
    people = {a["id"]: a["name"] for a in doc["fields"]["sentiment"]["annotators"]}
    assert people["5"] == "dana@example.com" and people["3"] == "Lee Park"
    assert people["4"] == "4"  # an annotator the config does not name keeps their id
    md = (report / "report.md").read_text(encoding="utf-8")
    assert "talk to annotator dana@example.com" in md and "without: annotator 5 " not in md
    html = (report / "report.html").read_text(encoding="utf-8")
    assert "dana@example.com" in html
    junit = ET.fromstring((report / "junit.xml").read_text(encoding="utf-8"))
    props = {p.get("name") for p in junit.iter("property")}
    assert "dawid-skene accuracy dana@example.com" in props
    lines = (report / "disputed-tasks.jsonl").read_text(encoding="utf-8").splitlines()
    labelled = set().union(*(json.loads(line)["labels"] for line in lines))
    assert "dana@example.com" in labelled and "5" not in labelled


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("names.csv", "id,name\n5,dana\n6,\n", "row 3: no name"),
        ("names.csv", "user,who\n5,dana\n", "row 1: the header must be id,name"),
        ("names.csv", "id,name\n5,dana\n5,lee\n", "row 3: id 5 is already named 'dana'"),
        ("names.json", '{"5": "dana", "6": 7}', "key '6': no name"),
        ("names.json", '[{"id": 5, "name": "dana"}, {"name": "lee"}]', "item 2: no id"),
        ("names.json", "[1, 2", "not valid JSON"),
        ("missing.csv", None, "file not found"),
    ],
)
def test_a_bad_names_file_names_the_file_and_row(
    tmp_path: Path, capsys: Any, name: str, text: str | None, message: str
) -> None:
    if text is not None:
        (tmp_path / name).write_text(text, "utf-8")
    with pytest.raises(ConfigError) as err:
        read_names(tmp_path / name)
    assert message in str(err.value) and str(tmp_path / name) in str(err.value)
    path = save(tmp_path, config(tmp_path, annotator_names=name))
    assert main(["validate-config", str(path)]) == 2
    shown = capsys.readouterr()
    assert message in shown.out + shown.err and name in shown.out + shown.err


def test_the_next_steps_do_not_follow_the_order_of_the_fields(tmp_path: Path) -> None:
    """A live pull and its export give the same fields in other orders (the real-server test
    of the live source compares them): the next steps are the same, the most disputed field's
    tasks first."""
    cfg = parse_config(config(tmp_path))
    fields = evaluate(cfg, LabelStudioExport(EXPORT).load()).report.fields
    reverse = dict(reversed(list(fields.items())))
    assert list(reverse) != list(fields)
    assert next_steps(reverse, cfg) == next_steps(fields, cfg)
    review = next_steps(fields, cfg).review
    assert review is not None
    counts = list(review.by_field.values())
    assert counts == sorted(counts, reverse=True)
