"""What several kinds share to read a Label Studio control tag and result value, and to write a
consensus back as one: labels, lists of strings and numbers (kind modules use these; this one
registers no kind itself).

>>> strings("a", "choices"), number("rating")({"rating": 4}, "stars")
(('a',), 4.0)
>>> number("number")({"number": True}, "score")
Traceback (most recent call last):
...
iaa_gate.kinds.AnswerError: 'number' must be a number, got True
"""

from __future__ import annotations

import math
from typing import Any
from xml.etree.ElementTree import Element

from . import MAX_NUMBER, AnswerError, Propose, Read


def tag_of(el: Element) -> str:
    """The lower-cased tag of ``el`` without its namespace (``Choices`` → ``choices``)."""
    return str(el.tag).rsplit("}", 1)[-1].lower()


def labels_of(el: Element) -> tuple[str, ...] | None:
    """Labels of the ``Choice``/``Label`` children (an ``alias`` is what results store)."""
    out: list[str] = []
    for child in el.iter():
        if child is not el and tag_of(child) in ("choice", "label"):
            value = child.get("alias") or child.get("value")
            if value is not None and value not in out:
                out.append(value)
    return tuple(out) or None


def strings(v: Any, key: str) -> tuple[str, ...]:
    """``v`` (a string or a list of strings, the value's ``key``) as a tuple of strings."""
    if isinstance(v, str):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise AnswerError(f"{key!r} must be a list of strings, got {v!r}")
    return tuple(v)


def number(key: str) -> Read:
    """The reader of a number kept under ``key`` (``rating``, ``number``): a float, None when
    absent."""

    def read(value: dict[str, Any], name: str) -> float | None:
        v = value.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise AnswerError(f"{key!r} must be a number, got {v!r}")
        if not abs(v) <= MAX_NUMBER:  # also NaN and infinity, which Python's JSON reads
            raise AnswerError(
                f"{key!r} is {v!r}, not a number agreement can compare "
                f"(finite, at most {MAX_NUMBER:g} in size)"
            )
        return float(v)

    return read


def propose_number(key: str, *, whole: bool) -> Propose:
    """The writer of a numeric consensus under ``key``: an int when ``whole`` (a star rating)
    or when the number is whole, else a float."""

    def propose(v: Any) -> dict[str, Any]:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise AnswerError(f"a {key} consensus must be a number, not {v!r}")
        n: float | int = int(v) if whole or float(v).is_integer() else float(v)
        return {key: n}

    return propose


def labels(v: Any) -> list[Any]:
    """A consensus of one label or several as a list."""
    return [v] if isinstance(v, str) else list(v)
