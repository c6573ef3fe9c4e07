"""Smoke tests proving the Label Studio harness: import, read back, export, meta write-back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .server import Annotator, LabelStudioServer

CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single">
    <Choice value="pos"/><Choice value="neg"/><Choice value="neu"/>
  </Choices>
  <Rating name="quality" toName="text" maxRating="5"/>
</View>"""
CHOICES = ("pos", "neg", "neu")
N_TASKS = 5  # read back with page_size=2: three pages, then a 404


def _result(choice: str, rating: int) -> list[dict[str, Any]]:
    return [
        {
            "from_name": "sentiment",
            "to_name": "text",
            "type": "choices",
            "value": {"choices": [choice]},
        },
        {"from_name": "quality", "to_name": "text", "type": "rating", "value": {"rating": rating}},
    ]


@pytest.fixture(scope="module")
def project(make_project: Callable[..., Any], annotators: list[Annotator]) -> Any:
    """N_TASKS tasks, each annotated by the three annotators; the very last one cancelled."""
    tasks = [
        {
            "data": {"text": f"text {i}"},
            "meta": {"source": "smoke"},
            "annotations": [
                {"completed_by": a.id, "result": _result(CHOICES[(i + j) % 3], j + 1)}
                for j, a in enumerate(annotators)
            ],
        }
        for i in range(N_TASKS)
    ]
    tasks[-1]["annotations"][-1] = {
        "completed_by": annotators[-1].id,
        "was_cancelled": True,
        "result": [],
    }
    return make_project(CONFIG, tasks)


def _user_id(completed_by: int | dict[str, Any]) -> int:
    return completed_by["id"] if isinstance(completed_by, dict) else completed_by


def _check(tasks: list[dict[str, Any]], annotators: list[Annotator]) -> None:
    """Every task is back with its three attributed annotations; exactly one is cancelled."""
    assert sorted(t["data"]["text"] for t in tasks) == [f"text {i}" for i in range(N_TASKS)]
    cancelled = 0
    for task in tasks:
        anns = task["annotations"]
        assert len(anns) == 3
        assert {_user_id(a["completed_by"]) for a in anns} == {a.id for a in annotators}
        for ann in anns:
            if ann["was_cancelled"]:
                cancelled += 1
                assert ann["result"] == []
            else:
                values = {r["from_name"]: r["value"] for r in ann["result"]}
                assert values["sentiment"]["choices"][0] in CHOICES
                assert 1 <= values["quality"]["rating"] <= 3
    assert cancelled == 1


def test_paged_task_list(
    label_studio: LabelStudioServer, project: Any, annotators: list[Annotator]
) -> None:
    _check(label_studio.list_tasks(project.id, page_size=2), annotators)


def test_include_filters_annotation_fields_too(
    label_studio: LabelStudioServer, project: Any
) -> None:
    """``include`` is one flat field list applied to tasks and to their annotations."""
    bare = label_studio.list_tasks(project.id, include="id,data,meta,annotations")
    assert all(set(a) == {"id"} for t in bare for a in t["annotations"])
    full = label_studio.list_tasks(
        project.id, include="id,data,meta,annotations,result,completed_by,was_cancelled"
    )
    assert {k for t in full for a in t["annotations"] for k in a} == {
        "id",
        "result",
        "completed_by",
        "was_cancelled",
    }


def test_export_all_tasks(
    label_studio: LabelStudioServer, project: Any, annotators: list[Annotator]
) -> None:
    path = f"/api/projects/{project.id}/export?exportType=JSON&download_all_tasks=true"
    _check(label_studio.api("GET", path), annotators)


def test_sdk_reads(ls_client: Any, project: Any, annotators: list[Annotator]) -> None:
    """SDK ``tasks.list`` (pages, fields=all by default) and ``projects.exports.as_json``."""
    listed = [
        {"data": t.data, "annotations": t.annotations}
        for t in ls_client.tasks.list(project=project.id, page_size=2)
    ]
    _check(listed, annotators)
    _check(ls_client.projects.exports.as_json(project.id), annotators)


def test_patch_replaces_whole_meta_and_data(
    ls_client: Any, make_project: Callable[..., Any]
) -> None:
    """PATCH ``meta`` or ``data`` replaces the dict: write-back must read, merge, then write."""
    proj = make_project(CONFIG, [{"data": {"text": "t"}, "meta": {"source": "smoke"}}])
    task_id = str(next(iter(ls_client.tasks.list(project=proj.id))).id)
    ls_client.tasks.update(id=task_id, meta={"iaa_flag": True})
    assert ls_client.tasks.get(id=task_id).meta == {"iaa_flag": True}  # "source" is gone
    current = ls_client.tasks.get(id=task_id)
    ls_client.tasks.update(id=task_id, meta={**current.meta, "iaa_round": 2})
    assert ls_client.tasks.get(id=task_id).meta == {"iaa_flag": True, "iaa_round": 2}
    ls_client.tasks.update(id=task_id, data={"iaa_flag": 1})
    assert ls_client.tasks.get(id=task_id).data == {"iaa_flag": 1}  # "text" is gone
