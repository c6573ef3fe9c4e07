"""Issue 14, 5.6: AC2 and the kappa family on a rating field use the declared scale (labels:, or
the labeling config's maxRating), not only the ratings that occur, and the report says which."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from builders import ls_annotation
from iaa_gate.cli import main

irrcac = pytest.importorskip("irrCAC.raw")

# 6 tasks × 3 annotators on a 1–5 scale; only 2–5 occur.
RATINGS = [[2, 3, 3], [4, 4, 5], [5, 5, 5], [3, 2, 3], [4, 4, 4], [2, 2, 3]]
CONFIG = (
    '<View><Text name="text" value="$text"/>'
    '<Rating name="stars" toName="text" maxRating="5"/></View>'
)


def run(tmp_path: Path, source: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    tasks = [
        {
            "id": t,
            "data": {"text": "t"},
            "annotations": [
                ls_annotation(a, 10 * t + a, stars=("rating", {"rating": r}))
                for a, r in enumerate(row, 1)
            ],
        }
        for t, row in enumerate(RATINGS, 1)
    ]
    (tmp_path / "export.json").write_text(json.dumps(tasks))
    (tmp_path / "config.xml").write_text(CONFIG)
    cfg = {
        "source": {"type": "label-studio-export", "path": "export.json", **source},
        "fields": {"stars": {"bootstrap": {"replicates": 0}, **fields}},
        "report": {"formats": ["json", "markdown"]},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    main(["run", "-c", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"), "-q"])
    return json.loads((tmp_path / "out" / "report.json").read_text())["fields"]["stars"]


def ac2(categories: list[int] | None) -> float:
    cac = irrcac.CAC(pd.DataFrame(RATINGS), weights="ordinal", categories=categories)
    return float(cac.gwet()["est"]["coefficient_value"])


def test_the_labeling_configs_max_rating_is_the_scale(tmp_path: Path) -> None:
    f = run(tmp_path, {"label_config": "config.xml"}, {})
    assert f["categories_used"] == {
        "values": [1, 2, 3, 4, 5],
        "source": "the labeling config's maxRating",
    }
    # irrCAC with categories 1–5 (its 4-decimal rounding); the occurring 2–5 give another value
    assert f["coefficients"]["gwet_ac2"]["value"] == pytest.approx(ac2([1, 2, 3, 4, 5]), abs=1e-4)
    assert ac2(None) != pytest.approx(ac2([1, 2, 3, 4, 5]), abs=1e-3)
    md = (tmp_path / "out" / "report.md").read_text()
    assert "use the categories 1, 2, 3, 4, 5 (from the labeling config's maxRating)" in md


def test_labels_declare_the_scale(tmp_path: Path) -> None:
    f = run(tmp_path, {}, {"labels": ["1", "2", "3", "4", "5", "6"]})
    assert f["categories_used"]["source"] == "labels"
    assert f["coefficients"]["gwet_ac2"]["value"] == pytest.approx(
        ac2([1, 2, 3, 4, 5, 6]), abs=1e-4
    )


def test_without_a_declared_scale_the_report_says_so(tmp_path: Path) -> None:
    f = run(tmp_path, {}, {})
    assert f["categories_used"]["values"] == [2, 3, 4, 5]
    assert f["categories_used"]["source"].startswith("the values that occur")
    assert f["coefficients"]["gwet_ac2"]["value"] == pytest.approx(ac2(None), abs=1e-4)
