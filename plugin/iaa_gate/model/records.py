"""The normalised records every source produces: one :class:`Annotation` per annotator and task,
each field's value already normalised (a label, a number, a label set or a :class:`RegionSet`),
and the :class:`SourceStats` of what was read and set aside."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from ..core.errors import Problem

TaskId = int | str
Value = str | float | frozenset[str]
"""A normalised rating: a label, a number, or a set of labels (multi-select)."""

IntArray = np.ndarray[Any, np.dtype[np.int64]]
FloatArray = np.ndarray[Any, np.dtype[np.float64]]


@dataclass
class RegionSet:
    """The regions one annotator drew in one field of one task (possibly none: "nothing here").

    ``shape``: span, box, polygon, keypoint or mask. Per region ``i``: ``ids[i]`` (the source's
    region id), ``labels[i]`` (``""``: no label; a region with several labels is one row per
    label), ``coords[i*d:(i+1)*d]`` (``d``: the shape's ``width``), ``points[i]`` (polygons:
    the vertices; masks: the ``(start, end)`` runs of mask pixels, row-major). ``attributes``:
    per-region attribute → (control type, [(region index, value)]). ``relations``: ``(from id,
    to id, label)``. ``dropped_relations``: relations whose other end is in another field (not
    evaluated).
    """

    shape: str
    ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    coords: list[float] = field(default_factory=list)
    points: list[list[tuple[float, float]]] = field(default_factory=list)
    attributes: dict[str, tuple[str, list[tuple[int, Any]]]] = field(default_factory=dict)
    relations: list[tuple[str, str, str]] = field(default_factory=list)
    dropped_relations: int = 0

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class FieldValue:
    """One field's answer in one annotation: the ``kind`` of control and the normalised value.

    ``value`` is a tuple of labels for choices/taxonomy (one or several), a float for
    rating/number, a normalised string for textarea. ``regions``: the regions of a region
    control (spans, boxes, polygons, keypoints; ``value`` is then ``""``).
    """

    kind: str
    value: tuple[str, ...] | float | str
    regions: RegionSet | None = None


@dataclass(frozen=True)
class Annotation:
    """One annotator's (latest) answer to one task."""

    task_id: TaskId
    annotator: str
    fields: dict[str, FieldValue]
    created_at: datetime | None = None
    updated_at: datetime | None = None
    ground_truth: bool = False
    annotation_id: int | str | None = None
    skipped: bool = False
    """A skip (Label Studio ``was_cancelled``, Prodigy ``ignore``): if it is the annotator's
    latest answer to the task, they gave no rating."""


@dataclass
class SourceStats:
    """What a source read and set aside; reported so nothing disappears silently."""

    tasks: int = 0
    annotations: int = 0
    cancelled: int = 0
    superseded: int = 0
    ignored: int = 0
    empty: int = 0
    """Empty selections (``choices: []``, Prodigy ``accept: []``): no rating, or the empty set
    for multi-select fields with ``empty: empty_set``."""
    invalid_skipped: int = 0
    ground_truth_excluded: int = 0
    outside_round: int = 0
    invalid_examples: list[str] = field(default_factory=list)
    invalid: list[Problem] = field(default_factory=list)
    """The skipped invalid records (``--skip-invalid``), structured; the first 1,000."""

    def join(self, later: SourceStats) -> None:
        """Add the counts of records read after these (examples kept in order, as capped)."""
        for name in (
            "tasks",
            "annotations",
            "cancelled",
            "superseded",
            "ignored",
            "empty",
            "invalid_skipped",
            "ground_truth_excluded",
            "outside_round",
        ):
            setattr(self, name, getattr(self, name) + getattr(later, name))
        self.invalid_examples = (self.invalid_examples + later.invalid_examples)[:10]
        self.invalid = (self.invalid + later.invalid)[:1000]

    def skip_invalid(self, problem: Problem) -> None:
        """Count a malformed record skipped with ``--skip-invalid`` and keep its problem."""
        self.invalid_skipped += 1
        if len(self.invalid_examples) < 10:
            self.invalid_examples.append(str(problem))
        if len(self.invalid) < 1000:
            self.invalid.append(problem)


def normalise_text(text: str, ignore: Collection[str] = ("case", "whitespace")) -> str:
    """``text`` as free-text agreement compares it, ignoring what ``ignore`` names:
    ``unicode`` (NFKC forms), ``case``, ``punctuation`` (Unicode P* characters), ``whitespace``
    (runs collapsed to one space, ends trimmed).

    >>> normalise_text("  Hello,   World! ", ["case", "punctuation", "whitespace"])
    'hello world'
    >>> normalise_text("Hello,  World!", [])
    'Hello,  World!'
    """
    if "unicode" in ignore:
        text = unicodedata.normalize("NFKC", text)
    if "case" in ignore:
        text = text.casefold()
    if "punctuation" in ignore:
        text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    if "whitespace" in ignore:
        text = re.sub(r"\s+", " ", text).strip()
    return text
