"""Prodigy ``db-out`` JSONL: one line per annotator answer.

A unit is an ``_input_hash`` (for the binary ``classification`` view, the input and its label:
``"<input_hash>:<label>"``, since one text may be asked about several labels). An annotator is
``_annotator_id``, else ``_session_id``. The field is the ``_view_id``. ``ignore`` answers are not
ratings; in choice views a ``reject`` answer is the category ``"REJECT"``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InputError, unreadable
from ..model import Annotation, Dataset, FieldValue, SourceStats, TaskId, keep_latest

REJECT = "REJECT"


def unit_id(example: dict[str, Any]) -> TaskId:
    """The unit an example belongs to (see the module docstring)."""
    h = example["_input_hash"]
    label = example.get("label")
    if example.get("_view_id", "classification") == "classification" and isinstance(label, str):
        return f"{h}:{label}"
    return int(h) if isinstance(h, int) else str(h)


@dataclass
class ProdigyJSONL:
    """Source for a ``prodigy db-out`` file. ``skip_invalid``: count and skip malformed lines."""

    path: Path
    skip_invalid: bool = False

    def load(self) -> Dataset:
        stats = SourceStats()
        styles: dict[str, bool] = {}
        annotations: list[Annotation] = []
        tasks: dict[TaskId, None] = {}
        problems: list[str] = []
        try:
            with open(self.path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    if not annotations and not problems and line.lstrip().startswith("["):
                        raise InputError(
                            str(self.path),
                            [f"line {lineno}: this is a JSON list, not JSON Lines"],
                            hint="for a Label Studio export use `type: label-studio-export`; "
                            "for Prodigy run `prodigy db-out DATASET > file.jsonl`",
                        )
                    try:
                        ann = _example(line, stats, styles)
                    except ValueError as exc:
                        msg = f"line {lineno}: {exc}"
                        if not self.skip_invalid:
                            problems.append(msg)
                            if len(problems) >= 50:
                                break
                        else:
                            stats.invalid_skipped += 1
                            if len(stats.invalid_examples) < 10:
                                stats.invalid_examples.append(msg)
                        continue
                    if ann is not None:
                        tasks.setdefault(ann.task_id)
                        annotations.append(ann)
        except (OSError, UnicodeDecodeError) as exc:
            hint = "write the file again with `prodigy db-out`, which writes UTF-8"
            raise unreadable(str(self.path), exc, encoding_hint=hint) from None
        if problems:
            raise InputError(
                str(self.path),
                problems,
                hint="fix the file (one JSON object per line, as `prodigy db-out` writes), or pass "
                "--skip-invalid to skip and count malformed lines",
            )
        stats.tasks = len(tasks)
        kept, stats.superseded = keep_latest(annotations)
        return Dataset(str(self.path), kept, list(tasks), {}, stats, declared_multiple=styles)


def _example(line: str, stats: SourceStats, styles: dict[str, bool]) -> Annotation | None:
    """One answer; ``styles`` collects each choice view's ``config.choice_style`` (multiple or
    not), as the recipe declared it."""
    try:
        ex = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(ex, dict):
        raise ValueError("expected a JSON object")
    if not isinstance(ex.get("_input_hash"), (int, str)):
        raise ValueError("no '_input_hash': is this a `prodigy db-out` export?")
    annotator = ex.get("_annotator_id") or ex.get("_session_id")
    if not isinstance(annotator, str):
        raise ValueError("no '_annotator_id' or '_session_id': cannot tell who answered")
    answer = ex.get("answer")
    if answer not in ("accept", "reject", "ignore"):
        raise ValueError(f"'answer' must be accept, reject or ignore, got {answer!r}")
    stats.annotations += 1
    task = unit_id(ex)
    when = _when(ex.get("_timestamp"))
    if answer == "ignore":  # supersedes the annotator's earlier answers, like a skip
        stats.ignored += 1
        return Annotation(
            task, annotator, {}, when, when, annotation_id=ex.get("_task_hash"), skipped=True
        )
    view = str(ex.get("_view_id") or "classification")
    if "options" in ex or view == "choice":
        accept = ex.get("accept", [])
        if not isinstance(accept, list) or not all(
            isinstance(a, (str, int)) and not isinstance(a, bool) for a in accept
        ):
            raise ValueError(f"'accept' must be a list of option ids, got {accept!r}")
        recipe = ex.get("config")
        style = recipe.get("choice_style") if isinstance(recipe, dict) else None
        if style in ("single", "multiple"):
            styles[view] = styles.get(view, False) or style == "multiple"
        chosen = tuple(str(a) for a in accept) if answer == "accept" else (REJECT,)
        options = ex.get("options")
        if isinstance(options, list) and answer == "accept":
            ids = {str(o.get("id")) for o in options if isinstance(o, dict)}
            unknown = [a for a in chosen if a not in ids]
            if unknown:
                raise ValueError(f"accepted option {unknown[0]!r} is not among the options' ids")
        stats.empty += not chosen
        fields = {view: FieldValue("choices", chosen)}
    else:
        fields = {view: FieldValue("choices", (str(answer),))}
    return Annotation(task, annotator, fields, when, when, annotation_id=ex.get("_task_hash"))


def _when(ts: Any) -> datetime | None:
    """``_timestamp`` (seconds since the epoch) as a UTC time; ``None`` when absent."""
    if ts is None:
        return None
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        raise ValueError(f"'_timestamp' must be seconds since 1970, got {ts!r}")
    try:
        return datetime.fromtimestamp(ts, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"'_timestamp' {ts!r} is not a valid time") from None
