"""A live Label Studio project, read through the API with the SDK (``iaa-gate[label-studio]``).

Tasks go through :func:`~iaa_gate.sources.label_studio_export.parse_tasks`, exactly like an export
file, so a live pull and an export of the same project give the same report. The SDK is imported
only here, and only when a live source is used.

Two ways to pull (bench/LABEL_STUDIO_PULL.md has the figures):

- ``tasks`` (the default, fastest): ``GET /api/tasks/`` in pages with an explicit ``include`` list.
  ``include`` is one flat field list applied to tasks AND their annotations, so it names the
  annotation fields too. A ``view`` restricts it to a Data Manager tab.
- ``export``: an export snapshot (``projects.exports.create`` + ``download``), one download.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from pydantic import SecretStr

from ..errors import IaaGateError, ServerError, UsageError
from ..model import Dataset, TaskId
from .label_config import declared_multiple, parse_label_config
from .label_studio_export import parse_tasks

if TYPE_CHECKING:
    from ..config import LabelStudioSource

ANNOTATION_FIELDS = (
    "result",
    "completed_by",
    "was_cancelled",
    "ground_truth",
    "created_at",
    "updated_at",
)
"""Annotation fields :func:`parse_tasks` reads; ``id`` is shared with the task."""
INSTALL_HINT = 'the live Label Studio source needs the SDK: pip install "iaa-gate[label-studio]"'
RETRIES = 2
"""Retries on 408/409/429/5xx (the SDK's backoff); SDK 2.0.x retries only when asked to."""
PullMethod = Literal["tasks", "export"]


def sdk() -> Any:
    """The ``label_studio_sdk`` module, or a one-line error telling how to install it."""
    try:
        import label_studio_sdk
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return label_studio_sdk


@dataclass
class PulledTask:
    """What write-back needs of a pulled task: its ``meta`` and (when pulled) ``data``."""

    meta: dict[str, Any]
    data: dict[str, Any] | None = None


@dataclass
class LabelStudioProject:
    """Source for a live project. ``project``: id or title; ``view``: a Data Manager view id.

    ``pull_meta``/``pull_data``: also keep each task's ``meta``/``data`` in :attr:`tasks` (for
    write-back). ``client``: an SDK client to use instead of building one (tests).
    """

    url: str
    api_key: SecretStr
    project: int | str
    view: int | None = None
    skip_invalid: bool = False
    include_ground_truth: bool = True
    progress: bool = False
    method: PullMethod = "tasks"
    page_size: int = 1000
    pull_meta: bool = True
    pull_data: bool = False
    timeout: float = 120.0
    client: Any = field(default=None, repr=False)
    tasks: dict[TaskId, PulledTask] = field(default_factory=dict, repr=False)
    label_config: str = field(default="", repr=False)
    project_id: int | None = None
    title: str = ""

    @classmethod
    def from_config(
        cls,
        src: LabelStudioSource,
        *,
        progress: bool = False,
        pull_meta: bool = True,
        pull_data: bool = False,
    ) -> LabelStudioProject:
        """The source for a ``source: {type: label-studio}`` config section."""
        return cls(
            url=src.url.rstrip("/"),
            api_key=src.api_key,
            project=src.project,
            view=src.view,
            skip_invalid=src.skip_invalid,
            include_ground_truth=src.include_ground_truth,
            progress=progress,
            pull_meta=pull_meta,
            pull_data=pull_data,
        )

    # -- connection -------------------------------------------------------------------------

    @property
    def where(self) -> str:
        """The project as messages name it."""
        pid = self.project_id if self.project_id is not None else self.project
        return f"project {pid!r}"

    def sdk_client(self) -> Any:
        """The SDK client (built once): a legacy token or a personal access token."""
        if self.client is None:
            ls = sdk()
            with self.calls("connecting"):
                self.client = ls.LabelStudio(
                    base_url=self.url,
                    api_key=self.api_key.get_secret_value(),
                    timeout=self.timeout,
                )
        return self.client

    def options(self, timeout: float | None = None) -> dict[str, Any]:
        """Request options: explicit retries (SDK 2.0.x defaults to none) and a timeout."""
        return {"max_retries": RETRIES, "timeout_in_seconds": timeout or self.timeout}

    @contextmanager
    def calls(self, doing: str) -> Iterator[None]:
        """Turn SDK and HTTP errors into one :class:`IaaGateError` naming the URL and project."""
        try:
            yield
        except IaaGateError:
            raise
        except Exception as exc:
            self.fail(exc, doing)

    def fail(self, exc: BaseException, doing: str) -> NoReturn:
        """Raise the clear message for ``exc`` (an SDK/HTTP error met while ``doing``)."""
        message, hint = explain(exc, self.url, self.where, doing)
        raise ServerError(message, hint=hint) from None

    def resolve(self) -> int:
        """The project id (a title is looked up); checks the URL, the token and the project."""
        if self.project_id is not None:
            return self.project_id
        pid = self.project if isinstance(self.project, int) else self._by_title(str(self.project))
        # a plain read of the fields used: SDK 2.0.x validates the whole project model strictly
        project = self._get(f"api/projects/{pid}/", {}, f"reading project {pid}", missing=True)
        if project is None:
            raise ServerError(
                f"Label Studio on {self.url}: project {pid} not found",
                hint="check source.project (an id or a title); the token's user must be "
                "a member of the project's organization",
            )
        if not isinstance(project, dict) or project.get("id") != pid:
            raise ServerError(
                f"Label Studio on {self.url}: GET /api/projects/{pid}/ is not a project",
                hint="check source.url: it should be the Label Studio base URL",
            )
        self.project_id = int(pid)
        self.title = str(project.get("title") or "")
        self.label_config = str(project.get("label_config") or "")
        return self.project_id

    def _by_title(self, title: str) -> int:
        client = self.sdk_client()
        with self.calls(f"looking up the project titled {title!r}"):
            listed = client.projects.list(
                title=title, include="id,title", page_size=100, request_options=self.options()
            )
            found = [(int(p.id), str(p.title)) for p in listed]
        exact = [pid for pid, t in found if t == title]
        if not exact and title.isdigit():
            return int(title)
        if not exact:
            exact = [pid for pid, t in found if t.casefold() == title.casefold()]
        if len(exact) == 1:
            return exact[0]
        if not exact:
            near = ", ".join(repr(t) for _, t in found[:5])
            raise ServerError(
                f"Label Studio on {self.url}: no project titled {title!r}"
                + (f" (titles containing it: {near})" if near else ""),
                hint="check source.project, or give the project id (the number in its URL)",
            )
        raise ServerError(
            f"Label Studio on {self.url}: {len(exact)} projects are titled {title!r} "
            f"(ids {', '.join(map(str, sorted(exact)))})",
            hint="set source.project to the id of the one you mean",
        )

    def annotator_names(self) -> dict[str, str]:
        """User id → email (or name) from the users API; empty if the token may not list users."""
        client = self.sdk_client()
        try:
            users = client.users.list(request_options=self.options())
        except Exception as exc:
            if getattr(exc, "status_code", None) in (401, 403, 404):
                return {}
            self.fail(exc, "listing users")
        names: dict[str, str] = {}
        for u in users:
            parts = (getattr(u, "first_name", ""), getattr(u, "last_name", ""))
            full = " ".join(p for p in parts if p)
            label = getattr(u, "email", None) or full or getattr(u, "username", None)
            if label:
                names[str(u.id)] = str(label)
        return names

    # -- pulling ------------------------------------------------------------------------------

    def load(self) -> Dataset:
        pid = self.resolve()
        if self.view is not None:
            self._check_view(pid)
        names = self.annotator_names()
        self.tasks = {}
        raw = self._paged(pid) if self.method == "tasks" else self._export(pid)
        dataset = parse_tasks(
            self._keep(raw),
            f"{self.url} project {pid}" + (f" view {self.view}" if self.view else ""),
            skip_invalid=self.skip_invalid,
            include_ground_truth=self.include_ground_truth,
        )
        dataset.annotator_names = {**names, **dataset.annotator_names}
        if self.label_config:
            controls = parse_label_config(self.label_config, f"{self.where} labeling config")
            dataset.declared_multiple = declared_multiple(controls)
        return dataset

    def include(self) -> str:
        """The ``include`` list: task fields, then the annotation fields parse_tasks reads."""
        task = ["id", "annotations"]
        task += ["meta"] if self.pull_meta else []
        task += ["data"] if self.pull_data else []
        return ",".join([*task, *ANNOTATION_FIELDS])

    def _keep(self, tasks: Iterator[Any]) -> Iterator[Any]:
        for task in tasks:
            if isinstance(task, dict) and isinstance(task.get("id"), (int, str)):
                meta, data = task.get("meta"), task.get("data")
                self.tasks[task["id"]] = PulledTask(
                    meta if isinstance(meta, dict) else {},
                    data if isinstance(data, dict) and self.pull_data else None,
                )
            yield task

    def _check_view(self, pid: int) -> None:
        client = self.sdk_client()
        with self.calls(f"reading view {self.view}"):
            try:
                view = client.views.get(id=str(self.view), request_options=self.options())
            except Exception as exc:
                if getattr(exc, "status_code", None) != 404:
                    raise
                view = None
        if view is None or getattr(view, "project", pid) != pid:
            raise ServerError(
                f"Label Studio on {self.url}: view {self.view} not found in project {pid}",
                hint="source.view is the id of a Data Manager tab of this project "
                "(the tab=N in its URL); leave it out to read every task",
            )

    def _get(self, path: str, params: dict[str, Any], doing: str, *, missing: bool = False) -> Any:
        """GET ``path`` through the SDK client's HTTP wrapper (its auth, retries and timeout);
        ``missing``: None on 404."""
        http = self.sdk_client()._client_wrapper.httpx_client
        with self.calls(doing):
            resp = http.request(path, method="GET", params=params, request_options=self.options())
            if resp.status_code == 404 and missing:
                return None
            if resp.status_code >= 400:
                raise _status_error(resp)
            return resp.json()

    def _paged(self, pid: int) -> Iterator[dict[str, Any]]:
        params: dict[str, Any] = {
            "project": pid,
            "fields": "all",
            "include": self.include(),
            "page_size": self.page_size,
        }
        if self.view is not None:
            params["view"] = self.view
        bar = progress_bar(self.progress, f"pull project {pid}")
        try:
            page, seen, total = 1, 0, None
            while True:
                doing = f"reading tasks (page {page})"
                # a page past the end answers 404
                body = self._get("api/tasks/", {**params, "page": page}, doing, missing=page > 1)
                if body is None:
                    return
                if not isinstance(body, dict) or not isinstance(body.get("tasks"), list):
                    raise ServerError(
                        f"Label Studio on {self.url}: GET /api/tasks/ did not answer with tasks",
                        hint="check source.url: it should be the Label Studio base URL",
                    )
                if total is None and isinstance(body.get("total"), int):
                    total = body["total"]
                    bar.reset(total=total)
                batch = body["tasks"]
                yield from batch
                bar.update(len(batch))
                seen += len(batch)
                if len(batch) < self.page_size or (total is not None and seen >= total):
                    return
                page += 1
        finally:
            bar.close()

    def _export(self, pid: int) -> Iterator[dict[str, Any]]:
        """An export snapshot (all tasks, or the view's), downloaded once, then deleted."""
        client = self.sdk_client()
        exports = client.projects.exports
        bar = progress_bar(self.progress, f"export project {pid}")
        long = self.options(timeout=max(self.timeout, 600))
        try:
            with self.calls("creating an export snapshot"):
                filters: dict[str, Any] = {"only_with_annotations": False}
                if self.view is not None:
                    filters["view"] = self.view
                snap = exports.create(
                    id=pid, title="iaa-gate", task_filter_options=filters, request_options=long
                )
            try:
                with self.calls("downloading the export snapshot"):
                    chunks = exports.download(
                        id=pid, export_pk=snap.id, export_type="JSON", request_options=long
                    )
                    body = b"".join(chunks)
                    tasks = json.loads(body)
            finally:
                with self.calls("deleting the export snapshot"):
                    exports.delete(id=pid, export_pk=snap.id, request_options=self.options())
            if not isinstance(tasks, list):
                raise ServerError(f"Label Studio on {self.url}: the export is not a task list")
            bar.reset(total=len(tasks))
            for task in tasks:
                yield task
                bar.update(1)
        finally:
            bar.close()


class _Quiet:
    """The no-op stand-in for a progress bar."""

    def reset(self, total: int | None = None) -> None: ...

    def update(self, n: int = 1) -> None: ...

    def close(self) -> None: ...


def progress_bar(progress: bool, desc: str) -> Any:
    """A tqdm bar on stderr when ``progress`` (the caller decides: a TTY, no --quiet)."""
    if not progress:
        return _Quiet()
    from tqdm import tqdm

    return tqdm(total=None, desc=desc, unit="task", file=sys.stderr, leave=False)


class StatusError(Exception):
    """An HTTP error answer read through the raw wrapper (the SDK methods raise ApiError)."""

    def __init__(self, status_code: int, body: Any) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code
        self.body = body


def _status_error(resp: Any) -> StatusError:
    try:
        body = resp.json()
    except ValueError:
        body = resp.text[:200]
    return StatusError(int(resp.status_code), body)


def _detail(body: Any) -> str:
    if isinstance(body, dict):
        for key in ("detail", "message", "error"):
            if isinstance(body.get(key), str):
                return str(body[key])
    return ""


def explain(exc: BaseException, url: str, where: str, doing: str) -> tuple[str, str | None]:
    """``(message, hint)`` for an error met while ``doing``; never includes the API key."""
    status = getattr(exc, "status_code", None)
    kind = type(exc).__name__
    if isinstance(status, int):
        detail = _detail(getattr(exc, "body", None))
        said = f" ({detail})" if detail else ""
        if status == 401:
            return (
                f"Label Studio on {url} refused the API key (401{said}) while {doing}",
                "check the token in source.api_key (e.g. LABEL_STUDIO_API_KEY): a personal access "
                "token (Account & Settings → Personal Access Token) or a legacy token, for this "
                "server",
            )
        if status == 403:
            return (
                f"Label Studio on {url}: access denied (403{said}) while {doing} ({where})",
                "the token's user needs access to this project (and to the users list)",
            )
        if status == 404:
            return (
                f"Label Studio on {url}: not found (404{said}) while {doing} ({where})",
                "check source.url, source.project and source.view",
            )
        retried = " after retrying" if status >= 500 or status in (408, 409, 429) else ""
        return (
            f"Label Studio on {url} answered HTTP {status}{said} while {doing}{retried} ({where})",
            "the server had a problem: try again later, or check its logs",
        )
    if kind in ("ConnectError", "ConnectTimeout"):
        return (
            f"cannot reach Label Studio at {url} while {doing}",
            "check source.url and that the server is running and reachable from here",
        )
    if kind in ("ReadError", "RemoteProtocolError", "WriteError"):
        return (
            f"Label Studio on {url} dropped the connection while {doing}",
            "the server may have restarted or be overloaded: try again later",
        )
    if kind in ("ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutException"):
        return (
            f"Label Studio on {url} did not answer in time while {doing}",
            "the server may be overloaded: try again later",
        )
    if kind in ("UnsupportedProtocol", "InvalidURL", "LocalProtocolError"):
        return (
            f"{url!r} is not a usable Label Studio URL",
            "source.url must look like http://host:8080 (scheme, host and port)",
        )
    if isinstance(exc, (ValueError, json.JSONDecodeError)):
        return (
            f"Label Studio on {url} did not answer like Label Studio while {doing} "
            f"(unreadable reply)",
            "check source.url: it should be the Label Studio base URL, without /api or /projects",
        )
    return (
        f"Label Studio on {url}: {kind} while {doing}",
        "check source.url and the network; rerun with --debug for details",
    )
