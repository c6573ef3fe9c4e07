"""Overlap that follows the plan, offline: which tasks are set to one annotator, the seeded
audit share, raising the overlap again, the tasks never touched, the config and the report's
line. The same against a real Label Studio server: tests/labelstudio/test_overlap.py."""

from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest

from iaa_gate.config import ConfigError, OverlapConfig, WriteBackConfig, parse_config
from iaa_gate.evaluation.overlap import OverlapWriteback
from iaa_gate.evaluation.sections import Writeback
from iaa_gate.sinks.label_studio_overlap import FieldWidth, TaskOverlap, audited, plan
from iaa_gate.sinks.report.format import overlap_text

CONFIG = OverlapConfig(target_width=0.10, audit=0.05, seed=7)
NARROW = [FieldWidth("sentiment", 0.09, 412), FieldWidth("stars", 0.1, 400)]
WIDE = [FieldWidth("sentiment", 0.09, 412), FieldWidth("stars", 0.11, 400)]


def open_tasks(n: int, overlap: int = 2, first: int = 1) -> list[TaskOverlap]:
    return [TaskOverlap(t, overlap, 0) for t in range(first, first + n)]


def test_the_audit_share_is_seeded_by_task_id_and_near_its_share() -> None:
    ids = range(1, 20_001)
    drawn = {t for t in ids if audited(t, 7, 0.05)}
    assert drawn == {t for t in reversed(ids) if audited(t, 7, 0.05)}  # order never matters
    assert 0.045 < len(drawn) / len(ids) < 0.055
    other = {t for t in ids if audited(t, 8, 0.05)}
    assert other != drawn and 0.045 < len(other) / len(ids) < 0.055
    # a larger share keeps every task of a smaller one: raising audit never drops an audit task
    assert drawn <= {t for t in ids if audited(t, 7, 0.10)}
    assert not any(audited(t, 7, 0.0) for t in ids) and all(audited(t, 7, 1.0) for t in ids)


def test_once_every_field_is_narrow_enough_the_open_tasks_get_one_annotator() -> None:
    tasks = open_tasks(2_000)
    p = plan(NARROW, tasks, 2, CONFIG)
    audit = {t.id for t in tasks if audited(t.id, 7, 0.05)}
    assert p.settled
    assert p.changes == {t.id: 1 for t in tasks if t.id not in audit}
    assert (p.open, p.audit, p.single, p.raised) == (2_000, len(audit), 2_000 - len(audit), 0)


def test_one_wide_or_undefined_field_keeps_the_overlap() -> None:
    tasks = open_tasks(100)
    assert not plan(WIDE, tasks, 2, CONFIG).settled
    assert plan(WIDE, tasks, 2, CONFIG).changes == {}
    undefined = [*NARROW, FieldWidth("topics", math.nan, 3, "fewer than two values")]
    assert not plan(undefined, tasks, 2, CONFIG).settled
    assert not plan([], tasks, 2, CONFIG).settled  # nothing measured: nothing settled


def test_a_wider_interval_raises_the_open_tasks_again() -> None:
    tasks = open_tasks(500)
    lowered = plan(NARROW, tasks, 2, CONFIG)
    now = [TaskOverlap(t.id, lowered.changes.get(t.id, t.overlap), 0) for t in tasks]
    again = plan(WIDE, now, 2, CONFIG)
    assert again.changes == dict.fromkeys(lowered.changes, 2)
    assert again.raised == len(lowered.changes) and again.single == 0


def test_answered_tasks_and_tasks_raised_above_the_project_are_never_touched() -> None:
    tasks = [
        TaskOverlap(1, 2, 1),  # one annotation: its second annotator still comes
        TaskOverlap(2, 3, 2),  # re-opened for a third annotator (dispute routing)
        TaskOverlap(3, 2, 0),
        TaskOverlap(4, 3, 0),  # raised above the project's overlap by someone, not answered
        TaskOverlap(5, 1, 1),  # skipped once (a cancelled annotation counts)
    ]
    never = OverlapConfig(target_width=0.10, audit=0.0)
    assert plan(NARROW, tasks, 2, never).changes == {3: 1}
    assert plan(WIDE, [TaskOverlap(1, 1, 1), TaskOverlap(3, 1, 0)], 2, never).changes == {3: 2}


def test_the_plan_is_idempotent() -> None:
    tasks = open_tasks(300)
    first = plan(NARROW, tasks, 2, CONFIG)
    after = [TaskOverlap(t.id, first.changes.get(t.id, t.overlap), 0) for t in tasks]
    second = plan(NARROW, after, 2, CONFIG)
    assert second.changes == {} and (second.single, second.audit) == (first.single, first.audit)


def summary(**over: Any) -> Writeback:
    base: dict[str, Any] = {
        "target_width": 0.1,
        "settled": True,
        "fields": [{"field": "sentiment", "width": 0.09, "overlapped_tasks": 412}],
        "maximum_annotations": 2,
        "open_tasks": 1588,
        "single": 1505,
        "audit": 83,
        "annotations_saved": 1505,
        "planned": 0,
        "raised": 0,
        "dry_run": False,
        "done": 0,
        "answered_meanwhile": 0,
        "failed": 0,
    }
    overlap = msgspec.convert(base | over, OverlapWriteback)
    return Writeback(target="label-studio", project=5, done=0, unchanged=9, overlap=overlap)


def test_the_report_says_what_was_done_and_what_it_saved() -> None:
    assert overlap_text(summary()) == (
        "overlap: sentiment: width 0.09 ≤ 0.10 after 412 overlapped tasks; 1,588 tasks set to "
        "one annotator (83 kept for audit): 1,505 annotations saved"
    )
    wide = summary(
        settled=False,
        fields=[{"field": "sentiment", "width": 0.13, "overlapped_tasks": 240}],
        open_tasks=1760,
        single=0,
        audit=0,
        annotations_saved=0,
        planned=3,
        raised=3,
        done=3,
    )
    assert overlap_text(wide) == (
        "overlap: sentiment: width 0.13 > 0.10 after 240 overlapped tasks; the 1,760 tasks not "
        "yet labelled keep the project's overlap (2 annotators), 3 raised again; 3 tasks written"
    )
    undefined = {"field": "stars", "width": None, "overlapped_tasks": 1, "undefined": "one value"}
    assert "stars: width undefined (one value) after 1 overlapped tasks" in str(
        overlap_text(summary(settled=False, fields=[undefined]))
    )
    assert str(overlap_text(summary(dry_run=True, planned=1505))).endswith(
        "1,588 tasks would be set to one annotator (83 kept for audit): 1,505 annotations "
        "saved; dry run: 1,505 tasks would change"
    )
    assert overlap_text(Writeback(target="label-studio")) is None


def test_overlap_needs_write_back_and_a_label_studio_project() -> None:
    with pytest.raises(ValueError, match=r"writeback\.overlap needs writeback\.enabled"):
        WriteBackConfig(overlap=CONFIG)
    wb = {"enabled": True, "overlap": {"target_width": 0.1, "audit": 0.05, "seed": 7}}
    ls = {"type": "label-studio", "url": "http://127.0.0.1:1", "project": 1, "api_key": "k" * 8}
    config = parse_config({"source": ls, "fields": {"s": {}}, "writeback": wb})
    assert config.writeback.overlap == CONFIG
    prodigy = {"type": "prodigy", "path": "db-out.jsonl"}
    with pytest.raises(ConfigError, match="overlap sets Label Studio's per-task overlap"):
        parse_config({"source": prodigy, "fields": {"s": {}}, "writeback": wb})
    with pytest.raises(ConfigError, match="audit"):
        parse_config(
            {
                "source": ls,
                "fields": {"s": {}},
                "writeback": {**wb, "overlap": {"target_width": 0.1, "audit": 2}},
            }
        )


def test_the_terminal_gives_the_overlap_under_the_write_back() -> None:
    from iaa_gate.sinks.report.format import writeback_lines

    lines = writeback_lines(summary(planned=1505, done=1505))
    assert lines[1] == "  " + str(overlap_text(summary(planned=1505, done=1505)))
    assert lines[1].endswith("1,505 annotations saved; 1,505 tasks written")


def test_tasks_that_cannot_be_listed_leave_every_overlap_and_say_why() -> None:
    """A listing that fails writes nothing; the summary and a warning say why (exit 3)."""
    from types import SimpleNamespace

    from iaa_gate.adapters.label_studio.client import LabelStudioError
    from iaa_gate.sinks.label_studio_overlap import LabelStudioOverlap

    sent: list[str] = []

    def request(method: str, path: str, doing: str, **_: Any) -> Any:
        sent.append(method)
        raise LabelStudioError(f"Label Studio answered 502 {doing}")

    source = SimpleNamespace(api=SimpleNamespace(request=request), project_id=5)
    warnings: list[str] = []
    out = LabelStudioOverlap(source, CONFIG).apply({}, warnings=warnings)  # type: ignore[arg-type]
    assert sent == ["GET"] and out.failed == 1 and out.error and "502" in out.error
    assert warnings == [f"overlap not set: {out.error}; the next run sets it"]
    wb = Writeback(target="label-studio", overlap=out)
    assert overlap_text(wb) == f"overlap: not set ({out.error})" and not wb.complete


def test_a_batch_that_cannot_be_read_again_is_not_written() -> None:
    """Each batch is read again right before its writes; when that read fails, none of its
    tasks is written (a task may have been answered meanwhile) and each is listed as failed."""
    from types import SimpleNamespace

    from iaa_gate.adapters.label_studio.client import LabelStudioError
    from iaa_gate.sinks.label_studio_overlap import LabelStudioOverlap

    sent: list[str] = []

    def request(method: str, path: str, doing: str, **kw: Any) -> Any:
        sent.append(method)
        if path.startswith("api/projects/"):
            return {"maximum_annotations": 2}
        if "query" in kw["params"]:
            raise LabelStudioError("Label Studio answered 502 re-reading")
        return {"tasks": [{"id": 1, "overlap": 1, "total_annotations": 0}]}  # to raise

    source = SimpleNamespace(api=SimpleNamespace(request=request), project_id=5)
    never = OverlapConfig(target_width=0.1, audit=0.0)
    warnings: list[str] = []
    out = LabelStudioOverlap(source, never).apply(  # type: ignore[arg-type]
        {}, warnings=warnings
    )
    assert not out.settled and (out.planned, out.raised, out.done, out.failed) == (1, 1, 0, 1)
    assert "PATCH" not in sent and out.failed_tasks
    assert out.failed_tasks[0].id == 1 and "502" in out.failed_tasks[0].error
    assert warnings and warnings[0].startswith("overlap not written for 1 task(s)")
