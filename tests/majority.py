"""A fixed reference consensus for tests: each unit's majority answer (the run proposes by
Dawid–Skene and medians, :mod:`iaa_gate.evaluation.consensus`; tests that check what is done
with a consensus use this one so they do not depend on how it is found).

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

from iaa_gate.evaluation.results import Consensus


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
