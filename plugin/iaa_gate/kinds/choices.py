"""Single- or multi-select labels (Label Studio ``<Choices>``, Prodigy choice views)."""

from . import Kind, register

register(Kind("choices", "scalar"))
