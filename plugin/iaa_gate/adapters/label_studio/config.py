"""The ``source:`` sections of Label Studio: an export file, or a live project through the API."""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, SecretStr, field_validator

from ...core.settings import SKIP_INVALID, SourceSettings

APP_PAGES = frozenset({"projects", "tasks", "user", "organization", "api", "dm"})
"""First path segments of the Label Studio app's pages (and its API) below the base URL."""


def base_url(url: str) -> str | None:
    """The base URL of ``url`` when it is a page of the Label Studio app, as a browser's address
    bar shows it (``http://localhost:8080/projects/1/data?tab=2`` → ``http://localhost:8080``);
    None when it looks like a base URL. A path before the page (a server behind a prefix) is
    kept.

    Examples
    --------
    >>> base_url("http://localhost:8080/projects/1/data?tab=2")
    'http://localhost:8080'
    >>> base_url("https://example.org/label/user/account")
    'https://example.org/label'
    >>> base_url("http://localhost:8080/") is None
    True
    """
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    for i, segment in enumerate(segments):
        if segment in APP_PAGES:
            prefix = "".join(f"/{s}" for s in segments[:i])
            return urlunsplit((parts.scheme, parts.netloc, prefix, "", ""))
    return None


def check_base_url(url: str) -> str:
    """``url``, or a :class:`ValueError` naming the base URL when it is a page of the app."""
    base = base_url(url)
    if base is not None:
        raise ValueError(f"{url} is a page of the Label Studio app, not its base URL: use {base}")
    return url


class ExportSource(SourceSettings):
    """A Label Studio JSON export (Export → JSON)."""

    type: Literal["label-studio-export"] = Field(description="a Label Studio JSON export")
    path: Path = Field(
        description="the export file (Export → JSON, not JSON-MIN or CSV); relative to the "
        "config file"
    )
    label_config: Path | None = Field(
        default=None,
        description="the project's labeling config (XML): which fields are multi-select",
    )
    skip_invalid: bool = Field(default=False, description=SKIP_INVALID)
    include_ground_truth: bool = Field(
        default=True,
        description="false: ground-truth annotations are only the reference, not ratings",
    )

    def files(self) -> dict[str, Path]:
        files = {"path": self.path}
        if self.label_config is not None:
            files["label_config"] = self.label_config
        return files


class LabelStudioSource(SourceSettings):
    """A live Label Studio project, read through the API (needs ``iaa-gate[label-studio]``)."""

    type: Literal["label-studio"] = Field(description="a live Label Studio project")
    url: str = Field(
        description="the Label Studio base URL, e.g. http://localhost:8080 (not a page of the "
        "app such as …/projects/1/data)"
    )
    project: int | str = Field(description="project id or title")
    api_key: SecretStr = Field(description="legacy token or personal access token: use ${VAR}")
    view: int | None = Field(default=None, description="Data Manager view (tab) id")
    include_ground_truth: bool = Field(
        default=True,
        description="false: ground-truth annotations are only the reference, not ratings",
    )
    skip_invalid: bool = Field(default=False, description=SKIP_INVALID)
    timeout: float | None = Field(
        default=3600,
        gt=0,
        description="seconds all requests to Label Studio may take together (pull and "
        "write-back); then the run stops. null: no limit",
    )
    request_timeout: float = Field(
        default=60, gt=0, description="seconds one request may wait for the server"
    )
    retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="further attempts of a request after a dropped connection, a timeout, "
        "408, 429 or 5xx, with exponential backoff (0.5 s, 1 s, 2 s, …)",
    )

    @field_validator("url")
    @classmethod
    def _base_url(cls, v: str) -> str:
        return check_base_url(v)
