"""An export file split after the fork (:func:`iaa_gate.adapters.label_studio.halves.read_split`):
each process reads and decodes its own half of the file, and the result is the one reading the
file in one process gives: the same dataset, or the same error naming the same task."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import assert_same_dataset as _same
from iaa_gate.adapters.label_studio import export as lse
from iaa_gate.adapters.label_studio import halves
from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.core.errors import InputError
from iaa_gate.model import Dataset
from test_fast_path import EXPORTS, TASKS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def split_every_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Split every export with ``workers=2``, however small."""
    monkeypatch.setattr(halves, "SPLIT_MIN", 0)
    monkeypatch.setattr(halves, "can_fork", lambda: True)


def _load(path: Path, **kw: Any) -> Dataset | str:
    """The dataset of the export at ``path``, or the message of the error that refuses it."""
    try:
        return LabelStudioExport(path, **kw).load()
    except InputError as exc:
        return str(exc)


def _bases(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The index in the export of the first task of each run of tasks this process reads."""
    seen: list[int] = []
    real, parent = lse._read, os.getpid()

    def spy(part: Any, tasks: Any, start: int, end: Any, *how: Any) -> Any:
        if os.getpid() == parent:
            seen.append(how[3] if len(how) > 3 else 0)
        return real(part, tasks, start, end, *how)

    monkeypatch.setattr(lse, "_read", spy)
    return seen


def _export(tmp: Path, tasks: list[dict[str, Any]], **kw: Any) -> Path:
    path = tmp / "export.json"
    path.write_text(json.dumps(tasks, **kw), encoding="utf-8")
    return path


def _task(i: int | str, who: int = 1, choice: str = "A") -> dict[str, Any]:
    result = [{"type": "choices", "from_name": "c", "to_name": "t", "value": {"choices": [choice]}}]
    return {"id": i, "annotations": [{"id": 1, "completed_by": who, "result": result}]}


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
@pytest.mark.parametrize("data_first", [False, True])
def test_the_childs_half_is_taken_as_it_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, separators: tuple[str, str], data_first: bool
) -> None:
    """A plain export (as Label Studio writes it, or with each task's data before its
    annotations): this process reads its half only (base 0); the child's half is joined, and
    the whole is what one process reads."""
    tasks = [_task(i, who=i % 3, choice="AB"[i % 2]) for i in range(1, 41)]
    if data_first:
        tasks = [{"id": t["id"], "data": {"text": "x"}, **t} for t in tasks]
    path = _export(tmp_path, tasks, separators=separators)
    one = _load(path)
    bases = _bases(monkeypatch)
    _same(_load(path, workers=2), one, values=True)
    assert bases == [0]


def test_an_id_in_both_halves_is_named_with_its_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Task 3 in each half: this process reads the child's half again, numbered from where
    it begins in the file, so the error names tasks #3 and #40 as reading in order does."""
    tasks = [_task(i) for i in range(1, 41)]
    tasks[39]["id"] = 3
    path = _export(tmp_path, tasks)
    one = _load(path)
    assert isinstance(one, str) and "the id occurs twice (tasks #3 and #40 in the list)" in one
    bases = _bases(monkeypatch)
    assert _load(path, workers=2) == one
    assert bases[0] == 0 and len(bases) == 2 and 0 < bases[1] < 40


def test_problems_in_the_childs_half_name_their_tasks(tmp_path: Path) -> None:
    """The child numbers its tasks from a stand-in: a problem (or a skipped task) there is
    found again by this process, with the task's place in the file."""
    tasks: list[Any] = [_task(i) for i in range(1, 41)]
    tasks[35] = {"annotations": []}  # no id
    path = _export(tmp_path, tasks)
    one = _load(path)
    assert isinstance(one, str) and "task #36 in the list: no task 'id'" in one
    assert _load(path, workers=2) == one
    _same(_load(path, workers=2, skip_invalid=True), _load(path, skip_invalid=True))


def test_a_guess_inside_a_task_reads_the_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Objects in a task's data that look like tasks, where the middle of the file falls: the
    comma found is not one of the list's, which decoding this process's half tells, and the
    file is read whole."""
    look_alike = [{"id": k, "annotations": []} for k in range(200)]
    tasks = [_task(1), {**_task(2), "data": {"items": look_alike}}, _task(3)]
    path = _export(tmp_path, tasks)
    data = path.read_bytes()
    comma = halves.split_at(path, 2)
    assert comma is not None and data.index(b'"items"') < comma < data.rindex(b'"id": 3')
    bases = _bases(monkeypatch)
    _same(_load(path, workers=2), _load(path), values=True)
    assert bases[0] == 0


@pytest.mark.parametrize("cut", [10, 300])
def test_a_cut_file_is_the_same_error(tmp_path: Path, cut: int) -> None:
    """A file cut short (in the child's half): the error of reading it in one process."""
    path = _export(tmp_path, [_task(i) for i in range(1, 41)])
    path.write_bytes(path.read_bytes()[:-cut])
    one = _load(path)
    assert isinstance(one, str) and "not a complete Label Studio JSON export" in one
    assert _load(path, workers=2) == one


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_bundled_exports_split_as_one_reads_them(path: Path) -> None:
    for kw in ({}, {"skip_invalid": True}, {"include_ground_truth": False}):
        _same(_load(path, workers=2, **kw), _load(path, **kw), values=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tasks=TASKS, skip=st.booleans(), truth=st.booleans(), at=st.integers(0, 1 << 16))
def test_a_file_split_at_any_comma_reads_as_one(
    tasks: list[dict[str, Any]], skip: bool, truth: bool, at: int
) -> None:
    """Ids repeated across the halves, problems in either half, skips and ground truth, and
    the file split at any of its commas, between two tasks or inside one: the file reads as
    it does in one process."""
    kw = {"skip_invalid": skip, "include_ground_truth": truth}
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as m:
        path = _export(Path(tmp), tasks)
        data = path.read_bytes()
        commas = [i for i, b in enumerate(data) if b == ord(",")]
        if commas:
            comma = commas[at % len(commas)]
            m.setattr(lse, "split_at", lambda path, workers: comma if workers > 1 else None)
        _same(_load(path, workers=2, **kw), _load(path, **kw), values=True)
