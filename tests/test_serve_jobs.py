"""The live service's jobs without a server: an event is parsed once and queued as it was
parsed; the queue is applied and emptied; a reader waiting for the report wakes when the worker
reports (a condition variable, no polling); and the shape that keeps each job small."""

from __future__ import annotations

import ast
import json
import threading
from pathlib import Path

import pytest

from iaa_gate.serve.apply import apply_queued
from iaa_gate.serve.events import BadEvent, decode, encode, parse_event
from iaa_gate.serve.metrics import Counters
from iaa_gate.serve.report import Schedule
from iaa_gate.serve.state import State

SERVE = Path(__file__).resolve().parents[1] / "plugin" / "iaa_gate" / "serve"

BODY = {
    "action": "ANNOTATION_CREATED",
    "project": {"id": 1},
    "task": {"id": 10, "data": {"text": "x"}, "meta": {}, "annotations": [{"id": 9}]},
    "annotation": {"id": 1, "completed_by": 2, "result": [], "updated_at": "2026-01-01"},
}


def test_an_event_is_queued_as_it_was_parsed() -> None:
    event = parse_event(BODY)
    assert decode(encode(event)) == event
    assert event.annotations[0]["task"] == 10 and "annotations" not in event.tasks[0]


@pytest.mark.parametrize(
    "body",
    [
        BODY,  # a raw webhook body, as an earlier version queued it: never taken for an event
        {"action": "ANNOTATIONS_DELETED", "annotations": [{"id": 3}]},
        "not json",
    ],
)
def test_what_is_not_a_queued_event_is_refused(body: object) -> None:
    with pytest.raises(BadEvent):
        decode(json.dumps(body).encode() if not isinstance(body, str) else body.encode())


def test_the_queue_is_applied_in_order_and_emptied(tmp_path: Path) -> None:
    state = State(tmp_path / "s.db", clock=lambda: 0.0)
    second = {**BODY, "annotation": {**BODY["annotation"], "id": 2, "completed_by": 3}}
    state.push(encode(parse_event(BODY)), 5.0)
    state.push(json.dumps(BODY).encode(), 6.0)  # queued by an earlier version: skipped
    state.push(encode(parse_event(second)), 7.0)
    counters = Counters()
    assert apply_queued(state, counters) == {10: 5.0}  # the task's first event's arrival
    assert counters.applied == 2 and state.queued() == 0
    assert state.count() == (1, 2)
    assert apply_queued(state, counters) is None  # nothing queued


def test_a_reader_waits_for_the_worker_s_report() -> None:
    schedule = Schedule()
    schedule.applied()
    asked: list[int] = []

    def worker() -> None:  # what the worker does when woken: report the state's version
        version = schedule.begin()
        schedule.done(version)

    def wake() -> None:
        asked.append(schedule.version)
        threading.Thread(target=worker).start()

    schedule.wait(lambda: True, wake, timeout=600)
    assert schedule.reported == 1 and asked == [1]
    assert not schedule.lags and not schedule.due(queued=0)


def test_a_reader_does_not_wait_when_no_report_will_come() -> None:
    schedule = Schedule()
    schedule.applied()
    schedule.wait(lambda: False, pytest.fail, timeout=600)  # running sums off: steps report
    schedule.end()  # the worker stopped
    schedule.wait(lambda: True, lambda: None, timeout=600)
    assert schedule.reported == -1


def test_a_wanted_report_is_due_at_once() -> None:
    schedule = Schedule()
    schedule.applied()
    schedule.done(schedule.begin())
    schedule.applied()
    schedule.wanted = True
    assert schedule.due(queued=3)


def _attributes(cls: ast.ClassDef) -> set[str]:
    """A class's attributes: the fields of its body and what its methods set on ``self``."""
    names = {s.target.id for s in cls.body if isinstance(s, ast.AnnAssign)}
    names |= {t.id for s in cls.body if isinstance(s, ast.Assign) for t in s.targets}
    for node in ast.walk(cls):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Attribute) and getattr(t.value, "id", None) == "self":
                    names.add(t.attr)
    return names


def test_each_job_of_the_service_stays_small() -> None:
    for path in sorted(SERVE.glob("*.py")):
        text = path.read_text()
        assert len(text.splitlines()) <= 300, f"{path.name}: split it by job"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                found = _attributes(node)
                assert len(found) <= 12, f"{path.name}: {node.name} has {sorted(found)}"
