"""Character spans: Label Studio ``<Labels>`` on text, HyperText and Paragraphs, time-series
ranges, and Prodigy's span views (``spans``)."""

from . import Kind, register

register(
    Kind("labels", "region", shape="span", comparison="regions"),
    Kind("hypertextlabels", "region", shape="span", comparison="regions"),
    Kind("paragraphlabels", "region", shape="span", comparison="regions"),
    Kind("timeserieslabels", "region", shape="span", comparison="regions"),
    Kind("spans", "region", shape="span", comparison="regions"),
)
