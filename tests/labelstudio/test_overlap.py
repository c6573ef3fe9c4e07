"""Overlap that follows the plan, against a real Label Studio server: a project with
``maximum_annotations: 2`` and 300 tasks, three annotators (each with their own token) who take
tasks through ``/api/projects/{id}/next/`` as the labeling UI does. Once alpha's interval is
narrow enough, the tasks not yet labelled get one annotator except the audit share; nothing
answered loses an annotation or its overlap; a task re-opened for a third annotator keeps it;
a wider interval raises the overlap again. In a batch run and through ``iaa-gate serve``."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.sinks.label_studio_overlap import audited

from .helpers import REVIEW_CONFIG, live_config, report, result, run_cli, user_with_token
from .server import LabelStudioServer, api
from .test_serve import SECRET, serving

S = ("Positive", "Negative", "Neutral")
TASKS = 300
AUDIT, SEED = 0.1, 7
NARROW, TIGHT = 0.6, 0.001  # a width every such round reaches, and one none does


def overlap_config(target: float) -> dict[str, Any]:
    return {
        "enabled": True,
        "view": None,
        "overlap": {"target_width": target, "audit": AUDIT, "seed": SEED},
    }


class Annotators:
    """Three people with their own tokens, taking tasks as the labeling UI does."""

    def __init__(self, server: LabelStudioServer, pid: int, tag: str) -> None:
        self.url, self.pid = server.url, pid
        self.people = [user_with_token(server.url, f"{tag}{i}@overlap.test") for i in range(3)]
        self.turn = 0

    def take(self, n: int) -> list[int]:
        """``n`` annotations, round robin: each ``GET /next/`` then submits its task."""
        got = []
        for _ in range(n):
            uid, token = self.people[self.turn % 3]
            self.turn += 1
            task = api(self.url, "GET", f"/api/projects/{self.pid}/next/", token=token)
            # mostly the task's own label; one answer in ten another
            rng = random.Random(task["id"] * 10 + uid)
            label = S[task["id"] % 3] if rng.random() > 1 / 10 else S[(task["id"] + 1) % 3]
            body = {"result": result(label), "lead_time": 1.0}
            api(self.url, "POST", f"/api/tasks/{task['id']}/annotations/", body, token=token)
            got.append(task["id"])
        return got


def tasks_now(server: LabelStudioServer, pid: int) -> dict[int, dict[str, Any]]:
    include = "id,overlap,total_annotations,cancelled_annotations,is_labeled"
    return {t["id"]: t for t in server.list_tasks(pid, include=include)}


def project(server: LabelStudioServer, make_project: Callable[..., Any], tag: str) -> int:
    tasks = [{"data": {"text": f"review {i}"}} for i in range(TASKS)]
    return int(make_project(REVIEW_CONFIG, tasks, title=tag, maximum_annotations=2).id)


def route(server: LabelStudioServer, task: int) -> None:
    """Re-open an answered task for a third annotator, as dispute routing does."""
    server.api("PATCH", f"/api/tasks/{task}/", {"overlap": 3, "is_labeled": False})


def check_lowered(
    before: dict[int, dict[str, Any]], now: dict[int, dict[str, Any]], routed: int
) -> None:
    """Open tasks: one annotator unless audited; answered ones keep overlap and annotations.

    An answered task's overlap is the project's, or 1 where it was lowered while still open and
    one person answered it since: the service may report, and lower, before a round's last
    submission (under load its debounce ends mid-round), never after a task's first answer."""
    for tid, was in before.items():
        t = now[tid]
        if was["total_annotations"]:
            assert t["total_annotations"] >= was["total_annotations"], tid
            assert t["overlap"] == (3 if tid == routed else was["overlap"]), tid
            lowered_open = was["total_annotations"] == 1 and not audited(tid, SEED, AUDIT)
            if tid != routed:
                assert was["overlap"] == 2 or (was["overlap"] == 1 and lowered_open), tid
        elif not t["total_annotations"]:
            assert t["overlap"] == (2 if audited(tid, SEED, AUDIT) else 1), tid
            assert t["is_labeled"] is False, tid


@pytest.fixture
def env(api_key_env: str) -> str:
    os.environ["IAA_GATE_WEBHOOK_SECRET"] = SECRET
    return api_key_env


def test_a_batch_run_lowers_keeps_the_audit_and_raises_again(
    label_studio: LabelStudioServer, make_project: Callable[..., Any], env: str, tmp_path: Path
) -> None:
    pid = project(label_studio, make_project, "overlap-batch")
    people = Annotators(label_studio, pid, "batch")
    people.take(120)
    before = tasks_now(label_studio, pid)
    answered = {t for t, v in before.items() if v["total_annotations"]}
    routed = min(t for t, v in before.items() if v["total_annotations"] == 2)
    route(label_studio, routed)
    before = tasks_now(label_studio, pid)
    out = tmp_path / "report"
    config = live_config(
        tmp_path / "iaa-gate.yaml",
        label_studio.url,
        pid,
        {"sentiment": {}},
        writeback=overlap_config(NARROW),
        report={"dir": str(out), "formats": ["json", "markdown"]},
    )
    assert run_cli("run", "--config", str(config), "--quiet") in (0, 1)  # any verdict
    now = tasks_now(label_studio, pid)
    check_lowered(before, now, routed)
    open_ = [t for t in before if t not in answered]
    audit = [t for t in open_ if audited(t, SEED, AUDIT)]
    summary = report(out)["writeback"]["overlap"]
    assert summary["settled"] and summary["fields"][0]["width"] <= NARROW
    assert (summary["open_tasks"], summary["audit"]) == (len(open_), len(audit))
    assert summary["annotations_saved"] == summary["done"] == len(open_) - len(audit)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f"{len(open_):,} tasks set to one annotator ({len(audit):,} kept for audit)" in md

    # a second run writes nothing (idempotent)
    assert run_cli("run", "--config", str(config), "--quiet") in (0, 1)  # any verdict
    assert report(out)["writeback"]["overlap"]["planned"] == 0

    # the next tasks the annotators receive get one annotation each, but for the audit share
    new = [t for t in dict.fromkeys(people.take(60)) if t not in answered]
    later = tasks_now(label_studio, pid)
    assert new and any(not audited(t, SEED, AUDIT) for t in new)
    for t in new:
        if not audited(t, SEED, AUDIT):
            assert (later[t]["overlap"], later[t]["total_annotations"]) == (1, 1), t
            assert later[t]["is_labeled"] is True, t
    assert later[routed]["overlap"] == 3  # the re-opened task keeps its third annotator
    for t in answered:
        assert later[t]["total_annotations"] >= before[t]["total_annotations"], t

    # a report that finds the interval wider again raises the open tasks, never the answered
    config = live_config(
        tmp_path / "tight.yaml",
        label_studio.url,
        pid,
        {"sentiment": {}},
        writeback=overlap_config(TIGHT),
        report={"dir": str(out), "formats": ["json"]},
    )
    assert run_cli("run", "--config", str(config), "--quiet") in (0, 1)  # any verdict
    raised = tasks_now(label_studio, pid)
    summary = report(out)["writeback"]["overlap"]
    assert not summary["settled"] and summary["raised"] > 0
    for t, v in raised.items():
        if later[t]["total_annotations"]:
            assert v["overlap"] == later[t]["overlap"], t  # answered: untouched
        else:
            assert v["overlap"] == 2, t


def test_serve_lowers_the_overlap_once_the_interval_is_narrow_enough(
    label_studio: LabelStudioServer, make_project: Callable[..., Any], env: str, tmp_path: Path
) -> None:
    pid = project(label_studio, make_project, "overlap-serve")
    people = Annotators(label_studio, pid, "serve")
    people.take(30)
    config = live_config(
        tmp_path / "iaa-gate.yaml",
        label_studio.url,
        pid,
        {"sentiment": {}},
        writeback=overlap_config(NARROW),
        serve={"secret": "${IAA_GATE_WEBHOOK_SECRET}", "state": str(tmp_path / "state.db")},
    )
    with serving(config, tmp_path / "serve.log", "--register") as served:
        people.take(60)  # live: the service hears each submission through the webhook
        served.settled()

        def lowered() -> bool:
            o = (served.get("/report.json").get("writeback") or {}).get("overlap") or {}
            return bool(o.get("settled")) and o.get("done") == o.get("planned")

        deadline = time.monotonic() + 120
        while not lowered():
            assert time.monotonic() < deadline, served.log.read_text()[-3000:]
            time.sleep(0.5)
        before = tasks_now(label_studio, pid)
        answered = {t for t, v in before.items() if v["total_annotations"]}
        routed = min(t for t, v in before.items() if v["total_annotations"] == 2)
        route(label_studio, routed)
        check_lowered(before, tasks_now(label_studio, pid), routed)
        new = [t for t in dict.fromkeys(people.take(45)) if t not in answered]
        served.settled()
        later = tasks_now(label_studio, pid)
        assert new and any(not audited(t, SEED, AUDIT) for t in new)
        for t in new:
            if not audited(t, SEED, AUDIT):
                assert (later[t]["overlap"], later[t]["total_annotations"]) == (1, 1), t
        assert later[routed]["overlap"] == 3
        for t in answered:
            assert later[t]["total_annotations"] >= before[t]["total_annotations"], t
