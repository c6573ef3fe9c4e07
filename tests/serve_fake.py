"""A Label Studio the live service can talk to without a server (httpx's MockTransport under
the real SDK): one project, its tasks with their annotations, meta and overlap, the
predictions API and an empty webhook list. ``hold`` parks the worker inside a chosen request
until the test lets it go (events, never sleeps); ``log`` records every request."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.config import parse_config
from iaa_gate.serve.service import Service

LABEL_CONFIG = """<View><Text name="text" value="$text"/>
<Choices name="sentiment" toName="text" choice="single">
<Choice value="Positive"/><Choice value="Negative"/><Choice value="Neutral"/>
</Choices></View>"""
SECRET = "webhook-secret-0123456789"
OWN = "iaa-gate-consensus"


def result(label: str) -> list[dict[str, Any]]:
    value = {"choices": [label]}
    return [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": value}]


@dataclass
class Hold:
    """A request held until :attr:`go` is set; :attr:`entered` is set when it arrives
    (the first ``skip`` requests that ``match`` picks pass)."""

    match: Callable[[str, str, dict[str, Any]], bool]
    skip: int = 0
    entered: threading.Event = field(default_factory=threading.Event)
    go: threading.Event = field(default_factory=threading.Event)


class FakeLabelStudio:
    """Project 1 with ``tasks`` (each ``{"id", "data", "meta", "overlap", "annotations"}``)."""

    def __init__(self, tasks: list[dict[str, Any]], maximum_annotations: int = 2) -> None:
        self.tasks = {t["id"]: t for t in tasks}
        self.predictions: dict[int, dict[str, Any]] = {}
        self.maximum = maximum_annotations
        self.lock = threading.Lock()
        self.holds: list[Hold] = []
        self.log: list[tuple[str, str]] = []
        self.serial = 1000

    # -- what a test does to the project --------------------------------------------------------

    def annotate(self, task: int, who: int, label: str, **extra: Any) -> dict[str, Any]:
        """Save ``who``'s answer on ``task``: the annotation, as a webhook carries it."""
        with self.lock:
            self.serial += 1
            ann = {
                "id": self.serial,
                "task": task,
                "completed_by": who,
                "result": result(label),
                "was_cancelled": False,
                "ground_truth": False,
                "updated_at": f"2026-01-01T00:00:{self.serial % 60:02d}Z",
                **extra,
            }
            self.tasks[task]["annotations"].append(ann)
            return ann

    def event(self, ann: dict[str, Any]) -> dict[str, Any]:
        """The webhook body Label Studio posts for ``ann``."""
        task = self.tasks[ann["task"]]
        body = {"id": task["id"], "data": task["data"], "meta": task["meta"]}
        return {
            "action": "ANNOTATION_CREATED",
            "project": {"id": 1},
            "task": body,
            "annotation": ann,
        }

    def add(self, task: int, overlap: int) -> None:
        """A task added to the project, not labelled yet."""
        with self.lock:
            self.tasks[task] = {"id": task, "data": {}, "meta": {}, "overlap": overlap}
            self.tasks[task]["annotations"] = []

    def predict(self, task: int) -> int:
        """An own prediction left on ``task`` (by an earlier run)."""
        with self.lock:
            self.serial += 1
            self.predictions[self.serial] = {
                "id": self.serial,
                "task": task,
                "model_version": OWN,
                "result": result("Positive"),
                "score": 0.5,
            }
            return self.serial

    def own(self, task: int) -> list[int]:
        """The ids of iaa-gate's own predictions on ``task``."""
        with self.lock:
            return [
                p["id"]
                for p in self.predictions.values()
                if p["task"] == task and p["model_version"] == OWN
            ]

    def hold(self, match: Callable[[str, str, dict[str, Any]], bool], skip: int = 0) -> Hold:
        """Hold the request that ``match(method, path, params)`` picks after ``skip`` more."""
        held = Hold(match, skip)
        with self.lock:
            self.holds.append(held)
        return held

    def release(self) -> None:
        """Let every held request, and those still to come, go."""
        with self.lock:
            for held in self.holds:
                held.go.set()

    # -- the HTTP side --------------------------------------------------------------------------

    def _task(self, t: dict[str, Any]) -> dict[str, Any]:
        anns = t["annotations"]
        return {
            **t,
            "predictions": [p for p in self.predictions.values() if p["task"] == t["id"]],
            "total_annotations": sum(not a["was_cancelled"] for a in anns),
            "cancelled_annotations": sum(a["was_cancelled"] for a in anns),
        }

    def __call__(self, request: Any) -> Any:
        import httpx

        method, path = request.method, request.url.path
        params = dict(request.url.params)
        with self.lock:
            picked = None
            for held in self.holds:
                if held.entered.is_set() or not held.match(method, path, params):
                    continue
                if held.skip:
                    held.skip -= 1
                elif picked is None:
                    picked = held
                    held.entered.set()
        if picked is not None:  # outside the lock: the test looks at the project meanwhile
            picked.go.wait(timeout=60)
        body = json.loads(request.content) if request.content else None
        with self.lock:
            self.log.append((method, path))
            status, kw = self._answer(method, path, params, body)
            return httpx.Response(status, **kw)

    def _answer(self, method: str, path: str, params: dict[str, Any], body: Any) -> tuple[int, Any]:
        if path == "/api/projects/1/":
            project = {"id": 1, "title": "P", "label_config": LABEL_CONFIG}
            return 200, {"json": {**project, "maximum_annotations": self.maximum}}
        if path == "/api/users/":
            return 200, {"json": [{"id": i, "email": f"{i}@x"} for i in range(1, 6)]}
        if path == "/api/webhooks/":
            return 200, {"json": []}
        if path == "/api/tasks/":
            ids = sorted(self.tasks)
            if "query" in params:
                ids = json.loads(params["query"])["selectedItems"]["included"]
            page = int(params.get("page", 1))
            if page > 1:
                return 404, {"json": {"detail": "Invalid page."}}
            tasks = [self._task(self.tasks[t]) for t in ids if t in self.tasks]
            return 200, {"json": {"total": len(tasks), "tasks": tasks}}
        if path.startswith("/api/tasks/"):
            task = self.tasks[int(path.split("/")[3])]
            if method == "PATCH":
                task.update(body)
            return 200, {"json": self._task(task)}
        if path == "/api/predictions/":
            if method == "POST":
                self.serial += 1
                self.predictions[self.serial] = {"id": self.serial, **body}
                return 201, {"json": self.predictions[self.serial]}
            task = int(params["task"])
            return 200, {"json": [p for p in self.predictions.values() if p["task"] == task]}
        if path.startswith("/api/predictions/"):
            pid = int(path.split("/")[3])
            if method == "DELETE":
                self.predictions.pop(pid, None)
                return 204, {}
            self.predictions[pid].update(body)
            return 200, {"json": self.predictions[pid]}
        return 404, {"json": {"detail": "Not found."}}


def config(tmp_path: Path, serve: dict[str, Any] | None = None, **writeback: Any) -> Any:
    """A served config of the fake's project: one field, disputes settled by a majority (so
    every step evaluates the whole state), flags and consensus predictions written back."""
    return parse_config(
        {
            "version": 1,
            "source": {
                "type": "label-studio",
                "url": "http://ls.test",
                "project": 1,
                "api_key": "fake-token-123",
            },
            "fields": {"sentiment": {"bootstrap": {"replicates": 0}, "thresholds": {"alpha": {}}}},
            "report": {"dir": str(tmp_path / "out"), "formats": ["json"]},
            "adjudication": {"settle_at": 0.55},
            "writeback": {"enabled": True, "consensus": True, "view": None, **writeback},
            "serve": {
                "secret": SECRET,
                "state": str(tmp_path / "state.db"),
                "reconcile_every": 3600,
                **(serve or {}),
            },
        }
    )


@contextlib.contextmanager
def connected(fake: FakeLabelStudio, cfg: Any) -> Iterator[Service]:
    """A connected :class:`Service` of ``cfg`` talking to ``fake``."""
    sdk = pytest.importorskip("label_studio_sdk")
    import httpx

    service = Service(cfg)
    service.project.api.sdk_client = sdk.LabelStudio(
        base_url="http://ls.test",
        api_key="fake-token-123",
        httpx_client=httpx.Client(transport=httpx.MockTransport(fake)),
    )
    service.connect()
    try:
        yield service
    finally:
        fake.release()
