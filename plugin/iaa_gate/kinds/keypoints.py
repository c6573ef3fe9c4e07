"""Keypoints: Label Studio ``<KeyPointLabels>``/``<KeyPoint>``, matched by distance."""

from . import Kind, register

register(
    Kind(
        "keypointlabels",
        "region",
        shape="keypoint",
        comparison="regions",
        drawn=True,
        value_key="keypointlabels",
    ),
    Kind("keypoint", "region", shape="keypoint", comparison="regions", drawn=True, tool=True),
)
