"""Fixtures for integration tests against a real Label Studio server (one per session)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .server import Annotator, LabelStudioServer

HERE = Path(__file__).resolve().parent
SKIP_ENV = "IAA_GATE_SKIP_LABEL_STUDIO"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test under this folder ``labelstudio``; skip them all on request."""
    skip = os.environ.get(SKIP_ENV) == "1"
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.labelstudio)
            if skip:
                item.add_marker(pytest.mark.skip(reason=f"{SKIP_ENV}=1: Label Studio tests off"))


def _sdk_client(server: LabelStudioServer) -> Any:
    """Return an SDK client; a missing SDK is an error, not a skip."""
    try:
        from label_studio_sdk import LabelStudio
    except ImportError as exc:  # pragma: no cover - environment problem
        pytest.fail(
            f"label-studio-sdk missing ({exc}): pip install -e '.[label-studio]' "
            f"or set {SKIP_ENV}=1",
            pytrace=False,
        )
    return LabelStudio(base_url=server.url, api_key=server.token)


@pytest.fixture(scope="session")
def label_studio() -> Iterator[LabelStudioServer]:
    """A real Label Studio server for the whole session (errors with the log tail if it fails)."""
    with LabelStudioServer() as server:
        yield server


@pytest.fixture(scope="module")
def ls_client(label_studio: LabelStudioServer) -> Any:
    """``label_studio_sdk.LabelStudio`` authenticated as the admin."""
    return _sdk_client(label_studio)


@pytest.fixture(scope="module")
def make_project(ls_client: Any) -> Callable[..., Any]:
    """Factory ``make_project(label_config, tasks, **project_fields) -> project``.

    Creates a project with a unique title and bulk-imports ``tasks`` (which may embed
    ``annotations``, attributed by ``completed_by``).
    """

    def make(label_config: str, tasks: list[dict[str, Any]], **fields: Any) -> Any:
        title = fields.pop("title", "iaa-gate test") + f" {uuid.uuid4().hex[:8]}"
        project = ls_client.projects.create(title=title, label_config=label_config, **fields)
        if tasks:
            result = ls_client.projects.import_tasks(id=project.id, request=tasks)
            assert result.task_count == len(tasks), result
        return project

    return make


@pytest.fixture(scope="session")
def make_annotators(label_studio: LabelStudioServer) -> Callable[[int], list[Annotator]]:
    """Factory ``make_annotators(n) -> [Annotator(id, email)]``: users annotator1..n, idempotent."""
    client = _sdk_client(label_studio)

    def make(n: int) -> list[Annotator]:
        existing = {u.email: u.id for u in client.users.list()}
        out = []
        for i in range(1, n + 1):
            email = f"annotator{i}@iaa-gate.test"
            if email not in existing:
                # no password: SDK 2.0.x users.create has no such argument
                user = client.users.create(username=f"annotator{i}", email=email)
                existing[email] = user.id
            out.append(Annotator(existing[email], email))
        return out

    return make


@pytest.fixture(scope="session")
def annotators(make_annotators: Callable[[int], list[Annotator]]) -> list[Annotator]:
    """Three annotator users (ids and emails)."""
    return make_annotators(3)


@pytest.fixture
def api_key_env(label_studio: LabelStudioServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """``LABEL_STUDIO_API_KEY`` set to the admin's legacy token; returns the token."""
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", label_studio.token)
    return label_studio.token


@pytest.fixture
def http_log(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every HTTP request the SDK sends in this test, as ``(method, path)``."""
    import httpx

    log: list[tuple[str, str]] = []
    send = httpx.Client.send

    def logged(self: httpx.Client, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        log.append((request.method, request.url.path))
        return send(self, request, **kwargs)

    monkeypatch.setattr(httpx.Client, "send", logged)
    return log
