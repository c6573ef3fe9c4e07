"""Numbers (Label Studio ``<Number>``, ``value.number``): interval by default."""

from xml.etree.ElementTree import Element

from . import Answer, Declared, Kind, register
from .common import number, propose_number


def _declare(el: Element) -> Declared:
    bounds = " ".join(f'{k}="{el.get(k)}"' for k in ("min", "max") if el.get(k) is not None)
    return Declared(None, False, f"<Number {bounds}>".strip())


register(
    Kind(
        "number",
        "scalar",
        default_level="interval",
        answer=Answer.NUMBER,
        value_key="number",
        read=number("number"),
        propose=propose_number("number", whole=False),
        declare=_declare,
    )
)
