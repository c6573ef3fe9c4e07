"""The Python API: agreement coefficients on long or wide data, and a whole evaluation.

Every coefficient here takes the same data:

- **long** (crowd-kit's shape): a pandas DataFrame with columns ``task``, ``annotator`` and
  ``value`` (other names through ``task=``, ``annotator=``, ``value=``), or an iterable of
  ``(task, annotator, value)`` tuples. A missing answer is a missing row; a repeated
  ``(task, annotator)`` is an error, never one of them picked silently.
- **wide**: a 2-D array, a list of lists or a wide DataFrame, with its orientation named:
  ``rows="units"`` (one row per unit, one column per annotator, as
  :mod:`iaa_gate.metrics` takes) or ``rows="annotators"`` (as the ``krippendorff`` package
  takes). Without ``rows=`` a 2-D input is an error: the same array read the other way gives
  another number without a word. ``None`` and NaN are missing ratings.

Values keep their type: integer labels come back as integers in per-category results.

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
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .core.errors import UsageError

if TYPE_CHECKING:
    from .config import Config
    from .metrics import Coded
    from .pipeline import Outcome

Rows = Literal["units", "annotators"]
LONG_COLUMNS = ("task", "annotator", "value")


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _is_frame(data: Any) -> bool:
    """A pandas (or pandas-like) DataFrame, told by its shape, without importing pandas."""
    return hasattr(data, "columns") and hasattr(data, "to_numpy") and hasattr(data, "iloc")


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


def _coded(
    rows_of_cells: list[tuple[int, int, Any]],
    shape: tuple[int, int],
    order: Sequence[Any] | None,
) -> Coded:
    """``Coded`` from ``(unit, annotator, value)`` cells; integer and float values stay numeric
    (integers as int64, so results keep them integers)."""
    import numpy as np

    from .metrics import Coded, code_dtype

    values = [v for _, _, v in rows_of_cells]
    if any(isinstance(v, bool) for v in values):
        raise UsageError("a rating is a boolean: use labels such as 'yes'/'no' or 0/1")
    table, index = _table(values, order)
    codes = np.full(shape, -1, dtype=code_dtype(len(table)))
    for u, a, v in rows_of_cells:
        try:
            codes[u, a] = index[v]
        except KeyError:
            raise UsageError(f"rating {v!r} is not in the given order {list(table)!r}") from None
    if table and all(isinstance(v, int) for v in table):
        arr: Any = np.array(table, dtype=np.int64)
    elif table and all(isinstance(v, (int, float)) for v in table):
        arr = np.array(table, dtype=np.float64)
    else:
        arr = np.empty(len(table), dtype=object)
        arr[:] = table
    return Coded(codes, arr)


def _plain(v: Any) -> Any:
    """numpy scalars as Python values (``np.int64(3)`` → ``3``)."""
    return v.item() if hasattr(v, "item") and not isinstance(v, (list, tuple)) else v


def _long(triples: Iterable[Sequence[Any]], order: Sequence[Any] | None) -> Coded:
    units: dict[Any, int] = {}
    annotators: dict[Any, int] = {}
    cells: list[tuple[int, int, Any]] = []
    seen: dict[tuple[int, int], int] = {}
    for n, row in enumerate(triples, start=1):
        if len(row) != 3:
            raise UsageError(
                f"long data row {n}: expected (task, annotator, value), got {len(row)} items"
            )
        task, who, value = (_plain(x) for x in row)
        if _missing(value):
            continue
        u = units.setdefault(task, len(units))
        a = annotators.setdefault(who, len(annotators))
        if (u, a) in seen:
            raise UsageError(
                f"long data rows {seen[u, a]} and {n}: annotator {who!r} rated task {task!r} "
                "twice; keep one rating per task and annotator"
            )
        seen[u, a] = n
        cells.append((u, a, value))
    return _coded(cells, (len(units), len(annotators)), order)


def _wide(data: Any, rows: Rows | None, order: Sequence[Any] | None) -> Coded:
    if rows not in ("units", "annotators"):
        raise UsageError(
            "a 2-D input needs its orientation: rows='units' (one row per unit, one column per "
            "annotator, as iaa_gate.metrics) or rows='annotators' (one row per annotator, as "
            "the krippendorff package); read the wrong way, the same array gives another value"
        )
    matrix = data.to_numpy(dtype=object) if _is_frame(data) else data
    grid = [[_plain(v) for v in row] for row in matrix]
    if grid and len({len(r) for r in grid}) != 1:
        raise UsageError("a wide input must be rectangular: every row the same length")
    if rows == "annotators":
        grid = [list(col) for col in zip(*grid, strict=True)] if grid else []
    cells = [(u, a, v) for u, row in enumerate(grid) for a, v in enumerate(row) if not _missing(v)]
    return _coded(cells, (len(grid), len(grid[0]) if grid else 0), order)


def ratings(
    data: Any,
    *,
    rows: Rows | None = None,
    order: Sequence[Any] | None = None,
    task: str = "task",
    annotator: str = "annotator",
    value: str = "value",
) -> Coded:
    """Long or wide ``data`` (see the module docstring) as the ``(units, annotators)`` codes
    :mod:`iaa_gate.metrics` takes. ``order``: the value scale (an ordinal scale, or labels
    that may not occur); by default the sorted distinct values."""
    if _is_frame(data):
        columns = [str(c) for c in data.columns]
        if rows is None and all(c in columns for c in (task, annotator, value)):
            return _long(data[[task, annotator, value]].itertuples(index=False), order)
        if rows is None:
            raise UsageError(
                f"a DataFrame is long data with columns {task!r}, {annotator!r}, {value!r} "
                f"(it has {columns}), or wide data with rows='units' or rows='annotators'"
            )
        return _wide(data, rows, order)
    if rows is not None or hasattr(data, "ndim"):
        return _wide(data, rows, order)
    items = list(data)
    if items and all(isinstance(x, tuple) for x in items):
        return _long(items, order)
    return _wide(items, rows, order)


def alpha(data: Any, level: str = "nominal", **how: Any) -> float:
    """Krippendorff's alpha at ``level`` (nominal, ordinal, interval, ratio, or a set distance:
    jaccard, masi); NaN with a reason when undefined. ``how``: ``rows=``, ``order=`` and
    column names, as :func:`ratings` takes them."""
    from .metrics import krippendorff_alpha

    return krippendorff_alpha(ratings(data, **how), level)


def percent_agreement(data: Any, **how: Any) -> float:
    """Gwet's percent agreement p_a: each unit's share of agreeing pairs, averaged."""
    from . import metrics

    return metrics.percent_agreement(ratings(data, **how))


def cohen_kappa(data: Any, weights: str | None = None, **how: Any) -> float:
    """Cohen's kappa of two annotators (``weights``: linear or quadratic for weighted kappa)."""
    from . import metrics

    return metrics.cohen_kappa(ratings(data, **how), weights=weights)


def scott_pi(data: Any, **how: Any) -> float:
    """Scott's pi of two annotators."""
    from . import metrics

    return metrics.scott_pi(ratings(data, **how))


def fleiss_kappa(data: Any, **how: Any) -> float:
    """Fleiss' kappa for any number of annotators, with missing ratings (Gwet's handbook)."""
    from . import metrics

    return metrics.fleiss_kappa(ratings(data, **how))


def gwet_ac1(data: Any, **how: Any) -> float:
    """Gwet's AC1."""
    from . import metrics

    return metrics.gwet_ac1(ratings(data, **how))


def gwet_ac2(data: Any, weights: str = "quadratic", **how: Any) -> float:
    """Gwet's weighted AC2 (``weights``: quadratic, linear, ordinal, ratio, …)."""
    from . import metrics

    return metrics.gwet_ac2(ratings(data, **how), weights)


def category_agreement(data: Any, **how: Any) -> dict[Any, float]:
    """Agreement per category: the pairs of annotators who both gave it over the pairs of whom
    at least one did; keyed by the values as given (integers stay integers)."""
    from . import metrics

    out = metrics.category_agreement(ratings(data, **how))
    return {_plain(k): v for k, v in out.items()}


def load_config(path: str | Path) -> Config:
    """The YAML config at ``path``, validated (a :class:`ConfigError` lists every problem)."""
    from .config import load_config as load

    return load(Path(path))


def evaluate(config: Config | str | Path, *, source: str | Path | None = None) -> Outcome:
    """A whole evaluation from a config (a path or a loaded :class:`Config`), as ``iaa-gate
    run`` does but writing nothing: the outcome holds the verdict, the report document, each
    field's results and the gate's checks. ``source``: another input file for a file source."""
    from .pipeline import evaluate as run_evaluation
    from .pipeline import make_source

    cfg = load_config(config) if isinstance(config, (str, Path)) else config
    if source is not None:
        if "path" not in cfg.source.files():
            raise UsageError(f"source= applies to file sources; this one is {cfg.source.type}")
        cfg = cfg.model_copy(
            update={"source": cfg.source.model_copy(update={"path": Path(source)})}
        )
    return run_evaluation(cfg, make_source(cfg).load())
