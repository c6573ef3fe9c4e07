"""Boxes: Label Studio ``<RectangleLabels>``/``<Rectangle>`` (with rotation) and Prodigy's
``image_manual`` (``image``: boxes, or polygons when any shape is not a rectangle)."""

from . import Kind, register

register(
    Kind(
        "rectanglelabels",
        "region",
        shape="box",
        comparison="regions",
        drawn=True,
        value_key="rectanglelabels",
    ),
    Kind("rectangle", "region", shape="box", comparison="regions", drawn=True, tool=True),
    Kind("image", "region", shape="box", comparison="regions", own_view=True),
)
