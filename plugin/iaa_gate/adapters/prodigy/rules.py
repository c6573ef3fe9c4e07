"""Reading rules of Prodigy lines shared by the typed fast path (:mod:`.typed`) and the general
parser (:mod:`.source`): each is written once here and called from both."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

REJECT = "REJECT"


SPAN_VIEWS = frozenset({"ner_manual", "spans_manual"})
IMAGE_VIEWS = frozenset({"image_manual"})
BINARY_VIEWS = frozenset({"classification", "ner", "text", "image", "html", "pos", "dep", "diff"})
"""Views whose answer is accept/reject to one question (a ``*.teach`` recipe)."""


def timestamp(ts: Any) -> datetime | None:
    """``_timestamp`` (seconds since the epoch) as a UTC time; ``None`` when absent."""
    if ts is None:
        return None
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        raise ValueError(f"'_timestamp' must be seconds since 1970, got {ts!r}")
    try:
        return datetime.fromtimestamp(ts, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"'_timestamp' {ts!r} is not a valid time") from None
