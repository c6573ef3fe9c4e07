"""Sinks: put the verdict where people look and adjudicate.

Two kinds, each behind a registry:

- report formats (:mod:`.report`): ``report.formats`` names them; each renders the report
  document to a file in the report directory;
- write-back (:class:`Sink`): registered per ``source.type`` by a module of this package that
  calls :func:`register` (Label Studio flags in :mod:`.label_studio`, the Prodigy review file in
  :mod:`.prodigy`). Adding one is one module here; every module is loaded when the registry is
  first read.

Each sink takes the per-field results and returns a summary of what it wrote, with a list of
``warnings`` (the CLI prints them); sinks print nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..adapters import ReadOptions, Source
from ..config import Config
from ..core.plugins import load_all
from ..evaluation.results import FieldResult
from ..evaluation.sections import Writeback


class Sink(Protocol):
    """Writes disputed/agreed status somewhere; ``dry_run`` reports the plan and writes nothing.
    Returns the summary kept in ``report.json`` under ``writeback``."""

    def apply(self, results: dict[str, FieldResult], *, dry_run: bool = False) -> Writeback: ...


SinkFactory = Callable[[Config, Path, Source, ReadOptions], "Sink | None"]
"""``(config, report dir, the loaded source, how it was read)`` → the run's sink, or None when
the config asks for none."""

_REGISTRY: dict[str, SinkFactory] = {}


def register(source_type: str, factory: SinkFactory) -> None:
    """Make ``factory`` the write-back of sources of ``source_type``."""
    if source_type in _REGISTRY:
        raise ValueError(f"a write-back for {source_type!r} is registered twice")
    _REGISTRY[source_type] = factory


def writeback(config: Config, out_dir: Path, source: Source, options: ReadOptions) -> Sink | None:
    """The write-back sink of this run (None: the source has none, or the config turns it off;
    then no sink module is loaded)."""
    if not config.writeback.enabled:
        return None
    load_all(__name__, __path__, packages=False)
    factory = _REGISTRY.get(config.source.type)
    return factory(config, out_dir, source, options) if factory else None
