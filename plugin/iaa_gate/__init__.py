"""iaa-gate: inter-annotator agreement as a quality gate for labeling rounds.

The public API (see ARCHITECTURE.md for the layers behind it):

- coefficients on long or wide data: :func:`alpha`, :func:`percent_agreement`,
  :func:`cohen_kappa`, :func:`scott_pi`, :func:`fleiss_kappa`, :func:`gwet_ac1`,
  :func:`gwet_ac2`, :func:`category_agreement`, and :func:`ratings` (the data as the
  ``(units, annotators)`` codes :mod:`iaa_gate.metrics` takes);
- each task's true label and each annotator's accuracy: :func:`dawid_skene`
  (a :class:`DawidSkeneResult`);
- the alternative annotator test of a model against the humans, on long data:
  :func:`alt_test`;
- a whole run: :func:`load_config`, :func:`evaluate`;
- the errors: :class:`IaaGateError` and its kinds, :class:`Reason` (their codes).

Long data is a DataFrame or records with columns ``task, annotator, value`` or crowd-kit's
``task, worker, label``, or ``(task, annotator, value)`` tuples; wide data is a 2-D array
with ``rows="units"`` or ``rows="annotators"``. Every parameter after the data is a keyword,
and a bad one raises :class:`UsageError` naming it and what it accepts.

>>> import iaa_gate
>>> iaa_gate.alpha([{"task": 1, "worker": "a", "label": "x"},
...                 {"task": 1, "worker": "b", "label": "x"},
...                 {"task": 2, "worker": "a", "label": "y"},
...                 {"task": 2, "worker": "b", "label": "y"}])
1.0

``import iaa_gate`` is cheap: numpy, pydantic and the rest load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .core.errors import (
    ConfigError,
    IaaGateError,
    InputError,
    OutputError,
    Problem,
    Reason,
    ServerError,
    UsageError,
)
from .core.version import __version__

if TYPE_CHECKING:
    from ._api import (
        DawidSkeneResult,
        alpha,
        alt_test,
        category_agreement,
        cohen_kappa,
        dawid_skene,
        evaluate,
        fleiss_kappa,
        gwet_ac1,
        gwet_ac2,
        load_config,
        percent_agreement,
        ratings,
        scott_pi,
    )

__all__ = [
    "ConfigError",
    "DawidSkeneResult",
    "IaaGateError",
    "InputError",
    "OutputError",
    "Problem",
    "Reason",
    "ServerError",
    "UsageError",
    "__version__",
    "alpha",
    "alt_test",
    "category_agreement",
    "cohen_kappa",
    "dawid_skene",
    "evaluate",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "load_config",
    "percent_agreement",
    "ratings",
    "scott_pi",
]
_LAZY = frozenset(__all__) - set(globals())
"""The API functions: loaded from :mod:`iaa_gate._api` on first use."""


def __getattr__(name: str) -> Any:
    """The API functions, imported from :mod:`iaa_gate._api` on first use."""
    if name in _LAZY:
        value = getattr(import_module(f"{__name__}._api"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY)
