"""The bundled region examples, end to end, with a few tasks worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import read_disputed
from iaa_gate.cli import ExitCode, main


def run_example(config: Path, tmp_path: Path) -> dict:
    """The run's report.json, with every disputed task (disputed-tasks.jsonl) under ``every``."""
    code = main(["run", "-c", str(config), "--out", str(tmp_path), "-q"])
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["verdict"] != "pass"  # each example has a sloppy annotator (user 4)
    assert code == (ExitCode.GATE_FAILED if report["verdict"] == "fail" else ExitCode.OK)
    report["every"] = read_disputed(tmp_path)
    return report


def disputed(report: dict, field: str, task: object) -> dict:
    return next(d for d in report["every"][field] if d["id"] == task)


def test_ner_example(examples: Path, tmp_path: Path) -> None:
    report = run_example(examples / "label-studio-ner" / "iaa-gate.yaml", tmp_path)
    ner = report["fields"]["ner"]
    assert ner["regions"]["shape"] == "span" and ner["regions"]["relations"]["n"] > 0
    assert report["not_evaluated"] == {}  # ner.certainty is configured: a sub-field
    # Task 3002: 2: LOC [4,9), ORG [18,22), PER [36,46); 3: ORG [18,29);
    # 4: LOC [4,9), ORG [18,29), PER [36,46).
    # Regions, matched label-free: LOC (2, 4; 3 has none): 1 agreeing pair of 3; ORG [18,22)
    # (2 only: IoU 4/11 < 0.5 with [18,29)): 1/3; ORG [18,29) (3, 4): 1/3; PER (2, 4): 1/3.
    # The task scores its lowest region's 1/3, as a 2-to-1 choices task would.
    d = disputed(report, "ner", 3002)
    assert d["score"] == pytest.approx(1 / 3)
    assert d["details"]["region"]["score"] == pytest.approx(1 / 3)
    kinds = {(x["annotator"], x["other"], x["kind"]) for x in d["details"]["disagreements"]}
    assert ("2", "3", "boundary shift") in kinds  # ORG [18,22) vs [18,29)
    assert ("2", "3", "missed") in kinds  # 3 has no LOC, which 2 of 3 raters marked
    assert d["details"]["text"]["excerpt"].startswith("The Lagos team of Lumo Energy")
    assert report["fields"]["ner.certainty"]["kind"] == "choices"


def test_box_example(examples: Path, tmp_path: Path) -> None:
    report = run_example(examples / "label-studio-boxes" / "iaa-gate.yaml", tmp_path)
    # Task 5006: 2: Car A, Car B; 3: Car C (IoU with B 0.855); 4: a Bicycle over A.
    # Regions, matched label-free: A with 4's Bicycle: (Car, unmatched, Bicycle), no pair
    # agrees: 0; B with C: (Car, Car, unmatched): 1/3. The task scores its lowest: 0, and
    # names that region first.
    d = disputed(report, "objects", 5006)
    assert d["score"] == 0.0
    assert d["details"]["region"]["labels"] == {"2": "Car", "3": "(unmatched)", "4": "Bicycle"}
    regions = report["fields"]["objects"]["regions"]
    assert regions["shape"] == "box" and 0.5 < regions["mean_iou"] < 1  # all matched: IoU >= 0.5


def test_prodigy_ner_manual_example(examples: Path, tmp_path: Path) -> None:
    report = run_example(examples / "prodigy" / "ner-iaa-gate.yaml", tmp_path)
    # "... Oslo": ana nothing; ben LOC Oslo; chen LOC Oslo and ORG Oslo (nested, kept).
    # Regions: LOC Oslo (ben, chen; ana none): 1/3; ORG Oslo (chen only): 1/3.
    assert disputed(report, "ner_manual", -1493485412)["score"] == pytest.approx(1 / 3)
    lines = (tmp_path / "disputed.jsonl").read_text().splitlines()
    assert all("spans" in json.loads(x) for x in lines)


def test_region_order_never_changes_the_report(examples: Path, tmp_path: Path) -> None:
    """The NER example with every annotation's results reversed and rotated: same scores."""
    import random

    tasks = json.loads((examples / "label-studio-ner" / "export.json").read_text())
    rng = random.Random(7)
    for t in tasks:
        for a in t["annotations"]:
            rng.shuffle(a["result"])
    shuffled = tmp_path / "shuffled.json"
    shuffled.write_text(json.dumps(tasks))
    reports = []
    for src, out in ((examples / "label-studio-ner" / "export.json", "a"), (shuffled, "b")):
        code = main(
            [
                "run",
                "-c",
                str(examples / "label-studio-ner" / "iaa-gate.yaml"),
                "--source",
                str(src),
                "--out",
                str(tmp_path / out),
                "-q",
            ]
        )
        assert code == ExitCode.GATE_FAILED
        doc = json.loads((tmp_path / out / "report.json").read_text())
        every = read_disputed(tmp_path / out)
        reports.append(
            {
                name: (
                    f["alpha"],
                    f.get("regions"),
                    [(d["id"], d["score"]) for d in f["disputed"]["lowest"]],
                    [(d["id"], d["score"]) for d in every.get(name, [])],
                )
                for name, f in doc["fields"].items()
            }
        )
    assert reports[0] == reports[1]
