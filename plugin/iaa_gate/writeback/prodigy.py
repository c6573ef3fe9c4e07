"""``disputed.jsonl`` for Prodigy: every answer to a disputed example, ready for
``prodigy db-in <set> disputed.jsonl`` then ``prodigy review <out> <set>``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..analysis import FieldResult
from ..files import write_atomic
from ..model import TaskId
from ..sources.prodigy import unit_id


@dataclass
class ProdigyReviewFile:
    """Reads the source ``db-out`` file again and keeps the lines of disputed units."""

    source: Path
    out: Path

    def apply(self, results: dict[str, FieldResult], *, dry_run: bool = False) -> dict[str, Any]:
        disputed: dict[TaskId, dict[str, Any]] = {}
        for name, result in results.items():
            for u in result.disputed:
                disputed.setdefault(u.id, {})[name] = {"score": u.score, "labels": u.labels}
        lines = []
        with open(self.source, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    ex = json.loads(line)
                    task = unit_id(ex)
                except (ValueError, KeyError, TypeError):
                    continue  # malformed lines were reported (or skipped) by the source
                if task in disputed:
                    meta = ex.get("meta")  # a dict; anything else is kept aside
                    meta = dict(meta) if isinstance(meta, dict) else {"original": meta}
                    meta["iaa"] = {"status": "disputed", "fields": disputed[task]}
                    ex["meta"] = meta
                    lines.append(json.dumps(ex, ensure_ascii=False, sort_keys=False))
        if not dry_run:
            write_atomic(self.out, "".join(line + "\n" for line in lines))
        return {
            "target": str(self.out),
            "disputed_examples": len(disputed),
            "lines": len(lines),
            "dry_run": dry_run,
            "warnings": [],
        }
