"""Prodigy: the ``db-out`` JSONL reader, registered as ``source.type: prodigy``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model import TaskId
from .. import ReadOptions, Source, register
from .config import ProdigySource


@dataclass(frozen=True)
class ProdigyAdapter:
    """``source: {type: prodigy, path: round.jsonl}``."""

    name: str = "prodigy"
    settings: type[ProdigySource] = ProdigySource
    live: bool = False
    writeback: str | None = "the review file disputed.jsonl, for `prodigy review`"

    def open(self, settings: ProdigySource, options: ReadOptions) -> Source:
        from .source import ProdigyJSONL

        return ProdigyJSONL(settings.path, skip_invalid=settings.skip_invalid)

    def summary(self, settings: ProdigySource) -> dict[str, Any]:
        return {"type": settings.type, "path": str(settings.path)}

    def task_link(self, summary: dict[str, Any], task: TaskId) -> str | None:
        return None


register(ProdigyAdapter())
