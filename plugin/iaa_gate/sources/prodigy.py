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

from ..errors import InputError
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
        annotations: list[Annotation] = []
        tasks: dict[TaskId, None] = {}
        problems: list[str] = []
        try:
            with open(self.path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        ann = _example(line, stats)
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
        except FileNotFoundError:
            raise InputError(
                str(self.path), ["file not found"], hint="check source.path or pass --source PATH"
            ) from None
        except UnicodeDecodeError as exc:
            raise InputError(str(self.path), [f"not UTF-8 text ({exc.reason})"]) from None
        if problems:
            raise InputError(
                str(self.path),
                problems,
                hint="fix the file (one JSON object per line, as `prodigy db-out` writes), or pass "
                "--skip-invalid to skip and count malformed lines",
            )
        stats.tasks = len(tasks)
        kept, stats.superseded = keep_latest(annotations)
        return Dataset(str(self.path), kept, list(tasks), {}, stats)


def _example(line: str, stats: SourceStats) -> Annotation | None:
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
    if answer == "ignore":
        stats.ignored += 1
        return None
    view = str(ex.get("_view_id") or "classification")
    if "options" in ex or view == "choice":
        accept = ex.get("accept", [])
        if not isinstance(accept, list):
            raise ValueError("'accept' must be a list of option ids")
        chosen = tuple(str(a) for a in accept) if answer == "accept" else (REJECT,)
        fields = {view: FieldValue("choices", chosen)} if chosen else {}
    else:
        fields = {view: FieldValue("choices", (str(answer),))}
    ts = ex.get("_timestamp")
    when = datetime.fromtimestamp(ts, tz=timezone.utc) if isinstance(ts, (int, float)) else None
    return Annotation(task, annotator, fields, when, when, annotation_id=ex.get("_task_hash"))
