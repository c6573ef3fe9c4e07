"""A region field's spans drawn alike (a task's, same offsets and label) are described once
(issue 31): the text under them, their line and what each region is built from. Held here to
describing each region alone, with texts holding quotes, backslashes, non-ASCII and control
characters, unknown texts and fractional offsets."""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_gate.evaluation.region_details import Describer, alike
from iaa_gate.sinks.report import columns
from test_regions_reading import ann, matched_ner, task

ENCODER = msgspec.json.Encoder(order="sorted")
TEXTS = ["Ada \"L\" \\ 100% é\u200b\n'x' {y}: [z]", "a'b\"c\\d\x00\x1f\x7f€😀 tab\there", None]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from([0.0, -0.0, 1.5, 2.0, 1e300]),
            st.integers(-1, 1),
        ),
        max_size=40,
    )
)
def test_alike_rows_are_each_distinct_row_once(rows: list[tuple[int, float, int]]) -> None:
    """``alike`` gives each distinct row's first row, in row order, and which one each row
    is: as a dict of the rows seen so far does (floats by their bits: 0.0 is not -0.0)."""
    seen: dict[tuple[int, bytes, int], int] = {}
    first, which = [], []
    for r, (a, b, c) in enumerate(rows):
        key = (a, np.float64(b).tobytes(), c)
        if key not in seen:
            seen[key] = len(seen)
            first.append(r)
        which.append(seen[key])
    columns_ = np.array(rows, dtype=object).T if rows else np.zeros((3, 0))
    got_first, got_which = alike(
        columns_[0].astype(np.int64),
        columns_[1].astype(np.float64).view(np.int64),
        columns_[2].astype(np.int64),
    )
    assert got_first.tolist() == first and got_which.tolist() == which


region = st.tuples(
    st.integers(0, 3),  # start: few, so annotators (and tasks) draw alike
    st.integers(0, 3),  # length
    st.sampled_from(["PER", 'q"t', "é\n"]),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(  # tasks: per annotator, their spans
        st.lists(st.lists(region, max_size=6), min_size=3, max_size=3), min_size=1, max_size=4
    ),
    st.booleans(),  # fractional offsets
    st.randoms(use_true_random=False),
)
def test_spans_drawn_alike_are_described_as_each_alone(
    drawn: list[list[list[tuple[int, int, str]]]], fractional: bool, rng: Any
) -> None:
    """Each span's id, label, offsets, text under it, one-line form and JSON from
    ``Describer.columns`` (alike spans described once) are those of the span described alone,
    for spans of different annotators with the same offsets and different labels or ids."""
    drawn = [[[(0, 3, "PER")], [(0, 3, "LOC")], []], *drawn]  # the field occurs
    tasks = []
    for t, by_annotator in enumerate(drawn):
        text = TEXTS[t % len(TEXTS)]
        anns = []
        for a, spans in enumerate(by_annotator, start=1):
            results = []
            for k, (start, length, label) in enumerate(spans):
                start_ = start + 0.5 * fractional  # then an end not before it
                value = {"start": start_, "end": start + length + fractional, "labels": [label]}
                if text is not None:  # as Label Studio exports a span of a text
                    value["text"] = text[start : start + length + fractional]
                results.append(
                    {"id": f"{t}-{a}-{k}", "from_name": "ner", "to_name": "text", "type": "labels"}
                    | {"value": value}
                )
            anns.append(ann(a, results))
        tasks.append(task(t + 1, *anns, data={"text": text} if text else {"html": "x"}))
    m = matched_ner(tasks)
    reg, table = m.regions, m.table
    rows = np.arange(reg.n)
    rng.shuffle(rows)
    c = Describer(m).columns(rows)
    geometry = reg.geometry.round(4)
    whole = bool(np.all(geometry == np.floor(geometry)))

    def alone(r: int) -> dict[str, Any]:
        geo = (geometry[r].astype(np.int64) if whole else geometry[r]).tolist()
        label = [*reg.labels, None][reg.label[r]]
        out = {"id": table.region_ids[m.kept[r]], "label": label, "start": geo[0], "end": geo[1]}
        text = table.texts[int(reg.unit[r])]
        return out if text is None else out | {"text": text[int(geo[0]) : int(geo[1])]}

    def line(d: dict[str, Any]) -> str:
        shown = f"{d['label'] or '(no label)'} [{d['start']}, {d['end']})"
        return f"{shown} {d['text']!r}" if "text" in d else shown

    each = [alone(r) for r in rows.tolist()]
    assert c.dicts() == each and c.lines() == list(map(line, each))
    assert columns.regions(c) == ENCODER.encode_lines(each)
