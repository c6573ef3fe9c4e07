"""Region fields end to end: config → matching → scores → gate → reports → write-back.

Expected values are worked out by hand in each test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.cli import ExitCode, main
from iaa_gate.config import parse_config
from iaa_gate.core.errors import InputError
from iaa_gate.pipeline import evaluate
from iaa_gate.sinks.label_studio import entries
from test_regions_reading import (
    TEXT,
    ann,
    certainty,
    prodigy_line,
    relation,
    span,
    task,
    write_lines,
)

# Task 1, three annotators (character offsets into TEXT):
#   1: PER [0,12) sure, PER [17,32), relation a→b "met"
#   2: PER [0,12) unsure, PER [17,24) (IoU with [17,32) = 7/15 < 0.5), relation x→y "met"
#   3: PER [0,12) sure, LOC [36,42)
# Every pair matches [0,12) only: F1 = 2·1/(2+2) = 0.5 for each pair. Per region (matched
# label-free): [0,12) all three: 1; [17,32) (1 only), [17,24) (2 only), LOC (3 only): one
# agreeing pair of three (the two who left it out) → task score 1/3.
# Task 2: annotators 1 and 2 drew nothing: they agree (score 1).
NER = [
    task(
        1,
        ann(
            1,
            [
                span("a", 0, 12, "PER"),
                certainty("a", "sure"),
                span("b", 17, 32, "PER"),
                relation("a", "b", "met"),
            ],
        ),
        ann(
            2,
            [
                span("x", 0, 12, "PER"),
                certainty("x", "unsure"),
                span("y", 17, 24, "PER"),
                relation("x", "y", "met"),
            ],
        ),
        ann(3, [span("p", 0, 12, "PER"), certainty("p", "sure"), span("q", 36, 42, "LOC")]),
    ),
    task(2, ann(1, []), ann(2, [])),
]


def outcome(write_json: Any, fields: dict[str, Any], tasks: list[Any] = NER) -> Any:
    path = write_json(tasks)
    config = parse_config(
        {"source": {"type": "label-studio-export", "path": str(path)}, "fields": fields}
    )
    return evaluate(config, LabelStudioExport(path).load())


def test_ner_scores_worked_by_hand(write_json: Any) -> None:
    out = outcome(write_json, {"ner": {"thresholds": {"disputed_below": 0.6}}, "ner.certainty": {}})
    ner = out.results["ner"]
    assert [(u.id, u.status, u.score) for u in ner.units] == [
        (1, "disputed", pytest.approx(1 / 3)),
        (2, "agreed", 1.0),
    ]
    # pooled: 3 matched pairs of 12 region slots (5 regions met by 2 others + task 2 empty)
    assert ner.coefficients["f1"].value == pytest.approx(0.5)
    assert ner.coefficients["strict_f1"].value == pytest.approx(0.5)
    # PER: 3 true positives; 5 PER regions each met by 2 other raters → 2·3 / 10
    assert ner.categories == pytest.approx({"LOC": 0.0, "PER": 0.6})
    # relations: a→b and x→y, but b and y are not matched: no pair agrees
    assert ner.coefficients["relations_f1"].value == 0.0
    details = ner.units[0].details
    assert details is not None and details.text and details.text.excerpt == TEXT
    kinds = {(d.annotator, d.region["id"], d.other, d.kind) for d in details.disagreements}
    assert ("1", "b", "2", "boundary shift") in kinds
    assert ("3", "q", "1", "extra") in kinds  # only 1 of 3 raters has it
    assert ner.units[0].labels["2"] == ["PER [0, 12) 'Ada Lovelace'", "PER [17, 24) 'Charles'"]
    # ner.certainty: one cluster (the three [0,12) spans): sure, unsure, sure.
    # nominal alpha on one unit of 3 values 2:1 is 1 − (n−1)·D_o/D_e = 1 − 2·2/4 = 0.
    cert = out.results["ner.certainty"]
    assert cert.alpha == pytest.approx(0.0) and cert.n_pairable == 1
    assert [(u.id, u.status) for u in cert.units] == [(1, "disputed")]
    assert cert.units[0].labels == {"1": ["sure"], "2": ["unsure"], "3": ["sure"]}


def test_f1_threshold_gates_and_report_lists_regions(write_json: Any, tmp_path: Path) -> None:
    out = outcome(write_json, {"ner": {"thresholds": {"f1": {"fail": 0.6}, "alpha": {}}}})
    check = next(c for c in out.checks if c.name == "f1")
    assert check.verdict.value == "fail" and check.value == pytest.approx(0.5)
    doc = out.document["fields"]["ner"]
    assert doc["regions"]["f1"] == 0.5 and doc["regions"]["shape"] == "span"
    assert doc["regions"]["relations"]["f1"] == 0.0


def test_matching_settings_change_the_score(write_json: Any) -> None:
    # y [17,24) vs b [17,32): IoU 7/15 ≈ 0.467: matched at iou 0.4, so pair (1,2) gets F1 1:
    # pooled F1 2·(2 + 1 + 1)/(4 + 4 + 4) = 2/3. The PER region (1, 2; 3 missed it): 1/3.
    out = outcome(write_json, {"ner": {"matching": {"iou": 0.4}}})
    assert out.results["ner"].coefficients["f1"].value == pytest.approx(2 / 3)
    assert out.results["ner"].units[0].score == pytest.approx(1 / 3)
    # exact mode: the same as strict F1
    out = outcome(write_json, {"ner": {"matching": {"mode": "exact"}}})
    assert out.results["ner"].coefficients["f1"].value == pytest.approx(0.5)


def test_per_region_attribute_is_never_a_task_level_field(write_json: Any) -> None:
    with pytest.raises(
        InputError,
        match=r"'certainty' does not occur in the data \(fields present: ner, ner.certainty\)",
    ):
        outcome(write_json, {"certainty": {}})


def test_unsupported_region_type_in_config_is_refused(write_json: Any) -> None:
    oval = {"id": "m", "from_name": "oval", "type": "ellipselabels", "value": {"x": 1, "y": 2}}
    tasks = [task(1, ann(1, [oval]), ann(2, [oval]))]
    with pytest.raises(
        InputError, match="'oval' is a ellipselabels control, which iaa-gate cannot evaluate"
    ):
        outcome(write_json, {"oval": {}}, tasks)


def box(rid: str, x: float, label: str = "Car") -> dict[str, Any]:
    value = {"x": x, "y": 0, "width": 10, "height": 10, "rotation": 0, "rectanglelabels": [label]}
    return {
        "id": rid,
        "from_name": "box",
        "to_name": "img",
        "type": "rectanglelabels",
        "value": value,
    }


def test_boxes_iou_threshold_and_unmatched_category_alpha(write_json: Any) -> None:
    # [0,10]² vs [5,15]×[0,10]: intersection 50, union 150, IoU 1/3
    tasks = [
        task(1, ann(1, [box("a", 0)]), ann(2, [box("b", 5)]), data={"image": "1.png"}),
        task(2, ann(1, [box("c", 0)]), ann(2, [box("d", 0)]), data={"image": "2.png"}),
    ]
    out = outcome(write_json, {"box": {"bootstrap": {"replicates": 0}}}, tasks)
    r = out.results["box"]
    assert [u.score for u in r.units] == [0.0, 1.0]
    assert r.regions is not None and r.regions.mean_iou == 1.0
    # clusters: {a}, {b} (each the other annotator "unmatched"), {c, d}: values
    # (Car, unm), (unm, Car), (Car, Car): n = 6; o(Car,unm) = o(unm,Car) = 2, o(Car,Car) = 2;
    # n_Car = 4, n_unm = 2: alpha = 1 − (n−1)·D_o/D_e = 1 − 5·4/(2·4·2) = −0.25
    assert r.alpha == pytest.approx(-0.25)
    out = outcome(
        write_json, {"box": {"matching": {"iou": 0.3}, "bootstrap": {"replicates": 0}}}, tasks
    )
    assert [u.score for u in out.results["box"].units] == [1.0, 1.0]
    assert out.results["box"].regions.mean_iou == pytest.approx((1 / 3 + 1) / 2)


def test_writeback_entry_names_the_disputed_regions(write_json: Any) -> None:
    out = outcome(write_json, {"ner": {"thresholds": {"disputed_below": 0.6}}})
    entry = entries(out.results, "cfg")[1].as_meta()["fields"]["ner"]  # as the task holds it
    assert entry["status"] == "disputed"
    assert {
        "kind": "boundary shift",
        "annotator": "1",
        "id": "b",
        "label": "PER",
        "other": "2",
    } in entry["regions"]


def test_prodigy_ner_manual_disagreement_fails_instead_of_passing(tmp_path: Path) -> None:
    """All answers are "accept": read as accept/reject this passed. The spans disagree."""
    lines = []
    for h in range(4):
        text = f"Ada Lovelace met Charles Babbage number {h}."
        for who, spans in (
            ("a", [{"start": 0, "end": 12, "label": "PER"}]),
            ("b", [{"start": 17, "end": 32, "label": "ORG"}]),
        ):
            lines.append(
                prodigy_line(
                    _input_hash=h, text=text, spans=spans, _view_id="ner_manual", _annotator_id=who
                )
            )
    src = write_lines(tmp_path, lines)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"source: {{type: prodigy, path: {src}}}\n"
        "fields: {ner_manual: {thresholds: {f1: {fail: 0.5}}}}\n"
        f"report: {{dir: {tmp_path / 'r'}}}\n"
        "writeback: {enabled: true}\n"
    )
    assert main(["run", "-c", str(cfg), "-q"]) == ExitCode.GATE_FAILED
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert report["fields"]["ner_manual"]["regions"]["f1"] == 0.0
    review = [json.loads(x) for x in (tmp_path / "r" / "disputed.jsonl").read_text().splitlines()]
    assert len(review) == 8  # every annotator's answer, spans kept, for `prodigy review`
    assert {x["_annotator_id"]: x["spans"][0]["label"] for x in review[:2]} == {
        "a": "PER",
        "b": "ORG",
    }


def test_span_alphas_worked_by_hand(write_json: Any) -> None:
    """a [0,4) and b [0,5) of one label on a 10-character text.

    Unitizing alpha (Krippendorff 2004): D_o = 2·(4−5)² / (m(m−1)L²) = 2/200. D_e: units 4, 5
    (N = 2), gaps 6, 5: Σ_g [(N−1)(2ℓ³−3ℓ²+ℓ)/3 + ℓ²Σ_{h≥g}(ℓ_h−ℓ_g+1)] = (28 + 16·5) +
    (60 + 25·3) = 243; D_e = 2/L·243 / (mL(mL−1) − Σℓ(ℓ−1)) = 48.6/348; α = 1 − 0.01/0.13966.
    Character alpha: position 4 is x for a and outside for b, the other nine agree."""
    text = "abcdefghij"
    a = {
        "id": "a",
        "from_name": "s",
        "to_name": "text",
        "type": "labels",
        "value": {"start": 0, "end": 4, "text": "abcd", "labels": ["x"]},
    }
    b = {**a, "id": "b", "value": {"start": 0, "end": 5, "text": "abcde", "labels": ["x"]}}
    tasks = [task(1, ann(1, [a]), ann(2, [b]), data={"text": text})]
    r = outcome(write_json, {"s": {}}, tasks).results["s"]
    assert r.coefficients["unitizing_alpha"].value == pytest.approx(1 - 0.01 / (48.6 / 348))
    # coincidences: x–x 2·4 = 8, out–out 2·5 = 10, x–out 1 + out–x 1; n_x = 9, n_out = 11
    assert r.alpha == pytest.approx(1 - 19 * 2 / (2 * 9 * 11))


def test_overlapping_spans_of_one_label_are_merged_for_unitizing(write_json: Any) -> None:
    text = "abcdefghij"

    def s(rid: str, lo: int, hi: int) -> dict[str, Any]:
        return {
            "id": rid,
            "from_name": "s",
            "to_name": "text",
            "type": "labels",
            "value": {"start": lo, "end": hi, "text": text[lo:hi], "labels": ["x"]},
        }

    one = [task(1, ann(1, [s("a", 0, 4)]), ann(2, [s("b", 0, 5)]), data={"text": text})]
    two = [
        task(1, ann(1, [s("a", 0, 3), s("c", 2, 4)]), ann(2, [s("b", 0, 5)]), data={"text": text})
    ]
    u1 = outcome(write_json, {"s": {}}, one).results["s"].coefficients["unitizing_alpha"].value
    u2 = outcome(write_json, {"s": {}}, two).results["s"].coefficients["unitizing_alpha"].value
    assert u2 == pytest.approx(u1)  # [0,3) ∪ [2,4) = [0,4)
