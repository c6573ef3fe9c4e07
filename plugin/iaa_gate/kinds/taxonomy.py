"""Paths in a taxonomy (Label Studio ``<Taxonomy>``, ``value.taxonomy``: a list of paths, each
stored as ``"a / b"``); ``distance: hierarchical`` scores by shared path depth."""

from collections.abc import Mapping
from xml.etree.ElementTree import Element

from . import Answer, AnswerError, Declared, Kind, register
from .common import labels, tag_of


def _read(value: Mapping[str, object], name: str) -> tuple[str, ...]:
    paths = value.get("taxonomy")
    if not isinstance(paths, list) or not all(isinstance(p, list) for p in paths):
        raise AnswerError("'taxonomy' must be a list of paths")
    return tuple(" / ".join(map(str, p)) for p in paths)


def _paths(el: Element, prefix: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Every node of a taxonomy as ``"root / … / node"`` (any node may be chosen)."""
    out: list[str] = []
    for child in el:
        if tag_of(child) != "choice":
            continue
        value = child.get("alias") or child.get("value")
        if value is None:
            continue
        path = (*prefix, value)
        out.append(" / ".join(path))
        out += _paths(child, path)
    return tuple(out)


def _declare(el: Element) -> Declared:
    multiple = el.get("maxUsages", "") != "1"  # several paths may be chosen unless one
    note = "<Taxonomy>" if multiple else '<Taxonomy maxUsages="1">'
    return Declared(_paths(el) or None, multiple, note)


register(
    Kind(
        "taxonomy",
        "scalar",
        distances=frozenset({"hierarchical"}),
        comparison="named",
        answer=Answer.LABELS,
        multiple=True,
        value_key="taxonomy",
        read=_read,
        propose=lambda v: {"taxonomy": [p.split(" / ") for p in labels(v)]},
        declare=_declare,
    )
)
