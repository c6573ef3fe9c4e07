"""The ``source:`` section of a Prodigy ``db-out`` file."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from ...core.settings import SKIP_INVALID, SourceSettings


class ProdigySource(SourceSettings):
    """A ``prodigy db-out DATASET`` JSONL file."""

    type: Literal["prodigy"] = Field(description="a Prodigy dataset")
    path: Path = Field(
        description="the file of `prodigy db-out DATASET > round.jsonl`; relative to the "
        "config file"
    )
    skip_invalid: bool = Field(default=False, description=SKIP_INVALID)
    include_ground_truth: bool = Field(
        default=True, description="false: the gold annotator's answers are not ratings"
    )
    review: Path | None = Field(
        default=None,
        description="the output of `prodigy review` (db-out of the review dataset): each "
        "accepted example is the adjudicated answer of its task (needs adjudication:); its "
        "versions are not ratings",
    )

    def files(self) -> dict[str, Path]:
        files = {"path": self.path}
        if self.review is not None:
            files["review"] = self.review
        return files
