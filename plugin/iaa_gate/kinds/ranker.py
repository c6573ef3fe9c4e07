"""Rankings (Label Studio ``<Ranker>``): ``value.ranker`` maps a list to item ids, either the
control's own name to one ordered list, or bucket names to the items in each bucket (a partial
ranking: items of one bucket tie). Scored over (task, item) units at the ordinal level, with
Kendall's W per task and the mean pairwise Kendall tau-b.

A ranking is stored as one value: a tuple of tie groups, best first, each group its item ids
joined by :data:`TIE`.

>>> ranks(("a", TIE.join(["b", "c"])))
{'a': 1.0, 'b': 2.0, 'c': 2.0}
"""

from . import Kind, register

TIE = "\x1f"
"""Joins the item ids of one tie group (a character item ids do not hold)."""


def ranks(groups: tuple[str, ...]) -> dict[str, float]:
    """Item id → rank (1 = best; tied items share their group's rank) of a stored ranking."""
    return {item: float(r) for r, group in enumerate(groups, 1) for item in group.split(TIE)}


register(Kind("ranker", "items", default_level="ordinal", comparison="none"))
