"""The life of a dispute on a real server, with three annotators who each have their own token:
A and B disagree on some tasks; a run with ``writeback.route`` re-opens exactly those; the label
stream (``/next/``) serves them to C and never to A or B; C's answers settle one and leave one
open at ``max_annotations``; a lead's ground-truth marks resolve the rest, their flags and
consensus predictions go, and the ``open_disputes`` gate passes."""

from __future__ import annotations

import urllib.error
from collections.abc import Callable
from pathlib import Path
from typing import Any

from iaa_gate.cli import ExitCode

from .helpers import REVIEW_CONFIG, live_config, report, result, run_cli, user_with_token
from .server import LabelStudioServer, api

AGREED, DISPUTED = 3, 3


def _next(url: str, pid: int, token: str) -> dict[str, Any] | None:
    """The task the label stream serves this user next (None: nothing for them)."""
    try:
        task: dict[str, Any] | None = api(url, "GET", f"/api/projects/{pid}/next/", token=token)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:  # "There are no tasks"
            return None
        raise
    return task if task and "id" in task else None


def _annotate(url: str, task: int, token: str, label: str | None) -> dict[str, Any]:
    """This user's answer (None: a skip)."""
    body: dict[str, Any] = {"result": result(label) if label else [], "lead_time": 1.0}
    if label is None:
        body["was_cancelled"] = True
    out: dict[str, Any] = api(url, "POST", f"/api/tasks/{task}/annotations/", body, token=token)
    return out


def _tasks(label_studio: LabelStudioServer, pid: int) -> dict[int, dict[str, Any]]:
    include = "id,meta,overlap,is_labeled,annotations,predictions,completed_by,model_version"
    return {t["id"]: t for t in label_studio.list_tasks(pid, include=include)}


def _own_prediction(task: dict[str, Any]) -> bool:
    return any(p.get("model_version") == "iaa-gate-consensus" for p in task["predictions"])


def test_route_settle_adjudicate_and_gate(
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    api_key_env: str,
    tmp_path: Path,
) -> None:
    url = label_studio.url
    a, b, c = (user_with_token(url, f"router-{x}@iaa-gate.test") for x in "abc")
    tasks = [{"data": {"text": f"review {i}"}} for i in range(AGREED + DISPUTED)]
    project = make_project(REVIEW_CONFIG, tasks, title="lifecycle", maximum_annotations=2)
    pid = project.id
    ids = sorted(_tasks(label_studio, pid))
    disputed, agreed = ids[:DISPUTED], ids[DISPUTED:]
    answers: dict[int, dict[str, Any]] = {}
    for t in ids:  # A and B answer every task; they disagree on the first three
        answers[t] = _annotate(url, t, a[1], "Positive")
        _annotate(url, t, b[1], "Negative" if t in disputed else "Positive")
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        url,
        pid,
        {
            "sentiment": {
                "bootstrap": {"replicates": 0},
                "thresholds": {"alpha": {}, "annotator_gain": None, "open_disputes": {"fail": 0}},
            }
        },
        report={"dir": str(out), "formats": ["json"]},
        adjudication={"settle_at": 0.55},
        writeback={
            "enabled": True,
            "consensus": True,
            "route": {"extra": 1, "max_annotations": 3},
        },
    )

    # run 1: the three disputes are open; exactly they are re-opened for one more annotator
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.GATE_FAILED
    doc = report(out)
    assert doc["fields"]["sentiment"]["disputes"]["states"]["open"] == DISPUTED
    assert doc["writeback"]["routed"] == DISPUTED
    now = _tasks(label_studio, pid)
    for t in disputed:
        assert (now[t]["overlap"], now[t]["is_labeled"]) == (3, False)
        assert now[t]["meta"]["iaa"]["state"] == "routed" and now[t]["meta"]["iaa"]["route"] == 3
    for t in agreed:
        assert (now[t]["overlap"], now[t]["is_labeled"]) == (2, True)
    predicted = {t for t in disputed if _own_prediction(now[t])}

    # a second run asks for nothing more: the same missing answers
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.GATE_FAILED
    assert report(out)["writeback"]["routed"] == 0
    assert report(out)["fields"]["sentiment"]["disputes"]["states"]["routed"] == DISPUTED

    # a project-level overlap change drops the per-task overrides: the next run re-applies them
    for m in (3, 2):  # a change rewrites every task's overlap (set back: no other task moves)
        body = {"maximum_annotations": m, "overlap_cohort_percentage": 100}
        label_studio.api("PATCH", f"/api/projects/{pid}/", body)
    assert {_tasks(label_studio, pid)[t]["overlap"] for t in disputed} == {2}
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.GATE_FAILED
    assert report(out)["writeback"]["routed"] == DISPUTED
    now = _tasks(label_studio, pid)
    assert all((now[t]["overlap"], now[t]["is_labeled"]) == (3, False) for t in disputed)

    # the label stream: never to A or B, each re-opened task to C
    assert _next(url, pid, a[1]) is None and _next(url, pid, b[1]) is None
    plan = {disputed[0]: "Positive", disputed[1]: "Neutral", disputed[2]: None}
    served = []
    while (task := _next(url, pid, c[1])) is not None and task["id"] not in served:
        served.append(task["id"])
        _annotate(url, task["id"], c[1], plan[task["id"]])
    assert sorted(served) == disputed

    # run 2: a 2-1 majority settles; a three-way split at max_annotations needs a person;
    # the skipped one is still routed
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.GATE_FAILED
    doc = report(out)
    states = doc["fields"]["sentiment"]["disputes"]
    assert states["states"] == {"open": 1, "routed": 1, "settled": 1, "resolved": 0}
    assert states["needs_a_person"] == 1
    lowest = {d["id"]: d for d in doc["fields"]["sentiment"]["disputed"]["lowest"]}
    assert lowest[disputed[0]]["state"] == "settled" and lowest[disputed[0]]["final"] == "Positive"
    assert lowest[disputed[1]]["note"] == "needs a person: 3 annotations, no majority"
    now = _tasks(label_studio, pid)
    assert now[disputed[0]]["meta"]["iaa"]["disputed"] is False  # settled: no flag
    assert not _own_prediction(now[disputed[0]])
    assert now[disputed[1]]["overlap"] == 3  # at max_annotations: not re-opened again
    predicted |= {t for t in disputed if _own_prediction(now[t])}

    # the lead stars an answer on the two left: resolved, flag and prediction gone, gate passes
    for t in disputed[1:]:
        label_studio.api("PATCH", f"/api/annotations/{answers[t]['id']}/", {"ground_truth": True})
    assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.OK
    doc = report(out)
    assert doc["fields"]["sentiment"]["disputes"]["states"] == {
        "open": 0,
        "routed": 0,
        "settled": 1,
        "resolved": 2,
    }
    assert doc["fields"]["sentiment"]["disputes"]["proposal_compared"] == 2
    now = _tasks(label_studio, pid)
    for t in disputed:
        assert now[t]["meta"]["iaa"]["disputed"] is False and not _own_prediction(now[t])
    assert predicted, "the disputed tasks had consensus predictions to lose"
    assert doc["writeback"]["disputed"] == 0  # the tab is empty

    # what the service would write is what the batch run wrote: a re-run plans nothing
    assert run_cli("run", "-c", str(cfg), "-q", "--dry-run") == ExitCode.OK
    assert report(out)["writeback"]["planned"] == 0


def test_the_same_sequence_through_serve(
    label_studio: LabelStudioServer,
    make_project: Callable[..., Any],
    api_key_env: str,
    tmp_path: Path,
    monkeypatch: Any,
) -> None:
    """Live: the service routes the disputes as A and B submit, scores C's extra answers,
    re-reads a task when an annotation is starred (the star moved silently from another),
    and re-enables its webhook when someone empties it."""
    from .test_serve import SECRET, serving

    monkeypatch.setenv("IAA_GATE_WEBHOOK_SECRET", SECRET)
    url = label_studio.url
    a, b, c = (user_with_token(url, f"live-{x}@iaa-gate.test") for x in "abc")
    tasks = [{"data": {"text": f"review {i}"}} for i in range(AGREED + DISPUTED)]
    project = make_project(REVIEW_CONFIG, tasks, title="lifecycle live", maximum_annotations=2)
    pid = project.id
    ids = sorted(_tasks(label_studio, pid))
    disputed = ids[:DISPUTED]
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        url,
        pid,
        {"sentiment": {"bootstrap": {"replicates": 0}, "thresholds": {"alpha": {}}}},
        report={"dir": str(out), "formats": ["json"]},
        adjudication={"settle_at": 0.55},
        writeback={
            "enabled": True,
            "consensus": True,
            "route": {"extra": 1, "max_annotations": 3},
        },
        serve={
            "secret": "${IAA_GATE_WEBHOOK_SECRET}",
            "state": str(tmp_path / "state.db"),
            "reconcile_every": 2,
        },
    )

    def states(served: Any) -> dict[str, int]:
        doc = served.get("/report.json")
        got: dict[str, int] = (
            ((doc.get("fields") or {}).get("sentiment") or {}).get("disputes", {}).get("states", {})
        )
        return got

    answers: dict[int, dict[int, dict[str, Any]]] = {}
    with serving(cfg, tmp_path / "serve.log", "--register") as served:
        for t in ids:
            answers[t] = {
                0: _annotate(url, t, a[1], "Positive"),
                1: _annotate(url, t, b[1], "Negative" if t in disputed else "Positive"),
            }
        served.wait(
            lambda: all(_tasks(label_studio, pid)[t]["overlap"] == 3 for t in disputed),
            "the disputes routed",
        )
        served.wait(lambda: states(served).get("routed") == DISPUTED, "the report to say routed")
        assert _next(url, pid, a[1]) is None and _next(url, pid, b[1]) is None
        plan = {disputed[0]: "Positive", disputed[1]: "Neutral", disputed[2]: None}
        served_to_c = []
        while (task := _next(url, pid, c[1])) is not None and task["id"] not in served_to_c:
            served_to_c.append(task["id"])
            answers[task["id"]][2] = _annotate(url, task["id"], c[1], plan[task["id"]])
        assert sorted(served_to_c) == disputed
        want = {"open": 1, "routed": 1, "settled": 1, "resolved": 0}
        served.wait(lambda: states(served) == want, "C's answers scored")

        # the lead stars A's answer, then C's: A's loses its star without a webhook
        star = "/api/annotations/{}/"
        label_studio.api(
            "PATCH", star.format(answers[disputed[1]][0]["id"]), {"ground_truth": True}
        )
        label_studio.api(
            "PATCH", star.format(answers[disputed[1]][2]["id"]), {"ground_truth": True}
        )
        label_studio.api(
            "PATCH", star.format(answers[disputed[2]][0]["id"]), {"ground_truth": True}
        )
        want = {"open": 0, "routed": 0, "settled": 1, "resolved": 2}
        served.wait(lambda: states(served) == want, "the stars read")
        lowest = served.get("/report.json")["fields"]["sentiment"]["disputed"]["lowest"]
        final = {d["id"]: d.get("final") for d in lowest}
        assert final[disputed[1]] == "Neutral"  # the star that stands, not two that disagree
        served.settled()  # idle: every write decided is done, the predictions' too
        now = _tasks(label_studio, pid)
        for t in disputed:
            assert now[t]["meta"]["iaa"]["disputed"] is False and not _own_prediction(now[t])

        # someone empties the webhook's actions: the next reconcile re-enables it
        served.wait(lambda: served.get("/healthz").get("webhook") == "active", "a checked hook")
        (hook,) = label_studio.api("GET", f"/api/webhooks/?project={pid}")
        label_studio.api("PATCH", f"/api/webhooks/{hook['id']}/", {"is_active": False})
        served.wait(lambda: served.get("/healthz").get("webhook") == "re-enabled", "re-enabled")
        (hook,) = label_studio.api("GET", f"/api/webhooks/?project={pid}")
        assert hook["is_active"] and len(hook["actions"]) == 6
        assert "re-enabled with all of them" in (tmp_path / "serve.log").read_text()

    # after the service, a batch run plans no write
    assert run_cli("run", "-c", str(cfg), "-q", "--dry-run") == ExitCode.OK
    assert report(out)["writeback"]["planned"] == 0
