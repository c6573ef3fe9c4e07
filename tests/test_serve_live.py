"""The live service's running sums against a batch run: after any sequence of webhook events,
applied to the state and to :class:`~iaa_gate.serve.live.Live` a few tasks at a time (the
changed tasks' old contributions out, the new ones in), each field's alpha, per-category and
per-annotator agreement and every task's status, score and labels equal what
:func:`~iaa_gate.pipeline.evaluate` says of the same state."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from iaa_gate.adapters.label_studio.export import parse_tasks
from iaa_gate.config import parse_config
from iaa_gate.core.errors import IaaGateError
from iaa_gate.pipeline import evaluate
from iaa_gate.serve.events import parse_event
from iaa_gate.serve.live import Live
from iaa_gate.serve.state import State
from iaa_gate.sinks.label_studio import entries

pytest.importorskip("starlette")

LABELS = ("A", "B", "C", "D")
LEVELS = {"ordinal": "ordinal", "interval": "interval", "ratio": "ratio"}


def _result(label: str, stars: int) -> list[dict[str, Any]]:
    return [
        {"from_name": "s", "to_name": "t", "type": "choices", "value": {"choices": [label]}},
        {"from_name": "r", "to_name": "t", "type": "rating", "value": {"rating": stars}},
    ]


# an event: (kind, task, annotator, label, stars); kind 0 saves, 1 deletes the annotation,
# 2 deletes the task
event_st = st.tuples(
    st.sampled_from([0] * 12 + [1] * 3 + [2]),
    st.integers(1, 12),
    st.integers(1, 4),
    st.sampled_from(LABELS),
    st.integers(1, 5),
)


def _body(kind: int, task: int, who: int, label: str, stars: int, n: int) -> dict[str, Any]:
    aid = 10 * task + who  # one annotation per (task, annotator), saved again on update
    if kind == 1:
        return {"action": "ANNOTATIONS_DELETED", "annotations": [{"id": aid}]}
    if kind == 2:
        return {"action": "TASKS_DELETED", "tasks": [{"id": task}]}
    ann = {
        "id": aid,
        "task": task,
        "completed_by": who,
        "result": _result(label, stars),
        "updated_at": f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}Z",
    }
    return {"action": "ANNOTATION_UPDATED", "task": {"id": task, "data": {}}, "annotation": ann}


def _dataset(state: State, ids: list[int] | None = None) -> Any:
    docs = [msgspec.Raw(d) for d in state.task_documents(ids)]
    return parse_tasks(docs, "state")


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return bool(a == pytest.approx(b, abs=1e-12))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(event_st, min_size=1, max_size=100),
    st.integers(1, 7),
    st.sampled_from(sorted(LEVELS)),
    st.floats(0.3, 0.9),
)
def test_running_sums_equal_a_batch_run(
    tmp_path: Path, events: list[Any], step: int, level: str, bar: float
) -> None:
    config = parse_config(
        {
            "version": 1,
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {
                "s": {"thresholds": {"disputed_below": bar}},
                "r": {"level": LEVELS[level], "thresholds": {"disputed_below": bar}},
            },
        },
        "test",
    )
    path = tmp_path / f"s{abs(hash((tuple(events), step, level, bar)))}.db"
    state = State(path)
    live: Live | None = None
    try:
        # the first event builds the state the running sums start from (as a first report)
        for n in range(0, len(events), step):
            batch = events[n : n + step]
            changed: set[int] = set()
            with state.transaction():
                for k, e in enumerate(batch):
                    body = _body(*e, n + k)
                    state.apply(parse_event(body), 0.0)
                    changed.add(e[1])
            if live is None:
                try:
                    outcome = evaluate(config, _dataset(state))
                except IaaGateError:
                    continue  # nothing to report yet: built once something is
                live = Live(config, _dataset(state), outcome.results)
            else:
                live.update(_dataset(state, sorted(changed)), changed)
        assume(live is not None)
        assert live is not None
        try:
            outcome = evaluate(config, _dataset(state))
        except IaaGateError:
            assume(False)
            return
    finally:
        state.close()
    for name, result in outcome.results.items():
        mine = live.fields[name]
        assert _close(mine.alpha(), result.alpha), name
        cats = mine.categories(result.category_method)
        assert cats.keys() == result.categories.keys(), name
        assert all(_close(cats[k], v) for k, v in result.categories.items()), name
        rows = mine.annotator_rows()
        assert set(rows) == {a.id for a in result.annotators}, name
        for a in result.annotators:
            row = rows[a.id]
            assert row["n_units"] == a.n_units
            assert _close(row["pair_agreement"], a.pair_agreement)
            assert _close(row["alpha_without"], a.alpha_without)
            assert _close(row["mean_offset"], a.mean_offset)
        assert mine.disputed() == sum(u.status == "disputed" for u in result.units)
    wanted = entries(outcome.results, "digest")
    ids = [int(t) for t in wanted] + list(range(1, 13))
    got = live.entries(ids)
    assert set(got) == {int(t) for t in wanted}
    for task, entry in wanted.items():
        fields = {n: msgspec.structs.replace(f, priority=None) for n, f in entry.fields.items()}
        assert got[int(task)] == fields, task


def test_a_task_changed_by_a_pull_adds_no_webhook_lag() -> None:
    """The flag lag is from a webhook's arrival to the flag: the tasks the start-up pull (or a
    reconciling pull) changed waited for no webhook and are not counted."""
    from iaa_gate.serve.metrics import Lags

    lags = Lags()
    lags.pulls.add(100.0)
    lags.observe(130.0, 100.0)  # flagged after the pull that began at 100
    assert lags.count == 0 and not lags.recent
    lags.observe(131.0, 130.5)  # a webhook that arrived at 130.5
    assert lags.count == 1 and lags.total == 0.5
