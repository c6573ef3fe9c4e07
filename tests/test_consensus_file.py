"""consensus.jsonl beside report.json: one proposed answer per field and task, worked by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from builders import ls_annotation
from iaa_gate.cli import main
from test_regions_reading import ann, span, task


def run(tmp_path: Path, tasks: list[dict[str, Any]], fields: dict[str, Any]) -> list[dict]:
    (tmp_path / "export.json").write_text(json.dumps(tasks))
    cfg = {
        "source": {"type": "label-studio-export", "path": "export.json"},
        "fields": {name: {"bootstrap": {"replicates": 0}, **f} for name, f in fields.items()},
        "report": {"formats": ["json"]},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    main(["run", "-c", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"), "-q"])
    text = (tmp_path / "out" / "consensus.jsonl").read_text(encoding="utf-8")
    return [json.loads(x) for x in text.splitlines()]


def test_one_line_per_field_and_task(tmp_path: Path) -> None:
    # sentiment: 2-to-1 on tasks 1–3 (annotator 3 always the one out), A B on task 4;
    # stars: 2, 4, 5 → median 4 (one of three gave it); 4, 5 on task 4: the middle two differ.
    rows = [
        (1, ["A", "A", "B"], [2, 4, 5], [["x"], ["x", "y"], ["x"]]),
        (2, ["A", "A", "B"], [3, 3, 3], [["y"], ["y"], ["y"]]),
        (3, ["B", "B", "A"], [1, 1, 2], [["x"], ["x"], []]),
        (4, ["A", "B"], [4, 5], [["x"], ["y"]]),
    ]
    tasks = []
    for t, labels, stars, topics in rows:
        tasks.append(
            {
                "id": t,
                "data": {"text": "t"},
                "annotations": [
                    ls_annotation(
                        u,
                        10 * t + u,
                        sentiment=("choices", {"choices": [s]}),
                        stars=("rating", {"rating": r}),
                        topics=("choices", {"choices": c}),
                    )
                    for u, (s, r, c) in enumerate(zip(labels, stars, topics, strict=True), 1)
                ],
            }
        )
    lines = run(tmp_path, tasks, {"sentiment": {}, "stars": {}, "topics": {"multiple": True}})
    assert all(
        list(x) == ["disputed", "field", "id", "label", "method", "posterior", "tie"] for x in lines
    )
    by = {(x["field"], x["id"]): x for x in lines}
    assert [x["field"] for x in lines] == sorted(x["field"] for x in lines)
    assert len(by) == len(lines) == 12
    s1 = by["sentiment", 1]
    assert (s1["label"], s1["method"], s1["disputed"], s1["tie"]) == (
        "A",
        "dawid-skene",
        True,
        False,
    )
    s4 = by["sentiment", 4]  # two raters split: the least settled task of the field
    assert s4["posterior"] < 0.6 and all(by["sentiment", t]["posterior"] > 0.99 for t in (1, 2, 3))
    assert by["topics", 4]["tie"] is True and by["topics", 4]["posterior"] == 0.5  # x or y
    st = by["stars", 1]
    assert (st["label"], st["method"], st["posterior"], st["tie"]) == (
        4,
        "median",
        pytest.approx(1 / 3),
        False,
    )
    assert by["stars", 4]["tie"] is True and by["stars", 4]["label"] == 4  # the lower middle
    assert by["stars", 2]["posterior"] == 1.0 and by["stars", 2]["disputed"] is False
    topics = by["topics", 2]
    assert topics["label"] == ["y"] and topics["method"] == "dawid-skene"


def test_regions_get_median_boundaries_and_majority_labels(tmp_path: Path) -> None:
    # London [36,42), drawn [36,42) LOC, [36,41) LOC, [35,42) GPE: median [36,42), label LOC;
    # Ada Lovelace [0,12) PER by all three.
    tasks = [
        task(
            1,
            ann(1, [span("a", 0, 12, "PER"), span("b", 36, 42, "LOC")]),
            ann(2, [span("c", 0, 12, "PER"), span("d", 36, 41, "LOC")]),
            ann(3, [span("e", 0, 12, "PER"), span("f", 35, 42, "GPE")]),
        ),
        task(2, ann(1, []), ann(2, [])),
    ]
    lines = run(tmp_path, tasks, {"ner": {}})
    first, empty = lines
    assert first["method"] == "dawid-skene" and first["disputed"] is True  # the label swap
    regions = first["label"]
    assert [(r["label"], r["start"], r["end"], r["text"]) for r in regions] == [
        ("PER", 0, 12, "Ada Lovelace"),
        ("LOC", 36, 42, "London"),
    ]
    assert first["posterior"] == min(r["posterior"] for r in regions)
    assert (empty["id"], empty["label"], empty["disputed"]) == (2, [], False)


def test_a_forked_writer_writes_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two workers and a large round, ``consensus.jsonl`` is written by a forked child
    while this process writes the other reports: the same bytes, listed in the same place."""
    import os

    from iaa_gate import pipeline
    from iaa_gate.config import load_config

    if not pipeline.can_fork():
        pytest.skip("no fork here")
    root = Path(__file__).resolve().parents[1]
    config = load_config(root / "examples" / "label-studio" / "iaa-gate.yaml")
    outs = {}
    real, forks = os.fork, []
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or real())
    monkeypatch.setattr(pipeline, "PARALLEL_UNITS", 1)
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        cfg = config.model_copy(update={"report": config.report.model_copy(update={"dir": out})})
        pid = os.getpid()
        done = pipeline.run(cfg, workers=workers)
        assert os.getpid() == pid
        assert len(forks) == workers - 1  # the child wrote it (the example is read in one)
        outs[workers] = ([p.name for p in done.written], (out / "consensus.jsonl").read_bytes())
    assert outs[1] == outs[2] and outs[1][1]


def test_a_region_round_writes_its_consensus_file_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round with a region field writes ``consensus.jsonl`` in this process even with two
    workers and a large round: its parent writes the disputed regions meanwhile, and the pages
    both processes touched were copied (more CPU than the child saved, issue 31)."""
    import os

    from iaa_gate import pipeline
    from iaa_gate.config import load_config

    root = Path(__file__).resolve().parents[1]
    config = load_config(root / "examples" / "label-studio-ner" / "iaa-gate.yaml")
    forks: list[int] = []
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or pytest.fail("forked"))
    monkeypatch.setattr(pipeline, "PARALLEL_UNITS", 1)
    monkeypatch.setattr(pipeline, "can_fork", lambda: True)
    out = tmp_path / "out"
    cfg = config.model_copy(update={"report": config.report.model_copy(update={"dir": out})})
    done = pipeline.run(cfg, workers=2)
    assert not forks and (out / "consensus.jsonl").read_bytes()
    assert out / "consensus.jsonl" in done.written
