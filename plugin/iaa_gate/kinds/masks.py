"""Brush masks (Label Studio ``<BrushLabels>``/``<Brush>``): Label Studio's RLE code of the
mask image, decoded into runs of mask pixels and matched one to one by pixel IoU, like
polygons."""

from . import Kind, register

register(
    Kind("brushlabels", "region", shape="mask", comparison="regions", value_key="brushlabels"),
    Kind("brush", "region", shape="mask", comparison="regions", tool=True),
)
