"""Single- or multi-select labels (Label Studio ``<Choices>``, Prodigy choice views): a tuple of
labels, ``value.choices`` (one string or a list), proposed back as a list."""

from collections.abc import Mapping
from xml.etree.ElementTree import Element

from . import Answer, Declared, Kind, register
from .common import labels, labels_of, strings


def _read(value: Mapping[str, object], name: str) -> tuple[str, ...]:
    return strings(value.get("choices"), "choices")


def _declare(el: Element) -> Declared:
    choice = el.get("choice", "single")
    dynamic = el.get("value", "").startswith("$")
    note = f'<Choices choice="{choice}">' + (
        f' value="{el.get("value")}" (labels from the task data)' if dynamic else ""
    )
    return Declared(None if dynamic else labels_of(el), choice == "multiple", note)


register(
    Kind(
        "choices",
        "scalar",
        answer=Answer.LABELS,
        multiple=True,
        value_key="choices",
        read=_read,
        propose=lambda v: {"choices": labels(v)},
        declare=_declare,
    )
)
