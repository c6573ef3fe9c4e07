"""``report.json``: the report document, keys sorted, for machines and diffs between rounds;
and ``disputed-tasks.jsonl`` beside it: every disputed task, one line per (field, task)."""

from __future__ import annotations

import json
from typing import Any

from .document import DISPUTED_FILE, Disputed


class JsonWriter:
    filename = "report.json"

    def render(self, doc: dict[str, Any], disputed: Disputed | None = None) -> str:
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


class DisputedTasksWriter:
    """One line per disputed task, ``{field, id, score, labels[, details]}``, by field name then
    task id; keys sorted. It needs ``disputed``: the document holds only the lowest scores."""

    filename = DISPUTED_FILE

    def render(self, doc: dict[str, Any], disputed: Disputed | None = None) -> str:
        if disputed is None:
            raise ValueError(f"{DISPUTED_FILE} needs every disputed task, not the document alone")
        return "".join(
            json.dumps({"field": name} | task, sort_keys=True, ensure_ascii=False, allow_nan=False)
            + "\n"
            for name in sorted(disputed)
            for task in disputed[name]
        )
