"""Per-unit results kept as arrays (issue 17): a scalar field's units are a ``UnitTable``, and
what is read from its arrays (counts, scores, the disputed tasks) is what the objects say."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_gate.config import parse_config
from iaa_gate.evaluation import document, results
from iaa_gate.evaluation.scalar import analyse_field
from iaa_gate.model import Annotation, Dataset, FieldValue
from iaa_gate.sinks.report import consensus as consensus_file
from iaa_gate.sinks.report import json as report_json
from iaa_gate.sinks.report.json import DisputedTasksWriter

rows = st.lists(
    st.tuples(
        st.one_of(st.integers(1, 15), st.sampled_from(["t1", "t2"])),  # task
        st.sampled_from(["a", "b", "c", "d"]),
        st.one_of(st.sampled_from(["A", "B", "C"]), st.just(None)),  # None: an empty choice
    ),
    max_size=50,
    unique_by=lambda x: (x[0], x[1]),
)


@settings(max_examples=150, deadline=None)
@given(
    rows=rows,
    bar=st.sampled_from([0.5, 0.8, 1.0]),
    multiple=st.booleans(),
    name=st.sampled_from(["f", '100% "sure"']),  # a field's name is JSON in a bytes format
)
def test_the_unit_table_says_what_its_objects_say(
    rows: list[tuple[Any, str, str | None]], bar: float, multiple: bool, name: str
) -> None:
    anns = [
        Annotation(task, who, {name: FieldValue("choices", () if v is None else (v,))}, None, None)
        for task, who, v in rows
    ]
    if not anns:
        return
    ds = Dataset("x.json", anns, list(dict.fromkeys(r[0] for r in rows)))
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {name: {"multiple": multiple, "thresholds": {"disputed_below": bar}}},
        }
    ).fields[name]
    result = analyse_field(ds, name, cfg)
    table = result.units
    assert isinstance(table, results.UnitTable)
    proposals = consensus_file.lines({name: result})  # from the columns, before any object
    objects = list(table)  # the straightforward reading: one object per unit
    for status in results.STATUSES:
        assert results.status_count(table, status) == results.status_count(objects, status)
        assert table.with_status(status) == [u for u in objects if u.status == status]
    np.testing.assert_array_equal(results.unit_scores(table), results.unit_scores(objects))
    plain = results.FieldResult(**{**result.__dict__, "units": objects})
    table_disputed = document.disputed_tasks(name, result.units)
    assert isinstance(table_disputed, document.DisputedTable)
    plain_disputed = document.disputed_tasks(name, plain.units)
    assert list(table_disputed) == plain_disputed
    assert table_disputed[:3] == plain_disputed[:3] and len(table_disputed) == len(plain_disputed)
    write = DisputedTasksWriter().render  # the file from the columns, byte for byte
    assert write({}, {name: table_disputed}) == write({}, {name: plain_disputed})
    was, report_json.LINES = report_json.LINES, 2  # written a few lines at a time
    try:
        chunks = list(DisputedTasksWriter().chunks({}, {name: table_disputed}))
    finally:
        report_json.LINES = was
    assert b"".join(chunks) == write({}, {name: plain_disputed})
    assert len(chunks) == max(1, -(-len(table_disputed) // 2))
    assert consensus_file.lines({name: plain}) == proposals
    for u in objects:  # every answered task, with each annotator's label, in name order
        assert list(u.labels) == sorted(u.labels)
        given_ = {w: v for t, w, v in rows if t == u.id and v is not None}
        assert {k: (x if isinstance(x, str) else x[0]) for k, x in u.labels.items()} == given_


def test_disputed_tasks_make_no_unit_object() -> None:
    """The shape of the fast path: listing 1,000 disputed tasks, or their proposals, makes no
    ``UnitResult``."""
    anns = [
        Annotation(t, who, {"f": FieldValue("choices", (label,))}, None, None)
        for t in range(1000)
        for who, label in (("a", "A"), ("b", "B"))
    ]
    ds = Dataset("x.json", anns, list(range(1000)))
    cfg = parse_config(
        {"source": {"type": "label-studio-export", "path": "x.json"}, "fields": {"f": {}}}
    ).fields["f"]
    result = analyse_field(ds, "f", cfg)
    disputed = document.disputed_tasks("f", result.units)
    assert (
        len(disputed) == 1000
        and DisputedTasksWriter().render({}, {"f": disputed}).count(b"\n") == 1000
    )
    assert len(consensus_file.lines({"f": result})) == 1000  # consensus.jsonl neither
    assert isinstance(result.units, results.UnitTable) and result.units._made == {}


def test_a_multi_label_field_nobody_labelled_scores_without_a_numpy_warning() -> None:
    """Found by the test above: one empty answer on a multi-label field left Dawid–Skene
    without a fit, and averaging no confusion matrix warned "Mean of empty slice"."""
    ds = Dataset("x.json", [Annotation(1, "a", {"f": FieldValue("choices", ())}, None, None)], [1])
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {"f": {"multiple": True}},
        }
    ).fields["f"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = analyse_field(ds, "f", cfg)
    assert result.skill is None or all(a.confusion == [] for a in result.skill.annotators)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=True, allow_infinity=True),
            st.floats(-2.0, 2.0),  # posteriors and priorities
            st.integers(-(10**9), 10**9).map(lambda k: (k + 0.5) / 1e6),  # halves, or near
            st.integers(-(10**7), 10**7).map(lambda k: k / 1e6),
        ),
        max_size=40,
    )
)
def test_proposals_are_rounded_as_python_rounds(values: list[float]) -> None:
    """A proposal's posterior and priority are rounded as ``round(v, 6)`` rounds each value,
    bit for bit (the sign of a zero too), though most of them by numpy."""
    got = results._round6(np.array(values, dtype=np.float64))
    want = [round(v, 6) for v in values]
    assert np.array(got).tobytes() == np.array(want, dtype=np.float64).tobytes()


@settings(max_examples=150, deadline=None)
@given(
    tasks=st.lists(
        st.tuples(
            st.one_of(st.integers(-(2**70), 2**70), st.text(max_size=3)),
            st.one_of(st.none(), st.sampled_from([0.1, 0.5, 0.9])),  # priority
            st.sampled_from([0.0, 0.25, 0.5]),  # score
        ),
        max_size=40,
        unique_by=lambda t: t[0],
    )
)
def test_review_order_reads_whole_number_ids_as_they_are(
    tasks: list[tuple[int | str, float | None, float]],
) -> None:
    """Disputed tasks in review order: priority highest first (none last), score lowest first,
    then task id in the report's order (``id_order``); whole-number ids are compared as
    numbers without ranking them first (ids past int64, text and mixes are ranked)."""
    ids = [t[0] for t in tasks]
    rank = {k: r for r, k in enumerate(document.id_order(ids))}
    want = sorted(
        range(len(tasks)),
        key=lambda k: (-(tasks[k][1] if tasks[k][1] is not None else -1.0), tasks[k][2], rank[k]),
    )
    got = document._review_order(ids, [t[1] for t in tasks], np.array([t[2] for t in tasks]))
    assert got == want
