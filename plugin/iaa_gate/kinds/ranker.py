"""Rankings (Label Studio ``<Ranker>``): ``value.ranker`` maps a list to item ids, either the
control's own name to one ordered list, or bucket names to the items in each bucket (a partial
ranking: items of one bucket tie). Scored over (task, item) units at the ordinal level, with
Kendall's W per task and the mean pairwise Kendall tau-b. No consensus is proposed back.

A ranking is stored as one value: a tuple of tie groups, best first, each group its item ids
joined by :data:`TIE`.

>>> ranks(("a", TIE.join(["b", "c"])))
{'a': 1.0, 'b': 2.0, 'c': 2.0}
>>> _read({"ranker": {"best": ["a"], "rest": ["b", "c"]}}, "order") == ("a", TIE.join("bc"))
True
"""

from collections.abc import Mapping
from xml.etree.ElementTree import Element

from . import Answer, AnswerError, Declared, Kind, register
from .common import tag_of

TIE = "\x1f"
"""Joins the item ids of one tie group (a character item ids do not hold)."""


def ranks(groups: tuple[str, ...]) -> dict[str, float]:
    """Item id → rank (1 = best; tied items share their group's rank) of a stored ranking."""
    return {item: float(r) for r, group in enumerate(groups, 1) for item in group.split(TIE)}


def _read(value: Mapping[str, object], name: str) -> tuple[str, ...]:
    """A ``<Ranker>`` answer of control ``name`` as tie groups, best first: the one list named
    like the control, each item its own group; or the buckets in the order written, each
    bucket a group, leaving out the items still in the control's own list."""
    v = value.get("ranker")
    if not isinstance(v, dict) or not all(
        isinstance(items, list) and all(isinstance(x, str) and TIE not in x for x in items)
        for items in v.values()
    ):
        raise AnswerError(f"'ranker' must map list names to lists of item ids, got {v!r}")
    buckets = [items for bucket, items in v.items() if bucket != name]
    seen = [x for items in v.values() for x in items]
    if len(set(seen)) != len(seen):
        raise AnswerError("an item occurs twice in the ranking")
    if not buckets:
        return tuple(v.get(name, []))
    return tuple(TIE.join(items) for items in buckets if items)


def _declare(el: Element) -> Declared:
    buckets = tuple(str(b.get("name")) for b in el if tag_of(b) == "bucket" and b.get("name"))
    note = "<Ranker>: " + (
        f"buckets {', '.join(buckets)} (best first; items in one bucket tie)"
        if buckets
        else "one ordered list"
    )
    return Declared(None, False, note)


register(
    Kind(
        "ranker",
        "items",
        default_level="ordinal",
        comparison="none",
        answer=Answer.RANKING,
        value_key="ranker",
        read=_read,
        declare=_declare,
    )
)
