"""Numbers (Label Studio ``<Number>``): interval by default."""

from . import Kind, register

register(Kind("number", "scalar", default_level="interval"))
