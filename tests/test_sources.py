"""Adapters on real-looking files, and every malformed case we could think of."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from builders import ls_annotation
from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.adapters.prodigy.source import ProdigyJSONL
from iaa_gate.core.errors import InputError
from iaa_gate.evaluation.matrix import ratings_matrix


def choice(label: str) -> tuple[str, dict]:
    return ("choices", {"choices": [label]})


def test_example_export_counts(examples: Path) -> None:
    ds = LabelStudioExport(examples / "label-studio" / "export.json").load()
    assert ds.stats.tasks == 250 and ds.stats.annotations == 738
    assert ds.stats.cancelled == 22 and ds.stats.superseded == 8  # a skip, then a label
    assert ds.field_kinds() == {
        "helpfulness": "rating",
        "notes": "textarea",
        "sentiment": "choices",
        "topics": "choices",
    }
    assert len(ds.task_ids) == 250  # tasks without annotations are kept


def test_completed_by_object_gives_names(examples: Path) -> None:
    ds = LabelStudioExport(examples / "label-studio" / "export-completed-by-object.json").load()
    assert ds.display_name("2").endswith("@example.com")


def test_latest_annotation_wins_and_cancelled_do_not_count(write_json) -> None:
    task = {
        "id": 1,
        "data": {"text": "x"},
        "annotations": [
            ls_annotation(2, 10, "2026-11-01T10:00:00Z", sentiment=choice("A")),
            ls_annotation(2, 11, "2026-11-03T10:00:00Z", sentiment=choice("B")),
            ls_annotation(3, 12, cancelled=True),
            ls_annotation(4, 13, sentiment=choice("B")),
        ],
        "predictions": [
            {"result": [{"from_name": "sentiment", "type": "choices", "value": {"choices": ["C"]}}]}
        ],
        "drafts": [{"result": []}],
    }
    ds = LabelStudioExport(write_json([task])).load()
    assert ds.stats.superseded == 1 and ds.stats.cancelled == 1
    m = ratings_matrix(ds, "sentiment")
    assert m.annotators == ["2", "4"] and m.labels_of(0) == {"2": "B", "4": "B"}


def test_pre_1_0_completions_and_object_wrapper(write_json) -> None:
    task = {
        "id": 5,
        "completions": [
            ls_annotation(1, 1, sentiment=choice("A")),
            ls_annotation(2, 2, sentiment=choice("A")),
        ],
    }
    assert len(LabelStudioExport(write_json([task])).load().annotations) == 2
    assert len(LabelStudioExport(write_json({"tasks": [task]}, "w.json")).load().annotations) == 2


@pytest.mark.parametrize(
    ("tasks", "message"),
    [
        ([{"data": {}}], "task #1 in the list: no task 'id'"),
        ([42], "expected an object"),
        ([{"id": 7, "annotations": {}}], "task 7: 'annotations' must be a list"),
        (
            [{"id": 7, "annotations": [{"id": 1, "result": []}]}],
            "task 7, annotation 1: no annotator",
        ),
        (
            [{"id": 7, "annotations": [{"id": 1, "completed_by": 2, "result": [{"value": {}}]}]}],
            "lacks 'from_name'",
        ),
        (
            [
                {
                    "id": 7,
                    "annotations": [
                        {
                            "id": 1,
                            "completed_by": 2,
                            "result": [
                                {"from_name": "s", "type": "choices", "value": {"choices": "A"}}
                            ],
                        }
                    ],
                }
            ],
            None,
        ),
        (
            [
                {
                    "id": 7,
                    "annotations": [
                        {
                            "id": 1,
                            "completed_by": 2,
                            "result": [
                                {"from_name": "s", "type": "choices", "value": {"choices": [1]}}
                            ],
                        }
                    ],
                }
            ],
            "field 's': 'choices' must be a list of strings",
        ),
        (
            [
                {
                    "id": 7,
                    "annotations": [
                        {
                            "id": 1,
                            "completed_by": 2,
                            "result": [
                                {"from_name": "r", "type": "rating", "value": {"rating": "five"}}
                            ],
                        }
                    ],
                }
            ],
            "'rating' must be a number",
        ),
        (
            [
                {
                    "id": 7,
                    "annotations": [
                        {"id": 1, "completed_by": 2, "updated_at": "yesterday", "result": []}
                    ],
                }
            ],
            "not ISO 8601",
        ),
    ],
)
def test_malformed_tasks_are_named(write_json, tasks: list, message: str | None) -> None:
    path = write_json(tasks)
    if message is None:  # a bare string where a list is expected is accepted as one label
        LabelStudioExport(path).load()
        return
    with pytest.raises(InputError) as err:
        LabelStudioExport(path).load()
    assert message in str(err.value) and str(path) in str(err.value)
    skipped = LabelStudioExport(path, skip_invalid=True).load()
    assert skipped.stats.invalid_skipped == 1 and message in skipped.stats.invalid_examples[0]


def test_errors_are_collected_together(write_json) -> None:
    with pytest.raises(InputError) as err:
        LabelStudioExport(write_json([{"data": {}}, 1, {"id": 3, "annotations": 5}])).load()
    assert len(err.value.problems) == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"id": 1}, {"id": 2', "line 1, task #2"),
        ('[{"id": 1}\n{"id": 2}]', "expected ','"),
        ('{"id": 1}', "expected a JSON list"),
        ("", "not valid JSON"),
        ('[{"id": 1}] trailing', "unexpected data"),
    ],
)
def test_broken_json_names_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        LabelStudioExport(path).load()


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        LabelStudioExport(tmp_path / "nope.json").load()
    (tmp_path / "bin.json").write_bytes(b"[\xff\xfe]")
    with pytest.raises(InputError, match="not UTF-8"):
        LabelStudioExport(tmp_path / "bin.json").load()


def test_unknown_label_names_the_task(write_json) -> None:
    task = {
        "id": 9,
        "annotations": [
            ls_annotation(1, 1, s=choice("Positiv")),
            ls_annotation(2, 2, s=choice("Positive")),
        ],
    }
    ds = LabelStudioExport(write_json([task])).load()
    with pytest.raises(InputError, match=r"task 9, field 's', annotator 1: label 'Positiv'"):
        ratings_matrix(ds, "s", labels=["Positive", "Negative"])


def test_value_kinds(write_json) -> None:
    ann = ls_annotation(
        1,
        1,
        multi=("choices", {"choices": ["B", "A"]}),
        tax=("taxonomy", {"taxonomy": [["Animal", "Cat"]]}),
        num=("number", {"number": 3.5}),
        notes=("textarea", {"text": ["  Hello\n World "]}),
        span=("labels", {"start": 0, "end": 3, "labels": ["PER"]}),
    )
    ds = LabelStudioExport(write_json([{"id": 1, "annotations": [ann]}])).load()
    fields = ds.annotations[0].fields
    assert fields["multi"].value == ("B", "A") and fields["tax"].value == ("Animal / Cat",)
    assert fields["num"].value == 3.5 and fields["notes"].value == "  Hello\n World "  # as typed
    assert ratings_matrix(ds, "notes", min_annotators=1).coded.values.tolist() == ["hello world"]
    assert ds.field_kinds()["span"] == "labels"


def test_prodigy_examples(examples: Path) -> None:
    binary = ProdigyJSONL(examples / "prodigy" / "binary.jsonl").load()
    assert binary.stats.ignored == 10 and binary.field_kinds() == {"classification": "choices"}
    assert {a.annotator for a in binary.annotations} == {
        "reviews-alex",
        "reviews-bea",
        "reviews-chris",
    }
    choice_ds = ProdigyJSONL(examples / "prodigy" / "choice.jsonl").load()
    m = ratings_matrix(choice_ds, "choice")
    assert list(m.coded.values) == ["NEG", "NEU", "POS"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not valid JSON"),
        ("[1, 2]", "line 2: expected a JSON object"),
        ('{"answer": "accept"}', "no '_input_hash'"),
        ('{"_input_hash": 1, "answer": "accept"}', "no '_annotator_id' or '_session_id'"),
        ('{"_input_hash": 1, "_session_id": "s", "answer": "maybe"}', "'answer' must be"),
    ],
)
def test_prodigy_malformed_lines(tmp_path: Path, line: str, message: str) -> None:
    good = json.dumps({"_input_hash": 1, "_annotator_id": "a", "answer": "accept", "label": "X"})
    path = tmp_path / "db.jsonl"
    path.write_text(f"{good}\n{line}\n")
    with pytest.raises(InputError, match=message):
        ProdigyJSONL(path).load()
    assert ProdigyJSONL(path, skip_invalid=True).load().stats.invalid_skipped == 1


def test_prodigy_session_fallback_and_choice_reject(tmp_path: Path) -> None:
    rows = [
        {
            "_input_hash": 1,
            "_session_id": "ds-ann",
            "answer": "accept",
            "accept": ["A"],
            "options": [{"id": "A"}],
            "_view_id": "choice",
        },
        {
            "_input_hash": 1,
            "_annotator_id": "b",
            "answer": "reject",
            "accept": [],
            "options": [{"id": "A"}],
            "_view_id": "choice",
        },
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ds = ProdigyJSONL(path).load()
    assert ratings_matrix(ds, "choice").labels_of(0) == {"b": "REJECT", "ds-ann": "A"}


def test_large_export_streams(tmp_path: Path) -> None:
    """Many tasks parse through the streaming reader with small chunks."""
    import iaa_gate.adapters.label_studio.jsonstream as js

    tasks = [
        {
            "id": i,
            "annotations": [
                ls_annotation(u, i * 10 + u, s=choice("AB"[(i + u) % 2])) for u in (1, 2, 3)
            ],
        }
        for i in range(500)
    ]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(tasks, indent=1))
    old = js.CHUNK
    js.CHUNK = 257
    try:
        ds = LabelStudioExport(path).load()
    finally:
        js.CHUNK = old
    assert len(ds.annotations) == 1500


def test_a_skipped_task_counts_no_annotation(write_json) -> None:
    """Under ``skip_invalid`` a task that breaks a rule is not read: its annotations before
    the broken one (an empty answer here) are not counted either."""
    tasks = [
        {"id": 1, "annotations": [ls_annotation(1, 1, s=("choices", {"choices": ["A"]}))]},
        {
            "id": 2,
            "annotations": [
                ls_annotation(1, 2, s=("choices", {"choices": []})),
                ls_annotation(2, 3, s=("choices", {"choices": "A", "x": math.nan})),
            ],
        },
    ]
    stats = LabelStudioExport(write_json(tasks), skip_invalid=True).load().stats
    assert (stats.tasks, stats.invalid_skipped) == (2, 1)
    assert (stats.annotations, stats.empty, stats.cancelled) == (1, 0, 0)
