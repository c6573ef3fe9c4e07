"""Report sinks: each writes the report document in one format, atomically.

Adding a format is one module with a :class:`Writer` and an entry in :data:`WRITERS`.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any, Protocol

from ..files import write_atomic
from .document import SCHEMA_VERSION, build_document

Document = dict[str, Any]


class Writer(Protocol):
    """Renders a report document to text; ``filename`` is where it goes in the report dir."""

    filename: str

    def render(self, doc: Document) -> str: ...


WRITERS = {
    "json": ("json", "JsonWriter"),
    "markdown": ("markdown", "MarkdownWriter"),
    "html": ("html", "HtmlWriter"),
    "junit": ("junit", "JUnitWriter"),
}
"""Format → (module in this package, writer class); a module is imported only when its format is
written, so a JSON-only run never loads Jinja2."""


def writer(name: str) -> Writer:
    """The writer of format ``name`` (a key of :data:`WRITERS`)."""
    module, cls = WRITERS[name]
    made: Writer = getattr(import_module(f"{__name__}.{module}"), cls)()
    return made


def write_reports(doc: Document, out_dir: Path, formats: list[str]) -> list[Path]:
    """Write ``doc`` in each format into ``out_dir``; returns the paths written."""
    paths = []
    for name in formats:
        w = writer(name)
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
