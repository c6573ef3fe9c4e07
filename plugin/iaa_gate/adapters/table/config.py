"""The ``source:`` section of a table in long format (CSV, TSV, Parquet or JSON Lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from ...core.settings import SourceSettings, Strict

TableKind = Literal["choices", "rating", "number", "textarea", "spans"]


class TableColumns(Strict):
    """The column names of the table, when they are not the default ones."""

    task: str = Field(default="task", description="the task's id")
    annotator: str = Field(default="annotator", description="who answered")
    field: str = Field(default="field", description="the field (question) answered")
    value: str = Field(default="value", description="the answer: a label, a number or a text")
    updated_at: str = Field(
        default="updated_at", description="when the answer was given (ISO 8601); optional"
    )
    start: str = Field(default="start", description="a span's first character; spans only")
    end: str = Field(default="end", description="the character after a span; spans only")
    label: str = Field(default="label", description="a span's label; spans only")


class TableSource(SourceSettings):
    """A table with one row per answer: ``task``, ``annotator``, ``field``, ``value`` (and
    ``updated_at``; for spans ``start``, ``end``, ``label`` with one row per span). Needs
    ``iaa-gate[table]`` (pyarrow)."""

    type: Literal["table"] = Field(description="a table in long format")
    path: Path = Field(
        description="the CSV, TSV, Parquet or JSON Lines file; relative to the config file"
    )
    format: Literal["csv", "tsv", "parquet", "jsonl"] | None = Field(
        default=None, description="csv, tsv, parquet or jsonl; null: from the file's suffix"
    )
    columns: TableColumns = Field(
        default=TableColumns(), description="the column names, when they are not the default"
    )
    kinds: dict[str, TableKind] = Field(
        default={},
        description="field → kind (choices, rating, number, textarea, spans); a field not "
        "named here holds labels (choices)",
    )
    multiple_separator: str | None = Field(
        default=None,
        min_length=1,
        description='splits a value into several labels (e.g. "|"): the field is multi-select',
    )

    def files(self) -> dict[str, Path]:
        return {"path": self.path}
