"""``source.type: table``: long-format CSV, TSV, Parquet and JSON Lines read as meant (the same
numbers as the krippendorff package and as the same answers in a Label Studio export), and
malformed tables refused by row and column."""

from __future__ import annotations

import csv
import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import assert_same_dataset, ls_annotation
from iaa_gate import InputError, evaluate, load_config
from iaa_gate.adapters.table import columnwise
from iaa_gate.adapters.table.config import TableSource
from iaa_gate.adapters.table.source import TableFile, read_table
from iaa_gate.cli import main
from iaa_gate.core.errors import IaaGateError
from iaa_gate.model import Dataset

pa = pytest.importorskip("pyarrow")
from pyarrow import csv as pacsv  # noqa: E402 (after the skip)
from pyarrow import parquet  # noqa: E402

from iaa_gate.adapters.table import load  # noqa: E402
from iaa_gate.core.errors import MissingExtraError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "table"
HEADER = ["task", "annotator", "field", "value", "updated_at"]


@pytest.fixture(params=["table", "core"])
def install(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each file read twice: with pyarrow (the ``[table]`` extra) and as the core install reads
    it (pyarrow hidden: the ``csv`` module and msgspec load the columns)."""
    if request.param == "core":
        for name in ("pyarrow", "pyarrow.csv", "pyarrow.json", "pyarrow.parquet"):
            monkeypatch.setitem(sys.modules, name, None)
    return str(request.param)


def _rows() -> list[list[Any]]:
    with open(EXAMPLE / "answers.csv", newline="", encoding="utf-8") as f:
        return list(csv.reader(f))[1:]


def _config(tmp_path: Path, table: Path, extra: str = "", fields: str = "") -> Path:
    config = tmp_path / "iaa-gate.yaml"
    config.write_text(
        "version: 1\n"
        f"source: {{type: table, path: {table}, kinds: {{stars: rating}}{extra}}}\n"
        "fields:\n"
        + (
            fields
            or "  sentiment: {bootstrap: {replicates: 0}}\n"
            "  stars: {level: ordinal, bootstrap: {replicates: 0}}\n"
        )
        + f"report: {{dir: {tmp_path / 'out'}, formats: [json]}}\n",
        encoding="utf-8",
    )
    return config


def _matrix(rows: list[list[Any]], field: str, number: bool) -> np.ndarray:
    """``(annotators, units)`` for the krippendorff package (NaN: missing)."""
    tasks = sorted({r[0] for r in rows})
    who = sorted({r[1] for r in rows})
    codes: dict[str, int] = {}
    out = np.full((len(who), len(tasks)), np.nan)
    for t, a, f, v, _ in rows:
        if f == field:
            out[who.index(a), tasks.index(t)] = (
                float(v) if number else codes.setdefault(v, len(codes))
            )
    return out


@pytest.mark.usefixtures("install")
def test_a_csv_table_gives_the_krippendorff_package_s_alpha(tmp_path: Path) -> None:
    outcome = evaluate(_config(tmp_path, EXAMPLE / "answers.csv"))
    rows = _rows()
    nominal = krippendorff.alpha(_matrix(rows, "sentiment", False), level_of_measurement="nominal")
    ordinal = krippendorff.alpha(_matrix(rows, "stars", True), level_of_measurement="ordinal")
    assert outcome.results["sentiment"].alpha == pytest.approx(nominal, abs=1e-12)
    assert outcome.results["stars"].alpha == pytest.approx(ordinal, abs=1e-12)
    assert outcome.document["input"]["tasks"] == 60


@pytest.mark.usefixtures("install")
def test_the_same_answers_as_a_label_studio_export_score_the_same(tmp_path: Path) -> None:
    tasks: dict[str, list[dict[str, Any]]] = {}
    by_annotation: dict[tuple[str, str], dict[str, Any]] = {}
    for t, a, f, v, when in _rows():
        fields = by_annotation.setdefault((t, a), {"when": when})
        fields[f] = (
            ("choices", {"choices": [v]}) if f == "sentiment" else ("rating", {"rating": int(v)})
        )
    for n, ((t, a), fields) in enumerate(by_annotation.items()):
        when = fields.pop("when")
        tasks.setdefault(t, []).append(ls_annotation(a, n, when, **fields))
    export = [
        {"id": i, "data": {"text": t}, "annotations": anns}
        for i, (t, anns) in enumerate(tasks.items(), start=1)
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    from iaa_gate.config import parse_config

    ls = load_config(_config(tmp_path, EXAMPLE / "answers.csv"))
    data = ls.model_dump(exclude_unset=True)
    data["source"] = {"type": "label-studio-export", "path": str(path)}
    from_export = evaluate(parse_config(data))
    from_table = evaluate(_config(tmp_path, EXAMPLE / "answers.csv"))
    for name in ("sentiment", "stars"):
        assert from_table.results[name].alpha == pytest.approx(
            from_export.results[name].alpha, abs=1e-12
        )
        assert from_table.results[name].categories == from_export.results[name].categories


@pytest.mark.parametrize("fmt", ["tsv", "parquet", "jsonl"])
@pytest.mark.usefixtures("install")
def test_every_format_reads_the_same(tmp_path: Path, fmt: str) -> None:
    table = pacsv.read_csv(
        EXAMPLE / "answers.csv",
        convert_options=pacsv.ConvertOptions(
            column_types={"value": pa.string(), "updated_at": pa.string()}
        ),
    )
    path = tmp_path / f"answers.{fmt}"
    if fmt == "tsv":
        pacsv.write_csv(table, path, write_options=pacsv.WriteOptions(delimiter="\t"))
    elif fmt == "parquet":
        parquet.write_table(table, path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in table.to_pylist()), encoding="utf-8")
    csv_outcome = evaluate(_config(tmp_path, EXAMPLE / "answers.csv"))
    if fmt == "parquet" and load.arrow() is False:
        with pytest.raises(MissingExtraError, match=r'pip install "iaa-gate\[table\]"'):
            evaluate(_config(tmp_path, path))
        return
    other = evaluate(_config(tmp_path, path))
    for name in ("sentiment", "stars"):
        assert other.results[name].alpha == pytest.approx(
            csv_outcome.results[name].alpha, abs=1e-12
        )


def _write(tmp_path: Path, rows: list[list[Any]], header: list[str] = HEADER) -> Path:
    path = tmp_path / "t.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


GOOD = [
    ["1", "ana", "sentiment", "Positive", "2026-11-02T10:00:00Z"],
    ["1", "ben", "sentiment", "Positive", "2026-11-02T10:00:00Z"],
    ["2", "ana", "sentiment", "Negative", "2026-11-02T10:00:00Z"],
    ["2", "ben", "sentiment", "Positive", "2026-11-02T10:00:00Z"],
    ["3", "ana", "stars", "4", "2026-11-02T10:00:00Z"],
    ["3", "ben", "stars", "5", "2026-11-02T10:00:00Z"],
]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r[4].__setitem__(3, "five"),
            r"row 6, field 'stars', column 'value': 'five' is not a number",
        ),
        (lambda r: r[1].__setitem__(1, ""), r"row 3, column 'annotator': no annotator"),
        (
            lambda r: r[0].__setitem__(4, "yesterday"),
            r"row 2, field 'sentiment', column 'updated_at': 'yesterday' is not an ISO 8601 time",
        ),
        (
            lambda r: r.append(["1", "ana", "sentiment", "Negative", "2026-11-02T10:00:00Z"]),
            r"row 8, field 'sentiment': rows 2 and 8 both answer task 1 for annotator 'ana'",
        ),
    ],
)
@pytest.mark.usefixtures("install")
def test_a_malformed_row_is_refused_by_row_and_column(
    tmp_path: Path, change: Any, message: str
) -> None:
    rows = [list(r) for r in GOOD]
    change(rows)
    with pytest.raises(InputError, match=message):
        evaluate(_config(tmp_path, _write(tmp_path, rows)))


@pytest.mark.usefixtures("install")
def test_a_missing_column_names_the_columns_there_are(tmp_path: Path) -> None:
    path = _write(tmp_path, [r[:3] + r[4:] for r in GOOD], ["task", "annotator", "field", "when"])
    with pytest.raises(InputError, match=r"no column 'value' \(the columns are \['task'"):
        evaluate(_config(tmp_path, path))


@pytest.mark.usefixtures("install")
def test_skip_invalid_counts_the_rows_it_skips(tmp_path: Path) -> None:
    rows = [list(r) for r in GOOD]
    rows[4][3] = "five"
    outcome = evaluate(_config(tmp_path, _write(tmp_path, rows), ", skip_invalid: true"))
    assert outcome.document["input"]["invalid_skipped"] == 1


@pytest.mark.usefixtures("install")
def test_the_latest_answer_wins(tmp_path: Path) -> None:
    rows = [list(r) for r in GOOD] + [["2", "ana", "sentiment", "Positive", "2026-11-03T10:00:00Z"]]
    outcome = evaluate(_config(tmp_path, _write(tmp_path, rows)))
    assert (
        outcome.results["sentiment"].alpha == pytest.approx(1.0)
        or outcome.results["sentiment"].n_pairable == 2
    )
    assert outcome.document["input"]["superseded"] == 1
    assert {u.id: u.status for u in outcome.results["sentiment"].units} == {
        1: "agreed",
        2: "agreed",
    }


@pytest.mark.usefixtures("install")
def test_spans_are_matched_from_one_row_per_span(tmp_path: Path) -> None:
    header = ["task", "annotator", "field", "start", "end", "label"]
    rows = [
        ["d1", "ana", "ner", 0, 5, "PER"],
        ["d1", "ana", "ner", 10, 20, "ORG"],
        ["d1", "ben", "ner", 0, 5, "PER"],
        ["d1", "ben", "ner", 10, 18, "ORG"],  # IoU 0.8: matched under the default 0.5
        ["d2", "ana", "ner", "", "", ""],  # nothing here
        ["d2", "ben", "ner", 3, 7, "LOC"],
    ]
    path = _write(tmp_path, rows, header)
    config = _config(tmp_path, path, extra="", fields="  ner: {bootstrap: {replicates: 0}}\n")
    config.write_text(config.read_text().replace("{stars: rating}", "{ner: spans}"))
    outcome = evaluate(config)
    regions = outcome.results["ner"].regions
    assert regions is not None
    # d1: 2 matched of 2 + 2 → F1 1; d2: 0 matched of 0 + 1 → F1 0; pooled: 2·2 / (4 + 1)
    assert regions.f1 == pytest.approx(0.8)


@pytest.mark.usefixtures("install")
def test_span_tables_and_skipped_rows_are_read_column_by_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table with a span field, and one whose malformed rows ``skip_invalid`` skips, are read
    column-wise (the row reader only words the problems of a table read without it), with the
    row reader's dataset and problems."""
    header = ["task", "annotator", "field", "value", "start", "end", "label", "updated_at"]
    rows = [
        ["d1", "ana", "ner", "", 0, 5, "PER", "2026-11-02T10:00:00Z"],
        ["d1", "ana", "ner", "", 10, 20, "ORG", "2026-11-02T10:00:00Z"],
        ["d1", "ana", "ner", "", 1, 4, "PER", "2026-11-03T10:00:00Z"],  # a later answer
        ["d1", "ben", "ner", "", 9, 3, "PER", ""],  # an end before its start
        ["d1", "ben", "topic", "sports", "", "", "", ""],
        ["d1", "", "topic", "news", "", "", "", ""],  # no annotator
        ["d1", "ben", "topic", "news", "", "", "", ""],  # a second answer without a time
    ]
    path = _write(tmp_path, rows, header)
    source = TableSource(type="table", path=path, kinds={"ner": "spans"}, skip_invalid=True)
    table = read_table(path, "csv")
    slow = _by_row(table, source)
    monkeypatch.setattr(TableFile, "read_by_row", lambda self, table: pytest.fail("by row"))
    fast = TableFile(source).load()
    assert_same_dataset(fast, slow, values=True)
    assert [p.where for p in fast.stats.invalid] == ["row 5", "row 7", "row 8"]
    ner = fast.columns().fields["ner"].region_sets()
    assert ner is not None and [rs.coords if rs else None for rs in ner] == [[1.0, 4.0]]


@pytest.mark.usefixtures("install")
def test_the_bundled_example_runs_from_the_cli(tmp_path: Path) -> None:
    code = main(["run", "--config", str(EXAMPLE / "iaa-gate.yaml"), "--out", str(tmp_path), "-q"])
    assert code == 1  # sentiment's alpha 0.610 is below the fail threshold
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["source"] == {"type": "table", "path": str(EXAMPLE / "answers.csv")}


def test_without_pyarrow_a_parquet_table_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "answers.parquet"
    parquet.write_table(pacsv.read_csv(EXAMPLE / "answers.csv"), path)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingExtraError, match=r'pip install "iaa-gate\[table\]"') as caught:
        evaluate(_config(tmp_path, path))
    assert "reading a Parquet table needs pyarrow" in str(caught.value)


def _by_row(table: Any, source: TableSource) -> Dataset | str:
    """The row reader's dataset of ``table``, or its error message."""
    try:
        return TableFile(source).read_by_row(table)
    except IaaGateError as exc:
        return str(exc)


CLEAN = {
    "task": st.sampled_from(["t1", "t2", "t3", "4"]),
    "int_task": st.integers(-2, 3),
    "float_task": st.sampled_from([0.0, -0.0, 1.0, 2.0]),
    "annotator": st.sampled_from(["ana", "ben", "7"]),
    "field": st.sampled_from(["sentiment", "stars", "notes", "tags"]),
    "value": st.sampled_from(["Positive", "1", "2.0", "a|b", "b| a", " x "]),
    "number": st.sampled_from(["1", "2.0", " 3 ", "-1e3"]),
    "updated_at": st.sampled_from(
        [None, "2026-11-02T10:00:00Z", "2026-11-03T10:00:00+02:00", "2026-11-01T09:00:00"]
    ),
}
"""Cells every rule reads ("number": values when a field is a rating): the column-wise reader
reads a table of them unless two rows answer one question."""
ODD = {
    "task": st.sampled_from(["t1", " ", None]),
    "int_task": st.sampled_from([1, None]),
    "float_task": st.sampled_from([2.5, None]),
    "annotator": st.sampled_from(["", None]),
    "field": st.sampled_from([" ", None]),
    "value": st.sampled_from([" ", "five", "1e300", None]),
    "number": st.sampled_from([" ", "five", "1e300", None]),
    "updated_at": st.sampled_from(["x", "2026-13-01"]),
}
"""Cells a rule refuses, and empty ones."""


@st.composite
def tables(draw: st.DrawFn) -> tuple[Any, TableSource]:
    """A small table in memory whose cells come from few values (so that tasks repeat), in
    half the cases with some empty or malformed cells, and the settings to read it."""
    n = draw(st.integers(1, 12))
    task = draw(st.sampled_from(["task", "int_task", "float_task"]))
    numbers = draw(st.booleans())  # stars is then a rating, and every value a number
    odd = draw(st.booleans())
    keys = {"task": task, "annotator": "annotator", "field": "field", "updated_at": "updated_at"}
    keys["value"] = "number" if numbers else "value"
    columns = {
        name: draw(
            st.lists(st.one_of(CLEAN[key], ODD[key]) if odd else CLEAN[key], min_size=n, max_size=n)
        )
        for name, key in keys.items()
    }
    if draw(st.booleans()):
        del columns["updated_at"]
    elif draw(st.booleans()):  # times as a file with a time type gives them
        unit = draw(st.sampled_from(["s", "ms", "us"]))
        tick = {"s": 10**6, "ms": 10**3, "us": 1}[unit]
        moments = st.integers(-(10**6), 10**6).map(
            lambda k: (
                datetime(2026, 11, 2, tzinfo=timezone.utc) + timedelta(microseconds=k * tick * 997)
            )
        )
        stamps = draw(
            st.lists(st.one_of(moments, st.none()) if odd else moments, min_size=n, max_size=n)
        )
        columns["updated_at"] = pa.array(
            stamps, type=pa.timestamp(unit, tz=draw(st.sampled_from([None, "UTC"])))
        )
    chunks = draw(st.integers(1, 3))  # as a large file is read: in several chunks
    spans = draw(st.booleans())  # "tags" is then a span field, one row per span
    if spans:
        for name, cells in SPAN_CELLS.items():
            columns[name] = draw(st.lists(cells, min_size=n, max_size=n))
    source = TableSource(
        type="table",
        path=Path("answers.csv"),
        kinds=({"stars": "rating"} if numbers else {"notes": "textarea"})
        | ({"tags": "spans"} if spans else {}),
        multiple_separator=draw(st.sampled_from([None, "|"])),
        skip_invalid=draw(st.booleans()),
    )
    table = pa.Table.from_batches(
        pa.table(columns).to_batches(max_chunksize=max(1, -(-n // chunks)))
    )
    return table, source


SPAN_CELLS = {
    "start": st.sampled_from(["0", "1", "2", " 4", None, None, "x"]),
    "end": st.sampled_from(["1", "3", "4.0", None, None, "5", "y"]),
    "label": st.sampled_from(["PER", "LOC", None, "3"]),
}
"""The span columns: bounds (some missing, some not numbers, an end before its start now and
then) and labels."""


@settings(max_examples=400, deadline=None)
@given(tables())
def test_the_column_reader_agrees_with_the_row_reader(case: tuple[Any, TableSource]) -> None:
    """Whatever a table holds (span fields too), the column-wise reader gives the row reader's
    dataset (values in the same order, the same problems of the rows skipped under
    ``skip_invalid``); it leaves to the row reader only a table with a problem to word (or
    nothing answered)."""
    table, source = case
    first = TableFile(source).first
    fast = columnwise.read_columnwise(table, source, first)
    slow = _by_row(table, source)
    if fast is None:
        assert isinstance(slow, str) or not len(slow.columns())
        return
    assert_same_dataset(fast, slow, values=True)
    assert not isinstance(slow, str)  # and the times to the last bit
    np.testing.assert_array_equal(fast.columns().array("updated"), slow.columns().array("updated"))


def test_a_clean_table_is_read_column_by_column_once_per_distinct_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundled example and a larger clean table are read column-wise, with one call of each
    rule per distinct cell (not per row), and give the row reader's dataset."""
    rows = [
        [t, f"a{(t + k) % 5}", "label", f"L{(t * k) % 3}", None]
        for t in range(300)
        for k in range(3)
    ]
    calls: dict[str, int] = {}
    for name in ("annotator", "field_name", "answer"):
        rule = getattr(columnwise, name)
        monkeypatch.setattr(
            columnwise,
            name,
            lambda *a, _r=rule, _n=name: calls.update({_n: calls.get(_n, 0) + 1}) or _r(*a),
        )
    for path in (EXAMPLE / "answers.csv", _write(tmp_path, rows)):
        calls.clear()
        source = TableSource(type="table", path=path, kinds={"stars": "rating"})
        table = read_table(path, "csv")
        fast = columnwise.read_columnwise(table, source)
        assert fast is not None
        assert_same_dataset(fast, _by_row(table, source), values=True)
        assert calls["annotator"] == len(fast.columns().annotators) <= 5
        assert calls["field_name"] == len(fast.columns().fields)
        assert calls["answer"] < 20  # one per distinct (field, value)
    assert fast.stats.annotations == 900


def test_the_latest_answer_wins_column_by_column_and_a_tie_goes_to_the_row_reader(
    tmp_path: Path,
) -> None:
    """Re-answered questions are read column-wise, the latest answer kept as the row reader
    keeps it; two answers with the same time are left to the row reader, which names both."""
    later = ["2", "ana", "sentiment", "Positive", "2026-11-03T10:00:00Z"]
    earlier = ["2", "ana", "sentiment", "Neutral", "2026-11-01T10:00:00Z"]
    path = _write(tmp_path, [list(r) for r in GOOD] + [later, earlier])
    source = TableSource(type="table", path=path, kinds={"stars": "rating"})
    table = read_table(path, "csv")
    fast = columnwise.read_columnwise(table, source)
    assert fast is not None and fast.stats.superseded == 2
    assert_same_dataset(fast, _by_row(table, source), values=True)
    sentiment = fast.columns().fields["sentiment"]
    assert [sentiment.values[k] for k in sentiment.codes] == [("Positive",)] * 4
    for time in (GOOD[2][4], ""):  # the same time, or none
        tie = [list(r) for r in GOOD] + [["2", "ana", "sentiment", "Positive", time]]
        table = read_table(_write(tmp_path, tie), "csv")
        assert columnwise.read_columnwise(table, source) is None
        with pytest.raises(InputError, match="rows 4 and 8 both answer task 2"):
            TableFile(source).load()


def test_a_table_of_more_questions_than_an_int64_numbers_goes_to_the_row_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, [list(r) for r in GOOD])
    source = TableSource(type="table", path=path, kinds={"stars": "rating"})
    table = read_table(path, "csv")
    assert columnwise.read_columnwise(table, source) is not None
    monkeypatch.setattr(columnwise, "MAX_QUESTIONS", 3 * 2 * 2 - 1)  # 3 tasks, 2 raters, 2 fields
    assert columnwise.read_columnwise(table, source) is None
    assert TableFile(source).load().stats.annotations == 6


TEXTS = st.sampled_from(
    [
        *["Positive", "a|b", " x ", "1", "007", " 3 ", "-3", "+5", "2.0", ".5", "-1e3", "inf"],
        *["0x10", "true", "False", "0", "NA", "", "null", "2026-11-02", "2026-11-02T10:00:00"],
        *["10:00:00", "2026-11-02T10:00:00Z", "2026-11-02 10:00:00+02:00", "9999999999999999999"],
        *["2026-11-02T10:00:00.1234567", "1_000", "1,5", 'say "hi"', "é", "٣", "0x1F"],
    ]
)
"""Cells whose type pyarrow infers differently, column by column: whole numbers (hex, leading
zeros, spaces), booleans, empty cells, dates, times, timestamps with and without a zone,
floats, text."""


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.lists(st.lists(TEXTS, min_size=n, max_size=n))))
def test_the_core_loads_a_csv_as_pyarrow_does(rows: list[list[str]]) -> None:
    """The columns the csv module loads are typed cell for cell as pyarrow types them, so that
    every reading rule sees the same value whatever the install."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp), rows, [f"c{j}" for j in range(len(rows[0]) if rows else 3)])
        arrow, core = load.read_arrow(path, "csv"), load.read_csv(path, ",")
        assert core.column_names == arrow.column_names and core.num_rows == arrow.num_rows
        for name in core.column_names:
            assert _instants(core.pylist(name)) == _instants(arrow.pylist(name)), name


def _instants(cells: list[Any]) -> list[Any]:
    """Cells with each time as its seconds to the microsecond (pyarrow keeps nanoseconds)."""
    from iaa_gate.adapters.table.rules import seconds

    return [
        (datetime, round(seconds(v, ""), 6)) if isinstance(v, datetime) else (type(v), v)
        for v in cells
    ]


ROWS = st.tuples(
    st.sampled_from(["t1", "2", "007", "2.0", "", "NA"]),
    st.sampled_from(["ana", "ben", "7", "true", ""]),
    st.sampled_from(["sentiment", "stars", "tags", "1", ""]),
    st.sampled_from(["Positive", "1", "2.0", "a|b", " x ", "five", "true", "", "1e300"]),
    st.sampled_from(["2026-11-02T10:00:00Z", "2026-11-03", "", "x", "2026-11-01 09:00:00+02:00"]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(ROWS, min_size=1, max_size=10), st.booleans(), st.sampled_from(["csv", "jsonl"]))
def test_a_table_reads_the_same_with_and_without_pyarrow(
    rows: list[tuple[str, ...]], skip: bool, fmt: str
) -> None:
    """Whatever its cells, a table gives the same dataset, or the same error naming row,
    field and column, through pyarrow and through the core's loaders."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        if fmt == "csv":
            path = _write(Path(tmp), [list(r) for r in rows])
        else:  # JSON Lines with an empty cell as a missing key
            path = Path(tmp) / "t.jsonl"
            lines = [{k: v for k, v in zip(HEADER, r, strict=True) if v} for r in rows]
            path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
        source = TableSource(
            type="table",
            path=path,
            kinds={"stars": "rating"},
            multiple_separator="|",
            skip_invalid=skip,
        )
        read = []
        for hidden in (False, True):
            with pytest.MonkeyPatch.context() as mp:
                if hidden:
                    mp.setitem(sys.modules, "pyarrow", None)
                try:
                    read.append(TableFile(source).load())
                except IaaGateError as exc:
                    read.append(str(exc))
        with pytest.MonkeyPatch.context() as mp:  # the core's columns, read both ways
            mp.setitem(sys.modules, "pyarrow", None)
            loaded = TableFile(source).fmt == "csv" and load.read_csv(path, ",")
            fast = loaded and columnwise.read_columnwise(loaded, source, TableFile(source).first)
            if fast:
                assert_same_dataset(fast, _by_row(loaded, source), values=True)
        if isinstance(read[0], str) or isinstance(read[1], str):
            assert read[1] == read[0]
        else:
            assert_same_dataset(read[1], read[0], values=True)
            np.testing.assert_array_equal(
                read[1].columns().array("updated"), read[0].columns().array("updated")
            )


@pytest.mark.usefixtures("install")
@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("t.csv", b"\xef\xbb\xbf" + ",".join(HEADER).encode() + b"\n1,ana,sentiment,,\n", None),
        (
            "t.csv",
            b"task,annotator,field,value\n1,ana,sentiment,Positive\n2,ben,sentiment\n",
            r"row 3 has 3 cells, the header 4",
        ),
        (
            "t.tsv",
            b"task,annotator,field,value\n1,ana,sentiment,Positive\n",
            r"no column 'task'.*\n.*hint: the header is comma-separated",
        ),
        (
            "t.csv",
            b"task,annotator,field,value\n1,ana,sentiment,Positive\n2,ben,sentiment,N\xe9g\n",
            r"row 3 is not UTF-8 text",
        ),
        (
            "t.jsonl",
            b'{"task": 1, "annotator": "ana", "field": "f", "value": "x"}\n{"task": 2,\n',
            r"not a readable JSONL table",
        ),
    ],
    ids=["bom-and-empty-cells", "ragged", "comma-in-tsv", "not-utf-8", "broken-jsonl"],
)
def test_a_file_that_cannot_be_read_as_meant_is_named_with_its_row(
    tmp_path: Path, name: str, content: bytes, message: str | None
) -> None:
    """With or without pyarrow: a byte order mark is dropped and an empty cell is no answer;
    a ragged row, a comma-separated .tsv, text that is not UTF-8 and a broken JSON line are
    errors naming the file and, where there is one, the row."""
    path = tmp_path / name
    path.write_bytes(content)
    source = TableSource(type="table", path=path)
    if message is None:
        assert TableFile(source).load().stats.empty == 1
        return
    with pytest.raises(InputError, match=message) as caught:
        TableFile(source).load()
    assert str(path) in str(caught.value)


@pytest.mark.usefixtures("install")
def test_quoted_cells_keep_their_delimiters_quotes_and_spaces(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(
        'task,annotator,field,value\n1,ana,tags,"a, ""b"""\n1,ben,tags," a, ""b"""\n',
        encoding="utf-8",
    )
    data = TableFile(TableSource(type="table", path=path)).load()
    assert [a.fields["tags"].value for a in data.annotations] == [('a, "b"',), (' a, "b"',)]
