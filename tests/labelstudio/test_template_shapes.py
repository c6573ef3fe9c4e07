"""Real shapes from Label Studio itself: HyperText, OCR, Pairwise, Ranker and Chat projects
created on the real server from the shipped templates, their annotations stored through its
import API and read back through its export, the result keys pinned (``htmllabels``, the
``labels`` result beside each OCR rectangle, ``selected``, ``ranker``, ``chatmessage``), then
``init`` and ``run`` on the export as on a file: agreeing annotators score 1."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from .helpers import report, run_cli
from .server import Annotator, LabelStudioServer, ensure_venv
from .templates import export, templates

PINNED = {
    "structured-data-parsing/html-entity-recognition": {"hypertextlabels": "htmllabels"},
    "computer-vision/optical-character-recognition": {
        "rectangle": "x",
        "polygon": "points",
        "labels": "labels",
        "textarea": "text",
    },
    "ranking-and-scoring/pairwise-classification": {"pairwise": "selected"},
    "generative-ai/llm-ranker": {"ranker": "ranker"},
    "chat/chat_rlhf": {"chatmessage": "chatmessage", "choices": "choices"},
}
"""Template → result type → a ``value`` key Label Studio keeps for it."""


@pytest.fixture(scope="module")
def shipped() -> dict[str, str]:
    venv = ensure_venv()
    return templates(next(venv.glob("lib/python*/site-packages")))


def _export(server: LabelStudioServer, project: int) -> list[dict[str, Any]]:
    body = server.api(
        "GET", f"/api/projects/{project}/export?exportType=JSON&download_all_tasks=true"
    )
    assert isinstance(body, list)
    return body


@pytest.mark.parametrize("name", sorted(PINNED))
def test_template_round_trip_keeps_the_keys_and_reads_right(
    name: str,
    shipped: dict[str, str],
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    tmp_path: Path,
) -> None:
    xml = shipped[name]
    tasks = export(xml)
    for t in tasks:
        t.pop("id")
        for a, ann in zip(annotators, t["annotations"], strict=True):
            ann.pop("id")
            ann["completed_by"] = a.id
    project = make_project(xml, tasks, title=name.rsplit("/", 1)[-1])
    exported = _export(label_studio, project.id)
    assert len(exported) == len(tasks)
    sent = [r for t in tasks for a in t["annotations"] for r in a["result"]]
    back = [r for t in exported for a in t["annotations"] for r in a["result"]]
    assert len(back) == len(sent)
    for kind, key in PINNED[name].items():
        kept = [r for r in back if r["type"] == kind]
        assert kept and all(key in r["value"] for r in kept), (kind, key, kept[:1])
    assert [(r["type"], r["id"], r["value"]) for r in back] == [
        (r["type"], r["id"], r["value"]) for r in sent
    ]  # Label Studio stores and exports the shapes as the editor writes them
    (tmp_path / "config.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "export.json").write_text(json.dumps(exported), encoding="utf-8")
    config = tmp_path / "iaa-gate.yaml"
    xml_path, export_path = str(tmp_path / "config.xml"), str(tmp_path / "export.json")
    assert (
        run_cli("init", "--label-config", xml_path, "--export", export_path, "--out", str(config))
        == 0
    )
    assert yaml.safe_load(config.read_text(encoding="utf-8"))["fields"]
    assert run_cli("run", "--config", str(config), "-q") == 0
    doc = report(tmp_path / "iaa-report")
    scores = [
        c["value"]
        for f in doc["fields"].values()
        for c in f["coefficients"].values()
        if c["value"] is not None
    ]
    assert scores and all(math.isclose(v, 1.0) for v in scores), doc["fields"].keys()
