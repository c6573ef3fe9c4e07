"""Adapters: each reads one kind of source into a :class:`~iaa_gate.model.Dataset`.

Adding a source (Doccano, Argilla…) is one new module with a class satisfying :class:`Source`.
"""

from __future__ import annotations

from typing import Protocol

from ..model import Dataset


class Source(Protocol):
    """Anything that loads annotations into the normalised model."""

    def load(self) -> Dataset: ...
