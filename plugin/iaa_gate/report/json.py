"""``report.json``: the report document, keys sorted, for machines and diffs between rounds."""

from __future__ import annotations

import json
from typing import Any


class JsonWriter:
    filename = "report.json"

    def render(self, doc: dict[str, Any]) -> str:
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
