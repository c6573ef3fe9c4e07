"""Label Studio region answers read a batch at a time (:mod:`.batch`) hold the same columns as
the task-by-task typed reader gives them: the same rows, region columns (ids, labels, geometry
bit for bit), texts, counts, problems and errors; anything outside the common shape (an
annotation's spans or boxes of one field, each with an id and one label) is left to it."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from builders import assert_same_dataset
from iaa_gate.adapters.label_studio import batch as batch_reader
from iaa_gate.adapters.label_studio import export as lse
from iaa_gate.adapters.label_studio.export import parse_tasks
from iaa_gate.core.errors import InputError
from iaa_gate.model import Columns, Dataset


def _read(tasks: Any, batch: bool, size: int = 4096, chunk: int = 64, **kw: Any) -> Dataset | str:
    """The dataset of ``tasks`` (elements of an export), read in batches of ``size`` (region
    answers in chunks of ``chunk``) or (not ``batch``) task by task by the typed reader; the
    error message when it is refused."""
    items = msgspec.json.decode(json.dumps(tasks).encode(), type=list[msgspec.Raw])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lse, "BATCH", size)
        mp.setattr(batch_reader, "REGION_CHUNK", chunk)
        if not batch:
            mp.setattr(lse, "read_tasks", lambda *a: None)
        try:
            return parse_tasks(items, "export.json", **kw)
        except InputError as exc:
            return str(exc)


def _contents(cols: Columns) -> Any:
    """Everything ``cols`` holds, typed arrays as bytes (a -0.0 is not a 0.0)."""

    def plain(v: Any) -> Any:
        return v.tobytes() if hasattr(v, "tobytes") else v

    out: dict[str, Any] = {
        k: plain(v) for k, v in vars(cols).items() if k not in ("fields", "task_index")
    }
    for name, col in cols.fields.items():
        rc = col.regions
        regions = None if rc is None else {k: plain(v) for k, v in vars(rc).items()}
        if rc is not None:
            regions["attributes"] = {k: (plain(r), v) for k, (r, v) in rc.attributes.items()}
        out[name] = (col.kind, plain(col.rows), plain(col.codes), col.values, regions)
    return out


def _same(a: Dataset | str, b: Dataset | str) -> None:
    assert_same_dataset(a, b, values=True)
    if isinstance(a, Dataset) and isinstance(b, Dataset):
        assert _contents(a.columns()) == _contents(b.columns())


TEXT = "lorem ipsum dolor sit amet"
LABEL = st.sampled_from(["PER", "ORG", "LOC"])
LABELS = st.one_of(*[LABEL.map(lambda x: [x])] * 30, st.lists(LABEL, max_size=2))
"""Mostly one label (the common shape), now and then none or two."""
REGION_ID = st.one_of(st.sampled_from(["r1", "r2", "r3"]), st.just(7))  # now and then an int


@st.composite
def spans(draw: Any) -> dict[str, Any]:
    start = draw(st.one_of(*[st.integers(0, 20)] * 30, st.just(-1), st.just(1.0)))
    end = draw(st.one_of(*[st.integers(0, 26)] * 30, st.just(True)))
    value: dict[str, Any] = {"start": start, "end": end, "labels": draw(LABELS)}
    if draw(st.integers(0, 30)):
        value["text"] = TEXT[start:end] if type(start) is int and type(end) is int else "x"
    return {
        "id": draw(REGION_ID),
        "from_name": draw(st.sampled_from(["ner", "ner", "ner2"])),
        "to_name": draw(st.sampled_from(["text"] * 6 + ["other"])),
        "type": draw(st.sampled_from(["labels"] * 40 + ["rectanglelabels"])),
        "value": value,
    }


NUMBER = st.one_of(
    *[st.integers(0, 100), st.floats(0, 100)] * 30, st.just(-0.0), st.just(True), st.just("5")
)


@st.composite
def boxes(draw: Any) -> dict[str, Any]:
    value: dict[str, Any] = {k: draw(NUMBER) for k in ("x", "y", "width", "height")}
    value["rectanglelabels"] = draw(LABELS)
    rotation = draw(st.one_of(st.none(), st.just(0), st.just(-0.0), st.floats(-90, 90)))
    if rotation is not None or draw(st.booleans()):
        value["rotation"] = rotation
    result: dict[str, Any] = {
        "id": draw(REGION_ID),
        "from_name": draw(st.sampled_from(["box", "box", "box2"])),
        "to_name": "image",
        "type": draw(st.sampled_from(["rectanglelabels"] * 40 + ["labels"])),
        "value": value,
    }
    size = st.one_of(*[st.integers(0, 800)] * 4, st.none(), st.floats(0, 800), st.just("1"))
    for key in ("original_width", "original_height"):
        if draw(st.integers(0, 3)):
            result[key] = draw(size)
    return result


@st.composite
def _answer(draw: Any, results: Any, clean: bool) -> list[dict[str, Any]]:
    """An annotation's results; ``clean``: mostly of one field and text (the common shape)."""
    items: list[dict[str, Any]] = draw(st.lists(results, max_size=4))
    if clean and draw(st.integers(0, 9)):
        field, to = draw(st.sampled_from(["a", "b"])), draw(st.sampled_from(["text", "other"]))
        for n, item in enumerate(items):
            item["from_name"], item["id"], v = field, str(n), item["value"]
            if "start" in v:  # a span
                item["to_name"] = to
                v["start"], v["end"] = sorted(int(v[k]) % 20 for k in ("start", "end"))
                v["text"], v["labels"] = "x", v["labels"][:1] or ["PER"]
            else:
                for k in ("x", "y", "width", "height"):
                    v[k] = v[k] if type(v[k]) in (int, float) else 1.5
                v["rectanglelabels"] = v["rectanglelabels"][:1] or ["car"]
                for k in ("original_width", "original_height"):
                    if type(item.get(k)) is str:
                        del item[k]
    return items


def _tasks(results: Any, clean: bool) -> Any:
    annotation = st.fixed_dictionaries(
        {
            "id": st.integers(1, 9),
            "completed_by": st.one_of(st.integers(1, 3), st.sampled_from(["x", "1"])),
        },
        optional={
            "result": st.one_of(*[_answer(results, clean)] * 4, st.none()),
            "created_at": st.sampled_from(
                ["2026-10-01T10:00:00Z"] * 9 + ["2026-10-01 10:00", None]
            ),
            "was_cancelled": st.booleans(),
            "ground_truth": st.one_of(st.booleans(), st.none()),
        },
    )
    data = st.one_of(
        *[st.just({"text": TEXT, "other": TEXT[:9], "image": "a.png"})] * (9 if clean else 1),
        st.just({"text": TEXT}),
        st.just({"text": 3}),
        st.just([]),
    )
    task = st.fixed_dictionaries(
        {
            "id": st.one_of(st.integers(1, 30), st.just("3")),
            "annotations": st.lists(annotation, max_size=3),
        },
        optional={"data": data, "predictions": st.just([])},
    )
    if clean:  # no task id twice
        return st.lists(task, min_size=2, max_size=9, unique_by=lambda t: str(t["id"]))
    return st.lists(task, min_size=2, max_size=9)


PLAIN = [
    {
        "id": t,
        "data": {"text": TEXT},
        "annotations": [
            {
                "id": 3 * t + a,
                "completed_by": a,
                "ground_truth": a == 0,
                "result": [
                    {
                        "id": f"{t}-{a}-{k}",
                        "from_name": "ner",
                        "to_name": "text",
                        "type": "labels",
                        "value": {
                            "start": 2 * k,
                            "end": 2 * k + a,
                            "text": TEXT[2 * k : 2 * k + a],
                            "labels": ["PER" if k % 2 else "ORG"],
                        },
                    }
                    for k in range(t % 4)
                ],
            }
            for a in range(3)
        ],
    }
    for t in range(1, 12)
]
"""Spans read batch by batch, ground truth first in each task, some annotations empty."""

HUGE = [
    PLAIN[1],
    {
        "id": 99,
        "data": {"text": TEXT},
        "annotations": [
            {
                "id": 1,
                "completed_by": 1,
                "result": [
                    {
                        "id": "r",
                        "from_name": "ner",
                        "to_name": "text",
                        "type": "labels",
                        "value": {"start": 2**63 + 5, "end": 2**64, "text": "", "labels": ["A"]},
                    }
                ],
            }
        ],
    },
]
"""An offset no int64 holds (msgspec decodes any int): left to the typed reader."""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(tasks=PLAIN, skip=False, truth=False, size=4096, chunk=64)
@example(tasks=PLAIN, skip=False, truth=True, size=3, chunk=2)
@example(tasks=HUGE, skip=False, truth=True, size=4096, chunk=64)
@given(
    tasks=st.one_of(*(_tasks(r, c) for r in (spans(), boxes()) for c in (True, False))),
    skip=st.booleans(),
    truth=st.booleans(),
    size=st.sampled_from([1, 3, 4096]),
    chunk=st.sampled_from([1, 2, 64]),
)
def test_region_batches_read_as_task_by_task(
    tasks: list[dict[str, Any]], skip: bool, truth: bool, size: int, chunk: int
) -> None:
    """Spans and boxes, valid or not (two labels, no label, reversed or negative offsets, a
    bool or text as a number, no text, an unknown text, ints as ids, two fields or kinds in
    one annotation, repeated task ids, cancelled and ground-truth annotations): the same
    columns, problems and errors in batches and chunks of any size (a batch read up to its
    first chunk with another task) as task by task."""
    kw = {"skip_invalid": skip, "include_ground_truth": truth}
    _same(_read(tasks, True, size, chunk, **kw), _read(tasks, False, **kw))


def _never(*a: Any) -> None:
    raise AssertionError("a region batch's result lists decoded as scalar answers")


def test_region_batches_take_no_per_task_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """The common span and box answers are read a batch at a time: no task-by-task reader
    after the first task (read alone, so that a JSON-MIN export is named), and no batch of
    them is decoded as scalar answers first (refused at its first task's results)."""
    boxes = [
        {
            "id": t,
            "annotations": [
                {
                    "id": t,
                    "completed_by": 1,
                    "result": [
                        {
                            "id": "b",
                            "from_name": "box",
                            "to_name": "image",
                            "type": "rectanglelabels",
                            "original_width": 640,
                            "original_height": 480,
                            "value": {
                                "x": 10,
                                "y": 20.5,
                                "width": 30,
                                "height": 40,
                                "rotation": 0,
                                "rectanglelabels": ["car"],
                            },
                        }
                    ],
                }
            ],
        }
        for t in range(1, 40)
    ]
    typed = lse.read_task
    for tasks in (PLAIN, boxes):
        calls: list[int] = []
        monkeypatch.setattr(lse, "read_task", lambda *a, c=calls: c.append(1) or typed(*a))
        monkeypatch.setattr(batch_reader, "_Lists", _never)
        read = _read(tasks, True)
        assert calls == [1]
        monkeypatch.undo()
        _same(read, _read(tasks, False))


def test_region_chunks_with_new_names_read_as_task_by_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chunk is first decoded with the field, text and labels of the chunks before as
    literals; a chunk with a new label, another field or another text fails that decode and
    is read as before: the same columns as task by task, and the literal decode was used."""
    tasks = json.loads(json.dumps(PLAIN))
    for task in tasks:
        for ann in task["annotations"]:
            for r in ann["result"]:
                if task["id"] in (5, 6):
                    r["value"]["labels"] = ["LOC"]  # a label not seen before
                if task["id"] == 8:
                    r["from_name"] = "ner2"  # another field
                if task["id"] == 10:
                    r["to_name"] = "other"  # another text
                    task["data"]["other"] = TEXT
    used: list[bool] = []
    decode = batch_reader._Named.decode

    def counted(self: Any, raws: Any) -> Any:
        got = decode(self, raws)
        used.append(self.used)
        return got

    monkeypatch.setattr(batch_reader._Named, "decode", counted)
    for chunk in (1, 2, 3):
        _same(_read(tasks, True, 4096, chunk), _read(tasks, False))
    assert True in used and False in used[1:]
