"""Builders for small Label Studio exports in tests, and a reader of the disputed tasks."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.model import Dataset

WHEN = "2026-11-02T10:00:00Z"


def ls_annotation(
    user: Any,
    ann_id: int,
    when: str = WHEN,
    cancelled: bool = False,
    **fields: Any,
) -> dict[str, Any]:
    """A Label Studio export annotation; ``fields``: name → (result type, value dict), e.g.
    ``sentiment=("choices", {"choices": ["A"]})`` (a cancelled one has no result)."""
    result = [
        {"id": f"r{ann_id}{name}", "from_name": name, "to_name": "text", "type": kind, "value": val}
        for name, (kind, val) in fields.items()
    ]
    return annotation_of(user, [] if cancelled else result, ann_id, when, cancelled)


def annotation_of(
    user: Any,
    result: list[dict[str, Any]],
    ann_id: int | None = None,
    when: str = WHEN,
    cancelled: bool = False,
) -> dict[str, Any]:
    """A Label Studio export annotation holding ``result`` as given (its id: ``user`` × 100
    unless ``ann_id``)."""
    return {
        "id": user * 100 if ann_id is None else ann_id,
        "completed_by": user,
        "result": result,
        "was_cancelled": cancelled,
        "ground_truth": False,
        "created_at": when,
        "updated_at": when,
    }


def ls_task(tid: int, *annotations: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """A Label Studio export task with its ``data`` and ``annotations``."""
    return {"id": tid, "data": data, "annotations": list(annotations)}


def load_export(write_json: Callable[[Any], Path], tasks: list[dict[str, Any]]) -> Dataset:
    """The dataset of an export of ``tasks`` (``write_json``: the conftest fixture)."""
    return LabelStudioExport(write_json(tasks)).load()


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
