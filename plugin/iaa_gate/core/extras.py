"""The optional extras: the packages only some runs need, imported only on those paths.

``pip install iaa-gate`` (numpy, pydantic, PyYAML, msgspec, tqdm) reads every source and scores
every classification field. The rest comes with an extra: ``html`` (Jinja2, the HTML report),
``regions`` (scipy and shapely: matching spans, boxes, polygons, keypoints and masks) and
``text`` (rapidfuzz: the Levenshtein distance of free text) and ``table`` (pyarrow: Parquet
tables; CSV, TSV and JSON Lines are read without it). A path that needs one imports it inside
:func:`needed`, so a missing package ends the run with the line that installs it
(:class:`~iaa_gate.core.errors.MissingExtraError`, exit code 2) rather than a traceback.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import MissingExtraError

EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "html": ("the HTML report", ("jinja2", "markupsafe")),
    "regions": (
        "matching regions (spans, boxes, polygons, keypoints, masks)",
        ("scipy", "shapely"),
    ),
    "text": ("the Levenshtein distance of free text", ("rapidfuzz",)),
    "table": ("reading a Parquet table", ("pyarrow",)),
}
"""Extra → what needs it and the modules it installs (``pyproject.toml``'s optional
dependencies)."""


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` this install cannot import (none: the extra is installed).

    >>> missing("regions")
    []
    """
    return [m for m in EXTRAS[extra][1] if importlib.util.find_spec(m) is None]


def require(extra: str, what: str | None = None) -> None:
    """Raise :class:`MissingExtraError` for ``what`` (None: what the extra serves) unless
    ``extra`` is installed."""
    absent = missing(extra)
    if absent:
        raise MissingExtraError(what or EXTRAS[extra][0], absent[0], extra)


@contextmanager
def needed(extra: str) -> Iterator[None]:
    """Imports of ``extra``'s packages: a failed one raises :class:`MissingExtraError`, whose
    hint is ``pip install "iaa-gate[EXTRA]"``.

    >>> with needed("regions"):
    ...     from scipy.optimize import linear_sum_assignment
    """
    try:
        yield
    except ImportError as exc:
        what, modules = EXTRAS[extra]
        raise MissingExtraError(what, (exc.name or modules[0]).split(".")[0], extra) from exc
