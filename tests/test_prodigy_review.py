"""``disputed.jsonl``: the source's lines of disputed examples, each with ``meta.iaa`` added and
every other value as the source wrote it (``prodigy db-in`` reads it back)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from iaa_gate.evaluation.results import UnitResult
from iaa_gate.sinks.prodigy import ProdigyReviewFile

IAA = {"status": "disputed", "fields": {"f": {"score": 0.25, "labels": {"ana": "A", "ben": "B"}}}}
LINES = [
    '{"text": "caf\\u00e9 \u00e9", "_input_hash": 1, "meta": {"source": "web"}, "n": 1.50}',
    '{"text":"kept aside","_input_hash":2,"meta":"a string"}',
    '{"text":"no meta","_input_hash":3,"_view_id":"choice"}',
    '{"text":"agreed","_input_hash":4}',
    '{"text":"NaN is read by json only","_input_hash":5,"x":NaN}',
    "{not json",
    '["not", "an", "example"]',
    '{"text":"flagged before","_input_hash":6,"meta":{"iaa":{"status":"old"},"k":1}}',
    "",
]


def review(tmp_path: Path, lines: list[str], disputed: list[int]) -> list[str]:
    source = tmp_path / "db-out.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    units = [UnitResult(u, "disputed", 0.25, {"ana": "A", "ben": "B"}) for u in disputed]
    results: Any = {"f": SimpleNamespace(disputed=units)}
    out = tmp_path / "disputed.jsonl"
    summary = ProdigyReviewFile(source, out).apply(results)
    text = out.read_bytes().decode("utf-8")
    assert summary.lines == text.count("\n") and text.endswith("\n") == bool(text)
    return text.splitlines()


def test_disputed_lines_gain_meta_iaa_and_keep_everything_else(tmp_path: Path) -> None:
    got = review(tmp_path, LINES, [1, 2, 3, 5, 6])
    want = [json.loads(LINES[k]) for k in (0, 1, 2, 4, 7)]
    want[0]["meta"]["iaa"] = IAA
    want[1]["meta"] = {"original": "a string", "iaa": IAA}
    want[2]["meta"] = {"original": None, "iaa": IAA}
    want[3]["meta"] = {"original": None, "iaa": IAA}
    want[4]["meta"] = {"iaa": IAA, "k": 1}  # replaced in place, not repeated
    assert [json.loads(x) for x in got] == want
    assert [list(json.loads(x)) for x in got] == [list(x) for x in want]  # key order kept


def test_values_keep_the_source_bytes(tmp_path: Path) -> None:
    """Escapes, non-ASCII text and number spellings are copied, not re-encoded."""
    (line,) = review(tmp_path, LINES[:1], [1])
    assert line.startswith('{"text":"caf\\u00e9 \u00e9","_input_hash":1,"meta":{"source":"web",')
    assert line.endswith(',"n":1.50}')
    (line,) = review(tmp_path, [LINES[2]], [3])  # no meta: the line itself, then meta
    assert line.startswith(LINES[2][:-1] + ',"meta":{')


def test_nothing_disputed_writes_an_empty_file(tmp_path: Path) -> None:
    assert review(tmp_path, LINES, []) == []
