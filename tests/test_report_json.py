"""report.json and disputed-tasks.jsonl: the report keeps the lowest-scoring disputed tasks, the
JSON Lines file every one; deterministic, UTF-8, never NaN; reports of schema 1 still read."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import ls_annotation, read_disputed
from iaa_gate.cli import ExitCode, main
from iaa_gate.evaluation.document import DisputedTask
from iaa_gate.sinks.report import json as report_json
from iaa_gate.sinks.report import write_reports
from iaa_gate.sinks.report.json import (
    DisputedTasksWriter,
    JsonWriter,
    _finite,
    _surely_finite,
    check_finite,
)

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "plugin" / "iaa_gate" / "schemas" / "report.schema.json").read_text())
REPORT = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
"""The report schema's validator, compiled once (a fresh compile per line took 8 s)."""
LINE = jsonschema.validators.validator_for(SCHEMA)(
    {"$ref": "#/$defs/DisputedTask", "$defs": SCHEMA["$defs"]}
)
N = 150  # disputed tasks: more than the report keeps (100)


def _export(path: Path) -> None:
    """N tasks × 3 annotators: every third task a 3-way split (score 0), the others 2–1 (1/3)."""
    tasks = []
    for t in range(1, N + 1):
        labels = ["Négatif", "Positif", "Neutre"] if t % 3 == 0 else ["Négatif"] * 2 + ["Positif"]
        anns = [
            ls_annotation(u, 10 * t + u, sentiment=("choices", {"choices": [label]}))
            for u, label in enumerate(labels, 1)
        ]
        tasks.append({"id": t, "annotations": anns})
    path.write_text(json.dumps(tasks))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs of the same config into ``a/`` and ``b/``."""
    tmp = tmp_path_factory.mktemp("many")
    _export(tmp / "export.json")
    cfg = {
        "source": {"type": "label-studio-export", "path": "export.json"},
        "fields": {"sentiment": {"bootstrap": {"replicates": 0}}},
        "report": {"formats": ["json", "markdown", "html"]},
    }
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg))
    for out in ("a", "b"):
        assert main(["run", "-c", str(tmp / "c.yaml"), "--out", str(tmp / out), "-q"]) in (0, 1)
    return tmp


def test_report_keeps_the_lowest_scores_and_the_jsonl_every_task(runs: Path) -> None:
    out = runs / "a"
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    REPORT.validate(doc)
    f = doc["fields"]["sentiment"]
    every = read_disputed(out)["sentiment"]
    assert f["n_disputed"] == len(every) == N
    # In review order: priority (1 − the Dawid–Skene posterior), highest first. Here Dawid–Skene
    # reads annotator 3's "Neutre" (given on the 3-way splits only) as a sure sign, so the 2–1
    # splits (posterior 0.781 for Négatif) come first, by task id, then the 3-way splits.
    splits, majorities = list(range(3, N + 1, 3)), [t for t in range(1, N + 1) if t % 3]
    assert [d["id"] for d in every] == majorities + splits
    assert every[0]["priority"] == pytest.approx(0.219, abs=1e-3)
    assert every[0]["consensus"] == {
        "value": "Négatif",
        "posterior": pytest.approx(0.781, abs=1e-3),
        "method": "dawid-skene",
        "tie": False,
    }
    lowest = f["disputed"]["lowest"]
    assert lowest == every[:100]
    assert f["disputed"]["file"] == "disputed-tasks.jsonl"
    for text in (out / "disputed-tasks.jsonl").read_text(encoding="utf-8").splitlines():
        LINE.validate(json.loads(text))
    # The Markdown shows the 50 lowest; the page every disputed task (up to 1,000), not only
    # the 100 of report.json.
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f"Disputed tasks (score below 0.5): {N}, the first 50 shown" in md
    assert re.findall(r"^\| (\d+) \| 0\.22 \| 0\.33 \| Négatif \(0\.78\)", md, flags=re.M) == [
        str(t) for t in majorities[:50]
    ]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<tr><td data-sort=") == N


def test_report_files_are_deterministic_utf8_with_sorted_keys(runs: Path) -> None:
    a, b = runs / "a", runs / "b"
    assert (a / "disputed-tasks.jsonl").read_bytes() == (b / "disputed-tasks.jsonl").read_bytes()
    drop = re.compile(rb'"generated_at": "[^"]*"')
    assert drop.sub(b"", (a / "report.json").read_bytes()) == drop.sub(
        b"", (b / "report.json").read_bytes()
    )
    for name in ("report.json", "disputed-tasks.jsonl"):
        raw = (a / name).read_text(encoding="utf-8")
        assert "Négatif" in raw and "\\u" not in raw
    first = (a / "disputed-tasks.jsonl").read_text(encoding="utf-8").splitlines()[0]
    assert list(json.loads(first)) == ["consensus", "field", "id", "labels", "priority", "score"]
    assert list(json.loads((a / "report.json").read_text()))[:3] == [
        "alt_test",
        "fields",
        "generated_at",
    ]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_number_is_never_written(bad: float) -> None:
    """The document says null (with a reason) for an undefined value; a NaN that slipped through
    is an error, not a silent null."""
    with pytest.raises(ValueError, match="not a finite number"):
        JsonWriter().render({"fields": {"f": {"alpha": bad}}})
    task = DisputedTask(field="f", id=1, score=0.2, labels={"a": 1.0, "b": bad})
    with pytest.raises(ValueError, match=r"f\[0\]\.labels\.b is not a finite number"):
        DisputedTasksWriter().render({"fields": {}}, {"f": [task]})


def test_a_non_finite_number_stops_the_file_written_as_made(tmp_path: Path) -> None:
    """The disputed tasks are written a block at a time as they are made: a NaN found on the
    way is the same error naming the file, and nothing is left of the file."""
    good = DisputedTask(field="a", id=1, score=0.2, labels={"a": 1.0})
    bad = DisputedTask(field="f", id=1, score=0.2, labels={"a": 1.0, "b": math.nan})
    chunks = DisputedTasksWriter().chunks({"fields": {}}, {"a": [good], "f": [bad]})
    assert next(iter(chunks)).startswith(b'{"field":"a"')  # the first field, before the NaN
    with pytest.raises(ValueError, match=r"disputed-tasks.jsonl: f\[0\]\.labels\.b is not"):
        write_reports({"fields": {}}, tmp_path, ["json"], {"a": [good], "f": [bad]})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no partial file


JSON_DATA = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet="aËË\x7f\u02ff\U0001f600", max_size=4),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON_DATA, st.sampled_from([math.nan, math.inf, -math.inf, -math.nan]), st.integers(0, 30))
def test_a_non_finite_number_is_found_wherever_it_is(data: Any, bad: float, where: int) -> None:
    """The check in C (:func:`_surely_finite`) never passes a NaN or an infinity, wherever it
    sits among text, integers and other floats; finite data passes it or the walk."""
    assert _surely_finite(data) or _finite(data)
    leaves: list[Any] = [data]
    for x in leaves:  # put ``bad`` in the container at ``where``, or beside the data
        leaves += x.values() if isinstance(x, dict) else x if isinstance(x, list) else []
    spot = [x for x in leaves if isinstance(x, (list, dict))]
    if spot:
        box = spot[where % len(spot)]
        box.append(bad) if isinstance(box, list) else box.__setitem__("bad", bad)
    else:
        data = [data, bad]
    assert not _surely_finite(data)
    with pytest.raises(ValueError, match="not a finite number"):
        check_finite(data, "x")


def test_nulls_in_region_tasks_do_not_make_the_check_walk_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A region task's lines hold nulls (a missed region has no counterpart), so the check for
    a NaN written as null runs, in C: it walks no task (a walk took 4–6 s at 30,000 tasks)."""
    walked: list[Any] = []
    monkeypatch.setattr(report_json, "_finite", lambda x: walked.append(x) or True)
    details = {"disagreements": [{"counterpart": None, "region": {"start": 1, "end": 2.5}}] * 50}
    tasks = [
        DisputedTask(
            field="ner", id=k, score=0.25, labels={"a": "x"}, details=details, priority=0.5
        )
        for k in range(3_000)
    ]
    lines = DisputedTasksWriter().render({"fields": {}}, {"ner": tasks})
    assert b"null" in lines and not walked
    tasks[2_500] = DisputedTask(
        field="ner", id=0, score=math.nan, labels={}
    )  # in a later slice of the encoding
    assert not report_json._surely_finite({"ner": tasks})


def test_numpy_numbers_and_subclasses_are_written_as_plain_json() -> None:
    """What the standard library's encoder took (float subclasses such as numpy's float64) is
    written the same way; numpy integers and float32 too."""
    doc = {"a": np.float64(0.25), "b": np.int64(3), "c": np.float32(0.5), "d": np.bool_(True)}
    assert json.loads(JsonWriter().render(doc)) == {"a": 0.25, "b": 3, "c": 0.5, "d": True}
    with pytest.raises(ValueError, match="c is not a finite number"):
        JsonWriter().render({**doc, "c": np.float32("nan")})


def test_the_jsonl_needs_every_disputed_task() -> None:
    with pytest.raises(ValueError, match="every disputed task"):
        DisputedTasksWriter().render({"fields": {}})


def test_a_schema_1_report_is_compared_as_before(tmp_path: Path) -> None:
    """A report of schema 1 (every disputed task inline) in the history directory and as
    --compare: the trend is computed from it with no version note."""
    old = json.loads((ROOT / "tests" / "previous-reports" / "schema-1.json").read_text())
    assert old["schema_version"] == 1 and isinstance(old["fields"]["sentiment"]["disputed"], list)
    old["source"]["path"] = str(ROOT / old["source"]["path"])  # the same source as this run
    hist = tmp_path / "hist"
    hist.mkdir()
    (hist / "2026-11-23T03-20-10-00-00.json").write_text(json.dumps(old))
    cfg = {
        "source": {"type": "label-studio-export", "path": old["source"]["path"]},
        "fields": {
            "sentiment": {"bootstrap": {"replicates": 0}},
            "helpfulness": {"bootstrap": {"replicates": 0}},
        },
        "report": {"dir": str(tmp_path / "out"), "formats": ["json"]},
        "history": {"dir": str(hist)},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["run", "-c", str(tmp_path / "c.yaml"), "-q"]) == ExitCode.OK
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    trend = doc["trend"]
    assert trend["notes"] == [] and trend["previous"]["schema_version"] == 1
    t = trend["fields"]["sentiment"]
    assert t["alpha"]["previous"] == pytest.approx(0.7769, abs=1e-4)  # tasks 1750–1870
    assert t["disputed_share"]["previous"] == pytest.approx(
        old["fields"]["sentiment"]["n_disputed"]
        / (old["fields"]["sentiment"]["n_disputed"] + old["fields"]["sentiment"]["n_agreed"])
    )
    assert t["disputed_share"]["change"] is not None
    REPORT.validate(doc)
    # --compare with the same file reads it the same way.
    shutil.copy(hist / "2026-11-23T03-20-10-00-00.json", tmp_path / "prev.json")
    code = main(["run", "-c", str(tmp_path / "c.yaml"), "--compare", str(tmp_path / "prev.json")])
    assert code == ExitCode.OK
    again = json.loads((tmp_path / "out" / "report.json").read_text())["trend"]
    assert again["fields"]["sentiment"]["alpha"] == t["alpha"]


GENERATED = ROOT / "plugin" / "iaa_gate" / "schemas" / "report.schema.json"


def test_the_report_schema_is_generated_from_the_structs() -> None:
    """``report.schema.json`` (in the package, shipped in the wheel, and in config/) is what the
    Structs give: regenerate with ``iaa-gate schema --report > …`` after changing them."""
    from iaa_gate.evaluation.document import report_schema

    for path in (GENERATED, ROOT / "config" / "report.schema.json"):
        assert json.loads(path.read_text(encoding="utf-8")) == report_schema(), path


def test_reports_validate_against_the_generated_schema(runs: Path) -> None:
    schema = json.loads(GENERATED.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    validator.validate(json.loads((runs / "a" / "report.json").read_text(encoding="utf-8")))
    line = jsonschema.validators.validator_for(schema)(
        {"$ref": "#/$defs/DisputedTask", "$defs": schema["$defs"]}
    )
    for text in (runs / "a" / "disputed-tasks.jsonl").read_text(encoding="utf-8").splitlines():
        line.validate(json.loads(text))


@pytest.mark.slow
def test_the_wheel_ships_the_schema_and_the_templates(tmp_path: Path) -> None:
    import subprocess
    import sys
    import zipfile

    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("iaa_gate-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "iaa_gate/schemas/report.schema.json" in names
    assert "iaa_gate/sinks/report/templates/report.html.j2" in names
