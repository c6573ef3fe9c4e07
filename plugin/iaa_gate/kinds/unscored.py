"""Controls iaa-gate knows but does not score: listed as not evaluated, with the true reason.

Each reason says what the control's answers are and why no number is given for them, so a
report never leaves a control out silently and never scores it as something else.
"""

from . import Kind, register
from .messages import CHAT_MESSAGE


def _listed(name: str, reason: str, *, tool: bool = False) -> Kind:
    return Kind(name, "listed", default_level=None, comparison="none", reason=reason, tool=tool)


NOT_REGIONS = frozenset({"datetime", CHAT_MESSAGE})
"""Listed kinds whose results are an answer or a chat message, not a region: an answer with
``perRegion`` is never about them."""
RELATION = "relation"
"""The type of a Label Studio result that links two regions (scored with their span field)."""

_MASK = "brush masks (RLE) are not compared yet"
_ELLIPSE = "ellipse regions are not matched yet"
_CHAT = "messages an annotator writes in a chat are free text, not compared"

register(
    _listed("ellipselabels", _ELLIPSE),
    _listed("ellipse", _ELLIPSE, tool=True),
    _listed("bitmasklabels", _MASK),
    _listed("bitmask", _MASK),
    _listed("magicwand", _MASK),
    _listed(
        "videorectangle",
        "video object tracks (boxes on keyframes, interpolated between them) are not "
        "matched per frame yet",
        tool=True,
    ),
    _listed("datetime", "date/time answers are not scored yet"),
    _listed("chatmessage", _CHAT),
    _listed("chat", _CHAT),
    _listed(
        "ocrlabels",
        "OCR labels on PDF pages (a Label Studio Enterprise tag) are not read yet: their "
        "regions' page coordinates are not matched",
    ),
    _listed(
        "permessage",
        "an answer about one chat message (its result id is the message's) of a control type "
        "iaa-gate does not score per message; it is never read as one answer per task",
    ),
    _listed(
        "perregion",
        "an answer about one region of a control iaa-gate does not evaluate (an ellipse, a "
        "video track…): it is not scored, and never read as one answer per task",
    ),
    _listed(
        "relations",
        "relations are scored with the span field they connect",
    ),
)
