"""The live source against a real server: same report as an export, names, views, titles, tokens,
connection errors, ``init``, and the API key never shown."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import SecretStr

from iaa_gate.adapters.label_studio.project import LabelStudioProject
from iaa_gate.cli import ExitCode
from iaa_gate.config import load_config
from iaa_gate.core.errors import IaaGateError
from iaa_gate.pipeline import evaluate

from .helpers import REVIEW_CONFIG, live_config, report, result, run_cli
from .server import Annotator, LabelStudioServer

FIELDS: dict[str, Any] = {
    "sentiment": {"labels": ["Positive", "Negative", "Neutral"]},
    "topics": {"multiple": True},
    "stars": {"level": "ordinal"},
}
S = ("Positive", "Negative", "Neutral")
TOPICS = (["Price"], ["Price", "Quality"], ["Shipping"], ["Quality"])


def _tasks(annotators: list[Annotator]) -> list[dict[str, Any]]:
    """30 reviews by 3 annotators with every case a source must handle.

    Disagreements on a third of the tasks; a skipped annotation (task 5); a task annotated twice
    by one annotator (task 6: the later one counts); one with no annotation (task 7); one
    ground-truth annotation (task 8); free text (notes) everywhere.
    """
    tasks = []
    for i in range(30):
        anns = []
        for j, a in enumerate(annotators):
            sentiment = S[(i + j) % 3] if i % 3 == 0 else S[i % 3]
            anns.append(
                {
                    "completed_by": a.id,
                    "result": result(
                        sentiment,
                        TOPICS[(i + (j if i % 4 == 0 else 0)) % 4],
                        1 + (i + j) % 5,
                        f"note {i}",
                    ),
                }
            )
        tasks.append(
            {"data": {"text": f"review {i}"}, "meta": {"batch": i // 10}, "annotations": anns}
        )
    tasks[5]["annotations"][2] = {
        "completed_by": annotators[2].id,
        "was_cancelled": True,
        "result": [],
    }
    tasks[6]["annotations"].append(
        {
            "completed_by": annotators[0].id,
            "result": result("Neutral", ["Price"], 5),
            "created_at": "2030-01-01T00:00:00Z",
            "updated_at": "2030-01-01T00:00:00Z",
        }
    )
    tasks[7]["annotations"] = []
    tasks[8]["annotations"][0]["ground_truth"] = True
    return tasks


@pytest.fixture(scope="module")
def project(make_project: Callable[..., Any], annotators: list[Annotator]) -> Any:
    return make_project(REVIEW_CONFIG, _tasks(annotators), title="live source")


def _comparable(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in ("generated_at", "source")}


def test_live_pull_and_export_give_the_same_report(
    label_studio: LabelStudioServer,
    ls_client: Any,
    project: Any,
    api_key_env: str,
    annotators: list[Annotator],
    tmp_path: Path,
    http_log: list[tuple[str, str]],
) -> None:
    """A live pull, an export file from the export API and the source's snapshot path agree."""
    live = live_config(tmp_path / "live.yaml", label_studio.url, project.id, FIELDS)
    out = tmp_path / "live"
    formats = ("--format", "json", "--format", "html")
    assert run_cli("run", "-c", str(live), "--out", str(out), "-q", *formats) in (0, 1)
    pulls = [p for m, p in http_log if p.rstrip("/") == "/api/tasks"]
    assert len(pulls) == 1  # 30 tasks: one page, no page past the end

    snap = ls_client.projects.exports.create(
        id=project.id, serialization_options={"annotations__completed_by": {"only_id": False}}
    )
    body = b"".join(
        ls_client.projects.exports.download(id=project.id, export_pk=snap.id, export_type="JSON")
    )
    export = tmp_path / "export.json"
    export.write_bytes(body)
    cfg = yaml.safe_load(live.read_text())
    xml = tmp_path / "config.xml"  # the export with its labeling config, as a live pull reads
    xml.write_text(REVIEW_CONFIG)  # it (the Rating's maxRating is the stars' declared scale)
    cfg["source"] = {"type": "label-studio-export", "path": str(export), "label_config": str(xml)}
    offline = tmp_path / "offline.yaml"
    offline.write_text(yaml.safe_dump(cfg))
    assert run_cli("run", "-c", str(offline), "--out", str(tmp_path / "file"), "-q") in (0, 1)

    a, b = report(tmp_path / "live"), report(tmp_path / "file")
    assert _comparable(a) == _comparable(b)
    assert a["source"] == {
        "type": "label-studio",
        "url": label_studio.url,
        "project": project.id,
        "view": None,
    }
    inp = a["input"]
    assert (inp["tasks"], inp["cancelled"], inp["superseded"]) == (30, 1, 1)
    assert a["not_evaluated"] == {"notes": "textarea"}
    emails = {x.email for x in annotators}
    assert {x["name"] for x in a["fields"]["sentiment"]["annotators"]} == emails
    every = tmp_path / "live" / "disputed-tasks.jsonl"
    assert every.read_bytes() == (tmp_path / "file" / "disputed-tasks.jsonl").read_bytes()
    disputed = a["fields"]["sentiment"]["disputed"]["lowest"]
    assert disputed and all(set(d["labels"]) <= emails for d in disputed)
    link = f"{label_studio.url}/projects/{project.id}/data?task={disputed[0]['id']}"
    assert f'<a href="{link}"' in (out / "report.html").read_text()

    config = load_config(live)
    source = LabelStudioProject.from_config(config.source)
    source.method = "export"
    doc = evaluate(config, source.load()).document
    assert _comparable(doc) == _comparable(a)


def test_project_by_title_view_and_errors(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
) -> None:
    key = SecretStr(label_studio.token)
    tasks = _tasks(annotators)[:6]
    one = make_project(REVIEW_CONFIG, tasks, title="by title")
    src = LabelStudioProject(label_studio.url, key, one.title)
    assert len(src.load().task_ids) == 6 and src.project_id == one.id
    # the report names the project as configured, and its id for the HTML report's task links
    titled = live_config(tmp_path / "titled.yaml", label_studio.url, one.title, FIELDS)
    assert run_cli("run", "-c", str(titled), "--out", str(tmp_path), "-q") in (0, 1)
    source = report(tmp_path)["source"]
    assert (source["project"], source["project_id"]) == (one.title, one.id)

    ids = sorted(t["id"] for t in label_studio.list_tasks(one.id, include="id"))
    items = [
        {"filter": "filter:tasks:id", "operator": "equal", "type": "Number", "value": t}
        for t in ids[:2]
    ]
    view = ls_client.views.create(
        project=one.id, data={"title": "two", "filters": {"conjunction": "or", "items": items}}
    )
    in_view = LabelStudioProject(label_studio.url, key, one.id, view=view.id).load()
    assert sorted(in_view.task_ids) == ids[:2]

    other = make_project(REVIEW_CONFIG, [], title="by title")  # the same title prefix
    ls_client.projects.update(id=other.id, title=one.title)
    with pytest.raises(IaaGateError, match=r"2 projects are titled .* \(ids \d+, \d+\)"):
        LabelStudioProject(label_studio.url, key, one.title).load()
    with pytest.raises(IaaGateError, match="no project titled 'no such project'"):
        LabelStudioProject(label_studio.url, key, "no such project").load()
    with pytest.raises(IaaGateError, match=f"view {view.id} not found in project {other.id}"):
        LabelStudioProject(label_studio.url, key, other.id, view=view.id).load()


@pytest.fixture(scope="module")
def personal_token(label_studio: LabelStudioServer) -> Iterator[str]:
    """A personal access token (JWT refresh token) of the admin, revoked afterwards."""
    token = label_studio.api("POST", "/api/token/")["token"]
    yield token
    label_studio.api("POST", "/api/token/blacklist/", {"refresh": token})


def test_personal_access_token_and_legacy_token(
    label_studio: LabelStudioServer,
    project: Any,
    personal_token: str,
    http_log: list[tuple[str, str]],
) -> None:
    legacy = LabelStudioProject(label_studio.url, SecretStr(label_studio.token), project.id)
    pat = LabelStudioProject(label_studio.url, SecretStr(personal_token), project.id)
    a, b = legacy.load(), pat.load()
    assert a.annotations == b.annotations and a.annotator_names == b.annotator_names
    assert ("POST", "/api/token/refresh/") in http_log  # the SDK exchanged the PAT


def _run_capture(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "iaa_gate.cli", *args], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"url": "http://127.0.0.1:9"}, "cannot reach Label Studio at http://127.0.0.1:9"),
        ({"api_key": "wrong-token-0123456789"}, "refused the API key (401"),
        ({"project": 987654}, "project 987654 not found"),
    ],
    ids=["unreachable", "wrong-token", "unknown-project"],
)
def test_connection_problems_exit_2_with_one_clear_message(
    label_studio: LabelStudioServer,
    project: Any,
    api_key_env: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: dict[str, Any],
    expected: str,
) -> None:
    source = {k: v for k, v in change.items() if k != "url"}
    url = change.get("url", label_studio.url)
    cfg = live_config(tmp_path / "c.yaml", url, project.id, FIELDS, source=source)
    assert run_cli("run", "-c", str(cfg)) == ExitCode.ERROR
    err = capsys.readouterr().err
    assert expected in err and url in err and "Traceback" not in err
    assert err.startswith("iaa-gate: error: ") and "hint: " in err
    if "api_key" in change:
        assert run_cli("run", "-c", str(cfg), "--debug") == ExitCode.ERROR
        assert "Traceback" in capsys.readouterr().err


def test_api_key_never_shown(
    label_studio: LabelStudioServer, project: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither the working token nor a refused one appears in output, logs or reports."""
    token, wrong = label_studio.token, "refused-token-4f1c9e2a7b"
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        label_studio.url,
        project.id,
        FIELDS,
        report={"dir": str(out), "formats": ["json", "markdown", "html", "junit"]},
        writeback={"enabled": True},
    )
    seen = ""
    for key, runs in ((token, (["--dry-run"], ["--debug"])), (wrong, (["--debug"],))):
        monkeypatch.setenv("LABEL_STUDIO_API_KEY", key)
        for extra in runs:
            proc = _run_capture("run", "-c", str(cfg), *extra)
            ok = proc.returncode == ExitCode.ERROR if key == wrong else proc.returncode < 2
            assert ok, (proc.returncode, proc.stderr[-3000:])
            seen += proc.stdout + proc.stderr
    seen += "".join(p.read_text() for p in out.iterdir())
    assert "refused the API key" in seen and "write-back:" in seen
    assert token not in seen and wrong not in seen


def test_init_from_a_live_project(
    label_studio: LabelStudioServer,
    project: Any,
    api_key_env: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "iaa-gate.yaml"
    code = run_cli("init", "--project", str(project.id), "--url", label_studio.url, "-o", str(out))
    assert code == ExitCode.OK
    text = out.read_text()
    assert api_key_env not in text and "${LABEL_STUDIO_API_KEY}" in text
    cfg = yaml.safe_load(text)
    assert cfg["source"] == {
        "type": "label-studio",
        "url": label_studio.url,
        "project": project.id,
        "api_key": "${LABEL_STUDIO_API_KEY}",
    }
    assert cfg["fields"] == {
        "sentiment": {"multiple": False, "labels": list(S)},
        "topics": {"multiple": True, "labels": ["Price", "Quality", "Shipping"]},
        "stars": {"level": "ordinal"},
    }
    assert "# notes: {}" in text and cfg["writeback"]["enabled"] is False
    assert run_cli("run", "-c", str(out), "--out", str(tmp_path / "r"), "-q") in (0, 1)
    assert set(report(tmp_path / "r")["fields"]) == {"sentiment", "topics", "stars"}
    capsys.readouterr()
    assert run_cli("init", "--project", project.title, "--url", label_studio.url, "-o", "-") == 0
    assert yaml.safe_load(capsys.readouterr().out)["source"]["project"] == project.id
    assert run_cli("init", "--project", "1", "--url", label_studio.url, "-o", str(out)) == 2
    assert "exists" in capsys.readouterr().err


def test_report_json_source_has_no_secret(tmp_path: Path) -> None:
    """(Offline) the source summary lists url, project and view only."""
    from iaa_gate.config import parse_config
    from iaa_gate.pipeline import source_summary

    cfg = parse_config(
        {
            "source": {"type": "label-studio", "url": "http://h:1", "project": 3, "api_key": "k3y"},
            "fields": {"x": {}},
        }
    )
    assert "k3y" not in json.dumps(source_summary(cfg))
