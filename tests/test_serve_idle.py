"""The live service's idle signal is true: when it says idle, every write it decided is done.
Without a server: a fake Label Studio (:mod:`serve_fake`) under the real SDK, the worker's
steps run by the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from iaa_gate.serve.events import encode, parse_event
from iaa_gate.serve.inbox import now
from iaa_gate.serve.service import Service
from iaa_gate.serve.state import State
from serve_fake import FakeLabelStudio, config, connected

pytest.importorskip("starlette")

AGREED, DISPUTED = [1, 2, 3, 4], 5


def _project() -> FakeLabelStudio:
    tasks = [
        {"id": t, "data": {"text": f"review {t}"}, "meta": {}, "overlap": 2, "annotations": []}
        for t in [*AGREED, DISPUTED]
    ]
    fake = FakeLabelStudio(tasks)
    for t in AGREED:
        fake.annotate(t, 1, "Positive")
        fake.annotate(t, 2, "Positive")
    for who, label in enumerate(["Positive", "Positive", "Negative", "Neutral"], 1):
        fake.annotate(DISPUTED, who, label)  # a half share: open, Positive proposed
    return fake


@pytest.fixture
def fake() -> FakeLabelStudio:
    return _project()


@pytest.fixture
def service(fake: FakeLabelStudio, tmp_path: Path) -> Iterator[Service]:
    with connected(fake, config(tmp_path, route={"extra": 1, "max_annotations": 5})) as service:
        yield service


def _start(service: Service) -> State:
    """What the worker does first: the pull applied and reported."""
    state = State(service.settings.state)
    pulled = (now(), list(service.reconciler.pull()))
    service.reconciler.apply(state, pulled, service.counters)
    service.refresh(state, state.dirty(), full=True)
    service.ready.set()
    return state


def test_a_prediction_written_with_the_flags_goes_when_its_dispute_settles(
    fake: FakeLabelStudio, service: Service
) -> None:
    """The first report routes the dispute and proposes its answer in one write (the flags,
    the prediction, its id in the meta); the extra answer settles it before any later step
    looks at the task again: the step that scores it deletes the prediction it wrote (it once
    took its own record of the id for an edit in Label Studio, forgot the prediction, and
    said idle with it still there)."""
    state = _start(service)
    assert fake.own(DISPUTED), "the dispute got a consensus prediction"
    ann = fake.annotate(DISPUTED, 5, "Positive")  # three of five: settled
    state.push(encode(parse_event(fake.event(ann))), now())
    service.step(state)
    entry = fake.tasks[DISPUTED]["meta"]["iaa"]
    assert entry["state"] == "settled" and entry["disputed"] is False
    assert fake.own(DISPUTED) == []  # a settled dispute has its answer: no proposal
    state.close()
