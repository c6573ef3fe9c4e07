"""Adapters: each reads one kind of source into a :class:`~iaa_gate.model.Dataset`.

A source is registered as a :class:`SourceAdapter` under its config ``type``: the pydantic model
of its ``source:`` section, how to open it, and what the report may say about it. The config's
``source`` union is built from this registry, and the pipeline opens sources through it, so
adding a source (Argilla, Doccano…) is one package here that calls :func:`register` in its
``__init__.py``; no other module changes. Every subpackage is loaded when the registry is first
read, so keep a package's ``__init__`` light (import the reader inside ``open``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.plugins import load_all
from ..core.settings import SourceSettings
from ..model import Dataset, TaskId


class Source(Protocol):
    """Anything that loads annotations into the normalised model."""

    def load(self) -> Dataset: ...


SourceValue = str | int | float | bool | None
"""A value of a source's summary in the report (a JSON scalar: a path, a URL, a project id)."""


@dataclass(frozen=True)
class ReadOptions:
    """How the pipeline asks a source to read (progress goes through
    :mod:`iaa_gate.core.progress`, to whoever listens). ``writeback``/``data_flags``:
    write-back will follow, so pull what it merges into (task meta, task data); ``workers``:
    processes that may read one file (1: this one only)."""

    writeback: bool = False
    data_flags: bool = False
    workers: int = 1


class SourceAdapter(Protocol):
    """One kind of source. ``name``: the config's ``source.type``; ``settings``: the pydantic
    model of its ``source:`` section (a :class:`SourceSettings` with ``type: Literal[name]``);
    ``live``: a server, whose tasks are pulled and can be flagged; ``writeback``: what
    ``writeback.enabled`` writes for this source, in words (None: it has no write-back)."""

    @property
    def name(self) -> str: ...
    @property
    def settings(self) -> type[SourceSettings]: ...
    @property
    def live(self) -> bool: ...
    @property
    def writeback(self) -> str | None: ...

    def open(self, settings: Any, options: ReadOptions) -> Source:
        """The source for a validated ``settings`` (an instance of :attr:`settings`)."""
        ...

    def summary(self, settings: Any) -> dict[str, SourceValue]:
        """What the report says about the source (``type`` first; the other keys are the
        adapter's own, so a reader checks each value it reads): never a secret."""
        ...

    def task_link(self, summary: Mapping[str, SourceValue], task: TaskId) -> str | None:
        """Where a person opens ``task`` (a URL), from the report's ``source``; None: nowhere."""
        ...


_REGISTRY: dict[str, SourceAdapter] = {}


def register(adapter: SourceAdapter) -> None:
    """Add ``adapter`` under its ``name``; a type registered twice is a programming error."""
    if adapter.name in _REGISTRY:
        raise ValueError(f"source type {adapter.name!r} is registered twice")
    _REGISTRY[adapter.name] = adapter


def registry() -> dict[str, SourceAdapter]:
    """Every registered adapter by ``type`` (this package's subpackages, loaded once)."""
    load_all(__name__, __path__, packages=True)
    return dict(_REGISTRY)


def adapter(type_: str) -> SourceAdapter:
    """The adapter of ``source.type`` ``type_`` (the config has already checked it exists)."""
    return registry()[type_]


class FileAdapter:
    """What every file source shares: no server (``live`` false), no write-back unless a
    subclass says, the file's type and path as its report summary, and no link to a task."""

    live = False
    writeback: str | None = None

    def summary(self, settings: Any) -> dict[str, SourceValue]:
        return {"type": settings.type, "path": str(settings.path)}

    def task_link(self, summary: Mapping[str, SourceValue], task: TaskId) -> str | None:
        return None
