"""Tables in long format (CSV, TSV, Parquet, JSON Lines), registered as ``source.type: table``:
what crowdsourcing platforms, Argilla's dataset export and crowd-kit users have."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model import TaskId
from .. import ReadOptions, Source, register
from .config import TableSource


@dataclass(frozen=True)
class TableAdapter:
    """``source: {type: table, path: answers.csv}``."""

    name: str = "table"
    settings: type[TableSource] = TableSource
    live: bool = False
    writeback: str | None = None

    def open(self, settings: TableSource, options: ReadOptions) -> Source:
        from .source import TableFile

        return TableFile(settings)

    def summary(self, settings: TableSource) -> dict[str, Any]:
        return {"type": settings.type, "path": str(settings.path)}

    def task_link(self, summary: dict[str, Any], task: TaskId) -> str | None:
        return None


register(TableAdapter())
