"""A stand-in consensus until the Dawid–Skene one lands: each unit's majority answer.

:func:`fill_majority` sets :attr:`UnitResult.consensus` of every rated unit of every field whose
ratings are whole answers (choices, ratings, numbers, taxonomy paths; not per-region attributes,
whose values are per region): the most frequent answer (``method="majority"``), its share of the
unit's ratings as ``posterior``, and ``tie=True`` when two or more answers share the top count.
Region fields are left without a consensus (their clusters are not visible in a
:class:`UnitResult`). It never overwrites a consensus already set,
so the Dawid–Skene consensus replaces it by being filled first (or instead of this call).
"""

from __future__ import annotations

import json
from typing import Any

from .results import Consensus, FieldResult


def majority(values: list[Any]) -> Consensus | None:
    """The majority answer of ``values`` (one answer per annotator; None: no answer).

    A tie keeps the first of the tied answers in sorted order as ``value`` and marks
    ``tie=True``: it is not a settled proposal."""
    if not values:
        return None
    counts: dict[str, int] = {}
    first: dict[str, Any] = {}
    for v in values:
        key = json.dumps(v, sort_keys=True, default=str)
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, v)
    top = max(counts.values())
    best = sorted(k for k, n in counts.items() if n == top)
    return Consensus(first[best[0]], top / len(values), "majority", tie=len(best) > 1)


def fill_majority(results: dict[str, FieldResult]) -> None:
    """Set each rated unit's majority :class:`Consensus` (in place; region fields and units
    with a consensus already are left as they are)."""
    for result in results.values():
        if result.regions is not None:
            continue
        for u in result.units:
            if u.consensus is not None or u.status == "too_few":
                continue
            values = list(u.labels.values())
            if not result.multiple and any(isinstance(v, list) for v in values):
                continue  # a per-region attribute: one value per region, no task answer
            u.consensus = majority(values)
