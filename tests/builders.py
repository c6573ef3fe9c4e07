"""Builders for small Label Studio exports in tests, and a reader of the disputed tasks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iaa_gate.model import Dataset


def ls_annotation(
    user: Any,
    ann_id: int,
    when: str = "2026-11-02T10:00:00Z",
    cancelled: bool = False,
    **fields: Any,
) -> dict[str, Any]:
    """A Label Studio export annotation; ``fields``: name → value dict, e.g. choices=["A"]."""
    result = []
    for name, value in fields.items():
        kind, val = value
        result.append(
            {
                "id": f"r{ann_id}{name}",
                "from_name": name,
                "to_name": "text",
                "type": kind,
                "value": val,
            }
        )
    return {
        "id": ann_id,
        "completed_by": user,
        "result": [] if cancelled else result,
        "was_cancelled": cancelled,
        "ground_truth": False,
        "created_at": when,
        "updated_at": when,
    }


def read_disputed(out_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Every disputed task of a run, by field, from ``disputed-tasks.jsonl`` in ``out_dir``."""
    by_field: dict[str, list[dict[str, Any]]] = {}
    for line in (out_dir / "disputed-tasks.jsonl").read_text(encoding="utf-8").splitlines():
        task = json.loads(line)
        by_field.setdefault(task.pop("field"), []).append(task)
    return by_field


def assert_same_dataset(a: Dataset | str, b: Dataset | str, values: bool = False) -> None:
    """``a`` and ``b`` (datasets, or the messages of errors) are the same as readers give them;
    ``values``: and each field's values in the same order."""
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert list(a.annotations) == list(b.annotations)
    assert a.task_ids == b.task_ids
    assert a.annotator_names == b.annotator_names
    assert a.stats == b.stats
    assert a.texts == b.texts
    assert a.field_kinds() == b.field_kinds()
    assert (a.predictions, a.started_from) == (b.predictions, b.started_from)
    assert a.prediction_ids_only == b.prediction_ids_only
    assert list(a.columns().fields) == list(b.columns().fields)  # in order of first answer
    if values:  # and each field's values in order of first use (a repeated id leaves more)
        assert [c.values for c in a.columns().fields.values()] == [
            c.values for c in b.columns().fields.values()
        ]
