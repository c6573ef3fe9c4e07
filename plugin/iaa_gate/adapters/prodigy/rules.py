"""What a Prodigy line means, written once: the typed readers (:mod:`.typed`) decide every value
with these rules, and :mod:`.source` words the error of a line they refuse with them."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal, TypeGuard

from ...metrics.geometry import shape_of
from ...model import RegionSet

REJECT = "REJECT"


SPAN_VIEWS = frozenset({"ner_manual", "spans_manual"})
IMAGE_VIEWS = frozenset({"image_manual"})
BINARY_VIEWS = frozenset({"classification", "ner", "text", "image", "html", "pos", "dep", "diff"})
"""Views whose answer is accept/reject to one question (a ``*.teach`` recipe)."""


def timestamp(ts: Any) -> datetime | None:
    """``_timestamp`` (seconds since the epoch) as a UTC time; ``None`` when absent."""
    if ts is None:
        return None
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        raise ValueError(f"'_timestamp' must be seconds since 1970, got {ts!r}")
    try:
        return datetime.fromtimestamp(ts, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"'_timestamp' {ts!r} is not a valid time") from None


def plain_id(v: Any) -> TypeGuard[int | str]:
    """Whether ``v`` can be an id: an int or a str, never a bool (JSON ``true`` is not an id)."""
    return type(v) is int or type(v) is str


def unit_of(input_hash: int | str, view: str, label: Any, task_hash: Any) -> int | str:
    """The unit an answer belongs to: ``input_hash:label`` for a ``classification`` question
    with a label, ``input_hash:task_hash`` for another binary view's question, else the input
    (its hash, an int, or its text)."""
    if view == "classification" and type(label) is str:
        return f"{input_hash}:{label}"
    if type(view) is str and view in BINARY_VIEWS and plain_id(task_hash):
        return f"{input_hash}:{task_hash}"
    return input_unit(input_hash)


def view_name(view: Any) -> str:
    """The field an answer belongs to: its ``_view_id`` as text; absent, null or empty:
    ``classification`` (the unit still reads the id as it stands, see :func:`unit_of`)."""
    return str(view or "classification")


Reading = Literal["regions", "choices", "binary", "other"]


def reading(view: str, has_options: bool) -> Reading:
    """How an answer of ``view`` is read: the ``spans`` of a manual span or image view; the
    accepted options of a ``choice`` view or any line with an ``options`` key; accept/reject of
    a binary view; else not evaluated (``blocks``, ``relations``…)."""
    if view in SPAN_VIEWS or view in IMAGE_VIEWS:
        return "regions"
    if has_options or view == "choice":
        return "choices"
    return "binary" if view in BINARY_VIEWS else "other"


def column_kind(view: str, how: Reading) -> str:
    """The kind of the field column an answer read ``how`` goes to: ``spans``, ``image``,
    ``choices``, or for a view not evaluated its own name."""
    if how == "regions":
        return "image" if view in IMAGE_VIEWS else "spans"
    return "choices" if how == "choices" or how == "binary" else view


def option_ids(options: Any) -> set[str] | None:
    """The ids of an example's ``options`` (entries that are not objects say nothing); None
    when it lists none (absent, null or not a list)."""
    if not isinstance(options, list):
        return None
    return {str(o.get("id")) for o in options if isinstance(o, dict)}


def input_unit(input_hash: int | str) -> int | str:
    """The unit of an answer about its whole input: the input hash (an int) or its text."""
    return input_hash if type(input_hash) is int else str(input_hash)


def note_choice_style(styles: dict[str, bool], view: str, style: Any) -> None:
    """Record a choice view's ``config.choice_style``: a view is multi-select once any of its
    answers says ``multiple`` (other values say nothing)."""
    if style == "single" or style == "multiple":
        styles[view] = styles.get(view, False) or style == "multiple"


def unknown_option(chosen: tuple[str, ...], option_ids: set[str] | None) -> str | None:
    """The first accepted option that is not among the example's option ids (None: all are,
    or the example lists no options)."""
    if option_ids is None:
        return None
    return next((a for a in chosen if a not in option_ids), None)


def _num(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def regions(spans: Any, image: bool) -> RegionSet:
    """The ``spans`` of an accepted manual answer as a region set: character offsets, or image
    shapes in pixels (a rectangle as x, y, width, height; else a polygon, its coordinates the
    bounding box). Raises ValueError naming the first span that cannot be read."""
    if not isinstance(spans, list):
        raise ValueError("'spans' must be a list")
    rs = RegionSet("box" if image else "span")
    for i, span in enumerate(spans):
        if not isinstance(span, dict):
            raise ValueError(f"span #{i + 1} is not an object")
        label = span.get("label", "")
        if not isinstance(label, str):
            raise ValueError(f"span #{i + 1}: 'label' must be a string")
        rs.ids.append(str(span.get("id", i)))
        rs.labels.append(label)
        if image:
            _shape(rs, span, i)
            continue
        start, end = span.get("start"), span.get("end")
        if not _num(start) or not _num(end):
            raise ValueError(f"span #{i + 1} ({label or 'no label'}): no 'start'/'end' offsets")
        if end < start:
            raise ValueError(f"span #{i + 1}: 'end' {end} is before 'start' {start}")
        rs.coords += [float(start), float(end)]
    if image and shape_of(rs.shape).vertices:  # a polygon's coordinates: its bounds
        rs.coords = [c for i in range(len(rs)) for c in _bbox(rs.points[i])]
    return rs


def _shape(rs: RegionSet, span: dict[str, Any], i: int) -> None:
    pts = span.get("points")
    if (
        not isinstance(pts, list)
        or len(pts) < 3
        or not all(isinstance(p, list) and len(p) == 2 and _num(p[0]) and _num(p[1]) for p in pts)
    ):
        raise ValueError(f"shape #{i + 1}: 'points' must be a list of 3 or more [x, y] pairs")
    rs.points.append([(float(x), float(y)) for x, y in pts])
    if span.get("type", "rect") == "rect" and all(
        _num(span.get(k)) for k in ("x", "y", "width", "height")
    ):
        rs.coords += [float(span[k]) for k in ("x", "y", "width", "height")] + [0.0]
    else:
        rs.shape = "polygon"


def _bbox(points: list[tuple[float, float]]) -> list[float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
