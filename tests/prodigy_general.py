"""The general parser of Prodigy ``db-out`` lines as it stood before the typed reader became the
only one that decides values (issue 28 part 5): an independent reading the typed paths are
held to (``tests/test_fast_path.py``). Each line is ``json.loads``-ed and read as a dict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iaa_gate.adapters.prodigy.rules import (
    BINARY_VIEWS,
    IMAGE_VIEWS,
    REJECT,
    SPAN_VIEWS,
    note_choice_style,
    timestamp,
    unknown_option,
)
from iaa_gate.core.errors import InputError, Problem, Reason
from iaa_gate.model import Annotation, FieldValue, RegionSet, SourceStats, TaskId

MAX_PROBLEMS = 50


def unit_id(example: dict[str, Any]) -> TaskId:
    view = example.get("_view_id", "classification")
    input_hash, label, task_hash = (
        example["_input_hash"],
        example.get("label"),
        example.get("_task_hash"),
    )
    if view == "classification" and type(label) is str:
        return f"{input_hash}:{label}"
    if view in BINARY_VIEWS and (type(task_hash) is int or type(task_hash) is str):
        return f"{input_hash}:{task_hash}"
    return input_hash if type(input_hash) is int else str(input_hash)


def line(self: Any, line: str, lineno: int, path: Path) -> bool:
    """``_Part._line`` as it was: one line read by the general parser."""
    if not line.strip():
        return True
    if not len(self.cols) and not self.problems and line.lstrip().startswith("["):
        raise InputError(
            str(path),
            [f"line {lineno}: this is a JSON list, not JSON Lines"],
            hint="for a Label Studio export use `type: label-studio-export`; "
            "for Prodigy run `prodigy db-out DATASET > file.jsonl`",
        )
    try:
        ann = _example(line, self.stats, self.styles, self.texts)
    except ValueError as exc:
        problem = Problem(f"line {lineno}", None, Reason.INVALID_LINE, str(exc))
        if self.skip_invalid:
            self.stats.skip_invalid(problem)
            return True
        self.problems.append(problem)
        return len(self.problems) < MAX_PROBLEMS
    if ann is not None:
        self.cols.add(ann)
    return True


def _example(
    line: str, stats: SourceStats, styles: dict[str, bool], texts: dict[tuple[TaskId, str], str]
) -> Annotation | None:
    """One answer; ``styles`` collects each choice view's ``config.choice_style`` (multiple or
    not), as the recipe declared it; ``texts`` each span view's text, by (unit, view)."""
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
    when = timestamp(ex.get("_timestamp"))
    if answer == "ignore":  # supersedes the annotator's earlier answers, like a skip
        stats.ignored += 1
        return Annotation(
            task, annotator, {}, when, when, annotation_id=ex.get("_task_hash"), skipped=True
        )
    view = str(ex.get("_view_id") or "classification")
    fields: dict[str, FieldValue]
    if view in SPAN_VIEWS or view in IMAGE_VIEWS:
        if answer == "reject":  # the example is unusable: not a rating, like a skip
            stats.ignored += 1
            return Annotation(
                task, annotator, {}, when, when, annotation_id=ex.get("_task_hash"), skipped=True
            )
        fields = {view: _regions(ex, view in IMAGE_VIEWS)}
        if view in SPAN_VIEWS and isinstance(ex.get("text"), str):
            texts[task, view] = ex["text"]
    elif view not in BINARY_VIEWS and "options" not in ex and view != "choice":
        fields = {view: FieldValue(view, "")}  # listed as not evaluated
    elif "options" in ex or view == "choice":
        accept = ex.get("accept", [])
        if not isinstance(accept, list) or not all(
            isinstance(a, (str, int)) and not isinstance(a, bool) for a in accept
        ):
            raise ValueError(f"'accept' must be a list of option ids, got {accept!r}")
        recipe = ex.get("config")
        style = recipe.get("choice_style") if isinstance(recipe, dict) else None
        note_choice_style(styles, view, style)
        chosen = tuple(str(a) for a in accept) if answer == "accept" else (REJECT,)
        options = ex.get("options")
        if isinstance(options, list) and answer == "accept":
            ids = {str(o.get("id")) for o in options if isinstance(o, dict)}
            unknown = unknown_option(chosen, ids)
            if unknown is not None:
                raise ValueError(f"accepted option {unknown!r} is not among the options' ids")
        stats.empty += not chosen
        fields = {view: FieldValue("choices", chosen)}
    else:
        fields = {view: FieldValue("choices", (str(answer),))}
    return Annotation(task, annotator, fields, when, when, annotation_id=ex.get("_task_hash"))


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _regions(ex: dict[str, Any], image: bool) -> FieldValue:
    """The ``spans`` of a manual answer as a region set (character offsets, or image shapes
    in pixels)."""
    spans = ex.get("spans", [])
    if not isinstance(spans, list):
        raise ValueError("'spans' must be a list")
    rs = RegionSet("box" if image else "span")
    for i, span in enumerate(spans):
        if not isinstance(span, dict):
            raise ValueError(f"span #{i + 1} is not an object")
        label = span.get("label", "")
        if not isinstance(label, str):
            raise ValueError(f"span #{i + 1}: 'label' must be a string")
        rs.ids.append(str(span.get("id", i)))
        rs.labels.append(label)
        if image:
            _shape(rs, span, i)
            continue
        start, end = span.get("start"), span.get("end")
        if not (_num(start) and _num(end)):  # since issue 28: true/false is no offset
            raise ValueError(f"span #{i + 1} ({label or 'no label'}): no 'start'/'end' offsets")
        if end < start:
            raise ValueError(f"span #{i + 1}: 'end' {end} is before 'start' {start}")
        rs.coords += [float(start), float(end)]
    if image and rs.shape == "polygon":
        rs.coords = [c for i in range(len(rs)) for c in _bbox(rs.points[i])]
    return FieldValue("image" if image else "spans", "", rs)


def _shape(rs: RegionSet, span: dict[str, Any], i: int) -> None:
    pts = span.get("points")
    if (
        not isinstance(pts, list)
        or len(pts) < 3
        or not all(isinstance(p, list) and len(p) == 2 and _num(p[0]) and _num(p[1]) for p in pts)
    ):
        raise ValueError(f"shape #{i + 1}: 'points' must be a list of 3 or more [x, y] pairs")
    rs.points.append([(float(x), float(y)) for x, y in pts])
    if span.get("type", "rect") == "rect" and all(
        _num(span.get(k)) for k in ("x", "y", "width", "height")
    ):
        rs.coords += [float(span[k]) for k in ("x", "y", "width", "height")] + [0.0]
    else:
        rs.shape = "polygon"


def _bbox(points: list[tuple[float, float]]) -> list[float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
