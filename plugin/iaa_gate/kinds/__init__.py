"""Field kinds: what each control type is and how it is evaluated, behind one registry.

A field kind is one control type (a lower-cased Label Studio tag such as ``choices`` or
``rectanglelabels``, or a Prodigy view such as ``spans``). Its :class:`FieldKind` says whether
it is scored as one value per unit (``family="scalar"``) or by matching regions
(``family="region"``, with its geometry), its default level of measurement, the options and
distances only it accepts, and how an answer is compared with ground truth. Kinds iaa-gate
knows but cannot score yet are registered with ``family="listed"`` and the reason, so they are
named as not evaluated instead of being dropped.

Adding a kind is one module in this package that calls :func:`register`; every module here is
loaded when the registry is first read. The sets the rest of the code used to list by hand
(:data:`SCALAR_KINDS`, :data:`REGION_SHAPES`, …) are derived from the registry.

>>> kind("rating").default_level, kind("rectanglelabels").shape
('ordinal', 'box')
>>> "textarea" in SCALAR_KINDS and "brushlabels" not in SCALAR_KINDS
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ..core.plugins import load_all

Family = Literal["scalar", "region", "items", "listed"]
Comparison = Literal["exact", "named", "regions", "none"]

GEOMETRY_WIDTH = {"span": 2, "box": 5, "polygon": 4, "keypoint": 2, "mask": 5}
"""Numbers per region in a geometry row: span ``[start, end)``; box ``[x, y, width, height,
rotation]``; polygon its bounding box ``[x, y, width, height]``; mask its pixel box and the
image's pixel count ``[x, y, width, height, pixels]``; keypoint ``[x, y]``."""


class FieldKind(Protocol):
    """What the rest of iaa-gate asks of a field kind.

    ``name``: the control type; ``family``: ``scalar`` (one value per unit: ratings matrix and
    coefficients), ``region`` (regions matched one to one), ``items`` (answers about several
    items of a task: a ranking's items, a chat's messages; units are (task, item)) or
    ``listed`` (known, not scored);
    ``default_level``: the level of measurement when the config sets none (``None``: not
    evaluated unless the config names the field); ``shape``: a region kind's geometry (a key of
    :data:`GEOMETRY_WIDTH`); ``distances``: distances that apply to this kind only;
    ``options``: field options that apply to this kind only; ``comparison``: how an answer is
    compared with a reference (``exact`` labels and numbers, ``named`` labels under a
    distance, ``regions`` matched regions, ``none``); ``reason``: why a listed kind is not scored;
    ``evaluated_by_default``: a starting config (``iaa-gate init``) evaluates such fields.
    """

    @property
    def name(self) -> str: ...
    @property
    def family(self) -> Family: ...
    @property
    def default_level(self) -> str | None: ...
    @property
    def shape(self) -> str | None: ...
    @property
    def distances(self) -> frozenset[str]: ...
    @property
    def options(self) -> frozenset[str]: ...
    @property
    def comparison(self) -> Comparison: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def evaluated_by_default(self) -> bool: ...


@dataclass(frozen=True)
class Kind:
    """The plain :class:`FieldKind` the built-in kinds use (attributes as documented there)."""

    name: str
    family: Family
    default_level: str | None = "nominal"
    shape: str | None = None
    distances: frozenset[str] = frozenset()
    options: frozenset[str] = frozenset()
    comparison: Comparison = "exact"
    reason: str | None = None
    evaluated_by_default: bool = True


_REGISTRY: dict[str, FieldKind] = {}


def register(*kinds: FieldKind) -> None:
    """Add ``kinds`` to the registry; a name registered twice is a programming error."""
    for k in kinds:
        if k.name in _REGISTRY:
            raise ValueError(f"field kind {k.name!r} is registered twice")
        if k.family == "region" and k.shape not in GEOMETRY_WIDTH:
            raise ValueError(f"region kind {k.name!r} needs a shape in {sorted(GEOMETRY_WIDTH)}")
        _REGISTRY[k.name] = k


def _load() -> dict[str, FieldKind]:
    load_all(__name__, __path__, packages=False)
    return _REGISTRY


def registry() -> dict[str, FieldKind]:
    """Every registered kind by name (the modules of this package, loaded once)."""
    return dict(_load())


def kind(name: str) -> FieldKind | None:
    """The kind of control type ``name``, or None when iaa-gate does not know it."""
    return _load().get(name)


def _derived() -> tuple[frozenset[str], dict[str, str], frozenset[str]]:
    kinds = _load().values()
    scalar = frozenset(k.name for k in kinds if k.family == "scalar")
    shapes = {k.name: k.shape for k in kinds if k.family == "region" and k.shape}
    listed = frozenset(k.name for k in kinds if k.family == "listed")
    return scalar, shapes, listed


SCALAR_KINDS, REGION_SHAPES, LISTED_KINDS = _derived()
"""Derived from the registry: scalar kinds; region kind → geometry; kinds known but not
scored."""


def extras_of(kind: str, distance: str | None = None, *, matched: bool = False) -> list[str]:
    """The optional extras (``core.extras.EXTRAS``) a field of control type ``kind`` scored
    with ``distance`` needs: ``regions`` to match its regions (a region kind, or ``matched``:
    an attribute scored on matched regions), ``text`` for the Levenshtein distance.

    >>> extras_of("rectanglelabels"), extras_of("textarea", "levenshtein"), extras_of("choices")
    (['regions'], ['text'], [])
    """
    needs = {"regions": matched or kind in REGION_SHAPES, "text": distance == "levenshtein"}
    return [extra for extra, needed in needs.items() if needed]
