"""Per-message answers on a Label Studio ``<Chat>``: a control with ``perRegion="true"`` on the
chat answers about one message; its result's ``id`` is the ``chatmessage`` result's. Units are
(task, message): a message is known across annotators by its role and content (the n-th of
equal messages by n). Conversation-level controls stay ordinary task-level fields.

An annotation's answers to one per-message field are stored as one value: a tuple of
``message key`` :data:`SEP` ``JSON of the answer``, one per message.

>>> decode(encode({"user: hi": ("Yes",)}))
{'user: hi': ['Yes']}
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from . import Kind, register

CHAT = "chat"
"""The Label Studio object tag of a conversation, whose messages per-message answers are about."""
CHAT_MESSAGE = "chatmessage"
"""The type of a Label Studio result that is a chat message itself (not an answer about one)."""
SEP = "\x1e"
"""Separates a message key from its answer (a character message texts do not hold)."""
ANSWERED = {"choices": "nominal", "rating": "ordinal", "number": "interval"}
"""Control types scored per message, with their default level."""


def kind_of(control: str) -> str:
    """The field kind of per-message answers of control type ``control`` (``choices`` →
    ``message:choices``)."""
    return f"message:{control}"


def encode(answers: Mapping[str, object]) -> tuple[str, ...]:
    """Message key → answer (a label tuple, a number or a text) as one stored value."""
    return tuple(f"{k}{SEP}{json.dumps(v)}" for k, v in answers.items())


def decode(value: tuple[str, ...]) -> dict[str, object]:
    """The inverse of :func:`encode` (label tuples come back as lists)."""
    return {k: json.loads(v) for k, _, v in (x.partition(SEP) for x in value)}


register(
    *(
        Kind(
            kind_of(control),
            "items",
            default_level=level,
            comparison="none",
            multiple=control == "choices",  # the field's `multiple` option applies
        )
        for control, level in ANSWERED.items()
    ),
    Kind(
        kind_of("textarea"),
        "listed",
        default_level=None,
        comparison="none",
        reason="free text about one chat message is not compared",
    ),
)
