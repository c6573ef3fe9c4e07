"""Star ratings (Label Studio ``<Rating>``, ``value.rating``): ordered, so ordinal by default;
a consensus is proposed as whole stars."""

from xml.etree.ElementTree import Element

from . import Answer, Declared, Kind, register
from .common import number, propose_number


def _declare(el: Element) -> Declared:
    top = el.get("maxRating", "5")
    scale = tuple(float(x) for x in range(1, int(top) + 1)) if top.isdigit() else None
    return Declared(None, False, f'<Rating maxRating="{top}">', scale)


register(
    Kind(
        "rating",
        "scalar",
        default_level="ordinal",
        answer=Answer.NUMBER,
        value_key="rating",
        read=number("rating"),
        propose=propose_number("rating", whole=True),
        declare=_declare,
    )
)
