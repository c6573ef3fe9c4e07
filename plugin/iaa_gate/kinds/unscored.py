"""Region controls iaa-gate knows but does not score yet: listed as not evaluated, with why."""

from . import Kind, register

_WHY = "{} regions are not matched yet"

register(
    *(
        Kind(name, "listed", default_level=None, comparison="none", reason=_WHY.format(what))
        for name, what in (
            ("ellipselabels", "ellipse"),
            ("ellipse", "ellipse"),
            ("brushlabels", "brush (mask)"),
            ("brush", "brush (mask)"),
            ("videorectangle", "video track"),
        )
    ),
    Kind(
        "relations",
        "listed",
        default_level=None,
        comparison="none",
        reason="relations are scored with the span field they connect",
    ),
)
