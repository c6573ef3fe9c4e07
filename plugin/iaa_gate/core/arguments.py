"""Checks of a public function's arguments: each returns the argument or raises the
:class:`~iaa_gate.core.errors.UsageError` that names the parameter (and, for a closed set, the
values it accepts), so a caller's mistake never surfaces as a ``KeyError`` or ``TypeError``
from inside the math.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TypeVar

from .errors import UsageError

T = TypeVar("T")


def choice(parameter: str, given: object, accepted: Sequence[str]) -> str:
    """``given`` when it is one of the strings ``accepted``; else a :class:`UsageError` that
    names the parameter and lists them.

    Parameters
    ----------
    parameter : str
        The argument's name, as the caller wrote it.
    given : object
        What was passed.
    accepted : sequence of str
        The values it takes.

    Returns
    -------
    str
        ``given``.

    Examples
    --------
    >>> choice("mode", "exact", ("overlap", "exact"))
    'exact'
    >>> choice("mode", "fuzzy", ("overlap", "exact"))
    Traceback (most recent call last):
    ...
    iaa_gate.core.errors.UsageError: mode='fuzzy' is not accepted: use one of 'overlap', 'exact'
    """
    if isinstance(given, str) and given in accepted:
        return given
    shown = ", ".join(repr(a) for a in accepted)
    raise UsageError(
        f"{parameter}={given!r} is not accepted: use one of {shown}",
        parameter=parameter,
        accepted=tuple(accepted),
    )


def number(
    parameter: str,
    given: object,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
    whole: bool = False,
    nan: bool = False,
) -> float:
    """``given`` as a float when it is a finite real number (an integer if ``whole``) within
    the bounds; else a :class:`UsageError` naming the parameter and its range.

    Parameters
    ----------
    parameter : str
        The argument's name.
    given : object
        What was passed.
    low, high : float, optional
        The bounds, included unless ``open_low``/``open_high``.
    open_low, open_high : bool
        Exclude the bound.
    whole : bool
        Only integers (an ``int`` or a numpy integer: a count, which is then used as one).
    nan : bool
        Accept NaN (an undefined coefficient, say) besides the range.

    Returns
    -------
    float
        ``given``.

    Examples
    --------
    >>> number("significance", 0.05, low=0, high=1, open_low=True, open_high=True)
    0.05
    >>> number("q", 2, low=0, high=1, open_low=True, open_high=True)
    Traceback (most recent call last):
    ...
    iaa_gate.core.errors.UsageError: q=2 is not accepted: use a number strictly between 0 and 1
    >>> number("replicates", 0, low=1, whole=True)
    Traceback (most recent call last):
    ...
    iaa_gate.core.errors.UsageError: replicates=0 is not accepted: use a whole number ≥ 1
    """
    real = isinstance(given, numbers.Real) and not isinstance(given, bool)
    x = float(given) if real else math.nan  # type: ignore[arg-type]
    if real and nan and math.isnan(x):
        return x
    fits = (
        math.isfinite(x)
        and (not whole or isinstance(given, numbers.Integral))
        and (low is None or (x > low if open_low else x >= low))
        and (high is None or (x < high if open_high else x <= high))
    )
    if fits:
        return x
    raise UsageError(
        f"{parameter}={_short(given)} is not accepted: use "
        f"{_range(low, high, open_low, open_high, whole)}{' (or NaN)' if nan else ''}",
        parameter=parameter,
    )


def _range(
    low: float | None, high: float | None, open_low: bool, open_high: bool, whole: bool
) -> str:
    """The range in words: ``strictly between 0 and 1``, ``in [0, 1)``, ``≥ 2``, ``> 0``."""
    what = "a whole number" if whole else "a number"
    if low is not None and high is not None:
        if open_low and open_high:
            return f"{what} strictly between {low:g} and {high:g}"
        return f"{what} in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
    if low is not None:
        return f"{what} {'>' if open_low else '≥'} {low:g}"
    if high is not None:
        return f"{what} {'<' if open_high else '≤'} {high:g}"
    return what


def instance(parameter: str, given: object, kind: type[T], what: str) -> T:
    """``given`` when it is a ``kind``; else a :class:`UsageError` saying what it must be.

    Parameters
    ----------
    parameter : str
        The argument's name.
    given : object
        What was passed.
    kind : type
        The class it must be.
    what : str
        How to make one, for the message (``"a Regions"``, ``"match_regions(regions)"``).

    Returns
    -------
    object
        ``given``.

    Examples
    --------
    >>> instance("n", 3, int, "an int")
    3
    >>> instance("n", "3", int, "an int")
    Traceback (most recent call last):
    ...
    iaa_gate.core.errors.UsageError: n='3' is not accepted: use an int
    """
    if isinstance(given, kind):
        return given
    raise UsageError(
        f"{parameter}={_short(given)} is not accepted: use {what}", parameter=parameter
    )


def _short(given: object) -> str:
    """``given`` as a message shows it: its repr when short, else its type's name."""
    text = repr(given)
    return text if len(text) <= 40 else type(given).__name__
