"""Report sinks: each writes the report document in one format, atomically.

Adding a format is one module with a :class:`Writer` and an entry in :data:`WRITERS`.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module
from pathlib import Path
from typing import Protocol, runtime_checkable

from ...core.files import write_atomic
from ...evaluation.document import DISPUTED_FILE, SCHEMA_VERSION, Disputed, Report, build_document


class Writer(Protocol):
    """Renders the typed report to a file's content; ``filename`` is where it goes in the
    report dir. ``disputed``: every disputed task by field, for a writer that shows more than
    the report's lowest scores (None: the report's alone)."""

    filename: str

    def render(self, report: Report, disputed: Disputed | None = None) -> str | bytes: ...


@runtime_checkable
class Chunked(Protocol):
    """A writer whose file is written as it is made, a chunk at a time (:meth:`chunks`: what
    :meth:`Writer.render` returns, in pieces), so a large file is never held whole."""

    def chunks(self, report: Report, disputed: Disputed | None = None) -> Iterable[bytes]: ...


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
    report: Report, out_dir: Path, formats: list[str], disputed: Disputed
) -> list[Path]:
    """Write ``report`` in each format into ``out_dir``; returns the paths written.
    ``disputed``: every disputed task by field (the ``json`` format writes them all)."""
    paths = []
    for name in formats:
        for w in writers(name):
            path = out_dir / w.filename
            if isinstance(w, Chunked):  # written as made
                write_atomic(path, w.chunks(report, disputed))
            else:
                write_atomic(path, w.render(report, disputed))
            paths.append(path)
    return paths


__all__ = [
    "DISPUTED_FILE",
    "SCHEMA_VERSION",
    "Chunked",
    "Disputed",
    "Report",
    "Writer",
    "build_document",
    "write_atomic",
    "write_reports",
]
