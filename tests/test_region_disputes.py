"""Region disputes at the level of the decision: each region (a cluster of regions matched
label-free, or one region the others left unmatched) scores the share of the task's annotator
pairs that agree on it, as a choices task does; the task scores its lowest region's.

Every case is worked by hand on TEXT = "Ada Lovelace met Charles Babbage in London." (Ada
Lovelace [0,12), London [36,42)), three annotators, the defaults (IoU 0.5, disputed below 0.5),
and checked again with the results and annotations in shuffled orders.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_regions_pipeline import NER, box, outcome
from test_regions_reading import TEXT, ann, matched_ner, relation, span, task


def three(*third: dict[str, Any], first: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Task 1: annotators 1 and 2 mark ``first`` (default: PER Ada Lovelace, LOC London);
    annotator 3 marks ``third``."""
    first = first if first is not None else [span("a", 0, 12, "PER"), span("b", 36, 42, "LOC")]
    return task(
        1,
        ann(1, [dict(r, id=f"1{r['id']}") for r in first]),
        ann(2, [dict(r, id=f"2{r['id']}") for r in first]),
        ann(3, list(third)),
    )


CASES: dict[str, tuple[dict[str, Any], str, float, dict[str, str] | None]] = {
    # name: (task, status, score, the lowest region's labels per annotator)
    "missed entity": (
        three(span("c", 0, 12, "PER")),
        "disputed",
        1 / 3,  # LOC: (LOC, LOC, unmatched): 1 agreeing pair of 3
        {"1": "LOC", "2": "LOC", "3": "(unmatched)"},
    ),
    "label swap": (
        three(span("c", 0, 12, "PER"), span("d", 36, 42, "ORG")),
        "disputed",
        1 / 3,  # London matched label-free: (LOC, LOC, ORG)
        {"1": "LOC", "2": "LOC", "3": "ORG"},
    ),
    "boundary shift within the IoU": (
        three(span("c", 0, 12, "PER"), span("d", 36, 41, "LOC")),  # IoU 5/6
        "agreed",
        1.0,
        None,
    ),
    "boundary shift past the IoU": (
        three(span("c", 0, 12, "PER"), span("d", 36, 38, "LOC")),  # IoU 2/6
        "disputed",
        1 / 3,  # (LOC, LOC, unmatched) and (unmatched, unmatched, LOC): 1/3 each
        {"1": "LOC", "2": "LOC", "3": "(unmatched)"},
    ),
    "split": (
        # [36,39) matches [36,42) (IoU 3/6 = 0.5); [39,42) is left over
        three(span("c", 0, 12, "PER"), span("d", 36, 39, "LOC"), span("e", 39, 42, "LOC")),
        "disputed",
        1 / 3,
        {"1": "(unmatched)", "2": "(unmatched)", "3": "LOC"},
    ),
    "nested spans, all agree": (
        three(
            span("c", 0, 12, "PER"),
            span("d", 0, 3, "GIVEN"),
            first=[span("a", 0, 12, "PER"), span("b", 0, 3, "GIVEN")],
        ),
        "agreed",
        1.0,
        None,
    ),
    "nested span missed": (
        three(span("c", 0, 12, "PER"), first=[span("a", 0, 12, "PER"), span("b", 0, 3, "GIVEN")]),
        "disputed",
        1 / 3,
        {"1": "GIVEN", "2": "GIVEN", "3": "(unmatched)"},
    ),
    "empty vs empty": (three(first=[]), "agreed", 1.0, None),
    "a miss, and a swap with a miss below it": (
        task(
            1,
            ann(1, [span("1a", 0, 12, "PER"), span("1b", 36, 42, "LOC")]),
            ann(2, [span("2a", 0, 12, "PER"), span("2b", 36, 42, "ORG")]),
            ann(3, []),
        ),
        "disputed",
        0.0,  # London: (LOC, ORG, unmatched), no pair agrees; Ada Lovelace 1/3 comes first
        {"1": "LOC", "2": "ORG", "3": "(unmatched)"},
    ),
}


def shuffled(t: dict[str, Any], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    anns = [dict(a, result=rng.sample(a["result"], len(a["result"]))) for a in t["annotations"]]
    return dict(t, annotations=rng.sample(anns, len(anns)))


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_a_task_scores_its_lowest_region(write_json: Any, name: str, seed: int | None) -> None:
    t, status, score, labels = CASES[name]
    other = task(2, *(ann(a, [span(f"{a}z", 0, 12, "PER")]) for a in (1, 2, 3)))  # all agree
    tasks = [t if seed is None else shuffled(t, seed), other]
    unit = outcome(write_json, {"ner": {}}, tasks).results["ner"].units[0]
    assert (unit.status, unit.score) == (status, pytest.approx(score))
    if labels is not None:
        assert unit.details is not None
        assert unit.details.region.labels == labels
        assert unit.details.region.score == pytest.approx(score)
        first = unit.details.disagreements[0]  # the lowest region's disagreement first
        ids = {r["id"] for r in unit.details.region.regions}
        assert first.region["id"] in ids or (first.counterpart or {}).get("id") in ids


def test_boxes_within_the_iou_are_not_disputed(write_json: Any) -> None:
    # [0,10]² vs [2,12]×[0,10]: IoU 80/120 = 2/3 ≥ 0.5: one region, both Car
    near = task(1, ann(1, [box("a", 0)]), ann(2, [box("b", 2)]), data={"image": "1.png"})
    # [0,10]² vs [6,16]×[0,10]: IoU 40/160 = 1/4: two regions, each drawn by one of two: 0
    far = task(2, ann(1, [box("c", 0)]), ann(2, [box("d", 6)]), data={"image": "2.png"})
    units = outcome(write_json, {"box": {"bootstrap": {"replicates": 0}}}, [near, far])
    assert [(u.status, u.score) for u in units.results["box"].units] == [
        ("agreed", 1.0),
        ("disputed", 0.0),
    ]


def test_a_relation_two_of_three_drew_disputes_the_task(write_json: Any) -> None:
    """Regions all agree; annotators 1 and 2 relate Ada Lovelace → London, 3 does not: that
    relation's score is 1/3 (as a 2-to-1 choice), the task's lowest, and it is named first."""

    def drawn(a: int, related: bool) -> dict[str, Any]:
        regions = [span(f"{a}p", 0, 12, "PER"), span(f"{a}l", 36, 42, "LOC")]
        return ann(a, regions + ([relation(f"{a}p", f"{a}l", "met")] if related else []))

    t = task(1, drawn(1, True), drawn(2, True), drawn(3, False))
    unit = outcome(write_json, {"ner": {}}, [t]).results["ner"].units[0]
    assert (unit.status, unit.score) == ("disputed", pytest.approx(1 / 3))
    assert unit.details is not None and unit.details.relation  # the lowest decision
    assert unit.details.relation.labels == {"1": "met", "2": "met", "3": "(no relation)"}
    assert unit.details.region.score == 1.0


def test_a_per_region_attribute_gets_a_proposal_per_region(write_json: Any) -> None:
    """ner.certainty on task 1 of the pipeline tests: [0,12) is sure, unsure, sure."""
    out = outcome(write_json, {"ner": {}, "ner.certainty": {}}, NER)
    cert = out.results["ner.certainty"]
    unit = cert.units[0]
    assert unit.consensus is not None and unit.consensus.method == "dawid-skene"
    (region,) = unit.consensus.value
    assert region["region"].startswith("1#") and region["value"] == "sure"
    assert unit.priority == pytest.approx(1 - unit.consensus.posterior)
    assert cert.skill is not None and cert.skill.basis == "matched region"


def test_a_span_consensus_holds_its_text_where_the_text_is_known(write_json: Any) -> None:
    """Each proposed span holds the text under it, and no text in a task whose text is not
    known (a span field on another data key)."""
    drawn = [ann(a, [span(f"{a}", 0, 12, "PER")]) for a in (1, 2, 3)]
    tasks = [task(1, *drawn), task(2, *drawn, data={"html": "x"})]
    known, unknown = outcome(write_json, {"ner": {}}, tasks).results["ner"].units
    assert known.consensus is not None and unknown.consensus is not None
    (region,) = known.consensus.value
    assert list(region) == ["label", "start", "end", "text", "posterior", "tie"]
    assert (region["label"], region["start"], region["end"], region["text"]) == (
        "PER",
        0,
        12,
        "Ada Lovelace",
    )
    (bare,) = unknown.consensus.value
    assert list(bare) == ["label", "start", "end", "posterior", "tie"]
    assert {k: region[k] for k in bare} == bare


def test_a_long_text_is_cut_around_its_lowest_region(write_json: Any) -> None:
    """A disputed task's excerpt runs from its first region to its last only while that is
    short: in a long document (here 200,000 characters, PER agreed at the start, LOC at the end
    drawn by two of three) it is cut around the lowest region and holds at most
    ``EXCERPT_MAX`` characters, where it used to copy the whole text into the report."""
    from iaa_gate.evaluation import document
    from iaa_gate.evaluation.region_details import EXCERPT_MAX
    from iaa_gate.sinks.report.json import DisputedTasksWriter

    text = "Ada Lovelace" + "." * 200_000 + "London"
    end = len(text)

    def at(rid: str, start: int, stop: int, label: str) -> dict[str, Any]:
        value = {"start": start, "end": stop, "text": text[start:stop], "labels": [label]}
        return {"id": rid, "from_name": "ner", "to_name": "text", "type": "labels", "value": value}

    people = [at("a", 0, 12, "PER"), at("b", end - 6, end, "LOC")]
    long = task(
        1,
        ann(1, people),
        ann(2, [dict(r, id=f"2{r['id']}") for r in people]),
        ann(3, [at("3a", 0, 12, "PER")]),
        data={"text": text},
    )
    short = task(2, ann(1, people[:1]), ann(2, []), ann(3, people[:1]), data={"text": text[:40]})
    result = outcome(write_json, {"ner": {}}, [long, short]).results["ner"]
    d = result.units.disputes  # the JSON sink's excerpts, by column, as each task's is made alone
    assert len(d) == 2 and d.excerpts([1, 0, 1]) == [d.excerpt(1), d.excerpt(0), d.excerpt(1)]
    write, tasks = DisputedTasksWriter().render, document.disputed_tasks("ner", result.units)
    assert write({}, {"ner": tasks}) == write({}, {"ner": list(tasks)})  # from the columns too
    unit = result.units[0]
    assert unit.status == "disputed" and unit.details is not None
    shown = unit.details.text
    assert shown and shown.length == end and len(shown.excerpt) <= EXCERPT_MAX
    assert shown.excerpt == text[shown.offset : shown.offset + len(shown.excerpt)]
    assert shown.excerpt.endswith("London")  # the lowest region (LOC), with its context
    assert shown.offset <= end - 6


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),  # annotator
            st.integers(0, len(TEXT) - 1),  # start
            st.integers(0, 8),  # length
            st.sampled_from(["PER", "LOC", "ORG"]),
            st.booleans(),  # in the task without a text
        ),
        min_size=1,
        max_size=30,
    ),
    st.booleans(),  # boxes instead of spans
)
def test_regions_described_column_wise_as_one_by_one(
    drawn: list[tuple[int, int, int, str, bool]], boxes: bool
) -> None:
    """``Describer.many`` (every disputed region at once, by column) gives each region's dict
    and line as describing it alone does (a box through ``Describer.place`` and ``_shown``):
    ids, labels, geometry (whole offsets as ints), the text under a span, none without a
    text."""
    import numpy as np

    from iaa_gate.evaluation.region_details import Describer

    def region(k: int, start: int, length: int, label: str) -> dict[str, Any]:
        if boxes:
            return dict(box(f"r{k}", start + length / 4, label), from_name="ner")
        return span(f"r{k}", start, min(start + length, len(TEXT)), label)

    results: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for k, (who, start, length, label, bare) in enumerate(drawn):
        results.setdefault((2 if bare else 1, who), []).append(region(k, start, length, label))
    tasks = [
        task(0, ann(1, [region(-1, 0, 5, "PER")]), data={"text": TEXT}),  # one rater: not kept
        *(
            task(t, *(ann(a, results.get((t, a), [])) for a in (1, 2, 3)), data=data)
            for t, data in ((1, {"text": TEXT}), (2, {"image" if boxes else "html": "x"}))
        ),
    ]
    m = matched_ner(tasks)
    describe = Describer(m)
    reg, t = m.regions, m.table
    rows = np.random.default_rng(len(drawn)).permutation(reg.n)
    many, lines = describe.many(rows)
    geometry = reg.geometry.round(4)
    whole = reg.kind == "span" and bool(np.all(geometry == np.floor(geometry)))

    def alone(r: int) -> dict[str, Any]:
        head = {"id": t.region_ids[m.kept[r]], "label": ([*reg.labels, None])[reg.label[r]]}
        geo = (geometry[r].astype(np.int64) if whole else geometry[r]).tolist()
        if boxes:
            return describe.place(head, geo, r)
        text = t.texts[int(reg.unit[r])]
        under = {} if text is None else {"text": text[int(geo[0]) : int(geo[1])]}
        return {**head, "start": geo[0], "end": geo[1], **under}

    def line(d: dict[str, Any]) -> str:
        if boxes:  # the geometry's keys in the dict's order, each as %g
            shown = " ".join(f"{k}={v:g}" for k, v in d.items() if k not in ("id", "label"))
            return f"{d['label'] or '(no label)'} {shown}"
        text = f" {d['text']!r}" if "text" in d else ""
        return f"{d['label'] or '(no label)'} [{d['start']}, {d['end']}){text}"

    one_by_one = [alone(r) for r in rows.tolist()]
    assert many == one_by_one and lines == [line(d) for d in one_by_one]
