"""Field kinds: what each control type is and how it is evaluated, behind one registry.

A field kind is one control type (a lower-cased Label Studio tag such as ``choices`` or
``rectanglelabels``, or a Prodigy view such as ``spans``). Its :class:`Kind` says whether it is
scored as one value per unit (``family="scalar"``) or by matching regions (``family="region"``,
with its geometry), its default level of measurement, the options and distances only it
accepts, how an answer is compared with ground truth, what an answer is, and how Label Studio
writes it (the control tag, a result's value, a consensus written back). Kinds iaa-gate knows
but cannot score yet are registered with ``family="listed"`` and the reason, so they are named
as not evaluated instead of being dropped.

Adding a kind is one module in this package that calls :func:`register` (and its tests); every
module here is loaded when the registry is first read. The other layers ask the kind, never
compare its name; the sets they need (:data:`SCALAR_KINDS`, :data:`REGION_SHAPES`, …) are
derived from the registry.

>>> kind("rating").default_level, kind("rectanglelabels").shape
('ordinal', 'box')
>>> "textarea" in SCALAR_KINDS and "brushlabels" not in SCALAR_KINDS
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal
from xml.etree.ElementTree import Element

from ..core.plugins import load_all

Family = Literal["scalar", "region", "items", "listed"]
Comparison = Literal["exact", "named", "regions", "none"]


MAX_NUMBER = 1e150
"""Largest rating or number magnitude: squared differences of larger ones overflow."""


class Answer(Enum):
    """What one annotator's answer to a field of a kind is, as the model stores it: the layers
    above branch on this, never on the kind's name."""

    LABELS = "labels"
    """A tuple of labels (choices, taxonomy paths written ``a / b``, a pairwise side)."""
    NUMBER = "number"
    """A float (ratings and numbers)."""
    TEXT = "text"
    """A text (free text, normalised per field)."""
    RANKING = "ranking"
    """Tie groups, best first (see :mod:`iaa_gate.kinds.ranker`)."""
    OTHER = "other"
    """Regions (the field value's region table), or nothing read (listed kinds)."""


class AnswerError(ValueError):
    """A Label Studio result value, or a consensus, that cannot be an answer of its kind; the
    message says why, and the caller adds where (a task and field, or a proposal)."""


Read = Callable[[Mapping[str, object], str], Any]
"""A kind's reader of a Label Studio result ``value`` of field ``name``: the stored answer (see
:class:`Answer`), or None for no answer; :class:`AnswerError` when it cannot be one."""
Propose = Callable[[object], dict[str, object]]
"""A kind's writer of a consensus answer as a Label Studio result ``value`` (the consensus
prediction's shape); :class:`AnswerError` when the answer cannot be drawn."""


@dataclass(frozen=True)
class Declared:
    """What a Label Studio control tag declares about its field: its ``labels`` (None when the
    config does not fix them), whether it takes several (``multiple``), the ``note`` a starting
    config shows beside it and a rating's ``scale``."""

    labels: tuple[str, ...] | None
    multiple: bool
    note: str
    scale: tuple[float, ...] | None = None


Declare = Callable[[Element], Declared]
"""A kind's reader of its Label Studio control tag (see :class:`Declared`)."""


@dataclass(frozen=True)
class Kind:
    """One field kind: everything that differs by kind, as data and small pure functions.

    ``name``: the control type; ``family``: ``scalar`` (one value per unit: ratings matrix and
    coefficients), ``region`` (regions matched one to one), ``items`` (answers about several
    items of a task: a ranking's items, a chat's messages; units are (task, item)) or
    ``listed`` (known, not scored);
    ``default_level``: the level of measurement when the config sets none (``None``: not
    evaluated unless the config names the field); ``shape``: a region kind's geometry (the
    name of a ``metrics.geometry.Shape``: ``span``, ``box``, ``polygon``, ``keypoint``,
    ``mask``); ``distances``: distances that apply to this kind only;
    ``options``: field options that apply to this kind only; ``comparison``: how an answer is
    compared with a reference (``exact`` labels and numbers, ``named`` labels under a
    distance, ``regions`` matched regions, ``none``); ``reason``: why a listed kind is not scored;
    ``evaluated_by_default``: a starting config (``iaa-gate init``) evaluates such fields;
    ``answer``: what an answer is (:class:`Answer`); ``multiple``: several labels may be
    chosen (the field's ``multiple`` option applies); ``value_key``: the key of a Label Studio
    result's ``value`` that holds the answer (a region kind's: its labels); ``read``: how such a
    value is read (:data:`Read`); ``propose``: how a consensus is written back as one
    (:data:`Propose`); ``declare``: what its Label Studio control tag declares
    (:data:`Declare`; None: a tag read as a region or listed control); ``drawn``: a consensus
    region is written back in its result shape; ``labels_of_tools``: a result of this type
    without span bounds is the labels of a region drawn with another tool; ``timestamps``: its
    span bounds may be timestamps; ``ranges``: one result holds several spans
    (``value.ranges``); ``own_view``: an answer covers its own view only (Prodigy), so an
    annotator with no regions in the field did not answer it (a Label Studio annotation answers
    the whole labeling config: no regions there says "nothing here"); ``sides``: an answer
    picks one of two items shown side by side (the report adds position bias); ``tool``: an
    unlabelled Label Studio region tool, whose regions a ``<Labels>`` on the same object labels.

    The layers above ask these, never the name: a new kind is its module and its tests.

    >>> k = kind("choices")
    >>> k.answer, k.multiple, k.read({"choices": ["a", "b"]}, "topic")
    (<Answer.LABELS: 'labels'>, True, ('a', 'b'))
    >>> k.propose(("a",)), kind("rating").propose(4.0)
    ({'choices': ['a']}, {'rating': 4})
    """

    name: str
    family: Family
    default_level: str | None = "nominal"
    shape: str | None = None
    distances: frozenset[str] = frozenset()
    options: frozenset[str] = frozenset()
    comparison: Comparison = "exact"
    reason: str | None = None
    evaluated_by_default: bool = True
    answer: Answer = Answer.OTHER
    multiple: bool = False
    value_key: str | None = None
    read: Read | None = None
    propose: Propose | None = None
    declare: Declare | None = None
    drawn: bool = False
    labels_of_tools: bool = False
    timestamps: bool = False
    ranges: bool = False
    own_view: bool = False
    sides: bool = False
    tool: bool = False


_REGISTRY: dict[str, Kind] = {}


def register(*kinds: Kind) -> None:
    """Add ``kinds`` to the registry; a name registered twice is a programming error."""
    for k in kinds:
        if k.name in _REGISTRY:
            raise ValueError(f"field kind {k.name!r} is registered twice")
        # a Shape's name in metrics.geometry (a sibling, not imported: tests/test_kinds.py holds
        # every kind to it)
        if k.family == "region" and not k.shape:
            raise ValueError(f"region kind {k.name!r} needs a shape")
        _REGISTRY[k.name] = k


def _load() -> dict[str, Kind]:
    load_all(__name__, __path__, packages=False)
    return _REGISTRY


def registry() -> dict[str, Kind]:
    """Every registered kind by name (the modules of this package, loaded once)."""
    return dict(_load())


def kind(name: str) -> Kind | None:
    """The kind of control type ``name``, or None when iaa-gate does not know it."""
    return _load().get(name)


def _derived() -> tuple[frozenset[str], dict[str, str], frozenset[str], frozenset[str]]:
    kinds = _load().values()
    scalar = frozenset(k.name for k in kinds if k.family == "scalar")
    shapes = {k.name: k.shape for k in kinds if k.family == "region" and k.shape}
    listed = frozenset(k.name for k in kinds if k.family == "listed")
    tools = frozenset(k.name for k in kinds if k.labels_of_tools)
    return scalar, shapes, listed, tools


SCALAR_KINDS, REGION_SHAPES, LISTED_KINDS, LABELS_OF_TOOLS = _derived()
"""Derived from the registry: scalar kinds; region kind → geometry; kinds known but not
scored; kinds whose result may label a region drawn with another tool."""


def extras_of(kind: str, distance: str | None = None, *, matched: bool = False) -> list[str]:
    """The optional extras (``core.extras.EXTRAS``) a field of control type ``kind`` scored
    with ``distance`` needs: ``regions`` to match its regions (a region kind, or ``matched``:
    an attribute scored on matched regions), ``text`` for the Levenshtein distance.

    >>> extras_of("rectanglelabels"), extras_of("textarea", "levenshtein"), extras_of("choices")
    (['regions'], ['text'], [])
    """
    needs = {"regions": matched or kind in REGION_SHAPES, "text": distance == "levenshtein"}
    return [extra for extra, needed in needs.items() if needed]
