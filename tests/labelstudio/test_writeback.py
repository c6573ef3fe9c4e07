"""Write-back against a real server: meta entries, data flags, the disputed tab, idempotence and the
clean-up run once disputes are resolved."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.cli import ExitCode
from iaa_gate.sinks import label_studio as wb

from .helpers import REVIEW_CONFIG, live_config, report, result, run_cli, writes
from .server import Annotator, LabelStudioServer

S = ("Positive", "Negative", "Neutral")
N = 14
DATA_EXTRA = {
    "title": 'Crème brûlée ☕ "quoted" \\ back',
    "n": 1.0,
    "big": 12345678901234567,
    "nested": {"b": [1, 2.5, None, True], "a": {}},
    "empty": "",
}


def _labels(i: int) -> list[str]:
    """Task i: all differ (i % 4 == 0), a 2-1 split (1), or agreement."""
    if i % 4 == 0:
        return list(S)
    if i % 4 == 1:
        return [S[0], S[0], S[1]]
    return [S[i % 3]] * 3


def _tasks(annotators: list[Annotator]) -> list[dict[str, Any]]:
    tasks = []
    for i in range(N):
        anns = [
            {"completed_by": a.id, "result": result(label)}
            for a, label in zip(annotators, _labels(i), strict=True)
        ]
        meta: dict[str, Any] = {"source": "import", "batch": 7}
        data = {"text": f"review {i}", **DATA_EXTRA}
        tasks.append({"data": data, "meta": meta, "annotations": anns})
    tasks[12]["annotations"] = tasks[12]["annotations"][:1]  # too few ratings
    tasks[13]["annotations"] = []  # nobody answered: a stale entry must go
    tasks[13]["meta"]["iaa"] = {"status": "disputed", "disputed": True}
    return tasks


def _state(label_studio: LabelStudioServer, pid: int) -> dict[int, dict[str, Any]]:
    """Task id → the task as the API returns it (data, meta, annotations)."""
    tasks = label_studio.list_tasks(pid, include="id,data,meta,annotations,result,completed_by")
    return {t["id"]: t for t in tasks}


def _view_order(label_studio: LabelStudioServer, pid: int, view: int) -> list[int]:
    """The tab's tasks in the order the Data Manager lists them."""
    body = label_studio.api("GET", f"/api/tasks/?project={pid}&view={view}&include=id&fields=all")
    return [t["id"] for t in body["tasks"]]


def _view_tasks(label_studio: LabelStudioServer, pid: int, view: int) -> set[int]:
    return set(_view_order(label_studio, pid, view))


def test_write_back_flags_view_idempotence_and_clean_up(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
    http_log: list[tuple[str, str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = make_project(REVIEW_CONFIG, _tasks(annotators), title="write-back")
    pid = project.id
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        label_studio.url,
        pid,
        {"sentiment": {}},
        report={"dir": str(out), "formats": ["json"]},
        writeback={"enabled": True, "data_flags": True, "view": "IAA: disputed"},
    )
    before = _state(label_studio, pid)
    ids = sorted(before)
    disputed = {ids[i] for i in range(N - 2) if i % 4 in (0, 1)}

    # --dry-run: the plan, and not one write
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "--dry-run") in (0, 1)
    printed = capsys.readouterr().out
    assert f"  task {ids[0]}: would be flagged disputed (no entry yet); its data columns" in printed
    assert f"  task {ids[13]}: its disputed entry would be removed" in printed
    assert f"{N} tasks of Label Studio project {pid} would change" in printed
    summary = report(out)["writeback"]
    assert summary["dry_run"] and summary["planned"] == N and summary["done"] == 0
    assert summary["view"] == "would create"
    assert writes(http_log) == [] and _state(label_studio, pid) == before

    # first run: every task written once, the tab created
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    summary = report(out)["writeback"]
    assert (summary["planned"], summary["done"], summary["failed"]) == (N, N, 0)
    assert summary["view"] == "created" and summary["disputed"] == len(disputed)
    patched = sorted(p for m, p in writes(http_log) if p.startswith("/api/tasks/"))
    assert patched == sorted(f"/api/tasks/{t}/" for t in ids)
    after = _state(label_studio, pid)
    for t in ids:
        meta, data = after[t]["meta"], after[t]["data"]
        # other meta keys untouched; the original data byte for byte, flags merged in
        assert {k: meta[k] for k in ("source", "batch")} == {"source": "import", "batch": 7}
        original = before[t]["data"]
        flags = ("iaa_disputed", "iaa_score", "iaa_priority")
        kept = {k: v for k, v in data.items() if k not in flags}
        assert json.dumps(kept, ensure_ascii=False) == json.dumps(original, ensure_ascii=False)
        assert list(data)[: len(original)] == list(original)
        if t == ids[13]:
            assert "iaa" not in meta and "iaa_disputed" not in data
            continue
        entry = meta["iaa"]
        assert set(entry) - {"priority"} == {
            "status",
            "disputed",
            "score",
            "fields",
            "config",
            "run",
        }
        assert data["iaa_disputed"] is (t in disputed) and entry["disputed"] is (t in disputed)
        assert data["iaa_score"] == entry["score"]
        # a disputed task carries its review priority (1 − its consensus posterior), in meta and
        # as a Data Manager column
        assert ("priority" in entry) is (t in disputed)
        assert data["iaa_priority"] == entry.get("priority")
    split = after[ids[1]]["meta"]["iaa"]
    assert split["status"] == "disputed" and split["score"] == pytest.approx(1 / 3, abs=1e-4)
    emails = [a.email for a in annotators]
    assert split["fields"]["sentiment"]["labels"] == dict(zip(emails, _labels(1), strict=True))
    assert after[ids[2]]["meta"]["iaa"]["fields"]["sentiment"] == {"status": "agreed", "score": 1}
    assert after[ids[12]]["meta"]["iaa"]["status"] == "too_few"
    assert after[ids[12]]["data"]["iaa_score"] is None
    view = summary["view_id"]
    assert _view_tasks(label_studio, pid, view) == disputed

    # second run on the same data: nothing written, the old time stamps kept
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    summary = report(out)["writeback"]
    assert (summary["planned"], summary["done"], summary["unchanged"]) == (0, 0, N)
    assert summary["view"] == "unchanged" and summary["view_id"] == view
    assert writes(http_log) == []
    assert _state(label_studio, pid) == after

    # disputes resolved (annotated to agreement): only those tasks written, the tab empty
    for t in sorted(disputed):
        anns = after[t]["annotations"]
        first = anns[0]["result"][0]["value"]["choices"][0]
        for ann in anns[1:]:
            ls_client.annotations.update(id=ann["id"], result=result(first))
    http_log.clear()
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    summary = report(out)["writeback"]
    n = len(disputed)
    assert (summary["planned"], summary["done"], summary["disputed"]) == (n, n, 0)
    assert summary["view"] == "updated" and summary["view_id"] == view
    patched = sorted(p for m, p in writes(http_log) if p.startswith("/api/tasks/"))
    assert patched == sorted(f"/api/tasks/{t}/" for t in disputed)
    final = _state(label_studio, pid)
    for t in disputed:
        assert final[t]["meta"]["iaa"]["status"] == "agreed"
        assert final[t]["data"]["iaa_disputed"] is False
    untouched = [t for t in ids if t not in disputed]
    assert all(final[t]["meta"] == after[t]["meta"] for t in untouched)
    assert _view_tasks(label_studio, pid, view) == set()


def test_many_disputed_tasks_filter_the_tab_on_the_flag(
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past MAX_VIEW_ITEMS filter items the tab filters on meta (or data) instead of ids."""
    monkeypatch.setattr(wb, "MAX_VIEW_ITEMS", 1)
    project = make_project(REVIEW_CONFIG, _tasks(annotators), title="many disputed")
    ids = sorted(_state(label_studio, project.id))
    disputed = {ids[i] for i in range(N - 2) if i % 4 in (0, 1)}
    for data_flags in (False, True):
        out = tmp_path / f"out{data_flags}"
        cfg = live_config(
            tmp_path / "c.yaml",
            label_studio.url,
            project.id,
            {"sentiment": {}},
            report={"dir": str(out), "formats": ["json"]},
            writeback={"enabled": True, "data_flags": data_flags, "view": "many"},
        )
        assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
        summary = report(out)["writeback"]
        assert summary["view"] == ("created" if not data_flags else "updated")
        assert _view_tasks(label_studio, project.id, summary["view_id"]) == disputed


def test_a_failed_write_is_reported_and_the_rest_written(
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A task the server refuses (here: deleted after the pull) is reported, not half-written."""
    from iaa_gate.adapters.label_studio.project import LabelStudioProject

    project = make_project(REVIEW_CONFIG, _tasks(annotators)[:4], title="failed write")
    ids = sorted(_state(label_studio, project.id))
    load = LabelStudioProject.load

    def load_then_delete(self: LabelStudioProject) -> Any:
        dataset = load(self)
        label_studio.api("DELETE", f"/api/tasks/{ids[1]}/")
        return dataset

    monkeypatch.setattr(LabelStudioProject, "load", load_then_delete)
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        label_studio.url,
        project.id,
        {"sentiment": {}},
        report={"dir": str(out), "formats": ["json"]},
        writeback={"enabled": True, "view": None},
    )
    code = run_cli("run", "-c", str(cfg), "-q")
    doc = report(out)
    assert code == (ExitCode.GATE_FAILED if doc["verdict"] == "fail" else ExitCode.WRITEBACK_FAILED)
    summary = doc["writeback"]
    assert (summary["planned"], summary["done"], summary["failed"]) == (4, 3, 1)
    assert summary["failed_tasks"][0]["id"] == ids[1]
    assert "404" in summary["failed_tasks"][0]["error"] and "view_id" not in summary
    assert "write-back failed for 1 task(s)" in capsys.readouterr().err
    state = _state(label_studio, project.id)
    assert all(state[t]["meta"]["iaa"]["config"] for t in ids if t != ids[1])


# 40 tasks by three annotators of falling accuracy (0.9, 0.75, 0.6; seeded): Dawid–Skene gives
# the disputed ones priorities from 0 to 0.49
NOISY = [
    [2, 2, 0], [1, 1, 1], [0, 2, 2], [2, 2, 2], [1, 1, 1], [2, 2, 1], [2, 0, 2], [0, 0, 1],
    [0, 0, 0], [0, 0, 0], [0, 0, 0], [2, 2, 1], [2, 2, 1], [0, 0, 0], [1, 1, 2], [2, 2, 0],
    [0, 0, 1], [2, 2, 2], [0, 0, 0], [1, 1, 1], [2, 2, 2], [0, 1, 0], [1, 1, 0], [0, 0, 0],
    [0, 2, 2], [0, 2, 0], [2, 2, 2], [1, 1, 1], [0, 0, 1], [1, 0, 1], [1, 2, 1], [1, 1, 1],
    [1, 1, 2], [2, 2, 1], [2, 0, 2], [2, 2, 2], [2, 1, 2], [0, 1, 1], [0, 1, 2], [2, 2, 2],
]  # fmt: skip


def test_the_disputed_tab_lists_tasks_in_review_order(
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    api_key_env: str,
    tmp_path: Path,
) -> None:
    """With data_flags, each disputed task's priority (1 − its consensus posterior) is a Data
    Manager column and the tab sorts on it numerically, the least settled first."""
    tasks = [
        {
            "data": {"text": f"review {i}"},
            "annotations": [
                {"completed_by": a.id, "result": result(S[c])}
                for a, c in zip(annotators, row, strict=True)
            ],
        }
        for i, row in enumerate(NOISY)
    ]
    pid = make_project(REVIEW_CONFIG, tasks, title="review order").id
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        label_studio.url,
        pid,
        {"sentiment": {}},
        report={"dir": str(out), "formats": ["json"]},
        writeback={"enabled": True, "data_flags": True, "view": "IAA: review"},
    )
    assert run_cli("run", "-c", str(cfg), "-q") in (0, 1)
    summary = report(out)["writeback"]
    listed = _view_order(label_studio, pid, summary["view_id"])
    state = _state(label_studio, pid)
    order = [state[t]["data"]["iaa_priority"] for t in listed]
    assert order == [state[t]["meta"]["iaa"]["priority"] for t in listed]
    assert len(listed) == summary["disputed"] and len(set(order)) > 3
    assert order == sorted(order, reverse=True)
