"""Builders and helpers shared by the live Label Studio tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from iaa_gate.cli import main

REVIEW_CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single">
    <Choice value="Positive"/><Choice value="Negative"/><Choice value="Neutral"/>
  </Choices>
  <Choices name="topics" toName="text" choice="multiple">
    <Choice value="Price"/><Choice value="Quality"/><Choice value="Shipping"/>
  </Choices>
  <Rating name="stars" toName="text" maxRating="5"/>
  <TextArea name="notes" toName="text"/>
</View>"""


def result(
    sentiment: str | None = None,
    topics: list[str] | None = None,
    stars: int | None = None,
    notes: str | None = None,
) -> list[dict[str, Any]]:
    """An annotation ``result`` for :data:`REVIEW_CONFIG`."""
    out = []
    values: list[tuple[str, str, dict[str, Any]]] = []
    if sentiment is not None:
        values.append(("sentiment", "choices", {"choices": [sentiment]}))
    if topics is not None:
        values.append(("topics", "choices", {"choices": topics}))
    if stars is not None:
        values.append(("stars", "rating", {"rating": stars}))
    if notes is not None:
        values.append(("notes", "textarea", {"text": [notes]}))
    for name, kind, value in values:
        out.append({"from_name": name, "to_name": "text", "type": kind, "value": value})
    return out


def writes(log: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The requests of ``log`` that change something on the server."""
    return [(m, p) for m, p in log if m not in ("GET", "HEAD", "OPTIONS")]


def live_config(
    path: Path, url: str, project: int | str, fields: dict[str, Any], **sections: Any
) -> Path:
    """Write a config reading ``project`` live (api_key from $LABEL_STUDIO_API_KEY)."""
    source = {
        "type": "label-studio",
        "url": url,
        "project": project,
        "api_key": "${LABEL_STUDIO_API_KEY}",
    }
    source.update(sections.pop("source", {}))
    cfg = {"version": 1, "source": source, "fields": fields, **sections}
    cfg.setdefault("report", {"dir": str(path.parent / "report"), "formats": ["json"]})
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def run_cli(*args: str) -> int:
    """``iaa-gate ARGS`` in process; returns the exit code."""
    return main(list(args))


def report(out_dir: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    return doc
