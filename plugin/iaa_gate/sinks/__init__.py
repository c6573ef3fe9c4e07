"""Write-back sinks: put the verdict where people adjudicate (Label Studio tasks, Prodigy review).

Each sink takes the per-field results and returns a summary of what it wrote, with a list of
``warnings`` (the CLI prints them); sinks print nothing.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..evaluate.results import FieldResult


class WriteBack(Protocol):
    """Writes disputed/agreed status somewhere; ``dry_run`` reports the plan and writes nothing."""

    def apply(
        self, results: dict[str, FieldResult], *, dry_run: bool = False
    ) -> dict[str, Any]: ...
