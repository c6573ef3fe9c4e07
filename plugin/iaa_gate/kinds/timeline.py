"""Timeline labels (Label Studio ``<TimelineLabels>`` on a video): ranges of frames, read as
spans ``[start, end + 1)`` of frames and matched as spans are (no text: no character-level
alpha). One result holds several ranges (``value.ranges``)."""

from . import Kind, register

register(
    Kind(
        "timelinelabels",
        "region",
        shape="span",
        comparison="regions",
        value_key="timelinelabels",
        ranges=True,
    )
)
