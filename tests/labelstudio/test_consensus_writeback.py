"""The consensus as a prediction on each disputed task, against a real server: created in Label
Studio's own result shape, replaced in place when the proposal changes, deleted when the task
is settled, idempotent, and no other prediction nor anything else of the task touched."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

import iaa_gate
from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.adapters.label_studio.project import LabelStudioProject
from iaa_gate.evaluation.results import Consensus, FieldResult, UnitResult
from iaa_gate.sinks.label_studio_consensus import MODEL_VERSION, ConsensusPredictions

from .helpers import REVIEW_CONFIG, live_config, report, result, run_cli, writes
from .server import Annotator, LabelStudioServer

P, N, U = "Positive", "Negative", "Neutral"
MODEL = {"model_version": "model-v1", "score": 0.42, "result": result(N, stars=2)}


def _tasks(annotators: list[Annotator]) -> list[dict[str, Any]]:
    """0: a 2-1 split; 1: a three-way tie; 2: agreement; 3: a 2-1 split with a model's
    prediction; 4: two disputed fields; 5: agreement with a stale iaa-gate prediction."""
    plan = [
        [dict(sentiment=P), dict(sentiment=P), dict(sentiment=N)],
        [dict(sentiment=P), dict(sentiment=N), dict(sentiment=U)],
        [dict(sentiment=P)] * 3,
        [dict(sentiment=N), dict(sentiment=N), dict(sentiment=P)],
        [dict(sentiment=P, stars=5), dict(sentiment=P, stars=5), dict(sentiment=N, stars=3)],
        [dict(sentiment=U)] * 3,
    ]
    tasks = []
    for i, answers in enumerate(plan):
        anns = [
            {"completed_by": a.id, "result": result(**kw)}
            for a, kw in zip(annotators, answers, strict=True)
        ]
        task: dict[str, Any] = {
            "data": {"text": f"review {i}", "n": i},
            "meta": {"batch": 7},
            "annotations": anns,
        }
        if i == 3:
            task["predictions"] = [MODEL]
        if i == 5:
            stale = {"model_version": MODEL_VERSION, "score": 0.5, "result": result(P)}
            task["predictions"] = [stale]
        tasks.append(task)
    return tasks


def _state(server: LabelStudioServer, pid: int) -> dict[int, dict[str, Any]]:
    tasks = server.list_tasks(pid)
    return {t["id"]: t for t in tasks}


def _predictions(server: LabelStudioServer, task: int) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = server.api("GET", f"/api/predictions/?task={task}")
    return sorted(listed, key=lambda p: p["id"])


def _own(server: LabelStudioServer, task: int) -> list[dict[str, Any]]:
    return [p for p in _predictions(server, task) if p["model_version"] == MODEL_VERSION]


def _rest(task: dict[str, Any]) -> dict[str, Any]:
    """A task without what iaa-gate owns (its meta entry, its prediction) and the counters
    and times Label Studio keeps itself."""
    keep = {"data", "annotations"}
    out = {k: task[k] for k in keep}
    out["meta"] = {k: v for k, v in task["meta"].items() if k != "iaa"}
    out["predictions"] = [
        {k: p[k] for k in ("id", "model_version", "score", "result")}
        for p in task["predictions"]
        if p["model_version"] != MODEL_VERSION
    ]
    return out


def _prediction_writes(log: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(m, p) for m, p in writes(log) if p.startswith("/api/predictions")]


def _proposals(cfg: Path) -> dict[int, tuple[float, dict[str, Any]]]:
    """What the run proposes, computed apart: disputed task → (the lowest posterior, field →
    consensus value), ties left out."""
    out: dict[int, tuple[float, dict[str, Any]]] = {}
    for name, r in iaa_gate.evaluate(cfg).results.items():
        for u in r.disputed:
            if u.consensus is not None and not u.consensus.tie:
                score, values = out.get(int(u.id), (1.0, {}))
                values[name] = u.consensus.value
                out[int(u.id)] = (min(score, round(u.consensus.posterior, 4)), values)
    return out


def _shown(pred: dict[str, Any]) -> dict[str, Any]:
    """A prediction's values as the consensus states them."""
    out = {}
    for item in pred["result"]:
        v = item["value"]
        out[item["from_name"]] = v["choices"][0] if "choices" in v else v["rating"]
    return out


def test_consensus_predictions_created_replaced_deleted_and_idempotent(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
    http_log: list[tuple[str, str]],
) -> None:
    project = make_project(REVIEW_CONFIG, _tasks(annotators), title="consensus")
    pid = project.id
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        label_studio.url,
        pid,
        {"sentiment": {}, "stars": {"level": "nominal"}},
        report={"dir": str(out), "formats": ["json"]},
        writeback={"enabled": True, "consensus": True, "view": None},
    )
    before = _state(label_studio, pid)
    ids = sorted(before)
    model_prediction = _predictions(label_studio, ids[3])
    assert [p["model_version"] for p in model_prediction] == ["model-v1"]
    wanted = _proposals(cfg)
    # the 2-1 splits of a reliable pair are settled whatever the method; the stale one goes
    assert {ids[0], ids[3], ids[4]} <= set(wanted) and ids[5] not in wanted

    # --dry-run: the plan, and no write
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "--dry-run", "-q") in (0, 1)
    plan = report(out)["writeback"]["consensus"]
    assert plan["dry_run"] and plan["planned"] == len(wanted) + 1  # + the stale one
    assert _prediction_writes(http_log) == []

    # first run: one prediction per disputed task with a settled consensus
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    done = report(out)["writeback"]["consensus"]
    assert (done["created"], done["deleted"], done["replaced"], done["failed"]) == (
        len(wanted),
        1,
        0,
        0,
    )
    assert done["proposals"] == len(wanted)
    for t in ids:
        own = _own(label_studio, t)
        if t not in wanted:
            assert own == []  # agreed, a tie, or the stale one deleted
            continue
        [pred] = own
        assert pred["score"] == pytest.approx(wanted[t][0], abs=1e-4)
        assert _shown(pred) == wanted[t][1]
    first = _own(label_studio, ids[0])
    [item] = first[0]["result"]
    assert (item["from_name"], item["to_name"], item["type"]) == ("sentiment", "text", "choices")
    assert item["value"] == {"choices": [P]}
    assert _shown(_own(label_studio, ids[3])[0]) == {"sentiment": N}
    assert _shown(_own(label_studio, ids[4])[0]) == {"sentiment": P, "stars": 5}
    assert _predictions(label_studio, ids[3])[0] == model_prediction[0]  # never touched
    after = _state(label_studio, pid)
    assert {t: _rest(after[t]) for t in ids} == {t: _rest(before[t]) for t in ids}
    for t in wanted:  # each task's entry records its prediction's id
        assert after[t]["meta"]["iaa"]["consensus_prediction"] == _own(label_studio, t)[0]["id"]
    # the default JSON export names predictions by id only: iaa-gate's own are known by the
    # recorded ids, so the model's alone is listed as not compared
    exported = label_studio.api(
        "GET", f"/api/projects/{pid}/export?exportType=JSON&download_all_tasks=true"
    )
    assert all(isinstance(p, int) for t in exported for p in t["predictions"])
    assert sum(len(t["predictions"]) for t in exported) == len(wanted) + 1
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    assert LabelStudioExport(path).load().prediction_ids_only == 1

    # second run on the same data: nothing written
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    again = report(out)["writeback"]["consensus"]
    assert (again["planned"], again["unchanged"]) == (0, len(wanted))
    assert _prediction_writes(http_log) == []

    # the majority of task 0 changes, task 3 is settled: replaced in place, deleted
    anns = {a["completed_by"]: a for a in after[ids[0]]["annotations"]}
    ls_client.annotations.update(id=anns[annotators[0].id]["id"], result=result(N))
    for a in after[ids[3]]["annotations"]:
        ls_client.annotations.update(id=a["id"], result=result(N))
    old3 = _own(label_studio, ids[3])[0]["id"]
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    now = _own(label_studio, ids[0])
    assert [p["id"] for p in now] == [first[0]["id"]]
    assert now[0]["result"][0]["value"] == {"choices": [N]}
    assert _own(label_studio, ids[3]) == []
    assert _predictions(label_studio, ids[3]) == model_prediction
    writes_now = set(_prediction_writes(http_log))
    assert ("PATCH", f"/api/predictions/{first[0]['id']}/") in writes_now
    assert ("DELETE", f"/api/predictions/{old3}/") in writes_now
    assert not any(m == "POST" for m, _ in writes_now)


IMAGE_CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Labels name="ner" toName="text"><Label value="PER"/><Label value="ORG"/></Labels>
  <Image name="img" value="$image"/>
  <RectangleLabels name="box" toName="img"><Label value="Car"/></RectangleLabels>
  <PolygonLabels name="poly" toName="img"><Label value="Road"/></PolygonLabels>
  <KeyPointLabels name="kp" toName="img"><Label value="Eye"/></KeyPointLabels>
</View>"""


def test_region_consensus_is_written_in_each_control_s_result_shape(
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    api_key_env: str,
) -> None:
    """Spans, boxes, polygons and keypoints: the server keeps each consensus region as sent."""
    task = {"data": {"text": "Ann went to IBM", "image": "/static/images/logo.png"}}
    project = make_project(IMAGE_CONFIG, [task], title="region consensus")
    [tid] = _state(label_studio, project.id)
    regions = {
        "ner": [
            {"label": "PER", "start": 0, "end": 3, "text": "Ann"},
            {"label": "ORG", "start": 12, "end": 15},
        ],
        "box": [{"label": "Car", "x": 10.0, "y": 20.0, "width": 30.0, "height": 15.5}],
        "poly": [{"label": "Road", "points": [[1, 1], [50, 2], [40, 60]]}],
        "kp": [{"label": "Eye", "x": 33.3, "y": 44.4}],
    }
    results = {
        name: _disputed(name, tid, Consensus(value, 0.75, "dawid-skene"))
        for name, value in regions.items()
    }
    source = LabelStudioProject(label_studio.url, SecretStr(api_key_env), project.id)
    source.load()
    warnings: list[str] = []
    done = ConsensusPredictions(source).apply(results, dry_run=False, warnings=warnings)
    assert warnings == [] and done.created == 1
    [pred] = _own(label_studio, tid)
    got: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for i in pred["result"]:
        got.setdefault((i["from_name"], i["type"]), []).append(i["value"])
    assert got[("ner", "labels")] == [
        {"start": 0, "end": 3, "text": "Ann", "labels": ["PER"]},
        {"start": 12, "end": 15, "labels": ["ORG"]},
    ]
    assert got[("box", "rectanglelabels")] == [
        {
            "x": 10.0,
            "y": 20.0,
            "width": 30.0,
            "height": 15.5,
            "rotation": 0.0,
            "rectanglelabels": ["Car"],
        }
    ]
    assert got[("poly", "polygonlabels")][0]["points"] == [[1.0, 1.0], [50.0, 2.0], [40.0, 60.0]]
    assert got[("kp", "keypointlabels")] == [{"x": 33.3, "y": 44.4, "keypointlabels": ["Eye"]}]
    assert len(pred["result"]) == 5 and pred["score"] == 0.75
    # the same proposal again: nothing written
    source.load()
    again = ConsensusPredictions(source).apply(results, dry_run=False, warnings=warnings)
    assert again.unchanged == 1 and again.planned == 0


def _disputed(name: str, task: int, consensus: Consensus) -> FieldResult:
    unit = UnitResult(task, "disputed", 0.3, {}, None, consensus, 0.25)
    kind = {"ner": "labels", "box": "rectanglelabels", "poly": "polygonlabels"}.get(
        name, "keypointlabels"
    )
    return FieldResult(
        name, kind, "nominal", False, 1, 1, 1, 2, 2, float("nan"), "", {}, None, [], [unit]
    )


def test_recording_the_prediction_id_keeps_a_person_s_meta_edit(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
    http_log: list[tuple[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The id of a task's own prediction is merged into the task's meta as it is now: a person's
    edit made after the pull (its flag write skipped) or right after the flag write survives;
    a re-run writes the skipped flags, and then nothing; a dry run plans the writes the run
    makes."""
    from iaa_gate.adapters.label_studio.client import LabelStudioClient

    project = make_project(REVIEW_CONFIG, _tasks(annotators), title="consensus edits")
    pid = project.id
    ids = sorted(_state(label_studio, pid))
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        label_studio.url,
        pid,
        {"sentiment": {}, "stars": {"level": "nominal"}},
        report={"dir": str(out), "formats": ["json"]},
        writeback={"enabled": True, "consensus": True, "view": None},
    )

    def edit(task: int, note: str) -> None:
        """A person's edit of the task's meta in Label Studio: a new key, a changed value."""
        meta = label_studio.api("GET", f"/api/tasks/{task}/")["meta"]
        label_studio.api("PATCH", f"/api/tasks/{task}/", {"meta": {**meta, "note": note}})

    def kept(task: int, note: str) -> dict[str, Any]:
        meta: dict[str, Any] = label_studio.api("GET", f"/api/tasks/{task}/")["meta"]
        assert (meta["note"], meta["batch"]) == (note, 7)
        return meta

    # first run: each task's flags and its prediction's id in one PATCH; task 0 is edited
    # right after it
    request = LabelStudioClient.request

    def edit_after_flags(
        self: LabelStudioClient, method: str, path: str, doing: str, **kw: Any
    ) -> Any:
        answer = request(self, method, path, doing, **kw)
        if (method, path) == ("PATCH", f"api/tasks/{ids[0]}/") and doing.startswith("writing"):
            edit(ids[0], "seen by ana")
        return answer

    monkeypatch.setattr(LabelStudioClient, "request", edit_after_flags)
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    monkeypatch.setattr(LabelStudioClient, "request", request)
    patched = [p for m, p in writes(http_log) if m == "PATCH" and p.startswith("/api/tasks/")]
    assert len(patched) == len(set(patched)) == len(ids)
    meta = kept(ids[0], "seen by ana")
    first = _own(label_studio, ids[0])[0]["id"]
    assert meta["iaa"]["consensus_prediction"] == first
    assert meta["iaa"]["status"] == "disputed"

    # task 3 is settled (its flags and prediction change) and a person deletes the prediction
    # of task 0 (a new one is created, its flags stay); both tasks are edited after the pull:
    # the ids are merged into the meta as it is now
    for a in _state(label_studio, pid)[ids[3]]["annotations"]:
        ls_client.annotations.update(id=a["id"], result=result(N))
    label_studio.api("DELETE", f"/api/predictions/{first}/")
    load = LabelStudioProject.load

    def load_then_edit(self: LabelStudioProject) -> Any:
        dataset = load(self)
        edit(ids[0], "seen twice")
        edit(ids[3], "settled?")
        return dataset

    monkeypatch.setattr(LabelStudioProject, "load", load_then_edit)
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    monkeypatch.setattr(LabelStudioProject, "load", load)
    doc = report(out)["writeback"]
    assert doc["skipped_tasks"] == [ids[3]]  # task 0's flags are as they were: not written
    assert (doc["consensus"]["created"], doc["consensus"]["deleted"]) == (1, 1)
    meta = kept(ids[0], "seen twice")
    assert meta["iaa"]["consensus_prediction"] == _own(label_studio, ids[0])[0]["id"] != first
    meta = kept(ids[3], "settled?")
    assert meta["iaa"]["status"] == "disputed"  # the flags were skipped: the edit wins
    assert "consensus_prediction" not in meta["iaa"]  # its prediction is gone

    # a dry run plans what the next run writes: the skipped flags of task 3, nothing else
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "--dry-run", "-q") in (0, 1)
    assert writes(http_log) == []
    plan = report(out)["writeback"]
    assert [c["id"] for c in plan["changes"]] == [ids[3]]
    assert plan["consensus"]["planned"] == 0
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    assert writes(http_log) == [("PATCH", f"/api/tasks/{ids[3]}/")]
    meta = kept(ids[3], "settled?")
    assert meta["iaa"]["status"] == "agreed"
    assert kept(ids[0], "seen twice")["iaa"]["consensus_prediction"]

    # and then nothing
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    assert writes(http_log) == []
