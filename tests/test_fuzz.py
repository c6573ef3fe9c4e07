"""Near-valid inputs, generated: every one ends in a correct report or a clear exit 2.

A clean round (tasks × 3 annotators, one single-choice field) is generated, then one mutation
is applied. Harmless mutations (unknown keys, result types of other controls, huge ids,
repeated Prodigy lines) must give the report of the clean round, its alpha equal to the
``krippendorff`` package's. Damaging ones (wrong types, duplicated task ids, annotations with
no annotator, non-finite or huge ratings, truncated files, non-UTF-8 bytes) must stop with exit
2 and one ``iaa-gate: error:`` message. Never a traceback, never a different number.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_gate.cli import main

LABELS = ["A", "B", "C"]
HARMLESS = ["none", "extra-keys", "other-control", "huge-id"]
REFUSABLE = {"other-control"}
"""Harmless to the evaluated field, but a malformed result of another control may be refused
(exit 2 naming that control) rather than listed as not evaluated."""
DAMAGING = ["wrong-type", "duplicate-id", "no-annotator", "bad-rating", "truncated", "non-utf8"]
P_HARMLESS = ["none", "extra-keys", "repeated-line"]
P_DAMAGING = ["wrong-answer", "no-hash", "bad-accept", "huge-timestamp", "truncated", "non-utf8"]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2),
)
SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def ratings() -> st.SearchStrategy[list[list[str | None]]]:
    """Tasks × 3 annotators: a label, or None (the annotator did not answer)."""
    cell = st.one_of(st.sampled_from(LABELS), st.none())
    return st.lists(st.lists(cell, min_size=3, max_size=3), min_size=3, max_size=8)


def reference_alpha(rows: list[list[str | None]]) -> float | None:
    data = np.array(
        [[np.nan if v is None else LABELS.index(v) for v in row] for row in rows], dtype=float
    ).T
    pairable = np.count_nonzero(~np.isnan(data), axis=0) >= 2
    values = set(data[:, pairable][~np.isnan(data[:, pairable])].tolist())
    if len(values) < 2:
        return None  # undefined: iaa-gate reports null
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def run_case(name: str, content: bytes, source: dict[str, Any], field: str) -> tuple[int, str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / name).write_bytes(content)
        cfg = {
            "source": {**source, "path": name},
            "fields": {field: {"coefficients": ["alpha"], "bootstrap": {"replicates": 0}}},
            "report": {"dir": "out", "formats": ["json"]},
        }
        (d / "c.yaml").write_text(yaml.safe_dump(cfg))
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["run", "-c", str(d / "c.yaml"), "-q"])
        doc = None
        if (d / "out" / "report.json").exists():
            doc = json.loads((d / "out" / "report.json").read_text())
        return code, err.getvalue(), doc


def fuzz(kind: str, harmless: bool | str, rows: list, build: Any) -> None:
    """Run the file ``build(rows)`` gives as a ``kind`` source and check the outcome."""
    if not any(v is not None for row in rows for v in row):
        rows[0][0] = "A"
    name, field = ("round.jsonl", "choice") if kind == "prodigy" else ("export.json", "sentiment")
    code, err, doc = run_case(name, build(rows), {"type": kind}, field)
    assert "Traceback" not in err and "internal error" not in err, err
    if harmless == "refusable" and code == 2:
        assert err.startswith("iaa-gate: error: ") and "field 'tool'" in err, err
        return
    if not harmless:
        assert code == 2 and err.startswith("iaa-gate: error: "), (code, err)
        return
    if all(sum(v is not None for v in row) < 2 for row in rows):
        assert code == 2 or doc is not None
        return
    assert code in (0, 1), err
    want = reference_alpha(rows)
    got = doc["fields"][field]["alpha"]
    if want is None:
        assert got is None
    else:
        assert got == pytest.approx(want, abs=1e-9)


def _ls_export(rows: list[list[str | None]], draw: Any, mutation: str) -> bytes:
    tasks: list[dict[str, Any]] = []
    aid = 0
    for i, row in enumerate(rows, 1):
        anns = []
        for u, label in enumerate(row, 1):
            aid += 1
            if label is None:
                continue
            item: dict[str, Any] = {
                "from_name": "sentiment",
                "to_name": "text",
                "type": "choices",
                "value": {"choices": [label]},
            }
            anns.append({"id": aid, "completed_by": u, "result": [item]})
        tasks.append({"id": i, "data": {"text": f"t{i}"}, "annotations": anns})
    annotated = [t for t in tasks if t["annotations"]]
    target = draw(st.sampled_from(annotated)) if annotated else tasks[0]
    if mutation == "extra-keys":
        for t in tasks:
            t[draw(st.sampled_from(["x_meta", "_note", "origin"]))] = draw(JUNK)
    elif mutation == "other-control":
        for t in annotated:
            t["annotations"][0]["result"].append(
                {"from_name": "tool", "type": draw(st.text(min_size=1)), "value": {"x": 1}}
            )
    elif mutation == "huge-id":
        target["id"] = 10**40
    elif mutation == "wrong-type":
        junk = draw(JUNK.filter(lambda v: not isinstance(v, list) or v))
        target["annotations"][0]["result"][0]["value"]["choices"] = junk
    elif mutation == "duplicate-id":
        other = next(t for t in tasks if t is not target)
        other["id"] = target["id"]
    elif mutation == "no-annotator":
        target["annotations"][0]["completed_by"] = draw(st.sampled_from([None, {"email": "x"}]))
    elif mutation == "bad-rating":
        bad = draw(st.sampled_from([math.nan, math.inf, -math.inf, 1e300, 10**400]))
        target["annotations"][0]["result"].append(
            {"from_name": "stars", "type": "rating", "value": {"rating": bad}}
        )
    text = json.dumps(tasks, indent=1).encode()
    if mutation == "truncated":
        return text[: draw(st.integers(1, len(text) - 2))]
    return _non_utf8(text, draw) if mutation == "non-utf8" else text


def _non_utf8(text: bytes, draw: Any) -> bytes:
    at = draw(st.integers(0, len(text)))
    return text[:at] + b"\xff\xfe" + text[at:]


@pytest.mark.parametrize("mutation", HARMLESS + DAMAGING)
@SETTINGS
@given(rows=ratings(), data=st.data())
def test_label_studio_export(mutation: str, rows: list[list[str | None]], data: Any) -> None:
    fuzz(
        "label-studio-export",
        "refusable" if mutation in REFUSABLE else mutation in HARMLESS,
        rows,
        lambda r: _ls_export(r, data.draw, mutation),
    )


def _prodigy(rows: list[list[str | None]], draw: Any, mutation: str) -> bytes:
    lines: list[dict[str, Any]] = []
    for i, row in enumerate(rows, 1):
        for u, label in enumerate(row, 1):
            if label is None:
                continue
            lines.append(
                {
                    "text": f"t{i}",
                    "_input_hash": i,
                    "_task_hash": i * 10 + u,
                    "options": [{"id": x, "text": x.lower()} for x in LABELS],
                    "_view_id": "choice",
                    "config": {"choice_style": "single"},
                    "accept": [label],
                    "answer": "accept",
                    "_timestamp": 1794821857 + len(lines),
                    "_annotator_id": f"ann-{u}",
                    "_session_id": f"ann-{u}",
                }
            )
    target = draw(st.sampled_from(lines))
    if mutation == "extra-keys":
        for line in lines:
            line[draw(st.sampled_from(["meta", "_x", "spans"]))] = draw(JUNK)
    elif mutation == "repeated-line":
        lines.append(dict(target))
    elif mutation == "wrong-answer":
        target["answer"] = draw(JUNK)
    elif mutation == "no-hash":
        target["_input_hash"] = draw(st.sampled_from([None, [1], {"h": 1}, 1.5]))
        if target["_input_hash"] is None:
            del target["_input_hash"]
    elif mutation == "bad-accept":
        target["accept"] = draw(JUNK.filter(lambda v: not isinstance(v, list) or v))
    elif mutation == "huge-timestamp":
        target["_timestamp"] = draw(st.sampled_from([10**20, -(10**20), 1e300]))
    text = "".join(json.dumps(line) + "\n" for line in lines).encode()
    if mutation == "truncated":  # a cut inside a line, not at a line break
        cuts = [i for i in range(1, len(text) - 1) if text[i - 1 : i] not in (b"\n", b"}")]
        return text[: draw(st.sampled_from(cuts))]
    return _non_utf8(text, draw) if mutation == "non-utf8" else text


@pytest.mark.parametrize("mutation", P_HARMLESS + P_DAMAGING)
@SETTINGS
@given(rows=ratings(), data=st.data())
def test_prodigy_jsonl(mutation: str, rows: list[list[str | None]], data: Any) -> None:
    fuzz("prodigy", mutation in P_HARMLESS, rows, lambda r: _prodigy(r, data.draw, mutation))
