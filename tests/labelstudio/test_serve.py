"""``iaa-gate serve`` against a real Label Studio server that sends it real webhooks.

The service runs as a subprocess (``python -m iaa_gate.cli serve``), so a kill -9 is a real one;
Label Studio (started with ``SSRF_PROTECTION_ENABLED=false``) posts to it on 127.0.0.1 inside the
request that saves each annotation.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from iaa_gate.adapters.label_studio.export import parse_tasks
from iaa_gate.config import load_config
from iaa_gate.pipeline import evaluate
from iaa_gate.serve.events import parse_event
from iaa_gate.serve.state import State

from .helpers import REVIEW_CONFIG, live_config, report, result, run_cli
from .server import Annotator, LabelStudioServer, free_port

SECRET = "webhook-secret-0123456789"
S = ("Positive", "Negative", "Neutral")
FIELDS = {"sentiment": {}, "stars": {"level": "ordinal"}}
VOLATILE = ("generated_at", "writeback")


class Served:
    """``iaa-gate serve`` in a subprocess, its output in ``log``."""

    def __init__(self, config: Path, log: Path, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "iaa_gate.cli", "serve", "--config", str(config)]
        cmd += ["--port", str(self.port), *extra]
        env = {**os.environ, "IAA_GATE_WEBHOOK_SECRET": SECRET}
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            self.wait(lambda: self.get("/healthz").get("status") == "ok", "the service to start")
        except BaseException:
            self.stop()
            raise

    def get(self, path: str) -> Any:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as r:
                body = r.read()
        except (OSError, urllib.error.HTTPError):
            return {}
        return json.loads(body) if path != "/metrics" else body.decode()

    def wait(self, ok: Callable[[], bool], what: str, timeout: float = 180) -> None:
        # a guard, not a timing claim: a first report that lowers the overlap of ~250 tasks
        # (one PATCH each) comes before the service is ready, and on a loaded 2-core machine
        # that alone took over 60 s
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the service exited:\n{self.log.read_text()[-3000:]}")
            if ok():
                return
            time.sleep(0.1)
        metrics = [m for m in str(self.get("/metrics")).splitlines() if not m.startswith("#")]
        raise AssertionError(
            f"timed out waiting for {what}:\n{self.log.read_text()[-3000:]}\n{metrics[:8]}"
        )

    def settled(self) -> None:
        """Wait until the service is idle: no event queued, every write it decided done."""
        self.wait(lambda: self.get("/healthz").get("idle") is True, "an idle service")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.contextmanager
def serving(config: Path, log: Path, *extra: str) -> Iterator[Served]:
    served = Served(config, log, *extra)
    try:
        yield served
    finally:
        served.stop()


class Receiver:
    """A local HTTP receiver that records every POST body (a notify URL, a second webhook)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _config(tmp_path: Path, url: str, pid: int, **serve: Any) -> Path:
    return live_config(
        tmp_path / "iaa-gate.yaml",
        url,
        pid,
        FIELDS,
        writeback={"enabled": True},
        serve={
            "secret": "${IAA_GATE_WEBHOOK_SECRET}",
            "state": str(tmp_path / "state.db"),
            **serve,
        },
    )


def _batch(config: Path, tmp_path: Path) -> dict[str, Any]:
    """``iaa-gate run`` on the same project (no write-back), its report."""
    cfg = yaml.safe_load(config.read_text())
    cfg["writeback"] = {"enabled": False}
    cfg["report"] = {"dir": str(tmp_path / "batch"), "formats": ["json"]}
    batch = tmp_path / "batch.yaml"
    batch.write_text(yaml.safe_dump(cfg))
    assert run_cli("run", "--config", str(batch), "--quiet") in (0, 1)
    return report(tmp_path / "batch")


def _same(live: dict[str, Any], batch: dict[str, Any]) -> None:
    for key in VOLATILE:
        live.pop(key, None)
        batch.pop(key, None)
    for doc, where in ((live, "the 'IAA: disputed' tab"), (batch, "disputed-tasks.jsonl")):
        review = (doc.get("next_steps") or {}).get("review") or {}
        assert review.pop("where", where).startswith(where)  # the batch run writes no tab
    assert live.keys() == batch.keys()
    for key in live:
        assert live[key] == batch[key], key


def _annotate(ls_client: Any, task: int, who: Annotator, label: str, stars: int) -> int:
    ann = ls_client.annotations.create(
        id=task, result=result(label, stars=stars), completed_by=who.id
    )
    return int(ann.id)


def _meta(label_studio: LabelStudioServer, task: int) -> dict[str, Any]:
    meta: dict[str, Any] = label_studio.api("GET", f"/api/tasks/{task}/")["meta"]
    return meta


def _status(label_studio: LabelStudioServer, task: int) -> str | None:
    entry = _meta(label_studio, task).get("iaa")
    return entry.get("status") if isinstance(entry, dict) else None


def _wait_for(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def env(api_key_env: str) -> str:
    os.environ["IAA_GATE_WEBHOOK_SECRET"] = SECRET
    return api_key_env


def test_live_flags_report_update_delete_and_secrets(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    env: str,
    tmp_path: Path,
) -> None:
    tasks = [{"data": {"text": f"review {i}"}, "meta": {"batch": 7}} for i in range(6)]
    project = make_project(REVIEW_CONFIG, tasks, title="serve")
    pid = project.id
    ids = [t["id"] for t in label_studio.list_tasks(pid, include="id")]
    recorder = Receiver()  # a second webhook: the bodies Label Studio sends, for the replay test
    ls_client.webhooks.create(
        url=recorder.url, project=pid, send_payload=True, send_for_all_actions=True
    )
    config = _config(tmp_path, label_studio.url, pid)
    log = tmp_path / "serve.log"
    with serving(config, log, "--register") as served:
        hooks = [h for h in ls_client.webhooks.list(project=str(pid)) if h.url != recorder.url]
        assert len(hooks) == 1 and hooks[0].url == f"{served.url}/webhook"
        assert sorted(hooks[0].actions) == sorted(
            [
                "ANNOTATION_CREATED",
                "ANNOTATIONS_CREATED",
                "ANNOTATION_UPDATED",
                "ANNOTATIONS_DELETED",
                "TASKS_CREATED",
                "TASKS_DELETED",
            ]
        )
        # 1. three annotators: tasks 0-1 agree, 2-3 split 2-1, 4 all differ, 5 unanswered
        plan = [S[0] * 1, S[1], None, None, None, None]
        made: dict[int, list[int]] = {}
        for n, task in enumerate(ids[:5]):
            labels = [S[n % 3]] * 3 if n < 2 else [S[0], S[0], S[1]] if n < 4 else list(S)
            for who, label in zip(annotators, labels, strict=True):
                made.setdefault(task, []).append(_annotate(ls_client, task, who, label, 3))
        del plan
        _wait_for(lambda: _status(label_studio, ids[4]) == "disputed", "the disputed flag")
        served.settled()
        statuses = {t: _status(label_studio, t) for t in ids}
        assert statuses[ids[0]] == statuses[ids[1]] == "agreed"
        assert statuses[ids[4]] == "disputed"
        assert statuses[ids[5]] is None
        assert _meta(label_studio, ids[0])["batch"] == 7  # merged, not replaced
        views = label_studio.api("GET", f"/api/dm/views/?project={pid}")
        assert [v["data"]["title"] for v in views].count("IAA: disputed") == 1

        # 2. /report.json equals a batch run, field by field
        _same(served.get("/report.json"), _batch(config, tmp_path))
        html = urllib.request.urlopen(served.url + "/", timeout=10).read().decode()
        assert "<html" in html.lower() and "sentiment" in html

        # 3. an update and a delete change the flag back
        last = made[ids[4]]
        ls_client.annotations.update(id=last[1], result=result(S[0], stars=3))
        ls_client.annotations.update(id=last[2], result=result(S[0], stars=3))
        _wait_for(lambda: _status(label_studio, ids[4]) == "agreed", "the flag back to agreed")
        for aid in made[ids[0]][1:]:
            ls_client.annotations.delete(id=aid)
        _wait_for(lambda: _status(label_studio, ids[0]) == "too_few", "too_few after deletes")
        served.settled()
        _same(served.get("/report.json"), _batch(config, tmp_path))

        # 7. the token and the secret are never in the log or /metrics
        metrics = served.get("/metrics")
        assert 'iaa_gate_alpha{field="sentiment"}' in metrics
        assert "iaa_gate_flag_lag_seconds_count" in metrics
    text = log.read_text()
    for secret in (env, SECRET):
        assert secret not in text and secret not in metrics
    assert "webhook" in text  # the log is not empty: it says what it registered
    assert "running sums on" in text and "running sums off" not in text  # O(changed) steps

    # 4. the recorded deliveries, duplicated and shuffled, give the same state as in order
    recorder.close()
    bodies = [b for b in recorder.bodies if json.loads(b).get("action") != "PROJECT_UPDATED"]
    assert len(bodies) >= 17
    shuffled = bodies * 2
    random.Random(5).shuffle(shuffled)
    cfg = load_config(config)
    reports = []
    for n, order in enumerate((bodies, shuffled)):
        state = State(tmp_path / f"replay{n}.db")
        for i, body in enumerate(order):
            state.apply(parse_event(json.loads(body)), float(i))
        docs = [msgspec.Raw(d) for d in state.task_documents() if b'"annotations":[]' not in d]
        doc = evaluate(cfg, parse_tasks(docs, "replay")).document
        doc.pop("generated_at")
        reports.append(doc)
        state.close()
    assert reports[0] == reports[1]


def test_kill_9_restart_reconciles_and_gate_notifies(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    env: str,
    tmp_path: Path,
) -> None:
    tasks = [{"data": {"text": f"review {i}"}} for i in range(10)]
    pid = make_project(REVIEW_CONFIG, tasks, title="serve-kill").id
    ids = [t["id"] for t in label_studio.list_tasks(pid, include="id")]
    notify = Receiver()
    config = _config(tmp_path, label_studio.url, pid, notify_url=notify.url)
    log = tmp_path / "serve.log"
    served = Served(config, log, "--register")
    try:
        for n, task in enumerate(ids[:4]):  # agreement: the gate passes
            for who in annotators:
                _annotate(ls_client, task, who, S[n % 3], 1 + n % 3)
        served.settled()
        assert served.get("/report.json")["verdict"] == "pass"
        for n, task in enumerate(ids[4:]):
            if n == 2:
                served.kill()  # mid-stream: the rest go nowhere (Label Studio never retries)
            for who, label in zip(annotators, S, strict=True):
                _annotate(ls_client, task, who, label, 1 + S.index(label))
    finally:
        served.stop()
    # restart (registering again updates the one webhook): the reconcile brings the rest back
    with serving(config, log, "--register") as served:
        served.settled()
        assert len(ls_client.webhooks.list(project=str(pid))) == 1
        _wait_for(lambda: _status(label_studio, ids[-1]) == "disputed", "flags after restart")
        _same(served.get("/report.json"), _batch(config, tmp_path))
        # the flags in Label Studio are the batch's: a batch write-back has nothing to write
        out = tmp_path / "check"
        check = yaml.safe_load(config.read_text())
        check["report"] = {"dir": str(out), "formats": ["json"]}
        (tmp_path / "check.yaml").write_text(yaml.safe_dump(check))
        run_cli("run", "--config", str(tmp_path / "check.yaml"), "--quiet", "--dry-run")
        assert report(out)["writeback"]["planned"] == 0
    # the verdict went from pass to fail while annotators disagreed: a notification per change,
    # each from the last; steps that see part of the answers may pass through warn on the way
    _wait_for(lambda: bool(notify.bodies), "the notification")
    notes = [json.loads(b) for b in notify.bodies]
    assert all(a["verdict"] == b["was"] for a, b in itertools.pairwise(notes))
    assert all(n["was"] != n["verdict"] for n in notes)
    verdicts = [notes[0]["was"]] + [n["verdict"] for n in notes]
    assert verdicts[-1] == "fail" and "pass" in verdicts[:-1]
    assert all(a["verdict"] == b["was"] != b["verdict"] for a, b in itertools.pairwise(notes))
    assert "fail" in log.read_text()
    notify.close()


def _post(url: str, body: bytes, secret: str | None = SECRET) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-IAA-Gate-Secret"] = secret
    request = urllib.request.Request(url + "/webhook", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def test_refused_and_ignored_webhooks_change_nothing_and_unregister(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    env: str,
    tmp_path: Path,
) -> None:
    tasks = [
        {
            "data": {"text": f"review {i}"},
            "annotations": [
                {"completed_by": a.id, "result": result(S[(i + (a == annotators[2])) % 3], stars=2)}
                for a in annotators
            ],
        }
        for i in range(3)
    ]
    pid = make_project(REVIEW_CONFIG, tasks, title="serve-refused").id
    task = label_studio.list_tasks(pid, include="id")[0]["id"]
    config = _config(tmp_path, label_studio.url, pid, max_body=4000)
    log = tmp_path / "serve.log"
    with serving(config, log, "--register") as served:
        served.settled()
        before = served.get("/report.json")
        event = {
            "action": "ANNOTATION_CREATED",
            "project": {"id": pid},
            "task": {"id": task, "data": {"text": "x"}, "meta": {}},
            "annotation": {
                "id": 999_999,
                "task": task,
                "completed_by": annotators[0].id,
                "result": result(S[2], stars=5),
                "updated_at": "2030-01-01T00:00:00Z",
            },
        }
        good = json.dumps(event).encode()
        assert _post(served.url, good, secret="wrong-secret-0123456789")[0] == 401
        assert _post(served.url, good, secret=None)[0] == 401
        other = json.dumps({**event, "project": {"id": pid + 1000}}).encode()
        assert _post(served.url, other) == (200, {"ignored": True})
        huge = json.dumps({**event, "padding": "x" * 5000}).encode()
        assert _post(served.url, huge)[0] == 413
        assert _post(served.url, b'{"action": "ANNOTATION_CREATED", ')[0] == 400
        assert _post(served.url, b'{"no": "action"}')[0] == 400
        served.settled()
        after = served.get("/report.json")
        metrics = served.get("/metrics")
        assert 'iaa_gate_events_total{outcome="applied"} 0' in metrics
        assert 'iaa_gate_events_total{outcome="rejected"} 5' in metrics
        assert 'iaa_gate_events_total{outcome="ignored"} 1' in metrics
        for doc in (before, after):
            doc.pop("generated_at")
            doc.pop("writeback")
        assert after == before
    text = log.read_text()
    assert f"ignored ANNOTATION_CREATED of project {pid + 1000}" in text
    assert "(401)" in text and "(413)" in text and "(400)" in text
    assert SECRET not in text and env not in text
    # the webhook stays after shutdown; --unregister removes it
    mine = [h for h in ls_client.webhooks.list(project=str(pid)) if h.url.endswith("/webhook")]
    assert len(mine) == 1
    cmd = [sys.executable, "-m", "iaa_gate.cli", "serve", "--config", str(config), "--unregister"]
    cmd += ["--port", str(served.port)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "removed 1 webhook(s)" in done.stdout
    assert ls_client.webhooks.list(project=str(pid)) == []


def _own_predictions(label_studio: LabelStudioServer, task: int) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = label_studio.api("GET", f"/api/predictions/?task={task}")
    return [p for p in listed if p["model_version"] == "iaa-gate-consensus"]


def test_consensus_prediction_kept_current(
    label_studio: LabelStudioServer,
    ls_client: Any,
    make_project: Callable[..., Any],
    annotators: list[Annotator],
    env: str,
    tmp_path: Path,
) -> None:
    """With ``writeback.consensus``, a task disputed 2–1 gets iaa-gate's prediction; when its
    annotators come to agree, the prediction goes; the project ends as a batch write-back
    would leave it (nothing left to write, flags or predictions)."""
    tasks = [{"data": {"text": f"review {i}"}} for i in range(12)]
    pid = make_project(REVIEW_CONFIG, tasks, title="serve-consensus").id
    ids = [t["id"] for t in label_studio.list_tasks(pid, include="id")]
    config = live_config(
        tmp_path / "iaa-gate.yaml",
        label_studio.url,
        pid,
        FIELDS,
        writeback={"enabled": True, "consensus": True},
        serve={"secret": "${IAA_GATE_WEBHOOK_SECRET}", "state": str(tmp_path / "state.db")},
    )
    split: dict[int, list[int]] = {}
    with serving(config, tmp_path / "serve.log", "--register") as served:
        for n, task in enumerate(ids):
            labels = [S[n % 3]] * 3 if n < 9 else [S[0], S[0], S[1]]
            for who, label in zip(annotators, labels, strict=True):
                split.setdefault(task, []).append(_annotate(ls_client, task, who, label, 3))
        served.settled()
        disputed = ids[9:]
        assert all(_status(label_studio, t) == "disputed" for t in disputed)
        own = {t: _own_predictions(label_studio, t) for t in ids}
        assert all(len(own[t]) == 1 for t in disputed), own
        assert not any(own[t] for t in ids[:9])
        # the third annotator of task 9 comes round: agreed, and its prediction is deleted
        ls_client.annotations.update(id=split[ids[9]][2], result=result(S[0], stars=3))
        _wait_for(lambda: _status(label_studio, ids[9]) == "agreed", "task 9 agreed")
        served.settled()
        assert _own_predictions(label_studio, ids[9]) == []
        assert len(_own_predictions(label_studio, ids[10])) == 1
        _same(served.get("/report.json"), _batch(config, tmp_path))
    out = tmp_path / "check"
    check = yaml.safe_load(config.read_text())
    check["report"] = {"dir": str(out), "formats": ["json"]}
    (tmp_path / "check.yaml").write_text(yaml.safe_dump(check))
    run_cli("run", "--config", str(tmp_path / "check.yaml"), "--quiet", "--dry-run")
    done = report(out)["writeback"]
    assert done["planned"] == 0 and done["consensus"]["planned"] == 0, done
