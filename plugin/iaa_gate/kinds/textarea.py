"""Free text (Label Studio ``<TextArea>``): compared after normalisation, exact or by Levenshtein
distance; listed but not evaluated by a starting config."""

from . import Kind, register

register(
    Kind(
        "textarea",
        "scalar",
        distances=frozenset({"levenshtein"}),
        options=frozenset({"normalize"}),
        comparison="named",
        evaluated_by_default=False,
    )
)
