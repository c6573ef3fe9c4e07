"""The base of every config model: strict (unknown keys are errors) and frozen."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

SKIP_INVALID = (
    "count and skip the tasks (or lines) that cannot be read, each listed in the report, "
    "instead of stopping the run (also --skip-invalid)"
)


class Strict(BaseModel):
    """A config section: unknown keys are errors, values cannot change after validation.

    Built on first use (``defer_build``): validating a config builds its models' validators
    in one go, and a model no config of this run holds is never built (bench/README.md
    "2026-11-26").
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class SourceSettings(Strict):
    """What every ``source:`` section has besides its own keys. ``type`` names the adapter."""

    type: str
    skip_invalid: bool = Field(default=False, description=SKIP_INVALID)
    include_ground_truth: bool = Field(
        default=True,
        description="false: ground-truth answers (ground_truth) are only the reference, not "
        "ratings",
    )

    def files(self) -> dict[str, Path]:
        """The input files this source reads, by config key (``path``, ``label_config``…);
        relative ones are joined to the config file's directory. None for a server."""
        return {}
