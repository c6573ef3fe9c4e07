"""Exports in Label Studio's own result shapes for any labeling config (the template sweep).

:func:`export` writes, for every control tag of a labeling config, one result per task and
annotator in the shape Label Studio stores for that control type (``value`` keys as the
editor writes them: ``htmllabels`` for HyperText, a ``labels`` result beside each
``rectangle``/``polygon`` of an OCR image, per-region results sharing their region's ``id``,
per-message results sharing a ``chatmessage`` result's ``id``…). The annotators given
agree: every task gets the same answers from each, varied across tasks so a coefficient has
variation to measure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from iaa_gate.adapters.label_studio.label_config import Control, parse_label_config

TEXT = "Alice Smith met Bob Jones in Paris on Monday to sign the contract."
TEMPLATE_DIR = Path("label_studio") / "annotation_templates"


def templates(site_packages: Path) -> dict[str, str]:
    """Every template shipped with the installed Label Studio: ``group/name`` → its XML."""
    root = site_packages / TEMPLATE_DIR
    out = {}
    for path in sorted(root.rglob("config.yml")):
        body = yaml.safe_load(path.read_text(encoding="utf-8"))
        out[str(path.parent.relative_to(root))] = str(body["config"])
    return out


def _label(c: Control, i: int) -> str:
    labels = c.labels or ("A", "B", "C")
    return labels[i % len(labels)]


def _region(c: Control, kind: str, i: int, rid: str, answer: int) -> list[dict[str, Any]]:
    """The result items of one region of control ``c`` in task ``i`` (``kind``: the tool's
    result type), labelled with answer number ``answer``."""
    label = _label(c, answer)
    base = {"id": rid, "from_name": c.name, "to_name": c.to_name, "type": kind}
    box = {"x": 10.0 + i, "y": 20.0, "width": 30.0, "height": 15.0, "rotation": 0}
    size = {"original_width": 800, "original_height": 600, "image_rotation": 0}
    points = [[10.0 + i, 10.0], [40.0, 12.0], [35.0, 40.0]]
    start, end = 6 * i, 6 * i + 5
    span = {"start": start, "end": end, "text": TEXT[start:end]}
    if kind in ("labels", "hypertextlabels", "paragraphlabels") and c.kind == kind:
        if kind == "hypertextlabels":  # what Label Studio writes (its docs say hypertextlabels)
            value: dict[str, Any] = {
                "start": "/p[1]/text()[1]",
                "end": "/p[1]/text()[1]",
                "startOffset": start,
                "endOffset": end,
                "globalOffsets": {"start": start, "end": end},
                "text": TEXT[start:end],
                "htmllabels": [label],
            }
        elif kind == "paragraphlabels":
            value = {
                "start": "0",
                "end": "0",
                "startOffset": start,
                "endOffset": end,
                "globalOffsets": {"start": start, "end": end},
                "text": TEXT[start:end],
                "paragraphlabels": [label],
            }
        elif c.note.startswith("<Labels> (seconds)"):
            value = {"start": 1.5 * i, "end": 1.5 * i + 1.25, "channel": 0, "labels": [label]}
        else:
            value = {**span, "labels": [label]}
        return [{**base, "value": value}]
    shapes: dict[str, dict[str, Any]] = {
        "rectanglelabels": {**box, "rectanglelabels": [label]},
        "rectangle": box,
        "polygonlabels": {"points": points, "polygonlabels": [label]},
        "polygon": {"points": points},
        "keypointlabels": {"x": 10.0 + 5 * i, "y": 20.0, "width": 0.5, "keypointlabels": [label]},
        "keypoint": {"x": 10.0 + 5 * i, "y": 20.0, "width": 0.5},
        "ellipselabels": {
            "x": 30.0,
            "y": 30.0,
            "radiusX": 5,
            "radiusY": 4,
            "rotation": 0,
            "ellipselabels": [label],
        },
        "brushlabels": {"format": "rle", "rle": brush_rle(i), "brushlabels": [label]},
        "timeserieslabels": {
            "start": 10 * i,
            "end": 10 * i + 5,
            "instant": False,
            "timeserieslabels": [label],
        },
        "timelinelabels": {
            "ranges": [{"start": 10 * i + 1, "end": 10 * i + 8}],
            "timelinelabels": [label],
        },
        "videorectangle": {
            "framesCount": 100,
            "duration": 4.0,
            "labels": [label],
            "sequence": [
                {"frame": 1, "enabled": True, "rotation": 0, "time": 0.04, **box},
                {"frame": 20, "enabled": False, "rotation": 0, "time": 0.8, **box},
            ],
        },
        "ocrlabels": {
            "x": 10.0,
            "y": 10.0,
            "width": 5.0,
            "height": 2.0,
            "rotation": 0,
            "pageIndex": 0,
            "ocrlabels": [label],
        },
    }
    value = shapes.get(kind)
    if value is None:
        raise AssertionError(f"no Label Studio result shape for {kind} regions")
    extra = size if kind not in ("timeserieslabels", "timelinelabels", "videorectangle") else {}
    if kind == "brushlabels":
        extra = {"original_width": BRUSH_SIZE[0], "original_height": BRUSH_SIZE[1]}
    return [{**base, **extra, "value": value}]


BRUSH_SIZE = (40, 30)
"""The image size of generated brush masks (Label Studio's encoder is slow on large ones)."""


def brush_rle(i: int) -> list[int]:
    """A rectangle mask on a :data:`BRUSH_SIZE` image, where task ``i`` puts it, in Label
    Studio's RLE (its SDK's encoder)."""
    import numpy as np
    from label_studio_sdk.converter.brush import encode_rle

    width, height = BRUSH_SIZE
    mask = np.zeros((height, width), dtype=np.uint8)
    mask[5 + i : 15 + i, 8 : 20 + i] = 255
    return [int(b) for b in encode_rle(np.repeat(mask.ravel(), 4))]


def _scalar(c: Control, i: int) -> dict[str, Any] | None:
    """The ``value`` of a one-answer control in task ``i`` (None: the control type writes
    no task-level answer)."""
    if c.kind == "choices":
        return {"choices": [_label(c, i)]}
    if c.kind == "taxonomy":
        return {"taxonomy": [_label(c, i).split(" / ")]}
    if c.kind == "rating":
        return {"rating": 1 + i % 5}
    if c.kind == "number":
        return {"number": 2 + i}
    if c.kind == "textarea":
        return {"text": [f"answer {i}"]}
    if c.kind == "pairwise":
        return {"selected": ("left", "right")[i % 2]}
    if c.kind == "datetime":
        return {"datetime": f"2024-01-0{i + 1}"}
    if c.kind == "ranker":
        return {"ranker": {c.name: ["a", "b", "c"] if i % 2 else ["c", "a", "b"]}}
    return None


def _per_region(c: Control) -> bool:
    return c.note.endswith("per-region control") or "." in c.name


def _per_message(c: Control) -> bool:
    return "on each chat message" in c.note


def annotation_result(controls: list[Control], i: int, answer: int) -> list[dict[str, Any]]:
    """One annotator's result list for task ``i``: regions where task ``i`` puts them, every
    label, choice, rating or text the ``answer``-th one (``answer == i`` for every annotator
    who agrees)."""
    out: list[dict[str, Any]] = []
    regions: dict[str, dict[str, Any]] = {}  # control → the shape item of its region
    scored_with = {t: c for c in controls for t in c.scored_with}
    tooled = {o.to_name for o in controls if o.kind in ("rectangle", "polygon", "videorectangle")}
    for c in controls:
        if _per_region(c) or _per_message(c) or (c.kind == "labels" and c.to_name in tooled):
            continue  # attached to a region or message below, or inside the tool's result
        if c.kind == "chat":
            out.append(_message(c, i))
            continue
        value = _scalar(c, answer)
        if value is not None:
            out.append(
                {
                    "id": f"{c.name}-{i}",
                    "from_name": c.name,
                    "to_name": c.to_name,
                    "type": c.kind,
                    "value": value,
                }
            )
            continue
        items = _region(c, c.kind, i, f"{c.name}-r{i}", answer)
        if c.name in scored_with:  # the <Labels> naming this tool's regions
            lab = scored_with[c.name]
            labelled = {**items[0]["value"], "labels": [_label(lab, answer)]}
            items.append({**items[0], "from_name": lab.name, "type": "labels", "value": labelled})
        regions[c.name] = items[0]
        out += items
    messages = [r for r in out if r["type"] == "chatmessage"]
    for c in controls:
        if _per_message(c) and messages:
            out.append(
                {
                    "id": messages[0]["id"],
                    "from_name": c.name,
                    "to_name": c.to_name,
                    "type": c.kind,
                    "value": _scalar(c, answer) or {},
                }
            )
        elif _per_region(c):
            owner, _, attr = c.name.rpartition(".")
            owners = (
                [regions[owner]]
                if owner in regions
                else [r for r in regions.values() if r["to_name"] == c.to_name]
            )
            for shape in owners[:1]:
                value = {k: v for k, v in shape["value"].items() if not k.endswith("labels")}
                out.append(
                    {
                        **shape,
                        "from_name": attr or c.name,
                        "type": c.kind,
                        "value": {**value, **(_scalar(c, answer) or {})},
                    }
                )
    return out


def _message(c: Control, i: int) -> dict[str, Any]:
    return {
        "id": f"msg-{i}",
        "from_name": c.name,
        "to_name": c.to_name,
        "type": "chatmessage",
        "value": {"chatmessage": {"role": "user", "content": f"hello {i}"}},
    }


def export(
    xml: str, annotators: int = 3, tasks: int = 3, disagree: frozenset[int] = frozenset()
) -> list[dict[str, Any]]:
    """A Label Studio JSON export of ``tasks`` tasks for the labeling config ``xml``, each
    annotated alike by ``annotators`` annotators, except that on the tasks numbered in
    ``disagree`` (from 0) the last annotator gives the next task's answers in the same
    places."""
    controls = parse_label_config(xml)
    if any(c.kind == "chat" for c in controls) is False and any(_per_message(c) for c in controls):
        controls = [
            *controls,
            Control(
                "chat",
                "chat",
                None,
                False,
                None,
                False,
                "<Chat>",
                next(c.to_name for c in controls if _per_message(c)),
            ),
        ]
    out = []
    for i in range(tasks):
        anns = [
            {
                "id": 100 * i + a,
                "completed_by": a + 1,
                "result": annotation_result(
                    controls, i, i + 1 if a == annotators - 1 and i in disagree else i
                ),
                "was_cancelled": False,
                "ground_truth": False,
                "created_at": "2024-05-01T10:00:00Z",
                "updated_at": "2024-05-01T10:00:00Z",
            }
            for a in range(annotators)
        ]
        out.append({"id": i + 1, "data": _data(xml), "annotations": anns})
    return out


def _data(xml: str) -> dict[str, Any]:
    """Task data: every ``$key`` of the config, as a text (the spans index into it)."""
    import re

    return {key: TEXT for key in re.findall(r'value="\$(\w+)"', xml)}
