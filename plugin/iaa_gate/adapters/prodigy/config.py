"""The ``source:`` section of a Prodigy ``db-out`` file."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from ...core.settings import SourceSettings


class ProdigySource(SourceSettings):
    """A ``prodigy db-out DATASET`` JSONL file."""

    type: Literal["prodigy"]
    path: Path
    skip_invalid: bool = False
    include_ground_truth: bool = Field(
        default=True, description="false: the gold annotator's answers are not ratings"
    )

    def files(self) -> dict[str, Path]:
        return {"path": self.path}
