"""Tables in long format (CSV, TSV, Parquet, JSON Lines), registered as ``source.type: table``:
what crowdsourcing platforms, Argilla's dataset export and crowd-kit users have."""

from __future__ import annotations

from .. import FileAdapter, ReadOptions, Source, register
from .config import TableSource


class TableAdapter(FileAdapter):
    """``source: {type: table, path: answers.csv}``."""

    name = "table"
    settings = TableSource

    def open(self, settings: TableSource, options: ReadOptions) -> Source:
        from .source import TableFile

        return TableFile(settings)


register(TableAdapter())
