"""Shared conventions of the metrics: undefined values and how ratings are read.

Every coefficient takes ``ratings`` shaped ``(units, annotators)``: one row per unit (task,
item), one column per annotator, ``None``/NaN for a missing rating. Values are numbers, or any
hashable labels (strings, frozensets) for distances that accept them.

A coefficient that is undefined on its data (one value in the whole data, no pairable unit,
only one annotator…) returns :class:`Undefined`: a NaN ``float`` that carries the reason, so it is
never mistaken for 0 or 1 and the report can say why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from ..core.arguments import number
from ..core.errors import UsageError

CodeArray = npt.NDArray[np.signedinteger[Any]]
"""Integer codes ``(units, annotators)``, ``-1`` missing."""
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


class Undefined(float):
    """NaN that remembers why a coefficient is undefined: never mistaken for 0 or 1.

    Attributes
    ----------
    reason : str
        Why the coefficient is undefined (the one argument of ``Undefined(reason)``).

    Examples
    --------
    >>> u = Undefined("only one value occurs")
    >>> math.isnan(u), u.reason
    (True, 'only one value occurs')
    """

    reason: str

    def __new__(cls, reason: str) -> Undefined:
        self = super().__new__(cls, math.nan)
        self.reason = reason
        return self

    def __repr__(self) -> str:
        return f"Undefined({self.reason!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Undefined, (self.reason,))


def undefined_reason(value: float) -> str | None:
    """Why ``value`` is undefined, or ``None`` when it is a number.

    Parameters
    ----------
    value : float
        A coefficient.

    Returns
    -------
    str or None
        The reason, ``'undefined'`` for a bare NaN, ``None`` for a number.

    Examples
    --------
    >>> from iaa_gate.metrics import krippendorff_alpha
    >>> undefined_reason(krippendorff_alpha([[1, 1], [1, 1]]))
    'only one value occurs among pairable ratings: no variation to agree on'
    >>> undefined_reason(0.5) is None
    True
    """
    if isinstance(value, Undefined):
        return value.reason
    if isinstance(value, float) and math.isnan(value):
        return "undefined"
    return None


@dataclass(frozen=True)
class Coded:
    """Ratings as integer codes into a table of distinct values.

    Attributes
    ----------
    codes : ndarray
        ``(units, annotators)`` signed integers (the smallest type that fits), ``-1`` where the
        rating is missing.
    values : ndarray
        ``(V,)`` the distinct values in code order (sorted when they sort), of the type given:
        int64 for integers, float64 for floats, objects otherwise.
    memo : dict
        What the metrics derive from the codes and reuse (e.g. the per-unit category counts),
        made once; the codes are not changed after the ``Coded`` is made.

    Examples
    --------
    >>> from iaa_gate.metrics import krippendorff_alpha
    >>> c = Coded(np.array([[0, 1], [1, -1]], dtype=np.int8), np.array(['no', 'yes'], dtype=object))
    >>> c.n_values, krippendorff_alpha(c)
    (2, 0.0)
    """

    codes: npt.NDArray[np.signedinteger[Any]]
    values: npt.NDArray[Any]
    memo: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    @property
    def n_values(self) -> int:
        return len(self.values)


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _freeze(v: Any) -> Any:
    return frozenset(v) if isinstance(v, (list, set, tuple)) else v


def ratings_array(ratings: npt.ArrayLike, parameter: str = "ratings") -> npt.NDArray[Any]:
    """``ratings`` as a 2-D array ``(units, annotators)``; a :class:`UsageError` naming
    ``parameter`` when they are not (ragged rows, one or three dimensions)."""
    try:
        arr = np.asarray(ratings)
    except ValueError:  # numpy's word for ragged rows: "inhomogeneous shape"
        raise UsageError(
            f"{parameter} must be 2-D (units × annotators) with one column per annotator in "
            "every row (None or NaN for a missing rating); got rows of different lengths",
            parameter=parameter,
        ) from None
    if arr.ndim != 2:
        raise UsageError(
            f"{parameter} must be 2-D (units × annotators), got shape {arr.shape}",
            parameter=parameter,
        )
    return arr


def whole_numbers(x: npt.ArrayLike, parameter: str, what: str) -> npt.NDArray[np.int64]:
    """``x`` as int64 when every entry is a whole number; else a :class:`UsageError` naming
    ``parameter``, which says it must be ``what``."""
    try:
        f = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        f = np.full(1, np.nan)  # not numbers: refused below
    if not np.array_equal(f, np.round(f)):
        raise UsageError(f"{parameter} must be {what}", parameter=parameter)
    return f.astype(np.int64)


def check_confidence(confidence: float) -> float:
    """``confidence`` when it is strictly between 0 and 1; else a :class:`UsageError`."""
    return number("confidence", confidence, low=0, high=1, open_low=True, open_high=True)


def as_float_ratings(ratings: npt.ArrayLike, parameter: str = "ratings") -> FloatArray:
    """Numeric ratings as a 2-D float array with NaN for missing; raises on non-numeric values."""
    arr = ratings_array(ratings, parameter)
    if arr.dtype.kind in "iub":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        try:
            arr = np.array(
                [[math.nan if _is_missing(v) else float(v) for v in row] for row in arr],
                dtype=np.float64,
            )
        except (TypeError, ValueError) as exc:
            raise UsageError(
                f"{parameter} must be numbers for this level: {exc}", parameter=parameter
            ) from None
    return np.asarray(arr, dtype=np.float64)


def encode(ratings: npt.ArrayLike | Coded, *, order: npt.ArrayLike | None = None) -> Coded:
    """Map ratings ``(units, annotators)`` to integer codes ``(units, annotators)``, -1 missing.

    ``order`` fixes the value table (e.g. an ordinal scale or a project's label set); a rating
    outside it raises :class:`~iaa_gate.UsageError`. Otherwise the table is the sorted distinct
    values (first occurrence order when they do not sort). Integer-valued numeric data with a
    small range takes a pass-linear path with no sort.

    The values keep the user's type, so per-category results are keyed by what was given:
    integers (an integer array, or Python ints with ``None``) as int64, floats (a float array,
    as numpy makes of a list with NaN) as float64, anything else as objects.

    Parameters
    ----------
    ratings : array_like or Coded
        ``(units, annotators)`` ratings, ``None``/NaN missing (or their :class:`Coded` codes).
    order : array_like, optional
        The value table (an ordinal scale, a label set); a rating outside it raises
        :class:`~iaa_gate.UsageError`.

    Returns
    -------
    Coded
        ``codes`` ``(units, annotators)``, ``-1`` missing, into ``values`` ``(V,)``.

    Examples
    --------
    >>> encode([[1, None], [2, 2]]).values.tolist(), encode([[1.0, 2.5]]).values.tolist()
    ([1, 2], [1.0, 2.5])
    """
    return encode_ordered(ratings, order, "order")


def encode_ordered(ratings: npt.ArrayLike | Coded, order: Any, parameter: str) -> Coded:
    """:func:`encode` with the value table ``order`` given as the caller's ``parameter`` (a
    coefficient's ``categories``), which its errors name."""
    if isinstance(ratings, Coded):
        return ratings
    arr = ratings_array(ratings)
    if order is not None:
        try:
            table = list(cast("Iterable[Any]", order))
            index = {_freeze(v): i for i, v in enumerate(table)}
        except TypeError:  # not iterable, or a value that cannot be a key
            raise UsageError(
                f"{parameter} must be a list of the values, got {order!r}", parameter=parameter
            ) from None
        codes = np.full(arr.shape, -1, dtype=code_dtype(len(table)))
        for (u, a), v in np.ndenumerate(arr):
            if _is_missing(v):
                continue
            try:
                codes[u, a] = index[_freeze(v)]
            except (KeyError, TypeError):
                raise UsageError(
                    f"rating {v!r} (unit {u}, annotator {a}) is not in the value order "
                    f"({parameter}): add it, or correct the rating",
                    parameter=parameter,
                ) from None
        values = np.empty(len(table), dtype=object)
        values[:] = table
        return Coded(codes, _tidy(values))
    if arr.dtype.kind in "iubf":
        coded = _encode_numeric(arr.astype(np.float64, copy=False))
        if arr.dtype.kind in "iu" and coded.n_values:  # integers given: integers back
            return Coded(coded.codes, coded.values.astype(np.int64))
        return coded
    return _encode_objects(arr)


def _tidy(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Object value tables of plain numbers become numeric arrays: int64 when every one is an
    integer (the user's values, round-tripped), else float64."""
    if values.dtype != object or not len(values):
        return values
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return values.astype(np.int64)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return values.astype(np.float64)
    return values


def code_dtype(n_values: int) -> np.dtype[Any]:
    """Smallest signed integer type holding codes ``-1 … n_values``.

    Parameters
    ----------
    n_values : int
        How many distinct values.

    Returns
    -------
    numpy.dtype
        int8, int16, int32 or int64.

    Examples
    --------
    >>> code_dtype(200), code_dtype(40_000)
    (dtype('int16'), dtype('int32'))
    """
    number("n_values", n_values, low=0, whole=True)
    for dt in (np.int8, np.int16, np.int32):
        if n_values < np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


CHUNK_CELLS = 1 << 16  # cells per block of the metrics' passes: ½ MiB of float64 stays in cache


def rated_cells(coded: Coded) -> tuple[IntArray, IntArray]:
    """The unit and the annotator of every rating of ``coded`` (a code ≥ 0), in row order, as
    ``np.nonzero(coded.codes >= 0)`` gives them: from one pass over the flat codes (half the
    time of a 2-D nonzero), made once and kept in ``coded.memo`` (agreement per annotator,
    alpha without each and the per-category tally all read them; do not change them).

    Examples
    --------
    >>> unit, ann = rated_cells(Coded(np.array([[0, -1], [1, 0]], dtype=np.int8), np.arange(2)))
    >>> unit.tolist(), ann.tolist()
    ([0, 1, 1], [0, 0, 1])
    """
    cells: tuple[IntArray, IntArray] | None = coded.memo.get("rated")
    if cells is None:
        flat = np.flatnonzero(coded.codes.ravel() >= 0)
        unit, ann = np.divmod(flat, max(coded.codes.shape[1], 1))
        cells = coded.memo["rated"] = (unit, ann)
    return cells


def row_blocks(n_rows: int, n_cols: int, cells: int = 1 << 20) -> list[slice]:
    """Row slices of about ``cells`` cells: bounds temporaries of blockwise passes."""
    step = max(1, cells // max(n_cols, 1))
    return [slice(i, min(i + step, n_rows)) for i in range(0, n_rows, step)]


def _encode_numeric(x: FloatArray) -> Coded:
    lo = float(np.fmin.reduce(x, axis=None, initial=np.nan)) if x.size else np.nan
    hi = float(np.fmax.reduce(x, axis=None, initial=np.nan)) if x.size else np.nan
    if np.isnan(lo):  # nothing rated
        return Coded(np.full(x.shape, -1, dtype=np.int8), np.empty(0, dtype=np.float64))
    if np.isinf(lo) or np.isinf(hi):
        raise UsageError(
            "ratings must be finite (use NaN or None for a missing rating)", parameter="ratings"
        )
    if hi - lo < 1 << 15:
        coded = _encode_small_integers(x, lo, int(hi - lo))
        if coded is not None:
            return coded
    finite = ~np.isnan(x)
    values, inverse = np.unique(x[finite], return_inverse=True)
    codes = np.full(x.shape, -1, dtype=code_dtype(len(values)))
    codes[finite] = inverse
    return Coded(codes, values)


def _encode_small_integers(x: FloatArray, lo: float, span: int) -> Coded | None:
    """Codes x − lo in blocks, with no sort; ``None`` if one is not an integer.

    Per block: shift, NaN → −1, cast, check, and which offsets occur (OR of one-hot bit words
    when there are at most 64, else a bincount).
    """
    dtype = code_dtype(span + 1)
    codes = np.empty(x.shape, dtype=dtype)
    bits = 0  # bit k set: offset k occurs (span < 64)
    tally = np.zeros(span + 2, dtype=np.int64)  # tally[k + 1]: offset k occurs (span ≥ 64)
    for s in row_blocks(x.shape[0], x.shape[1], CHUNK_CELLS):
        y = np.fmax(x[s] - lo if lo else x[s], -1.0)  # NaN → −1: fmax ignores NaN
        c = codes[s]
        np.copyto(c, y, casting="unsafe")
        if not np.array_equal(c, y):
            return None
        if span < 64:  # code −1 reads 255 as uint8: shifted past the word, it sets no bit
            one_hot = np.left_shift(1, c.view(np.uint8), dtype=np.min_scalar_type(1 << span))
            bits |= int(np.bitwise_or.reduce(one_hot, axis=None))
        else:
            tally += np.bincount(c.ravel() + 1, minlength=span + 2)
    if span < 64:
        seen = np.array([bits >> k & 1 for k in range(span + 1)], dtype=bool)
    else:
        seen = tally[1:] > 0
    if not seen.all():  # renumber so codes are dense 0 … V−1
        remap = np.append(np.cumsum(seen) - 1, -1).astype(dtype)  # remap[-1] keeps −1
        for s in row_blocks(x.shape[0], x.shape[1], CHUNK_CELLS):
            codes[s] = remap[codes[s]]
    return Coded(codes, lo + np.flatnonzero(seen).astype(np.float64))


def _encode_objects(arr: npt.NDArray[Any]) -> Coded:
    if arr.dtype != object:  # numpy strings (np.str_) back as the user's str
        arr = arr.astype(object)
    index: dict[Any, int] = {}
    codes = np.full(arr.shape, -1, dtype=np.int64)
    for (u, a), v in np.ndenumerate(arr):
        if not _is_missing(v):
            try:
                codes[u, a] = index.setdefault(_freeze(v), len(index))
            except TypeError:  # unhashable: a dict, an array
                raise UsageError(
                    f"rating {v!r} (unit {u}, annotator {a}) is not a value to compare: use a "
                    "number, a string, or a list/set of them",
                    parameter="ratings",
                ) from None
    table = list(index)
    if not table:
        return Coded(codes, np.empty(0, dtype=np.float64))
    try:
        order = sorted(range(len(table)), key=lambda i: table[i])
    except TypeError:
        order = list(range(len(table)))
    rank = np.empty(len(table), dtype=np.int64)
    rank[order] = np.arange(len(table))
    values = np.empty(len(table), dtype=object)
    values[:] = [table[i] for i in order]
    ranked = np.where(codes >= 0, rank[np.maximum(codes, 0)], -1).astype(code_dtype(len(table)))
    return Coded(ranked, _tidy(values))


def sort_order(*keys: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Indices ``(n,)`` that sort by ``keys`` ``(n,)`` each, the first key major; ties keep their
    storage order (``np.lexsort(keys[::-1])``).

    Whole-number keys are packed into one int64, with the index when it fits (then one plain
    sort by value, many times faster than ``lexsort``), else sorted stably; keys with fractions,
    or whose ranges do not fit together, go to ``lexsort``.
    """
    n = int(keys[0].shape[0])
    packed: npt.NDArray[np.int64] = np.zeros(n, dtype=np.int64)
    room = 1.0
    for key in keys:
        if n == 0:
            break
        lo, hi = key.min(), key.max()
        room *= float(hi) - float(lo) + 1
        whole = key.dtype.kind in "iub" or bool(np.array_equal(key, np.floor(key)))
        if not room < 2.0**62 or not whole:  # NaN: an infinite key (inf − inf)
            return np.asarray(np.lexsort(keys[::-1]), dtype=np.int64)
        packed *= int(hi) - int(lo) + 1  # in place: no array per key
        packed += key if key.dtype == np.int64 else key.astype(np.int64)
        packed -= int(lo)
    if room * max(n, 1) >= 2.0**62:
        return np.asarray(np.argsort(packed, kind="stable"), dtype=np.int64)
    packed *= max(n, 1)
    packed += np.arange(n, dtype=np.int64)
    packed.sort(kind=fastest_sort(packed))  # the keys are distinct: any sort gives this order
    packed %= max(n, 1)
    return packed


def distinct(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The distinct whole numbers among ``values`` ``(n,)``, sorted: ``np.unique(values)`` by
    the :func:`fastest_sort` (keys from regions stored by task are nearly in order).

    Examples
    --------
    >>> distinct(np.array([3, 1, 3, 2, 1])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values, kind=fastest_sort(values))
    first = np.ones(ordered.shape, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return np.asarray(ordered[first], dtype=np.int64)


def fastest_sort(values: npt.NDArray[Any]) -> Literal["stable"] | None:
    """The ``kind`` of sort that orders ``values`` ``(n,)`` fastest: ``"stable"`` (timsort)
    when they are in order already but for local disorder, else None (numpy's default, a
    quicksort).

    A round's regions come stored by task, so keys derived from them are in order but within a
    task: timsort sorts short stretches and then joins stretches already in order in one pass,
    several times faster than quicksort, and is a little slower than quicksort on shuffled
    values. Every 64th value in order (timsort's stretches are 32 to 64 long) tells them apart
    in a pass over a 64th of them.

    Examples
    --------
    >>> fastest_sort(np.arange(1000) ^ 1), fastest_sort(np.arange(1000)[::-1])
    ('stable', None)
    """
    coarse = values[::64]
    descents = int(np.count_nonzero(coarse[1:] < coarse[:-1]))
    return "stable" if 16 * descents <= coarse.shape[0] else None
