"""Pairwise preferences (Label Studio ``<Pairwise>``): which of two items an annotator prefers,
``value.selected`` (``"left"`` or ``"right"``), read as a nominal answer per task, so agreement,
alpha and kappa are those of a two-category (three with an explicit tie) choice."""

from . import Kind, register

register(Kind("pairwise", "scalar"))
