"""Builders for small Label Studio exports in tests."""

from __future__ import annotations

from typing import Any


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
