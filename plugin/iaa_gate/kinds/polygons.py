"""Polygons: Label Studio ``<PolygonLabels>``/``<Polygon>``, compared by area IoU."""

from . import Kind, register

register(
    Kind(
        "polygonlabels",
        "region",
        shape="polygon",
        comparison="regions",
        drawn=True,
        value_key="polygonlabels",
    ),
    Kind("polygon", "region", shape="polygon", comparison="regions", drawn=True, tool=True),
)
