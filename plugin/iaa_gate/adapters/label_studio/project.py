"""A live Label Studio project, read through the API with the SDK (``iaa-gate[label-studio]``).

Tasks go through :func:`~iaa_gate.adapters.label_studio.export.parse_tasks`, exactly like an export
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
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeGuard

from pydantic import SecretStr

from ...core import progress
from ...core.errors import ServerError
from ...core.redact import redact_url
from ...model import Dataset, TaskId
from .client import LabelStudioClient
from .export import parse_tasks
from .label_config import declare, parse_label_config
from .rules import CONSENSUS_MODEL_VERSION
from .wire import Prediction, Task, is_prediction

if TYPE_CHECKING:
    from .config import LabelStudioSource

ANNOTATION_FIELDS = (
    "result",
    "completed_by",
    "was_cancelled",
    "ground_truth",
    "created_at",
    "updated_at",
    "parent_prediction",
    "model_version",
    "score",
)
"""Annotation and prediction fields :func:`parse_tasks` reads (``id`` and ``result`` are shared
with the task, ``model_version`` and ``score`` are the predictions')."""
PullMethod = Literal["tasks", "export"]


@dataclass
class PulledTask:
    """What write-back needs of a pulled task: its ``meta``, (when pulled) ``data``,
    iaa-gate's own consensus ``predictions`` on it (:data:`CONSENSUS_MODEL_VERSION`) and the
    ``image_size`` its annotations' regions give (``original_width``, ``original_height`` in
    pixels; None: not given), which turns regions read in pixels back into percent; its
    ``overlap`` (annotations wanted; None: not pulled) and ``annotators`` (distinct people with
    an annotation that is not a skip), which routing a dispute to one more annotator needs."""

    meta: dict[str, object]
    data: dict[str, object] | None = None
    predictions: list[Prediction] = field(default_factory=list)
    image_size: tuple[float, float] | None = None
    overlap: int | None = None
    annotators: int = 0


@dataclass
class LabelStudioProject:
    """Source for a live project. ``project``: id or title; ``view``: a Data Manager view id.

    ``pull_meta``/``pull_data``: also keep each task's ``meta``/``data`` in :attr:`tasks` (for
    write-back). ``timeout``, ``request_timeout``, ``retries``: see :class:`LabelStudioClient`.
    ``client``: an SDK client to use instead of building one (tests).
    """

    url: str
    api_key: SecretStr
    project: int | str
    view: int | None = None
    skip_invalid: bool = False
    include_ground_truth: bool = True
    method: PullMethod = "tasks"
    page_size: int = 1000
    pull_meta: bool = True
    pull_data: bool = False
    timeout: float | None = 3600.0
    request_timeout: float = 60.0
    retries: int = 3
    client: Any = field(default=None, repr=False)
    tasks: dict[TaskId, PulledTask] = field(default_factory=dict, repr=False)
    label_config: str = field(default="", repr=False)
    project_id: int | None = None
    title: str = ""
    api: LabelStudioClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.api = LabelStudioClient(
            self.url,
            self.api_key,
            timeout=self.timeout,
            request_timeout=self.request_timeout,
            retries=self.retries,
            where=f"project {self.project!r}",
            sdk_client=self.client,
        )
        self.url = redact_url(self.url)  # what messages and reports show

    @classmethod
    def from_config(
        cls,
        src: LabelStudioSource,
        *,
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
            pull_meta=pull_meta,
            pull_data=pull_data,
            timeout=src.timeout,
            request_timeout=src.request_timeout,
            retries=src.retries,
        )

    # -- connection -------------------------------------------------------------------------

    @property
    def where(self) -> str:
        """The project as messages name it."""
        return self.api.where

    def resolve(self) -> int:
        """The project id (a title is looked up); checks the URL, the token and the project."""
        if self.project_id is not None:
            return self.project_id
        pid = self.project if isinstance(self.project, int) else self._by_title(str(self.project))
        # a plain read of the fields used: SDK 2.0.x validates the whole project model strictly
        project = self.api.request(
            "GET", f"api/projects/{pid}/", f"reading project {pid}", absent=(404,)
        )
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
        self.api.where = f"project {self.project_id}"
        self.title = str(project.get("title") or "")
        self.label_config = str(project.get("label_config") or "")
        return self.project_id

    def _by_title(self, title: str) -> int:
        body = self.api.request(
            "GET",
            "api/projects/",
            f"looking up the project titled {title!r}",
            params={"title": title, "include": "id,title", "page_size": 100},
        )
        listed = body.get("results", []) if isinstance(body, dict) else body
        found = [(int(p["id"]), str(p.get("title") or "")) for p in listed or []]
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
        users = self.api.request("GET", "api/users/", "listing users", absent=(401, 403, 404))
        names: dict[str, str] = {}
        for u in users if isinstance(users, list) else []:
            parts = (u.get("first_name"), u.get("last_name"))
            full = " ".join(p for p in parts if p)
            label = u.get("email") or full or u.get("username")
            if label and "id" in u:
                names[str(u["id"])] = str(label)
        return names

    def routed(self, meta_key: str) -> dict[TaskId, int]:
        """The pulled tasks write-back routed to more annotators (see :func:`routed_of`)."""
        return routed_of({t: task.meta.get(meta_key) for t, task in self.tasks.items()})

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
            live=True,
        )
        dataset.annotator_names = {**names, **dataset.annotator_names}
        if self.label_config:
            controls = parse_label_config(self.label_config, f"{self.where} labeling config")
            declare(dataset, controls)
        return dataset

    def include(self) -> str:
        """The ``include`` list: task fields, then the annotation fields parse_tasks reads."""
        task = ["id", "annotations", "predictions"]
        task += ["meta", "overlap"] if self.pull_meta else []
        task += ["data"] if self.pull_data or _has_spans(self.label_config) else []
        return ",".join([*task, *ANNOTATION_FIELDS])

    def _keep(self, tasks: Iterator[Any]) -> Iterator[Any]:
        for task in tasks:
            if isinstance(task, dict) and isinstance(task.get("id"), (int, str)):
                meta, data = task.get("meta"), task.get("data")
                preds = task.get("predictions")
                own = [
                    p
                    for p in (preds if isinstance(preds, list) else [])
                    if is_prediction(p) and p.get("model_version") == CONSENSUS_MODEL_VERSION
                ]
                overlap = task.get("overlap")
                self.tasks[task["id"]] = PulledTask(
                    meta if isinstance(meta, dict) else {},
                    data if isinstance(data, dict) and self.pull_data else None,
                    own,
                    image_size_of(task.get("annotations")),
                    overlap if isinstance(overlap, int) and not isinstance(overlap, bool) else None,
                    annotators_of(task.get("annotations")),
                )
            yield task

    def _check_view(self, pid: int) -> None:
        view = self.api.request(
            "GET", f"api/dm/views/{self.view}/", f"reading view {self.view}", absent=(404,)
        )
        if not isinstance(view, dict) or view.get("project", pid) != pid:
            raise ServerError(
                f"Label Studio on {self.url}: view {self.view} not found in project {pid}",
                hint="source.view is the id of a Data Manager tab of this project "
                "(the tab=N in its URL); leave it out to read every task",
            )

    def _paged(self, pid: int) -> Iterator[Task]:
        params: dict[str, str | int] = {
            "project": pid,
            "fields": "all",
            "include": self.include(),
            "page_size": self.page_size,
        }
        if self.view is not None:
            params["view"] = self.view
        done: progress.Step | None = None  # announced once the first page gives the total
        try:
            page, seen, total = 1, 0, None
            while True:
                doing = f"reading tasks (page {page})"
                # a page past the end answers 404
                body = self.api.request(
                    "GET",
                    "api/tasks/",
                    doing,
                    params={**params, "page": page},
                    absent=(404,) if page > 1 else (),
                )
                if body is None:
                    return
                if not isinstance(body, dict) or not isinstance(body.get("tasks"), list):
                    raise ServerError(
                        f"Label Studio on {self.url}: GET /api/tasks/ did not answer with tasks",
                        hint="check source.url: it should be the Label Studio base URL",
                    )
                if total is None and isinstance(body.get("total"), int):
                    total = body["total"]
                    done = progress.step(f"pull project {pid}", total, "tasks")
                batch = body["tasks"]
                yield from batch
                if done is not None:
                    done.advance(len(batch))
                seen += len(batch)
                if len(batch) < self.page_size or (total is not None and seen >= total):
                    return
                page += 1
        finally:
            if done is not None:
                done.close()

    def _export(self, pid: int) -> Iterator[Task]:
        """An export snapshot (all tasks, or the view's), downloaded once, then deleted."""
        exports = self.api.sdk().projects.exports
        filters: dict[str, bool | int] = {"only_with_annotations": False}
        if self.view is not None:
            filters["view"] = self.view
        snap = self.api.call(
            "creating an export snapshot",
            lambda o: exports.create(
                id=pid,
                title="iaa-gate",
                task_filter_options=filters,
                serialization_options={"predictions": {"only_id": False}},
                request_options=o,
            ),
            timeout=600,
        )
        try:
            body = self.api.call(
                "downloading the export snapshot",
                lambda o: b"".join(
                    exports.download(
                        id=pid, export_pk=snap.id, export_type="JSON", request_options=o
                    )
                ),
                timeout=600,
            )
        finally:
            self.api.call(
                "deleting the export snapshot",
                lambda o: exports.delete(id=pid, export_pk=snap.id, request_options=o),
            )
        try:
            tasks = json.loads(body)
        except ValueError:
            tasks = None
        if not isinstance(tasks, list):
            raise ServerError(f"Label Studio on {self.url}: the export is not a task list")
        yield from progress.counted(
            tasks, progress.step(f"export project {pid}", len(tasks), "tasks"), every=1000
        )


def annotators_of(annotations: Any) -> int:
    """Distinct people with an annotation that is not a skip (``was_cancelled``): what Label
    Studio counts against a task's ``overlap`` to set ``is_labeled``."""
    who = set()
    for a in annotations if isinstance(annotations, list) else []:
        if isinstance(a, dict) and not a.get("was_cancelled"):
            by = a.get("completed_by")
            who.add(str(by.get("id") if isinstance(by, dict) else by))
    return len(who)


def routed_of(entries: Mapping[TaskId, Any] | Mapping[int, Any]) -> dict[TaskId, int]:
    """Task → the annotations write-back asked for when it routed the task (``route`` in the
    task's meta entry, ``entries``: task → ``meta[meta_key]``), for the tasks that have one."""
    out: dict[TaskId, int] = {}
    for t, entry in entries.items():
        route = entry.get("route") if isinstance(entry, dict) else None
        if isinstance(route, int) and not isinstance(route, bool):
            out[t] = route
    return out


def image_size_of(annotations: Any) -> tuple[float, float] | None:
    """The first ``(original_width, original_height)`` (both positive) among the results of
    ``annotations`` (None: no result gives one)."""
    for ann in annotations if isinstance(annotations, list) else ():
        result = ann.get("result") if isinstance(ann, dict) else None
        for item in result if isinstance(result, list) else ():
            if not isinstance(item, dict):
                continue
            w, h = item.get(SIZE_KEYS[0]), item.get(SIZE_KEYS[1])
            if _positive(w) and _positive(h):
                return float(w), float(h)
    return None


def _positive(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


SIZE_KEYS = ("original_width", "original_height")


def _has_spans(label_config: str) -> bool:
    """The labeling config has a span control: the task text (in ``data``) is then needed for
    character-level and unitizing alpha."""
    return re.search(r"<(Labels|HyperTextLabels|ParagraphLabels)\b", label_config) is not None
