"""The typed fast path of Label Studio exports reads every task exactly as the general parser
does: same annotations, task ids, names, texts, counts and errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import label_studio_general
import prodigy_general
from builders import assert_same_dataset as _same
from iaa_gate.adapters.label_studio import export as lse
from iaa_gate.adapters.label_studio import halves
from iaa_gate.adapters.label_studio.export import LabelStudioExport, parse_tasks
from iaa_gate.adapters.prodigy import source as _prodigy_source
from iaa_gate.adapters.prodigy import typed as _prodigy_typed
from iaa_gate.adapters.prodigy.source import ProdigyJSONL
from iaa_gate.core.errors import InputError
from iaa_gate.model import Dataset, intern, intern_all

ROOT = Path(__file__).resolve().parents[1]
EXPORTS = sorted(
    p
    for p in [*ROOT.glob("examples/**/*.json"), *ROOT.glob("tests/corpus/*/*.json")]
    if p.name.startswith("export")
)


def _general_only(*a: Any) -> Any:
    raise lse.Unusual


def _read(tasks: Any, *, fast: bool, **kw: Any) -> Dataset | str:
    """The dataset of ``tasks`` (elements of an export) by the package's readers, or (not
    ``fast``) by the general parser alone, deciding every task as it did before the typed
    readers became the only ones that decide a task without regions; the error message when
    it is refused."""
    items = msgspec.json.decode(json.dumps(tasks).encode(), type=list[msgspec.Raw])
    with pytest.MonkeyPatch.context() as m:
        if not fast:
            m.setattr(lse, "read_tasks", lambda *a: None)
            m.setattr(lse, "read_task", _general_only)
            m.setattr(lse, "_one", label_studio_general.one)
            m.setattr(label_studio_general, "holds_regions", lambda task: True)
        try:
            return parse_tasks(items, "export.json", **kw)
        except InputError as exc:
            return str(exc)


def _dicts(tasks: Any, **kw: Any) -> Dataset | str:
    """``tasks`` as the API gives them (dicts), by the package's readers."""
    try:
        return parse_tasks(tasks, "export.json", **kw)
    except InputError as exc:
        return str(exc)


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bundled_export_reads_the_same(path: Path) -> None:
    tasks = json.loads(path.read_text(encoding="utf-8"))
    for kw in ({}, {"skip_invalid": True}, {"include_ground_truth": False}):
        general = _read(tasks, fast=False, **kw)
        _same(_read(tasks, fast=True, workers=2, **kw), general)
        _same(_dicts(tasks, **kw), general)


def _general_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The tasks the general parser is called on from now on (it still reads them)."""
    calls: list[Any] = []
    general = lse._task
    monkeypatch.setattr(lse, "_task", lambda t, i, *a: calls.append(t) or general(t, i, *a))
    return calls


def test_common_shapes_never_take_the_general_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Choices, spans and boxes are read by the fast path, the first task too (JSON-MIN is
    recognised before)."""
    calls = _general_calls(monkeypatch)
    for name in ("label-studio", "label-studio-ner", "label-studio-boxes"):
        ds = LabelStudioExport(ROOT / "examples" / name / "export.json").load()
        assert calls == [] and ds.stats.tasks > 10


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_region_shapes_take_the_general_parser(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every task of the bundled exports without regions (chats, rankings, taxonomies,
    pairwise, per-region answers, listed controls…) is decided by the typed readers; the
    general parser sees only tasks breaking a rule, which it words."""
    calls = _general_calls(monkeypatch)
    tasks = json.loads(path.read_text(encoding="utf-8"))
    read = _read(tasks, fast=True, skip_invalid=True)
    worded = (
        {p.where.split(",")[0] for p in read.stats.invalid} if isinstance(read, Dataset) else set()
    )
    assert [t for t in calls if f"task {t.get('id')}" not in worded] == []


def test_regions_without_ids_take_the_fast_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Spans written by a script, without region ids, are read by the typed path, under the
    same ids the general parser gives them."""
    calls: list[int] = []
    general = lse._task
    monkeypatch.setattr(lse, "_task", lambda t, i, *a: calls.append(i) or general(t, i, *a))
    span = {"from_name": "ner", "to_name": "text", "type": "labels"}
    tasks = [
        {
            "id": t,
            "data": {"text": "Ada met Bob"},
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [{**span, "value": {"start": 0, "end": 3, "text": "Ada",
                                                  "labels": ["PER"]}}],
                }
                for who in (1, 2)
            ],
        }
        for t in range(1, 4)
    ]  # fmt: skip
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    fast = LabelStudioExport(path).load()
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    ids = [rid for a in fast.annotations for rid in a.fields["ner"].regions.ids]
    assert ids == ["11:0", "12:0", "21:0", "22:0", "31:0", "32:0"]


def test_polygons_and_keypoints_take_the_fast_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Polygons and keypoints (with a relation and a per-region attribute) are read by the
    typed path, as the general parser reads them."""
    calls: list[int] = []
    general = lse._task
    monkeypatch.setattr(lse, "_task", lambda t, i, *a: calls.append(i) or general(t, i, *a))
    tasks = [
        {
            "id": t,
            "data": {"image": f"{t}.jpg"},
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [
                        _result(
                            "polygonlabels",
                            "poly",
                            f"p{who}",
                            {"points": [[t, 0], [4.5, who], [2, 7]], "polygonlabels": ["A"]},
                        ),
                        _result(
                            "keypointlabels",
                            "kp",
                            "k",
                            {"x": 1.5 * t, "y": who, "width": 1, "keypointlabels": ["B", "C"]},
                        ),
                        _result("choices", "sure", f"p{who}", {"choices": ["yes"]}),
                        {"type": "relation", "from_id": f"p{who}", "to_id": "k"},
                    ],
                }
                for who in (1, 2)
            ],
        }
        for t in range(1, 4)
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    fast = LabelStudioExport(path).load()
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    poly = fast.annotations[-1].fields["poly"].regions
    assert poly is not None and poly.points == [[(3.0, 0.0), (4.5, 2.0), (2.0, 7.0)]]
    assert poly.coords == [2.0, 0.0, 2.5, 7.0] and poly.dropped_relations == 1  # to field kp
    assert poly.attributes == {"sure": ("choices", [(0, ("yes",))])}


def test_timelines_and_hypertext_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Timeline frame ranges and hypertext spans as Label Studio writes them (``htmllabels``,
    global offsets) are read by the typed path, as the general parser reads them."""
    calls: list[int] = []
    general = lse._task
    monkeypatch.setattr(lse, "_task", lambda t, i, *a: calls.append(i) or general(t, i, *a))
    xpath = {"start": "/p[1]/text()[1]", "end": "/p[1]/text()[1]", "startOffset": 0}
    tasks = [
        {
            "id": t,
            "data": {"video": f"{t}.mp4", "html": "<p>Ada met Bob</p>"},
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [
                        _result(
                            "timelinelabels",
                            "tl",
                            "t",
                            {
                                "ranges": [{"start": t, "end": t + who}, {"start": 9, "end": 9}],
                                "timelinelabels": ["run"],
                            },
                        ),
                        _result(
                            "hypertextlabels",
                            "html",
                            "h",
                            xpath
                            | {"endOffset": 3, "text": "Ada", "htmllabels": ["PER"]}
                            | {"globalOffsets": {"start": 0, "end": 3}},
                        )
                        | {"to_name": "html"},  # the text is the data key the tag shows
                    ],
                }
                for who in (1, 2)
            ],
        }
        for t in range(1, 4)
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset)
    timeline = fast.annotations[-1].fields["tl"].regions
    assert timeline is not None and timeline.ids == ["t#1", "t#2"]
    assert timeline.coords == [3.0, 6.0, 9.0, 10.0]
    assert fast.annotations[-1].fields["html"].regions.coords == [0.0, 3.0]
    assert fast.texts[3, "html"] == "<p>Ada met Bob</p>"


def test_audio_spans_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Audio spans as Label Studio writes them (``labels`` in seconds, no ``text``) are read by
    the typed path, as the general parser reads them: bounds that index no text, so the
    audio's URL is never taken for the text of the field."""
    calls: list[int] = []
    general = lse._task
    monkeypatch.setattr(lse, "_task", lambda t, i, *a: calls.append(i) or general(t, i, *a))
    tasks = [
        {
            "id": t,
            "data": {"audio": f"/data/{t}.wav"},
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [
                        _result(
                            "labels",
                            "speaker",
                            f"a{who}",
                            {"start": 0.5 * who, "end": 2.25 + t, "channel": 0, "labels": ["S1"]},
                        )
                        | {"to_name": "audio"},
                    ],
                }
                for who in (1, 2)
            ],
        }
        for t in range(1, 4)
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset) and fast.texts == {}
    assert fast.annotations[-1].fields["speaker"].regions.coords == [1.0, 5.25]


def test_tool_regions_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regions drawn with an unlabelled tool (``rectangle``, ``polygon``), labelled by a
    ``labels`` result of the same id as Label Studio writes OCR boxes, or not labelled at all,
    are read by the typed path, as the general parser reads them."""
    calls: list[int] = []
    general = lse._task
    monkeypatch.setattr(lse, "_task", lambda t, i, *a: calls.append(i) or general(t, i, *a))
    box = {"x": 10, "y": 20, "width": 30, "height": 5, "rotation": 0}
    tri = {"points": [[0, 0], [4, 0], [4, 3]]}
    tasks = [
        {
            "id": t,
            "data": {"ocr": f"/data/{t}.png"},
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [
                        _result("rectangle", "bbox", f"r{who}", box)
                        | {"original_width": 200, "original_height": 100},
                        _result("labels", "label", f"r{who}", {"labels": ["Text"]}),
                        _result("textarea", "transcription", f"r{who}", {"text": [f"w{t}"]}),
                        _result("polygon", "shape", f"g{who}", tri),
                        {"type": "relation", "from_id": f"r{who}", "to_id": f"g{who}"},
                    ],
                }
                for who in (1, 2)
            ],
        }
        for t in range(1, 4)
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset) and "label" not in fast.field_kinds()  # the box's labels
    boxes = fast.annotations[-1].fields["bbox"].regions
    assert boxes is not None and boxes.labels == ["Text"]
    assert boxes.coords == [20.0, 20.0, 60.0, 5.0, 0.0]  # percent of 200 × 100 → pixels
    assert boxes.attributes == {"transcription": ("textarea", [(0, "w3")])}
    shapes = fast.annotations[-1].fields["shape"].regions
    assert shapes is not None and shapes.labels == [""]  # no label: the tool has none


def test_time_series_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Time-series spans (``timeserieslabels``, bounds as dates or numbers) are read by the
    typed path, as the general parser reads them: dates in seconds since the epoch."""
    calls: list[int] = []
    general = lse._task
    monkeypatch.setattr(lse, "_task", lambda t, i, *a: calls.append(i) or general(t, i, *a))
    bounds = [
        {"start": "2026-10-01T10:00:00Z", "end": "2026-10-01T10:00:05.5Z"},
        {"start": 2, "end": 7.5},
    ]
    tasks = [
        {
            "id": t,
            "data": {"ts": f"/data/{t}.csv"},
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [
                        _result(
                            "timeserieslabels", "trend", f"s{who}", b | {"timeserieslabels": ["up"]}
                        )
                        | {"to_name": "ts"}
                        for b in bounds
                    ],
                }
                for who in (1, 2)
            ],
        }
        for t in range(1, 4)
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset) and fast.texts == {}
    start = 1790848800.0  # 2026-10-01T10:00:00Z
    assert fast.annotations[-1].fields["trend"].regions.coords == [start, start + 5.5, 2.0, 7.5]


def test_time_series_spans_with_a_text_take_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A time-series span with a ``text`` is read by the typed path, as the general parser
    reads it: the text its ``to_name`` names is looked up, as for a span of characters."""
    calls = _general_calls(monkeypatch)
    tasks = [
        {
            "id": t,
            "data": {"ts": "abcdefgh"},
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [
                        _result(
                            "timeserieslabels",
                            "trend",
                            f"s{who}",
                            {"start": 1, "end": 3, "text": "bc", "timeserieslabels": ["up"]},
                        )
                        | {"to_name": "ts"}
                    ],
                }
                for who in (1, 2)
            ],
        }
        for t in (1, 2)
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset) and fast.texts[1, "trend"] == "abcdefgh"


def test_labels_of_a_listed_tool_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The labels of an ellipse or a video track (tools iaa-gate lists) are read by the typed
    path, as the general parser reads them: their field is listed as that tool, and an answer
    of the same name given after them still counts."""
    calls = _general_calls(monkeypatch)
    tasks = [
        {
            "id": t,
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [
                        _result(tool, "shape", rid, {"x": 1, "y": 2, "radiusX": 3, "radiusY": 4}),
                        _result("labels", tool[0], rid, {"labels": ["A"]}),
                        _result("labels", "c", rid, {"labels": ["B"]}),
                        _result("choices", "c", "r1", {"choices": ["yes"]}),
                    ],
                }
                for who in (1, 2)
            ],
        }
        for t, tool, rid in ((1, "ellipse", "e1"), (2, "videorectangle", "v1"))
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset)
    kinds = fast.field_kinds()
    assert (kinds["e"], kinds["v"], kinds["c"]) == ("ellipse", "videorectangle", "choices")


def test_tool_labels_beside_a_region_without_an_id_take_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tool labels beside a region drawn without an id are read by the typed path, as the
    general parser reads them: that region has the id ``<annotation id>:<index>``, which
    labels may name too."""
    calls = _general_calls(monkeypatch)
    box = {"x": 1, "y": 2, "width": 3, "height": 4}
    tasks = [
        {
            "id": 1,
            "annotations": [
                {
                    "id": who,
                    "completed_by": who,
                    "result": [
                        _result("rectangle", "box", "b1", box),
                        _result("labels", "lab", "b1", {"labels": ["A"]}),
                        {
                            k: v
                            for k, v in _result("rectangle", "box", "", box).items()
                            if k != "id"
                        },
                        _result("labels", "lab", f"{who}:2", {"labels": ["B"]}),
                    ],
                }
                for who in (1, 2)
            ],
        }
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset)
    regions = fast.annotations[0].fields["box"].regions
    assert (regions.ids, regions.labels) == (["b1", "1:2"], ["A", "B"])


def test_an_answer_under_a_region_fields_name_takes_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An answer under a region field's name is read by the typed path, as the general parser
    reads it: it replaces that annotation's regions of the field; a listed control does not."""
    calls = _general_calls(monkeypatch)
    box = _result("rectangle", "box", "b1", {"x": 1, "y": 2, "width": 3, "height": 4})
    box = box | {"value": box["value"] | {"rectanglelabels": ["A"]}, "type": "rectanglelabels"}
    answers = [[], [_result("choices", "box", "c1", {"choices": ["yes"]})]]
    answers.append([_result("ellipse", "box", "e1", {"x": 1, "y": 1})])
    tasks = [
        {
            "id": t,
            "annotations": [
                {"id": 10 * t + who, "completed_by": who, "result": [box, *answers[who]]}
                for who in (0, 1, 2)
            ],
        }
        for t in (1, 2)
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset)
    read = [a.fields["box"] for a in fast.annotations if a.task_id == 1]
    assert [fv.regions is None for fv in read] == [False, True, False]
    assert read[1].value == ("yes",)


def test_a_region_type_not_in_lower_case_takes_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A region whose type a script wrote in another case (``RectangleLabels``) is read by the
    typed path under its lower-case type, as the general parser reads it."""
    calls = _general_calls(monkeypatch)
    box = {"x": 1, "y": 2, "width": 3, "height": 4, "rectanglelabels": ["A"]}
    tasks = [
        {
            "id": 1,
            "annotations": [
                {"id": who, "completed_by": who, "result": [_result(kind, "box", "b1", box)]}
                for who, kind in ((1, "RectangleLabels"), (2, "Rectangle"))
            ],
        }
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset) and fast.field_kinds() == {"box": "rectanglelabels"}


def test_brush_masks_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Brush masks are decoded by the typed path, as the general parser decodes them."""
    calls: list[int] = []
    general = lse._task
    monkeypatch.setattr(lse, "_task", lambda t, i, *a: calls.append(i) or general(t, i, *a))
    mask = {"format": "rle", "rle": _RLE, "brushlabels": ["Car"]}
    size = {"original_width": 4, "original_height": 3}
    tasks = [
        {
            "id": t,
            "data": {"image": f"{t}.png"},
            "annotations": [
                {
                    "id": 10 * t + who,
                    "completed_by": who,
                    "result": [_result("brushlabels", "brush", "m", mask) | size],
                }
                for who in (1, 2)
            ],
        }
        for t in range(1, 4)
    ]
    fast = _read(tasks, fast=True)
    assert calls == []
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset)
    regions = fast.annotations[-1].fields["brush"].regions
    assert regions is not None and regions.points == [[(4.0, 8.0)]]
    assert regions.coords == [0.0, 1.0, 4.0, 1.0, 12.0]


def _result(kind: str, name: str, rid: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"id": rid, "from_name": name, "to_name": "text", "type": kind, "value": value}


_RLE = [0, 0, 0, 48, 57, 27, 253, 240, 11, 255, 247, 192, 0]
"""A brush mask of a 4 × 3 image (Label Studio's RLE): its second row."""


def test_the_general_parser_never_decides_a_task(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the typed reader to refuse a task that breaks no rule, with regions or without, the
    general parser would not read it in its place: the task is named as one iaa-gate cannot
    read."""
    monkeypatch.setattr(lse, "read_task", _general_only)
    choice = _result("choices", "c", "r1", {"choices": ["A"]})
    span = _result("polygonlabels", "p", "g1", {"points": [[0, 0], [4, 0], [4, 3]],
                                                "polygonlabels": ["A"]})  # fmt: skip
    tasks = [{"id": 7, "annotations": [{"id": 1, "completed_by": 1, "result": [choice]}]}]
    read = _dicts(tasks)
    assert isinstance(read, str) and "task 7: a value iaa-gate cannot read" in read
    tasks[0]["annotations"][0]["result"].append(span)
    read = _dicts(tasks)
    assert isinstance(read, str) and "task 7: a value iaa-gate cannot read" in read


VALUES = st.sampled_from(["A", "B", "C"])
STAMPS = st.sampled_from(
    [None, "", "2026-10-01T10:00:00Z", "2026-10-01T10:00:00.5+02:00", "2026-10-01T08:00:00.5", 7]
)
RESULTS = st.one_of(
    st.builds(
        lambda v: _result("choices", "c", "r1", {"choices": v}), st.lists(VALUES, max_size=2)
    ),
    st.builds(lambda v: _result("choices", "c", "r1", {"choices": v}), VALUES),
    st.builds(
        lambda v: _result("rating", "r", "r2", {"rating": v}),
        st.one_of(st.integers(0, 5), st.none(), st.just(True), st.just(1e300), st.just("3")),
    ),
    st.builds(lambda v: _result("textarea", "t", "r3", {"text": v}), st.lists(VALUES, max_size=2)),
    st.builds(
        lambda s, n, lab: _result(
            "labels", "ner", f"s{s}", {"start": s, "end": s + n, "labels": lab}
        ),
        st.integers(-1, 6),
        st.integers(0, 3),
        st.one_of(st.lists(VALUES, max_size=2), VALUES, st.none()),
    ),
    st.builds(  # an unlabelled tool's region, labelled or not by a labels result of its id
        lambda kind, rid, extra: _result(
            kind,
            "tool",
            rid,
            {"x": 1, "y": 2, "width": 3, "height": 4, "points": [[0, 0], [4, 0], [4, 3]]} | extra,
        ),
        st.sampled_from(  # ellipses and video tracks: tools iaa-gate lists
            [
                *("rectangle", "polygon", "keypoint", "Rectangle", "brush", "image", "spans"),
                *("ellipse", "videorectangle"),
            ]
        ),
        st.sampled_from(["b1", "p1", 5, None, 1.5, True]),
        st.sampled_from(
            [{}, {"rectangle": ["A"]}, {"keypoint": "B"}, {"rotation": 10}, {"start": 1, "end": 2}]
        ),
    ),
    st.builds(  # under its own name, a region field's, an answer's or a listed field's
        lambda name, rid, labels: _result(
            "labels", name, rid, {} if labels == "-" else {"labels": labels}
        ),
        st.sampled_from(["lab", "ner", "c", "el"]),
        st.sampled_from(["b1", "p1", "e1", "zz", 5, None, 1.5]),
        st.sampled_from([["A"], ["A", "B"], [], "A", None, [1], "-"]),
    ),
    st.builds(  # time series: bounds as numbers or dates
        lambda s, e, text: _result(
            "timeserieslabels",
            "ts",
            "ts1",
            {"start": s, "end": e, "timeserieslabels": ["up"]} | text,
        ),
        st.sampled_from(["2026-10-01T10:00:00Z", "2026-10-01 10:00:00.5", 1.5, 3, "x", True, None]),
        st.sampled_from(["2026-10-01T10:00:05Z", "2026-10-01T09:00:00Z", 4, "", "x", None]),
        st.sampled_from([{}, {"text": "a"}]),
    ),
    st.builds(  # audio spans: seconds, no text; spans whose text is found by their texts
        lambda s, e, text, to: (
            _result("labels", "ner", "a1", {"start": s, "end": e, "labels": ["A"]} | text)
            | {"to_name": to}
        ),
        st.sampled_from([0, 1, 1.5, -2, 2**64, True, None]),
        st.sampled_from([2.25, 3, 1, "x"]),
        st.sampled_from([{}, {"text": "bc"}, {"text": "bcd"}, {"text": None}, {"text": 3}]),
        st.sampled_from(["text", "other"]),
    ),
    st.builds(
        lambda x, rot, w: (
            _result(
                "rectanglelabels",
                "box",
                f"b{x}",
                {
                    "x": x,
                    "y": 1,
                    "width": 2,
                    "height": 3,
                    "rotation": rot,
                    "rectanglelabels": ["A"],
                },
            )
            | ({"original_width": w, "original_height": 100} if w else {})
        ),
        st.integers(0, 3),
        st.sampled_from([0, 10.5, None]),
        st.sampled_from([0, 200]),
    ),
    st.builds(
        lambda pts, lab, rid: _result(
            "polygonlabels", "poly", rid, {"points": pts, "polygonlabels": lab}
        ),
        st.sampled_from(
            [
                [[0, 0], [4, 0], [4, 3]],
                [[1.5, 2], [3, 4.25], [0, 9], [2, 2]],
                [[0, 0], [1, 1]],
                [[0, 0], [4, True], [1, 2]],
                [[0, 0, 1], [1, 1], [2, 2]],
                [[0, 0], "x", [2, 2]],
                "x",
            ]
        ),
        st.sampled_from([["A"], ["A", "B"], [], "A", None]),
        st.sampled_from(["p1", "s1"]),
    ),
    st.builds(
        lambda x, lab: _result(
            "keypointlabels", "kp", "k1", {"x": x, "y": 2, "width": 1, "keypointlabels": lab}
        ),
        st.sampled_from([1, 2.5, None, True]),
        st.sampled_from([["A"], ["B", "A"], [], None]),
    ),
    st.builds(
        lambda key, start, offsets: _result(
            "paragraphlabels" if key == "paragraphlabels" else "hypertextlabels",
            "html",
            "h1",
            {"start": start, "end": "/p[1]/text()[1]", "startOffset": 0, "endOffset": 2}
            | {"text": "ab", key: ["A"]}
            | ({} if offsets is None else {"globalOffsets": offsets}),
        ),
        st.sampled_from(["hypertextlabels", "paragraphlabels", "htmllabels"]),
        st.sampled_from(["/p[1]/text()[1]", 1, 2.5, True, None]),
        st.sampled_from(
            [{"start": 3, "end": 5}, {"start": 3.0, "end": 5}, {"start": 6, "end": 5}, {}, None, 1]
        ),
    ),
    st.builds(
        lambda ranges, labels, rid: _result(
            "timelinelabels", "tl", rid, {"ranges": ranges, "timelinelabels": labels}
        ),
        st.sampled_from(
            [
                [{"start": 1, "end": 4}],
                [{"start": 2, "end": 2}, {"start": 5.5, "end": 9}],
                [{"start": 3, "end": 1}],
                [{"start": True, "end": 2}],
                [{"start": 1}],
                [3],
                [],
                None,
            ]
        ),
        st.sampled_from([["A"], ["A", "B"], [], "A", None]),
        st.sampled_from(["t1", "s1"]),
    ),
    st.builds(
        lambda rle, fmt, size, labels: (
            _result("brushlabels", "brush", "m1", {"rle": rle, "brushlabels": labels} | fmt) | size
        ),
        st.sampled_from([_RLE, _RLE[:5], [1, 2, 3], "x", None]),
        st.sampled_from([{}, {"format": "rle"}, {"format": "png"}]),
        st.sampled_from(
            [
                {"original_width": 4, "original_height": 3},
                {"original_width": 4.0, "original_height": 3},
                {"original_width": 0, "original_height": 3},
                {},
            ]
        ),
        st.sampled_from([["A"], ["A", "B"], [], None]),
    ),
    st.builds(lambda: _result("choices", "p1", "p1", {"choices": ["A"]})),  # attribute of p1
    st.builds(lambda: {"type": "relation", "from_id": "p1", "to_id": "s1", "labels": ["r"]}),
    st.builds(  # scripts and SDK imports write regions without an id
        lambda r: {k: v for k, v in r.items() if k != "id"},
        st.sampled_from(
            [
                _result("labels", "ner", "", {"start": 1, "end": 3, "text": "bc", "labels": ["A"]}),
                _result(
                    "rectanglelabels",
                    "box",
                    "",
                    {"x": 1, "y": 1, "width": 2, "height": 2, "rectanglelabels": ["A"]},
                ),
                _result("choices", "s1", "", {"start": 1, "end": 3, "choices": ["A"]}),
            ]
        ),
    ),
    st.builds(lambda: {"type": "relation", "from_id": "s1", "to_id": "s2", "direction": "right"}),
    st.builds(lambda: {"type": "relation", "from_id": None, "to_id": "s2"}),
    st.builds(lambda: _result("choices", "s1", "s1", {"choices": ["A"]})),  # attribute of span s1
    st.builds(lambda: _result("choices", "c", "r1", {"choices": ["A"], "start": None})),
    st.builds(lambda: _result("taxonomy", "tx", "r5", {"taxonomy": [["A", "B"]]})),
    st.builds(lambda: _result("Choices", "c", "r1", {"choices": ["B"]})),
    st.builds(lambda v: _result("pairwise", "pw", "r6", {"selected": v}), VALUES | st.none()),
    st.builds(
        lambda v: _result("ranker", "rank", "r7", {"ranker": v}),
        st.sampled_from([{"rank": ["a", "b"]}, {"best": ["b"], "rest": ["a"]}, {"x": ["a", "a"]}]),
    ),
    st.builds(lambda: _result("datetime", "dt", "r8", {"datetime": "2026-01-01"})),
    st.builds(
        lambda c: _result(
            "chatmessage", "chat", "m1", {"chatmessage": {"role": "user", "content": c}}
        ),
        VALUES,
    ),
    st.builds(
        lambda v: _result("choices", "mc", "m1", {"choices": v}), st.lists(VALUES, max_size=1)
    ),
    st.builds(
        lambda v: _result("rating", "mr", "m1", {"rating": v}), st.integers(1, 3) | st.none()
    ),
    st.builds(lambda: _result("textarea", "note", "s1", {"text": ["x"]})),  # about span s1
    st.builds(
        lambda: _result("ellipselabels", "el", "e1", {"x": 1, "y": 1, "ellipselabels": ["A"]})
    ),
    st.builds(lambda: _result("choices", "ec", "e1", {"choices": ["A"]})),  # about ellipse e1
    st.builds(  # an answer under a region field's name: about a region, a message or none
        lambda kind, name, rid: _result(kind, name, rid, {kind: ["A"], "x": 1, "y": 1}),
        st.sampled_from(["choices", "rating", "ellipse", "taxonomy"]),
        st.sampled_from(["ner", "tool", "lab"]),
        st.sampled_from(["r9", "s1", "s2", "m1", "e1", "b1"]),
    ),
)
ANNOTATIONS = st.fixed_dictionaries(
    {
        "id": st.integers(1, 4),
        "completed_by": st.one_of(
            st.integers(1, 3),
            st.sampled_from(["x", True, None, {"id": 2, "email": "b@x.org"}, {"email": "z"}]),
        ),
        "result": st.one_of(st.lists(RESULTS, max_size=3), st.none(), st.just("x")),
        "created_at": STAMPS,
    },
    optional={
        "updated_at": STAMPS,
        "was_cancelled": st.booleans(),
        "ground_truth": st.one_of(st.booleans(), st.none()),
        "parent_prediction": st.one_of(st.integers(1, 3), st.none(), st.just({"id": 2})),
    },
)
PREDICTIONS = st.one_of(
    st.integers(1, 3),
    st.sampled_from(["p", True, None]),
    st.fixed_dictionaries(
        {"id": st.integers(1, 3)},
        optional={
            "model_version": st.sampled_from(["v1", "v2", "", None, 7, "iaa-gate-consensus"]),
            "result": st.one_of(st.lists(RESULTS, max_size=2), st.none(), st.just("x")),
            "score": st.just(0.5),
        },
    ),
)
TASKS = st.lists(
    st.fixed_dictionaries(
        {"id": st.one_of(st.integers(1, 6), st.sampled_from(["7", "3", True]))},
        optional={
            "annotations": st.one_of(st.lists(ANNOTATIONS, max_size=4), st.none()),
            "completions": st.lists(ANNOTATIONS, max_size=2),
            "data": st.sampled_from([{"text": "abcdefghij"}, {"other": "x"}, "s", None]),
            "predictions": st.one_of(st.lists(PREDICTIONS, max_size=3), st.none(), st.just(3)),
        },
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tasks=TASKS, skip=st.booleans(), truth=st.booleans())
def test_fast_path_agrees_with_the_general_parser(
    tasks: list[dict[str, Any]], skip: bool, truth: bool
) -> None:
    kw = {"skip_invalid": skip, "include_ground_truth": truth}
    _same(_read(tasks, fast=True, workers=2, **kw), _read(tasks, fast=False, **kw))


def _prodigy(
    path: Path, *, fast: bool, monkeypatch: pytest.MonkeyPatch, blocks: bool = True
) -> Dataset | str:
    """``fast``: the typed readers (``blocks``: the column-wise block reader first, else line by
    line); else the general parser the package had before them (``tests/prodigy_general.py``)
    alone, with the package's own file handling around it."""
    with monkeypatch.context() as m:
        if not fast or not blocks:
            m.setattr(_prodigy_source, "read_block", lambda *a: None)
        if not fast:

            def general(self: Any, line: bytes) -> Any:
                raise _prodigy_typed.Unusual

            m.setattr(_prodigy_typed.LineReader, "__call__", general)
            m.setattr(
                _prodigy_source._Part,
                "_line",
                lambda self, line, lineno, path, read: prodigy_general.line(
                    self, line, lineno, path
                ),
            )
        try:
            return ProdigyJSONL(path, skip_invalid=True).load()
        except InputError as exc:
            return str(exc)


EXAMPLES = st.fixed_dictionaries(
    {
        "_input_hash": st.one_of(st.integers(1, 3), st.sampled_from(["h", None, True])),
        "answer": st.sampled_from(["accept", "reject", "ignore", "maybe"]),
    },
    optional={
        "_task_hash": st.one_of(st.integers(-3, 3), st.just("t")),
        "_view_id": st.sampled_from(
            [
                "choice",
                "classification",
                "ner",
                "ner_manual",
                "spans_manual",
                "image_manual",
                "blocks",
                None,
                "",
                3,
            ]
        ),
        "_annotator_id": st.sampled_from(["a", "b", "", None, 3]),
        "_session_id": st.sampled_from(["s", "a"]),
        "_timestamp": st.one_of(
            st.integers(0, 2_000_000_000), st.floats(0, 2e9), st.just(True), st.just(1e20)
        ),
        "label": st.sampled_from(["POS", 3]),
        "accept": st.one_of(st.lists(st.sampled_from(["A", "B", 1, True]), max_size=2), st.none()),
        "options": st.one_of(
            st.just([{"id": "A"}, {"id": "B"}, {"id": 1}]), st.none(), st.just(["A"])
        ),
        "config": st.one_of(st.sampled_from([{"choice_style": "multiple"}, {}, "x", None])),
        "spans": st.one_of(
            st.lists(
                st.fixed_dictionaries(
                    {"start": st.sampled_from([0, 1, 2.5, True, None])},
                    optional={
                        "end": st.sampled_from([0, 2, 3.0, "4"]),
                        "label": st.sampled_from(["A", "B", "", 3, None]),
                        "id": st.sampled_from([7, "s1", None, 2.0, [1]]),
                        "token_start": st.just(0),
                        "points": st.sampled_from([[[0, 0], [4, 0], [4, 3]], [[0, 0]], "x"]),
                        "type": st.sampled_from(["rect", "polygon"]),
                        "x": st.sampled_from([0, 1.5, None]),
                        "y": st.just(0),
                        "width": st.just(4),
                        "height": st.sampled_from([3, True]),
                    },
                )
                | st.sampled_from([3, None, [0, 2]]),
                max_size=3,
            ),
            st.sampled_from([None, {}, "x"]),
        ),
        "text": st.sampled_from(["abcdef", "", 3, None]),
    },
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.one_of(EXAMPLES, st.just("[1]"), st.just("{bad")), min_size=1, max_size=6))
def test_prodigy_fast_path_agrees_with_the_general_parser(
    lines: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("p") / "db.jsonl"
    text = [x if isinstance(x, str) else json.dumps(x) for x in lines]
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        general = _prodigy(path, fast=False, monkeypatch=mp)
        _same(_prodigy(path, fast=True, monkeypatch=mp), general)
        _same(_prodigy(path, fast=True, monkeypatch=mp, blocks=False), general)
        # a line a block: after the first span answer, each block's spans are decoded with
        # its line, as text spans of the labels read so far (any other spans: as raw JSON)
        mp.setattr(_prodigy_source, "BLOCK", 1)
        _same(_prodigy(path, fast=True, monkeypatch=mp), general)


SPANS = st.fixed_dictionaries(
    {
        # offsets past 2**53, which round as floats, are ordered as read
        "start": st.integers(0, 5) | st.just(2**53 + 1),
        "end": st.integers(-1, 9) | st.just(2**53),
        "label": st.sampled_from(["A", "B"]),
    },
    optional={"id": st.sampled_from([7, "s1", None, 2.0]), "token_end": st.just(1)},
)
SPAN_LINES = st.fixed_dictionaries(
    {
        "_input_hash": st.integers(1, 3),
        "_view_id": st.sampled_from(["ner_manual", "spans_manual"]),
        "_annotator_id": st.sampled_from(["a", "b"]),
        "answer": st.sampled_from(["accept", "accept", "reject", "ignore"]),
        "_timestamp": st.integers(1_700_000_000, 1_700_000_009),
    },
    optional={
        "spans": st.lists(SPANS, max_size=3) | st.sampled_from([None, [{"start": 1}], [3]]),
        "text": st.sampled_from(["abcdef", "uvwxyz", 3]),
        "_task_hash": st.integers(-3, 3),
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(SPAN_LINES, min_size=1, max_size=6), block=st.sampled_from([1, 200, 1 << 24]))
def test_prodigy_span_lines_read_as_the_general_parser_reads_them(
    lines: list[Any], block: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Manual span answers, read by the typed path in blocks of any size (after the first,
    a block's spans are decoded with the labels read so far as literals, a new label as
    before): the same span sets, texts, counts and errors as the general parser."""
    path = tmp_path_factory.mktemp("p") / "db.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        general = _prodigy(path, fast=False, monkeypatch=mp)
        mp.setattr(_prodigy_source, "BLOCK", block)
        _same(_prodigy(path, fast=True, monkeypatch=mp), general)


def test_span_lines_decoded_with_their_spans_read_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a span label is known, a block's spans are decoded with its lines: blocks whose
    spans are not text spans of the known labels (a new label, an image's points, no spans,
    null) are decoded as before, and the file reads as the general parser reads it."""
    head = {"_input_hash": 1, "_annotator_id": "a", "answer": "accept", "text": "abcdef"}
    lines = [
        head | {"_view_id": "ner_manual", "spans": [{"start": 0, "end": 2, "label": "A"}]},
        head | {"_view_id": "ner_manual", "spans": [{"start": 1, "end": 3, "label": "C"}]},
        head | {"_view_id": "choice", "accept": ["X"], "spans": [{"points": [[0, 0]]}]},
        head | {"_view_id": "ner_manual", "_annotator_id": "b", "spans": None},
        head | {"_view_id": "spans_manual", "_input_hash": 2, "answer": "reject"},
        head | {"_view_id": "ner_manual", "_input_hash": 2, "spans": []},
        head | {"_view_id": "ner_manual", "_input_hash": 3, "spans": [{"start": 2, "end": 4}]},
    ]
    path = tmp_path / "db.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    decoded: list[bool] = []
    with_spans = _prodigy_typed._with_spans

    def spy(labels: tuple[str, ...]) -> Any:
        class Spy:
            def decode_lines(self, block: bytes) -> Any:
                try:
                    out = with_spans(labels).decode_lines(block)
                except (msgspec.ValidationError, msgspec.DecodeError):
                    decoded.append(False)
                    raise
                decoded.append(True)
                return out

        return Spy()

    general = _prodigy(path, fast=False, monkeypatch=monkeypatch)
    monkeypatch.setattr(_prodigy_source, "BLOCK", 1)
    monkeypatch.setattr(_prodigy_typed, "_with_spans", spy)
    _same(_prodigy(path, fast=True, monkeypatch=monkeypatch), general)
    assert True in decoded and False in decoded  # both ways taken


def test_a_prodigy_span_file_never_takes_the_general_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bundled ``ner_manual`` answers are read by the typed path, each line once."""
    calls: list[str] = []
    general = _prodigy_source._problem
    monkeypatch.setattr(
        _prodigy_source, "_problem", lambda line: calls.append(line) or general(line)
    )
    ds = ProdigyJSONL(ROOT / "examples" / "prodigy" / "ner_manual.jsonl").load()
    assert not calls and ds.stats.annotations == 150 and len(ds.texts) == ds.stats.tasks == 49


def test_json_msgspec_refuses_is_read_as_it_writes_it_back(tmp_path: Path) -> None:
    """NaN where no answer is read (Python's json writes it, msgspec refuses it): the line is
    read as without it; NaN as an answer's time is an error naming the line."""
    line = '{"_input_hash": 1, "_view_id": "ner", "answer": "accept", "_annotator_id": "a"%s}'
    path = tmp_path / "db.jsonl"
    path.write_text(line % ', "meta": {"score": NaN}' + "\n", encoding="utf-8")
    with_nan = ProdigyJSONL(path).load()
    path.write_text(line % "" + "\n", encoding="utf-8")
    _same(with_nan, ProdigyJSONL(path).load())
    path.write_text(line % ', "_timestamp": NaN' + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1: '_timestamp' nan is not a valid time"):
        ProdigyJSONL(path).load()


def test_a_true_offset_is_no_offset(tmp_path: Path) -> None:
    """``"start": true`` was read as 1 by the general parser; now that the typed reader
    decides, it is the error it always was there."""
    line = {"_input_hash": 1, "_view_id": "ner_manual", "answer": "accept", "_annotator_id": "a"}
    path = tmp_path / "db.jsonl"
    path.write_text(json.dumps(line | {"spans": [{"start": True, "end": 3}]}), encoding="utf-8")
    with pytest.raises(InputError, match="line 1: span #1 \\(no label\\): no 'start'/'end'"):
        ProdigyJSONL(path).load()


@pytest.mark.parametrize("path", sorted(ROOT.glob("examples/prodigy/*.jsonl")), ids=str)
def test_bundled_prodigy_files_read_the_same(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _same(
        _prodigy(path, fast=True, monkeypatch=monkeypatch),
        _prodigy(path, fast=False, monkeypatch=monkeypatch),
    )


@pytest.fixture
def two_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read every export of two or more tasks in two processes."""
    monkeypatch.setattr(halves, "PARALLEL_MIN", 2)
    monkeypatch.setattr(halves, "can_fork", lambda: True)


@pytest.mark.usefixtures("two_processes")
@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_two_processes_read_every_bundled_export_the_same(path: Path) -> None:
    tasks = json.loads(path.read_text(encoding="utf-8"))
    for kw in ({}, {"skip_invalid": True}, {"include_ground_truth": False}):
        _same(_read(tasks, fast=True, workers=2, **kw), _read(tasks, fast=False, **kw))


@pytest.mark.usefixtures("two_processes")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tasks=TASKS, skip=st.booleans(), truth=st.booleans())
def test_two_processes_agree_with_one(tasks: list[dict[str, Any]], skip: bool, truth: bool) -> None:
    """Ids repeated across the halves, problems in either half, skips and ground truth: the
    joined halves equal the general parser's reading in order."""
    kw = {"skip_invalid": skip, "include_ground_truth": truth}
    _same(_read(tasks, fast=True, workers=2, **kw), _read(tasks, fast=False, **kw))


@pytest.mark.usefixtures("two_processes")
@pytest.mark.parametrize("later", [3, "3"])
def test_an_id_in_both_halves_is_one_task_twice(later: int | str) -> None:
    """Task 3 in this process's half and 3 or "3" in the child's: ids are compared as text,
    as reading in order does, so both are the same task, named twice."""
    ann = {"completed_by": 1, "result": []}
    tasks = [{"id": i, "annotations": [ann]} for i in (3, 4, later, 5)]
    one = _read(tasks, fast=False)
    assert isinstance(one, str) and "task 3: the id occurs twice (tasks #1 and #3" in one
    assert _read(tasks, fast=True, workers=2) == one


def test_a_failed_child_leaves_the_work_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that dies (here: a read that raises in it) is not an error: its half is read
    again here."""
    monkeypatch.setattr(halves, "PARALLEL_MIN", 2)
    monkeypatch.setattr(halves, "can_fork", lambda: True)
    tasks = json.loads((ROOT / "examples/label-studio/export.json").read_text(encoding="utf-8"))
    general = _read(tasks, fast=False)
    real = lse._read
    parent = os.getpid()

    def flaky(part: Any, tasks: Any, start: int, *a: Any) -> Any:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return real(part, tasks, start, *a)

    monkeypatch.setattr(lse, "_read", flaky)
    _same(_read(tasks, fast=True, workers=2), general)


@pytest.mark.usefixtures("two_processes")
def test_a_library_call_never_forks_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """``workers`` defaults to 1: reading in a notebook or a threaded caller stays in its
    process; only ``workers=2`` (the CLI's choice) forks."""
    tasks = json.loads((ROOT / "examples/label-studio/export.json").read_text(encoding="utf-8"))
    forks: list[int] = []
    real = os.fork

    def counted() -> int:
        forks.append(1)
        return real()

    monkeypatch.setattr(os, "fork", counted)
    one = _read(tasks, fast=True)
    assert forks == []
    _same(_read(tasks, fast=True, workers=2), one)
    assert forks == [1]


CLEAN = st.fixed_dictionaries(
    {
        "_input_hash": st.one_of(st.integers(1, 3), st.just("h")),
        "answer": st.sampled_from(["accept", "reject", "ignore"]),
        "_annotator_id": st.sampled_from(["a", "b", ""]),
        "_session_id": st.sampled_from(["s", "a"]),
    },
    optional={
        "_task_hash": st.one_of(st.integers(-3, 3), st.just("t"), st.just(True)),
        "_view_id": st.sampled_from(["choice", "classification", "ner", "blocks"]),
        "_timestamp": st.one_of(st.integers(0, 2_000_000_000), st.none(), st.just(1 << 41)),
        "label": st.sampled_from(["POS", 3]),
        "accept": st.lists(st.sampled_from(["A", "B", 1]), max_size=2),
        "options": st.one_of(
            st.just([{"id": "A"}, {"id": "B"}, {"id": 1}]), st.just([{"id": "A"}]), st.none()
        ),
        "config": st.sampled_from([{"choice_style": "multiple"}, {"choice_style": "single"}, {}]),
    },
)
"""Lines the column-wise block reader mostly takes whole (a few rules fail now and then; two
option lists, so that a block holds one or several)."""


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.one_of(CLEAN, st.just("{bad")), min_size=1, max_size=12),
    block=st.sampled_from([1, 200, 1 << 24]),
)
def test_prodigy_block_reader_agrees_with_the_general_parser(
    lines: list[Any], block: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Blocks of any size (one line to the whole file), each read column-wise or, when a line
    needs it, line by line: the same dataset, counts and errors as the general parser."""
    path = tmp_path_factory.mktemp("p") / "db.jsonl"
    text = [x if isinstance(x, str) else json.dumps(x) for x in lines]
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        general = _prodigy(path, fast=False, monkeypatch=mp)
        mp.setattr(_prodigy_source, "BLOCK", block)
        _same(_prodigy(path, fast=True, monkeypatch=mp), general)


def _line_reader_calls(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The lines the per-line reader is called on from now on (it still reads them)."""
    calls: list[bytes] = []
    line_reader = _prodigy_typed.LineReader.__call__
    monkeypatch.setattr(
        _prodigy_typed.LineReader,
        "__call__",
        lambda self, raw: calls.append(raw) or line_reader(self, raw),
    )
    return calls


def test_a_plain_prodigy_file_is_read_without_a_per_line_decode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shape of the common case: ``db-out`` lines of a choice or a binary view are read
    block by block (one msgspec decode per line, no per-line reader call)."""
    calls = _line_reader_calls(monkeypatch)
    options = [{"id": x} for x in "ABC"]
    lines = [
        {
            "_input_hash": t,
            "_task_hash": -t,
            "_view_id": "choice",
            "options": options,
            "accept": ["ABC"[(t + a) % 3]],
            "answer": "accept",
            "_annotator_id": f"a{a}",
            "_timestamp": 1_700_000_000 + t,
            "config": {"choice_style": "single"},
        }
        for t in range(50)
        for a in range(3)
    ] + [
        {
            "_input_hash": t,
            "_task_hash": t,
            "_view_id": "classification",
            "label": "POS",
            "answer": ("accept", "reject", "ignore")[t % 3],
            "_session_id": "s",
        }
        for t in range(20)
    ]
    path = tmp_path / "db.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    ds = ProdigyJSONL(path).load()
    assert calls == []
    assert ds.stats.annotations == 170 and ds.stats.ignored == 6
    assert set(ds.field_kinds()) == {"choice", "classification"}


@pytest.mark.parametrize("unknown", [False, True])
def test_option_lists_that_differ_by_task_are_each_checked(
    unknown: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tasks with options of their own (a block holds many lists): still read column-wise, each
    accepted option checked against its own line's list; an option not in it is named."""
    lines = [
        {
            "_input_hash": t,
            "_view_id": "choice",
            "options": [{"id": f"T{t}"}, {"id": "X"}],
            "accept": ["T0" if unknown and t == 7 else f"T{t}"],
            "answer": "accept",
            "_annotator_id": f"a{a}",
        }
        for t in range(10)
        for a in range(2)
    ]
    path = tmp_path / "db.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    calls = _line_reader_calls(monkeypatch)
    if unknown:
        with pytest.raises(InputError, match=r"line 15: accepted option 'T0' is not among"):
            ProdigyJSONL(path).load()
        return
    ds = ProdigyJSONL(path).load()
    assert calls == []  # one block, column-wise
    assert ds.stats.annotations == 20
    assert [c.values for c in ds.columns().fields.values()] == [[(f"T{t}",) for t in range(10)]]


def _prodigy_lines(n: int) -> list[dict[str, Any]]:
    options = [{"id": x} for x in "ABC"]
    return [
        {
            "_input_hash": t,
            "_task_hash": -t,
            "_view_id": "choice",
            "options": options,
            "accept": ["ABC"[(t * a) % 3]],
            "answer": "accept",
            "_annotator_id": f"a{a}",
            "_timestamp": 1_700_000_000 + t,
            "config": {"choice_style": "multiple" if t == n - 1 else "single"},
        }
        for t in range(n)
        for a in range(3)
    ]


@pytest.mark.parametrize("odd", [None, 10, 250], ids=["clean", "odd-first-half", "odd-second-half"])
@pytest.mark.parametrize("skip", [False, True])
def test_two_processes_read_a_prodigy_file_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, odd: int | None, skip: bool
) -> None:
    """A forked child reads the second half; an odd line there (a span view, a bad line) makes
    this process read that half itself: the dataset, counts, line numbers and errors are the
    ones reading in one process gives."""
    lines: list[Any] = _prodigy_lines(100)
    if odd is not None:
        lines[odd] = "{bad"
        lines[odd + 3] = {
            "_input_hash": 1,
            "answer": "accept",
            "_view_id": "ner_manual",
            "_annotator_id": "a9",
            "spans": [],
            "text": "x",
        }
    path = tmp_path / "db.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))

    def read(workers: int) -> Dataset | str:
        try:
            return ProdigyJSONL(path, skip_invalid=skip, workers=workers).load()
        except InputError as exc:
            return str(exc)

    one = read(1)
    monkeypatch.setattr(_prodigy_source, "PARALLEL_MIN", 2)
    monkeypatch.setattr(_prodigy_source, "BLOCK", 4000)
    monkeypatch.setattr(_prodigy_source, "can_fork", lambda: True)
    forks: list[int] = []
    real = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or real())
    _same(read(2), one)
    assert forks == [1]
    if odd is None:
        assert isinstance(one, Dataset) and one.declared_multiple == {"choice": True}
    elif not skip:
        assert f"line {odd + 1}:" in str(one)


def test_two_processes_read_a_prodigy_span_file_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text span answers are read column-wise, so the forked child reads its half: the same
    regions, and each unit's text from its last line that gives one, as one process reads."""
    lines = [
        {
            "text": f"text {t} by {a}" if a != 2 else 3,
            "_input_hash": t % 40,
            "_view_id": "ner_manual" if t % 3 else "spans_manual",
            "spans": [{"start": s, "end": s + a, "label": "AB"[s % 2]} for s in range(t % 4)]
            + ([{"start": 0, "end": 1, "label": "A", "id": t}] if t % 7 == 0 else []),
            "answer": "accept" if t % 11 else "reject",
            "_timestamp": 1_700_000_000 + t,
            "_annotator_id": f"a{a}",
        }
        for t in range(100)
        for a in range(3)
    ]
    path = tmp_path / "db.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    one = ProdigyJSONL(path).load()
    monkeypatch.setattr(_prodigy_source, "PARALLEL_MIN", 2)
    monkeypatch.setattr(_prodigy_source, "BLOCK", 4000)
    monkeypatch.setattr(_prodigy_source, "can_fork", lambda: True)
    forks: list[int] = []
    real = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or real())
    calls = _line_reader_calls(monkeypatch)
    _same(ProdigyJSONL(path, workers=2).load(), one)
    texts = {(x["_input_hash"], x["_view_id"]) for x in lines if x["answer"] == "accept"}
    assert forks == [1] and not calls and set(one.texts) == texts


LINE_PIECES = st.sampled_from(
    [
        '{"_input_hash":1,"answer":"accept"}',
        '{"_input_hash":2,"answer":"ignore","_view_id":"choice","accept":["A"]}',
        '{"_input_hash":"h","answer":"reject","config":{"choice_style":"single"}}',
        '{"_input_hash":3,"answer":"accept","options":[{"id":"A"}],"text":"}\\n{"}',
        '{"_input_hash":3,',
        '"answer":"accept"}',
        '{"_input_hash":4,"answer":',
        '{"a":{}}',
        "{}",
        "}",
        "{",
        "",
        " ",
        "[1]",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(LINE_PIECES, min_size=1, max_size=8),
    breaks=st.lists(st.sampled_from(["\n", "\r\n", "\r", "", " ", "\n\n"]), min_size=8, max_size=8),
    end=st.sampled_from(["", "\n"]),
)
def test_a_block_decodes_as_its_lines_do(pieces: list[str], breaks: list[str], end: str) -> None:
    """``decode_block`` (one ``decode_lines`` call where each line is one object) gives the
    structs that decoding each line of ``bytes.splitlines`` gives, or None when one of those
    fails: objects spanning lines, two on a line, blank lines, ``\\r`` endings."""
    block = ("".join(p + b for p, b in zip(pieces, breaks, strict=False)).rstrip() + end).encode()
    try:
        expected: list[Any] | None = [_prodigy_typed._LINE.decode(x) for x in block.splitlines()]
    except (msgspec.ValidationError, msgspec.DecodeError):
        expected = None
    assert _prodigy_typed.decode_block(block) == expected


SCALARS = st.one_of(
    st.builds(
        lambda v: _result("choices", "c", "r1", {"choices": v}), st.lists(VALUES, max_size=2)
    ),
    st.builds(lambda v: _result("choices", "c", "r1", {"choices": v}), VALUES),
    st.builds(
        lambda v: _result("choices", "d", "r4", {"choices": v}), st.lists(VALUES, max_size=1)
    ),
    st.builds(
        lambda v: _result("rating", "r", "r2", {"rating": v}),
        st.one_of(st.integers(0, 5), st.none(), st.floats(-1e3, 1e3), st.just(1e300)),
    ),
    st.builds(lambda v: _result("number", "c", "r5", {"number": v}), st.integers(0, 2)),
    st.builds(lambda v: _result("textarea", "t", "r3", {"text": v}), st.lists(VALUES, max_size=2)),
    st.builds(lambda v: _result("textarea", "t", "r3", {"text": v}), VALUES),
    st.sampled_from(  # now and then a result only the task-by-task readers take
        [
            _result("choices", "c", "r1", {"choices": ["A"], "start": 1}),
            _result("choices", "c", "r1", {}),
            _result("labels", "ner", "s1", {"start": 0, "end": 1, "labels": ["A"]}),
            _result("Choices", "c", "r1", {"choices": ["B"]}),
        ]
    ),
)
TIMES = st.one_of(STAMPS.filter(lambda s: s not in ("", 7)), STAMPS.filter(lambda s: s != 7))
SCALAR_TASK = st.fixed_dictionaries(
    {
        "id": st.one_of(st.integers(1, 30), st.just("3")),
        "annotations": st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.integers(1, 4),
                    "completed_by": st.one_of(st.integers(1, 3), st.sampled_from(["x", "1"])),
                },
                optional={
                    "result": st.one_of(
                        st.lists(SCALARS, max_size=3, unique_by=lambda r: r["from_name"]),
                        st.lists(SCALARS, max_size=2),
                        st.none(),
                    ),
                    "created_at": STAMPS.filter(lambda s: s != 7),
                    "updated_at": STAMPS.filter(lambda s: s != 7),
                    "was_cancelled": st.booleans(),
                    "ground_truth": st.one_of(st.booleans(), st.none()),
                    "parent_prediction": st.none(),
                },
            ),
            max_size=3,
        ),
    },
    optional={"predictions": st.just([]), "data": st.just({"text": "x"})},
)
SCALAR_TASKS = st.one_of(
    st.lists(SCALAR_TASK, min_size=2, max_size=9, unique_by=lambda t: str(t["id"])),
    st.lists(SCALAR_TASK, min_size=2, max_size=9),
)
"""Exports whose batches are mostly read column-wise (:mod:`.batch`)."""


MIXED = [
    {"id": 1, "annotations": []},
    {
        "id": 2,
        "annotations": [
            {
                "id": 9,
                "completed_by": 3,
                "ground_truth": True,
                "result": [_result("choices", "c", "r1", {"choices": ["B"]})],
            },
            {
                "id": 1,
                "completed_by": 1,
                "result": [
                    _result("rating", "r", "r3", {"rating": None}),
                    _result("choices", "c", "r1", {"choices": "A"}),
                    _result("textarea", "t", "r2", {"text": ["A", "B"]}),
                ],
            },
        ],
    },
    {
        "id": 3,
        "annotations": [
            {"id": 2, "completed_by": "1", "result": [_result("number", "c", "r", {"number": 2})]},
            {"id": 3, "completed_by": 2, "was_cancelled": True, "ground_truth": True},
        ],
    },
    {
        "id": 4,
        "annotations": [
            {
                "id": 4,
                "completed_by": 2,
                "result": [
                    _result("rating", "r", "r3", {"rating": 3}),
                    _result("choices", "c", "r1", {"choices": ["B"]}),
                ],
            },
        ],
    },
]
"""Answers the batch reader turns into values: a choice given as a string, text lines, no
rating before a field's first rating, two kinds under one name, ground truth answering first,
one annotator written as an int and as a string."""


ROLLED_BACK = [
    {
        "id": 1,
        "annotations": [
            {"id": 1, "completed_by": 1, "result": [_result("choices", "c", "r1", {"choices": []})]}
        ],
    },
    {
        "id": 3,
        "annotations": [
            {
                "id": 2,
                "completed_by": 1,
                "result": [_result("choices", "c", "r1", {"choices": "A"})],
            },
            {
                "id": 3,
                "completed_by": 1,
                "result": [_result("rating", "r", "r2", {"rating": 1e300})],
            },
        ],
    },
]
"""Task 3 is begun by the batch reader, then left to the general parser (a rating agreement
cannot compare): the choice "A" it had coded must not stay in the field's values."""


_B, _A = (_result("choices", "c", "r1", {"choices": [x]}) for x in "BA")
CANCELLED_FIRST = [
    {"id": 1, "annotations": []},  # the first task is read alone
    {
        "id": 3,
        "annotations": [
            {"id": 1, "completed_by": 1, "was_cancelled": True, "result": [_B, _B]},
            {"id": 2, "completed_by": 2, "result": [_A]},
            {"id": 3, "completed_by": 3, "result": [_B]},
        ],
    },
    {"id": 2, "annotations": [{"id": 4, "completed_by": 1, "result": [_B]}]},
]
"""Result lists written alike are decoded once: the first of them is a cancelled
annotation's (whose results are not read, so it answers the field twice unrefused), and the
values are still coded in the order the rows first give them ("A", then "B")."""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(tasks=CANCELLED_FIRST, skip=False, truth=True, batch=4096)
@example(tasks=ROLLED_BACK, skip=True, truth=False, batch=1)
@example(tasks=MIXED, skip=False, truth=True, batch=4096)
@example(tasks=MIXED, skip=False, truth=False, batch=4096)
@given(
    tasks=SCALAR_TASKS,
    skip=st.booleans(),
    truth=st.booleans(),
    batch=st.sampled_from([1, 3, 4096]),
)
def test_the_batch_reader_agrees_with_the_general_parser(
    tasks: list[dict[str, Any]], skip: bool, truth: bool, batch: int
) -> None:
    """Batches of any size, each read column-wise or, when a task needs it, task by task:
    the same dataset, counts and errors as the general parser (two answers to one field,
    repeated ids, cancelled and ground-truth annotations, mixed kinds under one name)."""
    kw = {"skip_invalid": skip, "include_ground_truth": truth}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lse, "BATCH", batch)
        unique = len({str(t["id"]) for t in tasks}) == len(tasks)
        _same(_read(tasks, fast=True, **kw), _read(tasks, fast=False, **kw), values=unique)


def test_a_rollback_restores_the_rows_and_values_of_its_mark() -> None:
    """``Columns.rollback`` drops what was added since ``mark()``: rows, the values only they
    answered, fields they began; an older value they answered again stays. Its cost follows
    what was added, never the columns' size (a scan per rollback made an export whose every
    task falls back after two answers 4× slower at 30,000 tasks)."""
    from iaa_gate.model import Columns, FieldValue

    cols = Columns()
    cols.value(cols.row(1, "a", 0.0, 0.0), "c", FieldValue("choices", ("A",)))
    mark = cols.mark()
    for who, value in (("b", ("A",)), ("c", ("B",))):
        cols.value(cols.row(2, who, 0.0, 0.0), "c", FieldValue("choices", value))
    cols.value(cols.row(2, "c", 0.0, 0.0), "r", FieldValue("rating", 3.0))
    cols.rollback(mark)
    assert len(cols) == 1 and list(cols.fields) == ["c"]
    col = cols.fields["c"]
    assert (list(col.rows), list(col.codes), col.values, col.index) == (
        [0],
        [0],
        [("A",)],
        {("A",): 0},
    )


def test_a_plain_export_is_read_without_a_per_task_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shape of the common case: tasks with one answer per field are read batch by batch
    (no per-task reader call after the first task)."""
    calls: list[int] = []
    typed = lse.read_task
    monkeypatch.setattr(lse, "read_task", lambda *a: calls.append(1) or typed(*a))
    tasks = [
        {
            "id": t,
            "annotations": [
                {
                    "id": 3 * t + a,
                    "completed_by": a,
                    "result": [_result("choices", "c", "r", {"choices": ["ABC"[(t + a) % 3]]})],
                    "created_at": "2026-10-01T10:00:00Z",
                }
                for a in range(3)
            ],
        }
        for t in range(1, 200)
    ]
    fast = _read(tasks, fast=True)
    assert calls == [1]  # the first task, read alone (a JSON-MIN export is named)
    _same(fast, _read(tasks, fast=False))
    assert isinstance(fast, Dataset) and fast.stats.annotations == 597


@settings(max_examples=300, deadline=None)
@given(
    known=st.lists(st.one_of(st.integers(0, 9), st.sampled_from(["1", "a", ("a",)])), unique=True),
    keys=st.lists(st.one_of(st.integers(0, 12), st.sampled_from(["1", "a", "b", ("a",), ()]))),
)
def test_interning_a_list_is_interning_each_key(known: list[Any], keys: list[Any]) -> None:
    """``intern_all`` (one dict lookup per key, renumbered in numpy) gives the codes, table and
    index that interning the keys one by one gives."""
    index, table = {k: i for i, k in enumerate(known)}, list(known)
    one_index, one_table = dict(index), list(table)
    codes = intern_all(index, table, keys)
    assert codes.dtype == np.int64
    assert codes.tolist() == [intern(one_index, one_table, k) for k in keys]
    assert (index, table) == (one_index, one_table)
