"""Reading spans, shapes, relations and per-region attributes (Label Studio and Prodigy)."""

from __future__ import annotations

import json
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from builders import annotation_of as ann
from builders import load_export as load
from builders import ls_task
from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.adapters.prodigy.source import ProdigyJSONL
from iaa_gate.config import parse_config
from iaa_gate.core.errors import InputError
from iaa_gate.evaluation.matrix import region_table
from iaa_gate.evaluation.region_columns import Matched, match

TEXT = "Ada Lovelace met Charles Babbage in London."
task = partial(ls_task, data={"text": TEXT})


def matched_ner(tasks: list[dict[str, Any]]) -> Matched:
    """The ``ner`` field of a Label Studio export of ``tasks``, read and matched."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "export.json"
        path.write_text(json.dumps(tasks))
        dataset = LabelStudioExport(path).load()
    cfg = parse_config(
        {"source": {"type": "label-studio-export", "path": "x"}, "fields": {"ner": {}}}
    )
    return match(dataset, "ner", cfg.fields["ner"])


def span(rid: str, start: int, end: int, label: str, name: str = "ner") -> dict[str, Any]:
    return {
        "id": rid,
        "from_name": name,
        "to_name": "text",
        "type": "labels",
        "value": {"start": start, "end": end, "text": TEXT[start:end], "labels": [label]},
    }


def certainty(rid: str, value: str) -> dict[str, Any]:
    """A per-region Choices result: it shares the region's id (and repeats its offsets)."""
    return {
        "id": rid,
        "from_name": "certainty",
        "to_name": "text",
        "type": "choices",
        "value": {"start": 0, "end": 3, "choices": [value]},
    }


def relation(a: str, b: str, label: str) -> dict[str, Any]:
    return {"type": "relation", "from_id": a, "to_id": b, "direction": "right", "labels": [label]}


def test_spans_relations_and_per_region_attribute(write_json: Any) -> None:
    ds = load(
        write_json,
        [
            task(
                1,
                ann(
                    1,
                    [
                        certainty("a", "sure"),  # before its region: order does not matter
                        span("a", 0, 12, "PER"),
                        span("b", 17, 32, "PER"),
                        span("c", 36, 42, "LOC"),
                        relation("a", "b", "met"),
                    ],
                ),
                ann(2, []),  # nothing here: a rating
                ann(3, [span("x", 0, 3, "PER")], cancelled=True),  # a skip: missing
            )
        ],
    )
    # the per-region choice is a sub-field, never the task-level field "certainty"
    assert ds.field_kinds() == {"ner": "labels", "ner.certainty": "choices"}
    t = region_table(ds, "ner")
    assert t.shape == "span" and t.annotators == ["1", "2"]
    assert t.rated.tolist() == [[True, True]]
    assert t.geometry.tolist() == [[0, 12], [17, 32], [36, 42]]
    assert [t.labels[c] for c in t.label] == ["PER", "PER", "LOC"]
    assert t.region_ids == ["a", "b", "c"]
    assert (t.rel_from.tolist(), t.rel_to.tolist(), t.rel_labels) == ([0], [1], ("met",))
    kind, rows, values = t.attributes["certainty"]
    assert kind == "choices" and rows.tolist() == [0] and values == [("sure",)]
    assert t.texts == [TEXT]


def test_nested_and_overlapping_regions_of_one_annotator_are_kept(write_json: Any) -> None:
    result = [span("a", 0, 12, "name"), span("b", 0, 3, "name.first"), span("c", 0, 12, "name")]
    t = region_table(load(write_json, [task(1, ann(1, result))]), "ner")
    assert t.n == 3 and t.geometry.tolist() == [[0, 12], [0, 3], [0, 12]]


def test_text_found_by_offsets_when_to_name_is_not_a_data_key(write_json: Any) -> None:
    result = [span("a", 0, 12, "PER")]
    result[0]["to_name"] = "doc"
    tasks = [task(1, ann(1, result), data={"title": "x", "body": TEXT})]
    assert region_table(load(write_json, tasks), "ner").texts == [TEXT]
    tasks = [task(1, ann(1, result), data={"a": TEXT, "b": TEXT + "!"})]
    assert region_table(load(write_json, tasks), "ner").texts == [None]  # ambiguous: not guessed


def test_boxes_polygons_and_keypoints(write_json: Any) -> None:
    box = {"x": 10, "y": 20, "width": 30, "height": 40, "rotation": 15, "rectanglelabels": ["Car"]}
    poly = {"points": [[0, 0], [10, 0], [10, 5]], "polygonlabels": ["Road"]}
    kp = {"x": 1.5, "y": 2.5, "width": 0.5, "keypointlabels": ["Eye"]}
    result = [
        {"id": "r", "from_name": "box", "to_name": "img", "type": "rectanglelabels", "value": box},
        {"id": "p", "from_name": "poly", "to_name": "img", "type": "polygonlabels", "value": poly},
        {"id": "k", "from_name": "kp", "to_name": "img", "type": "keypointlabels", "value": kp},
    ]
    ds = load(write_json, [task(1, ann(1, result), data={"image": "a.png"})])
    assert region_table(ds, "box").geometry.tolist() == [[10, 20, 30, 40, 15]]
    p = region_table(ds, "poly")
    assert p.shape == "polygon" and p.geometry.tolist() == [[0, 0, 10, 5]]
    assert p.points is not None and p.points[0].tolist() == [[0, 0], [10, 0], [10, 5]]
    assert region_table(ds, "kp").geometry.tolist() == [[1.5, 2.5]]


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (
            [{"id": "a", "from_name": "ner", "type": "labels", "value": {"end": 3, "labels": []}}],
            "task 1, annotation 100, field 'ner', region 'a': 'start' must be a number",
        ),
        (
            [span("a", 0, 3, "PER"), relation("a", "zz", "met")],
            "relation 'a' → 'zz' names region 'zz', which is not in the annotation",
        ),
        (
            [span("a", 0, 3, "PER"), certainty("gone", "sure")],
            "field 'certainty': a per-region choices result (region id 'gone') whose region "
            "does not exist",
        ),
        (
            [
                {
                    "id": "p",
                    "from_name": "poly",
                    "type": "polygonlabels",
                    "value": {"points": [[0, 0]]},
                }
            ],
            "'points' must be a list of 3 or more",
        ),
    ],
)
def test_malformed_regions_are_refused_by_name(
    write_json: Any, result: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(InputError, match="task 1") as err:
        load(write_json, [task(1, ann(1, result))])
    assert message in str(err.value)


def test_unknown_region_type_is_listed_not_read(write_json: Any) -> None:
    oval = {"id": "b", "from_name": "oval", "type": "ellipselabels", "value": {"x": 1, "y": 2}}
    ds = load(write_json, [task(1, ann(1, [oval, span("a", 0, 3, "PER")]))])
    assert ds.field_kinds() == {"oval": "ellipselabels", "ner": "labels"}


def prodigy_line(**kw: Any) -> dict[str, Any]:
    base = {"_input_hash": 7, "_task_hash": 70, "answer": "accept", "_timestamp": 1794303357}
    return {**base, **kw}


def write_lines(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "round.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_prodigy_ner_manual_spans_are_regions_not_accept_answers(tmp_path: Path) -> None:
    spans = [{"start": 0, "end": 12, "label": "PER", "token_start": 0, "token_end": 1}]
    lines = [
        prodigy_line(text=TEXT, spans=spans, _view_id="ner_manual", _annotator_id="a"),
        prodigy_line(text=TEXT, spans=[], _view_id="ner_manual", _annotator_id="b"),
        prodigy_line(
            text=TEXT, spans=spans, _view_id="ner_manual", _annotator_id="c", answer="reject"
        ),
    ]
    ds = ProdigyJSONL(write_lines(tmp_path, lines)).load()
    assert ds.field_kinds() == {"ner_manual": "spans"}
    t = region_table(ds, "ner_manual")
    assert t.annotators == ["a", "b"] and t.rated.tolist() == [[True, True]]
    assert t.geometry.tolist() == [[0, 12]] and t.labels == ("PER",) and t.texts == [TEXT]
    assert ds.stats.ignored == 1  # a rejected manual answer: the example is unusable


def test_prodigy_span_without_offsets_is_refused(tmp_path: Path) -> None:
    lines = [prodigy_line(_view_id="spans_manual", _annotator_id="a", spans=[{"label": "X"}])]
    with pytest.raises(InputError, match=r"line 1: span #1 \(X\): no 'start'/'end' offsets"):
        ProdigyJSONL(write_lines(tmp_path, lines)).load()


def test_prodigy_teach_questions_about_one_text_are_separate_units(tmp_path: Path) -> None:
    q1 = {"_task_hash": 1, "spans": [{"start": 0, "end": 3, "label": "PER"}], "_view_id": "ner"}
    q2 = {"_task_hash": 2, "spans": [{"start": 17, "end": 24, "label": "PER"}], "_view_id": "ner"}
    lines = [
        prodigy_line(**q1, _annotator_id="a", answer="accept", _timestamp=1),
        prodigy_line(**q2, _annotator_id="a", answer="reject", _timestamp=2),
        prodigy_line(**q1, _annotator_id="b", answer="accept", _timestamp=3),
        prodigy_line(**q2, _annotator_id="b", answer="reject", _timestamp=4),
    ]
    ds = ProdigyJSONL(write_lines(tmp_path, lines)).load()
    assert ds.stats.superseded == 0 and len(ds.task_ids) == 2  # no later answer "supersedes"


def test_prodigy_image_manual_boxes_and_polygons(tmp_path: Path) -> None:
    rect = {
        "label": "Car",
        "type": "rect",
        "x": 1,
        "y": 2,
        "width": 3,
        "height": 4,
        "points": [[1, 2], [1, 6], [4, 6], [4, 2]],
    }
    poly = {"label": "Road", "type": "polygon", "points": [[0, 0], [8, 0], [8, 2]]}
    lines = [
        prodigy_line(image="a.png", spans=[rect], _view_id="image_manual", _annotator_id="a"),
        prodigy_line(image="a.png", spans=[rect], _view_id="image_manual", _annotator_id="b"),
    ]
    t = region_table(ProdigyJSONL(write_lines(tmp_path, lines)).load(), "image_manual")
    assert t.shape == "box" and t.geometry.tolist() == [[1, 2, 3, 4, 0]] * 2
    lines[1]["spans"] = [rect, poly]
    t = region_table(ProdigyJSONL(write_lines(tmp_path, lines)).load(), "image_manual")
    assert t.shape == "polygon" and t.geometry.tolist() == [
        [1, 2, 3, 4],
        [1, 2, 3, 4],
        [0, 0, 8, 2],
    ]
    assert t.points is not None and np.array_equal(t.points[2], [[0, 0], [8, 0], [8, 2]])


def test_prodigy_unknown_manual_view_is_listed_not_scored(tmp_path: Path) -> None:
    lines = [prodigy_line(_view_id="blocks", _annotator_id="a", spans=[])]
    ds = ProdigyJSONL(write_lines(tmp_path, lines)).load()
    assert ds.field_kinds() == {"blocks": "blocks"}


def test_not_evaluated_fields_are_in_every_report_format(tmp_path: Path) -> None:
    from iaa_gate.cli import main

    lines = [
        prodigy_line(_view_id="choice", options=[{"id": "A"}], accept=["A"], _annotator_id=a)
        for a in ("a", "b")
    ] + [prodigy_line(_input_hash=8, _view_id="blocks", _annotator_id="a", spans=[])]
    src = write_lines(tmp_path, lines)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"source: {{type: prodigy, path: {src}}}\nfields: {{choice: {{}}}}\n")
    out = tmp_path / "r"
    main(
        [
            "run",
            "-c",
            str(cfg),
            "--out",
            str(out),
            "-q",
            "--format",
            "json",
            "--format",
            "markdown",
            "--format",
            "html",
            "--format",
            "junit",
        ]
    )
    why = "blocks: iaa-gate does not read blocks results"  # the kind and why, in every format
    assert json.loads((out / "report.json").read_text())["not_evaluated"] == {"blocks": why}
    assert f"- blocks ({why})" in (out / "report.md").read_text()
    assert f"<code>blocks</code> ({why})" in (out / "report.html").read_text()
    junit = (out / "junit.xml").read_text()
    assert 'name="not-evaluated"' in junit and f"blocks ({why}): not evaluated" in junit


def test_rotated_box_in_pixels_when_the_image_size_is_known(write_json: Any) -> None:
    value = {"x": 10, "y": 20, "width": 30, "height": 40, "rotation": 90, "rectanglelabels": ["A"]}
    item = {"id": "r", "from_name": "box", "to_name": "img", "type": "rectanglelabels"}
    sized = {**item, "value": value, "original_width": 200, "original_height": 100}
    ds = load(write_json, [task(1, ann(1, [sized]), data={"image": "a.png"})])
    assert region_table(ds, "box").geometry.tolist() == [[20, 20, 60, 40, 90]]


def _html_span(rid: str, start: int, end: int, label: str | None, key: str) -> dict[str, Any]:
    """A HyperTextLabels result as Label Studio writes it: the labels under ``htmllabels``
    (its docs and SDK say ``hypertextlabels``); ``label`` None: no label key at all."""
    value: dict[str, Any] = {"start": "/p[1]/text()[1]", "end": "/p[1]/text()[1]"}
    value |= {"startOffset": start, "endOffset": end, "globalOffsets": {"start": start, "end": end}}
    if label is not None:
        value[key] = [label]
    return {
        "id": rid,
        "from_name": "ner",
        "to_name": "html",
        "type": "hypertextlabels",
        "value": value,
    }


@pytest.mark.parametrize("key", ["htmllabels", "hypertextlabels"])
def test_hypertext_labels_are_read_from_either_key(write_json: Any, key: str) -> None:
    anns = [
        {"id": 1, "completed_by": 1, "result": [_html_span("a", 0, 3, "PER", key)]},
        {"id": 2, "completed_by": 2, "result": [_html_span("b", 0, 3, "ORG", key)]},
    ]
    path = write_json([{"id": 1, "data": {"html": "<p>Ada</p>"}, "annotations": anns}])
    ds = LabelStudioExport(path).load()
    labels = sorted(lab for a in ds.annotations for lab in a.fields["ner"].regions.labels)
    assert labels == ["ORG", "PER"]  # two annotators who disagree do not agree on a label ""


def test_a_labels_region_without_a_label_is_refused_by_name(write_json: Any) -> None:
    anns = [{"id": 1, "completed_by": 1, "result": [_html_span("a", 0, 3, None, "htmllabels")]}]
    path = write_json([{"id": 1, "data": {"html": "<p>Ada</p>"}, "annotations": anns}])
    with pytest.raises(
        InputError,
        match=r"task 1, annotation 1, field 'ner', region 'a': the region has no label "
        r"\(no 'hypertextlabels' or 'htmllabels' in its value\)",
    ):
        LabelStudioExport(path).load()
    spans = [{**span("s", 0, 3, "PER"), "value": {"start": 0, "end": 3, "labels": []}}]
    path = write_json(
        [
            {
                "id": 2,
                "data": {"text": TEXT},
                "annotations": [{"id": 3, "completed_by": 1, "result": spans}],
            }
        ]
    )
    with pytest.raises(InputError, match=r"region 's': the region has no label \(no 'labels'"):
        LabelStudioExport(path).load()


def _no_id(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "id"}


def test_regions_without_ids_are_read_under_their_annotation_and_index(write_json: Any) -> None:
    """Scripts and SDK imports write spans and boxes without a region id, which Label Studio
    accepts: each is read under ``<annotation id>:<index>``, the same on every read."""
    box = {
        "from_name": "box",
        "to_name": "image",
        "type": "rectanglelabels",
        "value": {"x": 1, "y": 2, "width": 3, "height": 4, "rectanglelabels": ["car"]},
    }
    choice = {"from_name": "sentiment", "to_name": "text", "type": "choices"}
    tasks = [
        task(
            1,
            ann(1, [_no_id(span("a", 0, 12, "PER")), _no_id(span("b", 17, 32, "PER"))]),
            ann(2, [{**choice, "value": {"choices": ["Pos"]}}, _no_id(span("c", 0, 12, "PER"))]),
            ann(3, [span("k", 0, 12, "PER"), box]),
        )
    ]
    for _ in range(2):
        ds = load(write_json, tasks)
        assert region_table(ds, "ner").region_ids == ["100:0", "100:1", "200:1", "k"]
        assert region_table(ds, "box").region_ids == ["300:1"]
        assert ds.field_kinds()["sentiment"] == "choices"


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (
            [_no_id(span("a", 0, 12, "PER")), span("b", 17, 32, "PER"), relation("a", "b", "x")],
            "relation 'a' → 'b' names region 'a', which is not in the annotation",
        ),
        (
            [span("b", 17, 32, "PER"), {**relation("a", "b", "x"), "from_id": None}],
            "a relation has no 'from_id', so the region it links cannot be told",
        ),
        (
            [_no_id(span("a", 0, 3, "PER")), _no_id(certainty("a", "sure"))],
            "field 'certainty': a per-region choices result has no region 'id', so the region "
            "it describes cannot be told",
        ),
        (
            [
                {"id": "r", "from_name": "box", "type": "rectangle", "value": {"x": 1, "y": 1}},
                {"from_name": "lab", "type": "labels", "value": {"labels": ["car"]}},
            ],
            "field 'lab': labels without span bounds and without an 'id'",
        ),
    ],
)
def test_only_what_needs_a_missing_region_id_is_refused(
    write_json: Any, result: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(InputError, match="task 1, annotation 100") as err:
        load(write_json, [task(1, ann(1, result))])
    assert message in str(err.value) and "hint: fix the export" in str(err.value)


def test_skip_invalid_that_leaves_nothing_names_the_first_reason(write_json: Any) -> None:
    from iaa_gate.config import Config
    from iaa_gate.evaluation.analysis import analyse

    bad = [{**relation("a", "b", "x"), "to_id": None}, span("a", 0, 3, "PER")]
    path = write_json([task(t, ann(1, bad), ann(2, bad)) for t in (1, 2)])
    ds = LabelStudioExport(path, skip_invalid=True).load()
    config = Config.model_validate(
        {
            "version": 1,
            "source": {"type": "label-studio-export", "path": str(path)},
            "fields": {"ner": {}},
        }
    )
    with pytest.raises(InputError) as err:
        analyse(ds, config)
    text = str(err.value)
    assert "--skip-invalid skipped every task with answers (2 skipped)" in text
    assert "the first reason: task 1, annotation 100: a relation has no 'to_id'" in text
    assert "does not occur in the data" not in text
