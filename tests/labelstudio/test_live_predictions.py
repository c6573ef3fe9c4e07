"""Model predictions read live, against a real server: the tasks API and an export snapshot give
the same models section, annotations created from a prediction are told apart, and the
default JSON export (predictions by id only) is listed as not compared."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.adapters.label_studio.project import LabelStudioProject
from iaa_gate.config import load_config
from iaa_gate.pipeline import evaluate

from .helpers import REVIEW_CONFIG, live_config, result
from .server import Annotator, LabelStudioServer

P, N = "Positive", "Negative"
HUMANS = [[P, P, N], [N, N, N], [P, N, P], [N, N, P]]  # consensus P, N, P, N
V1, V2 = [P, N, P, P], [N, N]  # v1 predicts all four tasks, v2 the first two


def test_predictions_read_live_by_both_pull_methods(
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
) -> None:
    project = make_project(REVIEW_CONFIG, [{"data": {"text": f"r{i}"}} for i in range(4)])
    ids = sorted(t["id"] for t in label_studio.list_tasks(project.id))
    for i, task in enumerate(ids):
        preds = {}
        for version, labels in (("model-v1", V1), ("model-v2", V2)):
            if i < len(labels):
                body = {"task": task, "model_version": version, "result": result(labels[i])}
                preds[version] = label_studio.api("POST", "/api/predictions/", body)["id"]
        for j, a in enumerate(annotators):
            body = {"result": result(HUMANS[i][j]), "completed_by": a.id}
            if j == 0:  # the first annotator starts from model-v1's prediction
                body["parent_prediction"] = preds["model-v1"]
            label_studio.api("POST", f"/api/tasks/{task}/annotations/", body)

    cfg = live_config(tmp_path / "c.yaml", label_studio.url, project.id, {"sentiment": {}})
    config = load_config(cfg)
    models, alt = {}, {}
    for method in ("tasks", "export"):
        source = LabelStudioProject.from_config(config.source)  # type: ignore[arg-type]
        source.method = method  # type: ignore[assignment]
        doc = evaluate(config, source.load()).document
        models[method], alt[method] = doc["models"], doc["alt_test"]
    assert models["tasks"] == models["export"]
    assert alt["tasks"] == alt["export"]  # the alt-test of live predictions, either way
    assert [v["model_version"] for v in alt["tasks"]["fields"]["sentiment"]] == [
        "model-v1",
        "model-v2",
    ]
    assert alt["tasks"]["fields"]["sentiment"][0]["not_tested"].startswith("too few instances")
    m = models["tasks"]
    assert m["model_versions"] == ["model-v1", "model-v2"] and m["started_from"] == 4
    v1, v2 = m["fields"]["sentiment"]["versions"]
    assert (v1["predicted_tasks"], v2["predicted_tasks"]) == (4, 2)
    # human–prediction agreement does not depend on how the consensus is found
    # the first annotator (P, N, P, N) from v1's P, N, P, P; the others P,N | N,N | N,P | N,P
    assert v1["started_from_it"] == {"n": 4, "agreement": 0.75}
    assert v1["not_started_from_it"] == {"n": 8, "agreement": 0.625}
    emails = [a["annotator"] for a in m["fields"]["sentiment"]["annotators"]]
    assert emails == [a.email for a in annotators]

    # the default JSON export names predictions by id only: listed, not compared
    exported = label_studio.api(
        "GET", f"/api/projects/{project.id}/export?exportType=JSON&download_all_tasks=true"
    )
    assert all(isinstance(p, int) for t in exported for p in t["predictions"])
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    offline = config.model_copy(update={"source": _export_source(path)})
    doc = evaluate(offline, LabelStudioExport(path).load()).document
    assert doc["models"]["ids_only"] == 6 and doc["models"]["fields"] == {}


def _export_source(path: Path) -> Any:
    from iaa_gate.adapters.label_studio.config import ExportSource

    return ExportSource(type="label-studio-export", path=path)


def test_a_live_source_pulls_its_predictions(
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    api_key_env: str,
) -> None:
    """The pulled tasks keep iaa-gate's own prediction for the write-back, and only it."""
    tasks = [
        {
            "data": {"text": "a"},
            "predictions": [
                {"model_version": "iaa-gate-consensus", "result": result(P)},
                {"model_version": "model-v1", "result": result(N)},
            ],
        }
    ]
    project = make_project(REVIEW_CONFIG, tasks)
    source = LabelStudioProject(label_studio.url, SecretStr(api_key_env), project.id)
    dataset = source.load()
    [pulled] = source.tasks.values()
    assert [p["model_version"] for p in pulled.predictions] == ["iaa-gate-consensus"]
    assert [p.annotator for p in dataset.predictions] == ["model-v1"]
