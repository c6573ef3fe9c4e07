"""Paths in a taxonomy (Label Studio ``<Taxonomy>``); ``distance: hierarchical`` scores by shared
path depth."""

from . import Kind, register

register(Kind("taxonomy", "scalar", distances=frozenset({"hierarchical"}), comparison="named"))
