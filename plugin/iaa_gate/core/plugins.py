"""Loading the modules of a registry package (adapters, field kinds, sinks) once."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

_LOADED: set[str] = set()


def load_all(package: str, path: Iterable[str], *, packages: bool) -> None:
    """Import every subpackage (``packages``) or every module (not ``packages``) of
    ``package``, once per process; each registers itself on import."""
    if package in _LOADED:
        return
    for info in pkgutil.iter_modules(path):
        if info.ispkg == packages:
            importlib.import_module(f"{package}.{info.name}")
    _LOADED.add(package)
