"""Prodigy: the ``db-out`` JSONL reader, registered as ``source.type: prodigy``."""

from __future__ import annotations

from .. import FileAdapter, ReadOptions, Source, register
from .config import ProdigySource


class ProdigyAdapter(FileAdapter):
    """``source: {type: prodigy, path: round.jsonl}``."""

    name = "prodigy"
    settings = ProdigySource
    writeback = "the review file disputed.jsonl, for `prodigy review`"

    def open(self, settings: ProdigySource, options: ReadOptions) -> Source:
        from .source import ProdigyJSONL

        return ProdigyJSONL(
            settings.path,
            skip_invalid=settings.skip_invalid,
            workers=options.workers,
            review=settings.review,
        )


register(ProdigyAdapter())
