"""Server faults against the real server, through a fault-injecting proxy: 429/500/503, dropped
connections and slow answers are retried within the configured limits; the run never outlives its
``timeout``; a person's edit during write-back is kept; two runs at once lose nothing; failed writes
exit 3."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.adapters.label_studio import client as labelstudio_client
from iaa_gate.cli import ExitCode

from .faultproxy import Fault, FaultProxy
from .helpers import REVIEW_CONFIG, live_config, report, result, run_cli
from .server import Annotator, LabelStudioServer

S = ("Positive", "Negative", "Neutral")
N = 12
PASS = {"sentiment": {"thresholds": {"alpha": {"fail": -1, "warn": -1}}}}
"""A gate that passes, so the exit code shows the write-back alone."""
FAST = {"retries": 2, "request_timeout": 10, "timeout": 120}


def tasks(annotators: list[Annotator], n: int = N) -> list[dict[str, Any]]:
    """``n`` tasks, every other one disputed, with other meta and data keys to keep."""
    out = []
    for i in range(n):
        labels = [S[0], S[0], S[1]] if i % 2 else [S[i % 3]] * 3
        anns = [
            {"completed_by": a.id, "result": result(label)}
            for a, label in zip(annotators, labels, strict=True)
        ]
        out.append(
            {
                "data": {"text": f"review {i}", "n": i},
                "meta": {"source": "import", "batch": i // 4},
                "annotations": anns,
            }
        )
    return out


def state(server: LabelStudioServer, pid: int) -> dict[int, dict[str, Any]]:
    """Task id → the task's full JSON as the API returns it."""
    return {t["id"]: t for t in server.list_tasks(pid)}


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries after 0.05 s, 0.1 s, …: the same logic, shorter tests (in-process runs)."""
    monkeypatch.setattr(labelstudio_client, "BACKOFF", 0.05)


@pytest.fixture
def proxy(label_studio: LabelStudioServer) -> Iterator[FaultProxy]:
    with FaultProxy(label_studio.url) as p:
        yield p


@pytest.fixture
def project(make_project: Callable[..., Any], annotators: list[Annotator]) -> Any:
    return make_project(REVIEW_CONFIG, tasks(annotators), title="faults")


def config(tmp_path: Path, url: str, pid: int, **source: Any) -> Path:
    return live_config(
        tmp_path / "c.yaml",
        url,
        pid,
        PASS,
        source={**FAST, **source},
        report={"dir": str(tmp_path / "out"), "formats": ["json"]},
        writeback={"enabled": True, "data_flags": True},
    )


def check_flagged(server: LabelStudioServer, pid: int, flagged: set[int] | None = None) -> None:
    """Every task (or those in ``flagged``) has its entry, and its other keys as imported."""
    for t in state(server, pid).values():
        i = t["data"]["n"]
        assert {k: t["meta"][k] for k in ("source", "batch")} == {
            "source": "import",
            "batch": i // 4,
        }
        assert t["data"]["text"] == f"review {i}"
        if flagged is None or t["id"] in flagged:
            assert t["meta"]["iaa"]["disputed"] is bool(i % 2) is t["data"]["iaa_disputed"]


def test_429_500_503_and_dropped_connections_are_retried(
    label_studio: LabelStudioServer,
    proxy: FaultProxy,
    project: Any,
    api_key_env: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ids = sorted(state(label_studio, project.id))
    proxy.add(
        Fault("GET", f"/api/projects/{project.id}/", "status", status=503),
        Fault("GET", "/api/users/", "drop"),
        Fault("GET", "/api/tasks/", "status", status=429, headers={"Retry-After": "0"}),
        Fault("GET", f"/api/tasks/{ids[3]}/", "drop"),
        Fault("PATCH", f"/api/tasks/{ids[1]}/", "status", status=500, times=2),
        Fault("POST", "/api/dm/views/", "status", status=502),
    )
    cfg = config(tmp_path, proxy.url, project.id)
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.OK
    summary = report(tmp_path / "out")["writeback"]
    assert (summary["done"], summary["failed"], summary["view"]) == (N, 0, "created")
    assert all(f.times == 0 for f in proxy.faults)  # every fault was met, and retried past
    assert proxy.count("PATCH", f"/api/tasks/{ids[1]}/") == 3
    check_flagged(label_studio, project.id)
    assert capsys.readouterr().err == ""

    # a write that keeps failing: exactly 1 + retries attempts, then exit 3 and a warning
    proxy.clear()
    for t in ids[:2]:
        label_studio.api("PATCH", f"/api/tasks/{t}/", {"meta": {"source": "import", "batch": 0}})
    proxy.add(Fault("PATCH", f"/api/tasks/{ids[0]}/", "status", status=503, times=99))
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.WRITEBACK_FAILED
    summary = report(tmp_path / "out")["writeback"]
    assert (summary["planned"], summary["done"], summary["failed"]) == (2, 1, 1)
    assert proxy.count("PATCH", f"/api/tasks/{ids[0]}/") == 3
    err = capsys.readouterr().err
    assert f"write-back failed for 1 task(s) (first: task {ids[0]}: " in err
    assert "answered HTTP 503 (injected fault)" in err and api_key_env not in err
    assert "iaa" not in state(label_studio, project.id)[ids[0]]["meta"]  # as it was


def test_a_slow_server_never_outlives_the_timeout(
    label_studio: LabelStudioServer,
    proxy: FaultProxy,
    project: Any,
    api_key_env: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ten retries of one-second attempts would take minutes: the 3 s budget ends the pull, and
    during write-back it ends the writes (listed as failed, exit 3)."""
    slow = {"retries": 10, "request_timeout": 1}
    proxy.add(Fault("GET", "/api/tasks/", "delay", seconds=30, times=99))
    cfg = config(tmp_path, proxy.url, project.id, timeout=3, **slow)
    start = time.monotonic()
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.ERROR
    assert time.monotonic() - start < 3 + 2.5
    err = capsys.readouterr().err
    assert "gave up while reading tasks (page 1): the run's time limit (source.timeout: 3 s)" in err
    assert "did not answer in time" in err and not (tmp_path / "out").exists()

    proxy.clear()
    proxy.add(Fault("PATCH", "/api/tasks/", "delay", seconds=30, times=99))
    cfg = config(tmp_path, proxy.url, project.id, timeout=5, **slow)
    start = time.monotonic()
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.WRITEBACK_FAILED
    assert time.monotonic() - start < 5 + 2.5
    summary = report(tmp_path / "out")["writeback"]
    assert (summary["planned"], summary["failed"]) == (N, N)
    assert "source.timeout: 5 s" in capsys.readouterr().err


def test_a_person_editing_a_task_during_write_back_keeps_the_edit(
    label_studio: LabelStudioServer,
    proxy: FaultProxy,
    project: Any,
    api_key_env: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ids = sorted(state(label_studio, project.id))
    edited = {"source": "import", "batch": 0, "reviewer": "alice"}

    def edit() -> None:  # a person saves the task while iaa-gate is about to write it
        label_studio.api("PATCH", f"/api/tasks/{ids[2]}/", {"meta": edited})

    proxy.add(Fault("GET", f"/api/tasks/{ids[2]}/", "hook", hook=edit))
    cfg = config(tmp_path, proxy.url, project.id)
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.OK
    summary = report(tmp_path / "out")["writeback"]
    assert (summary["done"], summary["skipped"], summary["skipped_tasks"]) == (N - 1, 1, [ids[2]])
    err = capsys.readouterr().err
    assert "1 task(s) changed in Label Studio since the pull and were not written" in err
    after = state(label_studio, project.id)
    assert after[ids[2]]["meta"] == edited and "iaa_disputed" not in after[ids[2]]["data"]
    check_flagged(label_studio, project.id, set(ids) - {ids[2]})

    # the next run flags it, keeping the edit
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.OK
    assert report(tmp_path / "out")["writeback"]["done"] == 1
    meta = state(label_studio, project.id)[ids[2]]["meta"]
    assert meta["reviewer"] == "alice" and meta["iaa"]["status"] == "agreed"


def test_two_runs_at_once_end_with_the_flags_of_one_run(
    label_studio: LabelStudioServer,
    proxy: FaultProxy,
    project: Any,
    api_key_env: str,
    tmp_path: Path,
) -> None:
    """Two processes write the same project at once (PATCHes slowed so they overlap)."""
    proxy.add(Fault("PATCH", "/api/tasks/", "delay", seconds=0.2, times=999))
    runs = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        cfg = config(tmp_path / name, proxy.url, project.id)
        runs.append(
            subprocess.Popen(
                [sys.executable, "-m", "iaa_gate.cli", "run", "-c", str(cfg), "-q"],
                env={**os.environ, "LABEL_STUDIO_API_KEY": api_key_env},
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    for proc in runs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == ExitCode.OK, err
    summaries = [report(tmp_path / name / "out")["writeback"] for name in ("a", "b")]
    assert sum(s["done"] + s["already_done"] for s in summaries) >= N
    assert all(s["failed"] == s["skipped"] == 0 for s in summaries)
    check_flagged(label_studio, project.id)
    stamps = {t["meta"]["iaa"]["run"] for t in state(label_studio, project.id).values()}
    assert len(stamps) <= 2
    views = label_studio.api("GET", f"/api/dm/views/?project={project.id}")
    # one tab each, the Default one too (a project with none gets it first)
    assert [v["data"]["title"] for v in views] == ["Default", "IAA: disputed"]
