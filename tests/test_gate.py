"""Gate and coefficient suite through the pipeline: thresholds, lower bounds, undefined values."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.config import parse_config
from iaa_gate.core.errors import ConfigError
from iaa_gate.pipeline import evaluate

EXPORT = Path(__file__).resolve().parent.parent / "examples" / "label-studio" / "export.json"


@pytest.fixture(scope="module")
def dataset() -> Any:
    return LabelStudioExport(EXPORT).load()


def config(**field: Any) -> Any:
    return parse_config(
        {
            "source": {"type": "label-studio-export", "path": str(EXPORT)},
            "fields": {"sentiment": field},
        }
    )


def checks(outcome: Any) -> dict[str, Any]:
    return {c.name: c for c in outcome.checks}


def test_lower_bound_is_stricter_than_the_estimate(dataset: Any) -> None:
    plain = evaluate(config(thresholds={"alpha": {"fail": 0.72}}), dataset)
    strict = evaluate(config(thresholds={"alpha": {"fail": 0.72, "use": "lower_bound"}}), dataset)
    assert checks(plain)["alpha"].verdict.value == "pass"
    assert checks(strict)["alpha"].verdict.value == "fail"
    assert "lower 95% bound of alpha" in checks(strict)["alpha"].message
    alpha = strict.results["sentiment"].coefficients["alpha"]
    assert alpha.lower is not None and alpha.lower < 0.72 < alpha.value
    assert alpha.q is not None and 0 <= alpha.q <= 1


def test_thresholds_on_any_coefficient(dataset: Any) -> None:
    cfg = config(
        coefficients=["alpha", "gwet_ac1", "fleiss_kappa"],
        thresholds={"gwet_ac1": {"warn": 0.9}, "fleiss_kappa": {"fail": 0.5}},
    )
    out = evaluate(cfg, dataset)
    c = checks(out)
    assert c["gwet_ac1"].verdict.value == "warn" and c["fleiss_kappa"].verdict.value == "pass"
    doc = out.document["fields"]["sentiment"]["coefficients"]
    assert doc["fleiss_kappa"]["interpretation"] == "substantial"
    assert doc["fleiss_kappa"]["scale"] == "landis_koch" and doc["alpha"]["scale"] == "krippendorff"


def test_two_annotator_coefficients_are_undefined_with_reason(dataset: Any) -> None:
    out = evaluate(config(coefficients=["alpha", "cohen_kappa"]), dataset)
    cohen = out.document["fields"]["sentiment"]["coefficients"]["cohen_kappa"]
    assert cohen["value"] is None and "exactly two annotators" in cohen["undefined_reason"]


def test_threshold_on_an_unlisted_coefficient_is_a_config_error(dataset: Any) -> None:
    with pytest.raises(ConfigError, match="thresholds set on cohen_kappa"):
        config(coefficients=["alpha"], thresholds={"cohen_kappa": {"fail": 0.5}})
    out = evaluate(config(thresholds={"scott_pi": {"warn": 0.5}}), dataset)  # default list
    assert "scott_pi" in out.document["fields"]["sentiment"]["coefficients"]


def test_interpretation_scale_and_bootstrap_off(dataset: Any) -> None:
    out = evaluate(config(interpretation="altman", bootstrap={"replicates": 0}), dataset)
    coefs = out.document["fields"]["sentiment"]["coefficients"]
    assert coefs["alpha"]["lower"] is None and coefs["alpha"]["scale"] == "altman"
    assert coefs["alpha"]["interpretation"] == "good"


def test_outlier_severity_fail_and_disputed_share(dataset: Any) -> None:
    out = evaluate(
        config(thresholds={"annotator_severity": "fail", "disputed_share": {"fail": 0.9}}), dataset
    )
    c = checks(out)
    assert c["annotators"].verdict.value == "fail" and "5 (+0.154)" in c["annotators"].message
    assert c["disputed_share"].verdict.value == "fail"
    assert out.verdict.value == "fail" and out.document["verdict"] == "fail"


def test_interval_width_is_a_check_with_more_tasks(dataset: Any) -> None:
    """``thresholds.interval_width``: a wider interval warns and says about how many more tasks
    (1/√n) would narrow it; every report gives the width beside alpha."""
    out = evaluate(config(thresholds={"interval_width": {"warn": 0.05}}), dataset)
    c = checks(out)["interval_width"]
    alpha = out.results["sentiment"].coefficients["alpha"]
    assert alpha.lower is not None and alpha.upper is not None
    width, n = alpha.upper - alpha.lower, out.results["sentiment"].n_pairable
    more = math.ceil(n * (width / 0.05) ** 2) - n
    assert c.verdict.value == "warn" and c.value == pytest.approx(width)
    assert f"about {more:,} more tasks" in c.message
    doc = out.document["fields"]["sentiment"]["interval_width"]
    assert doc == {
        "width": pytest.approx(width),
        "undefined_reason": None,
        "confidence": 0.95,
        "n_tasks": n,
        "goal": 0.05,
        "more_tasks": more,
    }
    wide = evaluate(config(thresholds={"interval_width": {"warn": 0.05, "fail": 0.08}}), dataset)
    assert c.message == (
        f"alpha's 95% interval width {width:.3f} is wider than the warn threshold 0.05: about "
        f"{more:,} more tasks with two or more ratings would narrow it to 0.05"
    )
    assert checks(wide)["interval_width"].verdict.value == "fail"
    assert checks(wide)["interval_width"].message == (
        f"alpha's 95% interval width {width:.3f} is wider than the fail threshold 0.08: about "
        f"{more:,} more tasks with two or more ratings would narrow it to 0.05"
    )
    fine = evaluate(config(thresholds={"interval_width": {"warn": 0.5}}), dataset)
    assert checks(fine)["interval_width"].verdict.value == "pass"
    assert (
        checks(fine)["interval_width"].message
        == f"alpha's 95% interval width {width:.3f} meets 0.5"
    )
    assert fine.document["fields"]["sentiment"]["interval_width"]["more_tasks"] is None
    plain = evaluate(config(), dataset)  # no goal: no check, the width still beside alpha
    assert "interval_width" not in checks(plain)
    assert plain.document["fields"]["sentiment"]["interval_width"]["width"] == pytest.approx(width)


def test_interval_width_needs_the_bootstrap(dataset: Any) -> None:
    with pytest.raises(ConfigError, match="interval_width needs alpha's bootstrap interval"):
        config(thresholds={"interval_width": {"warn": 0.1}}, bootstrap={"replicates": 0})
    with pytest.raises(ConfigError, match="warn must be at most fail"):
        config(thresholds={"interval_width": {"warn": 0.2, "fail": 0.1}})
