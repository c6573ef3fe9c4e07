"""Reading the Label Studio control types of issue 18 as Label Studio writes them: OCR (a
``<Labels>`` naming an image's Rectangle/Polygon regions, a per-region transcription), chat
per-message answers, Pairwise, TimelineLabels and audio spans in seconds; and ``init``'s
reasons for the controls it does not evaluate."""

from __future__ import annotations

from functools import partial
from typing import Any

import krippendorff
import numpy as np
import pytest

from builders import annotation_of as ann
from builders import load_export as load
from builders import ls_task
from iaa_gate import alpha
from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.adapters.label_studio.label_config import parse_label_config, starting_config
from iaa_gate.config import parse_config
from iaa_gate.core.errors import InputError
from iaa_gate.evaluation.analysis import analyse, not_evaluated
from iaa_gate.evaluation.matrix import region_table
from iaa_gate.metrics.rankings import kendall_w

task = partial(ls_task, data={"image": "/img.png"})


BOX = {"x": 10.0, "y": 20.0, "width": 30.0, "height": 15.0, "rotation": 0}


def ocr_box(rid: str, label: str, text: str) -> list[dict[str, Any]]:
    """One OCR region as Label Studio writes it: the rectangle, its labels and transcription,
    three results sharing the region's id."""
    base = {"id": rid, "to_name": "image", "original_width": 800, "original_height": 600}
    return [
        {**base, "from_name": "bbox", "type": "rectangle", "value": dict(BOX)},
        {**base, "from_name": "label", "type": "labels", "value": {**BOX, "labels": [label]}},
        {
            **base,
            "from_name": "transcription",
            "type": "textarea",
            "value": {**BOX, "text": [text]},
        },
    ]


def test_ocr_boxes_carry_the_labels_of_their_labels_result(write_json: Any) -> None:
    ds = load(
        write_json,
        [
            task(
                1,
                ann(1, ocr_box("a", "Text", "Total")),
                ann(2, ocr_box("b", "Handwriting", "Total")),
            ),
            task(2, ann(1, ocr_box("c", "Text", "Sum")), ann(2, ocr_box("d", "Text", "Sum"))),
        ],
    )
    assert ds.field_kinds() == {"bbox": "rectangle", "bbox.transcription": "textarea"}
    table = region_table(ds, "bbox")
    assert [table.labels[i] for i in table.label] == ["Text", "Handwriting", "Text", "Text"]
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {"bbox": {"matching": {"labels": True}}, "bbox.transcription": {}},
        }
    )
    results = analyse(ds, cfg)
    assert results["bbox"].regions is not None
    assert results["bbox"].coefficients["f1"].value == pytest.approx(0.5)  # one label differs
    assert results["bbox.transcription"].alpha == pytest.approx(1.0) or np.isnan(
        results["bbox.transcription"].alpha
    )


def test_labels_without_bounds_or_region_is_refused_by_region(write_json: Any) -> None:
    item = {"id": "z", "from_name": "label", "to_name": "image", "type": "labels"}
    bad = [task(1, ann(1, [{**item, "value": {**BOX, "labels": ["Text"]}}]))]
    with pytest.raises(InputError, match=r"region 'z'.*no region of the same id"):
        load(write_json, bad)


def chat(user: int, relevance: list[str], date: str = "ok") -> list[dict[str, Any]]:
    """A chat_rlhf-like result: a conversation-level rating, and per message a ``chatmessage``
    result and the ``relevance`` answer sharing its id (ids differ per annotator)."""
    out: list[dict[str, Any]] = [
        {
            "id": f"r{user}",
            "from_name": "rating",
            "to_name": "chat",
            "type": "rating",
            "value": {"rating": 4},
        },
    ]
    for n, rel in enumerate(relevance):
        mid = f"m{user}-{n}"
        role = ("user", "assistant")[n % 2]
        out.append(
            {
                "id": mid,
                "from_name": "chat",
                "to_name": "chat",
                "type": "chatmessage",
                "value": {"chatmessage": {"role": role, "content": f"message {n}"}},
            }
        )
        out.append(
            {
                "id": mid,
                "from_name": "relevance",
                "to_name": "chat",
                "type": "choices",
                "value": {"choices": [rel]},
            }
        )
        out.append(
            {
                "id": mid,
                "from_name": "when",
                "to_name": "chat",
                "type": "datetime",
                "value": {"datetime": date},
            }
        )
    return out


def test_chat_per_message_answers_are_scored_per_task_and_message(write_json: Any) -> None:
    """Each message is a unit, never one answer per task (where the last message's answer
    would overwrite the others); alpha checked against krippendorff over (task, message)."""
    answers = {
        1: [["A", "B"], ["A", "B"], ["A", "C"]],
        2: [["B", "B", "A"], ["B", "B", "A"], ["B", "A", "A"]],
    }
    tasks = [
        task(t, *(ann(u + 1, chat(u + 1, rel)) for u, rel in enumerate(rows)), data={"chat": []})
        for t, rows in answers.items()
    ]
    ds = load(write_json, tasks)
    kinds = ds.field_kinds()
    assert kinds["rating"] == "rating" and kinds["relevance"] == "message:choices"
    assert kinds["when"] == "permessage"  # a control type not scored per message: listed
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {"rating": {}, "relevance": {}},
        }
    )
    listed = not_evaluated(ds, cfg)
    assert listed["when"].startswith("permessage: an answer about one chat message")
    assert listed["chat"].startswith("chatmessage: ")
    got = analyse(ds, cfg)["relevance"]
    units = [row for rows in answers.values() for row in zip(*rows, strict=True)]
    code = {"A": 0.0, "B": 1.0, "C": 2.0}
    data = np.array([[code[x] for x in row] for row in units]).T
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert got.alpha == pytest.approx(ref) and got.alpha < 1
    assert [u.id for u in got.units] == [1, 2] and got.units[0].status == "disputed"
    # the disputed task names the message each answer is about
    assert got.units[0].labels["3"] == {"user: message 0": "A", "assistant: message 1": "C"}
    wrong = parse_config(
        {"source": {"type": "label-studio-export", "path": "x.json"}, "fields": {"when": {}}}
    )
    with pytest.raises(InputError, match=r"when.*permessage.*not score per message"):
        analyse(ds, wrong)


def test_results_without_an_id_are_about_no_message_and_no_listed_region(write_json: Any) -> None:
    """A chat message or a listed region (an ellipse) whose result has no id owns nothing: the
    task-level choices without ids stay one answer per task (hypothesis found them read as
    per-message answers, a KeyError and a wrong alpha)."""
    rows = [["A", "A", "A"], ["A", "A", None], ["A", None, "C"]]
    tasks = []
    for t, row in enumerate(rows, 1):
        anns = []
        for u, label in enumerate(row, 1):
            if label is None:
                continue
            item = {"from_name": "sentiment", "to_name": "text", "type": "choices"}
            result = [{**item, "value": {"choices": [label]}}]
            if u == 1:
                result.append({"from_name": "chat", "type": "chatmessage", "value": {}})
                result.append({"from_name": "e", "type": "ellipselabels", "value": {"x": 1}})
            anns.append(ann(u, result))
        tasks.append(task(t, *anns, data={"text": "t"}))
    ds = load(write_json, tasks)
    assert ds.field_kinds()["sentiment"] == "choices"
    cfg = parse_config(
        {"source": {"type": "label-studio-export", "path": "x.json"}, "fields": {"sentiment": {}}}
    )
    got = analyse(ds, cfg)["sentiment"]
    data = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, np.nan], [0.0, np.nan, 1.0]]).T
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert got.n_ratings == 7 and got.alpha == pytest.approx(ref)


def test_pairwise_selected_is_a_nominal_answer_checked_against_krippendorff(
    write_json: Any,
) -> None:
    picks = {
        1: ["left", "left", "right"],
        2: ["right", "right", "right"],
        3: ["left", "right", "left"],
        4: ["left", "left", "left"],
    }
    tasks = [
        task(
            t,
            *(
                ann(
                    u + 1,
                    [
                        {
                            "id": f"p{t}",
                            "from_name": "pw",
                            "to_name": "left",
                            "type": "pairwise",
                            "value": {"selected": s},
                        }
                    ],
                )
                for u, s in enumerate(row)
            ),
        )
        for t, row in picks.items()
    ]
    ds = load(write_json, tasks)
    cfg = parse_config(
        {"source": {"type": "label-studio-export", "path": "x.json"}, "fields": {"pw": {}}}
    )
    got = analyse(ds, cfg)["pw"]
    codes = np.array([[0 if s == "left" else 1 for s in row] for row in picks.values()]).T
    ref = krippendorff.alpha(reliability_data=codes.astype(float), level_of_measurement="nominal")
    assert got.alpha == pytest.approx(ref)
    triples = [(t, u, s) for t, row in picks.items() for u, s in enumerate(row)]
    assert alpha(triples) == pytest.approx(ref)
    bad = [
        task(
            1,
            ann(
                1,
                [
                    {
                        "id": "p",
                        "from_name": "pw",
                        "to_name": "left",
                        "type": "pairwise",
                        "value": {"selected": None},
                    }
                ],
            ),
        )
    ]
    with pytest.raises(InputError, match="'selected' must be 'left' or 'right'"):
        load(write_json, bad)


def test_timeline_ranges_are_frame_spans_and_audio_spans_index_no_text(write_json: Any) -> None:
    timeline = {
        "id": "t",
        "from_name": "tl",
        "to_name": "video",
        "type": "timelinelabels",
        "value": {
            "ranges": [{"start": 1, "end": 10}, {"start": 20, "end": 20}],
            "timelinelabels": ["Run"],
        },
    }
    audio = {
        "id": "s",
        "from_name": "speech",
        "to_name": "audio",
        "type": "labels",
        "value": {"start": 1.25, "end": 3.5, "channel": 0, "labels": ["Speech"]},
    }
    data = {"video": "/v.mp4", "audio": "/a.wav"}
    ds = load(
        write_json, [task(1, ann(1, [timeline, audio]), ann(2, [timeline, audio]), data=data)]
    )
    tl = region_table(ds, "tl")
    assert tl.geometry[:2].tolist() == [[1.0, 11.0], [20.0, 21.0]]  # inclusive frames
    assert tl.region_ids[:2] == ["t#1", "t#2"]
    speech = region_table(ds, "speech")
    assert speech.geometry[0].tolist() == [1.25, 3.5]
    assert speech.texts == [None] and tl.texts == [None]  # never the media URL as a text


def test_init_lists_every_control_with_its_reason() -> None:
    xml = """<View>
      <Video name="video" value="$video"/>
      <Labels name="videoLabels" toName="video"><Label value="Man"/></Labels>
      <VideoRectangle name="box" toName="video"/>
      <TimelineLabels name="tl" toName="video"><Label value="Run"/></TimelineLabels>
      <Image name="img" value="$img"/>
      <BrushLabels name="mask" toName="img"><Label value="Car"/></BrushLabels>
      <List name="items" value="$items"/>
      <Ranker name="rank" toName="items"/>
      <Pairwise name="pw" toName="a,b"/>
      <Text name="a" value="$a"/><Text name="b" value="$b"/>
      <MysteryControl name="odd" toName="a"/>
    </View>"""
    controls = {c.name: c for c in parse_label_config(xml)}
    assert set(controls) == {"videoLabels", "box", "tl", "mask", "rank", "pw", "odd"}
    assert controls["pw"].evaluated and controls["tl"].evaluated and controls["rank"].evaluated
    assert "not matched per frame" in str(controls["box"].reason)
    assert str(controls["videoLabels"].reason).startswith("it labels box regions: video object")
    assert controls["mask"].evaluated  # brush masks: matched by pixel IoU
    assert controls["odd"].reason == "iaa-gate does not read <MysteryControl> answers"
    text = starting_config(list(controls.values()), {"type": "label-studio-export"}, origin="x")
    for name in ("videoLabels", "box", "odd"):
        assert f"#   {name} (<" in text and str(controls[name].reason) in text
    only_video = [controls["videoLabels"], controls["box"]]
    with pytest.raises(InputError, match="no control of the labeling config can be evaluated"):
        starting_config(only_video, {"type": "label-studio-export"}, origin="x")


def ranking(tid: int, *answers: dict[str, list[str]]) -> dict[str, Any]:
    return task(
        tid,
        *(
            ann(
                u + 1,
                [
                    {
                        "id": f"k{tid}",
                        "from_name": "rank",
                        "to_name": "items",
                        "type": "ranker",
                        "value": {"ranker": a},
                    }
                ],
            )
            for u, a in enumerate(answers)
        ),
        data={"items": []},
    )


def test_rankings_are_scored_over_task_item_units_with_w_and_tau_b(write_json: Any) -> None:
    """Simple rankings and buckets (ties); alpha over (task, item) units checked against the
    krippendorff package at the ordinal level, W and tau-b per task against scipy."""
    from scipy.stats import kendalltau

    tasks = [
        ranking(1, {"rank": ["a", "b", "c"]}, {"rank": ["a", "c", "b"]}, {"rank": ["b", "a", "c"]}),
        ranking(
            2,
            {"good": ["x", "y"], "bad": ["z"]},
            {"good": ["x"], "bad": ["y", "z"]},
            {"good": ["x", "y"], "bad": ["z"], "rank": []},
        ),
    ]
    ds = load(write_json, tasks)
    assert ds.field_kinds() == {"rank": "ranker"}
    cfg = parse_config(
        {"source": {"type": "label-studio-export", "path": "x.json"}, "fields": {"rank": {}}}
    )
    got = analyse(ds, cfg)["rank"]
    # (task, item) units × annotators: ranks, ties sharing their bucket's rank
    units = np.array(
        [[1, 1, 2], [2, 3, 1], [3, 2, 3], [1, 1, 1], [1, 2, 1], [2, 2, 2]], dtype=float
    ).T
    ref = krippendorff.alpha(reliability_data=units, level_of_measurement="ordinal")
    assert got.alpha == pytest.approx(ref)
    assert got.n_tasks == 2 and [u.id for u in got.units] == [1, 2]
    assert got.units[1].labels["1"] == "x = y > z"
    first = np.array([[1, 2, 3], [1, 3, 2], [2, 1, 3]], dtype=float)
    second = np.array([[1, 1, 2], [1, 2, 2], [1, 1, 2]], dtype=float)
    w = [kendall_w(first), kendall_w(second)]
    assert got.units[0].score == pytest.approx(w[0]) and got.units[1].score == pytest.approx(w[1])
    assert got.coefficients["kendall_w"].value == pytest.approx(np.mean(w))
    taus = [
        np.mean([kendalltau(t[i], t[j]).statistic for i, j in ((0, 1), (0, 2), (1, 2))])
        for t in (first, second)
    ]
    assert got.coefficients["mean_tau_b"].value == pytest.approx(np.mean(taus))
    bad = [ranking(1, {"rank": ["a", "a"]})]
    with pytest.raises(InputError, match="an item occurs twice in the ranking"):
        load(write_json, bad)


def test_pairwise_position_bias_per_annotator(write_json: Any, tmp_path: Any) -> None:
    """How often each annotator picks the left item: in the result, report.json and
    report.md; an explicit tie (a third value) counts for neither side."""
    from iaa_gate.cli import main

    picks = {1: ["left", "left", "left", "right"], 2: ["left", "right", "tie", "right"]}
    tasks = [
        task(
            t + 1,
            *(
                ann(
                    u,
                    [
                        {
                            "id": f"p{t}",
                            "from_name": "pw",
                            "to_name": "left",
                            "type": "pairwise",
                            "value": {"selected": picks[u][t]},
                        }
                    ],
                )
                for u in picks
            ),
        )
        for t in range(4)
    ]
    path = write_json(tasks)
    ds = LabelStudioExport(path).load()
    cfg = parse_config(
        {"source": {"type": "label-studio-export", "path": "x.json"}, "fields": {"pw": {}}}
    )
    got = {a.id: a.left_share for a in analyse(ds, cfg)["pw"].annotators}
    assert got == {"1": pytest.approx(3 / 4), "2": pytest.approx(1 / 3)}
    config = tmp_path / "c.yaml"
    config.write_text(
        f"source: {{type: label-studio-export, path: {path}}}\nfields: {{pw: {{}}}}\n"
    )
    main(
        [
            "run",
            "-c",
            str(config),
            "--out",
            str(tmp_path / "r"),
            "-q",
            "--format",
            "json",
            "--format",
            "markdown",
        ]
    )
    import json

    doc = json.loads((tmp_path / "r" / "report.json").read_text())
    assert [a["left_share"] for a in doc["fields"]["pw"]["annotators"]] == [
        0.75,
        pytest.approx(1 / 3),
    ]
    assert "picks left" in (tmp_path / "r" / "report.md").read_text()


def test_answers_about_unscored_regions_are_listed_not_refused(write_json: Any) -> None:
    """A per-region choice on an ellipse (a region iaa-gate lists) is Label Studio's normal
    output: listed with its reason, never an error and never a task-level answer."""
    oval = {
        "id": "e",
        "from_name": "oval",
        "to_name": "image",
        "type": "ellipselabels",
        "value": {"x": 5, "y": 5, "radiusX": 2, "radiusY": 1, "ellipselabels": ["Cell"]},
    }
    kind = {
        "id": "e",
        "from_name": "kind",
        "to_name": "image",
        "type": "choices",
        "value": {"x": 5, "y": 5, "radiusX": 2, "radiusY": 1, "choices": ["Round"]},
    }
    stars = {"id": "s", "from_name": "stars", "type": "rating", "value": {"rating": 3}}
    ds = load(write_json, [task(1, ann(1, [oval, kind, stars]), ann(2, [oval, kind, stars]))])
    assert ds.field_kinds() == {"kind": "perregion", "oval": "ellipselabels", "stars": "rating"}
    source = {"type": "label-studio-export", "path": "x.json"}
    cfg = parse_config({"source": source, "fields": {"stars": {}}})
    listed = not_evaluated(ds, cfg)
    assert listed["kind"].startswith("perregion: an answer about one region of a control")
    assert listed["oval"] == "ellipselabels: ellipse regions are not matched yet"
