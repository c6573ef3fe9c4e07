"""The service's event parsing and state, without a server: every delivery order of the same
events, with duplicates, leaves the same annotations; a deletion is never undone by a late
delivery; a body that is not an event is refused."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.serve.events import BadEvent, parse_event
from iaa_gate.serve.state import State


def _ann(aid: int, task: int, who: int, label: str, updated: str) -> dict[str, Any]:
    return {
        "id": aid,
        "task": task,
        "completed_by": who,
        "result": [
            {"from_name": "s", "to_name": "t", "type": "choices", "value": {"choices": [label]}}
        ],
        "updated_at": updated,
    }


def _created(ann: dict[str, Any], action: str = "ANNOTATION_CREATED") -> dict[str, Any]:
    task = {"id": ann["task"], "data": {"text": "x"}, "meta": {}}
    return {"action": action, "project": {"id": 1}, "task": task, "annotation": ann}


EVENTS = [
    _created(_ann(1, 10, 1, "A", "2026-01-01T00:00:01Z")),
    _created(_ann(2, 10, 2, "B", "2026-01-01T00:00:02Z")),
    _created(_ann(2, 10, 2, "A", "2026-01-01T00:00:05Z"), "ANNOTATION_UPDATED"),
    _created(_ann(3, 11, 1, "B", "2026-01-01T00:00:03Z")),
    {"action": "ANNOTATIONS_DELETED", "project": {"id": 1}, "annotations": [{"id": 3}]},
    {
        "action": "ANNOTATIONS_CREATED",
        "project": {"id": 1},
        "task": [{"id": 12, "data": {}, "meta": {}}],
        "annotation": [_ann(4, 12, 1, "C", "2026-01-01T00:00:04Z")],
    },
    {"action": "TASKS_DELETED", "project": {"id": 1}, "tasks": [{"id": 12}]},
]


def _annotations(path: Path, events: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    state = State(path)
    for n, event in enumerate(events):
        with state.transaction():
            state.apply(parse_event(event), float(n))
    rows = state.db.execute("SELECT id, task, body FROM annotations ORDER BY id").fetchall()
    state.close()
    return [(a, t, json.loads(b)["result"][0]["value"]["choices"][0]) for a, t, b in rows]


def test_any_order_with_duplicates_gives_the_same_annotations(tmp_path: Path) -> None:
    expected = [(1, 10, "A"), (2, 10, "A")]  # 2 updated, 3 deleted, task 12 deleted
    assert _annotations(tmp_path / "in-order.db", EVENTS) == expected
    for n, order in enumerate(itertools.islice(itertools.permutations(EVENTS), 0, None, 97)):
        assert _annotations(tmp_path / f"{n}.db", [*order, *order[:3]]) == expected


def test_a_deleted_annotation_stays_deleted(tmp_path: Path) -> None:
    late = _created(_ann(3, 11, 1, "B", "2030-01-01T00:00:00Z"), "ANNOTATION_UPDATED")
    assert _annotations(tmp_path / "s.db", [*EVENTS, late]) == [(1, 10, "A"), (2, 10, "A")]


def test_changed_tasks_are_marked_once_with_the_first_arrival(tmp_path: Path) -> None:
    state = State(tmp_path / "s.db")
    with state.transaction():
        for n, event in enumerate(EVENTS[:3]):
            state.apply(parse_event(event), float(n))
        state.apply(parse_event(EVENTS[0]), 9.0)  # a duplicate changes nothing
    assert state.dirty() == {10: 0.0}


def test_a_snapshot_replaces_what_was_missed(tmp_path: Path) -> None:
    state = State(tmp_path / "s.db", clock=lambda: 0.0)
    with state.transaction():
        for n, event in enumerate(EVENTS[:4]):
            state.apply(parse_event(event), float(n))
    pulled = [
        {
            "id": 10,
            "data": {},
            "meta": {"iaa": {"status": "agreed"}},
            "annotations": [_ann(1, 10, 1, "A", "2026-01-01T00:00:01Z")],
        },
        {
            "id": 13,
            "data": {},
            "meta": {},
            "annotations": [_ann(9, 13, 3, "C", "2026-01-01T00:00:09Z")],
        },
    ]
    changed = state.snapshot(pulled, 1000.0)  # after every event (stored at time 0)
    assert changed == {10, 13}  # annotation 2 deleted while away, task 13 new; task 11 gone
    assert [int(json.loads(d)["id"]) for d in state.task_documents()] == [10, 13]
    assert state.all_meta("iaa") == {10: {"status": "agreed"}, 13: None}


@pytest.mark.parametrize(
    "body",
    [
        [],
        {"no": "action"},
        {"action": "ANNOTATION_CREATED", "annotation": {"id": 1}},  # names no task
        {"action": "ANNOTATION_CREATED", "task": {"id": "x"}, "annotation": {"id": 1}},
        {"action": "ANNOTATIONS_DELETED", "annotations": [{"id": None}]},
        {"action": "ANNOTATION_CREATED", "project": {"id": 1.5}, "task": {"id": 1}},
    ],
)
def test_bodies_that_are_not_events_are_refused(body: Any) -> None:
    with pytest.raises(BadEvent):
        parse_event(body)


def test_the_project_is_read_from_the_payload_or_the_annotation() -> None:
    assert parse_event(EVENTS[0]).project == 1
    event = {
        "action": "ANNOTATION_UPDATED",
        "annotation": {**EVENTS[0]["annotation"], "project": 4},
    }
    assert parse_event(event).project == 4
    assert parse_event({"action": "PROJECT_UPDATED"}).project is None


def test_what_arrives_while_the_pull_runs_survives_the_snapshot(tmp_path: Path) -> None:
    """The state's clock is set, not waited on: before the pull 100 s, the pull starts at 150 s,
    what arrives during it at 200 s."""
    clock = [100.0]
    state = State(tmp_path / "s.db", clock=lambda: clock[0])
    with state.transaction():
        state.apply(parse_event(EVENTS[0]), 100.0)  # annotation 1 on task 10, before the pull
    started = 150.0
    clock[0] = 200.0
    with state.transaction():  # during the pull: annotation 2, and a new task 14
        state.apply(parse_event(EVENTS[1]), 200.0)
        state.apply(parse_event(_created(_ann(7, 14, 1, "A", "2026-01-01T00:00:07Z"))), 200.0)
    pulled = [{"id": 10, "data": {}, "meta": {}, "annotations": []}]  # taken before both
    state.snapshot(pulled, started)
    ids = state.db.execute("SELECT id FROM annotations ORDER BY id").fetchall()
    assert ids == [(2,), (7,)]  # 1 was deleted before the pull; 2 and 7 are newer than it


def test_what_is_stored_as_the_pull_begins_counts_as_during_it(tmp_path: Path) -> None:
    """The snapshot removes only what the state learnt strictly before the pull began: what it
    learnt at that very time may be newer than the pull's page, and stays."""
    state = State(tmp_path / "s.db", clock=lambda: 5.0)
    with state.transaction():
        state.apply(parse_event(EVENTS[0]), 5.0)
    state.snapshot([{"id": 10, "data": {}, "meta": {}, "annotations": []}], 5.0)
    assert state.db.execute("SELECT id FROM annotations").fetchall() == [(1,)]
