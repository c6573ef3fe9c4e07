"""Report sinks: each writes the report document in one format, atomically.

Adding a format is one module with a :class:`Writer` and an entry in :data:`WRITERS`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from ..files import write_atomic
from .document import SCHEMA_VERSION, build_document

Document = dict[str, Any]


class Writer(Protocol):
    """Renders a report document to text; ``filename`` is where it goes in the report dir."""

    filename: str

    def render(self, doc: Document) -> str: ...


def writers() -> dict[str, Writer]:
    from .html import HtmlWriter
    from .json import JsonWriter
    from .junit import JUnitWriter
    from .markdown import MarkdownWriter

    return {
        "json": JsonWriter(),
        "markdown": MarkdownWriter(),
        "html": HtmlWriter(),
        "junit": JUnitWriter(),
    }


def write_reports(doc: Document, out_dir: Path, formats: list[str]) -> list[Path]:
    """Write ``doc`` in each format into ``out_dir``; returns the paths written."""
    table = writers()
    paths = []
    for name in formats:
        w = table[name]
        path = out_dir / w.filename
        write_atomic(path, w.render(doc))
        paths.append(path)
    return paths


__all__ = [
    "SCHEMA_VERSION",
    "Document",
    "Writer",
    "build_document",
    "write_atomic",
    "write_reports",
]
