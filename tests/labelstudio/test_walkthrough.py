"""The README's "Your Label Studio project", step by step, against a real Label Studio server.

A project is annotated through the REST API as a script would do it (spans without region ids),
then the README's own commands are run in its order: install (the extras it names), ``init``,
``validate-config``, ``run``, the write-back ``--dry-run``, the write-back, and ``serve``, with the
config edits the README asks for. Nothing is retyped here: the commands are read from the
README, so a README that stops working fails this test.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml

from .helpers import report, run_cli
from .server import Annotator, LabelStudioServer
from .test_serve import SECRET, _status, _wait_for, serving

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("## Your Label Studio project") : README.index("## What it does")]
LABEL_CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single">
    <Choice value="Positive"/><Choice value="Negative"/><Choice value="Neutral"/>
  </Choices>
  <Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/></Labels>
  <Rating name="stars" toName="text" maxRating="5"/>
</View>"""
TEXT = "Ada Lovelace met Charles Babbage in London."


def _commands() -> list[list[str]]:
    """Each line of the section's shell blocks as arguments, comments left out."""
    lines = [
        line
        for block in re.findall(r"```bash\n(.*?)\n```", SECTION, flags=re.S)
        for line in block.splitlines()
    ]
    return [shlex.split(line, comments=True) for line in lines]


def _result(sentiment: str, label: str, stars: int) -> list[dict[str, Any]]:
    """An annotation's result as a script writes it: no region id on the span."""
    span = {"start": 0, "end": 12, "text": TEXT[:12], "labels": [label]}
    return [
        {"from_name": "sentiment", "to_name": "text", "type": "choices",
         "value": {"choices": [sentiment]}},
        {"from_name": "ner", "to_name": "text", "type": "labels", "value": span},
        {"from_name": "stars", "to_name": "text", "type": "rating", "value": {"rating": stars}},
    ]  # fmt: skip


def _metric(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, flags=re.M)
    assert found, name
    return float(found[1])


def test_the_readme_walk_through_works_the_first_time(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = make_project(LABEL_CONFIG, [{"data": {"text": TEXT}} for _ in range(9)])
    pid = project.id
    ids = sorted(t["id"] for t in label_studio.list_tasks(pid, include="id"))
    for n, task in enumerate(ids[:8]):  # a 2-to-1 split on every third task, task 9 unlabelled
        for k, who in enumerate(annotators):
            odd = n % 3 == 0 and k == 2
            res = _result("Negative" if odd else "Positive", "ORG" if odd else "PER", 4 - odd)
            ls_client.annotations.create(id=task, result=res, completed_by=who.id)
    stored = label_studio.api("GET", f"/api/tasks/{ids[0]}/")["annotations"][0]["result"]
    assert all("id" not in r for r in stored)  # Label Studio kept them as they were sent

    monkeypatch.chdir(tmp_path)
    config = tmp_path / "iaa-gate.yaml"
    steps = iter(_commands())

    # install: from the clone, with extras the project declares
    install = next(steps)
    assert install[:4] == ["python3", "-m", "venv", ".venv"] and "pip" in install[5]
    extras = re.fullmatch(r"\.\[(.*)\]", install[-1])
    assert extras, install
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert set(extras[1].split(",")) <= set(declared["optional-dependencies"])
    assert next(steps)[:2] == ["export", "LABEL_STUDIO_API_KEY=your-token"]

    def run(args: list[str]) -> int:
        assert args[0] == ".venv/bin/iaa-gate", args
        args = [label_studio.url if a == "http://localhost:8080" else a for a in args[1:]]
        if args[0] == "init":
            args[args.index("--project") + 1] = str(pid)
        capsys.readouterr()
        return run_cli(*args)

    # init → validate-config → run
    assert run(next(steps)) == 0
    text = config.read_text()
    assert "#   thresholds: {alpha: {fail: 0.667, warn: 0.8}, disputed_below: 0.5}" in text
    assert "  data_flags: true " in text and "formats: [json, markdown, html]" in text
    assert run(next(steps)) == 0
    assert run(next(steps)) in (0, 1)
    printed = capsys.readouterr().out
    assert re.search(rf"{re.escape(label_studio.url)} project {pid}: \d+ tasks, 3 annot", printed)
    doc = report(tmp_path / "iaa-report")
    assert set(doc["fields"]) == {"sentiment", "ner", "stars"}
    assert doc["input"]["invalid_skipped"] == 0
    assert doc["fields"]["sentiment"]["n_disputed"] == 3
    assert (tmp_path / "iaa-report" / "report.html").is_file()

    # write-back: the README's edit, the dry run (nothing written), then the flags and the tab
    assert "Set `enabled: true` under `writeback:`" in SECTION
    assert text.count("  enabled: false") == 1
    config.write_text(text.replace("  enabled: false", "  enabled: true"))
    assert yaml.safe_load(config.read_text())["writeback"]["enabled"] is True
    before = label_studio.api("GET", f"/api/tasks/{ids[0]}/")
    assert run(next(steps)) in (0, 1)
    printed = capsys.readouterr().out
    assert f"write-back (dry run, nothing written): 8 tasks of Label Studio project {pid}" in (
        printed
    )
    assert f"  task {ids[0]}: would be flagged disputed (no entry yet); its data columns" in printed
    assert label_studio.api("GET", f"/api/tasks/{ids[0]}/") == before
    assert label_studio.api("GET", f"/api/dm/views/?project={pid}") == []
    assert run(next(steps)) in (0, 1)
    printed = capsys.readouterr().out
    assert f"write-back: 8 tasks flagged in Label Studio project {pid}" in printed
    flagged = label_studio.api("GET", f"/api/tasks/{ids[0]}/")
    assert flagged["meta"]["iaa"]["status"] == "disputed"
    assert flagged["data"]["iaa_disputed"] is True and flagged["data"]["text"] == TEXT
    views = label_studio.api("GET", f"/api/dm/views/?project={pid}")
    assert [v["data"]["title"] for v in views] == ["Default", "IAA: disputed"]

    # serve: the README's line in the config, its secret, the service; a new annotation is
    # flagged through the webhook, and the start-up pull counts as no webhook's lag
    line = re.search(r"```yaml\n(serve: .*)\n```", SECTION)
    assert line
    config.write_text(config.read_text() + line[1] + "\n")
    secret = next(steps)
    assert secret[:1] == ["export"] and secret[1].startswith("IAA_GATE_WEBHOOK_SECRET=")
    monkeypatch.setenv("IAA_GATE_WEBHOOK_SECRET", SECRET)
    serve = next(steps)
    assert serve == [".venv/bin/iaa-gate", "serve", "--config", "iaa-gate.yaml", "--register"]
    assert next(steps, None) is None  # every step of the README was run
    with serving(config, tmp_path / "serve.log", *serve[4:]) as served:
        served.settled()
        assert _metric(served.get("/metrics"), "iaa_gate_flag_lag_seconds_count") == 0
        agreed = ids[1]
        assert _status(label_studio, agreed) == "agreed"
        odd = _result("Neutral", "PER", 4)
        ls_client.annotations.create(id=agreed, result=odd, completed_by=annotators[0].id)
        _wait_for(lambda: _status(label_studio, agreed) == "disputed", "the webhook's flag")
        served.settled()
        assert _metric(served.get("/metrics"), "iaa_gate_flag_lag_seconds_count") >= 1
