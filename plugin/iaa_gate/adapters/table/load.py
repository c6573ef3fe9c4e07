"""Loading a table file's columns: the one step that differs by format and install.

Both readers (:mod:`.columnwise` and the row reader of :mod:`.source`) take a :class:`Loaded`:
each column's cells as Python values (None: an empty cell), typed as pyarrow types them. With
pyarrow installed it loads every format (``[table]`` extra). Without it, CSV and TSV are read
with the standard library's ``csv`` module and JSON Lines with msgspec, and each column is typed
by pyarrow's rules (:func:`typed`: integers, booleans, dates, times, timestamps, floats, else
text), so that the reading rules of :mod:`.rules` see the same cells either way. Parquet always
needs pyarrow.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any, cast

import numpy as np

from ...core.errors import InputError
from ...core.extras import needed

Codes = np.ndarray[Any, np.dtype[np.int64]]

NULLS = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN"}
    | {"N/A", "NA", "NULL", "NaN", "n/a", "nan", "null"}
)
"""The cells pyarrow's CSV reader reads as empty (``ConvertOptions.null_values``), in every
column (``strings_can_be_null``)."""
TRUE, FALSE = frozenset({"1", "True", "TRUE", "true"}), frozenset({"0", "False", "FALSE", "false"})
_DECIMAL = re.compile(r"\s*-?\d+\s*", re.ASCII)
_INT = re.compile(r"\s*-?(\d+|0x[0-9a-fA-F]+)\s*", re.ASCII)
_FLOAT = re.compile(
    r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity)\s*", re.I | re.A
)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_TIME = re.compile(r"\d{2}:\d{2}:\d{2}", re.ASCII)
_STAMP = re.compile(  # ASCII: a Unicode digit is text to pyarrow
    r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d)?)?", re.ASCII
)
_ZONE = re.compile(r"(Z|[+-]\d{2}:?\d{2})$", re.ASCII)


@dataclass
class Loaded:
    """A table's columns in file order: ``names``, ``num_rows`` and, per column, its cells as
    Python values (``lists``) or a pyarrow column (``arrow``, the columns pyarrow loaded)."""

    column_names: list[str]
    num_rows: int
    lists: dict[str, list[Any]] = field(default_factory=dict)
    arrow: Any = None
    _cells: dict[str, tuple[Codes, list[Any]]] = field(default_factory=dict)

    def pylist(self, name: str) -> list[Any]:
        """Column ``name``'s cells as Python values (None: empty)."""
        if self.arrow is not None:
            return list(self.arrow.column(name).to_pylist())
        if name not in self.lists:
            codes, cells = self.cells(name)
            at = cast("list[int]", codes.tolist())  # decoded once, on demand
            self.lists[name] = [cells[c] for c in at]
        return self.lists[name]

    def cells(self, name: str) -> tuple[Codes, list[Any]]:
        """Each row's index into column ``name``'s distinct cells, and those cells in order
        of first appearance (None: an empty cell)."""
        if name not in self._cells:
            self._cells[name] = _encode(self.lists[name])
        return self._cells[name]


def _key(v: Any) -> Any:
    """A dict key that keeps apart what pyarrow keeps apart (True and 1; a list as a tuple)."""
    if isinstance(v, list):
        return (list, tuple(_key(x) for x in v))
    return (v.__class__, v)


def _encode(column: Sequence[Any], uniform: bool = False) -> tuple[Codes, list[Any]]:
    """:meth:`Loaded.cells` of a sequence of cells: by the cell itself when the cells are of
    one hashable type (``uniform``: known to be, as the texts of a CSV column), else by
    :func:`_key`."""
    if uniform or len({v.__class__ for v in column} - {type(None)}) <= 1:
        try:  # dict and map in C: no Python call per cell
            cells = list(dict.fromkeys(column))
            at = dict(zip(cells, range(len(cells)), strict=True))
            return np.fromiter(map(at.__getitem__, column), np.int64, len(column)), cells
        except TypeError:  # lists (JSON Lines)
            pass
    index: dict[Any, int] = {}
    cells = []
    codes = []
    for v in column:
        k = _key(v)
        if k not in index:
            index[k] = len(cells)
            cells.append(v)
        codes.append(index[k])
    return np.array(codes, dtype=np.int64), cells


def _int(s: str) -> int | None:
    if not _INT.fullmatch(s):
        return None
    v = s.strip()
    n = -int(v[3:], 16) if v.startswith("-0x") else int(v, 16) if v.startswith("0x") else int(v)
    return n if -(2**63) <= n < 2**63 else None


def _bool(s: str) -> bool | None:
    return True if s in TRUE else False if s in FALSE else None


def _date(s: str) -> date | None:
    try:
        return date.fromisoformat(s) if _DATE.fullmatch(s) else None
    except ValueError:
        return None


def _time(s: str) -> time | None:
    try:
        return time.fromisoformat(s) if _TIME.fullmatch(s) else None
    except ValueError:
        return None


def _stamp(s: str) -> datetime | None:
    """A timestamp as pyarrow gives it: with a zone, in UTC. A fraction finer than Python's
    microsecond is rounded to it (pyarrow keeps nanoseconds; its seconds round them so)."""
    if not _STAMP.fullmatch(s):
        return None
    head, dot, rest = s.partition(".")
    frac = re.match(r"\d*", rest, re.ASCII).group() if dot else ""  # type: ignore[union-attr]
    try:
        t = datetime.fromisoformat((head + rest[len(frac) :]).replace("Z", "+00:00"))
    except ValueError:
        return None
    if frac:
        t += timedelta(microseconds=round(int(frac.ljust(9, "0")) / 1000))
    return t.astimezone(timezone.utc) if t.tzinfo else t


def _float(s: str) -> float | None:
    return float(s) if _FLOAT.fullmatch(s) else None


_TYPES: list[Callable[[str], Any]] = [_int, _bool, _date, _time, _stamp, _float]
"""pyarrow's order of inference: a column is the first type every cell reads as."""


def typed(cells: list[str]) -> list[Any]:
    """Distinct non-empty texts of one column as pyarrow types them: the first of integer,
    boolean, date, time, timestamp (all with a zone or none) and float that reads every cell,
    else the texts as they are.

    >>> typed(["1", "2"]), typed(["1", "2.5"]), typed(["1", "x"]), typed(["true", "0"])
    ([1, 2], [1.0, 2.5], ['1', 'x'], [True, False])
    """
    if all(map(_DECIMAL.fullmatch, cells)):  # the common column of ids: int() in C
        ints = list(map(int, cells))
        if not ints or (min(ints) >= -(2**63) and max(ints) < 2**63):
            return ints
    for kind in _TYPES:
        made = []
        for s in cells:
            v = kind(s)
            if v is None:
                break
            made.append(v)
        else:
            if kind is _stamp and len({_ZONE.search(s) is None for s in cells}) > 1:
                continue  # some with a zone, some without: text
            return made
    return list(cells)


def _column(raw: Sequence[str]) -> tuple[Codes, list[Any]]:
    """A CSV column of texts as codes into its distinct typed cells (None: empty)."""
    codes, texts = _encode(raw, uniform=True)
    full = [s for s in texts if s not in NULLS]
    made = dict(zip(full, typed(full), strict=True))
    values = [made.get(s) for s in texts]
    index: dict[Any, int] = {}  # "1" and "01" are one integer: typed cells of one type
    merged = np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int64)
    return merged[codes], list(index)


def read_csv(path: Path, delimiter: str) -> Loaded:
    """A CSV or TSV file read with the ``csv`` module: the header row names the columns, empty
    lines are skipped, a UTF-8 byte order mark is dropped."""
    fmt = "TSV" if delimiter == "\t" else "CSV"
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            str(path),
            [f"not a readable {fmt} table: row {line} is not UTF-8 text (byte {exc.start})"],
            hint="save the table as UTF-8",
        ) from None
    try:
        rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if r]
    except csv.Error as exc:
        raise InputError(str(path), [f"not a readable {fmt} table: {exc}"]) from None
    if not rows:
        raise InputError(
            str(path), [f"not a readable {fmt} table: the file is empty"], hint="export it again"
        )
    names, body = rows[0], rows[1:]
    if set(map(len, body)) - {len(names)}:
        ragged = next(i for i, r in enumerate(body) if len(r) != len(names))
        raise InputError(
            str(path),
            [
                f"not a readable {fmt} table: row {ragged + 2} has {len(body[ragged])} cells, "
                f"the header {len(names)}"
            ],
            hint=f"check the delimiter ({fmt} is {'tab' if fmt == 'TSV' else 'comma'}"
            "-separated) and the quoting of that row",
        )
    loaded = Loaded(names, len(body))
    columns = zip(*body, strict=True) if body else ([] for _ in names)
    for name, column in zip(names, columns, strict=True):
        loaded._cells[name] = _column(column)
    return loaded


def read_jsonl(path: Path) -> Loaded:
    """A JSON Lines file read with msgspec: one object per line, its keys the columns (a key a
    line lacks: an empty cell); whole numbers among fractions are floats, as pyarrow reads them."""
    import msgspec

    decode = msgspec.json.Decoder().decode
    records: list[dict[str, Any]] = []
    try:
        with open(path, "rb") as f:
            for n, line in enumerate(f, 1):  # noqa: B007 (the error's line)
                if line.strip():
                    record = decode(line)
                    if not isinstance(record, dict):
                        raise msgspec.DecodeError("not a JSON object")
                    records.append(record)
    except msgspec.DecodeError as exc:
        raise InputError(
            str(path),
            [f"not a readable JSONL table: line {n}: {exc}"],
            hint="check source.format, or export the table again",
        ) from None
    names = list(dict.fromkeys(k for r in records for k in r))
    loaded = Loaded(names, len(records))
    for name in names:
        column = [r.get(name) for r in records]
        kinds = {v.__class__ for v in column} - {type(None)}
        if kinds == {int, float}:
            column = [None if v is None else float(v) for v in column]
        elif kinds == {str}:
            distinct = list(dict.fromkeys(v for v in column if v is not None))
            stamps = [_stamp(s) or _date(s) for s in distinct]
            if all(stamps):  # ISO times: timestamps, without their zone, in UTC
                at = {s: _naive(t) for s, t in zip(distinct, stamps, strict=True)}
                column = [None if v is None else at[v] for v in column]
        elif len(kinds) > 1:  # pyarrow refuses a column that changes type
            first = next(v for v in column if v is not None).__class__
            row = next(i for i, v in enumerate(column, 1) if v is not None and type(v) is not first)
            raise InputError(
                str(path),
                [
                    f"not a readable JSONL table: column {name!r} changes from {first.__name__} in"
                    f" row {row}"
                ],
                hint="give each column one type of value",
            )
        loaded.lists[name] = column
    return loaded


def _naive(t: Any) -> datetime:
    if not isinstance(t, datetime):
        return datetime(t.year, t.month, t.day)
    return t.astimezone(timezone.utc).replace(tzinfo=None) if t.tzinfo else t


def arrow() -> bool:
    """Whether pyarrow can be imported (a test hides it with ``sys.modules["pyarrow"] = None``)."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def read_arrow(path: Path, fmt: str) -> Loaded:
    """The file loaded by pyarrow (every format; Parquet only so)."""
    with needed("table"):
        if fmt in ("csv", "tsv"):
            from pyarrow import csv as pacsv

            table = pacsv.read_csv(
                path,
                parse_options=pacsv.ParseOptions(delimiter="\t" if fmt == "tsv" else ","),
                convert_options=pacsv.ConvertOptions(strings_can_be_null=True),
            )
        elif fmt == "parquet":
            from pyarrow import parquet

            table = parquet.read_table(path)
        else:
            from pyarrow import json

            table = json.read_json(path)
    return of_arrow(table)


def of_arrow(table: Any) -> Loaded:
    """A ``pyarrow.Table`` as :class:`Loaded`."""
    return Loaded(list(table.column_names), table.num_rows, arrow=table)
