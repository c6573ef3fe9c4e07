"""Pairwise preferences (Label Studio ``<Pairwise>``): which of two items an annotator prefers,
``value.selected`` (``"left"`` or ``"right"``), read as a nominal answer per task, so agreement,
alpha and kappa are those of a two-category (three with an explicit tie) choice. No consensus
is proposed back."""

from collections.abc import Mapping

from . import Answer, AnswerError, Declared, Kind, register


def _read(value: Mapping[str, object], name: str) -> tuple[str]:
    selected = value.get("selected")
    if not isinstance(selected, str) or not selected:
        raise AnswerError(f"'selected' must be 'left' or 'right', got {selected!r}")
    return (selected,)


register(
    Kind(
        "pairwise",
        "scalar",
        answer=Answer.LABELS,
        value_key="selected",
        read=_read,
        declare=lambda el: Declared(("left", "right"), False, "<Pairwise>"),
        sides=True,
    )
)
