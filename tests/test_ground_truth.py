"""Agreement with ground truth: Label Studio's ground_truth flag, a gold annotator, gold tasks,
conflicting references, label sets, the gate, and keeping references out of agreement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.adapters.prodigy.source import ProdigyJSONL
from iaa_gate.config import parse_config
from iaa_gate.evaluation.ground_truth import field_truth
from iaa_gate.model import Annotation, Dataset, FieldValue, RegionSet
from iaa_gate.pipeline import evaluate

EXPORT = Path(__file__).resolve().parent.parent / "examples" / "label-studio" / "export.json"


def ann(
    task: int, who: str, kind: str, value: Any, gt: bool = False, regions: RegionSet | None = None
) -> Annotation:
    return Annotation(task, who, {"f": FieldValue(kind, value, regions)}, ground_truth=gt)


def run(dataset: Dataset, field: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json", **top.pop("source", {})},
            "fields": {"f": {"bootstrap": {"replicates": 0}, **(field or {})}},
            **top,
        }
    )
    doc: dict[str, Any] = evaluate(cfg, dataset).document
    return doc


# Ratings on tasks 1–4: "a" matches the lead, "b" is one point high, "c" misses task 4.
LEAD = [3.0, 4.0, 2.0, 5.0]
RATINGS = {"a": LEAD, "b": [4.0, 5.0, 3.0, 5.0], "c": [3.0, 4.0, 2.0, 1.0]}


def rating_dataset() -> Dataset:
    anns = [ann(t, w, "rating", v) for w, col in RATINGS.items() for t, v in enumerate(col, 1)]
    anns += [ann(t, "lead", "rating", v) for t, v in enumerate(LEAD, 1)]
    return Dataset("x.json", anns, [1, 2, 3, 4])


def by_name(doc: dict[str, Any]) -> dict[str, Any]:
    return {a["name"]: a for a in doc["fields"]["f"]["ground_truth"]["annotators"]}


def test_gold_annotator_scores_each_annotator() -> None:
    doc = run(rating_dataset(), ground_truth={"annotator": "lead"})
    gt = by_name(doc)
    assert set(gt) == {"a", "b", "c"}
    assert gt["a"]["agreement"] == 1.0 and gt["a"]["mean_offset"] == 0.0
    assert gt["b"]["agreement"] == 0.25 and gt["b"]["mean_offset"] == 0.75
    assert gt["c"]["agreement"] == 0.75 and gt["c"]["mean_offset"] == -1.0
    assert doc["fields"]["f"]["ground_truth"]["comparison"] == "exact match"
    assert doc["ground_truth"]["references"] == 4 and doc["ground_truth"]["in_agreement"]
    assert doc["fields"]["f"]["n_annotators"] == 4  # the lead is a rater too by default


def test_reference_kept_out_of_agreement_and_tolerance() -> None:
    doc = run(
        rating_dataset(),
        {"thresholds": {"disputed_tolerance": 1}},
        ground_truth={"annotator": "lead"},
        source={"include_ground_truth": False},
    )
    f = doc["fields"]["f"]
    assert f["n_annotators"] == 3 and doc["input"]["ground_truth_excluded"] == 4
    assert by_name(doc)["b"]["agreement"] == 1.0  # within 1 of the lead everywhere
    assert "within 1" in f["ground_truth"]["comparison"]


def test_gold_tasks_and_conflicting_references() -> None:
    data = rating_dataset()
    data.annotations.append(ann(2, "boss", "rating", 1.0, gt=True))  # disagrees with lead on 2
    doc = run(data, ground_truth={"annotator": "lead", "tasks": ["1-2"]})
    gt = doc["fields"]["f"]["ground_truth"]
    assert gt["n_tasks"] == 1 and gt["conflicting"] == [2]
    assert {a["name"]: a["n_tasks"] for a in gt["annotators"]} == {"a": 1, "b": 1, "c": 1}


def test_label_sets_compared_by_masi() -> None:
    sets = [
        ann(1, "a", "choices", ("A", "B")),
        ann(1, "b", "choices", ("A",)),
        ann(1, "g", "choices", ("A",), gt=True),
        ann(2, "a", "choices", ("C",)),
        ann(2, "b", "choices", ("C",)),
        ann(2, "g", "choices", ("C",), gt=True),
    ]
    doc = run(Dataset("x.json", sets, [1, 2]), {"multiple": True})
    gt = by_name(doc)
    # {A, B} against {A}: Jaccard 1/2, subset weight 2/3 → MASI distance 2/3, agreement 1/3.
    assert gt["a"]["agreement"] == pytest.approx((1 / 3 + 1) / 2)
    assert gt["b"]["agreement"] == 1.0 and gt["b"]["mean_offset"] is None


def test_ground_truth_threshold_gates() -> None:
    doc = run(
        rating_dataset(),
        {"thresholds": {"ground_truth": {"fail": 0.5}}},
        ground_truth={"annotator": "lead"},
    )
    check = next(c for c in doc["fields"]["f"]["checks"] if c["name"] == "ground_truth")
    assert check["verdict"] == "fail" and check["value"] == 0.25
    assert "b's agreement with ground truth 0.250 is below the fail threshold" in check["message"]


def test_label_studio_ground_truth_flag_in_the_example() -> None:
    raw = json.loads(EXPORT.read_text())
    truth, expected = {}, {}
    for task in raw:  # read the export by hand: the flagged answer per task
        for a in task["annotations"]:
            if a.get("ground_truth"):
                [r] = [r for r in a["result"] if r["from_name"] == "sentiment"]
                truth[task["id"]] = (a["completed_by"], r["value"]["choices"][0])
    for task in raw:
        if task["id"] in truth:
            for a in task["annotations"]:
                if a["completed_by"] != truth[task["id"]][0] and not a["was_cancelled"]:
                    [r] = [r for r in a["result"] if r["from_name"] == "sentiment"]
                    hit = r["value"]["choices"][0] == truth[task["id"]][1]
                    expected.setdefault(str(a["completed_by"]), []).append(hit)
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": str(EXPORT)},
            "fields": {"sentiment": {"bootstrap": {"replicates": 0}}},
        }
    )
    doc = evaluate(cfg, LabelStudioExport(EXPORT).load()).document
    gt = doc["fields"]["sentiment"]["ground_truth"]
    assert gt["n_tasks"] == len(truth) == 5
    got = {a["id"]: (a["n_tasks"], a["agreement"]) for a in gt["annotators"]}
    assert got == {k: (len(v), sum(v) / len(v)) for k, v in expected.items()}


def test_a_kind_without_a_comparison_is_not_evaluated() -> None:
    cfg = parse_config({"source": {"type": "prodigy", "path": "x.jsonl"}, "fields": {"f": {}}})
    data = rating_dataset()
    refs = [a for a in data.annotations if a.annotator == "lead"]
    got = field_truth("f", "ellipselabels", "nominal", cfg.fields["f"], data, refs)
    assert got is not None and got.annotators == [] and got.n_tasks == 4
    assert got.comparison.startswith("not evaluated: no ground-truth comparison for ellipselabels")


def spans(*regions: tuple[int, int, str]) -> RegionSet:
    """A span answer: (start, end, label) per region."""
    return RegionSet(
        "span",
        ids=[f"r{i}" for i in range(len(regions))],
        labels=[lab for _, _, lab in regions],
        coords=[float(c) for s, e, _ in regions for c in (s, e)],
    )


def test_span_fields_are_compared_by_matched_region_f1() -> None:
    # Task 1: the lead marks PER [0, 5) and ORG [10, 20). "a" marks the same, stored in the
    # other order (F1 1); "b" marks PER [0, 4) (IoU 0.8, a match) and LOC [10, 20) (a label
    # swap: no match), so F1 = 2·1 / (2 + 2) = 0.5. Task 2: the lead marks nothing; "a" marks
    # nothing (1), "b" marks a PER (0). Means: a 1.0, b 0.25.
    lead = {1: spans((0, 5, "PER"), (10, 20, "ORG")), 2: spans()}
    given = {
        "a": {1: spans((10, 20, "ORG"), (0, 5, "PER")), 2: spans()},
        "b": {1: spans((0, 4, "PER"), (10, 20, "LOC")), 2: spans((3, 9, "PER"))},
    }
    anns = [ann(t, "lead", "labels", "", regions=s) for t, s in lead.items()]
    anns += [ann(t, w, "labels", "", regions=s) for w, ts in given.items() for t, s in ts.items()]
    doc = run(Dataset("x.json", anns, [1, 2]), ground_truth={"annotator": "lead"})
    truth = doc["fields"]["f"]["ground_truth"]
    assert truth["comparison"] == "pairwise F1 of matched regions (IoU ≥ 0.5, same label)"
    gt = by_name(doc)
    assert gt["a"]["agreement"] == 1.0 and gt["b"]["agreement"] == 0.25
    assert gt["a"]["n_tasks"] == gt["b"]["n_tasks"] == 2


def test_reference_regions_in_another_order_do_not_conflict() -> None:
    cfg = parse_config({"source": {"type": "prodigy", "path": "x.jsonl"}, "fields": {"f": {}}})
    one, other = spans((0, 5, "PER"), (6, 9, "ORG")), spans((6, 9, "ORG"), (0, 5, "PER"))
    refs = [ann(1, "g1", "labels", "", True, one), ann(1, "g2", "labels", "", True, other)]
    data = Dataset("x.json", [*refs, ann(1, "a", "labels", "", regions=spans((0, 5, "PER")))], [1])
    got = field_truth("f", "labels", "nominal", cfg.fields["f"], data, refs)
    assert got is not None and got.conflicting == []
    assert [(a.id, round(a.agreement, 4)) for a in got.annotators] == [("a", 0.6667)]
    refs[1] = ann(1, "g2", "labels", "", True, spans((0, 5, "LOC")))
    got = field_truth("f", "labels", "nominal", cfg.fields["f"], data, refs)
    assert got is not None and got.conflicting == [1] and got.annotators == []


def test_prodigy_gold_annotator_is_the_reference_and_kept_out(examples: Path) -> None:
    path = examples / "prodigy" / "choice.jsonl"
    cfg = parse_config(
        {
            "source": {"type": "prodigy", "path": str(path), "include_ground_truth": False},
            "fields": {"choice": {"bootstrap": {"replicates": 0}}},
            "ground_truth": {"annotator": "sentiment-chris"},
        }
    )
    doc = evaluate(cfg, ProdigyJSONL(path).load()).document
    f = doc["fields"]["choice"]
    names = {a["name"] for a in f["ground_truth"]["annotators"]}
    assert names and "sentiment-chris" not in names
    assert "sentiment-chris" not in {a["name"] for a in f["annotators"]}
    assert doc["input"]["ground_truth_excluded"] == doc["ground_truth"]["references"] > 0
