"""Report sinks: each writes the report document in one format, atomically.

Adding a format is one module with a :class:`Writer` and an entry in :data:`WRITERS`.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any, Protocol

from ...core.files import write_atomic
from ...evaluation.document import DISPUTED_FILE, SCHEMA_VERSION, Disputed, build_document

Document = dict[str, Any]


class Writer(Protocol):
    """Renders a report document to a file's content; ``filename`` is where it goes in the
    report dir. ``disputed``: every disputed task by field, for a writer that shows more than
    the document's lowest scores (None: the document's alone)."""

    filename: str

    def render(self, doc: Document, disputed: Disputed | None = None) -> str | bytes: ...


WRITERS = {
    "json": (("json", "JsonWriter"), ("json", "DisputedTasksWriter")),
    "markdown": (("markdown", "MarkdownWriter"),),
    "html": (("html", "HtmlWriter"),),
    "junit": (("junit", "JUnitWriter"),),
}
"""Format → its (module in this package, writer class) pairs, one per file; a module is imported
only when its format is written, so a JSON-only run never loads Jinja2."""


def writers(name: str) -> list[Writer]:
    """The writers of format ``name`` (a key of :data:`WRITERS`)."""
    return [getattr(import_module(f"{__name__}.{m}"), cls)() for m, cls in WRITERS[name]]


def write_reports(
    doc: Document, out_dir: Path, formats: list[str], disputed: Disputed
) -> list[Path]:
    """Write ``doc`` in each format into ``out_dir``; returns the paths written.
    ``disputed``: every disputed task by field (the ``json`` format writes them all)."""
    paths = []
    for name in formats:
        for w in writers(name):
            path = out_dir / w.filename
            write_atomic(path, w.render(doc, disputed))
            paths.append(path)
    return paths


__all__ = [
    "DISPUTED_FILE",
    "SCHEMA_VERSION",
    "Disputed",
    "Document",
    "Writer",
    "build_document",
    "write_atomic",
    "write_reports",
]
