"""A region field's lines of ``disputed-tasks.jsonl`` and ``consensus.jsonl`` are encoded from
its columns (issue 31): each region's JSON once, each task's pieces joined, no dict per region.
They are held here to encoding the described tasks (the ``Details`` objects a report shows) and
the proposed lists of regions, byte for byte."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.config import parse_config
from iaa_gate.evaluation import document
from iaa_gate.evaluation.region_details import RegionProposals, RegionUnits
from iaa_gate.evaluation.results import FieldResult, Picked
from iaa_gate.pipeline import evaluate
from iaa_gate.sinks.report import columns
from iaa_gate.sinks.report import consensus as consensus_file
from iaa_gate.sinks.report.json import DisputedTasksWriter
from test_regions_pipeline import box
from test_regions_reading import TEXT, ann, relation, span, task

ENCODER = msgspec.json.Encoder(order="sorted")
region = st.tuples(
    st.integers(0, len(TEXT) - 1),  # start (a box: its x)
    st.integers(0, 8),  # length
    st.sampled_from(["PER", "LOC", "ORG"]),
)
rounds = st.lists(  # tasks: per annotator (or not rating it), their regions
    st.tuples(
        st.lists(st.one_of(st.none(), st.lists(region, max_size=5)), min_size=3, max_size=3),
        st.booleans(),  # with a text (spans)
    ),
    min_size=1,
    max_size=5,
)


def _tasks(
    drawn: list[tuple[list[Any], bool]], boxes: bool, related: bool, users: list[int]
) -> list[Any]:
    """The export of ``drawn`` tasks, annotator ``a``'s user ``users[a]``; an odd task lists
    its annotations last first (names sort apart from the order they come in)."""
    drawn = [([[(0, 5, "PER")], [(0, 5, "LOC")], None], True), *drawn]  # the field occurs
    out = []
    for t, (by_annotator, with_text) in enumerate(drawn):
        anns = []
        for a, regions in sorted(zip(users, by_annotator, strict=True), reverse=t % 2 == 1):
            if regions is None:
                continue
            results: list[dict[str, Any]] = []
            for k, (start, length, label) in enumerate(regions):
                rid = f"{t}-{a}-{k}"
                if boxes:
                    results.append(dict(box(rid, start + length / 3, label), from_name="ner"))
                else:
                    results.append(span(rid, start, min(start + length, len(TEXT)), label))
            if related and len(regions) >= 2:
                results.append(relation(f"{t}-{a}-0", f"{t}-{a}-1", "met"))
            anns.append(ann(a, results))
        data = {"text": TEXT} if with_text and not boxes else {"image" if boxes else "html": "x"}
        out.append(task(t + 1, *anns, data=data))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rounds,
    st.booleans(),  # boxes instead of spans
    st.booleans(),  # relations
    st.sampled_from([0.5, 0.8, 1.0]),  # disputed below
    st.integers(1, 3),  # tasks encoded at a time
    st.permutations([1, 9, 10]),  # users: "10" sorts before "9"
)
def test_region_lines_from_columns_are_the_described_tasks_encoded(
    drawn: list[tuple[list[Any], bool]],
    boxes: bool,
    related: bool,
    bar: float,
    block: int,
    users: list[int],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "export.json"
        path.write_text(json.dumps(_tasks(drawn, boxes, related, users)))
        dataset = LabelStudioExport(path).load()
    config = parse_config(
        {
            "source": {"type": "label-studio-export", "path": str(path)},
            "fields": {"ner": {"thresholds": {"disputed_below": bar}}},
        }
    )
    result = evaluate(config, dataset).results["ner"]
    tasks = document.disputed_tasks("ner", result.units)
    assert isinstance(tasks, document.DisputedTable) and isinstance(tasks.units, RegionUnits)
    write = DisputedTasksWriter().render
    was = columns.BLOCK, columns.UNITS, consensus_file.LINES
    columns.BLOCK = columns.UNITS = consensus_file.LINES = block  # a part at a time
    try:
        from_columns = write({}, {"ner": tasks})  # before any task is described
        assert not tasks or columns.encodable(tasks.units)  # the column path
        proposed = consensus_file.render({"ner": result})  # consensus.jsonl from the columns
        # the proposals' JSON, made once for both files, is not held once both took it; made
        # again (consensus.jsonl first this time), both files are as they were
        value = tasks.proposals.value
        assert isinstance(value, Picked) and isinstance(value.values, RegionProposals)
        assert value.values.encoded is None
        assert consensus_file.render({"ner": result}) == proposed
        assert write({}, {"ner": tasks}) == from_columns
        assert value.values.encoded is None
    finally:
        columns.BLOCK, columns.UNITS, consensus_file.LINES = was
    described = list(tasks)  # the objects a report shows, made one by one
    assert from_columns == write({}, {"ner": described})
    assert from_columns.count(b"\n") == result.units.count_status("disputed")
    plain = FieldResult(**{**result.__dict__, "units": list(result.units)})  # one per unit
    assert proposed == ENCODER.encode_lines(consensus_file.lines({"ner": plain}))
    assert write({}, {"ner": document.disputed_tasks("ner", plain.units)}) == from_columns


SPANS_TEMPLATE = (  # the HTML page's span cell as its template wrote it, Jinja2 autoescaping
    '{% for who, segments in lines %}<div><span class="who">{{ who }}</span>: '
    '<span class="text">{% for piece, labels in segments %}{% if labels %}<mark style="'
    "background: {{ colors.get(labels[0], '#e4e7ec') }}\" title=\"{{ labels | join(', ') }}\">"
    '{{ piece }}<sup>{{ labels | join("+") }}</sup></mark>{% else %}{{ piece }}{% endif %}'
    "{% endfor %}</span></div>{% endfor %}"
)
text = st.text(alphabet=st.sampled_from(list("ab <>&\"'é")), max_size=6)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(text, st.lists(st.tuples(text, st.lists(st.one_of(st.none(), text))))),
        max_size=3,
    ),
    st.dictionaries(st.one_of(st.none(), text), text, max_size=3),
)
def test_the_span_cell_is_what_the_template_wrote(
    lines: list[tuple[str, list[tuple[str, list[Any]]]]], colors: dict[Any, str]
) -> None:
    """The page's span cell, written in Python (a page of 1,000 span tasks has tens of
    thousands of segments), is what the template's loop wrote, every value escaped."""
    from jinja2 import Environment

    from iaa_gate.sinks.report.html import spans_html

    template = Environment(autoescape=True).from_string(SPANS_TEMPLATE)
    assert str(spans_html(lines, colors)) == template.render(lines=lines, colors=colors)


ODD = "Ada \"L\" \\ 100% é\u200b\n'x' {y}: [z]"  # quotes, backslash, %, a newline, non-printable
odd_label = st.sampled_from(["PER", "a%sb", 'q"t', "new\nline", "é", "x=1 y"])


def _shape(kind: str, rid: str, x: int, length: int, label: str) -> dict[str, Any]:
    """A region of ``kind`` (polygon, keypoint, box, span) at ``x``, sized by ``length``."""
    value: dict[str, Any]
    if kind == "span":
        start, end = min(x, len(ODD) - 1), min(x + length, len(ODD))
        value = {"start": start, "end": end, "text": ODD[start:end], "labels": [label]}
        return {"id": rid, "from_name": "ner", "to_name": "text", "type": "labels", "value": value}
    if kind == "polygon":
        points = [[x, 0.5], [x + length + 1.25, 0.0], [x + 1, length + 2.5]]
        value = {"points": points, "polygonlabels": [label]}
    elif kind == "keypoint":
        value = {"x": x + length / 7, "y": 1.5, "width": 0.5, "keypointlabels": [label]}
    else:
        value = {"x": x + length / 3, "y": 0, "width": 10, "height": 10, "rectanglelabels": [label]}
    kinds = {"box": "rectanglelabels", "polygon": "polygonlabels", "keypoint": "keypointlabels"}
    return {"id": rid, "from_name": "ner", "to_name": "img", "type": kinds[kind], "value": value}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["polygon", "keypoint", "box", "span"]),
    st.lists(
        st.lists(
            st.one_of(
                st.none(),
                st.lists(st.tuples(st.integers(0, 20), st.integers(0, 8), odd_label), max_size=4),
            ),
            min_size=3,
            max_size=3,
        ),
        min_size=1,
        max_size=5,
    ),
    st.integers(1, 3),  # tasks encoded at a time
)
def test_every_shape_and_odd_labels_and_texts_encode_as_the_objects(
    kind: str, drawn: list[list[Any]], block: int
) -> None:
    """Polygons, keypoints, boxes and spans, labels holding a newline, ``%`` or quotes and a
    text with quotes, a backslash, a newline and a non-printable character: the lines from the
    columns, written a block at a time in review order, are the described tasks encoded."""
    drawn = [[[(0, 5, "PER")], [(0, 5, "LOC")], None], *drawn]  # the field occurs
    tasks_ = []
    for t, by_annotator in enumerate(drawn):
        anns = [
            ann(a, [_shape(kind, f"{t}-{a}-{k}", *r) for k, r in enumerate(regions)])
            for a, regions in enumerate(by_annotator, start=1)
            if regions is not None
        ]
        tasks_.append(task(t + 1, *anns, data={"text": ODD} if kind == "span" else {"img": "x"}))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "export.json"
        path.write_text(json.dumps(tasks_))
        dataset = LabelStudioExport(path).load()
    config = parse_config(
        {
            "source": {"type": "label-studio-export", "path": str(path)},
            "fields": {"ner": {"thresholds": {"disputed_below": 1.0}}},
        }
    )
    result = evaluate(config, dataset).results["ner"]
    tasks = document.disputed_tasks("ner", result.units)
    assert isinstance(tasks, document.DisputedTable) and isinstance(tasks.units, RegionUnits)
    writer = DisputedTasksWriter()
    was, columns.BLOCK = columns.BLOCK, block
    try:
        chunks = list(writer.chunks({}, {"ner": tasks}))  # before any task is described
        assert not tasks or columns.encodable(tasks.units)  # the column path
    finally:
        columns.BLOCK = was
    assert len(chunks) == -(-len(tasks) // block) or not tasks  # a block at a time
    assert b"".join(chunks) == writer.render({}, {"ner": list(tasks)})
    proposed = consensus_file.render({"ner": result})
    plain = FieldResult(**{**result.__dict__, "units": list(result.units)})
    assert proposed == ENCODER.encode_lines(consensus_file.lines({"ner": plain}))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 3).flatmap(  # sections; per group, per section: its items of 2 pieces
        lambda n: st.lists(
            st.lists(
                st.lists(st.lists(st.integers(0, 99), min_size=2, max_size=2), max_size=4),
                min_size=n,
                max_size=n,
            ),
            min_size=1,
            max_size=6,
        )
    ),
)
def test_pieces_laid_out_by_counts_as_listed_one_by_one(groups: list[list[list[Any]]]) -> None:
    """A block's pieces are placed by counts, not sorted: each group (a task) has its part of
    each section in turn, each item followed by a separator (the last of its group: another
    piece), as laying them out group by group gives."""
    import numpy as np

    sep, last = 100, 101
    sections = []
    for s in range(len(groups[0])):
        items = [item for g in groups for item in g[s]]
        sizes = np.array([len(g[s]) for g in groups], dtype=np.int64)
        sections.append(
            columns._listed(np.array(items, dtype=np.int64).reshape(-1, 2), sizes, sep, last)
        )
    got, counts = columns._interleave(sections)
    want: list[list[int]] = [
        [
            x
            for part in g
            for i, item in enumerate(part)
            for x in [*item, sep if i < len(part) - 1 else last]
        ]
        for g in groups
    ]
    assert got.tolist() == [x for g in want for x in g]
    assert counts.tolist() == [len(g) for g in want]
