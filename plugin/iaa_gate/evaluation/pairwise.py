"""Pairwise preference fields (Label Studio ``<Pairwise>``): besides the agreement every
nominal field gets, each annotator's position bias, the share of their left/right choices
that pick the left item (an explicit tie, where the config has one, counts for neither)."""

from __future__ import annotations

import dataclasses

from ..metrics import Undefined
from ..model import Dataset
from .results import FieldResult


def with_position_bias(dataset: Dataset, name: str, result: FieldResult) -> FieldResult:
    """``result`` with each annotator's ``left_share`` (NaN with a reason when they never
    chose left or right)."""
    cols = dataset.columns()
    col = cols.fields[name]
    who = cols.array("annotator")[col.row_array()].tolist()
    picks: dict[str, list[int]] = {}
    for a, c in zip(who, col.code_array().tolist(), strict=True):
        value = col.values[c]
        side = value[0] if isinstance(value, tuple) and len(value) == 1 else None
        if side in ("left", "right"):
            counts = picks.setdefault(cols.annotators[a], [0, 0])
            counts[side == "right"] += 1
    annotators = []
    for a in result.annotators:
        left, right = picks.get(a.id, [0, 0])
        share = left / (left + right) if left + right else Undefined("never chose left or right")
        annotators.append(dataclasses.replace(a, left_share=share))
    return dataclasses.replace(result, annotators=annotators)


__all__ = ["with_position_bias"]
