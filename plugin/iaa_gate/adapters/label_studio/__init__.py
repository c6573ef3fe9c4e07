"""Label Studio: the labeling config, the API client, the export and live-project readers.

Registers two source types: ``label-studio-export`` (a JSON export file) and ``label-studio``
(a live project through the API; needs ``iaa-gate[label-studio]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from ...core.redact import redact_url
from ...model import TaskId
from .. import FileAdapter, ReadOptions, Source, SourceValue, register
from .config import ExportSource, LabelStudioSource


class ExportAdapter(FileAdapter):
    """``source: {type: label-studio-export, path: export.json}``."""

    name = "label-studio-export"
    settings = ExportSource

    def open(self, settings: ExportSource, options: ReadOptions) -> Source:
        from .export import LabelStudioExport

        return LabelStudioExport(
            settings.path,
            skip_invalid=settings.skip_invalid,
            label_config=settings.label_config,
            workers=options.workers,
        )


@dataclass(frozen=True)
class ProjectAdapter:
    """``source: {type: label-studio, url: …, project: …, api_key: ${VAR}}``."""

    name: str = "label-studio"
    settings: type[LabelStudioSource] = LabelStudioSource
    live: bool = True
    writeback: str | None = "flags on the project's tasks and a Data Manager tab"

    def open(self, settings: LabelStudioSource, options: ReadOptions) -> Source:
        from .project import LabelStudioProject

        return LabelStudioProject.from_config(
            settings,
            pull_meta=options.writeback,
            pull_data=options.writeback and options.data_flags,
        )

    def summary(self, settings: LabelStudioSource) -> dict[str, SourceValue]:
        url = redact_url(settings.url)  # never echo credentials embedded in the URL
        return {
            "type": settings.type,
            "url": url,
            "project": settings.project,
            "view": settings.view,
        }

    def task_link(self, summary: Mapping[str, SourceValue], task: TaskId) -> str | None:
        """The task in the project's Data Manager."""
        url, project = summary.get("url"), summary.get("project_id", summary.get("project"))
        if not isinstance(project, int) or not url:
            return None
        return f"{str(url).rstrip('/')}/projects/{project}/data?task={quote(str(task))}"


register(ExportAdapter())
register(ProjectAdapter())
