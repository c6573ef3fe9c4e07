"""Free text (Label Studio ``<TextArea>``, ``value.text``: lines joined by newlines): compared
after normalisation, exact or by Levenshtein distance; listed but not evaluated by a starting
config."""

from collections.abc import Mapping

from . import Answer, Declared, Kind, register
from .common import strings


def _read(value: Mapping[str, object], name: str) -> str:
    return "\n".join(strings(value.get("text"), "text"))  # normalised per field, as configured


register(
    Kind(
        "textarea",
        "scalar",
        distances=frozenset({"levenshtein"}),
        options=frozenset({"normalize"}),
        comparison="named",
        evaluated_by_default=False,
        answer=Answer.TEXT,
        value_key="text",
        read=_read,
        propose=lambda v: {"text": [str(v)]},
        declare=lambda el: Declared(None, False, "<TextArea>: free text"),
    )
)
