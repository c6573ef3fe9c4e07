"""Character spans: Label Studio ``<Labels>`` on text, HyperText and Paragraphs, time-series
ranges, and Prodigy's span views (``spans``)."""

from . import Kind, register

register(
    # a <Labels> result without span bounds labels a region drawn with another tool
    Kind(
        "labels",
        "region",
        shape="span",
        comparison="regions",
        drawn=True,
        labels_of_tools=True,
        value_key="labels",
    ),
    Kind(
        "hypertextlabels", "region", shape="span", comparison="regions", value_key="hypertextlabels"
    ),
    Kind(
        "paragraphlabels", "region", shape="span", comparison="regions", value_key="paragraphlabels"
    ),
    Kind(
        "timeserieslabels",
        "region",
        shape="span",
        comparison="regions",
        timestamps=True,
        value_key="timeserieslabels",
    ),
    Kind("spans", "region", shape="span", comparison="regions", own_view=True),
)
