"""Report sinks: each writes the report document in one format, atomically.

Adding a format is one module with a :class:`Writer` and an entry in :data:`WRITERS`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from contextlib import ExitStack
from importlib import import_module
from pathlib import Path
from typing import Protocol, runtime_checkable

from ...core.files import write_atomic, writing_parts
from ...core.fork import can_fork
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


@runtime_checkable
class Parted(Protocol):
    """A writer whose file can be made as parts, each on its own (:meth:`parts`: up to ``n``
    whose concatenation is what :meth:`Writer.render` returns; one when it is not worth it,
    made lazily, as :meth:`Chunked.chunks`), so that another process can make and write a part
    (:func:`start_parts`). Its content is every disputed task's, not the document's: the parts
    can be started before the document is built."""

    def parts(self, disputed: Disputed, n: int) -> Sequence[Iterable[bytes]]: ...


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


def start_parts(
    out_dir: Path, formats: Sequence[str], disputed: Disputed, workers: int, stack: ExitStack
) -> list[Path]:
    """Start writing the files of ``formats`` that a :class:`Parted` writer cuts into parts
    (from ``disputed`` alone), their later parts made and written by forked children while
    this process goes on: the files are finished, and put in place, when ``stack`` closes
    (:func:`~iaa_gate.core.files.writing_parts`). With ``workers`` <= 1, or where forking is
    not cheap, nothing starts.

    Parameters
    ----------
    out_dir : Path
        Where the files go.
    formats : sequence of str
        Keys of :data:`WRITERS`.
    disputed : dict of str to list of DisputedTask
        Every disputed task by field.
    workers : int
        Processes that may write (1: never forks).
    stack : ExitStack
        Closed once this process has written the other files.

    Returns
    -------
    list of Path
        The files started, which :func:`write_reports` is then told not to write.
    """
    started = []
    if workers > 1 and can_fork():
        for name in formats:
            for w in writers(name):
                parts = w.parts(disputed, workers) if isinstance(w, Parted) else ()
                if len(parts) > 1:
                    stack.enter_context(writing_parts(out_dir / w.filename, parts))
                    started.append(out_dir / w.filename)
    return started


def write_reports(
    report: Report,
    out_dir: Path,
    formats: Sequence[str],
    disputed: Disputed,
    *,
    workers: int = 1,
    started: Collection[Path] | None = None,
) -> list[Path]:
    """Write ``report`` in each format into ``out_dir``; returns the paths written.

    Parameters
    ----------
    report : Report
        The report.
    out_dir : Path
        Where the files go.
    formats : sequence of str
        Keys of :data:`WRITERS`.
    disputed : dict of str to list of DisputedTask
        Every disputed task by field (the ``json`` format writes them all).
    workers : int, default 1
        Processes that may write: with more than one (and where forking is cheap), a large
        file that a :class:`Parted` writer cuts has its later parts made and written by forked
        children while this process writes its first part and the other files (1: never
        forks; :func:`start_parts`).
    started : collection of Path, optional
        The files the caller started (:func:`start_parts`, which it called) and finishes: not
        written here, and nothing is started here (None: :func:`start_parts` is called here).

    Returns
    -------
    list of Path
        The files written, in the order of ``formats``.
    """
    files = [(out_dir / w.filename, w) for name in formats for w in writers(name)]
    with ExitStack() as later:  # a file written in parts is finished after the others
        if started is None:
            started = start_parts(out_dir, formats, disputed, workers, later)
        for path, w in files:  # its children started first, so that they end first
            if path in started:
                continue
            if isinstance(w, Chunked):  # written as made
                write_atomic(path, w.chunks(report, disputed))
            else:
                write_atomic(path, w.render(report, disputed))
    return [path for path, _ in files]


__all__ = [
    "DISPUTED_FILE",
    "SCHEMA_VERSION",
    "Chunked",
    "Disputed",
    "Parted",
    "Report",
    "Writer",
    "build_document",
    "start_parts",
    "write_atomic",
    "write_reports",
]
