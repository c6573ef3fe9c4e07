"""What several kinds share to read a Label Studio control tag and result value, and to write a
consensus back as one: labels, lists of strings and numbers (kind modules use these; this one
registers no kind itself)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from xml.etree.ElementTree import Element

from . import MAX_NUMBER, AnswerError, Propose, Read


def tag_of(el: Element) -> str:
    """The lower-cased tag of an XML element, without its namespace.

    Parameters
    ----------
    el
        An element of a labeling config.

    Returns
    -------
    str
        ``Choices`` → ``choices``.

    Examples
    --------
    >>> from xml.etree.ElementTree import fromstring
    >>> tag_of(fromstring("<RectangleLabels/>"))
    'rectanglelabels'
    """
    return str(el.tag).rsplit("}", 1)[-1].lower()


def labels_of(el: Element) -> tuple[str, ...] | None:
    """The labels a control tag declares: its ``Choice``/``Label`` children, at any depth.

    Parameters
    ----------
    el
        A control tag.

    Returns
    -------
    tuple of str or None
        Each label once, in order (a child's ``alias`` when it has one: results store that);
        None when it declares none.

    Examples
    --------
    >>> from xml.etree.ElementTree import fromstring
    >>> tag = '<Choices><Choice value="Yes" alias="y"/><Choice value="No"/></Choices>'
    >>> labels_of(fromstring(tag))
    ('y', 'No')
    """
    out: list[str] = []
    for child in el.iter():
        if child is not el and tag_of(child) in ("choice", "label"):
            value = child.get("alias") or child.get("value")
            if value is not None and value not in out:
                out.append(value)
    return tuple(out) or None


def strings(v: Any, key: str) -> tuple[str, ...]:
    """A result value's strings: one string, or a list of them.

    Parameters
    ----------
    v
        The value under ``key``.
    key
        Its key in the result's ``value`` (named in the error).

    Returns
    -------
    tuple of str

    Raises
    ------
    AnswerError
        When ``v`` is neither.

    Examples
    --------
    >>> strings("a", "choices"), strings(["a", "b"], "choices")
    (('a',), ('a', 'b'))
    """
    if isinstance(v, str):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise AnswerError(f"{key!r} must be a list of strings, got {v!r}")
    return tuple(v)


def number(key: str) -> Read:
    """The reader of a number kept under ``key`` of a result's ``value``.

    Parameters
    ----------
    key
        ``rating`` or ``number``.

    Returns
    -------
    Read
        ``(value, name) → float``, or None when the key is absent; :class:`AnswerError` for
        anything but a finite number of at most :data:`MAX_NUMBER` in size.

    Examples
    --------
    >>> number("rating")({"rating": 4}, "stars")
    4.0
    >>> number("number")({"number": True}, "score")
    Traceback (most recent call last):
    ...
    iaa_gate.kinds.AnswerError: 'number' must be a number, got True
    """

    def read(value: Mapping[str, object], name: str) -> float | None:
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
    """The writer of a numeric consensus as a result ``value``.

    Parameters
    ----------
    key
        ``rating`` or ``number``.
    whole
        Always write an int (star ratings); else an int only for a whole number.

    Returns
    -------
    Propose
        ``answer → {key: n}``; :class:`AnswerError` for anything but a finite number.

    Examples
    --------
    >>> propose_number("rating", whole=True)(3.6), propose_number("number", whole=False)(2.5)
    ({'rating': 3}, {'number': 2.5})
    """

    def propose(v: object) -> dict[str, object]:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise AnswerError(f"a {key} consensus must be a number, not {v!r}")
        n: float | int = int(v) if whole or float(v).is_integer() else float(v)
        return {key: n}

    return propose


def labels(v: Any) -> list[Any]:
    """A consensus of one label or several, as a list.

    Parameters
    ----------
    v
        A label, or a sequence of labels.

    Returns
    -------
    list

    Examples
    --------
    >>> labels("a"), labels(("a", "b"))
    (['a'], ['a', 'b'])
    """
    return [v] if isinstance(v, str) else list(v)
