"""Star ratings (Label Studio ``<Rating>``): ordered, so ordinal by default."""

from . import Kind, register

register(Kind("rating", "scalar", default_level="ordinal"))
