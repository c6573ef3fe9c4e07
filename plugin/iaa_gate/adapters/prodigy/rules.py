"""Reading rules of Prodigy lines shared by the typed fast path (:mod:`.typed`) and the general
parser (:mod:`.source`): each is written once here and called from both."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, TypeGuard

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
    if view in BINARY_VIEWS and plain_id(task_hash):
        return f"{input_hash}:{task_hash}"
    return input_unit(input_hash)


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
