"""Published values reproduced by a whole run: ``iaa-gate run``, the Python API and the handbook
agree (issue 14, part 5)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from builders import ls_annotation
from iaa_gate.cli import main
from iaa_gate.metrics import fleiss_kappa, gwet_ac1, percent_agreement

# Gwet (2014), Handbook of Inter-Rater Reliability, table 2.16: 4 raters, 12 units, 5 categories,
# missing ratings (irrCAC's raw_4raters). Unit 12 has one rating.
FOUR_RATERS = [
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, None, 3, None],
]
HANDBOOK = {"fleiss_kappa": 0.76117, "gwet_ac1": 0.77544, "percent_agreement": 0.81818}
"""Fleiss' kappa and AC1 as the handbook prints them; p_a = 9/11 (irrCAC's ``pa``)."""


def _export(path: Path) -> Path:
    tasks = []
    for unit, row in enumerate(FOUR_RATERS, start=1):
        anns = [
            ls_annotation(rater, unit * 10 + rater, label=("choices", {"choices": [str(v)]}))
            for rater, v in enumerate(row, start=1)
            if v is not None
        ]
        tasks.append({"id": unit, "data": {"text": f"unit {unit}"}, "annotations": anns})
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


def test_fleiss_kappa_and_ac1_of_a_run_equal_the_handbook_and_the_api(tmp_path: Path) -> None:
    export = _export(tmp_path / "export.json")
    config = tmp_path / "iaa-gate.yaml"
    config.write_text(
        "version: 1\n"
        f"source: {{type: label-studio-export, path: {export.name}}}\n"
        "fields:\n"
        "  label:\n"
        "    coefficients: [alpha, percent_agreement, pooled_pair_agreement, fleiss_kappa,\n"
        "                   gwet_ac1]\n"
        "    bootstrap: {replicates: 0}\n"
        "report: {dir: out, formats: [json]}\n",
        encoding="utf-8",
    )
    assert main(["run", "--config", str(config), "--quiet"]) in (0, 1)
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    coefficients = report["fields"]["label"]["coefficients"]
    matrix = [[math.nan if v is None else float(v) for v in row] for row in FOUR_RATERS]
    api = {
        "fleiss_kappa": fleiss_kappa(matrix),
        "gwet_ac1": gwet_ac1(matrix),
        "percent_agreement": percent_agreement(matrix),
    }
    for name, published in HANDBOOK.items():
        assert round(coefficients[name]["value"], 5) == published
        assert coefficients[name]["value"] == pytest.approx(api[name], abs=1e-12)
    # The pooled share is named apart: 43 agreeing pairs of 55 (issue 14: never both "percent").
    assert coefficients["pooled_pair_agreement"]["value"] == pytest.approx(43 / 55, abs=1e-12)
