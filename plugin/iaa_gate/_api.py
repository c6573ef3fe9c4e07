"""The Python API: agreement coefficients and Dawid–Skene on long or wide data, and a whole run.

Every function here takes the same data, and the same keyword parameters to read it:

- **long** data: a pandas DataFrame, a list of records (dicts) or of ``(task, annotator,
  value)`` tuples. The columns are ``task``, ``annotator``, ``value``, or crowd-kit's ``task``,
  ``worker``, ``label``; other names through ``task=``, ``annotator=``, ``value=``. A missing
  answer is a missing row (or a ``None``/NaN value); a repeated ``(task, annotator)`` is an
  error, never one of them picked silently.
- **wide** data: a 2-D array, a list of lists or a wide DataFrame, with its orientation named:
  ``rows="units"`` (one row per unit, one column per annotator, as :mod:`iaa_gate.metrics`
  takes) or ``rows="annotators"`` (as the ``krippendorff`` package takes). Without ``rows=`` a
  2-D input is an error: the same array read the other way gives another number without a word.
  ``None`` and NaN are missing ratings.

Values keep their type: integer labels come back as integers in per-category results, as
:mod:`iaa_gate.metrics` gives them. Every bad argument raises :class:`~iaa_gate.UsageError`
naming the parameter and what it accepts.

Adding a function: give it the shared keywords (``rows``, ``order``, ``task``, ``annotator``,
``value``), read the data with :func:`ratings` (or ``_read`` when it needs the task and
annotator names), check its own options with ``choice`` and ``number``
(:mod:`iaa_gate.core.arguments`) and call the metric inside ``_data_errors()``, which turns
the metric's complaint about the data into a ``UsageError``.

>>> alpha([("t1", "ann", 1), ("t1", "bob", 1), ("t2", "ann", 2), ("t2", "bob", 3),
...        ("t3", "ann", 3), ("t3", "bob", 3)], level="ordinal")
0.7777777777777778
>>> alpha([[1, 1], [2, 3], [3, 3]], level="ordinal", rows="units")
0.7777777777777778
>>> category_agreement([[1, 1], [2, 3], [3, 3]], rows="units")
{1: 1.0, 2: 0.0, 3: 0.5}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from .core.arguments import choice, number
from .core.errors import Reason, UsageError

if TYPE_CHECKING:
    from .config import Config
    from .metrics import Coded, Distance
    from .pipeline import Outcome

Rows = Literal["units", "annotators"]
"""The orientation of wide data: one row per unit, or one row per annotator."""
Level = Literal[
    "nominal", "ordinal", "interval", "ratio", "jaccard", "masi", "hierarchical", "levenshtein"
]
"""Krippendorff's levels of measurement, and the named distances alpha accepts."""
KappaWeights = Literal["identity", "linear", "quadratic"]
"""Cohen's (1968) agreement weights over the category order."""
GwetWeights = Literal[
    "identity", "quadratic", "linear", "ordinal", "radical", "ratio", "circular", "bipolar"
]
"""Gwet's agreement weights (:func:`iaa_gate.metrics.gwet_weights`)."""

COLUMNS: dict[str, tuple[str, ...]] = {
    "task": ("task",),
    "annotator": ("annotator", "worker"),
    "value": ("value", "label"),
}
"""Each long column's names, tried in order when not given: ours, then crowd-kit's."""
LONG_COLUMNS = ("task", "annotator", "value")
"""What ``(task, annotator, value)`` tuples hold, in order."""


@contextmanager
def _data_errors(parameter: str = "data") -> Iterator[None]:
    """A metric's complaint about its ratings (ratings that do not fit the level, the wrong
    number of annotators…) as the :class:`UsageError` of this function's data argument,
    ``parameter``; one about an option passed on under the same name (``max_iter``) stays."""
    try:
        yield
    except UsageError as exc:
        if exc.parameter not in (None, "ratings", "codes", "data"):
            raise
        raise _bad_data(parameter, exc.message) from exc
    except ValueError as exc:
        raise _bad_data(parameter, str(exc)) from exc


def _bad_data(parameter: str, message: str) -> UsageError:
    what = message.removeprefix("data: ")  # the reader's words name its own argument "data"
    return UsageError(f"{parameter}: {what}", parameter=parameter, reason=Reason.BAD_DATA)


def _missing(v: Any) -> bool:
    """``None``, NaN, and pandas' ``NA``/``NaT`` (told by their type, without importing pandas)."""
    return (
        v is None
        or (isinstance(v, float) and math.isnan(v))
        or type(v).__name__ in ("NAType", "NaTType")
    )


def _is_frame(data: Any) -> bool:
    """A pandas (or pandas-like) DataFrame, told by its shape, without importing pandas."""
    return hasattr(data, "columns") and hasattr(data, "to_numpy") and hasattr(data, "iloc")


def _plain(v: Any) -> Any:
    """numpy scalars as Python values (``np.int64(3)`` → ``3``)."""
    return v.item() if hasattr(v, "item") and not isinstance(v, (list, tuple)) else v


def _table(values: list[Any], order: Sequence[Any] | None) -> tuple[list[Any], dict[Any, int]]:
    """The value table in code order: ``order`` when given, else sorted (first seen when the
    values do not sort), and each value's code."""
    if order is not None:
        table = list(order)
    else:
        distinct = list(dict.fromkeys(values))
        try:
            table = sorted(distinct)
        except TypeError:
            table = distinct
    return table, {v: i for i, v in enumerate(table)}


@dataclass(frozen=True)
class _Read:
    """The data as codes, with the task and annotator of each row and column of the codes."""

    coded: Coded
    tasks: list[Any]
    annotators: list[Any]


def _coded(
    cells: list[tuple[int, int, Any]], tasks: list[Any], annotators: list[Any], order: Any
) -> _Read:
    """The ``(unit, annotator, value)`` cells as codes; integer and float values stay numeric
    (integers as int64, so results keep them integers)."""
    import numpy as np

    from .metrics import Coded, code_dtype

    if isinstance(order, (str, bytes)) or (
        order is not None and not isinstance(order, Sequence) and not hasattr(order, "tolist")
    ):
        raise UsageError(
            f"order={order!r} is not accepted: use a list of the values in scale order",
            parameter="order",
        )
    order = None if order is None else [_plain(v) for v in order]
    values = [v for _, _, v in cells]
    if any(isinstance(v, bool) for v in values):
        raise UsageError(
            "data: a rating is a boolean: use labels such as 'yes'/'no' or 0/1",
            parameter="data",
            reason=Reason.BAD_DATA,
        )
    table, index = _table(values, order)
    codes = np.full((len(tasks), len(annotators)), -1, dtype=code_dtype(len(table)))
    for u, a, v in cells:
        try:
            codes[u, a] = index[v]
        except (KeyError, TypeError):
            raise UsageError(
                f"rating {v!r} of task {tasks[u]!r} is not in order={table!r}: add it to the "
                "order, or leave order= out",
                parameter="order",
            ) from None
    if table and all(isinstance(v, int) for v in table):
        arr: Any = np.array(table, dtype=np.int64)
    elif table and all(isinstance(v, (int, float)) for v in table):
        arr = np.array(table, dtype=np.float64)
    else:
        arr = np.empty(len(table), dtype=object)
        arr[:] = table
    return _Read(Coded(codes, arr), tasks, annotators)


def _long(rows_of: Iterable[Sequence[Any]], order: Any, names: Sequence[str]) -> _Read:
    """Long rows ``(task, annotator, value)``; ``names``: the three columns, for messages."""
    units: dict[Any, int] = {}
    annotators: dict[Any, int] = {}
    cells: list[tuple[int, int, Any]] = []
    seen: dict[tuple[int, int], int] = {}
    for n, row in enumerate(rows_of, start=1):
        if len(row) != 3:
            raise UsageError(
                f"data: long data row {n}: expected ({', '.join(names)}), got {len(row)} items",
                parameter="data",
                reason=Reason.BAD_DATA,
            )
        task, who, value = (_plain(x) for x in row)
        if _missing(value):
            continue
        u = units.setdefault(task, len(units))
        a = annotators.setdefault(who, len(annotators))
        if (u, a) in seen:
            raise UsageError(
                f"data: long data rows {seen[u, a]} and {n}: {names[1]} {who!r} rated "
                f"{names[0]} {task!r} twice; keep one rating per {names[0]} and {names[1]}",
                parameter="data",
                reason=Reason.BAD_DATA,
            )
        seen[u, a] = n
        cells.append((u, a, value))
    return _coded(cells, list(units), list(annotators), order)


def _wide(data: Any, rows: Rows | None, order: Any) -> _Read:
    if rows is None:
        raise UsageError(
            "a 2-D input needs its orientation: rows='units' (one row per unit, one column per "
            "annotator, as iaa_gate.metrics) or rows='annotators' (one row per annotator, as "
            "the krippendorff package); read the wrong way, the same array gives another value",
            parameter="rows",
            accepted=get_args(Rows),
        )
    matrix = data.to_numpy(dtype=object) if _is_frame(data) else data
    try:
        grid = [[_plain(v) for v in row] for row in matrix]
    except TypeError:
        raise UsageError(
            f"data: wide data must be 2-D (a list of rows), got {type(data).__name__}",
            parameter="data",
            reason=Reason.BAD_DATA,
        ) from None
    if grid and len({len(r) for r in grid}) != 1:
        raise UsageError(
            "data: a wide input must be rectangular: every row the same length",
            parameter="data",
            reason=Reason.BAD_DATA,
        )
    if rows == "annotators":
        grid = [list(col) for col in zip(*grid, strict=True)] if grid else []
    cells = [(u, a, v) for u, row in enumerate(grid) for a, v in enumerate(row) if not _missing(v)]
    width = len(grid[0]) if grid else 0
    return _coded(cells, list(range(len(grid))), list(range(width)), order)


def _columns(
    have: Sequence[str], task: str | None, annotator: str | None, value: str | None
) -> tuple[str, str, str] | None:
    """The three long columns among ``have``: the ones named, else the first of
    :data:`COLUMNS` present; ``None`` when one is absent and was not named (not long data)."""
    chosen: list[str] = []
    for role, given in (("task", task), ("annotator", annotator), ("value", value)):
        if given is not None:
            if given not in have:
                raise UsageError(
                    f"{role}={given!r} is not a column of the data: it has {list(have)}",
                    parameter=role,
                    accepted=tuple(have),
                )
            chosen.append(given)
            continue
        found = [c for c in COLUMNS[role] if c in have]
        if not found:
            return None
        if len(found) > 1:
            raise UsageError(
                f"the data has both {found[0]!r} and {found[1]!r} columns: name the "
                f"{role} column with {role}={found[0]!r} or {role}={found[1]!r}",
                parameter=role,
                accepted=tuple(found),
            )
        chosen.append(found[0])
    return chosen[0], chosen[1], chosen[2]


def _not_long(have: Sequence[str]) -> UsageError:
    return UsageError(
        f"data: long data has columns task, annotator, value (or crowd-kit's task, worker, "
        f"label; others named with task=, annotator=, value=), this has {list(have)}; wide "
        "data needs rows='units' or rows='annotators'",
        parameter="data",
        reason=Reason.BAD_DATA,
    )


def _records(items: list[Any], order: Any, names: tuple[str | None, ...]) -> _Read:
    """Records (mappings) read by their keys."""
    have = list(dict.fromkeys(k for r in items for k in r))
    found = _columns(have, *names)
    if found is None:
        raise _not_long(have)
    for n, r in enumerate(items, start=1):
        if not isinstance(r, Mapping) or not all(c in r for c in found):
            raise UsageError(
                f"data: record {n} has no {', '.join(c for c in found if c not in r)} "
                "(records need the same keys)",
                parameter="data",
                reason=Reason.BAD_DATA,
            )
    return _long(([r[c] for c in found] for r in items), order, found)


def _read(
    data: Any,
    *,
    rows: Rows | None,
    order: Sequence[Any] | None,
    task: str | None,
    annotator: str | None,
    value: str | None,
) -> _Read:
    """Long or wide ``data`` (the module docstring) as codes with their tasks and annotators."""
    if rows is not None:
        choice("rows", rows, get_args(Rows))
    names = (task, annotator, value)
    named = any(n is not None for n in names)
    if rows is not None and named:
        raise UsageError(
            "rows= reads wide data and task=/annotator=/value= name long columns: give one",
            parameter="rows",
        )
    if _is_frame(data):
        have = [str(c) for c in data.columns]
        if rows is not None:
            return _wide(data, rows, order)
        found = _columns(have, *names)
        if found is None:
            raise _not_long(have)
        return _long(data[list(found)].itertuples(index=False), order, found)
    if isinstance(data, (str, bytes, Mapping)) or not isinstance(data, Iterable):
        raise UsageError(
            f"data: {type(data).__name__} is not ratings: give a DataFrame, records, "
            "(task, annotator, value) tuples or a 2-D array",
            parameter="data",
            reason=Reason.BAD_DATA,
        )
    if rows is not None or hasattr(data, "ndim"):
        return _wide(data, rows, order)
    items = list(data)
    if items and all(isinstance(x, Mapping) for x in items):
        return _records(items, order, names)
    if named:
        raise UsageError(
            "task=, annotator= and value= name the columns of a DataFrame or of records; "
            "tuples are read as (task, annotator, value)",
            parameter="task" if task is not None else "annotator" if annotator else "value",
        )
    if items and all(isinstance(x, tuple) for x in items):
        return _long(items, order, LONG_COLUMNS)
    return _wide(items, rows, order)


def ratings(
    data: Any,
    *,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> Coded:
    """The data as the ``(units, annotators)`` codes :mod:`iaa_gate.metrics` takes.

    Every function of :mod:`iaa_gate` reads its data this way.

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        Long data (a DataFrame or records with a task, an annotator and a value column, or
        ``(task, annotator, value)`` tuples) or wide data (a 2-D array, list of lists or wide
        DataFrame, with ``rows=``). ``None``/NaN is a missing rating.
    rows : str, optional
        The orientation of wide data: ``"units"``, one row per unit (as :mod:`iaa_gate.metrics`),
        or ``"annotators"``, one row per annotator (as the ``krippendorff`` package). Required
        for wide data.
    order : sequence, optional
        The value scale in order (an ordinal scale, or labels that may not occur). By default
        the distinct values, sorted (first seen when they do not sort).
    task, annotator, value : str, optional
        The long data's column names. By default ``task``, then ``annotator`` or crowd-kit's
        ``worker``, then ``value`` or crowd-kit's ``label``.

    Returns
    -------
    Coded
        ``codes`` ``(units, annotators)`` (``-1`` missing) into ``values`` ``(V,)``; units and
        annotators in first-seen order. Integer values stay int64.

    Raises
    ------
    UsageError
        The data is neither long nor wide, a 2-D input has no ``rows=``, a column is missing, an
        annotator rated a task twice, or a value is not in ``order``.

    Examples
    --------
    >>> coded = ratings([{"task": 1, "worker": "w1", "label": "cat"},
    ...                  {"task": 1, "worker": "w2", "label": "dog"}])
    >>> coded.codes.tolist(), coded.values.tolist()
    ([[0, 1]], ['cat', 'dog'])
    >>> ratings([[1, None], [2, 2]], rows="units").codes.tolist()
    [[0, -1], [1, 1]]
    """
    return _read(data, rows=rows, order=order, task=task, annotator=annotator, value=value).coded


def alpha(
    data: Any,
    *,
    level: Level | Distance = "nominal",
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> float:
    """Krippendorff's alpha: 1 − observed / expected disagreement.

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The ratings, long or wide (see :func:`ratings`).
    level : {"nominal", "ordinal", "interval", "ratio", "jaccard", "masi", "hierarchical", \
"levenshtein"} or Distance
        The level of measurement, a named distance, or a callable δ²(a, b) on value arrays.
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        The value scale in order (the ordinal scale, lowest first).
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    float
        Alpha, at most 1; an :class:`~iaa_gate.metrics.Undefined` NaN with its ``reason`` when
        no unit has two ratings or only one value occurs.

    Raises
    ------
    UsageError
        An unknown level, ratings that do not fit it (text at the interval level), or data
        that cannot be read (see :func:`ratings`).

    Examples
    --------
    >>> answers = [("t1", "ann", 1), ("t1", "bob", 1), ("t2", "ann", 2), ("t2", "bob", 3)]
    >>> round(alpha(answers, level="interval"), 4)
    0.7273
    >>> alpha(answers, level="nominl")
    Traceback (most recent call last):
    ...
    iaa_gate.core.errors.UsageError: level='nominl' is not accepted: use one of 'nominal', \
'ordinal', 'interval', 'ratio', 'jaccard', 'masi', 'hierarchical', 'levenshtein'
    """
    from .metrics import krippendorff_alpha

    if not callable(level):
        choice("level", level, get_args(Level))
    coded = ratings(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    with _data_errors():
        return krippendorff_alpha(coded, level)


def percent_agreement(
    data: Any,
    *,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> float:
    """Gwet's percent agreement p_a: each unit's share of agreeing annotator pairs, averaged.

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The ratings, long or wide (see :func:`ratings`).
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        The value scale, as :func:`ratings` takes it.
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    float
        p_a in [0, 1] over the units with two or more ratings; Undefined when there is none.

    Examples
    --------
    >>> percent_agreement([[1, 1, 1], [1, 2, 2]], rows="units")
    0.6666666666666666
    """
    from . import metrics

    coded = ratings(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    with _data_errors():
        return metrics.percent_agreement(coded)


def cohen_kappa(
    data: Any,
    *,
    weights: KappaWeights | None = None,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> float:
    """Cohen's kappa (1960) of two annotators, or weighted kappa (Cohen 1968).

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The ratings of exactly two annotators, long or wide (see :func:`ratings`).
    weights : str, optional
        ``"identity"``, ``"linear"`` or ``"quadratic"`` agreement weights over the category
        order, for weighted kappa; none by default.
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        The category order the weights follow.
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    float
        Kappa over the units both annotators rated; Undefined when it has no denominator.

    Raises
    ------
    UsageError
        Unknown weights, or not exactly two annotators.

    Examples
    --------
    >>> cohen_kappa([[1, 1], [2, 2], [1, 2], [2, 2]], rows="units")
    0.5
    """
    from . import metrics

    if weights is not None:
        choice("weights", weights, get_args(KappaWeights))
    coded = ratings(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    with _data_errors():
        return metrics.cohen_kappa(coded, weights=weights)


def scott_pi(
    data: Any,
    *,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> float:
    """Scott's pi (1955) of two annotators: kappa with pooled category shares.

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The ratings of exactly two annotators, long or wide (see :func:`ratings`).
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        The value scale, as :func:`ratings` takes it.
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    float
        Pi over the units both annotators rated; Undefined when it has no denominator.

    Raises
    ------
    UsageError
        Not exactly two annotators.

    Examples
    --------
    >>> round(scott_pi([[1, 1], [2, 2], [1, 2], [2, 2]], rows="units"), 4)
    0.4667
    """
    from . import metrics

    coded = ratings(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    with _data_errors():
        return metrics.scott_pi(coded)


def fleiss_kappa(
    data: Any,
    *,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> float:
    """Fleiss' kappa (1971) for any number of annotators, with missing ratings (Gwet's handbook).

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The ratings, long or wide (see :func:`ratings`).
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        The value scale, as :func:`ratings` takes it.
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    float
        Kappa; Undefined when chance agreement is 1 (one category only).

    Examples
    --------
    >>> answers = [("t1", "ana", "A"), ("t1", "ben", "A"), ("t2", "ana", "B"), ("t2", "ben", "A")]
    >>> round(fleiss_kappa(answers), 3)
    -0.333
    """
    from . import metrics

    coded = ratings(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    with _data_errors():
        return metrics.fleiss_kappa(coded)


def gwet_ac1(
    data: Any,
    *,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> float:
    """Gwet's AC1 (2008), for any number of annotators with missing ratings.

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The ratings, long or wide (see :func:`ratings`).
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        Every category (chance agreement depends on how many there are).
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    float
        AC1; Undefined when chance agreement is 1.

    Examples
    --------
    >>> round(gwet_ac1([[1, 1], [2, 2], [1, 2], [2, 2]], rows="units"), 4)
    0.5294
    """
    from . import metrics

    coded = ratings(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    with _data_errors():
        return metrics.gwet_ac1(coded)


def gwet_ac2(
    data: Any,
    *,
    weights: GwetWeights = "quadratic",
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> float:
    """Gwet's weighted AC2, for ordered categories.

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The ratings, long or wide (see :func:`ratings`).
    weights : {"quadratic", "identity", "linear", "ordinal", "radical", "ratio", "circular", \
"bipolar"}
        Gwet's agreement weights (:func:`iaa_gate.metrics.gwet_weights`); quadratic by default.
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        The scale, in order.
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    float
        AC2; Undefined when chance agreement is 1.

    Raises
    ------
    UsageError
        Unknown weights, or weights that need numbers (ratio) on other values.

    Examples
    --------
    >>> round(gwet_ac2([[1, 1], [2, 3], [3, 3]], rows="units"), 4)
    0.7857
    """
    from . import metrics

    choice("weights", weights, get_args(GwetWeights))
    coded = ratings(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    with _data_errors():
        return metrics.gwet_ac2(coded, weights)


def category_agreement(
    data: Any,
    *,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> dict[Any, float]:
    """Agreement per category: the pairs of annotators who both gave it over the pairs of whom
    at least one did.

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The ratings, long or wide (see :func:`ratings`).
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        The categories in order; one nobody gave is listed as Undefined.
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    dict
        ``{category: rate}`` in category order, keyed by the values as given: integers stay
        integers, floats floats, strings strings (as :func:`iaa_gate.metrics.category_agreement`
        keys them). A category never given in a unit with two ratings is Undefined.

    Examples
    --------
    >>> category_agreement([[1, 1], [2, 3], [3, 3]], rows="units")
    {1: 1.0, 2: 0.0, 3: 0.5}
    """
    from . import metrics

    coded = ratings(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    with _data_errors():
        return metrics.category_agreement(coded)


@dataclass(frozen=True)
class DawidSkeneResult:
    """Dawid–Skene's answer on long data, keyed by the data's own tasks, annotators and labels.

    Attributes
    ----------
    labels : dict
        ``{task: label}``: each rated task's most probable true label, or ``None`` when two or
        more labels tie for it (no label is proposed, never one picked silently).
    posteriors : dict
        ``{task: {label: probability}}``: P(true label | answers), every label of the scale.
    accuracy : dict
        ``{annotator: probability}``: P(the annotator gives the true label) under the model,
        ``Σ_c prior[c]·confusion[c][c]``.
    priors : dict
        ``{label: probability}``: the share of each true label.
    confusion : dict
        ``{annotator: {true label: {given label: probability}}}``: each annotator's confusion
        matrix (crowd-kit's ``errors_``, transposed).
    iterations : int
        EM steps run.
    converged : bool
        The log-likelihood settled within ``tol`` before ``max_iter``.

    Examples
    --------
    >>> fit = dawid_skene([("t1", "a", "x"), ("t1", "b", "x"), ("t2", "a", "y"),
    ...                    ("t2", "b", "y"), ("t3", "a", "x"), ("t3", "b", "y")])
    >>> fit.labels["t1"], round(fit.posteriors["t1"]["x"], 3), fit.converged
    ('x', 1.0, True)
    """

    labels: dict[Any, Any]
    posteriors: dict[Any, dict[Any, float]]
    accuracy: dict[Any, float]
    priors: dict[Any, float]
    confusion: dict[Any, dict[Any, dict[Any, float]]]
    iterations: int
    converged: bool


def dawid_skene(
    data: Any,
    *,
    max_iter: int = 100,
    tol: float = 1e-5,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> DawidSkeneResult:
    """Each task's true label and each annotator's accuracy, estimated by Dawid–Skene (1979).

    The model and its EM fit are crowd-kit's ``DawidSkene`` (``fit_predict`` on ``task,
    worker, label``), on arrays (:func:`iaa_gate.metrics.dawid_skene`). It weighs annotators by
    how often they are right; it proposes answers and never changes an agreement figure.

    Parameters
    ----------
    data : DataFrame, records, tuples or 2-D array
        The answers, long (crowd-kit's ``task, worker, label`` or ``task, annotator, value``)
        or wide (see :func:`ratings`).
    max_iter : int
        EM steps at most (crowd-kit's ``n_iter``).
    tol : float
        Stop when the log-likelihood changes by less than this share of itself (crowd-kit
        stops on the ELBO per answer instead: run as many steps for the same result).
    rows : str, optional
        ``"units"`` or ``"annotators"``: the orientation of wide data (see :func:`ratings`).
    order : sequence, optional
        Every label (one nobody gave gets a posterior too).
    task, annotator, value : str, optional
        Long data's column names (see :func:`ratings`).

    Returns
    -------
    DawidSkeneResult
        ``labels``, ``posteriors``, ``accuracy`` (per annotator), ``priors``, ``confusion``,
        ``iterations`` and ``converged``.

    Raises
    ------
    UsageError
        ``max_iter`` below 1, ``tol`` negative or not finite, or data that cannot be read.

    Examples
    --------
    >>> answers = [{"task": t, "worker": w, "label": y} for t, w, y in [
    ...     ("t1", "a", "x"), ("t1", "b", "x"), ("t1", "c", "y"),
    ...     ("t2", "a", "y"), ("t2", "b", "y"), ("t2", "c", "y"),
    ...     ("t3", "a", "x"), ("t3", "b", "x"), ("t3", "c", "x"),
    ...     ("t4", "a", "y"), ("t4", "b", "y"), ("t4", "c", "x")]]
    >>> fit = dawid_skene(answers)
    >>> fit.labels
    {'t1': 'x', 't2': 'y', 't3': 'x', 't4': 'y'}
    >>> {who: round(p, 2) for who, p in fit.accuracy.items()}
    {'a': 1.0, 'b': 1.0, 'c': 0.5}
    """
    import numpy as np

    from .metrics import dawid_skene as fit_model

    number("max_iter", max_iter, low=1, whole=True)
    number("tol", tol, low=0)
    read = _read(data, rows=rows, order=order, task=task, annotator=annotator, value=value)
    coded = read.coded
    labels = coded.values.tolist()
    fit = fit_model(coded.codes, len(labels), max_iter=max_iter, tol=float(tol))
    rated = np.flatnonzero((coded.codes >= 0).any(axis=1)).tolist()
    post, best, tie = fit.posteriors, fit.best, fit.tie

    def keyed(keys: list[Any], row: list[Any]) -> dict[Any, Any]:
        return dict(zip(keys, row, strict=True))

    return DawidSkeneResult(
        labels={read.tasks[u]: None if tie[u] else labels[best[u]] for u in rated},
        posteriors={read.tasks[u]: keyed(labels, post[u].tolist()) for u in rated},
        accuracy=keyed(read.annotators, fit.accuracy.tolist()),
        priors=keyed(labels, fit.priors.tolist()),
        confusion=keyed(
            read.annotators,
            [keyed(labels, [keyed(labels, r) for r in m]) for m in fit.confusion.tolist()],
        ),
        iterations=fit.iterations,
        converged=fit.converged,
    )


def load_config(path: str | Path) -> Config:
    """The YAML config at ``path``, validated.

    Parameters
    ----------
    path : str or Path
        The config file (``iaa-gate.yaml``).

    Returns
    -------
    Config
        The validated config (pydantic).

    Raises
    ------
    ConfigError
        Lists every problem of the config at once.

    Examples
    --------
    >>> load_config("examples/label-studio/iaa-gate.yaml").source.type
    'label-studio-export'
    """
    from .config import load_config as load

    if not isinstance(path, (str, Path)):
        raise UsageError(
            f"path={path!r} is not accepted: use the config file's path (str or Path)",
            parameter="path",
        )
    return load(Path(path))


def evaluate(config: Config | str | Path, *, source: str | Path | None = None) -> Outcome:
    """A whole evaluation, as ``iaa-gate run`` does, writing nothing.

    Parameters
    ----------
    config : Config, str or Path
        A config loaded with :func:`load_config`, or the path of one.
    source : str or Path, optional
        Another input file for a file source (as ``--source``).

    Returns
    -------
    Outcome
        The verdict, the report document, each field's results and the gate's checks.

    Raises
    ------
    UsageError
        ``source=`` given for a source that is not a file.

    Examples
    --------
    >>> outcome = evaluate("examples/label-studio/iaa-gate.yaml")
    >>> outcome.verdict.value, round(outcome.results["sentiment"].alpha, 3)
    ('warn', 0.762)
    """
    from .config import Config
    from .pipeline import evaluate as run_evaluation
    from .pipeline import make_source

    if not isinstance(config, (str, Path, Config)):
        raise UsageError(
            f"config={type(config).__name__} is not accepted: use a Config from load_config() "
            "or the config file's path",
            parameter="config",
        )
    cfg = load_config(config) if isinstance(config, (str, Path)) else config
    if source is not None:
        if not isinstance(source, (str, Path)):
            raise UsageError(
                f"source={source!r} is not accepted: use the input file's path", parameter="source"
            )
        if "path" not in cfg.source.files():
            raise UsageError(
                f"source= applies to file sources; this one is {cfg.source.type}",
                parameter="source",
            )
        cfg = cfg.model_copy(
            update={"source": cfg.source.model_copy(update={"path": Path(source)})}
        )
    return run_evaluation(cfg, make_source(cfg).load())


@dataclass(frozen=True)
class AltTestHuman:
    """One human of :func:`alt_test`: the ``annotator``, the ``n_instances`` shared with the
    model (on instances with enough humans), whether they were ``tested``, the one-sided
    t-test's ``p_value`` (NaN: not tested, or undefined with its reason), whether the null was
    ``rejected`` (the model wins against them), mean(W_model) ``model_advantage``, mean(W_h)
    ``human_advantage``, and the human's and the model's mean score against the remaining
    humans (``human_score``, ``model_score``; −RMSE for ``neg_rmse``)."""

    annotator: Any
    n_instances: int
    tested: bool
    p_value: float
    rejected: bool
    model_advantage: float
    human_advantage: float
    human_score: float
    model_score: float


@dataclass(frozen=True)
class AltTestResult:
    """What :func:`alt_test` found: the winning rate ω, the advantage probability ρ (NaN with
    the reason in ``not_tested`` when no human could be tested), whether the model ``passed``
    (ω ≥ 0.5; None: not tested), the ``instances`` used, ``epsilon`` and the per-human
    table ``humans``."""

    winning_rate: float
    advantage_probability: float
    passed: bool | None
    not_tested: str | None
    instances: int
    epsilon: float
    humans: list[AltTestHuman]


def _model_answers(
    model: Any, task: str | None, annotator: str | None, value: str | None
) -> dict[Any, Any]:
    """The model's answers by task: from a mapping, ``(task, value)`` pairs, or long data (a
    DataFrame, records or tuples) of one annotator; a DataFrame or records may leave the
    annotator column out."""
    if isinstance(model, Mapping):
        return {_plain(k): _plain(v) for k, v in model.items() if not _missing(_plain(v))}
    if _is_frame(model) or (isinstance(model, list) and model and isinstance(model[0], Mapping)):
        items = model.to_dict("records") if _is_frame(model) else model
        have = list(dict.fromkeys(k for r in items for k in r))
        task_col = task or "task"
        value_col = value or next((c for c in COLUMNS["value"] if c in have), "value")
        who_col = annotator or next((c for c in COLUMNS["annotator"] if c in have), None)
        if task_col not in have or value_col not in have:
            raise UsageError(
                f"model: needs the columns {task_col!r} and {value_col!r}, it has {have}",
                parameter="model",
                reason=Reason.BAD_DATA,
            )
        if who_col is not None and len({r.get(who_col) for r in items}) > 1:
            raise UsageError(
                "model: long data of one model; call alt_test once per model",
                parameter="model",
                reason=Reason.BAD_DATA,
            )
        rows = [(r[task_col], r[value_col]) for r in items]
    else:
        rows = []
        if not isinstance(model, Iterable) or isinstance(model, (str, bytes)):
            raise UsageError(
                f"model: a mapping {{task: value}}, (task, value) pairs or long data; got "
                f"{type(model).__name__}",
                parameter="model",
                reason=Reason.BAD_DATA,
            )
        for r in model:
            r = tuple(r)
            if len(r) not in (2, 3):
                raise UsageError(
                    "model: a mapping {task: value}, (task, value) pairs or (task, annotator, "
                    f"value) tuples; got a row of {len(r)} items",
                    parameter="model",
                    reason=Reason.BAD_DATA,
                )
            rows.append(r)
        if len({r[1] for r in rows if len(r) == 3}) > 1:
            raise UsageError(
                "model: long data of one model; call alt_test once per model",
                parameter="model",
                reason=Reason.BAD_DATA,
            )
        rows = [(r[0], r[-1]) for r in rows]
    out: dict[Any, Any] = {}
    for t, v in rows:
        t, v = _plain(t), _plain(v)
        if _missing(v):
            continue
        if t in out:
            raise UsageError(
                f"model: task {t!r} answered twice; keep one answer per task",
                parameter="model",
                reason=Reason.BAD_DATA,
            )
        out[t] = v
    return out


def alt_test(
    humans: Any,
    model: Any,
    *,
    scoring: str | Callable[[Any, Sequence[Any]], float] = "accuracy",
    epsilon: float = 0.15,
    q: float = 0.05,
    min_instances: int = 30,
    min_humans: int = 2,
    task: str | None = None,
    annotator: str | None = None,
    value: str | None = None,
) -> AltTestResult:
    """The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): may ``model``
    take a human annotator's place?

    Each human is left out in turn; on the instances they and the model answered (with at
    least ``min_humans`` humans), both are scored against the remaining humans, and a
    one-sided t-test of W_h − W_model against ``epsilon`` gives the human's p-value; the
    Benjamini–Yekutieli procedure at ``q`` decides which humans the model wins against.

    Parameters
    ----------
    humans : DataFrame, records or iterable of tuple
        Long data, as the coefficients take it: ``(task, annotator, value)`` tuples, or a
        DataFrame or records with columns ``task, annotator, value`` or crowd-kit's ``task,
        worker, label``.
    model : mapping, iterable of tuple, records or DataFrame
        The model's answers: ``{task: value}``, ``(task, value)`` pairs, or long data of one
        annotator (a DataFrame or records may leave the annotator column out).
    scoring : {"accuracy", "neg_rmse"} or callable
        How an answer is scored against the remaining humans' answers of an instance: the
        share giving the same answer (labels), minus the RMSE (ratings, numbers), or a
        function ``(answer, others) -> float``, higher is better.
    epsilon : float
        ε, the cost-benefit allowance: 0.2 for experts, 0.15 for skilled annotators, 0.1 for
        crowd workers.
    q : float
        The false discovery rate.
    min_instances : int
        A human sharing fewer instances with the model is not tested.
    min_humans : int
        Human answers an instance needs to be used (2 or more).
    task, annotator, value : str, optional
        The long columns' names, when they are not the defaults.

    Returns
    -------
    AltTestResult
        ω, ρ, whether the model passed, and each human's row.

    Examples
    --------
    >>> humans = [(t, h, v) for t in range(40)
    ...           for h, v in (("ann", t % 3), ("bob", t % 3), ("cy", (t + (t % 4 == 0)) % 3))]
    >>> r = alt_test(humans, {t: t % 3 for t in range(40)}, scoring="accuracy", epsilon=0.1)
    >>> r.winning_rate, round(r.advantage_probability, 3), r.passed
    (1.0, 1.0, True)
    >>> ", ".join(f"{h.annotator} {h.n_instances}" for h in r.humans if h.rejected)
    'ann 40, bob 40, cy 40'
    """
    import numpy as np

    from .metrics.alt_test import alt_test as run_alt_test

    if not callable(scoring):
        choice("scoring", scoring, ("accuracy", "neg_rmse"))
    number("min_instances", min_instances, low=2, whole=True)
    number("min_humans", min_humans, low=2, whole=True)
    number("epsilon", epsilon, low=0, high=1, open_high=True)
    number("q", q, low=0, high=1, open_high=True)
    with _data_errors("humans"):
        read = _read(humans, rows=None, order=None, task=task, annotator=annotator, value=value)
    table = read.coded.values.tolist()
    codes = read.coded.codes
    mine = _model_answers(model, task, annotator, value)
    tasks = [*read.tasks, *(t for t in mine if t not in set(read.tasks))]
    rmse = scoring == "neg_rmse"
    empty = math.nan if rmse else None
    values = np.full((len(tasks), codes.shape[1]), empty, dtype=np.float64 if rmse else object)
    try:
        for (u, a), code in np.ndenumerate(codes):
            if code >= 0:
                values[u, a] = table[code]
        given = np.full(len(tasks), empty, dtype=values.dtype)
        for i, t in enumerate(tasks):
            if t in mine:
                given[i] = mine[t]
    except (TypeError, ValueError):
        raise UsageError(
            "scoring='neg_rmse' needs numbers: use accuracy for labels",
            parameter="scoring",
        ) from None
    result = run_alt_test(
        values,
        given,
        scoring=scoring,  # type: ignore[arg-type]  # checked above
        epsilon=epsilon,
        q=q,
        min_instances=min_instances,
        min_humans=min_humans,
    )
    return AltTestResult(
        result.winning_rate,
        result.advantage_probability,
        result.passed,
        result.not_tested,
        result.instances,
        epsilon,
        [
            AltTestHuman(
                read.annotators[h.column],
                h.n_instances,
                h.tested,
                h.p_value,
                h.rejected,
                h.model_advantage,
                h.human_advantage,
                h.human_score,
                h.model_score,
            )
            for h in result.humans
        ],
    )
